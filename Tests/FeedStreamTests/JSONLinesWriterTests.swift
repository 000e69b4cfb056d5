// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

/// JSON escaping straight from bytes, valid UTF-8 out, and the record shapes.
final class JSONLinesWriterTests: XCTestCase {
    private func escaped(_ input: [UInt8]) -> [UInt8] {
        var b = ByteBuffer(capacity: 16)
        input.withUnsafeBytes { b.appendJSONString($0) }
        return Array(b.bytes)
    }

    private func escaped(_ s: String) -> String { String(decoding: escaped(Array(s.utf8)), as: UTF8.self) }

    func testEscapesWhatJSONRequires() {
        XCTAssertEqual(escaped("plain ascii text that is longer than eight bytes"),
                       "\"plain ascii text that is longer than eight bytes\"")
        XCTAssertEqual(escaped("a\"b\\c"), #""a\"b\\c""#)
        XCTAssertEqual(escaped("l1\nl2\r\tx\u{8}\u{c}"), #""l1\nl2\r\tx\b\f""#)
        XCTAssertEqual(escaped("\u{1}\u{1f}"), #""\u0001\u001f""#)
        XCTAssertEqual(escaped("caf\u{e9} 日本 😀 \u{7f}"), "\"caf\u{e9} 日本 😀 \u{7f}\"")
        // Specials at every position relative to the 8-byte stride.
        for pos in 0..<17 {
            var s = Array(repeating: UInt8(ascii: "x"), count: 17)
            s[pos] = UInt8(ascii: "\"")
            let out = String(decoding: escaped(s), as: UTF8.self)
            XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(out.utf8), options: .fragmentsAllowed) as? String,
                           String(decoding: s, as: UTF8.self))
        }
    }

    /// Numbers (document and item numbers, error positions, counts) in decimal: one
    /// digit, each power of ten and the number before it, the largest.
    func testNumbersAreWrittenInDecimal() {
        var values: [UInt64] = [0, 1, 9, UInt64.max]
        var p: UInt64 = 10
        for _ in 1...19 { values += [p - 1, p, p + 7]; p = p &* 10 }
        for v in values {
            var b = ByteBuffer(capacity: 4)
            b.append(0x5B)
            b.append(decimal: v)
            b.append(0x5D)
            XCTAssertEqual(String(decoding: b.bytes, as: UTF8.self), "[\(v)]")
        }
    }

    func testInvalidUTF8BecomesReplacementCharacter() {
        let cases: [([UInt8], String)] = [
            ([0x61, 0xFF, 0x62], "a\u{FFFD}b"),                 // never-valid byte
            ([0x61, 0x80, 0x62], "a\u{FFFD}b"),                 // stray continuation
            ([0xC3], "\u{FFFD}"),                               // truncated sequence at the end
            ([0xE2, 0x82, 0x61], "\u{FFFD}\u{FFFD}a"),          // truncated 3-byte sequence
            ([0xC0, 0xAF], "\u{FFFD}\u{FFFD}"),                 // overlong
            ([0xED, 0xA0, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}"),   // UTF-16 surrogate
            ([0xF4, 0x90, 0x80, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),  // > U+10FFFF
            ([0xF0, 0x9F, 0x98, 0x80], "😀"),
        ]
        for (input, expected) in cases {
            let out = escaped(input)
            XCTAssertNotNil(String(validatingCString: out.map { CChar(bitPattern: $0) } + [0]), "\(input)")
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "\"\(expected)\"", "\(input)")
        }
    }

    func testC1ControlsBecomeTheirWindows1252Characters() throws {
        XCTAssertEqual(String(decoding: escaped([0x61, 0xC2, 0x80, 0xC2, 0x93, 0x62, 0xC2, 0x94, 0xC2, 0x81]), as: UTF8.self),
                       "\"a\u{20AC}\u{201C}b\u{201D}\u{81}\"")
        // A feed that declares ISO-8859-1 but is written in windows-1252.
        var doc = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><title>".utf8)
        doc += [0x93, 0x51, 0x94, 0x20, 0x80, 0x35, 0x20, 0xE9]   // “Q” €5 é
        doc += Array("</title></channel></rss>".utf8)
        for backend in FeedBackend.allCases {
            let (text, _) = try jsonLines(.bytes(doc), source: "s", parser: backend.makeParser())
            XCTAssertTrue(text.contains("\"title\":\"\u{201C}Q\u{201D} \u{20AC}5 \u{e9}\""), "\(backend): \(text)")
            let docs = try backend.makeParser().documents(from: .bytes(doc))
            XCTAssertEqual(docs.first?.feed.title?.value, "\u{201C}Q\u{201D} \u{20AC}5 \u{e9}")
        }
    }

    func testItemLinesCarryFeedFieldsAndFeedLinesCarryErrors() throws {
        let doc = """
            <rss version="2.0"><channel><title> Ch </title><link>https://example.com/</link><language>en</language>
            <item><title>One</title><guid>1</guid><pubDate>Tue, 04 Mar 2025 17:30:00 +0000</pubDate></item>
            <item><title>Two</title><pubDate>someday</pubDate></item><item><title>Three</oops>
            """
        let (text, summary) = try jsonLines(.bytes(bytes(doc)), source: "dir/a \"b\".xml")
        XCTAssertEqual(summary.items, 3)   // the third by the recovery path
        let lines = try text.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual(lines.map { $0["kind"] as? String }, ["item", "item", "item", "feed"])
        XCTAssertEqual(lines[2]["title"] as? String, "Three")
        XCTAssertEqual(lines[0]["source"] as? String, "dir/a \"b\".xml")
        let feed = try XCTUnwrap(lines[0]["feed"] as? [String: Any])
        XCTAssertEqual(feed["title"] as? String, "Ch")   // trimmed
        XCTAssertEqual(feed["link"] as? String, "https://example.com/")
        XCTAssertEqual(feed["format"] as? String, "rss20")
        XCTAssertEqual(lines[0]["published"] as? String, "2025-03-04T17:30:00Z")
        XCTAssertEqual(lines[0]["guid_is_permalink"] as? Bool, true)
        // An unparsable date keeps only its raw text.
        XCTAssertNil(lines[1]["published"])
        XCTAssertEqual(lines[1]["published_raw"] as? String, "someday")
        let error = try XCTUnwrap(lines[3]["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "xml")
        XCTAssertEqual(error["message"] as? String, "mismatched tag")
        XCTAssertEqual(error["line"] as? Int, 3)
        XCTAssertEqual(lines[3]["recovered"] as? Bool, true)
        XCTAssertEqual(lines[3]["items"] as? Int, 3)
    }

    /// Each item line's `"feed"` is the feed as known when the item ended — also when a
    /// writer copies the last one while the feed record has not changed (the Swift
    /// backend numbers its publications, ``FeedRevision``): channel elements after items,
    /// a second document in the stream, a second parser and a new source on one writer.
    func testEachItemCarriesTheFeedAsKnownWhenItEnded() throws {
        let stream = """
            <rss version="2.0"><channel><item><title>1</title></item><item><title>2</title></item>
            <title>Late</title><item><title>3</title></item><item><title>4</title></item>
            <link>https://example.com/late/</link><item><title>5</title></item></channel></rss>
            <rss version="2.0"><channel><title>Second</title><item><title>6</title></item></channel></rss>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Third</title><entry><title>7</title></entry></feed>
            """
        let expected: [(String, [String: String])] = [
            ("1", ["format": "rss20"]), ("2", ["format": "rss20"]),
            ("3", ["format": "rss20", "title": "Late"]), ("4", ["format": "rss20", "title": "Late"]),
            ("5", ["format": "rss20", "title": "Late", "link": "https://example.com/late/"]),
            ("6", ["format": "rss20", "title": "Second"]), ("7", ["format": "atom10", "title": "Third"]),
        ]
        func items(_ text: String) throws -> [(String, [String: String])] {
            try text.split(separator: "\n").compactMap {
                let line = try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                guard line["kind"] as? String == "item" else { return nil }
                return (try XCTUnwrap(line["title"] as? String), try XCTUnwrap(line["feed"] as? [String: String]))
            }
        }
        for backend in FeedBackend.allCases {
            let got = try items(jsonLines(.bytes(bytes(stream)), source: "s", parser: backend.makeParser()).text)
            XCTAssertEqual(got.map(\.0), expected.map(\.0), "\(backend)")
            XCTAssertEqual(got.map(\.1), expected.map(\.1), "\(backend)")
        }
        // One writer, two parsers in turn (each at its first publication), and a document
        // location set between two parses of the same feed: what each item's feed says.
        let out = MemoryOutput()
        let writer = JSONLinesWriter(output: out)
        writer.source = "a"
        let one = FeedBackend.swift.makeParser(), two = FeedBackend.swift.makeParser()
        let rssA = "<rss version=\"2.0\"><channel><title>A</title><link>rel/</link><item><title>a</title></item></channel></rss>"
        let rssB = "<rss version=\"2.0\"><channel><title>B</title><item><title>b</title></item></channel></rss>"
        try one.parse(.bytes(bytes(rssA)), handler: writer)
        try two.parse(.bytes(bytes(rssB)), handler: writer)
        writer.documentLocation = "https://example.org/feed.xml"
        try one.parse(.bytes(bytes(rssA)), handler: writer)
        try writer.flush()
        XCTAssertEqual(try items(out.string).map(\.1), [
            ["format": "rss20", "title": "A", "link": "rel/"], ["format": "rss20", "title": "B"],
            ["format": "rss20", "title": "A", "link": "https://example.org/rel/"],
        ])
    }

    func testFlushesOnlyAtLineBoundaries() throws {
        final class Chunks: ByteOutput {
            var writes: [[UInt8]] = []
            func write(_ bytes: UnsafeRawBufferPointer) throws { writes.append(Array(bytes)) }
        }
        let out = Chunks()
        let writer = JSONLinesWriter(output: out, bufferSize: 64)
        try ExpatFeedParser().parse(.bytes(bytes(rss("a", items: 20))), handler: writer)
        try writer.flush()
        XCTAssertGreaterThan(out.writes.count, 5)
        for w in out.writes { XCTAssertEqual(w.last, 0x0A) }
        XCTAssertEqual(writer.itemLines, 20)
        XCTAssertEqual(writer.feedLines, 1)
    }
}
