// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Atom in full (RFC 4287 and the Atom 0.3 draft), on every backend.
final class AtomInFullTests: XCTestCase {
    // Atom 0.3's mode="base64": decoded whatever it decodes to; bytes that are not UTF-8
    // become U+FFFD on every backend, so that the line stays valid JSON text.
    func testBase64ModeThatDecodesToBytesNotUTF8IsWrittenAsUTF8() throws {
        let b64 = Data([0x61, 0x62, 0xFF, 0xFE, 0xC3, 0x63, 0x64]).base64EncodedString()
        let l = try lines("""
            <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>t</title>
            <entry><id>1</id><content type="text/plain" mode="base64">\(b64)</content></entry>
            </feed>
            """)
        XCTAssertEqual(l[0]["content"] as? String, "ab\u{FFFD}\u{FFFD}\u{FFFD}cd")
    }

    // RFC 4287 §4.1.3.3: content of a type that is neither text/*, an XML media type nor
    // text/html/xhtml is base64; it is decoded when the result is text.
    func testContentOfANonTextMIMETypeIsDecodedWhenItIsText() throws {
        let csv = Data("a,b\n1,2\n".utf8).base64EncodedString()
        let json = Data("{\"k\": \"é\"}".utf8).base64EncodedString()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00]).base64EncodedString()
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
            <entry><id>1</id><content type="application/json">\(json)</content></entry>
            <entry><id>2</id><content type="application/octet-stream">\(png)</content></entry>
            <entry><id>3</id><content type="text/csv">a,b</content></entry>
            <entry><id>4</id><content type="application/atom+xml">&lt;x/&gt;</content></entry>
            <entry><id>5</id><content type="Application/CSV">\(csv)</content></entry>
            <entry><id>6</id><content type="application/json">not base64!</content></entry>
            </feed>
            """)
        XCTAssertEqual(l[0]["content"] as? String, "{\"k\": \"é\"}")
        XCTAssertEqual(l[0]["content_type"] as? String, "application/json")
        XCTAssertEqual(l[1]["content"] as? String, png, "binary: kept as written")
        XCTAssertEqual(l[2]["content"] as? String, "a,b", "text/*: not base64")
        XCTAssertEqual(l[3]["content"] as? String, "<x/>", "an XML media type: not base64")
        XCTAssertEqual(l[4]["content"] as? String, "a,b\n1,2\n")
        XCTAssertEqual(l[5]["content"] as? String, "not base64!")
    }

    // A root `feed` in no namespace, or in one that is not Atom's, is read as Atom of an
    // unknown version: format "atom".
    func testAFeedRootWithoutTheAtomNamespaceIsReadAsAtom() throws {
        for ns in ["", " xmlns=\"http://example.com/not-atom\"", " xmlns=\"http://purl.org/rss/1.0/\""] {
            let l = try lines("""
                <feed\(ns) xml:lang="en"><title type="html">&lt;b&gt;T&lt;/b&gt;</title><id>urn:f</id>
                <link rel="alternate" href="http://example.com/"/><updated>2024-01-02T03:04:05Z</updated>
                <entry><id>urn:1</id><title>One</title><link href="http://example.com/1"/>
                <author><name>Ann</name></author><summary>s</summary></entry>
                </feed>
                """)
            XCTAssertEqual(l.count, 2, ns)
            XCTAssertEqual(l[0]["id"] as? String, "urn:1", ns)
            XCTAssertEqual(l[0]["title"] as? String, "One", ns)
            XCTAssertEqual(l[0]["link"] as? String, "http://example.com/1", ns)
            XCTAssertEqual((l[0]["authors"] as? [[String: Any]])?.first?["name"] as? String, "Ann", ns)
            XCTAssertEqual(l[0]["summary"] as? String, "s", ns)
            XCTAssertEqual((l[0]["feed"] as? [String: Any])?["format"] as? String, "atom", ns)
            XCTAssertEqual(l[1]["format"] as? String, "atom", ns)
            XCTAssertEqual(l[1]["title"] as? String, "<b>T</b>", ns)
            XCTAssertEqual(l[1]["title_type"] as? String, "html", ns)
            XCTAssertEqual(l[1]["link"] as? String, "http://example.com/", ns)
            XCTAssertEqual(l[1]["updated"] as? String, "2024-01-02T03:04:05Z", ns)
            XCTAssertEqual(l[1]["language"] as? String, "en", ns)
            XCTAssertNil(l[1]["error"], ns)
        }
        // Atom elements in the Atom namespace still count inside such a feed; a feed root
        // inside another root is the document's feed (SCHEMA.md, "Formats"); a root with
        // no feed root in it is still not a feed.
        let l = try lines("""
            <feed xmlns:a="http://www.w3.org/2005/Atom"><entry><a:id>x</a:id></entry></feed>
            """)
        XCTAssertEqual(l[0]["id"] as? String, "x")
        let inside = try lines("<html><feed><title>T</title></feed></html>")
        XCTAssertEqual(inside[0]["format"] as? String, "atom")
        XCTAssertEqual(inside[0]["title"] as? String, "T")
        XCTAssertNil(inside[0]["error"])
        let page = try lines("<html><p/></html>")
        XCTAssertEqual((page[0]["error"] as? [String: Any])?["code"] as? String, "not_feed")
    }

    // Entries of one vocabulary inside a feed of another are read, not dropped.
    func testEntriesInsideFeedsOfMixedVocabulariesAreKept() throws {
        let rss = try lines("""
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>c</title>
            <item><title>rss item</title></item>
            <atom:entry><atom:id>urn:a</atom:id><atom:title>atom entry</atom:title></atom:entry>
            </channel></rss>
            """)
        XCTAssertEqual(rss.compactMap { $0["kind"] as? String == "item" ? $0["title"] as? String : nil },
                       ["rss item", "atom entry"])
        let atom = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>f</title>
            <entry><id>urn:e</id><title>atom entry</title></entry>
            <item xmlns=""><title>rss item</title><guid>g</guid></item>
            </feed>
            """)
        XCTAssertEqual(atom.compactMap { $0["kind"] as? String == "item" ? $0["title"] as? String : nil },
                       ["atom entry", "rss item"])
        XCTAssertEqual(atom[1]["id"] as? String, "g")
    }
}

extension AtomInFullTests {
    // RFC 4287 §4.2.11: an entry's source carries the metadata of the feed it came from.
    func testSourceCarriesTheSourceFeedsLinksPersonsAndCategories() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/"><title>f</title>
            <entry><id>urn:e</id><title>e</title>
            <source><id>urn:src</id><title>Source</title><updated>2024-05-06T07:08:09Z</updated>
            <link rel="self" href="feed.atom" type="application/atom+xml"/><link href="/home"/>
            <author><name>Ann</name><email>ann@example.org</email><uri>ann</uri></author>
            <contributor><name>Bob</name></contributor>
            <category term="t" scheme="http://s/" label="T"/></source>
            <author><name>Entry author</name></author></entry></feed>
            """)
        let item = l[0]
        let src = try XCTUnwrap(item["source_feed"] as? [String: Any])
        XCTAssertEqual(src["id"] as? String, "urn:src")
        XCTAssertEqual(src["title"] as? String, "Source")
        XCTAssertEqual(src["updated"] as? String, "2024-05-06T07:08:09Z")
        XCTAssertEqual(src["url"] as? String, "http://example.org/home")
        let links = try XCTUnwrap(src["links"] as? [[String: String]])
        XCTAssertEqual(links, [
            ["href": "http://example.org/feed.atom", "rel": "self", "type": "application/atom+xml"],
            ["href": "http://example.org/home", "rel": "alternate"],
        ])
        XCTAssertEqual(src["authors"] as? [[String: String]],
                       [["name": "Ann", "email": "ann@example.org", "uri": "http://example.org/ann"]])
        XCTAssertEqual(src["contributors"] as? [[String: String]], [["name": "Bob"]])
        XCTAssertEqual(src["categories"] as? [[String: String]], [["term": "t", "scheme": "http://s/", "label": "T"]])
        // The source's persons, links and categories are not the entry's.
        XCTAssertEqual(item["authors"] as? [[String: String]], [["name": "Entry author"]])
        XCTAssertNil(item["links"])
        XCTAssertNil(item["categories"])
    }
}

extension AtomInFullTests {
    // The Atom 0.3 draft: `info` is a content construct of the feed; `mode` says how its
    // value is encoded (xml, escaped, base64).
    func testAtom03InfoAndModes() throws {
        let b64 = Data("<b>decoded</b>".utf8).base64EncodedString()
        let l = try lines("""
            <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title mode="base64" type="text/html">\(b64)</title>
            <info type="application/xhtml+xml" mode="xml"><div xmlns="http://www.w3.org/1999/xhtml">This is an <b>Atom</b> feed</div></info>
            <tagline type="text/html" mode="escaped">&lt;i&gt;tag&lt;/i&gt;</tagline>
            </feed>
            """)
        let feed = l[0]
        XCTAssertEqual(feed["format"] as? String, "atom03")
        XCTAssertEqual(feed["info"] as? String, "This is an <b>Atom</b> feed")
        XCTAssertEqual(feed["info_type"] as? String, "xhtml")
        XCTAssertEqual(feed["title"] as? String, "<b>decoded</b>")
        XCTAssertEqual(feed["title_type"] as? String, "html")
        XCTAssertEqual(feed["subtitle"] as? String, "<i>tag</i>")
        XCTAssertEqual(feed["subtitle_type"] as? String, "html")
        let plain = try lines("<feed version=\"0.3\" xmlns=\"http://purl.org/atom/ns#\"><info>plain</info></feed>")
        XCTAssertEqual(plain[0]["info"] as? String, "plain")
        XCTAssertEqual(plain[0]["info_type"] as? String, "text")
    }
}
