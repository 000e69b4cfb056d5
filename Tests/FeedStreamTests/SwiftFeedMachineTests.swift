// SPDX-License-Identifier: Apache-2.0
import FeedStream
@_spi(RawRecords) @testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

// Tests of the pure-Swift feed state machine (SwiftFeedMachine), driven by event
// sequences made by hand, or by the Swift tokenizer (SwiftFeedParser). The machine must
// deliver exactly what the C core delivers for the same document, so most tests compare
// a full dump of every raw record (every field span, absent vs empty, presence bits,
// every row of every list) with ExpatFeedParser's.

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

// MARK: - Replaying events

/// What a tokenizer tells the machine, written by hand.
enum MachineEvent {
    case doctype(publicID: [UInt8]?, systemID: [UInt8]?)
    case start(uri: [UInt8], local: [UInt8], attributes: [(uri: [UInt8], local: [UInt8], value: [UInt8])])
    case end(local: [UInt8])
    case text([UInt8])
}

/// Drives a SwiftFeedMachine with events as expat.c drives the C machine. The machine
/// has no driver here, so the events name a stand-in parser.
func replay(_ events: [MachineEvent], machine: SwiftFeedMachine, handler: any FeedHandler, document: Int = 1,
            encoding: String? = nil) throws {
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
            t.withUnsafeBytes { machine.text($0) }
        }
    }
    let error: FeedError? = machine.notFeed
        ? FeedError(code: .notAFeed, message: "root element is not rss, rdf:RDF or feed", document: document, line: 1,
                    column: 1)
        : nil
    try machine.finish(error: error)
}

/// The Swift backend's dump of a document (its tokenizer driving its machine), given in
/// pieces of `piece` bytes; `parser` reused when given, as a converter reuses one.
func swiftDump(_ xml: [UInt8], maxItemBytes: Int = 0, piece: Int = .max, parser: SwiftFeedParser? = nil) throws
    -> RawDump
{
    let dump = RawDump()
    let cuts = piece >= xml.count ? [] : Array(stride(from: piece, to: xml.count, by: piece))
    try (parser ?? SwiftFeedParser(maxItemBytes: maxItemBytes)).parse(pieces(xml, cuts: cuts), handler: dump)
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
        let mine = try swiftDump(bytes, maxItemBytes: maxItemBytes)
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
        let ev: [MachineEvent] = [
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
        let d = try swiftDump(Array("<html><body><p>rss</p><channel:x xmlns:channel='u'/></body></html>".utf8))
        XCTAssertEqual(d.lines.last, "fail 1 not_feed")
        _ = try assertSameAsC("<html><body><p>rss</p><channel:x xmlns:channel='u'/></body></html>")
        let m = SwiftFeedMachine(maxItemBytes: 0)
        try replay([.start(uri: [], local: bytes("html"), attributes: []), .start(uri: [], local: bytes("p"), attributes: []),
                    .end(local: bytes("p")), .end(local: bytes("html"))], machine: m, handler: RawDump())
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
        let d = try swiftDump(Array(xml.utf8))
        XCTAssertEqual(d.items.map { $0.title?.value }, ["i"])
        XCTAssertEqual(d.feeds.first?.title?.value, "T")
        XCTAssertEqual(d.feeds.first?.format, .rss20)
        XCTAssertEqual(d.lines.last, "finish 1")
        _ = try assertSameAsC(xml)
    }

    /// An Atom Entry Document (RFC 4287, section 2): its root is one entry, an item.
    func testAnAtomEntryDocumentIsOneItem() throws {
        for (ns, format) in [("http://www.w3.org/2005/Atom", FeedFormat.atom10), ("http://purl.org/atom/ns#", .atom03)] {
            let xml = "<entry xmlns='\(ns)' xml:lang='en'><id>urn:e</id><title>E</title><entry><id>inner</id></entry></entry>"
            let d = try swiftDump(Array(xml.utf8))
            XCTAssertEqual(d.items.count, 1, ns)
            XCTAssertEqual(d.items.first?.id, "urn:e", ns)
            XCTAssertEqual(d.items.first?.title?.value, "E", ns)
            XCTAssertEqual(d.feeds.first?.format, format, ns)
            XCTAssertEqual(d.lines.last, "finish 1", ns)
            _ = try assertSameAsC(xml)
        }
        // Not inside another root, and not in another namespace.
        for xml in ["<html><entry xmlns='http://www.w3.org/2005/Atom'><id>x</id></entry></html>", "<entry><id>x</id></entry>"] {
            let d = try swiftDump(Array(xml.utf8))
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
            let mine = try swiftDump(Array(xml.utf8), maxItemBytes: 20000, piece: piece)
            let c = try expatDump(Array(xml.utf8), maxItemBytes: 20000)
            XCTAssertEqual(mine.lines, c.lines)
            XCTAssertEqual(mine.items.map(\.isTruncated), [true, false])
        }
        // A tiny limit: the 16 KiB initial capacity is used before the limit applies.
        let d = try swiftDump(Array(xml.utf8), maxItemBytes: 10)
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

    /// Every fixture of the corpus, against the C machine.
    func testCorpusFixturesMatchC() throws {
        var compared = 0
        for url in Paths.files(in: Paths.corpus.appendingPathComponent("feeds")) {
            let bytes = try [UInt8](Data(contentsOf: url))
            let mine = try swiftDump(bytes)
            let c = try expatDump(bytes)
            // Dumps hold a single document; multi-document files differ in shape.
            if c.lines.filter({ $0.hasPrefix("start") }).count != 1 { continue }
            if mine.lines != c.lines { XCTFail("\(url.lastPathComponent): \(firstDifference(mine.lines, c.lines))") }
            compared += 1
        }
        XCTAssertGreaterThan(compared, 10)
    }

    /// The shared real-world corpus.
    func testRealCorpusMatchesC() throws {
        let files = try RealCorpus.require(self)
        var compared = 0, differing: [String] = []
        // One parser for every document, as a converter reuses it: nothing may leak across.
        let parser = SwiftFeedParser()
        for url in TestSample.take(files) {
            let bytes = try [UInt8](Data(contentsOf: url))
            if bytes.count > 2_000_000 { continue }
            let mine = try swiftDump(bytes, parser: parser)
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

extension SwiftFeedMachineTests {
    /// Real documents under a per-item limit above the arenas' initial capacity (where
    /// what is kept does not depend on how text is split): truncation, markup switching
    /// at the limit and xml:base copies must cut exactly where the C core cuts.
    func testRealCorpusUnderLimitMatchesC() throws {
        let files = try RealCorpus.require(self)
        let limit = Int(ProcessInfo.processInfo.environment["SFM_LIMIT"] ?? "") ?? 20000
        var compared = 0, truncated = 0, differing: [String] = []
        let parser = SwiftFeedParser(maxItemBytes: limit)
        for url in TestSample.take(files) {
            let bytes = try [UInt8](Data(contentsOf: url))
            if bytes.count < limit || bytes.count > 2_000_000 { continue }
            let mine = try swiftDump(bytes, piece: 4096, parser: parser)
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
