// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// The readings feedparser documents beyond the formats' own element lists, as
/// docs/SCHEMA.md states them: `dc:date` is the date of the last change, a permalink
/// `guid` is the link of an item that has none. Every check runs on every backend, in
/// the JSON lines and in the value model.
final class DocumentedFallbackTests: XCTestCase {
    private let rss = """
        <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>c</title>
        <item><title>a</title><guid>https://e.example/posts/1</guid></item>
        <item><title>b</title><guid isPermaLink="FALSE">tag:e.example,2024:2</guid></item>
        <item><title>c</title><link>https://e.example/c</link><guid>https://e.example/posts/3</guid></item>
        <item><title>d</title><guid isPermaLink="true">  </guid></item>
        <item><title>d2</title><guid>tag:e.example,2024:4</guid></item>
        <item><title>d3</title><guid> HTTPS://e.example/posts/5 </guid></item>
        <item><title>e</title><dc:date>2024-05-06T07:08:09Z</dc:date><dc:identifier>https://e.example/5</dc:identifier></item>
        </channel></rss>
        """

    func testAPermalinkGuidIsTheLinkOfAnItemWithoutOne() throws {
        let l = try linesFromEveryBackend(rss)
        XCTAssertEqual(l.count, 8)
        XCTAssertEqual(l[0]["link"] as? String, "https://e.example/posts/1")
        XCTAssertNil(l[0]["links"], "the guid is not a link the item wrote")
        XCTAssertEqual(l[0]["guid_is_permalink"] as? Bool, true)
        XCTAssertNil(l[1]["link"], "isPermaLink=\"false\", in any case, is not a link")
        XCTAssertEqual(l[2]["link"] as? String, "https://e.example/c", "the item's own link wins")
        XCTAssertNil(l[3]["link"], "a blank guid is no link")
        XCTAssertNil(l[4]["link"], "a guid that is not an http(s) URL is no link")
        XCTAssertEqual(l[5]["link"] as? String, "HTTPS://e.example/posts/5", "trimmed, as written")
        XCTAssertNil(l[6]["link"], "an id that is not an RSS guid is no link")
        XCTAssertEqual(l[7]["kind"] as? String, "feed")
    }

    func testTheModelReadsTheSameLink() throws {
        for backend in FeedBackend.allCases {
            let d = try FeedStream.document(from: Array(rss.utf8), backend: backend)
            XCTAssertEqual(d.items.map(\.link), ["https://e.example/posts/1", nil, "https://e.example/c", nil, nil,
                                                 "HTTPS://e.example/posts/5", nil], "\(backend)")
            XCTAssertEqual(d.items[6].updated?.raw, "2024-05-06T07:08:09Z", "\(backend)")
            XCTAssertNil(d.items[6].published, "\(backend)")
        }
    }

    func testDCDateIsTheLastChangeNotThePublicationDate() throws {
        let l = try linesFromEveryBackend(rss)
        XCTAssertEqual(l[6]["updated"] as? String, "2024-05-06T07:08:09Z")
        XCTAssertEqual(l[6]["updated_raw"] as? String, "2024-05-06T07:08:09Z")
        XCTAssertNil(l[6]["published"])
        XCTAssertNil(l[6]["published_raw"])
    }

    func testRDFAboutIsTheIdBeforeDCIdentifier() throws {
        let l = try linesFromEveryBackend("""
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
              xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel rdf:about="https://e.example/news.rdf"><title>c</title><dc:identifier>urn:isbn:1</dc:identifier></channel>
            <item rdf:about="https://e.example/1"><title>a</title><dc:identifier>doi:10.1/1</dc:identifier></item>
            <item><title>b</title><dc:identifier>doi:10.1/2</dc:identifier></item>
            </rdf:RDF>
            """)
        XCTAssertEqual(l[0]["id"] as? String, "https://e.example/1")
        XCTAssertEqual(l[1]["id"] as? String, "doi:10.1/2", "without rdf:about, dc:identifier")
        XCTAssertEqual(l[2]["id"] as? String, "https://e.example/news.rdf")
        XCTAssertEqual((l[0]["feed"] as? [String: Any])?["id"] as? String, "https://e.example/news.rdf")
    }
}

/// `authors` of a record with no author element: `itunes:author`, else (feeds)
/// `managingEditor` (docs/SCHEMA.md; feedparser documents both as author sources).
/// A person written as text (RSS `author`, `dc:creator`, `dc:contributor`) that holds
/// elements as an Atom person does is read as one (docs/SCHEMA.md, "Persons written as
/// text"); other content keeps the text, its elements as markup.
final class PersonElementsTests: XCTestCase {
    private static let persons = """
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:foaf="http://xmlns.com/foaf/0.1/"
              xmlns:a="http://www.w3.org/2005/Atom"><channel><title>t</title>
            <item><title>google</title><author xmlns:author="http://www.w3.org/2005/Atom">
              <name>Siddharth Bhai</name><title>Product Manager, Google Cloud</title><department/><company></company>
            </author></item>
            <item><title>email first</title><dc:creator><email>a@b.example</email><name>A B</name>
              <uri>https://b.example/</uri></dc:creator></item>
            <item><title>atom children</title><author><a:name>Cy</a:name><a:uri>https://c.example/</a:uri></author></item>
            <item><title>text first</title><author>Jo <email>jo@x.example</email></author></item>
            <item><title>foaf</title><dc:creator><foaf:Person><foaf:name>Dan</foaf:name></foaf:Person></dc:creator></item>
            <item><title>as text</title><author>jo@x.example (Jo)</author><dc:contributor>
            <name>Kim</name></dc:contributor></item>
            <item><title>inside name</title><author><name>X <b>Y</b></name></author></item>
            <item><title>foaf name</title><dc:creator><foaf:name>Me</foaf:name></dc:creator></item>
            </channel></rss>
            """

    func testAnRSSAuthorWithANameElementIsReadAsAPerson() throws {
        let l = try linesFromEveryBackend(Self.persons)
        func people(_ i: Int, _ key: String = "authors") -> [[String: String]]? { l[i][key] as? [[String: String]] }
        XCTAssertEqual(people(0), [["name": "Siddharth Bhai"]], "its title, department and company skipped")
        XCTAssertEqual(people(1), [["name": "A B", "email": "a@b.example", "uri": "https://b.example/"]])
        XCTAssertEqual(people(2), [["name": "Cy", "uri": "https://c.example/"]])
        XCTAssertEqual(people(3), [["name": "Jo <email>", "email": "jo@x.example", "raw": "Jo <email>jo@x.example</email>"]],
                       "text before the element: the text as written")
        XCTAssertEqual(people(4), [["name": "<Person><name>Dan</name></Person>"]], "another first element: as written")
        XCTAssertEqual(people(5), [["name": "Jo", "email": "jo@x.example", "raw": "jo@x.example (Jo)"]])
        XCTAssertEqual(people(5, "contributors"), [["name": "Kim"]])
        XCTAssertEqual(people(6), [["name": "X <b>Y</b>"]], "a name's own markup is its text, as in Atom")
        XCTAssertEqual(people(7), [["name": "<name>Me</name>"]], "a name no person rule reads: as written")
        // The switch looks at all the text before the first child, however it was cut.
        let data = Array(Self.persons.utf8)
        for backend in FeedBackend.allCases {
            let whole = try backend.makeParser().documents(from: .bytes(data))
            XCTAssertEqual(try backend.makeParser().documents(from: chunkedInput(data, 1)).map(\.self.outcome),
                           whole.map(\.self.outcome), "\(backend), chunks of 1")
            XCTAssertEqual(whole.first?.items.first?.authors.map(\.name), ["Siddharth Bhai"], "\(backend)")
        }
    }
}

final class FallbackAuthorTests: XCTestCase {
    private let podcast = """
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
          xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Show</title>
        <managingEditor>editor@e.example (The Editor)</managingEditor><itunes:author>The Show Team</itunes:author>
        <item><title>a</title><itunes:author>Ann Host</itunes:author></item>
        <item><title>b</title><dc:creator>Bo Writer</dc:creator><itunes:author>Ann Host</itunes:author></item>
        <item><title>c</title><itunes:author>ann@e.example (Ann Host)</itunes:author></item>
        <item><title>d</title><itunes:author> </itunes:author></item>
        <item><title>e</title><author></author><dc:creator>Cy Writer</dc:creator><author> </author></item>
        <item><title>f</title><author/><itunes:author>Ann Host</itunes:author></item>
        </channel></rss>
        """

    func testItunesAuthorStandsForAnItemWithoutAuthors() throws {
        let l = try linesFromEveryBackend(podcast)
        func authors(_ i: Int) -> [[String: String]]? { l[i]["authors"] as? [[String: String]] }
        XCTAssertEqual(authors(0), [["name": "Ann Host"]])
        XCTAssertEqual((l[0]["itunes"] as? [String: Any])?["author"] as? String, "Ann Host", "kept in itunes too")
        XCTAssertEqual(authors(1), [["name": "Bo Writer"]], "the item's own author wins, alone")
        XCTAssertEqual(authors(2), [["name": "Ann Host", "email": "ann@e.example", "raw": "ann@e.example (Ann Host)"]])
        XCTAssertNil(l[3]["authors"], "a blank itunes:author is nobody")
        XCTAssertEqual(authors(4), [["name": "Cy Writer"]], "empty authors are left out")
        XCTAssertEqual(authors(5), [["name": "Ann Host"]], "an empty author does not keep itunes:author out")
        XCTAssertEqual(authors(6), [["name": "The Show Team"]], "the feed: itunes:author before managingEditor")
        XCTAssertEqual(l[6]["managing_editor"] as? String, "editor@e.example (The Editor)")
    }

    func testManagingEditorStandsForAFeedWithNeither() throws {
        let l = try linesFromEveryBackend("""
            <rss version="2.0"><channel><title>Blog</title>
            <managingEditor>editor@e.example (The Editor)</managingEditor><item><title>a</title></item></channel></rss>
            """)
        XCTAssertNil(l[0]["authors"], "an item does not take the feed's managingEditor")
        XCTAssertEqual(l[1]["authors"] as? [[String: String]],
                       [["name": "The Editor", "email": "editor@e.example", "raw": "editor@e.example (The Editor)"]])
    }

    func testTheModelsHoldTheSameAuthors() throws {
        for backend in FeedBackend.allCases {
            let d = try FeedStream.document(from: Array(podcast.utf8), backend: backend)
            XCTAssertEqual(d.items.map { $0.authors.map(\.name) },
                           [["Ann Host"], ["Bo Writer"], ["Ann Host"], [], ["Cy Writer"], ["Ann Host"]], "\(backend)")
            XCTAssertEqual(d.items[2].authors.first?.email, "ann@e.example", "\(backend)")
            XCTAssertEqual(d.feed.authors.map(\.name), ["The Show Team"], "\(backend)")
        }
    }
}

/// `categories` end with the iTunes ones (docs/SCHEMA.md; feedparser documents
/// `itunes:category` and `itunes:keywords` as tags).
final class ITunesCategoryTests: XCTestCase {
    private let podcast = """
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Show</title>
        <category>Food</category>
        <itunes:category text="Arts"><itunes:category text="Food"/></itunes:category>
        <itunes:keywords>salt, pepper,, shaker ,</itunes:keywords>
        <item><title>a</title><category domain="https://e.example/tags">Cooking</category>
        <itunes:keywords>soup,stock</itunes:keywords></item>
        <item><title>b</title><itunes:keywords> </itunes:keywords><category> </category><category domain="d"/></item>
        </channel></rss>
        """
    private let itunes = "http://www.itunes.com/"

    func testTheItunesCategoriesFollowTheWrittenOnes() throws {
        let l = try linesFromEveryBackend(podcast)
        XCTAssertEqual(l[0]["categories"] as? [[String: String]], [
            ["term": "Cooking", "scheme": "https://e.example/tags"],
            ["term": "soup", "scheme": itunes], ["term": "stock", "scheme": itunes],
        ])
        XCTAssertEqual((l[0]["itunes"] as? [String: Any])?["keywords"] as? String, "soup,stock", "kept in itunes too")
        XCTAssertEqual(l[1]["categories"] as? [[String: String]], [["term": "", "scheme": "d"]],
                       "blank keywords and a blank category are none; one with a scheme is one")
        XCTAssertEqual(l[2]["categories"] as? [[String: String]], [
            ["term": "Food"],
            ["term": "Arts", "scheme": itunes], ["term": "Food", "scheme": itunes],
            ["term": "salt", "scheme": itunes], ["term": "pepper", "scheme": itunes], ["term": "shaker", "scheme": itunes],
        ])
    }

    func testTheModelsHoldTheSameCategories() throws {
        for backend in FeedBackend.allCases {
            let d = try FeedStream.document(from: Array(podcast.utf8), backend: backend)
            XCTAssertEqual(d.items[0].categories.map(\.term), ["Cooking", "soup", "stock"], "\(backend)")
            XCTAssertEqual(d.items[0].categories.map(\.scheme), ["https://e.example/tags", itunes, itunes], "\(backend)")
            XCTAssertEqual(d.items[1].categories.map(\.scheme), ["d"], "\(backend)")
            XCTAssertEqual(d.feed.categories.map(\.term), ["Food", "Arts", "Food", "salt", "pepper", "shaker"], "\(backend)")
        }
    }
}

/// RSS 1.1 (`http://purl.org/net/rss1.1#`): a `Channel` root whose items are in its
/// `items` collection; feedparser reads it.
final class RSS11Tests: XCTestCase {
    func testAnRSS11ChannelIsReadOnEveryBackend() throws {
        let l = try linesFromEveryBackend("""
            <?xml version="1.0"?>
            <Channel xmlns="http://purl.org/net/rss1.1#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
              xmlns:dc="http://purl.org/dc/elements/1.1/" rdf:about="https://e.example/news.rss">
            <title>News</title><link>https://e.example/</link><description>All of it</description>
            <image rdf:parseType="Resource"><title>Logo</title><url>https://e.example/logo.png</url></image>
            <items rdf:parseType="Collection">
              <item rdf:about="https://e.example/1"><title>One</title><link>https://e.example/1</link>
                <description>First</description><dc:date>2005-01-05T10:00:00Z</dc:date></item>
              <item rdf:about="https://e.example/2"><title>Two</title><link>https://e.example/2</link></item>
            </items>
            </Channel>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(l[0]["id"] as? String, "https://e.example/1")
        XCTAssertEqual(l[0]["title"] as? String, "One")
        XCTAssertEqual(l[0]["summary"] as? String, "First")
        XCTAssertEqual(l[0]["updated"] as? String, "2005-01-05T10:00:00Z")
        XCTAssertEqual((l[0]["feed"] as? [String: Any])?["format"] as? String, "rss11")
        XCTAssertEqual(l[1]["link"] as? String, "https://e.example/2")
        XCTAssertEqual(l[2]["format"] as? String, "rss11")
        XCTAssertEqual(l[2]["id"] as? String, "https://e.example/news.rss")
        XCTAssertEqual(l[2]["title"] as? String, "News")
        XCTAssertEqual(l[2]["subtitle"] as? String, "All of it")
        XCTAssertEqual((l[2]["image"] as? [String: Any])?["url"] as? String, "https://e.example/logo.png")
        XCTAssertEqual(l[2]["items"] as? Int, 2)
        XCTAssertNil(l[2]["error"])
        for backend in FeedBackend.allCases {
            XCTAssertEqual(try FeedStream.document(from: Array("""
                <Channel xmlns="http://purl.org/net/rss1.1#"><title>t</title><items><item><title>i</title></item></items></Channel>
                """.utf8), backend: backend).feed.format, .rss11, "\(backend)")
        }
    }

    func testAChannelInAnotherNamespaceIsStillNotAFeed() throws {
        let l = try linesFromEveryBackend(#"<Channel xmlns="urn:x"><items><item><title>i</title></item></items></Channel>"#)
        XCTAssertEqual((l[0]["error"] as? [String: Any])?["code"] as? String, "not_feed")
    }
}

/// An Atom feed's own `published` (outside RFC 4287's feed, but written, and read by
/// feedparser) is the feed line's `published`.
final class AtomFeedPublishedTests: XCTestCase {
    func testAnAtomFeedsPublishedIsRead() throws {
        let l = try linesFromEveryBackend("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Channel</title>
            <published>2014-09-26T16:37:18+00:00</published><entry><id>urn:1</id></entry></feed>
            """)
        XCTAssertEqual(l[1]["published"] as? String, "2014-09-26T16:37:18Z")
        XCTAssertNil(l[0]["published"], "the entry has none of its own")
    }
}
