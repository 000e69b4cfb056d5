// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
import Foundation
import XCTest

/// A base is applied only when it is safe: an absolute http, https or ftp URL with a host
/// (docs/SCHEMA.md, "URLs"). A `javascript:`, `data:`, `vbscript:` or `file:` base, or a
/// malformed one, is ignored and the base outside it stays — on every member that is
/// resolved, in content, on every backend, whole or in 1-byte chunks, and for the
/// document's location (`--base-url`).
final class SafeBaseTests: XCTestCase {
    static let unsafe = ["javascript:alert(1)", "JavaScript:alert(1)//", "data:text/html,x", "vbscript:msgbox(1)",
                         "file:///etc/", "http:///example.com/", "https://", "http://exa mple.com/"]

    /// The feed with `base` as the xml:base of the feed element (and of an entry), inside
    /// an outer one when `outer` is given.
    private func feed(base: String, outer: String?) -> String {
        let outerAttr = outer.map { " xml:base=\"\($0)\"" } ?? ""
        return """
            <feed xmlns="http://www.w3.org/2005/Atom"\(outerAttr)><title>t</title>
            <link href="home.html"/><icon>i.png</icon>
            <entry xml:base="\(base)"><id>urn:x</id><title>e</title>
            <link href="y.html"/><link rel="enclosure" href="m.mp3" length="1" type="audio/mpeg"/>
            <author><name>n</name><uri>me</uri></author>
            <summary type="html">&lt;a href="x.html"&gt;x&lt;/a&gt;</summary>
            <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="z.html">z</a><img src="p.png"/>\
            <p xml:base="\(base)"><a href="w.html">w</a></p></div></content></entry></feed>
            """
    }

    /// Lines from every backend, whole and in 1-byte chunks (all the same bytes).
    private func lines(_ xml: String, location: String? = nil) throws -> [[String: Any]] {
        var outputs: [[UInt8]] = []
        for backend in FeedBackend.allCases {
            for input in [FeedInput.bytes(Array(xml.utf8)), chunkedInput(Array(xml.utf8), 1)] {
                let out = MemoryOutput()
                let writer = JSONLinesWriter(output: out)
                writer.source = "t"
                writer.documentLocation = location
                try backend.makeParser().parse(input, handler: writer)
                try writer.flush()
                outputs.append(out.bytes)
            }
        }
        for o in outputs.dropFirst() { XCTAssertEqual(o, outputs[0], firstDifference(o, outputs[0])) }
        return try outputs[0].split(separator: 0x0A).map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
    }

    private func resolvedMembers(_ item: [String: Any]) -> [String] {
        [item["link"] as? String ?? "-",
         (item["enclosures"] as? [[String: Any]])?.first?["url"] as? String ?? "-",
         (item["authors"] as? [[String: Any]])?.first?["uri"] as? String ?? "-",
         item["summary"] as? String ?? "-",
         item["content"] as? String ?? "-"]
    }

    func testAnUnsafeBaseLeavesTheOuterBaseInForce() throws {
        for base in Self.unsafe {
            let l = try lines(feed(base: base, outer: "https://example.org/feed/"))
            XCTAssertEqual(resolvedMembers(l[0]), [
                "https://example.org/feed/y.html", "https://example.org/feed/m.mp3", "https://example.org/feed/me",
                "<a href=\"https://example.org/feed/x.html\">x</a>",
                "<a href=\"https://example.org/feed/z.html\">z</a>"
                    + "<img src=\"https://example.org/feed/p.png\"/><p xml:base=\"\(base)\">"
                    + "<a href=\"https://example.org/feed/w.html\">w</a></p>",
            ], base)
            XCTAssertEqual(l[0]["summary_base"] as? String, "https://example.org/feed/", base)
            XCTAssertEqual(l[1]["link"] as? String, "https://example.org/feed/home.html", base)
        }
    }

    func testAnUnsafeBaseAloneResolvesNothing() throws {
        for base in Self.unsafe {
            let l = try lines(feed(base: base, outer: nil))
            XCTAssertEqual(resolvedMembers(l[0]), [
                "y.html", "m.mp3", "me", "<a href=\"x.html\">x</a>",
                "<a href=\"z.html\">z</a><img src=\"p.png\"/>"
                    + "<p xml:base=\"\(base)\"><a href=\"w.html\">w</a></p>",
            ], base)
            XCTAssertNil(l[0]["summary_base"], base)
            for line in l {
                let text = String(decoding: try JSONSerialization.data(withJSONObject: line), as: UTF8.self).lowercased()
                for scheme in ["javascript:", "data:", "vbscript:", "file:"] where !base.lowercased().hasPrefix(scheme) {
                    XCTAssertFalse(text.contains(scheme), "\(base): \(text)")
                }
            }
        }
    }

    func testAnUnsafeDocumentLocationIsIgnoredAndASafeOneApplies() throws {
        let xml = feed(base: "posts/", outer: nil)
        for location in ["javascript:alert(1)", "file:///home/user/feeds/", "data:,x"] {
            let l = try lines(xml, location: location)
            XCTAssertEqual(l[0]["link"] as? String, "posts/y.html", location)   // the relative xml:base alone
            XCTAssertEqual(l[1]["link"] as? String, "home.html", location)
        }
        let safe = try lines(xml, location: "https://example.net/blog/feed.xml")
        XCTAssertEqual(safe[0]["link"] as? String, "https://example.net/blog/posts/y.html")
        XCTAssertEqual(safe[1]["link"] as? String, "https://example.net/blog/home.html")
    }

    func testSafeBasesAreHTTPHTTPSAndFTPWithAHost() {
        for ok in ["http://a/", "HTTPS://example.org:8443/x", "ftp://user@ftp.example.org/pub/", "http://[::1]/"] {
            XCTAssertTrue(FeedURL.isSafeBase(Array(ok.utf8)), ok)
        }
        for bad in Self.unsafe + ["//example.org/", "/relative/", "http://example.org:80x/", "mailto:a@b"] {
            // (A relative base is not unsafe, but it is no absolute URL: --base-url refuses it.)
            XCTAssertFalse(FeedURL.isSafeBase(Array(bad.utf8)), bad)
        }
    }
}
