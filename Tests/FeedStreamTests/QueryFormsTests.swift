// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Values a feed writes in one text, given beside it in the form users query
/// (docs/SCHEMA.md, "Values in the form users query"), the defaults the specifications
/// give attributes left out, and what the GML, mod_admin and XHTML elements say: on
/// every backend, whole and in 1-byte chunks.
final class QueryFormsTests: XCTestCase {
    private func item(_ xml: String) throws -> [String: Any] {
        try XCTUnwrap(linesFromEveryBackendAndCut(xml).first { $0["kind"] as? String == "item" })
    }

    private func feed(_ xml: String) throws -> [String: Any] {
        try XCTUnwrap(linesFromEveryBackendAndCut(xml).first { $0["kind"] as? String == "feed" })
    }

    private func rss(channel: String = "", item: String, namespaces: String = "") -> String {
        "<rss version=\"2.0\" \(namespaces)><channel><title>t</title>\(channel)<item><title>i</title>\(item)</item></channel></rss>"
    }

    // MARK: Languages

    func testALanguageIsGivenAsABCP47TagBesideTheTextAsWritten() throws {
        let cases: [(String, String?)] = [
            ("en_US", "en-US"), (" EN-gb ", "en-GB"), ("zh-hant-tw", "zh-Hant-TW"), ("en", "en"),
            ("es-419", "es-419"), ("x-Klingon", "x-klingon"), ("de-CH-x-phonebk-ab", "de-CH-x-phonebk-ab"),
            ("sr_latn_rs", "sr-Latn-RS"), ("English", "english"),
            ("English (US)", nil), ("e", nil), ("en--us", nil), ("en-", nil), ("toolongsubtag", nil), ("", nil),
        ]
        for (written, tag) in cases {
            let f = try feed(rss(channel: "<language>\(written)</language>", item: ""))
            XCTAssertEqual(f["language_tag"] as? String, tag, written)
            let i = try item(rss(channel: "<language>\(written)</language>", item: ""))
            let inFeed = try XCTUnwrap(i["feed"] as? [String: Any])
            XCTAssertEqual(inFeed["language_tag"] as? String, tag, written)
        }
        // An Atom entry's xml:lang is its language: the tag beside it.
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="fr_ca"><title>t</title>
            <entry xml:lang="pt_BR"><title>e</title><id>x</id></entry></feed>
            """
        let entry = try item(atom)
        XCTAssertEqual(entry["language"] as? String, "pt_BR")
        XCTAssertEqual(entry["language_tag"] as? String, "pt-BR")
        XCTAssertEqual(try feed(atom)["language_tag"] as? String, "fr-CA")
    }

    // MARK: DCMI periods

    func testADCMIPeriodIsSplitIntoItsStartAndEndDates() throws {
        let ns = #"xmlns:dcterms="http://purl.org/dc/terms/""#
        let written = "start=2020-01-01T00:00:00Z; end=2020-12-31; scheme=W3C-DTF"
        let dc = try XCTUnwrap(item(rss(item: "<dcterms:valid>\(written)</dcterms:valid>", namespaces: ns))["dc"] as? [String: Any])
        XCTAssertEqual(dc["valid"] as? String, written)
        XCTAssertEqual(dc["valid_start"] as? String, "2020-01-01T00:00:00Z")
        XCTAssertEqual(dc["valid_end"] as? String, "2020-12-31T00:00:00Z")
        // Only an end, names in another case, a start that is no date.
        let open = try XCTUnwrap(item(rss(item: "<dcterms:valid>name=Q1; END=Sat, 31 Mar 2007 23:59:59 GMT</dcterms:valid>",
                                          namespaces: ns))["dc"] as? [String: Any])
        XCTAssertNil(open["valid_start"])
        XCTAssertEqual(open["valid_end"] as? String, "2007-03-31T23:59:59Z")
        let odd = try XCTUnwrap(item(rss(item: "<dcterms:valid>start=soon</dcterms:valid>", namespaces: ns))["dc"] as? [String: Any])
        XCTAssertEqual(odd["valid"] as? String, "start=soon")
        XCTAssertNil(odd["valid_start"])
    }

    // MARK: Podlove chapters

    func testAChaptersStartIsAlsoGivenInSeconds() throws {
        let starts: [(String, Any?)] = [
            ("00:01:02.500", 62.5), ("1:03:04", 3784), ("12:34", 754), ("90", 90), ("7.25", 7.25),
            ("01:02:03.000", 3723), ("00:60:00", nil), ("1:2:3:4", nil), ("soon", nil), ("1.", nil),
        ]
        let chapters = starts.map { #"<psc:chapter start="\#($0.0)" title="c"/>"# }.joined()
        let xml = rss(item: "<psc:chapters version=\"1.2\">\(chapters)</psc:chapters>",
                      namespaces: #"xmlns:psc="http://podlove.org/simple-chapters""#)
        let psc = try XCTUnwrap(item(xml)["psc"] as? [String: Any])
        let rows = try XCTUnwrap(psc["chapters"] as? [[String: Any]])
        XCTAssertEqual(rows.count, starts.count)
        for (row, (written, seconds)) in zip(rows, starts) {
            XCTAssertEqual(row["start"] as? String, written)
            if let seconds {
                XCTAssertEqual((row["start_seconds"] as? NSNumber)?.doubleValue, (seconds as? NSNumber)?.doubleValue, written)
            } else {
                XCTAssertNil(row["start_seconds"], written)
            }
        }
        // A number in the JSON, not a string.
        let text = String(decoding: try convert(FeedBackend.swift.makeParser(), .bytes(bytes(xml))), as: UTF8.self)
        XCTAssertTrue(text.contains(#""start_seconds":62.5,"#), text)
    }

    // MARK: Media RSS

    func testMediaRSSRestrictionsAreSplitIntoTheirWords() throws {
        let ns = #"xmlns:media="http://search.yahoo.com/mrss/""#
        let xml = rss(item: """
            <media:restriction relationship="allow" type="country">us  ca
            gb</media:restriction><media:restriction type="sharing" relationship="deny"/>
            """, namespaces: ns)
        let media = try XCTUnwrap(item(xml)["media"] as? [String: Any])
        let rows = try XCTUnwrap(media["restrictions"] as? [[String: Any]])
        XCTAssertEqual(rows.first?["values"] as? [String], ["us", "ca", "gb"])
        XCTAssertEqual(rows.first?["relationship"] as? String, "allow")
        XCTAssertNil(rows.last?["values"])
    }

    func testMediaRSSAttributesLeftOutHaveTheSpecificationsDefaults() throws {
        let ns = #"xmlns:media="http://search.yahoo.com/mrss/""#
        let xml = rss(item: """
            <media:title>A</media:title><media:description type="html">&lt;b&gt;B&lt;/b&gt;</media:description>
            <media:rating>adult</media:rating>
            <media:category>music/rock</media:category><media:category scheme="urn:x" label="X">x</media:category>
            """, namespaces: ns)
        let media = try XCTUnwrap(item(xml)["media"] as? [String: Any])
        XCTAssertEqual(media["title_type"] as? String, "plain")
        XCTAssertEqual(media["description_type"] as? String, "html")
        XCTAssertEqual(media["rating_scheme"] as? String, "urn:simple")
        let categories = try XCTUnwrap(media["categories"] as? [[String: Any]])
        XCTAssertEqual(categories as NSArray, [
            ["term": "music/rock", "scheme": "http://search.yahoo.com/mrss/category_schema"],
            ["term": "x", "scheme": "urn:x", "label": "X"],
        ] as NSArray)
        // No default where there is nothing it describes.
        let bare = try XCTUnwrap(item(rss(item: "<media:keywords>k</media:keywords>", namespaces: ns))["media"] as? [String: Any])
        XCTAssertNil(bare["title_type"])
        XCTAssertNil(bare["rating_scheme"])
    }

    // MARK: Links

    func testASelfLinkWithoutATypeIsAnAtomDocument() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
            <link rel="self" href="http://example.com/feed"/><link rel="self" type="application/rss+xml" href="http://example.com/rss"/>
            <link href="http://example.com/"/></feed>
            """
        let links = try XCTUnwrap(feed(atom)["links"] as? [[String: Any]])
        XCTAssertEqual(links as NSArray, [
            ["href": "http://example.com/feed", "rel": "self", "type": "application/atom+xml"],
            ["href": "http://example.com/rss", "rel": "self", "type": "application/rss+xml"],
            ["href": "http://example.com/", "rel": "alternate"],
        ] as NSArray)
        // The typed model says the same.
        for backend in FeedBackend.allCases {
            let doc = try document(from: .bytes(bytes(atom)), backend: backend)
            XCTAssertEqual(doc.feed.links.map(\.type), ["application/atom+xml", "application/rss+xml", nil], "\(backend)")
        }
        // A JSON Feed's feed_url is a JSON Feed.
        let json = #"{"version":"https://jsonfeed.org/version/1.1","title":"j","feed_url":"http://e.com/f.json","items":[]}"#
        let jl = try XCTUnwrap(feed(json)["links"] as? [[String: Any]])
        XCTAssertEqual(jl.first?["type"] as? String, "application/feed+json")
    }

    // MARK: Elements read

    func testGMLGeometriesKeepTheirReferenceSystem() throws {
        let ns = #"xmlns:georss="http://www.georss.org/georss" xmlns:gml="http://www.opengis.net/gml""#
        for (geometry, inner) in [("Point", "<gml:pos>45 -71</gml:pos>"),
                                  ("LineString", "<gml:posList>45 -71 46 -72</gml:posList>"),
                                  ("Envelope", "<gml:lowerCorner>1 2</gml:lowerCorner><gml:upperCorner>3 4</gml:upperCorner>")] {
            let xml = rss(item: """
                <georss:where><gml:\(geometry) srsName="urn:ogc:def:crs:EPSG:6.6:4326" srsDimension="2">\(inner)</gml:\(geometry)></georss:where>
                """, namespaces: ns)
            let geo = try XCTUnwrap(item(xml)["geo"] as? [String: Any])
            let at = try XCTUnwrap(geo["where"] as? [String: Any], geometry)
            XCTAssertEqual(at["srs_name"] as? String, "urn:ogc:def:crs:EPSG:6.6:4326", geometry)
            XCTAssertEqual(at["srs_dimension"] as? String, "2", geometry)
        }
    }

    func testModAdminsErrorAddressIsAMember() throws {
        let xml = """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
              xmlns:admin="http://webns.net/mvcb/"><channel rdf:about="http://example.com/"><title>t</title>
            <admin:errorReportsTo rdf:resource="mailto:errors@example.com"/></channel></rdf:RDF>
            """
        let f = try feed(xml)
        XCTAssertEqual(f["error_reports_to"] as? String, "mailto:errors@example.com")
        XCTAssertNil(f["extensions"], "a member of its own, not an extension element")
    }

    func testXHTMLAttributesInTheXLinkNamespaceKeepTheirPrefix() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><title>e</title><id>x</id>
            <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml" xmlns:l="http://www.w3.org/1999/xlink">\
            <svg xmlns="http://www.w3.org/2000/svg"><a l:href="#s" l:title="T"><text xml:lang="en">s</text></a></svg></div></content>
            </entry></feed>
            """
        XCTAssertEqual(try item(xml)["content"] as? String,
                       ##"<svg><a xlink:href="#s" xlink:title="T"><text xml:lang="en">s</text></a></svg>"##)
    }
}
