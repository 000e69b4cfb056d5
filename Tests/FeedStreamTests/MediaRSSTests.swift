// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

/// Media RSS 1.5.1 (rssboard.org/media-rss) in full, and iTunes at item level, from the
/// specifications, each on every backend (linesFromEveryBackend checks
/// they agree). docs/SCHEMA.md, "Media RSS" and "iTunes flags".
final class MediaRSSTests: XCTestCase {
    private func object(_ line: [String: Any], _ key: String) -> [String: Any] {
        (line[key] as? [String: Any]) ?? [:]
    }

    private func rows(_ object: [String: Any], _ key: String) -> [[String: String]] {
        ((object[key] as? [[String: Any]]) ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    private static let media = "xmlns:media=\"http://search.yahoo.com/mrss/\""
    private static let itunes = "xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\""

    // MARK: - Media RSS lists

    func testEveryListElementIsKeptFromTheItemItsGroupsAndItsContents() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.media)><channel><title>c</title>
            <item><title>i</title>
            <media:category scheme="urn:flickr:tags" label="Sky">sky</media:category>
            <media:group>
              <media:content url="http://example.org/hi.mp4" type="video/mp4" height="720">
                <media:hash algo="sha-1">f1d2d2f924e986ac86fdf7b36c94bcdf32beec15</media:hash>
                <media:thumbnail url="http://example.org/hi.jpg" width="1280" height="720"/>
                <media:category scheme="http://search.yahoo.com/mrss/category_schema">music/artist/album/song</media:category>
                <media:player url="http://example.org/player?id=hi" height="720" width="1280"/>
              </media:content>
              <media:content url="http://example.org/lo.mp4" type="video/mp4" height="240">
                <media:hash>dfdec888b72151965a34b4b59031290a</media:hash>
                <media:credit role="producer" scheme="urn:ebu">John Doe</media:credit>
              </media:content>
              <media:restriction relationship="allow" type="country">au us</media:restriction>
              <media:license type="text/html" href="http://creativecommons.org/licenses/by/3.0/us/">Creative Commons Attribution 3.0 United States License</media:license>
              <media:text type="plain" lang="en" start="00:00:03.000" end="00:00:10.000">Oh, say, can you see</media:text>
              <media:thumbnail url="http://example.org/group.jpg" time="12:05:01.123"/>
            </media:group>
            <media:restriction relationship="deny">all</media:restriction>
            <media:player url="http://example.org/player?id=item"/>
            <media:text>Second line</media:text>
            </item></channel></rss>
            """)
        let m = object(l[0], "media")
        XCTAssertEqual(rows(m, "content").map { $0["url"] }, ["http://example.org/hi.mp4", "http://example.org/lo.mp4"])
        XCTAssertEqual(rows(m, "categories"), [
            ["term": "sky", "scheme": "urn:flickr:tags", "label": "Sky"],
            ["term": "music/artist/album/song", "scheme": "http://search.yahoo.com/mrss/category_schema"],
        ])
        XCTAssertEqual(rows(m, "hashes"), [
            ["value": "f1d2d2f924e986ac86fdf7b36c94bcdf32beec15", "algo": "sha-1"],
            ["value": "dfdec888b72151965a34b4b59031290a"],
        ])
        XCTAssertEqual(rows(m, "thumbnails"), [
            ["url": "http://example.org/hi.jpg", "width": "1280", "height": "720"],
            ["url": "http://example.org/group.jpg", "time": "12:05:01.123"],
        ])
        XCTAssertEqual(rows(m, "players"), [
            ["url": "http://example.org/player?id=hi", "height": "720", "width": "1280"],
            ["url": "http://example.org/player?id=item"],
        ])
        XCTAssertEqual(rows(m, "credits"), [["name": "John Doe", "role": "producer", "scheme": "urn:ebu"]])
        XCTAssertEqual(rows(m, "restrictions"), [
            ["value": "au us", "relationship": "allow", "type": "country"],
            ["value": "all", "relationship": "deny"],
        ])
        XCTAssertEqual(rows(m, "licenses"), [[
            "text": "Creative Commons Attribution 3.0 United States License", "type": "text/html",
            "href": "http://creativecommons.org/licenses/by/3.0/us/",
        ]])
        XCTAssertEqual(rows(m, "texts"), [
            ["text": "Oh, say, can you see", "type": "plain", "lang": "en", "start": "00:00:03.000", "end": "00:00:10.000"],
            ["text": "Second line"],
        ])
        // The item's own members are untouched by Media RSS.
        XCTAssertEqual(l[0]["title"] as? String, "i")
        XCTAssertNil(l[0]["categories"])
    }

    func testChannelLevelMediaElementsGoToTheFeedLine() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.media)><channel><title>c</title>
            <media:copyright url="http://example.org/terms">2005 FooBar Media</media:copyright>
            <media:category scheme="urn:x" label="News">news</media:category>
            <media:rating scheme="urn:mpaa">pg</media:rating>
            <media:title type="html">Channel &lt;b&gt;media&lt;/b&gt;</media:title>
            <item><title>i</title></item></channel></rss>
            """)
        XCTAssertNil(l[0]["media"])
        let m = object(l[1], "media")
        XCTAssertEqual(m["copyright"] as? String, "2005 FooBar Media")
        XCTAssertEqual(m["copyright_url"] as? String, "http://example.org/terms")
        XCTAssertEqual(rows(m, "categories"), [["term": "news", "scheme": "urn:x", "label": "News"]])
        XCTAssertEqual(m["rating"] as? String, "pg")
        XCTAssertEqual(m["rating_scheme"] as? String, "urn:mpaa")
        XCTAssertEqual(m["title"] as? String, "Channel <b>media</b>")
        XCTAssertEqual(m["title_type"] as? String, "html")
    }

    // MARK: - Media RSS single values

    func testSingleValuesFollowTheShallowerElementWithTheirOwnAttributes() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.media)><channel><title>c</title>
            <item>
              <media:group>
                <media:content url="http://example.org/a.mp3">
                  <media:title type="html">content &lt;i&gt;title&lt;/i&gt;</media:title>
                  <media:rating scheme="urn:mpaa">r</media:rating>
                  <media:copyright url="http://example.org/c">content copyright</media:copyright>
                  <media:description type="html">content description</media:description>
                </media:content>
                <media:title type="html">group title</media:title>
                <media:copyright>group copyright</media:copyright>
              </media:group>
              <media:title>item title</media:title>
              <media:rating>nonadult</media:rating>
            </item>
            <item>
              <media:content url="http://example.org/b.mp3"><media:title type="plain">only in content</media:title></media:content>
            </item>
            </channel></rss>
            """)
        let m = object(l[0], "media")
        // The item's title, written without `type`: the content's `html` is not taken
        // (the specification's default, `plain`, is given).
        XCTAssertEqual(m["title"] as? String, "item title")
        XCTAssertEqual(m["title_type"] as? String, "plain")
        // Likewise the rating: the item's, without the content's scheme.
        XCTAssertEqual(m["rating"] as? String, "nonadult")
        XCTAssertEqual(m["rating_scheme"] as? String, "urn:simple")
        // The group's copyright beats the content's, and has no url.
        XCTAssertEqual(m["copyright"] as? String, "group copyright")
        XCTAssertNil(m["copyright_url"])
        // Only the content has a description: taken, with its type.
        XCTAssertEqual(m["description"] as? String, "content description")
        XCTAssertEqual(m["description_type"] as? String, "html")
        let m2 = object(l[1], "media")
        XCTAssertEqual(m2["title"] as? String, "only in content")
        XCTAssertEqual(m2["title_type"] as? String, "plain")
    }

    func testRepeatedRatingsOfOneLevelKeepTheLastWithItsScheme() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.media)><channel><title>c</title>
            <item><media:rating scheme="urn:simple">adult</media:rating>
            <media:rating scheme="urn:icra">r (cz 1 lz 1 nz 1 oz 1 vz 1)</media:rating>
            <media:rating>nonadult</media:rating></item>
            <item><media:rating>adult</media:rating><media:rating scheme="urn:v-chip">tv-y7-fv</media:rating></item>
            </channel></rss>
            """)
        XCTAssertEqual(object(l[0], "media")["rating"] as? String, "nonadult")
        XCTAssertEqual(object(l[0], "media")["rating_scheme"] as? String, "urn:simple")   // the default, not urn:icra
        XCTAssertEqual(object(l[1], "media")["rating"] as? String, "tv-y7-fv")
        XCTAssertEqual(object(l[1], "media")["rating_scheme"] as? String, "urn:v-chip")
    }

    func testCommunityAsYouTubeWritesIt() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" \(Self.media)><title>t</title>
            <entry><id>yt:video:1</id><title>v</title>
            <media:group>
              <media:title>Video</media:title>
              <media:content url="https://www.youtube.com/v/1?version=3" type="application/x-shockwave-flash" width="640" height="390"/>
              <media:thumbnail url="https://i.ytimg.com/vi/1/hqdefault.jpg" width="480" height="360"/>
              <media:description>About the video</media:description>
              <media:community>
                <media:starRating count="1405" average="4.92" min="1" max="5"/>
                <media:statistics views="51209"/>
              </media:community>
            </media:group></entry>
            <entry><id>2</id><media:community>
              <media:statistics views="5" favorites="2"/>
              <media:tags>news: 5, abc:3, reuters</media:tags>
            </media:community></entry>
            </feed>
            """)
        let m = object(l[0], "media")
        XCTAssertEqual(m["title"] as? String, "Video")
        XCTAssertEqual(m["description"] as? String, "About the video")
        XCTAssertEqual(rows(m, "content").first?["width"], "640")
        XCTAssertEqual(rows(m, "thumbnails").first?["url"], "https://i.ytimg.com/vi/1/hqdefault.jpg")
        let c = object(m, "community")
        XCTAssertEqual(object(c, "star_rating") as? [String: String],
                       ["average": "4.92", "count": "1405", "min": "1", "max": "5"])
        XCTAssertEqual(object(c, "statistics") as? [String: String], ["views": "51209"])
        XCTAssertNil(c["tags"])
        let c2 = object(object(l[1], "media"), "community")
        XCTAssertNil(c2["star_rating"])
        XCTAssertEqual(object(c2, "statistics") as? [String: String], ["views": "5", "favorites": "2"])
        XCTAssertEqual(c2["tags"] as? String, "news: 5, abc:3, reuters")
    }

    func testSubtitlesPeerLinksPricesAndStatus() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.media)><channel><title>c</title>
            <item>
              <media:content url="http://example.org/movie.mp4">
                <media:subTitle type="application/smil" lang="en-us" href="http://example.org/subtitle.smil"/>
                <media:price type="rent" price="19.99" currency="EUR"/>
                <media:status state="blocked" reason="http://example.org/reason"/>
              </media:content>
              <media:peerLink type="application/x-bittorrent" href="http://example.org/file.torrent"/>
              <media:price type="subscription" info="http://example.org/subscription_info"/>
              <media:subTitle lang="fr" href="http://example.org/fr.srt"/>
              <media:status state="active"/>
            </item></channel></rss>
            """)
        let m = object(l[0], "media")
        XCTAssertEqual(rows(m, "subtitles"), [
            ["href": "http://example.org/subtitle.smil", "type": "application/smil", "lang": "en-us"],
            ["href": "http://example.org/fr.srt", "lang": "fr"],
        ])
        XCTAssertEqual(rows(m, "peer_links"), [["href": "http://example.org/file.torrent", "type": "application/x-bittorrent"]])
        XCTAssertEqual(rows(m, "prices"), [
            ["price": "19.99", "currency": "EUR", "type": "rent"],
            ["type": "subscription", "info": "http://example.org/subscription_info"],
        ])
        // The item's status beats the content's, and takes no reason from it.
        XCTAssertEqual(m["status_state"] as? String, "active")
        XCTAssertNil(m["status_reason"])
    }

    func testMediaNamespaceAsWritten() throws {
        for uri in ["http://search.yahoo.com/mrss", "https://search.yahoo.com/mrss/", "HTTP://SEARCH.YAHOO.COM/MRSS/",
                    "http://www.rssboard.org/media-rss", "https://www.rssboard.org/media-rss/"] {
            let l = try lines("""
                <rss version="2.0" xmlns:m="\(uri)"><channel><title>c</title>
                <item><m:category>c1</m:category><m:player url="http://example.org/p"/></item></channel></rss>
                """)
            let m = object(l[0], "media")
            XCTAssertEqual(rows(m, "categories"), [["term": "c1", "scheme": "http://search.yahoo.com/mrss/category_schema"]], uri)
            XCTAssertEqual(rows(m, "players"), [["url": "http://example.org/p"]], uri)
        }
    }

    // MARK: - iTunes at item level

    func testItemCategoriesOrderAndClosedCaptions() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.itunes)><channel><title>c</title>
            <itunes:category text="Arts"/>
            <item><title>e</title>
            <itunes:category text="Society &amp; Culture"><itunes:category text="Documentary"/></itunes:category>
            <itunes:category text="Technology"/>
            <itunes:order>2</itunes:order>
            <itunes:isClosedCaptioned>Yes</itunes:isClosedCaptioned>
            </item>
            <item><itunes:isClosedCaptioned>no</itunes:isClosedCaptioned></item>
            </channel></rss>
            """)
        let i = object(l[0], "itunes")
        XCTAssertEqual(rows(i, "categories"), [
            ["text": "Society & Culture"], ["text": "Documentary", "parent": "Society & Culture"], ["text": "Technology"],
        ])
        XCTAssertEqual(i["order"] as? String, "2")
        XCTAssertEqual(i["closed_captioned"] as? String, "Yes")
        XCTAssertEqual(i["is_closed_captioned"] as? Bool, true)
        XCTAssertEqual(object(l[1], "itunes")["closed_captioned"] as? String, "no")
        XCTAssertEqual(object(l[1], "itunes")["is_closed_captioned"] as? Bool, false)
        // The channel's category stays the feed's.
        XCTAssertEqual(rows(object(l[2], "itunes"), "categories"), [["text": "Arts"]])
    }

    func testImageFromHrefElseUrlElseText() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.itunes)><channel><title>c</title>
            <itunes:image href="http://example.org/feed.jpg"/>
            <item><itunes:image href="http://example.org/a.jpg" url="http://example.org/not.jpg"/></item>
            <item><itunes:image url="http://example.org/b.jpg"/></item>
            <item><itunes:image>http://example.org/c.jpg</itunes:image></item>
            <item><itunes:image href="http://example.org/d.jpg">http://example.org/not.jpg</itunes:image></item>
            <item><itunes:image href="http://example.org/first.jpg"/><itunes:image>http://example.org/e.jpg</itunes:image></item>
            </channel></rss>
            """)
        XCTAssertEqual(l.prefix(5).map { object($0, "itunes")["image"] as? String }, [
            "http://example.org/a.jpg", "http://example.org/b.jpg", "http://example.org/c.jpg",
            "http://example.org/d.jpg", "http://example.org/e.jpg",
        ])
        XCTAssertEqual(object(l[5], "itunes")["image"] as? String, "http://example.org/feed.jpg")
    }

    func testBlankImageTextIsNoImage() throws {
        // Blank text stands in for nothing (an empty URL would resolve to the base); the
        // last element still replaces the one before (SCHEMA.md, "Repeated elements").
        let l = try lines("""
            <rss version="2.0" \(Self.itunes) xml:base="http://example.org/dir/"><channel><title>c</title>
            <item><title>a</title><itunes:image/></item>
            <item><title>b</title><itunes:image>
              </itunes:image></item>
            <item><itunes:image>  cover.jpg  </itunes:image></item>
            <item><title>d</title><itunes:image href="d.jpg"/><itunes:image/></item>
            </channel></rss>
            """)
        XCTAssertNil(l[0]["itunes"])
        XCTAssertNil(l[1]["itunes"])
        XCTAssertEqual(object(l[2], "itunes")["image"] as? String, "http://example.org/dir/cover.jpg")
        XCTAssertNil(l[3]["itunes"])
    }

    func testExplicitIsKeptAsWrittenAndReadAsABoolean() throws {
        let values: [(String, Bool?)] = [
            ("yes", true), ("Yes", true), ("true", true), ("TRUE", true), ("explicit", true), (" yes\n", true),
            ("no", false), ("false", false), ("clean", false), ("Clean", false),
            ("maybe", nil), ("", nil), ("1", nil), ("yes please", nil),
        ]
        let items = values.map { "<item><itunes:explicit>\($0.0)</itunes:explicit></item>" }.joined()
        let l = try lines("""
            <rss version="2.0" \(Self.itunes)><channel><title>c</title>
            <itunes:explicit>clean</itunes:explicit>\(items)</channel></rss>
            """)
        for (k, (written, meaning)) in values.enumerated() {
            let i = object(l[k], "itunes")
            // As every string member, the text without the whitespace around it.
            XCTAssertEqual(i["explicit"] as? String, written.trimmingCharacters(in: .whitespacesAndNewlines), written)
            XCTAssertEqual(i["is_explicit"] as? Bool, meaning, written)
            if meaning == nil { XCTAssertNil(i["is_explicit"], written) }
        }
        let feed = object(l[values.count], "itunes")
        XCTAssertEqual(feed["explicit"] as? String, "clean")
        XCTAssertEqual(feed["is_explicit"] as? Bool, false)
    }

    func testBlockIsTrueOnlyForYes() throws {
        let values: [(String, Bool)] = [("yes", true), ("YES", true), ("no", false), ("true", false), ("", false)]
        let items = values.map { "<item><itunes:block>\($0.0)</itunes:block></item>" }.joined()
        let l = try lines("""
            <rss version="2.0" \(Self.itunes)><channel><title>c</title>
            <itunes:block>Yes</itunes:block>\(items)<item><title>none</title></item></channel></rss>
            """)
        for (k, (written, meaning)) in values.enumerated() {
            let i = object(l[k], "itunes")
            XCTAssertEqual(i["block"] as? String, written, written)
            XCTAssertEqual(i["is_blocked"] as? Bool, meaning, written)
        }
        XCTAssertNil(l[values.count]["itunes"])
        XCTAssertEqual(object(l[values.count + 1], "itunes")["is_blocked"] as? Bool, true)
    }

    func testFlagsAreBooleansInTheSchema() throws {
        func keys(_ fields: [MemberField], _ prefix: String = "") -> Set<String> {
            var out: Set<String> = []
            for f in fields {
                if case .object(let sub) = f.type { out.formUnion(keys(sub, prefix + f.key + ".")) }
                else { out.insert("\(prefix)\(f.key):\(f.type == .boolean ? "boolean" : f.type == .string ? "string" : "other")") }
            }
            return out
        }
        let item = keys(RecordLayout.itemLine)
        XCTAssertTrue(keys(RecordLayout.feedLine).contains("itunes.is_explicit:boolean"))
        XCTAssertTrue(item.contains("itunes.is_explicit:boolean"))
        XCTAssertTrue(item.contains("itunes.is_blocked:boolean"))
        XCTAssertTrue(item.contains("itunes.is_closed_captioned:boolean"))
        XCTAssertTrue(item.contains("media.community.star_rating.average:string"))
    }
}
