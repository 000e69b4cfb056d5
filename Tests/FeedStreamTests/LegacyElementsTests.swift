// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Elements older writers used that feedparser documents reading: Atom 0.3's person
/// `homepage` (a person's `href`), an RSS item's `fullitem` (its `content`, HTML), a
/// link whose address is its text, an RSS item inside an Atom feed, the early iTunes
/// image `itunes:link` and a moved feed's redirect document — on every backend, whole
/// and in 1-byte chunks.
final class LegacyElementsTests: XCTestCase {
    /// The item lines of `xml`, the same from every backend, whole and in 1-byte chunks.
    private func items(_ xml: String) throws -> [[String: Any]] {
        try linesFromEveryBackendAndCut(xml).filter { $0["kind"] as? String == "item" }
    }

    func testAnAtom03PersonsHomepageIsItsAddress() throws {
        let xml = """
            <feed xmlns="http://purl.org/atom/ns#" version="0.3"><title>t</title>
            <entry><title>e</title><id>x</id>
            <author><name>Ann</name><homepage>http://ann.example/</homepage></author>
            <contributor><name>Bo</name><email>bo@example.com</email><homepage>http://bo.example/</homepage></contributor>
            </entry></feed>
            """
        let item = try XCTUnwrap(items(xml).first)
        let authors = try XCTUnwrap(item["authors"] as? [[String: Any]])
        XCTAssertEqual(authors as NSArray, [["name": "Ann", "uri": "http://ann.example/"]] as NSArray)
        let contributors = try XCTUnwrap(item["contributors"] as? [[String: Any]])
        XCTAssertEqual(contributors as NSArray,
                       [["name": "Bo", "email": "bo@example.com", "uri": "http://bo.example/"]] as NSArray)
    }

    func testAnRSSItemsFullitemIsItsContentBelowContentEncoded() throws {
        let full = "<p>The whole story &amp; more.</p>"
        let plain = """
            <rss version="0.91"><channel><title>t</title>
            <item><title>i</title><description>Short.</description><fullitem>\(full.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;"))</fullitem></item>
            </channel></rss>
            """
        let item = try XCTUnwrap(items(plain).first)
        XCTAssertEqual(item["content"] as? String, full)
        XCTAssertEqual(item["content_type"] as? String, "html")
        XCTAssertEqual(item["summary"] as? String, "Short.")
        // content:encoded is the item's content, before or after it.
        for encodedFirst in [true, false] {
            let encoded = #"<content:encoded xmlns:content="http://purl.org/rss/1.0/modules/content/">&lt;b&gt;Encoded&lt;/b&gt;</content:encoded>"#
            let fullitem = "<fullitem>Full</fullitem>"
            let xml = "<rss version=\"2.0\"><channel><title>t</title><item><title>i</title>"
                + (encodedFirst ? encoded + fullitem : fullitem + encoded) + "</item></channel></rss>"
            XCTAssertEqual(try XCTUnwrap(items(xml).first)["content"] as? String, "<b>Encoded</b>", "encoded first: \(encodedFirst)")
        }
    }

    func testALinkWithoutAnHrefHasItsTextAsItsAddress() throws {
        let xml = """
            <feed xmlns="http://purl.org/atom/ns#" version="0.3" xml:base="http://example.com/"><title>t</title>
            <entry><title>e</title><id>x</id>
            <link rel="alternate" type="text/html"> posts/1 </link>
            <link rel="related" href="http://example.com/r">ignored text</link>
            <link rel="via" type="text/html">   </link>
            </entry></feed>
            """
        let item = try XCTUnwrap(items(xml).first)
        XCTAssertEqual(item["link"] as? String, "http://example.com/posts/1")
        XCTAssertEqual(item["links"] as? NSArray, [
            ["href": "http://example.com/posts/1", "rel": "alternate", "type": "text/html"],
            ["href": "http://example.com/r", "rel": "related"],
            ["rel": "via", "type": "text/html"],
        ] as NSArray)
    }

    func testAnRSSItemInsideAnAtomFeedIsAnEntry() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
            <entry><title>first</title><id>urn:1</id><summary>s1</summary></entry>
            <item><title>second</title><link>http://example.com/2</link><description>&lt;b&gt;d2&lt;/b&gt;</description>
            <pubDate>Sat, 07 Sep 2002 09:42:31 GMT</pubDate><guid>urn:2</guid></item>
            <entry><title>third</title><id>urn:3</id><summary>s3</summary><description>ignored: below summary</description></entry>
            </feed>
            """
        let all = try items(xml)
        XCTAssertEqual(all.map { $0["title"] as? String }, ["first", "second", "third"])
        let second = all[1]
        XCTAssertEqual(second["id"] as? String, "urn:2")
        XCTAssertEqual(second["link"] as? String, "http://example.com/2")
        XCTAssertEqual(second["summary"] as? String, "<b>d2</b>")
        XCTAssertEqual(second["summary_type"] as? String, "html")
        XCTAssertEqual(second["published"] as? String, "2002-09-07T09:42:31Z")
        XCTAssertEqual(all[2]["summary"] as? String, "s3")
    }

    func testItunesLinkToAnImageIsTheItunesImageBelowItunesImage() throws {
        let ns = #"xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd""#
        let link = #"<itunes:link rel="image" type="video/jpeg" href="http://example.com/old.jpg"/>"#
        let image = #"<itunes:image href="http://example.com/new.jpg"/>"#
        func feedImage(_ channel: String) throws -> String? {
            let xml = "<rss version=\"2.0\" \(ns)><channel><title>t</title>\(channel)<item><title>i</title></item></channel></rss>"
            let feed = try XCTUnwrap(linesFromEveryBackendAndCut(xml).first { $0["kind"] as? String == "feed" })
            return (feed["itunes"] as? [String: Any])?["image"] as? String
        }
        XCTAssertEqual(try feedImage(link), "http://example.com/old.jpg")
        XCTAssertEqual(try feedImage(link + image), "http://example.com/new.jpg")
        XCTAssertEqual(try feedImage(image + link), "http://example.com/new.jpg")
    }

    func testAnRSSItemsSummaryIsItsSummaryElseBesideADescriptionItsContent() throws {
        let xml = """
            <rss version="2.0"><channel><title>t</title>
            <item><title>a</title><description>d</description><summary>s</summary></item>
            <item><title>b</title><summary>alone</summary></item>
            <item><title>c</title><summary>first</summary><description>second</description></item>
            <item><title>d</title><summary>s</summary><description>d</description>\
            <content:encoded xmlns:content="http://purl.org/rss/1.0/modules/content/">c</content:encoded></item>
            </channel></rss>
            """
        let all = try items(xml)
        func pick(_ i: [String: Any]) -> [String?] {
            ["summary", "summary_type", "content", "content_type"].map { i[$0] as? String }
        }
        XCTAssertEqual(pick(all[0]), ["d", "html", "s", "text"])
        XCTAssertEqual(pick(all[1]), ["alone", "text", nil, nil])
        XCTAssertEqual(pick(all[2]), ["second", "html", "first", "text"])
        XCTAssertEqual(pick(all[3]), ["d", "html", "c", "html"])   // one content per item: content:encoded's
        // The typed model reads the same.
        let doc = try document(from: .bytes(bytes(xml)))
        XCTAssertEqual(doc.items.map { $0.summary?.value }, ["d", "alone", "second", "d"])
        XCTAssertEqual(doc.items.map { $0.content?.value }, ["s", nil, "first", "c"])
    }

    /// A summary element beside both a `description` and a `content:encoded` gives neither
    /// the summary nor the content: it is kept as the extension element it then is, after
    /// the item's own, in the line and in the typed model, not dropped.
    func testAnRSSSummaryThatGivesNeitherIsAnExtensionElement() throws {
        let xml = """
            <rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>t</title>
            <item><title>a</title><summary type="html"> &lt;b&gt;short&lt;/b&gt; &amp;amp; <![CDATA[more]]> </summary>            <byline>Jo</byline><description>d</description><content:encoded>c</content:encoded></item>
            <item><title>b</title><description>d</description><summary>s</summary></item>
            <item><title>c</title><content:encoded>c</content:encoded><summary>s</summary></item>
            <item><title>d</title><description>d</description><content:encoded>c</content:encoded><summary></summary></item>
            </channel></rss>
            """
        let all = try linesFromEveryBackendAndCut(xml).filter { $0["kind"] as? String == "item" }
        XCTAssertEqual(all.count, 4)
        func extensions(_ i: [String: Any]) -> [[String: String]] {
            ((i["extensions"] as? [[String: Any]]) ?? []).map { $0.compactMapValues { $0 as? String } }
        }
        XCTAssertEqual(extensions(all[0]), [
            ["namespace": "", "name": "byline", "value": "Jo"],
            ["namespace": "", "name": "summary", "value": "<b>short</b> &amp; more"],
        ])
        XCTAssertEqual([all[0]["summary"], all[0]["content"]].map { $0 as? String }, ["d", "c"])
        // It gives the content, or the summary: no row.
        XCTAssertEqual(all[1]["content"] as? String, "s")
        XCTAssertNil(all[1]["extensions"])
        XCTAssertEqual(all[2]["summary"] as? String, "s")
        XCTAssertNil(all[2]["extensions"])
        XCTAssertEqual(extensions(all[3]), [["namespace": "", "name": "summary", "value": ""]])
        let doc = try document(from: .bytes(bytes(xml)))
        XCTAssertEqual(doc.items.first?.extensionLists["extensions"]?.last,
                       ["namespace": "", "name": "summary", "value": "<b>short</b> &amp; more"])
    }

    func testARedirectDocumentGivesTheFeedsNewLocation() throws {
        let xml = """
            <?xml version="1.0"?>
            <redirect><newLocation> http://example.com/new.xml </newLocation></redirect>
            """
        let lines = try linesFromEveryBackendAndCut(xml)
        XCTAssertEqual(lines.count, 1)
        let feed = try XCTUnwrap(lines.first)
        XCTAssertEqual(feed["format"] as? String, "redirect")
        XCTAssertEqual(feed["new_location"] as? String, "http://example.com/new.xml")
        XCTAssertNil(feed["error"])
        // Inside another root it is no feed root (only feed roots are looked for there).
        let page = "<html><body><redirect><newLocation>http://example.com/x</newLocation></redirect></body></html>"
        let other = String(decoding: try convert(FeedBackend.swift.makeParser(), .bytes(bytes(page))), as: UTF8.self)
        XCTAssertTrue(other.contains(#""code":"not_feed""#), other)
    }
}
