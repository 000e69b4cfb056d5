// SPDX-License-Identifier: Apache-2.0
import CFeedStream
import FeedStream
import Foundation
import XCTest

/// The rules of docs/SCHEMA.md that fixtures show less directly: precedence, scopes,
/// xml:base and xml:lang, entities, formats. Every check runs on both C backends.
final class SemanticsTests: XCTestCase {
    func testSpanLayoutMatchesTheCHeader() {
        // The views read the C core's spans through a layout-compatible Swift struct.
        XCTAssertEqual(MemoryLayout<cfs_span>.size, 2 * MemoryLayout<Int>.size)
        XCTAssertEqual(MemoryLayout<cfs_span>.offset(of: \cfs_span.len), MemoryLayout<Int>.size)
    }

    func testPrecedenceNativeBeatsDublinCoreWhateverTheOrder() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>c</title>
            <item><dc:date>2020-01-01</dc:date><pubDate>Tue, 04 Mar 2025 17:30:00 GMT</pubDate>
            <dc:title>dc title</dc:title><title>native title</title><guid>g</guid><dc:identifier>d</dc:identifier></item>
            </channel></rss>
            """)
        XCTAssertEqual(l[0]["published"] as? String, "2025-03-04T17:30:00Z")
        XCTAssertEqual(l[0]["title"] as? String, "native title")
        XCTAssertEqual(l[0]["id"] as? String, "g")
    }

    /// An element no rule names as written is read by the rule whose name differs only in
    /// case (feedparser lower-cases names): `pubdate`, `Title`, `LINK`, `skipdays`, Atom's
    /// `Updated`. Another case of a name is the same element (the last of them wins). So
    /// are attribute names in no namespace (`URL`, `isPermalink`, `VERSION`), the name as
    /// written first.
    func testElementNamesAreReadInAnyCaseWhenNoRuleHasThemAsWritten() throws {
        let l = try lines("""
            <rss version="2.0"><channel><Title>c</Title><skipdays><DAY>Monday</DAY></skipdays>
            <item><Title>upper</Title><LINK>https://e.com/1</LINK><enclosure URL="https://e.com/a.mp3" Length="7"/>
            <pubdate>Tue, 04 Mar 2025 17:30:00 GMT</pubdate><Description>d</Description><GUID isPermalink="false" ispermalink="true">g</GUID></item>
            </channel></rss>
            """)
        XCTAssertEqual(l[0]["title"] as? String, "upper")
        XCTAssertEqual(l[0]["link"] as? String, "https://e.com/1")
        XCTAssertEqual(l[0]["published"] as? String, "2025-03-04T17:30:00Z")
        XCTAssertEqual(l[0]["published_raw"] as? String, "Tue, 04 Mar 2025 17:30:00 GMT")
        XCTAssertEqual(l[0]["summary"] as? String, "d")
        XCTAssertEqual(l[0]["id"] as? String, "g")
        XCTAssertEqual(l[0]["guid_is_permalink"] as? Bool, false)
        let enclosure = (l[0]["enclosures"] as? [[String: Any]])?.first
        XCTAssertEqual(enclosure?["url"] as? String, "https://e.com/a.mp3")
        XCTAssertEqual(enclosure?["length"] as? String, "7")
        let feed = try XCTUnwrap(l.last)
        XCTAssertEqual(feed["kind"] as? String, "feed")
        XCTAssertEqual(feed["title"] as? String, "c")
        XCTAssertEqual(feed["skip_days"] as? [String], ["Monday"])
        let atom = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom"><Title>a</Title><entry><ID>urn:1</ID>
            <Updated>2025-03-04T17:30:00Z</Updated><TITLE type="html">&lt;b&gt;t&lt;/b&gt;</TITLE></entry></feed>
            """)
        XCTAssertEqual(atom[0]["id"] as? String, "urn:1")
        XCTAssertEqual(atom[0]["updated"] as? String, "2025-03-04T17:30:00Z")
        XCTAssertEqual(atom[0]["title"] as? String, "<b>t</b>")
        XCTAssertEqual(atom[0]["title_type"] as? String, "html")
        XCTAssertEqual(atom.last?["title"] as? String, "a")
        // RSS written all in upper case: its root, channel, items and version attribute too.
        let upper = try lines("""
            <RSS VERSION="2.0"><CHANNEL><TITLE>T</TITLE><LINK>https://e.com/</LINK><ITEM><TITLE>i</TITLE>
            <PUBDATE>Tue, 04 Mar 2025 17:30:00 GMT</PUBDATE><ENCLOSURE url="https://e.com/a.mp3" length="1" type="audio/mpeg"/></ITEM></CHANNEL></RSS>
            """)
        XCTAssertEqual(upper.count, 2)
        XCTAssertEqual(upper[0]["title"] as? String, "i")
        XCTAssertEqual(upper[0]["published"] as? String, "2025-03-04T17:30:00Z")
        XCTAssertEqual((upper[0]["enclosures"] as? [[String: Any]])?.first?["url"] as? String, "https://e.com/a.mp3")
        XCTAssertEqual(upper[1]["format"] as? String, "rss20")
        XCTAssertEqual(upper[1]["link"] as? String, "https://e.com/")
        // CDF keeps its own upper-case root.
        let cdf = try lines("""
            <CHANNEL HREF="https://e.com/"><TITLE>C</TITLE><ITEM HREF="https://e.com/1"><TITLE>i</TITLE></ITEM></CHANNEL>
            """)
        XCTAssertEqual(cdf.last?["format"] as? String, "cdf")
        XCTAssertEqual(cdf[0]["link"] as? String, "https://e.com/1")
    }

    func testChannelImageTitleDoesNotBecomeTheFeedTitle() throws {
        let l = try lines("""
            <rss version="2.0"><channel><image><title>logo title</title><url>https://e.com/i.png</url>
            <link>https://e.com/</link></image><title>Feed title</title></channel></rss>
            """)
        XCTAssertEqual(l[0]["title"] as? String, "Feed title")
        XCTAssertEqual((l[0]["image"] as? [String: Any])?["title"] as? String, "logo title")
    }

    func testXMLBaseChainsResolveLinksEnclosuresAndPersons() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://example.org/a/b/">
            <title>t</title><link href="../"/><icon>/favicon.ico</icon>
            <entry xml:base="posts/"><id>x</id><title>e</title>
            <link href="one.html?q=1#frag"/><link rel="enclosure" href="../media/m.mp3" length="3" type="audio/mpeg"/>
            <author><name>n</name><uri>./me</uri></author>
            <content src="./c.mp3" type="audio/mpeg"/></entry></feed>
            """)
        XCTAssertEqual(l[0]["link"] as? String, "https://example.org/a/b/posts/one.html?q=1#frag")
        XCTAssertEqual((l[0]["enclosures"] as? [[String: Any]])?.first?["url"] as? String, "https://example.org/a/b/media/m.mp3")
        XCTAssertEqual((l[0]["authors"] as? [[String: Any]])?.first?["uri"] as? String, "https://example.org/a/b/posts/me")
        XCTAssertEqual(l[0]["content_src"] as? String, "https://example.org/a/b/posts/c.mp3")
        XCTAssertEqual(l[1]["link"] as? String, "https://example.org/a/")
        XCTAssertEqual(l[1]["icon"] as? String, "https://example.org/favicon.ico")
    }

    func testRFC3986Examples() {
        let base = "http://a/b/c/d;p?q"
        let cases = ["g:h": "g:h", "g": "http://a/b/c/g", "./g": "http://a/b/c/g", "g/": "http://a/b/c/g/",
                     "/g": "http://a/g", "//g": "http://g", "?y": "http://a/b/c/d;p?y", "g?y": "http://a/b/c/g?y",
                     "#s": "http://a/b/c/d;p?q#s", "": "http://a/b/c/d;p?q", "..": "http://a/b/", "../g": "http://a/b/g",
                     "../..": "http://a/", "../../../g": "http://a/g", "g;x=1/../y": "http://a/b/c/y"]
        for (r, expected) in cases { XCTAssertEqual(FeedURL.resolve(r, against: base), expected, r) }
    }

    func testXMLLangIsInheritedAndWrittenWhereItDiffers() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><title>t</title>
            <entry><id>1</id><title xml:lang="fr">Bonjour</title><summary>Hello</summary></entry>
            <entry xml:lang="de"><id>2</id><title>Hallo</title></entry></feed>
            """)
        XCTAssertEqual(l[0]["language"] as? String, "en")
        XCTAssertEqual(l[0]["title_lang"] as? String, "fr")
        XCTAssertNil(l[0]["summary_lang"])
        XCTAssertEqual(l[1]["language"] as? String, "de")
        XCTAssertNil(l[1]["title_lang"])
        XCTAssertEqual(l[2]["language"] as? String, "en")
    }

    func testHTMLEntitiesDecodedUnknownOnesKeptNeverFatal() throws {
        let l = try lines("""
            <rss version="2.0"><channel><title>A&nbsp;&mdash;&nbsp;B &eacute;t&eacute; &bogus;end</title>
            <item><title>x &hellip;</title><category domain="a&nbsp;b">c</category></item></channel></rss>
            """)
        XCTAssertEqual(l[1]["title"] as? String, "A\u{a0}\u{2014}\u{a0}B \u{e9}t\u{e9} &bogus;end")
        XCTAssertEqual(l[0]["title"] as? String, "x \u{2026}")
        XCTAssertEqual((l[0]["categories"] as? [[String: Any]])?.first?["scheme"] as? String, "ab")
        XCTAssertNil(l[1]["error"])
    }

    func testFormatsAreDetected() throws {
        let netscape = "<!DOCTYPE rss PUBLIC \"-//Netscape Communications//DTD RSS 0.91//EN\" \"http://my.netscape.com/publish/formats/rss-0.91.dtd\">"
        let cases: [(String, String)] = [
            ("<rss version=\"2.0\"><channel/></rss>", "rss20"),
            ("<rss version=\"0.91\"><channel/></rss>", "rss091u"),
            (netscape + "<rss version=\"0.91\"><channel/></rss>", "rss091n"),
            ("<rss version=\"0.92\"><channel/></rss>", "rss092"),
            ("<rss version=\"0.93\"><channel/></rss>", "rss093"),
            ("<rss version=\"0.94\"><channel/></rss>", "rss094"),
            ("<rss><channel/></rss>", "rss"),
            ("<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://purl.org/rss/1.0/\"><channel/></rdf:RDF>", "rss10"),
            ("<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://my.netscape.com/rdf/simple/0.9/\"><channel/></rdf:RDF>", "rss090"),
            ("<feed xmlns=\"http://www.w3.org/2005/Atom\"/>", "atom10"),
            ("<feed version=\"0.3\" xmlns=\"http://purl.org/atom/ns#\"/>", "atom03"),
        ]
        for (xml, format) in cases { XCTAssertEqual(try lines(xml).last?["format"] as? String, format, xml) }
    }

    func testAtom03ModesAndTypes() throws {
        let b64 = Data("Hello <b>world</b>".utf8).base64EncodedString()
        let l = try lines("""
            <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>t</title>
            <entry><id>1</id><title type="text/plain">T</title>
            <content type="text/html" mode="escaped">&lt;p&gt;hi&lt;/p&gt;</content></entry>
            <entry><id>2</id><content type="text/html" mode="base64">\(b64)</content></entry>
            <entry><id>3</id><content type="application/xhtml+xml" mode="xml"><div xmlns="http://www.w3.org/1999/xhtml"><p>x</p></div></content></entry>
            </feed>
            """)
        XCTAssertEqual(l[0]["title_type"] as? String, "text")
        XCTAssertEqual(l[0]["content"] as? String, "<p>hi</p>")
        XCTAssertEqual(l[0]["content_type"] as? String, "html")
        XCTAssertEqual(l[1]["content"] as? String, "Hello <b>world</b>")
        XCTAssertEqual(l[2]["content"] as? String, "<p>x</p>")
        XCTAssertEqual(l[2]["content_type"] as? String, "xhtml")
    }

    func testNestedITunesCategoriesNameTheirParent() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>p</title>
            <itunes:category text="Technology"><itunes:category text="Podcasting"/></itunes:category>
            <itunes:category text="News"/><itunes:owner><itunes:name>O</itunes:name><itunes:email>o@e.com</itunes:email></itunes:owner>
            </channel></rss>
            """)
        let itunes = try XCTUnwrap(l[0]["itunes"] as? [String: Any])
        let cats = try XCTUnwrap(itunes["categories"] as? [[String: String]])
        XCTAssertEqual(cats, [["text": "Technology"], ["text": "Podcasting", "parent": "Technology"], ["text": "News"]])
        XCTAssertEqual(itunes["owner_email"] as? String, "o@e.com")
    }

    func testValueModelCarriesEveryMember() throws {
        let docs = try ExpatFeedParser().documents(from: .bytes(Array("""
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>p</title>
            <ttl>60</ttl><item><title>e</title><comments>https://e.com/c</comments><itunes:duration>1:00</itunes:duration></item>
            </channel></rss>
            """.utf8)))
        XCTAssertEqual(docs[0].feed.extensions["ttl"], "60")
        XCTAssertEqual(docs[0].items[0].extensions["comments"], "https://e.com/c")
        XCTAssertEqual(docs[0].items[0].extensions["itunes.duration"], "1:00")
    }
}

/// Where the feed is: a feed root inside another root (an Atom feed in an XHTML page),
/// and an Atom Entry Document (RFC 4287, section 2), on every backend (docs/SCHEMA.md,
/// "Formats").
final class FeedRootTests: XCTestCase {
    func testAFeedInsideAPageIsReadOnEveryBackend() throws {
        let l = try linesFromEveryBackend("""
            <?xml version="1.0" encoding="utf-8"?>
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
            <html xmlns="http://www.w3.org/1999/xhtml"><head><title>Page</title></head><body>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Avian's Blog</title><entry><id>urn:1</id><title>One</title></entry>
            <entry><id>urn:2</id><title>Two</title></entry></feed></body></html>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(l[0]["id"] as? String, "urn:1")
        XCTAssertEqual(l[1]["title"] as? String, "Two")
        XCTAssertEqual(l[2]["kind"] as? String, "feed")
        XCTAssertEqual(l[2]["format"] as? String, "atom10")
        XCTAssertEqual(l[2]["title"] as? String, "Avian's Blog")
        XCTAssertEqual(l[2]["items"] as? Int, 2)
        XCTAssertNil(l[2]["error"])
        // A page with no feed in it is still not a feed.
        let page = try linesFromEveryBackend("<html><body><p>Nothing</p></body></html>")
        XCTAssertEqual((page[0]["error"] as? [String: Any])?["code"] as? String, "not_feed")
    }

    /// An `rdf:RDF` whose channel is in a namespace we do not know (RSS 0.90's written
    /// another way, as Mozilla's old feed did): that namespace's elements are RSS's.
    func testAnRDFChannelInAnUnknownNamespaceIsRSS() throws {
        let l = try linesFromEveryBackend("""
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://channel.netscape.com/rdf/simple/0.9/">
            <channel><title>Mozilla Dot Org</title><link>http://www.mozilla.org</link></channel>
            <x:item xmlns:x="urn:other"><x:title>not RSS</x:title></x:item>
            <item><title>New Status Updates</title><link>http://www.mozilla.org/status/</link></item>
            <item><title>Bugzilla Reorganized</title><link>http://www.mozilla.org/bugs/</link></item>
            </rdf:RDF>
            """)
        XCTAssertEqual(l.map { $0["title"] as? String }, ["New Status Updates", "Bugzilla Reorganized", "Mozilla Dot Org"])
        XCTAssertEqual(l[0]["link"] as? String, "http://www.mozilla.org/status/")
        XCTAssertEqual(l[2]["format"] as? String, "rss10")
        XCTAssertEqual(l[2]["items"] as? Int, 2)
        // Only a channel adopts its namespace: an item in an unknown one is not read.
        let noChannel = try linesFromEveryBackend("""
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="urn:unknown"><item><title>x</title></item></rdf:RDF>
            """)
        XCTAssertEqual(noChannel.count, 1)
        XCTAssertEqual(noChannel[0]["items"] as? Int, 0)
    }

    func testAnAtomEntryDocumentIsOneItemOnEveryBackend() throws {
        let l = try linesFromEveryBackend("""
            <?xml version="1.0"?>
            <entry xmlns="http://www.w3.org/2005/Atom"><id>tag:e,2024:1</id><title>Specifications</title>
            <updated>2024-01-02T03:04:05Z</updated><link href="http://e.example/1"/></entry>
            """)
        XCTAssertEqual(l.count, 2)
        XCTAssertEqual(l[0]["id"] as? String, "tag:e,2024:1")
        XCTAssertEqual(l[0]["title"] as? String, "Specifications")
        XCTAssertEqual(l[0]["updated"] as? String, "2024-01-02T03:04:05Z")
        XCTAssertEqual(l[0]["link"] as? String, "http://e.example/1")
        XCTAssertEqual(l[1]["format"] as? String, "atom10")
        XCTAssertEqual(l[1]["items"] as? Int, 1)
        XCTAssertNil(l[1]["error"])
    }
}
