// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// The smaller modules and structures, from their specifications: FeedBurner's
/// namespace, UserLand's blogChannel module, RSS items carrying `xhtml:body`, the whole
/// metadata of an Atom entry's `source` (RFC 4287 §4.2.11), and `rss` roots in a
/// namespace that is not RSS's. Every test runs on every backend (linesFromEveryBackend
/// checks they agree byte for byte).
final class ModulesTests: XCTestCase {
    private func object(_ line: [String: Any], _ key: String) -> [String: String] {
        ((line[key] as? [String: Any]) ?? [:]).compactMapValues { $0 as? String }
    }

    // MARK: - FeedBurner

    func testFeedBurnerOriginalLinksAndFeedInfo() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0">
            <channel xml:base="http://example.org/blog/"><title>c</title>
            <feedburner:info uri="exampleblog" />
            <feedburner:browserFriendly>This is an XML content feed.</feedburner:browserFriendly>
            <feedburner:emailServiceId>exampleblog</feedburner:emailServiceId>
            <feedburner:feedburnerHostname>https://feedburner.google.com</feedburner:feedburnerHostname>
            <item><title>a</title><link>http://feeds.example.net/~r/exampleblog/~3/abc/</link>
            <feedburner:origLink>posts/1.html</feedburner:origLink>
            <enclosure url="http://feeds.example.net/~r/exampleblog/~5/x.mp3" type="audio/mpeg" length="1"/>
            <feedburner:origEnclosureLink>http://media.example.org/x.mp3</feedburner:origEnclosureLink></item>
            <item><title>b</title></item>
            </channel></rss>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(object(l[0], "feedburner"), [
            "orig_link": "http://example.org/blog/posts/1.html",
            "orig_enclosure_link": "http://media.example.org/x.mp3",
        ])
        XCTAssertEqual(l[0]["link"] as? String, "http://feeds.example.net/~r/exampleblog/~3/abc/",
                       "the item's link stays the one written")
        XCTAssertNil(l[1]["feedburner"], "no object when the item has none of its members")
        XCTAssertEqual(object(l[2], "feedburner"), [
            "info_uri": "exampleblog", "browser_friendly": "This is an XML content feed.",
            "email_service_id": "exampleblog", "hostname": "https://feedburner.google.com",
        ])
    }

    // MARK: - YouTube

    /// YouTube's own elements (`http://www.youtube.com/xml/schemas/2015`): each entry's
    /// video and channel IDs, the feed's channel ID, a playlist feed's playlist ID; in
    /// another namespace, or outside the feed and its entries, they are not read.
    func testYouTubeVideoChannelAndPlaylistIDs() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:yt="http://www.youtube.com/xml/schemas/2015"
                  xmlns:z="http://example.com/not-youtube">
            <id>yt:playlist:PLexample</id><title>p</title>
            <yt:playlistId>PLexample</yt:playlistId>
            <yt:channelId>UCowner</yt:channelId>
            <entry><id>yt:video:v1</id><title>a</title>
            <yt:videoId>v1</yt:videoId><yt:channelId>UCowner</yt:channelId></entry>
            <entry><id>yt:video:v2</id><title>b</title>
            <yt:videoId> v2 </yt:videoId><yt:channelId>UCother</yt:channelId>
            <author><name>n</name><yt:channelId>UCnested</yt:channelId></author></entry>
            <entry><title>c</title><z:videoId>v3</z:videoId></entry>
            </feed>
            """)
        XCTAssertEqual(l.count, 4)
        XCTAssertEqual(object(l[0], "youtube"), ["video_id": "v1", "channel_id": "UCowner"])
        XCTAssertEqual(object(l[1], "youtube"), ["video_id": "v2", "channel_id": "UCother"],
                       "trimmed as all text; a yt:channelId inside the author is not the entry's")
        XCTAssertNil(l[2]["youtube"], "videoId in another namespace is not YouTube's")
        XCTAssertEqual(object(l[3], "youtube"), ["channel_id": "UCowner", "playlist_id": "PLexample"])
    }

    // MARK: - WordPress.com

    /// WordPress.com's and Jetpack's feed additions, each element with the namespace
    /// as its default (`com-wordpress:feed-additions:1`): the site's number on the
    /// channel, each post's on its item; `post-id` in no namespace is not theirs.
    func testWordPressPostAndSiteNumbers() throws {
        let l = try lines("""
            <rss version="2.0"><channel><title>c</title>
            <site xmlns="com-wordpress:feed-additions:1">123456</site>
            <item><title>a</title><post-id xmlns="com-wordpress:feed-additions:1">42</post-id></item>
            <item><title>b</title><post-id>7</post-id></item>
            </channel></rss>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(object(l[0], "wordpress"), ["post_id": "42"])
        XCTAssertNil(l[1]["wordpress"], "post-id in no namespace is not WordPress's")
        XCTAssertEqual(object(l[2], "wordpress"), ["site": "123456"])
    }

    // MARK: - Atom Threading Extensions

    /// RFC 4685's `thr:total` (the number of an entry's responses, on every Blogger post)
    /// is the item's `comment_count` when `slash:comments` does not give it; in another
    /// namespace, or on the feed, it is not.
    func testThreadingTotalIsTheCommentCount() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:thr="http://purl.org/syndication/thread/1.0"
                  xmlns:slash="http://purl.org/rss/1.0/modules/slash/">
            <title>c</title><thr:total>9</thr:total>
            <entry><title>a</title><thr:total>5</thr:total></entry>
            <entry><title>b</title><thr:total>7</thr:total><slash:comments>3</slash:comments></entry>
            <entry><title>c</title><total xmlns="http://example.com/thread">4</total></entry>
            </feed>
            """)
        XCTAssertEqual(l.count, 4)
        XCTAssertEqual(l[0]["comment_count"] as? String, "5")
        XCTAssertEqual(l[1]["comment_count"] as? String, "3", "slash:comments comes first")
        XCTAssertNil(l[2]["comment_count"], "total in another namespace is not RFC 4685's")
        XCTAssertNil(l[3]["comment_count"], "the feed has no comment count")
    }

    // MARK: - Slash

    /// mod_slash's section, department and hit parade, as written, in a `slash` object
    /// (its `comments` stays `comment_count`); not on the feed, nor in another namespace.
    func testSlashSectionDepartmentAndHitParade() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:slash="http://purl.org/rss/1.0/modules/slash/"><channel><title>c</title>
            <slash:section>news</slash:section>
            <item><title>a</title><slash:section>science</slash:section>
            <slash:department>stars-in-our-eyes</slash:department><slash:comments>42</slash:comments>
            <slash:hit_parade>42,40,30,20,10,5,2</slash:hit_parade></item>
            <item><title>b</title><section xmlns="http://example.com/other">x</section></item>
            </channel></rss>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(object(l[0], "slash"), [
            "section": "science", "department": "stars-in-our-eyes", "hit_parade": "42,40,30,20,10,5,2",
        ])
        XCTAssertEqual(l[0]["comment_count"] as? String, "42")
        XCTAssertNil(l[1]["slash"], "section in another namespace is not mod_slash's")
        XCTAssertNil(l[2]["slash"], "the feed has no slash object")
    }

    // MARK: - Google Play

    /// Google Play's podcast tags, on the channel and on episodes: text as written, the
    /// image's `href` resolved against `xml:base`, the category's `text`; the channel's
    /// own are not the episode's.
    func testGooglePlayPodcastTags() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:googleplay="http://www.google.com/schemas/play-podcasts/1.0">
            <channel xml:base="http://example.com/pod/"><title>c</title>
            <googleplay:author>Dafna</googleplay:author>
            <googleplay:email>owner@example.com</googleplay:email>
            <googleplay:description>A show.</googleplay:description>
            <googleplay:category text="Technology"/>
            <googleplay:explicit>no</googleplay:explicit>
            <googleplay:image href="logo.jpg"/>
            <item><title>a</title>
            <googleplay:description>Episode one.</googleplay:description>
            <googleplay:explicit>yes</googleplay:explicit><googleplay:block>yes</googleplay:block></item>
            <item><title>b</title></item>
            </channel></rss>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(object(l[0], "googleplay"), ["description": "Episode one.", "explicit": "yes", "block": "yes"])
        XCTAssertNil(l[1]["googleplay"])
        XCTAssertEqual(object(l[2], "googleplay"), [
            "author": "Dafna", "email": "owner@example.com", "description": "A show.", "category": "Technology",
            "explicit": "no", "image": "http://example.com/pod/logo.jpg",
        ])
    }

    // MARK: - PRISM

    /// PRISM's bibliographic elements, as journals write them in RSS 1.0 (PRISM 1.2's
    /// namespace) and RSS 2.0 (2.0's): the article's on its item, the journal's on the
    /// channel, as written; an element PRISM has and no rule reads is skipped.
    func testPRISMBibliographicElements() throws {
        let l = try lines("""
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
                     xmlns:prism="http://prismstandard.org/namespaces/1.2/basic/">
            <channel rdf:about="http://example.org/j"><title>J</title><link>http://example.org/j</link>
            <prism:publicationName>Journal of Examples</prism:publicationName><prism:issn>1234-5678</prism:issn></channel>
            <item rdf:about="http://example.org/a1"><title>A1</title><link>http://example.org/a1</link>
            <prism:doi>10.1000/xyz123</prism:doi><prism:publicationDate>2019-08-27</prism:publicationDate>
            <prism:coverDate>2019-09</prism:coverDate><prism:volume>12</prism:volume><prism:number>3</prism:number>
            <prism:startingPage>101</prism:startingPage><prism:endingPage>110</prism:endingPage>
            <prism:section>Research Article</prism:section><prism:edition>1</prism:edition></item>
            </rdf:RDF>
            """)
        XCTAssertEqual(l.count, 2)
        XCTAssertEqual(object(l[0], "prism"), [
            "doi": "10.1000/xyz123", "publication_date": "2019-08-27", "cover_date": "2019-09", "volume": "12",
            "number": "3", "starting_page": "101", "ending_page": "110", "section": "Research Article",
            "edition": "1",
        ])
        XCTAssertEqual(object(l[1], "prism"), ["publication_name": "Journal of Examples", "issn": "1234-5678"])
        // The rarer elements (fields past the 255th: the rules' 16-bit targets), on the
        // feed and an item; an element PRISM defines that is not read (`keyword`) writes
        // nothing.
        let rss = try lines("""
            <rss version="2.0" xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/"><channel><title>c</title>
            <prism:aggregationType>journal</prism:aggregationType><prism:eIssn>8765-4321</prism:eIssn>
            <prism:copyright>© 2024 The Authors</prism:copyright>
            <item><title>a</title><prism:doi>10.1000/abc</prism:doi><prism:url>https://example.org/a</prism:url>
            <prism:pageRange>1-9, 12</prism:pageRange><prism:issueName>Special Issue</prism:issueName>
            <prism:isbn>978-3-16-148410-0</prism:isbn><prism:coverDisplayDate>Spring 2024</prism:coverDisplayDate>
            <prism:keyword>examples</prism:keyword></item></channel></rss>
            """)
        XCTAssertEqual(rss.count, 2)
        XCTAssertEqual(object(rss[0], "prism"), [
            "doi": "10.1000/abc", "url": "https://example.org/a", "page_range": "1-9, 12",
            "issue_name": "Special Issue", "isbn": "978-3-16-148410-0", "cover_display_date": "Spring 2024",
        ])
        XCTAssertEqual(object(rss[1], "prism"), [
            "aggregation_type": "journal", "e_issn": "8765-4321", "copyright": "© 2024 The Authors",
        ])
    }

    // MARK: - blogChannel

    func testBlogChannelModuleURLsAreResolved() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:blogChannel="http://backend.userland.com/blogChannelModule">
            <channel xml:base="http://example.com/"><title>c</title>
            <blogChannel:blogRoll>blogroll.opml</blogChannel:blogRoll>
            <blogChannel:mySubscriptions>http://example.com/subs.opml</blogChannel:mySubscriptions>
            <blogChannel:blink>http://friend.example.net/</blogChannel:blink>
            <blogChannel:changes>http://www.weblogs.com/rssUpdates/changes.xml</blogChannel:changes>
            </channel></rss>
            """)
        XCTAssertEqual(object(l[0], "blog_channel"), [
            "blog_roll": "http://example.com/blogroll.opml", "my_subscriptions": "http://example.com/subs.opml",
            "blink": "http://friend.example.net/", "changes": "http://www.weblogs.com/rssUpdates/changes.xml",
        ])
    }

    // MARK: - xhtml:body

    func testXHTMLBodyIsTheItemsContentAsMarkup() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:xhtml="http://www.w3.org/1999/xhtml"><channel><title>c</title>
            <item><title>a</title><description>short</description>
            <xhtml:body><xhtml:p>Hello <xhtml:b>bold</xhtml:b> &amp; more</xhtml:p></xhtml:body></item>
            <item><title>b</title><body xmlns="http://www.w3.org/1999/xhtml"><p>one</p><p>two</p></body></item>
            </channel></rss>
            """)
        XCTAssertEqual(l[0]["content"] as? String, "<p>Hello <b>bold</b> &amp; more</p>")
        XCTAssertEqual(l[0]["content_type"] as? String, "xhtml")
        XCTAssertEqual(l[0]["summary"] as? String, "short", "the description stays the summary")
        XCTAssertEqual(l[1]["content"] as? String, "<p>one</p><p>two</p>")
    }

    func testContentEncodedWinsOverXHTMLBodyInEitherOrder() throws {
        for order in [["enc", "body"], ["body", "enc"]] {
            let parts = order.map {
                $0 == "enc" ? "<content:encoded>&lt;p&gt;encoded&lt;/p&gt;</content:encoded>"
                            : "<xhtml:body><xhtml:p>body</xhtml:p></xhtml:body>"
            }.joined()
            let l = try lines("""
                <rss version="2.0" xmlns:xhtml="http://www.w3.org/1999/xhtml"
                 xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>c</title>
                <item><title>a</title>\(parts)</item></channel></rss>
                """)
            XCTAssertEqual(l[0]["content"] as? String, "<p>encoded</p>", "order \(order)")
            XCTAssertEqual(l[0]["content_type"] as? String, "html", "order \(order)")
        }
    }

    func testRelativeURIsInXHTMLBodyAreResolvedAgainstTheItemsBase() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:xhtml="http://www.w3.org/1999/xhtml"><channel><title>c</title>
            <item xml:base="http://example.org/a/"><title>a</title>
            <xhtml:body><xhtml:a href="b.html">b</xhtml:a><xhtml:img src="/i.png"/></xhtml:body></item>
            </channel></rss>
            """)
        XCTAssertEqual(l[0]["content"] as? String,
                       "<a href=\"http://example.org/a/b.html\">b</a><img src=\"http://example.org/i.png\"/>")
        XCTAssertEqual(l[0]["content_base"] as? String, "http://example.org/a/")
    }

    // MARK: - Atom source, in full

    func testAtomSourceCarriesTheSourceFeedsWholeMetadata() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>aggregator</title><id>urn:agg</id>
            <entry><id>urn:e1</id><title>copied</title><updated>2005-07-31T12:29:29Z</updated>
            <source xml:lang="fr">
              <id>urn:origin</id>
              <title type="html">Origin &amp;amp; Co</title>
              <subtitle type="text">Where it came from</subtitle>
              <rights type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">© <b>Origin</b></div></rights>
              <generator uri="http://gen.example/" version="2.1">GenTool</generator>
              <icon>http://origin.example/icon.png</icon>
              <logo>http://origin.example/logo.png</logo>
              <updated>2005-07-30T00:00:00Z</updated>
              <link rel="alternate" href="http://origin.example/"/>
            </source></entry></feed>
            """)
        let s = try XCTUnwrap(l[0]["source_feed"] as? [String: Any])
        XCTAssertEqual(s["id"] as? String, "urn:origin")
        XCTAssertEqual(s["title"] as? String, "Origin &amp; Co")
        XCTAssertEqual(s["title_type"] as? String, "html")
        XCTAssertEqual(s["title_lang"] as? String, "fr")
        XCTAssertEqual(s["subtitle"] as? String, "Where it came from")
        XCTAssertEqual(s["subtitle_type"] as? String, "text")
        XCTAssertEqual(s["rights"] as? String, "© <b>Origin</b>")
        XCTAssertEqual(s["rights_type"] as? String, "xhtml")
        XCTAssertEqual(s["generator"] as? [String: String],
                       ["name": "GenTool", "uri": "http://gen.example/", "version": "2.1"])
        XCTAssertEqual(s["icon"] as? String, "http://origin.example/icon.png")
        XCTAssertEqual(s["logo"] as? String, "http://origin.example/logo.png")
        XCTAssertEqual(s["updated"] as? String, "2005-07-30T00:00:00Z")
        XCTAssertEqual(s["url"] as? String, "http://origin.example/")
        XCTAssertEqual(l[0]["title"] as? String, "copied", "the source's title never reaches the entry")
        XCTAssertNil(l[0]["rights"], "nor its rights")
        XCTAssertNil(l[1]["generator"], "nor its generator the feed")
    }

    func testAtom03SourceTaglineCopyrightAndModified() throws {
        let l = try lines("""
            <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>t</title>
            <entry><id>e</id><title>x</title>
            <source><title>S</title><tagline>tag</tagline><copyright>(c) S</copyright>
            <modified>2004-01-01T00:00:00Z</modified></source></entry></feed>
            """)
        let s = try XCTUnwrap(l[0]["source_feed"] as? [String: Any])
        XCTAssertEqual(s["subtitle"] as? String, "tag")
        XCTAssertEqual(s["rights"] as? String, "(c) S")
        XCTAssertEqual(s["updated"] as? String, "2004-01-01T00:00:00Z")
    }

    func testRSSSourceTitleIsPlainText() throws {
        let l = try lines("""
            <rss version="2.0"><channel><title>c</title>
            <item><title>a</title><source url="http://other.example/rss">Other &amp; Co</source></item>
            </channel></rss>
            """)
        let s = try XCTUnwrap(l[0]["source_feed"] as? [String: Any])
        XCTAssertEqual(s["title"] as? String, "Other & Co")
        XCTAssertEqual(s["title_type"] as? String, "text")
        XCTAssertEqual(s["url"] as? String, "http://other.example/rss")
    }

    // MARK: - rss in another namespace

    func testAnRSSRootInTheSpecificationsURLNamespaceIsRSS() throws {
        for ns in ["https://cyber.harvard.edu/rss/rss.html", "http://example.com/any/namespace"] {
            let l = try lines("""
                <rss xmlns="\(ns)" xmlns:atom="http://www.w3.org/2005/Atom" version="2.0"><channel>
                <title>News</title><link>http://news.example/</link>
                <atom:link href="http://news.example/rss" rel="self"/>
                <item><title>one</title><link>http://news.example/1</link><guid>1</guid></item>
                <item><title>two</title></item></channel></rss>
                """)
            XCTAssertEqual(l.count, 3, ns)
            XCTAssertEqual(l[0]["title"] as? String, "one", ns)
            XCTAssertEqual(l[0]["id"] as? String, "1", ns)
            XCTAssertEqual(l[0]["link"] as? String, "http://news.example/1", ns)
            XCTAssertEqual(l[2]["format"] as? String, "rss20", ns)
            XCTAssertEqual(l[2]["title"] as? String, "News", ns)
            XCTAssertEqual((l[2]["links"] as? [[String: String]])?.count, 2, ns)
        }
    }

    func testOnlyTheRootsOwnNamespaceIsReadAsRSS() throws {
        let l = try lines("""
            <rss xmlns="http://example.com/ns" xmlns:o="http://other.example/" version="2.0"><channel>
            <title>T</title><o:title>not this</o:title><item><o:title>nor this</o:title></item></channel></rss>
            """)
        XCTAssertNil(l[0]["title"])
        XCTAssertEqual(l[1]["title"] as? String, "T")
    }
}

/// Microsoft's Channel Definition Format (W3C NOTE-CDFsubmit-19970309): a format of its own.
final class CDFTests: XCTestCase {
    func testAChannelDefinitionIsAFeedOfItsOwnFormat() throws {
        let l = try linesFromEveryBackend("""
            <?xml version="1.0"?>
            <CHANNEL HREF="http://www.example.com/" LASTMOD="1998-11-05T22:12" LEVEL="1" PRECACHE="YES">
              <TITLE>Example Channel</TITLE>
              <ABSTRACT>What the channel is about</ABSTRACT>
              <LOGO HREF="http://www.example.com/logo.gif" STYLE="IMAGE"/>
              <SCHEDULE><INTERVALTIME DAY="1"/></SCHEDULE>
              <ITEM HREF="http://www.example.com/one.htm" LASTMOD="1998-11-04T10:00">
                <TITLE>First article</TITLE><ABSTRACT>About the first</ABSTRACT>
              </ITEM>
              <ITEM HREF="http://www.example.com/two.htm"><TITLE>Second</TITLE></ITEM>
            </CHANNEL>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(l[0]["title"] as? String, "First article")
        XCTAssertEqual(l[0]["summary"] as? String, "About the first")
        XCTAssertEqual(l[0]["link"] as? String, "http://www.example.com/one.htm")
        XCTAssertEqual(l[0]["updated"] as? String, "1998-11-04T10:00:00Z")
        XCTAssertEqual(l[0]["updated_raw"] as? String, "1998-11-04T10:00")
        XCTAssertEqual((l[0]["feed"] as? [String: Any])?["format"] as? String, "cdf")
        XCTAssertEqual(l[1]["link"] as? String, "http://www.example.com/two.htm")
        XCTAssertNil(l[1]["updated"])
        let feed = l[2]
        XCTAssertEqual(feed["format"] as? String, "cdf")
        XCTAssertEqual(feed["title"] as? String, "Example Channel")
        XCTAssertEqual(feed["subtitle"] as? String, "What the channel is about")
        XCTAssertEqual(feed["link"] as? String, "http://www.example.com/")
        XCTAssertEqual(feed["updated"] as? String, "1998-11-05T22:12:00Z")
        XCTAssertEqual(feed["logo"] as? String, "http://www.example.com/logo.gif")
        XCTAssertEqual(feed["items"] as? Int, 2)
    }

    /// RSS's elements are not CDF's (`description` is no `ABSTRACT`), but CDF's own names
    /// written in another case are read as CDF's (`item`, `title`: names are matched in
    /// any case when none matches as written, as feedparser reads them).
    func testCDFElementsAreNotRSSsButCDFsInAnyCaseAre() throws {
        let l = try linesFromEveryBackend("""
            <CHANNEL HREF="http://example.org/"><TITLE>t</TITLE><description>an RSS element</description>
            <item><title>an item</title></item><ITEM HREF="http://example.org/1"/></CHANNEL>
            """)
        XCTAssertEqual(l.count, 3)
        XCTAssertEqual(l[0]["title"] as? String, "an item")
        XCTAssertNil(l[0]["link"])
        XCTAssertEqual(l[1]["link"] as? String, "http://example.org/1")
        XCTAssertNil(l[1]["title"])
        XCTAssertEqual(l[2]["format"] as? String, "cdf")
        XCTAssertNil(l[2]["subtitle"])
    }

    func testALowerCaseChannelRootIsAnRSSChannelWithoutItsRoot() throws {
        let l = try linesFromEveryBackend("""
            <channel><title>t</title><link>http://example.org/</link><description>d</description>
            <item><title>i</title><link>http://example.org/1</link></item></channel>
            """)
        XCTAssertEqual(l[0]["title"] as? String, "i")
        XCTAssertEqual(l[0]["link"] as? String, "http://example.org/1")
        XCTAssertEqual(l[1]["format"] as? String, "rss")
        XCTAssertEqual(l[1]["subtitle"] as? String, "d")
        XCTAssertEqual(l[1]["link"] as? String, "http://example.org/")
    }

    func testAChannelInANamespaceIsNotCDF() throws {
        let l = try linesFromEveryBackend("""
            <CHANNEL xmlns="http://example.com/ns"><TITLE>t</TITLE></CHANNEL>
            """)
        XCTAssertEqual(l.last?["error"].flatMap { ($0 as? [String: Any])?["code"] as? String }, "not_feed")
    }
}

/// DCMI Metadata Terms (the `http://purl.org/dc/terms/` namespace) beyond the fifteen
/// elements: each kept as written, the relations from `rdf:resource` when given.
final class DCMITermsTests: XCTestCase {
    func testEveryDCMITermIsKeptAsWritten() throws {
        let l = try linesFromEveryBackend("""
            <rss version="2.0" xmlns:dcterms="http://purl.org/dc/terms/"
             xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><channel><title>c</title>
            <dcterms:accrualPeriodicity>daily</dcterms:accrualPeriodicity>
            <dcterms:rightsHolder>Example Corp.</dcterms:rightsHolder>
            <item><title>i</title>
            <dcterms:abstract>The short of it</dcterms:abstract>
            <dcterms:alternative>Another title</dcterms:alternative>
            <dcterms:available>2010-01-01/2010-12-31</dcterms:available>
            <dcterms:dateAccepted>2009-05-01</dcterms:dateAccepted>
            <dcterms:dateCopyrighted>2009</dcterms:dateCopyrighted>
            <dcterms:bibliographicCitation>Doe, J. (2009). A Paper.</dcterms:bibliographicCitation>
            <dcterms:extent>12 pages</dcterms:extent>
            <dcterms:spatial>Paris</dcterms:spatial>
            <dcterms:temporal>1914-1918</dcterms:temporal>
            <dcterms:isPartOf rdf:resource="http://example.org/series"/>
            <dcterms:hasPart>http://example.org/part/1</dcterms:hasPart>
            <dcterms:replaces rdf:resource="urn:isbn:0-000-00000-0">ignored text</dcterms:replaces>
            <dcterms:tableOfContents>1. One 2. Two</dcterms:tableOfContents>
            </item></channel></rss>
            """)
        let dc = (l[0]["dc"] as? [String: String]) ?? [:]
        XCTAssertEqual(dc, [
            "abstract": "The short of it", "alternative": "Another title", "available": "2010-01-01/2010-12-31",
            "date_accepted": "2009-05-01", "date_copyrighted": "2009",
            "bibliographic_citation": "Doe, J. (2009). A Paper.", "extent": "12 pages", "spatial": "Paris",
            "temporal": "1914-1918", "is_part_of": "http://example.org/series",
            "has_part": "http://example.org/part/1", "replaces": "urn:isbn:0-000-00000-0",
            "table_of_contents": "1. One 2. Two",
        ])
        XCTAssertNil(l[0]["summary"], "dcterms:abstract is its own member")
        XCTAssertEqual(l[1]["dc"] as? [String: String],
                       ["accrual_periodicity": "daily", "rights_holder": "Example Corp."])
    }
}
