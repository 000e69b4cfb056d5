import FeedStream
@_spi(RawRecords) @testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

// Tests of the pure-Swift feed state machine (SwiftFeedMachine), driven by event
// sequences: by hand, or replayed from XML by a small test-only tokenizer (MiniXML
// below: UTF-8, namespaces, the predefined and numeric entities, CDATA, DOCTYPE ids).
// The machine must deliver exactly what the C core delivers for the same document, so
// most tests compare a full dump of every raw record (every field span, absent vs empty,
// presence bits, every row of every list) with ExpatFeedParser's.

// MARK: - Dumps

/// Records every event with a complete dump of the raw records.
final class RawDump: FeedHandler {
    var lines: [String] = []
    var items: [FeedItem] = []
    var feeds: [Feed] = []

    static func span(_ s: CoreSpan) -> String {
        guard let p = s.ptr else { return "-" }
        let b = UnsafeBufferPointer(start: p, count: s.len)
        return "\"" + String(decoding: b, as: UTF8.self).replacingOccurrences(of: "\u{1}", with: "\\1") + "\""
    }

    static func dump(_ r: RawRecord) -> String {
        var out = "present=" + (0..<SFM.presenceWords).map { String(r.present[$0], radix: 16) }.joined(separator: ",")
        for i in 0..<FeedField.allCases.count where r.fields[i].ptr != nil {
            out += " \(FeedField(rawValue: i)!)=\(span(r.fields[i]))"
        }
        for l in FeedList.allCases {
            let n = r.counts[l.rawValue]
            guard n > 0, let rows = r.rows[l.rawValue] else { continue }
            out += " \(l)["
            for k in 0..<n * l.columns { out += (k % l.columns == 0 && k > 0 ? " | " : " ") + span(rows[k]) }
            out += " ]"
        }
        return out
    }

    func parser(_ parser: any FeedParser, didStartDocument document: Int) { lines.append("start \(document)") }
    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) {
        items.append(FeedItem(item))
        lines.append("item \(item.index) truncated=\(item.isTruncated) \(RawDump.dump(item.record.raw))")
        lines.append("  feed \(item.feed.document) \(item.feed.format) \(item.feed.itemCount) \(RawDump.dump(item.feed.record.raw))")
    }
    func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) {
        feeds.append(Feed(feed))
        lines.append("feed \(feed.document) \(feed.format) \(feed.itemCount) \(RawDump.dump(feed.record.raw))")
    }
    func parser(_ parser: any FeedParser, didFinishDocument document: Int) { lines.append("finish \(document)") }
    func parser(_ parser: any FeedParser, didFail error: FeedError) { lines.append("fail \(error.document) \(error.code)") }
}

// MARK: - Replaying XML as events

/// A small non-validating XML tokenizer for tests: enough for the fixtures (UTF-8 only,
/// no entity declarations). Returns nil for what it does not handle.
struct MiniXML {
    enum Event {
        case doctype(publicID: [UInt8]?, systemID: [UInt8]?)
        case start(uri: [UInt8], local: [UInt8], attributes: [(uri: [UInt8], local: [UInt8], value: [UInt8])])
        case end(local: [UInt8])
        case text([UInt8])
    }

    static let xmlNS = Array("http://www.w3.org/XML/1998/namespace".utf8)

    static func events(_ input: [UInt8]) -> [Event]? {
        var b = input
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
        // Line ends: CRLF and CR become LF.
        var norm: [UInt8] = []
        norm.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if b[i] == 13 {
                norm.append(10)
                if i + 1 < b.count && b[i + 1] == 10 { i += 1 }
            } else {
                norm.append(b[i])
            }
            i += 1
        }
        b = norm
        if let decl = String(bytes: b.prefix(200), encoding: .isoLatin1), decl.hasPrefix("<?xml"),
           let end = decl.range(of: "?>")
        {
            let head = decl[..<end.lowerBound].lowercased()
            if let r = head.range(of: "encoding") {
                let rest = head[r.upperBound...]
                let ok = ["utf-8", "utf8", "us-ascii"].contains { rest.contains("\"\($0)\"") || rest.contains("'\($0)'") }
                if !ok { return nil }
            }
        }
        var events: [Event] = []
        var nsStack: [[([UInt8], [UInt8])]] = []   // (prefix, uri) per open element
        var names: [[UInt8]] = []
        var p = 0
        let n = b.count

        func starts(_ s: String, _ at: Int) -> Bool {
            let u = Array(s.utf8)
            return at + u.count <= n && Array(b[at..<(at + u.count)]) == u
        }
        func find(_ s: String, _ from: Int) -> Int? {
            let u = Array(s.utf8)
            var k = from
            while k + u.count <= n {
                if b[k] == u[0] && Array(b[k..<(k + u.count)]) == u { return k }
                k += 1
            }
            return nil
        }
        func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }
        func isNameChar(_ c: UInt8) -> Bool {
            !(isSpace(c) || c == UInt8(ascii: "=") || c == UInt8(ascii: ">") || c == UInt8(ascii: "/")
                || c == UInt8(ascii: "<") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'"))
        }
        func decode(_ s: ArraySlice<UInt8>, attribute: Bool) -> [UInt8]? {
            var out: [UInt8] = []
            var k = s.startIndex
            while k < s.endIndex {
                let c = s[k]
                if c == UInt8(ascii: "&") {
                    guard let semi = s[k...].firstIndex(of: UInt8(ascii: ";")) else { return nil }
                    let name = String(decoding: s[(k + 1)..<semi], as: UTF8.self)
                    switch name {
                    case "lt": out.append(UInt8(ascii: "<"))
                    case "gt": out.append(UInt8(ascii: ">"))
                    case "amp": out.append(UInt8(ascii: "&"))
                    case "quot": out.append(UInt8(ascii: "\""))
                    case "apos": out.append(UInt8(ascii: "'"))
                    default:
                        guard name.hasPrefix("#") else { return nil }
                        let v = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16) : UInt32(name.dropFirst(), radix: 10)
                        guard let v, let u = Unicode.Scalar(v) else { return nil }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    }
                    k = semi + 1
                    continue
                }
                if c == UInt8(ascii: "<") { return nil }
                out.append(attribute && isSpace(c) ? 32 : c)
                k += 1
            }
            return out
        }
        func resolve(_ prefix: [UInt8]) -> [UInt8]? {
            if prefix == Array("xml".utf8) { return xmlNS }
            for frame in nsStack.reversed() {
                for (pfx, uri) in frame.reversed() where pfx == prefix { return uri }
            }
            return prefix.isEmpty ? [] : nil
        }

        var rootDone = false
        while p < n && !rootDone {
            if b[p] != UInt8(ascii: "<") {
                let q = b[p...].firstIndex(of: UInt8(ascii: "<")) ?? n
                if !names.isEmpty {
                    guard let t = decode(b[p..<q], attribute: false) else { return nil }
                    if !t.isEmpty { events.append(.text(t)) }
                }
                p = q
                continue
            }
            if starts("<?", p) {
                guard let e = find("?>", p) else { return nil }
                p = e + 2
            } else if starts("<!--", p) {
                guard let e = find("-->", p) else { return nil }
                p = e + 3
            } else if starts("<![CDATA[", p) {
                guard let e = find("]]>", p) else { return nil }
                let t = Array(b[(p + 9)..<e])
                if !t.isEmpty { events.append(.text(t)) }
                p = e + 3
            } else if starts("<!DOCTYPE", p) {
                var k = p + 9
                var ids: [[UInt8]] = []
                var kind = ""
                while k < n && b[k] != UInt8(ascii: ">") && b[k] != UInt8(ascii: "[") {
                    if b[k] == UInt8(ascii: "\"") || b[k] == UInt8(ascii: "'") {
                        guard let e = b[(k + 1)...].firstIndex(of: b[k]) else { return nil }
                        ids.append(Array(b[(k + 1)..<e]))
                        k = e + 1
                    } else {
                        if starts("PUBLIC", k) { kind = "PUBLIC" }
                        if starts("SYSTEM", k) { kind = "SYSTEM" }
                        k += 1
                    }
                }
                if k < n && b[k] == UInt8(ascii: "[") {
                    guard let e = find("]", k) else { return nil }
                    if Array(b[k...e]).count > 0, find("<!ENTITY", k).map({ $0 < e }) == true { return nil }
                    k = e
                    while k < n && b[k] != UInt8(ascii: ">") { k += 1 }
                }
                if kind == "PUBLIC" {
                    events.append(.doctype(publicID: ids.first, systemID: ids.count > 1 ? ids[1] : nil))
                } else if kind == "SYSTEM" {
                    events.append(.doctype(publicID: nil, systemID: ids.first))
                } else {
                    events.append(.doctype(publicID: nil, systemID: nil))
                }
                p = k + 1
            } else if starts("</", p) {
                guard let e = b[p...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
                var name = Array(b[(p + 2)..<e])
                while let last = name.last, isSpace(last) { name.removeLast() }
                guard let open = names.popLast(), open == name else { return nil }
                let local = name.split(separator: UInt8(ascii: ":"), maxSplits: 1).last.map(Array.init) ?? []
                events.append(.end(local: local))
                nsStack.removeLast()
                p = e + 1
                if names.isEmpty { rootDone = true }
            } else {
                var k = p + 1
                let ns0 = k
                while k < n && isNameChar(b[k]) { k += 1 }
                let qname = Array(b[ns0..<k])
                var raw: [([UInt8], [UInt8])] = []
                var empty = false
                while true {
                    while k < n && isSpace(b[k]) { k += 1 }
                    guard k < n else { return nil }
                    if b[k] == UInt8(ascii: ">") { k += 1; break }
                    if b[k] == UInt8(ascii: "/") && k + 1 < n && b[k + 1] == UInt8(ascii: ">") {
                        empty = true
                        k += 2
                        break
                    }
                    let a0 = k
                    while k < n && isNameChar(b[k]) { k += 1 }
                    let aname = Array(b[a0..<k])
                    while k < n && isSpace(b[k]) { k += 1 }
                    guard k < n, b[k] == UInt8(ascii: "=") else { return nil }
                    k += 1
                    while k < n && isSpace(b[k]) { k += 1 }
                    guard k < n, b[k] == UInt8(ascii: "\"") || b[k] == UInt8(ascii: "'") else { return nil }
                    guard let e = b[(k + 1)...].firstIndex(of: b[k]) else { return nil }
                    guard let v = decode(b[(k + 1)..<e], attribute: true) else { return nil }
                    raw.append((aname, v))
                    k = e + 1
                }
                var decls: [([UInt8], [UInt8])] = []
                var attrs: [(uri: [UInt8], local: [UInt8], value: [UInt8])] = []
                for (name, value) in raw {
                    if name == Array("xmlns".utf8) {
                        decls.append(([], value))
                    } else if name.starts(with: Array("xmlns:".utf8)) {
                        decls.append((Array(name.dropFirst(6)), value))
                    }
                }
                nsStack.append(decls)
                for (name, value) in raw where !(name == Array("xmlns".utf8) || name.starts(with: Array("xmlns:".utf8))) {
                    let parts = name.split(separator: UInt8(ascii: ":"), maxSplits: 1).map(Array.init)
                    if parts.count == 2 {
                        guard let uri = resolve(parts[0]) else { return nil }
                        attrs.append((uri, parts[1], value))
                    } else {
                        attrs.append(([], name, value))
                    }
                }
                let parts = qname.split(separator: UInt8(ascii: ":"), maxSplits: 1).map(Array.init)
                let uri: [UInt8]
                let local: [UInt8]
                if parts.count == 2 {
                    guard let u = resolve(parts[0]) else { return nil }
                    uri = u
                    local = parts[1]
                } else {
                    uri = resolve([]) ?? []
                    local = qname
                }
                events.append(.start(uri: uri, local: local, attributes: attrs))
                names.append(qname)
                p = k
                if empty {
                    events.append(.end(local: local))
                    nsStack.removeLast()
                    names.removeLast()
                    if names.isEmpty { rootDone = true }
                }
            }
        }
        return rootDone ? events : nil
    }
}

/// Drives a SwiftFeedMachine with events as expat.c drives the C machine. The machine
/// has no driver here, so the events name a stand-in parser.
func replay(_ events: [MiniXML.Event], machine: SwiftFeedMachine, handler: any FeedHandler, document: Int = 1,
            textPiece: Int = .max, encoding: String? = nil) throws {
    let parser = machine.parser ?? SwiftFeedParser()
    machine.deliver(to: handler, as: parser)
    machine.begin(document: document)
    if let encoding { machine.encoding(encoding) }
    try handler.parser(parser, didStartDocument: document)
    func withBytes<R>(_ a: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        // Never a nil base address, as the real tokenizer guarantees.
        if a.isEmpty { return try body(.emptyBytes) }
        return try a.withUnsafeBytes(body)
    }
    for event in events {
        if machine.rootClosed { break }
        switch event {
        case .doctype(let pub, let sys):
            let pubBuf = pub.map { p -> UnsafeRawBufferPointer in
                let m = UnsafeMutableRawBufferPointer.allocate(byteCount: max(p.count, 1), alignment: 1)
                m.copyBytes(from: p)
                return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(m)[0..<p.count])
            }
            let sysBuf = sys.map { p -> UnsafeRawBufferPointer in
                let m = UnsafeMutableRawBufferPointer.allocate(byteCount: max(p.count, 1), alignment: 1)
                m.copyBytes(from: p)
                return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(m)[0..<p.count])
            }
            machine.doctype(publicID: pubBuf, systemID: sysBuf)
            pubBuf.map { UnsafeMutableRawPointer(mutating: $0.baseAddress!).deallocate() }
            sysBuf.map { UnsafeMutableRawPointer(mutating: $0.baseAddress!).deallocate() }
        case .start(let uri, let local, let attributes):
            if machine.isSkipping {
                machine.skipStart()
                continue
            }
            // Copy everything into one block so every buffer outlives the call.
            let attrs = attributes.prefix(64)
            var storage: [[UInt8]] = [uri, local]
            for a in attrs { storage += [a.uri, a.local, a.value] }
            let total = storage.reduce(0) { $0 + $1.count } + 1
            let block = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 1)
            defer { block.deallocate() }
            var bufs: [UnsafeRawBufferPointer] = []
            var off = 0
            for s in storage {
                s.withUnsafeBytes { (block + off).copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(block), byteCount: s.count) }
                bufs.append(UnsafeRawBufferPointer(start: block + off, count: s.count))
                off += s.count
            }
            var xattrs: [XMLAttribute] = []
            for i in 0..<attrs.count {
                xattrs.append(XMLAttribute(uri: bufs[2 + 3 * i], local: bufs[3 + 3 * i], value: bufs[4 + 3 * i]))
            }
            try xattrs.withUnsafeBufferPointer { try machine.start(uri: bufs[0], local: bufs[1], attributes: $0) }
        case .end(let local):
            if machine.isSkipping {
                machine.skipEnd()
                continue
            }
            try withBytes(local) { try machine.end(local: $0) }
        case .text(let t):
            guard machine.wantsText else { continue }
            var k = 0
            while k < t.count {
                let e = min(t.count, k + min(textPiece, t.count - k))
                Array(t[k..<e]).withUnsafeBytes { machine.text($0) }
                k = e
            }
        }
    }
    let error: FeedError? = machine.notFeed
        ? FeedError(code: .notAFeed, message: "root element is not rss, rdf:RDF or feed", document: document, line: 1,
                    column: 1)
        : nil
    try machine.finish(error: error)
}

/// The machine's dump of a document, or nil when MiniXML cannot read it.
func swiftDump(_ xml: [UInt8], maxItemBytes: Int = 0, textPiece: Int = .max, machine: SwiftFeedMachine? = nil)
    throws -> RawDump?
{
    guard let events = MiniXML.events(xml) else { return nil }
    let dump = RawDump()
    // The charset the tokenizer would tell the machine: the declared one (MiniXML reads
    // ASCII-compatible documents only).
    let head = String(decoding: xml.prefix(200), as: UTF8.self)
    let declared = head.range(of: #"^(\uFEFF)?<\?xml[^>]*encoding=["']([A-Za-z0-9._-]+)["']"#, options: .regularExpression)
        .flatMap { r in head[r].range(of: #"[A-Za-z0-9._-]+["']$"#, options: .regularExpression).map { String(head[$0].dropLast()) } }
    try replay(events, machine: machine ?? SwiftFeedMachine(maxItemBytes: maxItemBytes), handler: dump,
               textPiece: textPiece, encoding: declared.flatMap { XMLTranscoder.named($0)?.name })
    return dump
}

func expatDump(_ xml: [UInt8], maxItemBytes: Int = 0) throws -> RawDump {
    let dump = RawDump()
    try ExpatFeedParser(maxItemBytes: maxItemBytes).parse(.bytes(xml), handler: dump)
    return dump
}


// MARK: - Tests

final class SwiftFeedMachineTests: XCTestCase {
    private func assertSameAsC(_ xml: String, maxItemBytes: Int = 0, file: StaticString = #filePath, line: UInt = #line)
        throws -> RawDump
    {
        let bytes = Array(xml.utf8)
        let mine = try XCTUnwrap(try swiftDump(bytes, maxItemBytes: maxItemBytes), "MiniXML could not read it",
                                 file: file, line: line)
        let c = try expatDump(bytes, maxItemBytes: maxItemBytes)
        XCTAssertEqual(mine.lines.count, c.lines.count, file: file, line: line)
        for (a, b) in zip(mine.lines, c.lines) where a != b {
            XCTFail("swift: \(a)\n    c: \(b)", file: file, line: line)
        }
        return mine
    }

    /// An RSS 2.0 item as a hand-made event sequence.
    /// The rule table's hash spreads the rules (no chain longer than 6, most buckets
    /// holding at most two), and the chain of each rule's name finds the rule (or an
    /// earlier one of the same family and name, as table order has it).
    func testTheRuleHashSpreadsTheRulesAndEveryRuleIsInItsChain() {
        let t = SwiftRules.shared
        var lengths = [Int](repeating: 0, count: SFM.hashSize)
        for b in 0..<SFM.hashSize {
            var i = t.head[b]
            while i != 0xFFFF { lengths[b] += 1; i = t.next[Int(i)] }
        }
        XCTAssertEqual(lengths.reduce(0, +), t.ruleCount)
        XCTAssertLessThanOrEqual(lengths.max()!, 6, "\(lengths.sorted().suffix(8))")
        XCTAssertGreaterThan(lengths.filter { $0 > 0 }.count, t.ruleCount / 3)
        for r in 0..<t.ruleCount {
            let rule = t.rules[r]
            var i = t.head[SwiftRules.hash(rule.fam, rule.name, rule.nameLen)]
            var found = false
            while i != 0xFFFF && !found {
                let c = t.rules[Int(i)]
                found = c.fam == rule.fam && c.nameLen == rule.nameLen && bytesEqual(c.name, rule.name, c.nameLen)
                i = t.next[Int(i)]
            }
            XCTAssertTrue(found, "rule \(r)")
        }
    }

    func testRSSItemFromHandMadeEvents() throws {
        let m = SwiftFeedMachine(maxItemBytes: 0)
        let dump = RawDump()
        let ev: [MiniXML.Event] = [
            .start(uri: [], local: bytes("rss"), attributes: [([], bytes("version"), bytes("2.0"))]),
            .start(uri: [], local: bytes("channel"), attributes: []),
            .start(uri: [], local: bytes("title"), attributes: []), .text(bytes("Chan")), .end(local: bytes("title")),
            .start(uri: [], local: bytes("item"), attributes: []),
            .start(uri: [], local: bytes("title"), attributes: []), .text(bytes("A & ")), .text(bytes("B")),
            .end(local: bytes("title")),
            .start(uri: [], local: bytes("link"), attributes: []), .text(bytes("https://e.com/a")),
            .end(local: bytes("link")),
            .start(uri: [], local: bytes("guid"), attributes: []), .text(bytes("https://e.com/a")),
            .end(local: bytes("guid")),
            .start(uri: [], local: bytes("category"), attributes: [([], bytes("domain"), bytes("http://d"))]),
            .text(bytes("News")), .end(local: bytes("category")),
            .start(uri: [], local: bytes("enclosure"), attributes: [
                ([], bytes("url"), bytes("https://e.com/a.mp3")), ([], bytes("length"), bytes("123")),
                ([], bytes("type"), bytes("audio/mpeg")),
            ]),
            .end(local: bytes("enclosure")),
            .start(uri: [], local: bytes("unknown"), attributes: []),
            .start(uri: [], local: bytes("title"), attributes: []), .end(local: bytes("title")),
            .end(local: bytes("unknown")),
            .end(local: bytes("item")),
            .end(local: bytes("channel")),
            .end(local: bytes("rss")),
        ]
        try replay(ev, machine: m, handler: dump)
        XCTAssertTrue(m.rootClosed)
        XCTAssertFalse(m.notFeed)
        XCTAssertEqual(m.items, 1)
        let item = try XCTUnwrap(dump.items.first)
        XCTAssertEqual(item.title?.value, "A & B")
        XCTAssertEqual(item.title?.type, "text")
        XCTAssertEqual(item.link, "https://e.com/a")
        XCTAssertEqual(item.id, "https://e.com/a")
        XCTAssertEqual(item.guidIsPermalink, true)
        XCTAssertEqual(item.categories.first?.term, "News")
        XCTAssertEqual(item.categories.first?.scheme, "http://d")
        XCTAssertEqual(item.enclosures.first?.url, "https://e.com/a.mp3")
        XCTAssertEqual(item.enclosures.first?.type, "audio/mpeg")
        XCTAssertEqual(item.enclosures.first?.length, "123")
        XCTAssertEqual(dump.feeds.first?.format, .rss20)
        XCTAssertEqual(dump.feeds.first?.title?.value, "Chan")
        XCTAssertEqual(dump.feeds.first?.itemCount, 1)
        XCTAssertEqual(dump.lines.first, "start 1")
        XCTAssertEqual(dump.lines.last, "finish 1")

        // The same through XML, against the C machine.
        _ = try assertSameAsC("""
            <rss version="2.0"><channel><title>Chan</title><item><title>A &amp; B</title>\
            <link>https://e.com/a</link><guid>https://e.com/a</guid>\
            <category domain="http://d">News</category>\
            <enclosure url="https://e.com/a.mp3" length="123" type="audio/mpeg"/>\
            <unknown><title/></unknown></item></channel></rss>
            """)
    }

    func testRSSGuidPermalinkAndPriorities() throws {
        let d = try assertSameAsC("""
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
            <dc:date>2020-01-01</dc:date><lastBuildDate>Tue, 02 Jan 2020 00:00:00 GMT</lastBuildDate>
            <item><dc:date>2021-01-01T00:00:00Z</dc:date><pubDate>Fri, 01 Jan 2021 10:00:00 GMT</pubDate>
            <guid isPermaLink="false">x1</guid><dc:identifier>dcid</dc:identifier>
            <dc:title>dc title</dc:title><title>rss title</title><description>d1</description>
            <description>d2</description></item>
            <item><pubDate>Sat, 02 Jan 2021 10:00:00 GMT</pubDate><dc:date>2021-01-02T00:00:00Z</dc:date>
            <dc:identifier>dcid</dc:identifier><guid>x2</guid></item>
            </channel></rss>
            """)
        XCTAssertEqual(d.items[0].published?.raw, "Fri, 01 Jan 2021 10:00:00 GMT")
        XCTAssertEqual(d.items[0].id, "x1")
        XCTAssertEqual(d.items[0].guidIsPermalink, false)
        XCTAssertEqual(d.items[0].title?.value, "rss title")
        XCTAssertEqual(d.items[0].summary?.value, "d2")   // repeated: the last wins (SCHEMA.md)
        XCTAssertEqual(d.items[0].updated?.raw, "2021-01-01T00:00:00Z")   // dc:date: the last change
        XCTAssertEqual(d.items[1].published?.raw, "Sat, 02 Jan 2021 10:00:00 GMT")
        XCTAssertEqual(d.items[1].updated?.raw, "2021-01-02T00:00:00Z")
        XCTAssertEqual(d.items[1].id, "x2")
        XCTAssertEqual(d.feeds[0].updated?.raw, "Tue, 02 Jan 2020 00:00:00 GMT")
    }

    func testAtomXHTMLContent() throws {
        let d = try assertSameAsC("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title type="text">T</title>
            <entry><id>urn:1</id><title type="html">&lt;b&gt;x&lt;/b&gt;</title>
            <content type="xhtml"> <div xmlns="http://www.w3.org/1999/xhtml"><p class="a&quot;b">One &amp; <em>two</em></p><br/></div> </content>
            <summary>plain <b>bold</b> &lt;x&gt;</summary>
            <link href="/a"/><link rel="enclosure" href="/e.mp3" type="audio/mpeg" length="9"/>
            <author><name>N</name><email>e@x</email><uri>http://u</uri></author>
            <category term="t" scheme="s" label="l"/>
            <source><id>src</id><title>Src</title><link rel="alternate" href="http://src"/></source>
            </entry></feed>
            """)
        let item = try XCTUnwrap(d.items.first)
        XCTAssertEqual(item.content?.value, "<p class=\"a&quot;b\">One &amp; <em>two</em></p><br/>")
        XCTAssertEqual(item.content?.type, "xhtml")
        XCTAssertEqual(item.summary?.value, "plain <b>bold</b> &lt;x&gt;")
        XCTAssertEqual(item.enclosures.first?.url, "/e.mp3")
        XCTAssertEqual(item.authors.first?.email, "e@x")
    }

    func testMarkupEdgeCases() throws {
        let d = try assertSameAsC("""
            <feed xmlns="http://www.w3.org/2005/Atom"><entry>
            <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">a</div><div xmlns="http://www.w3.org/1999/xhtml">b</div></title>
            <summary type="xhtml"><p xmlns="http://www.w3.org/1999/xhtml">not a div</p></summary>
            <content type="xhtml"><div>no namespace</div></content>
            <rights type="xhtml"><x:div xmlns:x="http://www.w3.org/1999/xhtml" xml:lang="fr" a="1>2" b='q"'>R<x:i/></x:div></rights>
            </entry>
            <entry><content mode="xml" type="text/html">x &amp; y <b>z</b></content>
            <title>a &lt; <i attr="&amp;">b</i> &gt; c</title></entry></feed>
            """)
        // SCHEMA.md "Text": children serialized back to markup, the XHTML wrapper div
        // dropped only when it is the XHTML namespace's div, prefixes dropped, text and
        // attribute values re-escaped; xml:lang keeps its prefix.
        XCTAssertEqual(d.items[0].summary?.value, "<p>not a div</p>")
        XCTAssertEqual(d.items[0].content?.value, "<div>no namespace</div>")
        XCTAssertEqual(d.items[0].rights?.value, "R<i/>")
        XCTAssertEqual(d.items[0].rights?.type, "xhtml")
        XCTAssertEqual(d.items[1].content?.value, "x &amp; y <b>z</b>")
        XCTAssertEqual(d.items[1].title?.value, "a &lt; <i attr=\"&amp;\">b</i> &gt; c")
    }

    func testLangAndBase() throws {
        let d = try assertSameAsC("""
            <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en" xml:base="http://a.example/">
            <title>T</title><link href="x"/>
            <entry xml:base="b/"><title xml:lang="de" xml:base="c/">Titel</title>
            <link href="l"/><author xml:base="p/"><name>N</name><uri>u</uri></author>
            <content type="html" xml:lang="fr">c</content></entry>
            <entry xml:lang=""><title>t2</title></entry></feed>
            """)
        XCTAssertEqual(d.items[0].language, "en")
        // xml:lang is inherited and overridden (XML 1.0 §2.12); xml:base chains resolve
        // relative references outward (RFC 3986 §5.1, Atom RFC 4287 §2).
        XCTAssertTrue(d.lines.contains { $0.contains("titleLang=\"de\"") }, "\(d.lines)")
        XCTAssertTrue(d.lines.contains { $0.contains("contentLang=\"fr\"") }, "\(d.lines)")
        XCTAssertEqual(d.items[0].link, "http://a.example/b/l")
        XCTAssertEqual(d.items[0].authors.first?.uri, "http://a.example/b/p/u")
        XCTAssertEqual(d.feeds[0].link, "http://a.example/x")
        XCTAssertEqual(d.items[1].title?.value, "t2")
    }

    func testNotAFeed() throws {
        // No feed root anywhere in the document.
        let d = try XCTUnwrap(try swiftDump(Array("<html><body><p>rss</p><channel:x xmlns:channel='u'/></body></html>".utf8)))
        XCTAssertEqual(d.lines.last, "fail 1 not_feed")
        _ = try assertSameAsC("<html><body><p>rss</p><channel:x xmlns:channel='u'/></body></html>")
        let m = SwiftFeedMachine(maxItemBytes: 0)
        try replay(MiniXML.events(Array("<html><p/></html>".utf8))!, machine: m, handler: RawDump())
        XCTAssertTrue(m.notFeed)
        XCTAssertTrue(m.rootClosed)
        XCTAssertEqual(m.items, 0)
    }

    /// A feed root inside another root (an Atom feed in an XHTML page) is the document's
    /// feed, as lenient parsers find it; the first one only; the elements around it are
    /// not read.
    func testAFeedInsideAnotherRootIsTheDocumentsFeed() throws {
        let xml = """
            <html><head><title>Page</title></head><body><div><rss version="2.0"><channel><title>T</title>\
            <item><title>i</title></item></channel></rss></div><rss><channel><title>Second</title>\
            <item><title>j</title></item></channel></rss><item><title>k</title></item></body></html>
            """
        let d = try XCTUnwrap(try swiftDump(Array(xml.utf8)))
        XCTAssertEqual(d.items.map { $0.title?.value }, ["i"])
        XCTAssertEqual(d.feeds.first?.title?.value, "T")
        XCTAssertEqual(d.feeds.first?.format, .rss20)
        XCTAssertEqual(d.lines.last, "finish 1")
        _ = try assertSameAsC(xml)
        let m = SwiftFeedMachine(maxItemBytes: 0)
        try replay(MiniXML.events(Array(xml.utf8))!, machine: m, handler: RawDump())
        XCTAssertFalse(m.notFeed)
        XCTAssertTrue(m.rootClosed)
    }

    /// An Atom Entry Document (RFC 4287, section 2): its root is one entry, an item.
    func testAnAtomEntryDocumentIsOneItem() throws {
        for (ns, format) in [("http://www.w3.org/2005/Atom", FeedFormat.atom10), ("http://purl.org/atom/ns#", .atom03)] {
            let xml = "<entry xmlns='\(ns)' xml:lang='en'><id>urn:e</id><title>E</title><entry><id>inner</id></entry></entry>"
            let d = try XCTUnwrap(try swiftDump(Array(xml.utf8)))
            XCTAssertEqual(d.items.count, 1, ns)
            XCTAssertEqual(d.items.first?.id, "urn:e", ns)
            XCTAssertEqual(d.items.first?.title?.value, "E", ns)
            XCTAssertEqual(d.feeds.first?.format, format, ns)
            XCTAssertEqual(d.lines.last, "finish 1", ns)
            _ = try assertSameAsC(xml)
        }
        // Not inside another root, and not in another namespace.
        for xml in ["<html><entry xmlns='http://www.w3.org/2005/Atom'><id>x</id></entry></html>", "<entry><id>x</id></entry>"] {
            let d = try XCTUnwrap(try swiftDump(Array(xml.utf8)))
            XCTAssertEqual(d.lines.last, "fail 1 not_feed", xml)
            _ = try assertSameAsC(xml)
        }
    }

    func testTruncation() throws {
        let big = String(repeating: "x", count: 30000)
        let xml = "<rss version=\"2.0\"><channel><item><title>t</title><description>\(big)</description>"
            + "<link>l</link></item><item><title>small</title></item></channel></rss>"
        // Limits above the arena's initial capacity keep exactly what fits, however the
        // text is split.
        for piece in [Int.max, 1000, 7] {
            let mine = try XCTUnwrap(try swiftDump(Array(xml.utf8), maxItemBytes: 20000, textPiece: piece))
            let c = try expatDump(Array(xml.utf8), maxItemBytes: 20000)
            XCTAssertEqual(mine.lines, c.lines)
            XCTAssertEqual(mine.items.map(\.isTruncated), [true, false])
        }
        // A tiny limit: the 16 KiB initial capacity is used before the limit applies.
        let d = try XCTUnwrap(try swiftDump(Array(xml.utf8), maxItemBytes: 10))
        XCTAssertEqual(d.items.map(\.isTruncated), [true, false])
        XCTAssertEqual(d.items[0].title?.value, "t")
        XCTAssertEqual(d.items[1].title?.value, "small")
        _ = try assertSameAsC(xml, maxItemBytes: 10)
    }

    func testDeepNestingFrameLimit() throws {
        let open = String(repeating: "<media:group>", count: 40)
        let close = String(repeating: "</media:group>", count: 40)
        let d = try assertSameAsC("""
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><item>\
            \(open)<media:title>deep</media:title>\(close)<title>t</title></item></channel></rss>
            """)
        // Past the machine's frames the nested elements are skipped, never misread, and
        // what follows them in the item is still read.
        XCTAssertEqual(d.items.count, 1)
        XCTAssertEqual(d.items[0].title?.value, "t")
    }

    func testNetscapeAndRDF() throws {
        let d = try assertSameAsC("""
            <?xml version="1.0"?>
            <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">
            <rss version="0.91"><channel><title>N</title><item><title>i</title></item></channel></rss>
            """)
        XCTAssertEqual(d.feeds.first?.format, .rss091n)
        let r = try assertSameAsC("""
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
            <item rdf:about="http://early"><title>early</title></item>
            <channel rdf:about="http://chan"><title>C</title></channel>
            <image rdf:about="i"><url>http://img</url></image><textinput><name>q</name></textinput>
            <item rdf:about="http://i1"><title>i1</title></item></rdf:RDF>
            """)
        // RSS 1.0: items, image and textinput are siblings of the channel; an item's
        // rdf:about is its id when it has no other (RSS 1.0 §5.5).
        XCTAssertEqual(r.feeds.first?.format, .rss10)
        XCTAssertEqual(r.items.map(\.title?.value), ["early", "i1"])
        XCTAssertEqual(r.items.map(\.id), ["http://early", "http://i1"])
        XCTAssertEqual(r.feeds.first?.id, "http://chan")
        XCTAssertEqual(r.feeds.first?.extensions["image.url"], "http://img")
        XCTAssertEqual(r.feeds.first?.extensions["text_input.name"], "q")
    }

    func testITunesNestedCategoriesAndPodcast() throws {
        let d = try assertSameAsC("""
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" \
            xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:media="http://search.yahoo.com/mrss/">
            <channel><itunes:category text="A"><itunes:category text="A1"/><itunes:category text="A2">\
            <itunes:category text="A2x"/></itunes:category></itunes:category><itunes:category text="B"/>
            <itunes:owner><itunes:name>O</itunes:name></itunes:owner><itunes:image href="http://i"/>
            <podcast:locked owner="me">yes</podcast:locked><podcast:funding url="http://f">Give</podcast:funding>
            <cloud domain="d" port="80" path="/p" registerProcedure="r" protocol="soap"/>
            <item><media:group><media:content url="u1" type="t"><media:title>mt</media:title></media:content>
            <media:thumbnail url="th"/></media:group><podcast:person role="host" href="h">P</podcast:person>
            <source url="http://s">S</source><itunes:duration>1:00</itunes:duration></item></channel></rss>
            """)
        let feed = try XCTUnwrap(d.feeds.first)
        // A subcategory names its parent (Apple's podcast spec nests itunes:category).
        XCTAssertEqual(feed.extensionLists["itunes.categories"]?.map { $0["text"] ?? "" }, ["A", "A1", "A2", "A2x", "B"])
        XCTAssertEqual(feed.extensionLists["itunes.categories"]?.map { $0["parent"] ?? "-" }, ["-", "A", "A", "A2", "-"])
        XCTAssertEqual(feed.extensions["itunes.owner_name"], "O")
        XCTAssertEqual(feed.extensions["itunes.image"], "http://i")
        XCTAssertEqual(feed.extensions["podcast.locked"], "yes")
        XCTAssertEqual(feed.extensions["podcast.locked_owner"], "me")
        XCTAssertEqual(feed.extensionLists["podcast.funding"]?.first, ["url": "http://f", "text": "Give"])
        XCTAssertEqual(feed.extensions["cloud.register_procedure"], "r")
        let item = try XCTUnwrap(d.items.first)
        XCTAssertEqual(item.extensionLists["media.content"]?.first?["url"], "u1")
        XCTAssertEqual(item.extensions["media.title"], "mt")
        XCTAssertEqual(item.extensionLists["media.thumbnails"]?.first?["url"], "th")
        XCTAssertEqual(item.extensionLists["podcast.persons"]?.first, ["name": "P", "role": "host", "href": "h"])
        XCTAssertEqual(item.extensions["source_feed.url"], "http://s")
        XCTAssertEqual(item.extensions["source_feed.title"], "S")
        XCTAssertEqual(item.extensions["itunes.duration"], "1:00")
    }

    /// Every fixture of the corpus that MiniXML can read, against the C machine.
    func testCorpusFixturesMatchC() throws {
        var compared = 0
        for url in Paths.files(in: Paths.corpus.appendingPathComponent("feeds")) {
            let bytes = try [UInt8](Data(contentsOf: url))
            guard let mine = try swiftDump(bytes) else { continue }
            let c = try expatDump(bytes)
            // Dumps hold a single document; multi-document files differ in shape.
            if c.lines.filter({ $0.hasPrefix("start") }).count != 1 { continue }
            if mine.lines != c.lines { XCTFail("\(url.lastPathComponent): \(firstDifference(mine.lines, c.lines))") }
            compared += 1
        }
        XCTAssertGreaterThan(compared, 10)
    }

    /// The shared real-world corpus (if present), files MiniXML can read.
    func testRealCorpusMatchesC() throws {
        let files = try RealCorpus.require(self)
        var compared = 0, differing: [String] = []
        // One machine for every document, as a driver reuses it: nothing may leak across.
        let machine = SwiftFeedMachine(maxItemBytes: 0)
        for url in files {
            let bytes = try [UInt8](Data(contentsOf: url))
            if bytes.count > 2_000_000 { continue }
            guard let mine = try swiftDump(bytes, machine: machine) else { continue }
            let c = try expatDump(bytes)
            if c.lines.filter({ $0.hasPrefix("start") }).count != 1 { continue }
            if c.lines.last?.hasPrefix("fail") == true && c.lines.last?.hasSuffix("not_feed") != true { continue }
            compared += 1
            if mine.lines != c.lines {
                differing.append(url.lastPathComponent)
                if differing.count <= 3 { print("\(url.lastPathComponent): \(firstDifference(mine.lines, c.lines))") }
            }
        }
        print("SwiftFeedMachine vs C: \(compared) real documents compared, \(differing.count) differ")
        XCTAssertEqual(differing, [])
    }
}

// MARK: - Benchmark (opt-in: SFM_BENCH=1, meaningful in release builds)

/// A document's events flattened into one block, so that replaying costs nothing but
/// the machine.
final class FlatDocument {
    struct Event {
        var kind: UInt8   // 0 start, 1 end, 2 text
        var uri: UnsafeRawBufferPointer
        var local: UnsafeRawBufferPointer
        var attrs: UnsafeBufferPointer<XMLAttribute>
    }
    let block: UnsafeMutableRawPointer
    let attrBlock: UnsafeMutablePointer<XMLAttribute>
    var events: [Event] = []

    init(_ evs: [MiniXML.Event]) {
        var total = 1, nattrs = 0
        for e in evs {
            switch e {
            case .start(let u, let l, let a):
                total += u.count + l.count + a.prefix(64).reduce(0) { $0 + $1.uri.count + $1.local.count + $1.value.count }
                nattrs += min(a.count, 64)
            case .end(let l): total += l.count
            case .text(let t): total += t.count
            case .doctype: break
            }
        }
        block = .allocate(byteCount: total, alignment: 1)
        attrBlock = .allocate(capacity: max(nattrs, 1))
        var off = 0, ai = 0
        func put(_ a: [UInt8]) -> UnsafeRawBufferPointer {
            a.withUnsafeBytes { if let b = $0.baseAddress { (block + off).copyMemory(from: b, byteCount: a.count) } }
            defer { off += a.count }
            return UnsafeRawBufferPointer(start: block + off, count: a.count)
        }
        let empty = UnsafeBufferPointer<XMLAttribute>(start: attrBlock, count: 0)
        for e in evs {
            switch e {
            case .start(let u, let l, let a):
                let ub = put(u), lb = put(l)
                let first = ai
                for x in a.prefix(64) {
                    (attrBlock + ai).initialize(to: XMLAttribute(uri: put(x.uri), local: put(x.local), value: put(x.value)))
                    ai += 1
                }
                events.append(Event(kind: 0, uri: ub, local: lb,
                                    attrs: UnsafeBufferPointer(start: attrBlock + first, count: ai - first)))
            case .end(let l):
                events.append(Event(kind: 1, uri: .emptyBytes, local: put(l), attrs: empty))
            case .text(let t):
                events.append(Event(kind: 2, uri: .emptyBytes, local: put(t), attrs: empty))
            case .doctype: break
            }
        }
    }

    deinit {
        block.deallocate()
        attrBlock.deallocate()
    }

    func run(_ m: SwiftFeedMachine) throws {
        m.begin(document: 1)
        for e in events {
            switch e.kind {
            case 0:
                if m.isSkipping { m.skipStart() } else { try m.start(uri: e.uri, local: e.local, attributes: e.attrs) }
            case 1:
                if m.isSkipping { m.skipEnd() } else { try m.end(local: e.local) }
            default:
                if m.wantsText { m.text(e.local) }
            }
            if m.rootClosed { break }
        }
        try m.finish(error: nil)
    }
}

final class CountingHandler: FeedHandler {
    var items = 0, bytes = 0
    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) { items += 1; bytes &+= item.record.raw.fields[2].len }
}

extension SwiftFeedMachineTests {
    func testBenchmarkMachineAgainstExpat() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["SFM_BENCH"] != nil, "set SFM_BENCH=1 (release build)")
        var docs: [(FlatDocument, [UInt8])] = []
        var xmlBytes = 0, nevents = 0
        for url in Paths.files(in: Paths.sharedReal) {
            let bytes = try [UInt8](Data(contentsOf: url))
            guard let evs = MiniXML.events(bytes) else { continue }
            docs.append((FlatDocument(evs), bytes))
            xmlBytes += bytes.count
            nevents += evs.count
        }
        let rounds = 5
        let machine = SwiftFeedMachine(maxItemBytes: 0)
        let h1 = CountingHandler()
        machine.deliver(to: h1, as: SwiftFeedParser())
        let t0 = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<rounds { for (d, _) in docs { try d.run(machine) } }
        let t1 = DispatchTime.now().uptimeNanoseconds
        let parser = ExpatFeedParser()
        let h2 = CountingHandler()
        for _ in 0..<rounds { for (_, b) in docs { try parser.parse(.bytes(b), handler: h2) } }
        let t2 = DispatchTime.now().uptimeNanoseconds
        let mb = Double(xmlBytes * rounds) / 1e6
        let sm = Double(t1 - t0) / 1e9, se = Double(t2 - t1) / 1e9
        print(String(format: "SwiftFeedMachine: %d docs, %.1f MB, %d events x %d: machine alone %.3f s (%.0f MB/s, %.1f ns/event); expat+C machine %.3f s (%.0f MB/s); items %d vs %d",
                     docs.count, mb / Double(rounds), nevents, rounds, sm, mb / sm, Double(t1 - t0) / Double(nevents * rounds),
                     se, mb / se, h1.items, h2.items))
    }
}

extension SwiftFeedMachineTests {
    /// Real documents under a per-item limit above the arenas' initial capacity (where
    /// what is kept does not depend on how text is split): truncation, markup switching
    /// at the limit and xml:base copies must cut exactly where the C core cuts.
    func testRealCorpusUnderLimitMatchesC() throws {
        let files = try RealCorpus.require(self)
        let limit = Int(ProcessInfo.processInfo.environment["SFM_LIMIT"] ?? "") ?? 20000
        var compared = 0, truncated = 0, differing: [String] = []
        let machine = SwiftFeedMachine(maxItemBytes: limit)
        for url in files {
            let bytes = try [UInt8](Data(contentsOf: url))
            if bytes.count < limit || bytes.count > 2_000_000 { continue }
            guard let mine = try swiftDump(bytes, textPiece: 4096, machine: machine) else { continue }
            let c = try expatDump(bytes, maxItemBytes: limit)
            if c.lines.filter({ $0.hasPrefix("start") }).count != 1 { continue }
            if c.lines.last?.hasPrefix("fail") == true && c.lines.last?.hasSuffix("not_feed") != true { continue }
            compared += 1
            truncated += mine.items.filter(\.isTruncated).count
            if mine.lines != c.lines {
                differing.append(url.lastPathComponent)
                if differing.count <= 3 { print("\(url.lastPathComponent): \(firstDifference(mine.lines, c.lines))") }
            }
        }
        print("SwiftFeedMachine vs C at \(limit) bytes per item: \(compared) documents, \(truncated) truncated items, \(differing.count) differ")
        XCTAssertEqual(differing, [])
    }
}
