// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// GeoRSS Simple and GML (georss.org), and the W3C Basic Geo vocabulary's `geo:Point`,
/// from their specifications, on every backend (linesFromEveryBackend checks they agree).
/// Coordinates are kept as written ("lat long" pairs, GeoRSS's order).
final class GeoRSSTests: XCTestCase {
    private func geo(_ line: [String: Any]) -> [String: Any] { (line["geo"] as? [String: Any]) ?? [:] }

    private func strings(_ o: Any?) -> [String: String] {
        ((o as? [String: Any]) ?? [:]).compactMapValues { $0 as? String }
    }

    private static let ns = """
        xmlns:georss="http://www.georss.org/georss" xmlns:gml="http://www.opengis.net/gml" \
        xmlns:geo="http://www.w3.org/2003/01/geo/wgs84_pos#"
        """

    func testSimpleGeometriesAndTheirAttributesOnItemsAndFeeds() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.ns)><channel><title>c</title>
            <georss:box>42.943 -71.032 43.039 -69.856</georss:box>
            <item><title>i</title>
            <georss:point>45.256 -71.92</georss:point>
            <georss:line>45.256 -110.45 46.46 -109.48 43.84 -109.86</georss:line>
            <georss:polygon>45.256 -110.45 46.46 -109.48 43.84 -109.86 45.256 -110.45</georss:polygon>
            <georss:featuretypetag>city</georss:featuretypetag>
            <georss:relationshiptag>is-centered-at</georss:relationshiptag>
            <georss:featurename>Podunk</georss:featurename>
            <georss:elev>313</georss:elev><georss:floor>2</georss:floor><georss:radius>500</georss:radius>
            </item></channel></rss>
            """)
        XCTAssertEqual(strings(l[0]["geo"]), [
            "point": "45.256 -71.92",
            "line": "45.256 -110.45 46.46 -109.48 43.84 -109.86",
            "polygon": "45.256 -110.45 46.46 -109.48 43.84 -109.86 45.256 -110.45",
            "featuretypetag": "city", "relationshiptag": "is-centered-at", "featurename": "Podunk",
            "elev": "313", "floor": "2", "radius": "500",
        ])
        XCTAssertEqual(strings(l[1]["geo"]), ["box": "42.943 -71.032 43.039 -69.856"])
    }

    func testSimpleGeometriesInAtomEntries() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" \(Self.ns)><title>f</title>
            <entry><id>e</id><georss:line>1 2 3 4</georss:line><georss:line>5 6 7 8</georss:line></entry></feed>
            """)
        // One geometry of a kind per entry: a repeated one, the last wins.
        XCTAssertEqual(strings(l[0]["geo"]), ["line": "5 6 7 8"])
    }

    func testGMLGeometriesInWhere() throws {
        let l = try lines("""
            <feed xmlns="http://www.w3.org/2005/Atom" \(Self.ns)><title>f</title>
            <entry><id>point</id><georss:where><gml:Point><gml:pos>45.256 -71.92</gml:pos></gml:Point></georss:where></entry>
            <entry><id>line</id><georss:where><gml:LineString>
              <gml:posList>45.256 -110.45 46.46 -109.48 43.84 -109.86</gml:posList>
            </gml:LineString></georss:where></entry>
            <entry><id>polygon</id><georss:where><gml:Polygon><gml:exterior><gml:LinearRing>
              <gml:posList>45.256 -110.45 46.46 -109.48 43.84 -109.86 45.256 -110.45</gml:posList>
            </gml:LinearRing></gml:exterior><gml:interior><gml:LinearRing>
              <gml:posList>45.5 -110 45.6 -109.9 45.4 -109.9 45.5 -110</gml:posList>
            </gml:LinearRing></gml:interior></gml:Polygon></georss:where></entry>
            <entry><id>box</id><georss:where><gml:Envelope>
              <gml:lowerCorner>42.943 -71.032</gml:lowerCorner><gml:upperCorner>43.039 -69.856</gml:upperCorner>
            </gml:Envelope></georss:where></entry>
            </feed>
            """)
        XCTAssertEqual(l.count, 5)
        XCTAssertEqual(strings(geo(l[0])["where"]), ["point": "45.256 -71.92"])
        XCTAssertEqual(strings(geo(l[1])["where"]), ["line": "45.256 -110.45 46.46 -109.48 43.84 -109.86"])
        // The exterior ring only: an interior ring (a hole) is not the polygon's outline.
        XCTAssertEqual(strings(geo(l[2])["where"]), ["polygon": "45.256 -110.45 46.46 -109.48 43.84 -109.86 45.256 -110.45"])
        XCTAssertEqual(strings(geo(l[3])["where"]), ["lower_corner": "42.943 -71.032", "upper_corner": "43.039 -69.856"])
        XCTAssertNil(l[4]["geo"])
    }

    func testGMLElementsOutsideTheirGeometryAreIgnored() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.ns)><channel><title>c</title>
            <item><title>i</title><gml:pos>1 2</gml:pos>
            <georss:where><gml:pos>3 4</gml:pos><gml:Point><gml:posList>5 6</gml:posList></gml:Point></georss:where>
            </item></channel></rss>
            """)
        XCTAssertNil(l[0]["geo"])
    }

    func testW3CGeoPointWrapperAndDirectLatLong() throws {
        let l = try lines("""
            <rss version="2.0" \(Self.ns)><channel><title>c</title>
            <geo:Point><geo:lat>55.701</geo:lat><geo:long>12.552</geo:long></geo:Point>
            <item><title>direct</title><geo:lat>26.58</geo:lat><geo:long>-97.83</geo:long></item>
            <item><title>wrapped</title><geo:Point><geo:lat>-33.86</geo:lat><geo:long>151.21</geo:long></geo:Point></item>
            </channel></rss>
            """)
        XCTAssertEqual(strings(l[0]["geo"]), ["lat": "26.58", "long": "-97.83"])
        XCTAssertEqual(strings(l[1]["geo"]), ["lat": "-33.86", "long": "151.21"])
        XCTAssertEqual(strings(l[2]["geo"]), ["lat": "55.701", "long": "12.552"])
    }

    func testGeoMembersInTheValueModel() throws {
        let docs = try documents(from: Array("""
            <rss version="2.0" \(Self.ns)><channel><title>c</title>
            <item><title>i</title><georss:where><gml:Point><gml:pos>1 2</gml:pos></gml:Point></georss:where>
            <georss:featurename>Here</georss:featurename></item></channel></rss>
            """.utf8))
        let item = try XCTUnwrap(docs.first?.items.first)
        XCTAssertEqual(item.extensions["geo.where.point"], "1 2")
        XCTAssertEqual(item.extensions["geo.featurename"], "Here")
    }
}
