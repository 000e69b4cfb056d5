// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Elements older writers used that feedparser documents reading: Atom 0.3's person
/// `homepage` (a person's `href`), an RSS item's `fullitem` (its `content`, HTML) and
/// a link whose address is its text — on every backend, whole and in 1-byte chunks.
final class LegacyElementsTests: XCTestCase {
    /// The item lines of `xml`, the same from every backend, whole and in 1-byte chunks.
    private func items(_ xml: String) throws -> [[String: Any]] {
        var outputs: [[UInt8]] = []
        for backend in FeedBackend.allCases {
            for input in [FeedInput.bytes(bytes(xml)), chunkedInput(bytes(xml), 1)] {
                outputs.append(try convert(backend.makeParser(), input))
            }
        }
        for (k, o) in outputs.enumerated() { XCTAssertEqual(o, outputs[0], "output \(k)") }
        return try String(decoding: outputs[0], as: UTF8.self).split(separator: "\n")
            .filter { $0.contains(#""kind":"item""#) }
            .map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
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
}
