// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Feed classes and date forms, from the specifications (RSS 2.0, RFC 5322, W3C-DTF, RFC 822,
/// DCMI terms, ...), each on every backend (linesFromEveryBackend checks they agree).
final class CoverageTests: XCTestCase {
    private func persons(_ line: [String: Any], _ key: String) -> [[String: String]] {
        ((line[key] as? [[String: Any]]) ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    // MARK: - Persons written as text

    func testPersonTextIsSplitIntoNameAndEmailKeepingTheText() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>c</title>
            <item><author>lawyer@boyer.net (Lawyer Boyer)</author>
            <author>Lawyer Boyer (lawyer@boyer.net)</author>
            <dc:creator>Jane Doe &lt;jane@example.com&gt;</dc:creator>
            <dc:author>"Doe, John" &lt;john.doe@mail.example.co.uk&gt;</dc:author>
            <author>only@example.org</author>
            <author>&lt;angle@example.org&gt;</author>
            <author>mailto:mt@example.org</author>
            <dc:contributor>Plain Name</dc:contributor>
            <dc:contributor>not an address @ all</dc:contributor>
            <author></author></item></channel></rss>
            """)
        XCTAssertEqual(persons(l[0], "authors"), [
            ["name": "Lawyer Boyer", "email": "lawyer@boyer.net", "raw": "lawyer@boyer.net (Lawyer Boyer)"],
            ["name": "Lawyer Boyer", "email": "lawyer@boyer.net", "raw": "Lawyer Boyer (lawyer@boyer.net)"],
            ["name": "Jane Doe", "email": "jane@example.com", "raw": "Jane Doe <jane@example.com>"],
            ["name": "Doe, John", "email": "john.doe@mail.example.co.uk", "raw": "\"Doe, John\" <john.doe@mail.example.co.uk>"],
            ["email": "only@example.org", "raw": "only@example.org"],
            ["email": "angle@example.org", "raw": "<angle@example.org>"],
            ["email": "mt@example.org", "raw": "mailto:mt@example.org"],
        ], "the empty author names no one and is left out")
        XCTAssertEqual(persons(l[0], "contributors"), [["name": "Plain Name"], ["name": "not an address @ all"]])
    }

    func testAtomPersonsAreNotSplit() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
            <entry><id>1</id><author><name>a@b.example (A)</name></author></entry></feed>
            """)
        XCTAssertEqual(persons(l[0], "authors"), [["name": "a@b.example (A)"]])
    }

    func testFeedPersonFieldsGetADetailObjectOnlyWhenTheyHoldAnAddress() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>c</title>
            <managingEditor>ed@example.com (Ed Itor)</managingEditor><webMaster>Web Master</webMaster>
            <itunes:author>Pod Caster &lt;pod@example.com&gt;</itunes:author>
            <item><itunes:author>Just A Name</itunes:author></item></channel></rss>
            """)
        let feed = l[1]
        XCTAssertEqual(feed["managing_editor"] as? String, "ed@example.com (Ed Itor)")
        XCTAssertEqual(feed["managing_editor_detail"] as? [String: String], ["name": "Ed Itor", "email": "ed@example.com"])
        XCTAssertEqual(feed["webmaster"] as? String, "Web Master")
        XCTAssertNil(feed["webmaster_detail"])
        let itunes = feed["itunes"] as? [String: Any]
        XCTAssertEqual(itunes?["author"] as? String, "Pod Caster <pod@example.com>")
        XCTAssertEqual(itunes?["author_detail"] as? [String: String], ["name": "Pod Caster", "email": "pod@example.com"])
        XCTAssertEqual(l[0]["itunes"] as? [String: String], ["author": "Just A Name"])
    }

    func testValueModelCarriesTheSplitPerson() throws {
        let xml = "<rss version=\"2.0\"><channel><title>c</title><item><author>x@y.example (X Y)</author></item></channel></rss>"
        for backend in FeedBackend.allCases {
            let collector = FeedCollector()
            _ = try backend.makeParser().parse(.bytes(Array(xml.utf8)), handler: collector)
            XCTAssertEqual(collector.documents.first?.items.first?.authors, [FeedPerson(name: "X Y", email: "x@y.example", raw: "x@y.example (X Y)")], "\(backend)")
        }
    }

    // MARK: - Dates

    private func norm(_ s: String) -> String? { FeedDate.parse(s)?.description }

    func testISO8601BasicOrdinalAndTwoDigitYearForms() {
        // ISO 8601: basic format (no separators), ordinal dates, the truncated forms.
        XCTAssertEqual(norm("20031231"), "2003-12-31T00:00:00Z")
        XCTAssertEqual(norm("20031231T101455Z"), "2003-12-31T10:14:55Z")
        XCTAssertEqual(norm("20031231T1014-0800"), "2003-12-31T18:14:00Z")
        XCTAssertEqual(norm("20031231T10:14:55.25+01:00"), "2003-12-31T09:14:55.25Z")
        XCTAssertEqual(norm("031231"), "2003-12-31T00:00:00Z")
        XCTAssertEqual(norm("-03-12"), "2003-12-01T00:00:00Z")
        XCTAssertEqual(norm("-0312"), "2003-12-01T00:00:00Z")
        XCTAssertEqual(norm("-03-12-31"), "2003-12-31T00:00:00Z")
        XCTAssertEqual(norm("2003-335"), "2003-12-01T00:00:00Z")       // day 335 of a common year
        XCTAssertEqual(norm("2004-336"), "2004-12-01T00:00:00Z")       // of a leap year
        XCTAssertEqual(norm("2003335"), "2003-12-01T00:00:00Z")
        XCTAssertEqual(norm("03335"), "2003-12-01T00:00:00Z")
        XCTAssertEqual(norm("2003-335T12:00Z"), "2003-12-01T12:00:00Z")
        XCTAssertNil(norm("2003-366"))                                  // 2003 has 365 days
        XCTAssertNil(norm("20031331"))
        XCTAssertNil(norm("1700000000"))                                // a Unix time is not a date form
    }

    func testW3CDTFPartialsStillParse() {
        XCTAssertEqual(norm("2003"), "2003-01-01T00:00:00Z")
        XCTAssertEqual(norm("2003-12"), "2003-12-01T00:00:00Z")
        XCTAssertEqual(norm("2003-12-31"), "2003-12-31T00:00:00Z")
        XCTAssertEqual(norm("2003-12-31T10:14Z"), "2003-12-31T10:14:00Z")
        XCTAssertEqual(norm("2003-12-31T10:14:55-08:00"), "2003-12-31T18:14:55Z")
    }

    func testAsctimeWithZones() {
        XCTAssertEqual(norm("Sun Jan  4 16:29:06 PST 2004"), "2004-01-05T00:29:06Z")
        XCTAssertEqual(norm("Sun Jan 4 16:29:06 +0100 2004"), "2004-01-04T15:29:06Z")
        XCTAssertEqual(norm("Sun Jan 4 16:29:06 2004 -0500"), "2004-01-04T21:29:06Z")
        XCTAssertEqual(norm("Sun Nov  6 08:49:37 1994"), "1994-11-06T08:49:37Z")
    }

    func testCommaBetweenMonthAndYear() {
        XCTAssertEqual(norm("13 Feb, 2012"), "2012-02-13T00:00:00Z")
        XCTAssertEqual(norm("Mon, 13 Feb, 2012 10:00:00 GMT"), "2012-02-13T10:00:00Z")
    }

    func testWeekdayAndSlashedDateWithZoneName() {
        XCTAssertEqual(norm("Fri, 2006/09/15 08:19:53 EDT"), "2006-09-15T12:19:53Z")
        XCTAssertEqual(norm("Fri, 2006/09/15 08:19:53"), "2006-09-15T08:19:53Z")
        XCTAssertEqual(norm("2006/09/15 08:19:53"), "2006-09-15T08:19:53Z")
    }

    func testMoreZoneNames() {
        let base = "Mon, 26 Jan 2004 16:31:00 "
        let cases = ["AT": "20:31", "AST": "20:31", "ADT": "19:31", "ET": "21:31", "CT": "22:31", "MT": "23:31",
                     "MET": "15:31", "MEST": "14:31", "KST": "07:31"]
        for (zone, utc) in cases { XCTAssertEqual(norm(base + zone), "2004-01-26T\(utc):00Z", zone) }
        XCTAssertEqual(norm(base + "PT"), "2004-01-27T00:31:00Z")
        // The tz database's Etc/GMT±N: POSIX signs, so +5 is five hours behind UTC.
        XCTAssertEqual(norm(base + "Etc/GMT+5"), "2004-01-26T21:31:00Z")
        XCTAssertEqual(norm(base + "Etc/GMT-10"), "2004-01-26T06:31:00Z")
        XCTAssertEqual(norm(base + "Etc/GMT"), "2004-01-26T16:31:00Z")
        XCTAssertEqual(norm(base + "Etc/UTC"), "2004-01-26T16:31:00Z")
        XCTAssertNil(norm(base + "Etc/GMT+15"))
        XCTAssertNil(norm(base + "Etc/Nowhere"))
        XCTAssertNil(norm(base + "XYZ"))
    }

    func testLocalizedForms() {
        // Korean blog software: in Korea's time (UTC+9).
        XCTAssertEqual(norm("2004년 05월 28일 01:31:15"), "2004-05-27T16:31:15Z")
        XCTAssertEqual(norm("2004-05-25 오후 11:23:17"), "2004-05-25T14:23:17Z")
        XCTAssertEqual(norm("2004-05-25 오전 11:23:17"), "2004-05-25T02:23:17Z")
        // Greek month and weekday names (abbreviated, with or without accents).
        XCTAssertEqual(norm("Κυρ, 11 Ιούλ 2004 12:00:00 EST"), "2004-07-11T17:00:00Z")
        XCTAssertEqual(norm("Τετ, 01 Σεπ 2010 08:00:00 +0300"), "2010-09-01T05:00:00Z")
        XCTAssertEqual(norm("11 Ιουν 2004"), "2004-06-11T00:00:00Z")
        // Hungarian month names.
        XCTAssertEqual(norm("2004-július-13T9:15-05:00"), "2004-07-13T14:15:00Z")
        XCTAssertEqual(norm("2004-március-02T23:00Z"), "2004-03-02T23:00:00Z")
        // English month names in the same form.
        XCTAssertEqual(norm("2004-Jul-13T9:15-05:00"), "2004-07-13T14:15:00Z")
        // Other non-English words are not guessed.
        XCTAssertNil(norm("Do, 22 Dez 2016 17:36:00 +0000"))
        XCTAssertNil(norm("2004年05月28日"))
        XCTAssertNil(norm("Ιου 2004"))                                   // June or July?
    }

    func testDatesAreNormalizedAlikeOnEveryBackend() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>c</title>
            <item><pubDate>Sun Jan 4 16:29:06 PST 2004</pubDate></item>
            <item><pubDate>Κυρ, 11 Ιούλ 2004 12:00:00 EST</pubDate></item>
            <item><dc:date>20031231T101455Z</dc:date></item>
            <item><pubDate>not a date</pubDate></item></channel></rss>
            """)
        XCTAssertEqual(l[0]["published"] as? String, "2004-01-05T00:29:06Z")
        XCTAssertEqual(l[0]["published_raw"] as? String, "Sun Jan 4 16:29:06 PST 2004")
        XCTAssertEqual(l[1]["published"] as? String, "2004-07-11T17:00:00Z")
        XCTAssertEqual(l[1]["published_raw"] as? String, "Κυρ, 11 Ιούλ 2004 12:00:00 EST")
        XCTAssertEqual(l[2]["updated"] as? String, "2003-12-31T10:14:55Z")   // dc:date: the last change
        XCTAssertNil(l[2]["published"])
        XCTAssertNil(l[3]["published"])
        XCTAssertEqual(l[3]["published_raw"] as? String, "not a date")
    }

    // MARK: - Repeated single-valued elements

    func testTheLastOfARepeatedElementWins() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
             xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
            <title>first feed title</title><title type="ignored">second feed title</title>
            <cloud domain="a.example" port="80" path="/rpc"/><cloud domain="b.example"/>
            <itunes:image href="https://e.example/1.png"/><itunes:image href="https://e.example/2.png"/>
            <item><title>one</title><title>two</title>
            <guid isPermaLink="false">g1</guid><guid>https://e.example/g2</guid>
            <pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate><pubDate>Tue, 02 Jan 2024 00:00:00 GMT</pubDate>
            <content:encoded>c1</content:encoded><content:encoded>c2</content:encoded>
            <category>a</category><category>b</category></item></channel></rss>
            """)
        let item = l[0], feed = l[1]
        XCTAssertEqual(item["title"] as? String, "two")
        XCTAssertEqual(item["id"] as? String, "https://e.example/g2")
        XCTAssertEqual(item["guid_is_permalink"] as? Bool, true)
        XCTAssertEqual(item["published"] as? String, "2024-01-02T00:00:00Z")
        XCTAssertEqual(item["content"] as? String, "c2")
        XCTAssertEqual((item["categories"] as? [[String: String]])?.map { $0["term"] }, ["a", "b"])   // lists keep all
        XCTAssertEqual(feed["title"] as? String, "second feed title")
        XCTAssertEqual(feed["cloud"] as? [String: String], ["domain": "b.example"])   // the whole element
        XCTAssertEqual((feed["itunes"] as? [String: Any])?["image"] as? String, "https://e.example/2.png")
    }

    func testPrecedenceStillBeatsOrder() throws {
        // A lower-precedence element never replaces a higher one, before or after it.
        let l = try lines("""
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>c</title>
            <item><title>native</title><dc:title>dc</dc:title><dc:date>2001-01-01</dc:date>
            <pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate><dc:date>2002-02-02</dc:date></item></channel></rss>
            """)
        XCTAssertEqual(l[0]["title"] as? String, "native")
        XCTAssertEqual(l[0]["published"] as? String, "2024-01-01T00:00:00Z")
        XCTAssertEqual(l[0]["updated"] as? String, "2002-02-02T00:00:00Z")   // dc:date repeated: the last
    }

    func testAtomRepeatedElementsAndContentSource() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
            <entry><id>a</id><id>b</id><updated>2020-01-01T00:00:00Z</updated><updated>2021-01-01T00:00:00Z</updated>
            <summary type="html">&lt;b&gt;s1&lt;/b&gt;</summary><summary>s2</summary>
            <content src="https://e.example/x.mp3" type="audio/mpeg"/><content type="text">inline</content></entry></feed>
            """)
        XCTAssertEqual(l[0]["id"] as? String, "b")
        XCTAssertEqual(l[0]["updated"] as? String, "2021-01-01T00:00:00Z")
        XCTAssertEqual(l[0]["summary"] as? String, "s2")
        XCTAssertEqual(l[0]["summary_type"] as? String, "text")
        XCTAssertEqual(l[0]["content"] as? String, "inline")
        XCTAssertNil(l[0]["content_src"])
    }

    func testMediaTextsOfTheItemBeatThoseOfGroupsAndContents() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>c</title>
            <item><media:content url="https://e.example/a.jpg"><media:title>content a</media:title>
            <media:description>content a</media:description></media:content>
            <media:group><media:title>group</media:title></media:group>
            <media:title>item</media:title>
            <media:content url="https://e.example/b.jpg"><media:description>content b</media:description></media:content>
            </item></channel></rss>
            """)
        let media = l[0]["media"] as? [String: Any]
        XCTAssertEqual(media?["title"] as? String, "item")              // item > group > content
        XCTAssertEqual(media?["description"] as? String, "content b")   // contents alike: the last wins
    }

    // MARK: - Extensions

    func testDCMITermsExpiredNewLocationAndLicenses() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:dcterms="http://purl.org/dc/terms/"
             xmlns:creativeCommons="http://backend.userland.com/creativeCommonsRssModule"
             xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>c</title>
            <newLocation>https://new.example/feed.xml</newLocation>
            <itunes:new-feed-url>https://new.example/podcast.xml</itunes:new-feed-url>
            <creativeCommons:license>http://creativecommons.org/licenses/by/4.0/</creativeCommons:license>
            <dcterms:publisher>Pub Lisher (pub@example.org)</dcterms:publisher>
            <item><dcterms:created>2002-10-02T10:00:00-05:00</dcterms:created>
            <dcterms:issued>2002-10-03T10:00:00-05:00</dcterms:issued>
            <dcterms:modified>2002-10-04T10:00:00-05:00</dcterms:modified>
            <dcterms:valid>start=2002-10-13T09:00+01:00; end=2002-10-17T17:00+01:00; scheme=W3C-DTF</dcterms:valid>
            <dcterms:license>http://creativecommons.org/licenses/by-sa/4.0/</dcterms:license>
            <expirationDate>Thu, 31 Dec 2026 23:59:59 GMT</expirationDate></item></channel></rss>
            """)
        let item = l[0], feed = l[1]
        XCTAssertEqual(item["created"] as? String, "2002-10-02T15:00:00Z")
        XCTAssertEqual(item["published"] as? String, "2002-10-03T15:00:00Z")
        XCTAssertEqual(item["updated"] as? String, "2002-10-04T15:00:00Z")
        XCTAssertEqual(item["expired"] as? String, "2026-12-31T23:59:59Z")
        XCTAssertEqual(item["expired_raw"] as? String, "Thu, 31 Dec 2026 23:59:59 GMT")
        XCTAssertEqual((item["dc"] as? [String: Any])?["valid"] as? String,
                       "start=2002-10-13T09:00+01:00; end=2002-10-17T17:00+01:00; scheme=W3C-DTF")
        XCTAssertEqual(item["license"] as? String, "http://creativecommons.org/licenses/by-sa/4.0/")
        XCTAssertEqual(feed["license"] as? String, "http://creativecommons.org/licenses/by/4.0/")
        XCTAssertEqual(feed["new_location"] as? String, "https://new.example/feed.xml")
        XCTAssertEqual((feed["itunes"] as? [String: Any])?["new_feed_url"] as? String, "https://new.example/podcast.xml")
        let dc = feed["dc"] as? [String: Any]
        XCTAssertEqual(dc?["publisher"] as? String, "Pub Lisher (pub@example.org)")
        XCTAssertEqual(dc?["publisher_detail"] as? [String: String], ["name": "Pub Lisher", "email": "pub@example.org"])
    }

    func testRSS10CreativeCommonsLicenseIsItsResource() throws {
        let l = try lines("""
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
             xmlns:cc="http://web.resource.org/cc/">
            <channel rdf:about="https://e.example/"><title>c</title>
            <cc:license rdf:resource="http://creativecommons.org/licenses/by-nc/1.0"/></channel>
            <item rdf:about="https://e.example/1"><title>i</title>
            <cc:license rdf:resource="http://creativecommons.org/licenses/by/1.0"/></item>
            <cc:License rdf:about="http://creativecommons.org/licenses/by/1.0"><cc:permits/></cc:License>
            </rdf:RDF>
            """)
        XCTAssertEqual(l[0]["license"] as? String, "http://creativecommons.org/licenses/by/1.0")
        XCTAssertEqual(l[1]["license"] as? String, "http://creativecommons.org/licenses/by-nc/1.0")
    }

    func testMisspelledNamespaceURIsAreRecognized() throws {
        let l = try lines("""
            <rss version="2.0" xmlns:dc="HTTP://PURL.ORG/DC/ELEMENTS/1.1" xmlns:it="https://www.itunes.com/DTDs/Podcast-1.0.dtd/"
             xmlns:m="https://search.yahoo.com/MRSS" xmlns:c="http://purl.org/rss/1.0/modules/content"
             xmlns:old="http://example.com/DTDs/PodCast-1.0.dtd" xmlns:x="http://purl.org/dc/elements/1.1/extra">
            <channel><title>c</title><old:author>Old Spec</old:author>
            <item><dc:creator>D C</dc:creator><it:duration>1:00</it:duration><m:title>M</m:title>
            <c:encoded>&lt;p&gt;x&lt;/p&gt;</c:encoded><x:creator>not dc</x:creator></item></channel></rss>
            """)
        XCTAssertEqual(persons(l[0], "authors"), [["name": "D C"]])
        XCTAssertEqual((l[0]["itunes"] as? [String: Any])?["duration"] as? String, "1:00")
        XCTAssertEqual((l[0]["media"] as? [String: Any])?["title"] as? String, "M")
        XCTAssertEqual(l[0]["content"] as? String, "<p>x</p>")
        XCTAssertEqual((l[1]["itunes"] as? [String: Any])?["author"] as? String, "Old Spec")
    }

    func testAtomRootInAMisspelledNamespaceIsAtom() throws {
        let l = try lines("<feed xmlns=\"https://www.w3.org/2005/atom/\"><title>t</title><entry><id>1</id></entry></feed>")
        XCTAssertEqual(l.last?["format"] as? String, "atom10")
        XCTAssertEqual(l.first?["id"] as? String, "1")
    }
}
