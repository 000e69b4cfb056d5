// SPDX-License-Identifier: Apache-2.0
@testable import FeedStreamCore
import Foundation
import XCTest

/// docs/SCHEMA.md "feedparser's keys" names, for every key of feedparser's reference
/// documentation, the member that holds its value or why none does; every member the
/// table names is one the lines have.
final class FeedparserKeysTests: XCTestCase {
    /// The keys of feedparser's reference documentation ("Reference", every page).
    static let referenceKeys = """
        bozo bozo_exception encoding entries etag feed headers href modified namespaces status version
        feed.author feed.author_detail feed.cloud feed.contributors feed.docs feed.errorreportsto
        feed.generator feed.generator_detail feed.icon feed.id feed.image feed.info feed.info_detail
        feed.language feed.license feed.link feed.links feed.logo feed.published feed.published_parsed
        feed.publisher feed.publisher_detail feed.rights feed.rights_detail feed.subtitle feed.subtitle_detail
        feed.tags feed.textinput feed.title feed.title_detail feed.ttl feed.updated feed.updated_parsed
        entries[i].author entries[i].author_detail entries[i].comments entries[i].content
        entries[i].contributors entries[i].created entries[i].created_parsed entries[i].enclosures
        entries[i].expired entries[i].expired_parsed entries[i].id entries[i].license entries[i].link
        entries[i].links entries[i].published entries[i].published_parsed entries[i].publisher
        entries[i].publisher_detail entries[i].source entries[i].source.author entries[i].source.author_detail
        entries[i].source.contributors entries[i].source.icon entries[i].source.id entries[i].source.link
        entries[i].source.links entries[i].source.logo entries[i].source.rights entries[i].source.rights_detail
        entries[i].source.subtitle entries[i].source.subtitle_detail entries[i].source.title
        entries[i].source.title_detail entries[i].source.updated entries[i].source.updated_parsed
        entries[i].summary entries[i].summary_detail entries[i].tags entries[i].title entries[i].title_detail
        entries[i].updated entries[i].updated_parsed
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    /// The table's rows: (keys of the first column, the second column's text).
    private func rows() throws -> [(keys: [String], text: String)] {
        let schema = try String(contentsOf: Paths.repo.appendingPathComponent("docs/SCHEMA.md"), encoding: .utf8)
        let section = try XCTUnwrap(schema.components(separatedBy: "\n### feedparser's keys\n").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        let code = try NSRegularExpression(pattern: "`([^`]+)`")
        return section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let keys = code.matches(in: cells[1], range: NSRange(cells[1].startIndex..., in: cells[1]))
                .map { String(cells[1][Range($0.range(at: 1), in: cells[1])!]) }
            return (keys, cells[2])
        }
    }

    func testEveryReferenceKeyIsListed() throws {
        let listed = try rows().flatMap(\.keys)
        XCTAssertEqual(Self.referenceKeys.count, 87)
        XCTAssertEqual(Set(Self.referenceKeys).subtracting(listed), [], "keys the table does not list")
        XCTAssertEqual(Set(listed).subtracting(Self.referenceKeys), [], "keys that are not feedparser's")
        XCTAssertEqual(listed.count, Set(listed).count, "a key listed twice")
    }

    /// Every member the second column names (a `name` or `a.b` in backquotes, outside "not
    /// read" rows) is a member of the lines: a dotted one by its path, a bare one at the
    /// top or as a sub-member of an object the row names.
    func testEveryNamedMemberExists() throws {
        var members = Set<String>()
        func walk(_ fields: [MemberField], _ prefix: String) {
            for f in fields {
                members.insert(prefix + f.key)
                var t = f.type
                var path = prefix + f.key
                while case .array(let inner) = t { t = inner; path += "[]" }
                if case .object(let sub) = t { walk(sub, path + ".") }
            }
        }
        walk(RecordSchema.fields(.item), "")
        walk(RecordSchema.fields(.feed), "")
        // The last component of every member: a sub-member named alone, after its object.
        let leaves = Set(members.map { String($0.split(separator: ".").last!) })
        let name = try NSRegularExpression(pattern: #"`([a-z_]+(?:\[\])?(?:\.[a-z_]+)*)`"#)
        var named = 0
        for row in try rows() where !row.text.contains("not read") {
            for m in name.matches(in: row.text, range: NSRange(row.text.startIndex..., in: row.text)) {
                let member = String(row.text[Range(m.range(at: 1), in: row.text)!])
                if member.contains(".") {
                    XCTAssertTrue(members.contains(member), "\(member) is not a member of the lines (\(row.keys))")
                } else {
                    XCTAssertTrue(members.contains(member) || leaves.contains(member),
                                  "\(member) is not a member of the lines (\(row.keys))")
                }
                named += 1
            }
        }
        XCTAssertGreaterThan(named, 120)
    }
}
