import FeedStream
import Foundation
import XCTest

/// Issue 16's classes, from the specifications (RSS 2.0, RFC 5322, W3C-DTF, RFC 822,
/// DCMI terms, ...), each on every backend (linesFromEveryBackend checks they agree).
final class CoverageTests: XCTestCase {
    private func lines(_ xml: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try linesFromEveryBackend(xml, file: file, line: line)
    }

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
            ["name": ""],
        ])
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
}
