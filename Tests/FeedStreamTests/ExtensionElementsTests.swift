// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Extension elements (RFC 4287 section 6.4; RSS 2.0's "Extending RSS"): an element of the
/// feed or of an item that no rule reads is kept in `extensions`, its namespace, local
/// name and text, one row per attribute, instead of being skipped; one holding elements
/// is skipped whole. Every test runs on every backend (linesFromEveryBackend checks they
/// agree byte for byte).
final class ExtensionElementsTests: XCTestCase {
    /// The `extensions` rows of a line, each as [column: value].
    private func rows(_ line: [String: Any]) -> [[String: String]] {
        ((line["extensions"] as? [[String: Any]]) ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    private let base = "http://base.google.com/ns/1.0"

    func testSimpleExtensionElementsKeepNamespaceNameAndText() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel><title>c</title>
            <g:store>Example &amp; Co</g:store>
            <item><title>a</title><g:id>SKU-1</g:id><g:price><![CDATA[10.00 USD]]></g:price>
            <byline>Jo</byline><g:empty/></item>
            <item><title>b</title></item>
            </channel></rss>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(rows(l[0]), [
            ["namespace": base, "name": "id", "value": "SKU-1"],
            ["namespace": base, "name": "price", "value": "10.00 USD"],
            ["namespace": "", "name": "byline", "value": "Jo"],
            ["namespace": base, "name": "empty", "value": ""],
        ])
        XCTAssertEqual(l[0]["title"] as? String, "a", "a rule's element is not an extension")
        XCTAssertNil(l[1]["extensions"], "an item without any has none")
        XCTAssertEqual(rows(l[2]), [["namespace": base, "name": "store", "value": "Example & Co"]],
                       "the feed's own, not the items'")
        // The value models keep them with the other lists.
        let docs = try SwiftFeedParser().documents(from: .bytes(Array("""
            <rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel><title>c</title>
            <g:store>s</g:store><item><g:id>SKU-1</g:id></item></channel></rss>
            """.utf8)))
        XCTAssertEqual(docs[0].items[0].extensionLists["extensions"], [["namespace": base, "name": "id", "value": "SKU-1"]])
        XCTAssertEqual(docs[0].feed.extensionLists["extensions"], [["namespace": base, "name": "store", "value": "s"]])
    }

    func testAttributesAreRowsOfTheirOwn() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:x="urn:example:x" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <channel><title>c</title>
            <item><title>a</title>
            <x:img src="a.png" width="10" xml:lang="en"/>
            <x:ref rdf:resource="http://example.com/r"> </x:ref>
            <x:flag kind="b">on</x:flag>
            </item></channel></rss>
            """)
        XCTAssertEqual(rows(l[0]), [
            ["namespace": "urn:example:x", "name": "img", "attribute": "src", "value": "a.png"],
            ["namespace": "urn:example:x", "name": "img", "attribute": "width", "value": "10"],
            ["namespace": "urn:example:x", "name": "ref",
             "attribute": "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}resource", "value": "http://example.com/r"],
            ["namespace": "urn:example:x", "name": "flag", "attribute": "kind", "value": "b"],
            ["namespace": "urn:example:x", "name": "flag", "value": "on"],
        ], "xml:lang is the scope's; blank text after attributes is no row; text after them is")
    }

    func testAnElementHoldingElementsIsSkippedWhole() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:sx="http://www.microsoft.com/schemas/rss/sse" xmlns:x="urn:example:x">
            <channel><title>c</title>
            <item><title>a</title>
            <sx:sync id="101" version="1"><sx:history when="now" by="me"/></sx:sync>
            <x:mixed>text <x:b>bold <title>not the title</title></x:b> tail</x:mixed>
            <x:after>kept</x:after>
            <link>http://example.com/a</link>
            </item></channel></rss>
            """)
        XCTAssertEqual(rows(l[0]), [["namespace": "urn:example:x", "name": "after", "value": "kept"]])
        XCTAssertEqual(l[0]["title"] as? String, "a")
        XCTAssertEqual(l[0]["link"] as? String, "http://example.com/a", "the elements after it are read")
    }

    /// Blogger's author image (Google Data's gd:image, inside the Atom author): the
    /// person's `avatar`, resolved against xml:base; not an extension element.
    func testBloggerAuthorImageIsTheAvatar() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:gd="http://schemas.google.com/g/2005"
            xml:base="http://example.com/blog/"><title>t</title>
            <author><name>Ann</name><email>noreply@blogger.com</email>
            <gd:image rel="http://schemas.google.com/g/2005#thumbnail" width="16" height="16" src="//img.example.com/a.png"/></author>
            <entry><id>1</id><author><name>Bob</name><gd:image src="b.png"/></author>
            <contributor><name>Cy</name></contributor></entry>
            <entry><id>2</id><author><name>Di</name></author><gd:image src="not-a-person.png"/></entry>
            </feed>
            """)
        XCTAssertEqual(l.count, 3)
        let persons = { (line: [String: Any], key: String) in
            ((line[key] as? [[String: Any]]) ?? []).map { $0.compactMapValues { $0 as? String } }
        }
        XCTAssertEqual(persons(l[0], "authors"), [["name": "Bob", "avatar": "http://example.com/blog/b.png"]])
        XCTAssertEqual(persons(l[0], "contributors"), [["name": "Cy"]])
        XCTAssertNil(l[0]["extensions"])
        XCTAssertEqual(persons(l[1], "authors"), [["name": "Di"]])
        XCTAssertEqual(rows(l[1]).map { $0["name"] }, ["image"], "an entry's own gd:image is an extension element")
        XCTAssertEqual(persons(l[2], "authors"), [[
            "name": "Ann", "email": "noreply@blogger.com", "avatar": "http://img.example.com/a.png",
        ]])
        let docs = try SwiftFeedParser().documents(from: .bytes(Array("""
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:gd="http://schemas.google.com/g/2005"><title>t</title>
            <entry><id>1</id><author><name>Bob</name><gd:image src="http://example.com/b.png"/></author></entry></feed>
            """.utf8)))
        XCTAssertEqual(docs[0].items[0].authors, [FeedPerson(name: "Bob", avatar: "http://example.com/b.png")])
    }

    func testOnlyTheFeedsAndTheItemsOwnElements() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:x="urn:example:x" xmlns:media="http://search.yahoo.com/mrss/">
            <title>t</title><x:top>feed</x:top><unknownAtom>u</unknownAtom>
            <entry><id>1</id><author><name>n</name><x:avatar>a.png</x:avatar></author>
            <media:group><x:inGroup>g</x:inGroup></media:group>
            <x:own>entry</x:own></entry>
            </feed>
            """)
        XCTAssertEqual(l.count, 2)
        XCTAssertEqual(rows(l[0]), [["namespace": "urn:example:x", "name": "own", "value": "entry"]],
                       "not those of an author or a media:group")
        XCTAssertEqual(rows(l[1]), [
            ["namespace": "urn:example:x", "name": "top", "value": "feed"],
            ["namespace": "http://www.w3.org/2005/Atom", "name": "unknownAtom", "value": "u"],
        ])
    }
}
