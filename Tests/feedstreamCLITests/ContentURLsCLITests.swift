// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// `convert --content-as-written` and `--base-url` (docs/SCHEMA.md, "URLs").
final class ContentURLsCLITests: CLITestCase {
    private let doc = """
        <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/b/"><title>f</title>
        <entry><id>urn:e</id><link href="e.html"/><content type="html">&lt;a href="x/y.html"&gt;y&lt;/a&gt;</content></entry>
        </feed>
        """

    private func item(_ args: [String]) throws -> [String: Any] {
        let r = try run(["convert", "-q"] + args + ["-"], stdin: Data(doc.utf8))
        XCTAssertEqual(r.status, 0, r.err)
        let first = try XCTUnwrap(r.out.split(separator: "\n").first)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
    }

    func testContentIsResolvedByDefaultAndKeptAsWrittenOnRequest() throws {
        for backend in ["expat", "libxml2", "swift"] {
            XCTAssertEqual(try item(["--backend", backend])["content"] as? String, "<a href=\"http://example.org/b/x/y.html\">y</a>")
            let kept = try item(["--backend", backend, "--content-as-written"])
            XCTAssertEqual(kept["content"] as? String, "<a href=\"x/y.html\">y</a>")
            XCTAssertEqual(kept["link"] as? String, "http://example.org/b/e.html", "links are resolved either way")
            XCTAssertEqual(kept["content_base"] as? String, "http://example.org/b/")
        }
    }

    func testBaseURLIsTheBaseOutsideTheDocumentsXMLBase() throws {
        // An absolute xml:base wins; the base URL only fills in what is relative.
        XCTAssertEqual(try item(["--base-url", "https://other.example/feed"])["link"] as? String, "http://example.org/b/e.html")
        let r = try run(["convert", "-q", "--base-url", "https://other.example/feeds/a.xml", "-"],
                        stdin: Data("<rss version='2.0'><channel><title>c</title><item><link>p/1</link></item></channel></rss>".utf8))
        XCTAssertTrue(r.out.contains("\"link\":\"https://other.example/feeds/p/1\""), r.out)
    }
}
