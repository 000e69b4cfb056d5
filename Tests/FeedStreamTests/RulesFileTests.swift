// SPDX-License-Identifier: Apache-2.0
import FeedStream
@_spi(RawRecords) @testable import FeedStreamCore
@testable import FeedStreamSwift
import CFeedStream
import Foundation
import XCTest

// The feed rules have one source, CSources/CFeedStream/feed_rules.def: the C core
// includes it, scripts/generate-rules.py writes the Swift tables, the field enums of
// both languages and SCHEMA.md's element reference from it. These tests fail when a
// generated file is not what the script writes, and check that every rule and every
// namespace of the file does what the file says on every backend (so a rule no corpus
// file exercises, such as wfw:commentRSS or the PodCast-1.0.dtd spelling of the iTunes
// namespace, is still checked in both machines).
final class RulesFileTests: XCTestCase {
    func testGeneratedFilesAreWhatTheScriptWrites() throws {
        try assertGeneratorIsCurrent("scripts/generate-rules.py")
    }

    func testEnumsAgreeWithTheCHeader() {
        XCTAssertEqual(FeedField.allCases.count, Int(CFS_FIELD_COUNT.rawValue))
        XCTAssertEqual(FeedList.allCases.count, Int(CFS_LIST_COUNT.rawValue))
        XCTAssertEqual(SFM.fieldCount, FeedField.allCases.count)
        XCTAssertEqual(SFM.listCount, FeedList.allCases.count)
        XCTAssertEqual(FeedField.podcastMedium.rawValue, Int(CFS_FIELD_PODCAST_MEDIUM.rawValue))
        XCTAssertEqual(FeedList.skipDays.rawValue, Int(CFS_LIST_SKIP_DAYS.rawValue))
        for l in FeedList.allCases {
            XCTAssertEqual(l.columns, cfs_list_columns(cfs_list(UInt32(l.rawValue))), "\(l)")
            XCTAssertEqual(FeedList.columnNames[l.rawValue].count, l.columns, "\(l)")
        }
        // Spec values of their own: a link row is href rel type hreflang title length base.
        XCTAssertEqual(FeedList.links.columns, 7)
        XCTAssertEqual(SFM.baseColumn(FeedList.links.rawValue), 6)
        XCTAssertEqual(SFM.baseColumn(FeedList.enclosures.rawValue), 3)
        XCTAssertEqual(SFM.baseColumn(FeedList.categories.rawValue), -1)
    }

    /// The first namespace URI of each family, and a prefix to write it with.
    private func namespace(family: UInt8) -> String? {
        SwiftRulesTable.namespaces.first { $0.2 == family }?.0
    }

    /// A document with `element` in an item (or, for feed-only rules, in the channel or
    /// feed), in the format of the element's family.
    private func document(family: UInt8, uri: String?, name: String, inItem: Bool, value: String) -> String {
        let el: String
        var decl = ""
        if family == SFM.fCdf {
            // Microsoft CDF: a CHANNEL root in no namespace, with ITEMs.
            let el = "<\(name)>\(value)</\(name)>"
            return inItem ? "<CHANNEL><ITEM>\(el)</ITEM></CHANNEL>" : "<CHANNEL>\(el)</CHANNEL>"
        }
        if family == SFM.fRss {
            el = "<\(name)>\(value)</\(name)>"
        } else if family == SFM.fAtom {
            el = "<\(name)>\(value)</\(name)>"
        } else {
            el = "<x:\(name)>\(value)</x:\(name)>"
            decl = " xmlns:x=\"\(uri!)\""
        }
        if family == SFM.fAtom {
            let ns = uri ?? "http://www.w3.org/2005/Atom"
            return inItem
                ? "<feed xmlns=\"\(ns)\"\(decl)><entry>\(el)</entry></feed>"
                : "<feed xmlns=\"\(ns)\"\(decl)>\(el)</feed>"
        }
        return inItem
            ? "<rss version=\"2.0\"\(decl)><channel><item>\(el)</item></channel></rss>"
            : "<rss version=\"2.0\"\(decl)><channel>\(el)</channel></rss>"
    }

    /// The text of `field` in the first item (or the feed) of `xml`, with `backend`.
    private func fieldText(_ xml: String, _ field: Int, item: Bool, _ backend: FeedBackend) throws -> String? {
        final class Grab: FeedHandler {
            let field: FeedField, item: Bool
            var got: String?
            var error: FeedError?
            init(_ field: FeedField, _ item: Bool) { self.field = field; self.item = item }
            func parser(_ parser: any FeedParser, didParseItem i: FeedItemView) {
                if item && got == nil { got = i.record[field].string }
            }
            func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) {
                if !item { got = feed.record[field].string }
            }
            func parser(_ parser: any FeedParser, didFail error: FeedError) { self.error = error }
        }
        let g = Grab(FeedField(rawValue: field)!, item)
        _ = try backend.makeParser().parse(.bytes(Array(xml.utf8)), handler: g)
        XCTAssertNil(g.error, "\(backend): \(xml)")
        return g.got
    }

    /// Every rule that captures text into a field in a feed or an item: its element's
    /// text lands in that field, on every backend.
    func testEveryTextRuleFillsItsField() throws {
        var checked = 0
        for (i, r) in SwiftRulesTable.rules.enumerated() {
            let (fam, name, scopes, action, target, _, _, _, _) = r
            guard action == SFM.rText || action == SFM.rTextc, target != SFM.noTarget else { continue }
            let inItem = scopes & SFM.scItem != 0
            guard inItem || scopes & SFM.scFeed != 0 else { continue }
            // A rule shadowed by an earlier one for the same element and scope never applies.
            let scope = inItem ? SFM.scItem : SFM.scFeed
            let first = SwiftRulesTable.rules.firstIndex { $0.0 == fam && $0.1 == name && $0.2 & scope != 0 }
            guard first == i else { continue }
            let value = "v\(i)-\(name)"
            let xml = document(family: fam, uri: fam == SFM.fAtom ? nil : namespace(family: fam), name: name,
                               inItem: inItem, value: value)
            for backend in FeedBackend.allCases {
                XCTAssertEqual(try fieldText(xml, Int(target), item: inItem, backend), value,
                               "\(backend): rule \(i) (\(name)) into \(FeedField(rawValue: Int(target))!)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 60)
    }

    /// Every namespace URI of the file (the variant spellings included) is recognized
    /// as its family on every backend: an item-level text rule of the family, written
    /// with that URI, fills its field.
    func testEveryNamespaceURIIsRecognized() throws {
        var checked = 0
        for (uri, _, fam) in SwiftRulesTable.namespaces {
            guard let r = SwiftRulesTable.rules.first(where: {
                $0.0 == fam && $0.3 == SFM.rText && $0.4 != SFM.noTarget && $0.2 & SFM.scItem != 0
            }) else { continue }
            let value = "in-\(uri)"
            let xml: String
            if fam == SFM.fRss {
                // RSS namespaces: an RSS 1.0 (or 0.90) document in that namespace.
                xml = """
                    <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="\(uri)">\
                    <channel><title>c</title></channel><item><\(r.1)>\(value)</\(r.1)></item></rdf:RDF>
                    """
            } else {
                xml = document(family: fam, uri: uri, name: r.1, inItem: true, value: value)
            }
            for backend in FeedBackend.allCases {
                XCTAssertEqual(try fieldText(xml, Int(r.4), item: true, backend), value, "\(backend): \(uri)")
            }
            checked += 1
        }
        // Spec values: the namespaces feeds are known to use, variants included.
        let uris = Set(SwiftRulesTable.namespaces.map(\.0))
        for u in ["http://www.itunes.com/DTDs/PodCast-1.0.dtd", "http://search.yahoo.com/mrss/",
                  "http://video.search.yahoo.com/mrss", "http://wellformedweb.org/CommentAPI/",
                  "http://purl.org/dc/terms/", "http://purl.org/atom/ns#"] {
            XCTAssertTrue(uris.contains(u), u)
        }
        XCTAssertGreaterThan(checked, 20)
    }

    /// Priorities as the file states them, on a case with values of its own: Atom
    /// `updated` beats `dc:date` whatever the order, and `dc:date` fills `updated` (not
    /// `published`, as feedparser reads it) when it is alone.
    func testPriorityColumn() throws {
        let both = """
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/"><entry>\
            <dc:date>2001-01-01</dc:date><updated>2024-01-01T00:00:00Z</updated><dc:date>2002-02-02</dc:date>\
            </entry></feed>
            """
        let alone = """
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><item>\
            <dc:date>2001-01-01</dc:date></item></channel></rss>
            """
        for backend in FeedBackend.allCases {
            XCTAssertEqual(try fieldText(both, FeedField.updated.rawValue, item: true, backend), "2024-01-01T00:00:00Z")
            XCTAssertEqual(try fieldText(alone, FeedField.updated.rawValue, item: true, backend), "2001-01-01")
            XCTAssertNil(try fieldText(alone, FeedField.published.rawValue, item: true, backend))
        }
    }
}

/// The rules, the record layout and SCHEMA.md's member tables agree: every field or
/// list a rule fills is written by the layout (nothing is gathered only to be dropped),
/// and the SCHEMA.md row of the member it is written as names the rule's element.
final class RulesLayoutSchemaTests: XCTestCase {
    /// Top-level member key for every field and list the members write.
    private func owners(_ members: [Member], top: String? = nil, into map: inout [String: String]) {
        for m in members {
            switch m {
            case .string(let k, let f), .url(let k, let f, _), .date(let k, _, let f):
                map["f\(f.rawValue)"] = top ?? "\(k)"
            case .textConstruct(let keys, let f):
                map["f\(f.rawValue)"] = top ?? "\(keys.value.value)"
                // An RSS item's summary is written as the summary, else the content
                // (FeedRecordView.text).
                if f == .summary { map["f\(FeedField.rssSummary.rawValue)"] = top ?? "\(keys.value.value)" }
            case .permalink: map["f\(FeedField.guidPermalink.rawValue)"] = top ?? "guid_is_permalink"
            case .primaryLink: break
            case .rows(let k, let l, _), .strings(let k, let l), .persons(let k, let l): map["l\(l.rawValue)"] = top ?? "\(k)"
            case .laterRows(let k, let l, _): map["l\(l.rawValue)"] = top ?? "\(k)"
            case .firstRow(let l, let columns):
                // Its cells are members of the enclosing object; its children's lists too.
                map["l\(l.rawValue)"] = top ?? "\(columns.first!.key)"
                for c in columns { if let ch = c.children { map["l\(ch.list.rawValue)"] = top ?? "\(c.key)" } }
            case .authors: map["l\(FeedList.authors.rawValue)"] = top ?? "authors"
            case .categories: map["l\(FeedList.categories.rawValue)"] = top ?? "categories"
            case .extensions: map["l\(FeedList.extensions.rawValue)"] = top ?? "extensions"
            case .person, .flag: break   // a second view of a field a .string member writes
            case .derived(let k, let f, let d):
                // The field as written, or its default; the other derivations are a
                // second view of a field a .string member writes.
                if case .orDefault = d.value { map["f\(f.rawValue)"] = top ?? "\(k)" }
            case .object(let k, let inner, _): owners(Array(inner), top: top ?? "\(k)", into: &map)
            }
        }
    }

    /// The rows of a SCHEMA.md table: first column -> third column.
    private func table(_ schema: String, after heading: String) -> [(String, String)] {
        guard let r = schema.range(of: heading) else { return [] }
        let rest = schema[r.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return rest[..<end].split(separator: "\n").compactMap { line in
            let cols = line.split(separator: "|", omittingEmptySubsequences: false)
            guard line.hasPrefix("| `"), cols.count >= 4 else { return nil }
            return (String(cols[1]), String(cols[3]))
        }
    }

    func testEveryRuleIsWrittenAndDocumented() throws {
        let schema = try String(contentsOf: Paths.repo.appendingPathComponent("docs/SCHEMA.md"), encoding: .utf8)
        var itemOwners: [String: String] = [:], feedOwners: [String: String] = [:]
        owners(RecordLayout.item.members, into: &itemOwners)
        owners(RecordLayout.itemFeed.members, into: &itemOwners)
        owners(RecordLayout.feed.members, into: &feedOwners)
        let itemRows = table(schema, after: "## Item lines"), feedRows = table(schema, after: "## Feed lines")
        var problems: [String] = []
        let listActions: Set<UInt8> = [SFM.rLtext, SFM.rLattr, SFM.rAlink, SFM.rPerson]
        for (_, name, scopes, action, target, _, map, _, _) in SwiftRulesTable.rules {
            // What the rule fills: its target, and for FATTR the fields its attribute map sets.
            var keys: [String] = []
            if target != SFM.noTarget { keys.append((listActions.contains(action) ? "l" : "f") + "\(target)") }
            if action == SFM.rFattr && map != SFM.none {
                for (_, f) in SwiftRulesTable.maps[Int(map)] { keys.append("f\(f)") }
            }
            for (scope, owners, rows) in [(SFM.scItem, itemOwners, itemRows), (SFM.scFeed, feedOwners, feedRows)]
            where scopes & scope != 0 {
                for key in keys {
                    guard let member = owners[key] else {
                        problems.append("\(name) (\(scope == SFM.scItem ? "item" : "feed")): \(key) is not written")
                        continue
                    }
                    guard var row = rows.first(where: { $0.0.contains("`\(member)`") }) else {
                        problems.append("\(name): no SCHEMA.md row for `\(member)`")
                        continue
                    }
                    if row.1.contains("as for items"), let item = itemRows.first(where: { $0.0.contains("`\(member)`") }) {
                        row.1 += item.1
                    }
                    let named = ["`\(name)`", ":\(name)`", "/\(name)`", "`\(name)/", "(`\(name)`"]
                        .contains { row.1.contains($0) }
                    if !named { problems.append("\(name): the SCHEMA.md row of `\(member)` does not name it") }
                }
            }
        }
        XCTAssertEqual(problems, [], problems.joined(separator: "\n"))
    }
}

extension RulesLayoutSchemaTests {
    /// `dcterms:created` on a channel was gathered and never written; it is a feed member now.
    func testFeedCreatedIsWritten() throws {
        let xml = """
            <rss version="2.0" xmlns:dcterms="http://purl.org/dc/terms/"><channel><title>t</title>\
            <dcterms:created>2004-02-29T12:00:00Z</dcterms:created></channel></rss>
            """
        for backend in FeedBackend.allCases {
            let text = try jsonLines(.bytes(Array(xml.utf8)), source: "f", parser: backend.makeParser()).text
            XCTAssertTrue(text.contains(#""created":"2004-02-29T12:00:00Z","created_raw":"2004-02-29T12:00:00Z""#),
                          "\(backend): \(text)")
        }
    }
}

/// The formats are written once (`CFS_FORMAT` in feed_rules.def): the C core's names and
/// values and Swift's cases agree, one by one.
final class FormatTableTests: XCTestCase {
    func testEveryFormatHasOneNameAndValueInBothLanguages() {
        XCTAssertEqual(FeedFormat.allCases.count, 19)
        for (i, f) in FeedFormat.allCases.enumerated() {
            let c = cfs_format(rawValue: UInt32(i))
            XCTAssertEqual(String(cString: cfs_format_name(c)), f.rawValue)
            XCTAssertEqual(FeedFormat(core: i), f)
            XCTAssertEqual("\(f.name)", f.rawValue)
        }
        XCTAssertEqual(FeedFormat(core: 99), .unknown)
        XCTAssertEqual(CFS_FORMAT_RSS11.rawValue, 17, "a new format is appended: the C values do not move")
        XCTAssertEqual(CFS_FORMAT_REDIRECT.rawValue, 18)
        XCTAssertEqual(String(cString: cfs_format_name(CFS_FORMAT_RSS10)), "rss10")
    }
}

/// SCHEMA.md's "Namespaces" table is generated from the CFS_NAMESPACE lines of
/// feed_rules.def (with their notes and the families' titles): every namespace the
/// machines recognize is in that section, each with its note.
final class NamespaceTableTests: XCTestCase {
    func testEveryRecognizedNamespaceIsDocumented() throws {
        let schema = try String(contentsOf: Paths.repo.appendingPathComponent("docs/SCHEMA.md"), encoding: .utf8)
        let start = try XCTUnwrap(schema.range(of: "\n## Namespaces\n"))
        let end = schema.range(of: "\n## ", range: start.upperBound..<schema.endIndex)?.lowerBound ?? schema.endIndex
        let section = schema[start.upperBound..<end]
        XCTAssertFalse(SwiftRulesTable.namespaces.isEmpty)
        for (uri, _, _) in SwiftRulesTable.namespaces {
            XCTAssertTrue(section.contains("`\(uri)`"), "\(uri) is recognized but not in SCHEMA.md's Namespaces table")
        }
        // The notes that were comments in the rule file: what a misused URI is.
        XCTAssertTrue(section.contains("| iTunes | `http://www.itunes.com/dtds/podcast-1.0.dtd`, "))
        XCTAssertTrue(section.contains("`http://backend.userland.com/rss2` (wrong, but used)"))
        XCTAssertTrue(section.contains("`http://web.resource.org/cc/` (`cc:`)"))
    }
}
