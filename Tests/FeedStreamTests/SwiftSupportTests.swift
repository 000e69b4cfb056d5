// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

// Tests of the Swift backend's support pieces: XMLTranscoder (declared encoding -> UTF-8,
// as the expat backend decodes), HTMLEntities (the C core's table) and InputStage (the C
// core's input stage, push mode).

// MARK: - Helpers

/// Transcodes all of `bytes`, fed in pieces of `piece` bytes (leftovers supplied again,
/// as a tokenizer does). Returns the UTF-8 and where it stopped as invalid.
private func transcode(_ t: XMLTranscoder, _ bytes: [UInt8], piece: Int = Int.max)
    -> (utf8: [UInt8], invalidAt: Int?, partial: Bool)
{
    var t = t
    let out = TranscodeBuffer(capacity: 16)
    var pending: [UInt8] = []
    var offset = 0   // stream offset of pending[0]
    var next = 0
    while true {
        let end = min(bytes.count, next + min(piece, bytes.count))
        pending += bytes[next..<end]
        next = end
        let final = next == bytes.count
        let r = pending.withUnsafeBytes { t.decode($0, final: final, into: out) }
        if let bad = r.invalidAt { return (Array(out.bytes), offset + bad, t.stoppedAtPartialCharacter) }
        pending.removeFirst(r.consumed)
        offset += r.consumed
        if final {
            XCTAssertTrue(pending.isEmpty)
            return (Array(out.bytes), nil, false)
        }
    }
}

private func transcoder(_ name: String) -> XMLTranscoder? { XMLTranscoder.named(name) }

/// Item titles and errors of a parse.
private final class TitleLog: FeedHandler {
    var titles: [String] = []
    var errors: [FeedError] = []
    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) { titles.append(item.title.value.string ?? "") }
    func parser(_ parser: any FeedParser, didFail error: FeedError) { errors.append(error) }
}

/// Parses with the expat backend: an item title, or nil when the document is ill-formed.
private func expatTitle(_ document: [UInt8]) throws -> String? {
    let log = TitleLog()
    _ = try ExpatFeedParser().parse(.bytes(document), handler: log)
    if !log.errors.isEmpty { return nil }
    return log.titles.first
}

final class SwiftSupportTests: XCTestCase {
    // MARK: - XMLTranscoder: known texts

    private let samples: [(name: String, bytes: [UInt8], text: String)] = [
        ("windows-1252", [0x93, 0x51, 0x75, 0x6F, 0x74, 0x65, 0x73, 0x94, 0x20, 0x96, 0x20, 0x80, 0x20, 0x97,
                          0x20, 0x99, 0x20, 0x63, 0x61, 0x66, 0xE9],
         "“Quotes” – € — ™ café"),
        ("KOI8-R", [0xEE, 0xCF, 0xD7, 0xCF, 0xD3, 0xD4, 0xC9, 0x20, 0xCB, 0xD5, 0xCC, 0xD8, 0xD4, 0xD5, 0xD2, 0xD9],
         "Новости культуры"),
        ("ISO-8859-15", [0xA4, 0x20, 0xBD, 0x20, 0xBE, 0x20, 0xB8], "€ œ Ÿ ž"),
        ("Shift_JIS", [0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA, 0x82, 0xCC, 0x83, 0x65, 0x83, 0x4C, 0x83, 0x58, 0x83,
                       0x67, 0x20, 0xB6, 0xC0, 0xB6, 0xC5],
         "日本語のテキスト ｶﾀｶﾅ"),
        ("EUC-KR", [0xC7, 0xD1, 0xB1, 0xB9, 0xBE, 0xEE, 0x20, 0xB4, 0xBA, 0xBD, 0xBA], "한국어 뉴스"),
        ("Big5", [0xA4, 0xA4, 0xA4, 0xE5, 0xB7, 0x73, 0xBB, 0x44], "中文新聞"),
        ("GB2312", [0xD6, 0xD0, 0xCE, 0xC4, 0xD0, 0xC2, 0xCE, 0xC5], "中文新闻"),
        ("EUC-JP", [0xC6, 0xFC, 0xCB, 0xDC, 0xB8, 0xEC], "日本語"),
        ("ISO-8859-1", [0x63, 0x61, 0x66, 0xE9, 0x20, 0x80, 0xFF], "café \u{80}ÿ"),
        ("us-ascii", Array("plain <text> & more\n".utf8), "plain <text> & more\n"),
    ]

    func testKnownTextsDecode() throws {
        for s in samples {
            let t = try XCTUnwrap(transcoder(s.name), s.name)
            XCTAssertFalse(t.isPassthrough)
            let r = transcode(t, s.bytes)
            XCTAssertNil(r.invalidAt, s.name)
            XCTAssertEqual(String(decoding: r.utf8, as: UTF8.self), s.text, s.name)
        }
    }

    func testSplitAtEveryOffsetGivesTheSameResult() throws {
        var cases = samples.map { ($0.name, $0.bytes) }
        cases.append(("UTF-16LE", [0x61, 0x00, 0x3D, 0xD8, 0x00, 0xDE, 0xE9, 0x00, 0x2D, 0x4E]))
        cases.append(("UTF-16BE", [0x00, 0x61, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0xE9, 0x4E, 0x2D]))
        cases.append(("Shift_JIS", [0x82, 0xA0, 0x41, 0x81]))   // ends inside a sequence
        cases.append(("windows-1252", [0x41, 0x42, 0x81, 0x43]))   // an invalid byte
        for (name, bytes) in cases {
            let t = try XCTUnwrap(transcoder(name), name)
            let whole = transcode(t, bytes)
            for piece in 1...max(1, bytes.count) {
                let r = transcode(t, bytes, piece: piece)
                XCTAssertEqual(r.utf8, whole.utf8, "\(name) in pieces of \(piece)")
                XCTAssertEqual(r.invalidAt, whole.invalidAt, "\(name) in pieces of \(piece)")
            }
            // Two calls split at every offset, without the helper.
            for k in 0...bytes.count {
                var t2 = t
                let out = TranscodeBuffer()
                let first = bytes.withUnsafeBytes { t2.decode(UnsafeRawBufferPointer(rebasing: $0[0..<k]), final: false, into: out) }
                if let bad = first.invalidAt {
                    XCTAssertEqual(bad, whole.invalidAt, "\(name) split at \(k)")
                    continue
                }
                let rest = Array(bytes[first.consumed...])
                let second = rest.withUnsafeBytes { t2.decode($0, final: true, into: out) }
                XCTAssertEqual(Array(out.bytes), whole.utf8, "\(name) split at \(k)")
                XCTAssertEqual(second.invalidAt.map { $0 + first.consumed }, whole.invalidAt, "\(name) split at \(k)")
            }
        }
    }

    func testUTF16() throws {
        // "a😀é中" in both byte orders.
        let le: [UInt8] = [0x61, 0x00, 0x3D, 0xD8, 0x00, 0xDE, 0xE9, 0x00, 0x2D, 0x4E]
        let be: [UInt8] = [0x00, 0x61, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0xE9, 0x4E, 0x2D]
        XCTAssertEqual(String(decoding: transcode(.utf16(bigEndian: false), le).utf8, as: UTF8.self), "a😀é中")
        XCTAssertEqual(String(decoding: transcode(.utf16(bigEndian: true), be).utf8, as: UTF8.self), "a😀é中")
        XCTAssertEqual(transcoder("utf-16le")?.kind, .utf16LE)
        XCTAssertEqual(transcoder("UTF-16BE")?.kind, .utf16BE)
        XCTAssertEqual(transcoder("UTF-16")?.kind, .utf16BE)
        // A lone low surrogate is invalid (BT_TRAIL); so are U+FFFE and controls.
        XCTAssertEqual(transcode(.utf16(bigEndian: true), [0x00, 0x41, 0xDC, 0x00, 0x00, 0x41]).invalidAt, 2)
        XCTAssertEqual(transcode(.utf16(bigEndian: true), [0x00, 0x41, 0xFF, 0xFE]).invalidAt, 2)
        XCTAssertEqual(transcode(.utf16(bigEndian: true), [0x00, 0x41, 0x00, 0x01]).invalidAt, 2)
        // A high surrogate not followed by a low one is invalid (expat's own decoder would
        // pair it with the next unit whatever it is, making U+10041 of these).
        let odd = transcode(.utf16(bigEndian: true), [0x00, 0x42, 0xD8, 0x00, 0x00, 0x41])
        XCTAssertEqual(odd.invalidAt, 2)
        XCTAssertEqual(String(decoding: odd.utf8, as: UTF8.self), "B")
        XCTAssertEqual(transcode(.utf16(bigEndian: false), [0x00, 0xD8, 0x00, 0xD8, 0x00, 0xDC]).invalidAt, 0)
        // Cut off by the end: a partial character.
        let cut = transcode(.utf16(bigEndian: true), [0x00, 0x41, 0xD8, 0x3D, 0xDE])
        XCTAssertEqual(cut.invalidAt, 2)
        XCTAssertTrue(cut.partial)
        XCTAssertEqual(transcode(.utf16(bigEndian: false), [0x41, 0x00, 0x42]).invalidAt, 2)
    }

    func testInvalidBytes() throws {
        let ascii = try XCTUnwrap(transcoder("US-ASCII"))
        XCTAssertEqual(transcode(ascii, [0x41, 0x42, 0x80, 0x43]).invalidAt, 2)
        XCTAssertEqual(transcode(ascii, [0x41, 0x42, 0x80, 0x43]).utf8, [0x41, 0x42])
        XCTAssertEqual(transcode(ascii, [0x41, 0x01]).invalidAt, 1)   // BT_NONXML
        // windows-1252 leaves 0x81 undefined (glibc): invalid, as in the C core.
        XCTAssertEqual(transcode(try XCTUnwrap(transcoder("windows-1252")), [0x41, 0x81]).invalidAt, 1)
        // Shift_JIS: a lead byte at the end is partial; an undefined sequence is invalid.
        let sjis = try XCTUnwrap(transcoder("Shift_JIS"))
        let cut = transcode(sjis, [0x41, 0x93])
        XCTAssertEqual(cut.invalidAt, 1)
        XCTAssertTrue(cut.partial)
        XCTAssertEqual(transcode(sjis, [0x41, 0x93, 0x20]).invalidAt, 1)
        XCTAssertFalse(transcode(sjis, [0x41, 0x93, 0x20]).partial)
    }

    func testUnknownAndRejectedEncodings() {
        XCTAssertNil(transcoder("x-no-such-charset"))
        XCTAssertNil(transcoder(""))
        // iconv knows these, but expat rejects their byte maps ('<' is not 0x3C).
        XCTAssertNil(transcoder("EBCDIC-US"))
        XCTAssertNil(transcoder("UCS-2LE"))
        // UTF-32 is read (not by expat's decoder, but by every backend's charset stage).
        XCTAssertEqual(transcoder("UTF-32")?.kind, .utf32BE)
        XCTAssertEqual(transcoder("ucs-2le")?.kind, nil)
        // The cache answers the same the second time.
        XCTAssertNil(transcoder("EBCDIC-US"))
        XCTAssertNotNil(transcoder("KOI8-R"))
        XCTAssertNotNil(transcoder("KOI8-R"))
        XCTAssertEqual(transcoder("utf-8")?.isPassthrough, true)
        XCTAssertEqual(transcoder("iso-8859-1")?.kind, .latin1)
        XCTAssertEqual(transcoder("ISO-8859-15")?.kind, .iconv)
        // Aliases (charset_aliases.def) are the charset they name.
        XCTAssertEqual(transcoder("latin1")?.kind, .latin1)
        XCTAssertEqual(transcoder("u16")?.kind, .utf16BE)
        XCTAssertEqual(transcoder("cp1252")?.name, "windows-1252")
    }

    func testNamedIsThreadSafe() {
        let names = ["windows-1250", "CP1253", "ISO-8859-7", "GBK", "EUC-JP", "KOI8-U"]
        DispatchQueue.concurrentPerform(iterations: 12) { i in
            let t = XMLTranscoder.named(names[i % names.count])
            precondition(t != nil)
            _ = transcode(t!, Array(0x20...0x7E))
        }
    }

    // MARK: - XMLTranscoder vs the expat backend

    /// Every fixture of corpus/encodings, transcoded and relabelled UTF-8, converts with the
    /// expat backend to exactly its expected JSON.
    func testEncodingFixturesMatchExpectedJSON() throws {
        let dir = Paths.corpus.appendingPathComponent("encodings")
        var checked = 0
        for url in Paths.files(in: dir, extensions: ["xml"]) {
            var bytes = [UInt8](try Data(contentsOf: url))
            let t: XMLTranscoder
            var declared: String
            if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
                t = .utf16(bigEndian: bytes[0] == 0xFE)
                bytes.removeFirst(2)
                declared = "UTF-16"
            } else {
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
                let head = String(decoding: bytes.prefix(100), as: UTF8.self)
                let m = try XCTUnwrap(head.range(of: #"encoding="[^"]+""#, options: .regularExpression))
                declared = String(head[m].dropFirst(10).dropLast())
                t = try XCTUnwrap(XMLTranscoder.named(declared), declared)
            }
            if t.isPassthrough { continue }
            for piece in [1, 3, 4096, Int.max] {
                let r = transcode(t, bytes, piece: piece)
                XCTAssertNil(r.invalidAt, url.lastPathComponent)
                var text = String(decoding: r.utf8, as: UTF8.self)
                text = text.replacingOccurrences(of: "encoding=\"\(declared)\"", with: "encoding=\"UTF-8\"")
                let name = url.lastPathComponent
                let source = "encodings/" + name
                let got = try jsonLines(.bytes(Array(text.utf8)), source: source).text
                // The UTF-8 copy has no `encoding` member (it is UTF-8).
                let expected = try String(contentsOf: Paths.corpus.appendingPathComponent(
                    "expected/" + name.replacingOccurrences(of: ".xml", with: ".jsonl")), encoding: .utf8)
                    .replacingOccurrences(of: #","encoding":"[^"]+""#, with: "", options: .regularExpression)
                XCTAssertEqual(got, expected, "\(name) in pieces of \(piece)")
            }
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 11)
    }

    /// Byte by byte (and, for multi-byte encodings, lead x trail byte), the transcoder
    /// accepts exactly what the expat backend accepts, with the same text.
    func testSingleCharactersAgreeWithExpat() throws {
        let trails: [UInt8] = [0x20, 0x3C, 0x40, 0x41, 0x5C, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0xA1, 0xC0, 0xFC, 0xFE, 0xFF]
        let encodings = ["windows-1252", "KOI8-R", "ISO-8859-15", "windows-1251", "CP1255", "ISO-8859-1", "US-ASCII",
                         "Shift_JIS", "EUC-KR", "Big5", "GB2312", "EUC-JP", "GBK", "UTF8"]
        var compared = 0
        for name in encodings {
            let t = try XCTUnwrap(transcoder(name), name)
            var sequences: [[UInt8]] = (0x80...0xFF).map { [UInt8($0)] } + [[0x01], [0x5C], [0x7E]]
            if case .iconv = t.kind {
                for lead in 0x80...0xFF { for trail in trails { sequences.append([UInt8(lead), trail]) } }
                if name == "EUC-JP" { sequences.append([0x8F, 0xB0, 0xA1]) }
                if name == "UTF8" { sequences += [[0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xEF, 0xBF, 0xBE]] }
            }
            for seq in sequences {
                let body = Array("<rss version=\"2.0\"><channel><item><title>X".utf8) + seq
                    + Array("X</title></item></channel></rss>".utf8)
                let expat = try expatTitle(Array("<?xml version=\"1.0\" encoding=\"\(name)\"?>".utf8) + body)
                let r = transcode(t, body)
                let hex = seq.map { String($0, radix: 16) }.joined(separator: " ")
                if r.invalidAt != nil {
                    XCTAssertNil(expat, "\(name) \(hex): transcoder invalid, expat accepts")
                    continue
                }
                let mine = try expatTitle(Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>".utf8) + r.utf8)
                XCTAssertEqual(mine, expat, "\(name) \(hex)")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 1000)
    }

    /// UTF-16 corner cases (surrogates, non-characters), both byte orders, against expat.
    func testUTF16AgreesWithExpat() throws {
        let cases: [[UInt16]] = [[0xD83D, 0xDE00], [0xD800, 0x0041], [0xDBFF, 0x003C], [0xD800, 0xD800], [0xDC00],
                                 [0xFFFE], [0xFFFF], [0x0001], [0x0085], [0xFEFF], [0xFFFD], [0x00E9, 0x4E2D]]
        for bigEndian in [true, false] {
            for units in cases {
                func encode(_ us: [UInt16]) -> [UInt8] {
                    us.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
                }
                let decl = encode(Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?>".utf16))
                let body = encode(Array("<rss version=\"2.0\"><channel><item><title>X".utf16) + units
                    + Array("X</title></item></channel></rss>".utf16))
                let expat = try expatTitle(encode([0xFEFF]) + decl + body)
                let r = transcode(.utf16(bigEndian: bigEndian), body)
                let label = "\(bigEndian ? "BE" : "LE") \(units.map { String($0, radix: 16) })"
                if r.invalidAt != nil {
                    XCTAssertNil(expat, "\(label): transcoder invalid, expat accepts")
                    continue
                }
                XCTAssertNotNil(expat, label)
                XCTAssertEqual(try expatTitle(Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>".utf8) + r.utf8), expat, label)
            }
        }
    }

    // MARK: - HTML entities

    func testHTMLEntities() throws {
        func lookup(_ name: String) -> String? {
            var name = name
            return name.withUTF8 { HTMLEntities.utf8(named: UnsafeRawBufferPointer($0)) }
                .map { String(decoding: $0, as: UTF8.self) }
        }
        XCTAssertEqual(lookup("nbsp"), "\u{A0}")
        XCTAssertEqual(lookup("mdash"), "—")
        XCTAssertEqual(lookup("eacute"), "é")
        XCTAssertEqual(lookup("Eacute"), "É")
        XCTAssertEqual(lookup("AElig"), "Æ")
        XCTAssertEqual(lookup("zwnj"), "\u{200C}")
        XCTAssertEqual(lookup("euro"), "€")
        XCTAssertNil(lookup("EACUTE"))
        XCTAssertNil(lookup("nbs"))
        XCTAssertNil(lookup("nbspx"))
        XCTAssertNil(lookup("bogus"))
        XCTAssertNil(lookup(""))
        XCTAssertNil(lookup("amp"))   // the XML entities are not in the table
        XCTAssertEqual(HTMLEntities.count, 248)

        // All 248 entries of the C file, with their bytes.
        let source = try String(contentsOf: Paths.repo.appendingPathComponent("CSources/CFeedStream/html_entities.c"),
                                encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"\{ "([A-Za-z0-9]+)", "((?:\\x[0-9a-f]{2})+)" \}"#)
        let matches = regex.matches(in: source, range: NSRange(source.startIndex..., in: source))
        XCTAssertEqual(matches.count, 248)
        var seen = Set<String>()
        for (i, m) in matches.enumerated() {
            let name = String(source[Range(m.range(at: 1), in: source)!])
            let hex = source[Range(m.range(at: 2), in: source)!]
            let value = hex.split(separator: "\\").map { UInt8($0.dropFirst(), radix: 16)! }
            var n = name
            let got = n.withUTF8 { HTMLEntities.utf8(named: UnsafeRawBufferPointer($0)) }.map(Array.init)
            XCTAssertEqual(got, value, name)
            let entry = HTMLEntities.entry(at: i)
            XCTAssertEqual(Array(entry.name), Array(name.utf8))
            seen.insert(name)
        }
        XCTAssertEqual(seen.count, 248)
    }

    // MARK: - InputStage

    private func run(_ stage: InputStage, _ input: [UInt8], piece: Int = Int.max)
        -> (out: [UInt8], failure: StreamFailure?, chunks: Int)
    {
        var out: [UInt8] = []
        var chunks = 0
        var failure: StreamFailure?
        var i = 0
        while i < input.count {
            let n = min(piece, input.count - i)
            failure = input[i..<(i + n)].withUnsafeBytes { p in
                stage.feed(p) { c in
                    XCTAssertLessThanOrEqual(c.count, InputStage.chunkSize)
                    out += c
                    chunks += 1
                }
            }
            i += n
        }
        let end = stage.finish { c in out += c; chunks += 1 }
        XCTAssertEqual(end, failure ?? end)
        return (out, end, chunks)
    }

    private var text: [UInt8] { Array((0..<3000).map { "line \($0) of the feed <item/>\n" }.joined().utf8) }

    func testGzipPlainPassesThrough() {
        for piece in [1, 2, 3, 1000, Int.max] {
            let s = InputStage(limits: .default)
            let r = run(s, text, piece: piece)
            XCTAssertEqual(r.out, text)
            XCTAssertNil(r.failure)
            XCTAssertEqual(s.bytesIn, UInt64(text.count))
            XCTAssertEqual(s.bytesXML, UInt64(text.count))
        }
        // One byte, and 0x1F alone: plain, flushed by finish.
        for one: [UInt8] in [[0x3C], [0x1F]] {
            let s = InputStage(limits: .default)
            let r = run(s, one)
            XCTAssertEqual(r.out, one)
            XCTAssertNil(r.failure)
            XCTAssertEqual(s.bytesXML, 1)
        }
        let s = InputStage(limits: .default)
        XCTAssertEqual(run(s, []).out, [])
        XCTAssertEqual(s.bytesXML, 0)
    }

    func testGzipSingleAndMultiMember() {
        let big = Array((0..<40000).map { "<item><title>\($0)</title></item>\n" }.joined().utf8)   // > 256 KiB
        let one = gzip(big)
        for piece in [1, 7, 65536, Int.max] {
            let s = InputStage(limits: .default)
            let r = run(s, one, piece: piece == 1 ? 1 : piece)
            XCTAssertEqual(r.out, big, "pieces of \(piece)")
            XCTAssertNil(r.failure)
            XCTAssertEqual(s.bytesIn, UInt64(one.count))
            XCTAssertEqual(s.bytesXML, UInt64(big.count))
            if piece == Int.max { XCTAssertGreaterThanOrEqual(r.chunks, 5) }
        }
        // Members with zero padding between and after them.
        let a = Array("first document\n".utf8), b = Array("second document\n".utf8)
        let multi = gzip(a) + [0, 0, 0] + gzip(b) + gzip([]) + [0, 0]
        for piece in [1, 2, 5, Int.max] {
            let s = InputStage(limits: .default)
            let r = run(s, multi, piece: piece)
            XCTAssertEqual(r.out, a + b, "pieces of \(piece)")
            XCTAssertNil(r.failure)
            XCTAssertEqual(s.bytesIn, UInt64(multi.count))
        }
        // reset() makes a stage reusable.
        let s = InputStage(limits: .default)
        _ = run(s, gzip(a) + [0x41])
        s.reset()
        XCTAssertEqual(run(s, multi).out, a + b)
        XCTAssertEqual(s.bytesXML, UInt64(a.count + b.count))
    }

    func testGzipFailures() throws {
        let a = Array("first document\n".utf8)
        // Trailing garbage after a member.
        for piece in [1, Int.max] {
            let s = InputStage(limits: .default)
            let r = run(s, gzip(a) + [0, 0x41, 0x42], piece: piece)
            XCTAssertEqual(r.out, a)
            XCTAssertEqual(r.failure, StreamFailure(kind: .fatal, code: .gzip, message: "trailing garbage after gzip data"))
        }
        // Truncated inside a member, and right after a member's 0x1F.
        for input in [Array(gzip(text).dropLast(10)), gzip(a) + [0x1F], [0x1F, 0x8B]] {
            for piece in [1, Int.max] {
                let s = InputStage(limits: .default)
                let r = run(s, input, piece: piece)
                XCTAssertEqual(r.failure, StreamFailure(kind: .truncated, code: .gzip, message: "truncated gzip data"))
                if input.count > 100 { XCTAssertEqual(r.out, Array(text.prefix(r.out.count))) }
            }
        }
        // Corrupt: what was inflated before the error still goes out.
        var corrupt = gzip(text, level: 0)   // stored blocks: the text is in the clear
        let at = corrupt.count - 8 - 200
        corrupt[at] ^= 0xFF   // inside the data: caught by the CRC at the end
        for piece in [1, Int.max] {
            let s = InputStage(limits: .default)
            let r = run(s, corrupt, piece: piece)
            XCTAssertEqual(r.failure, StreamFailure(kind: .fatal, code: .gzip, message: "corrupt gzip data"))
            XCTAssertEqual(r.out.count, text.count, "pieces of \(piece)")
            XCTAssertEqual(s.bytesXML, UInt64(text.count))
        }
        var header = gzip(text)
        header[3] = 0xE0   // reserved flag bits: an inflate error at once
        let s = InputStage(limits: .default)
        let first = header.withUnsafeBytes { p in s.feed(p) { _ in XCTFail("no output") } }
        XCTAssertEqual(first, StreamFailure(kind: .fatal, code: .gzip, message: "corrupt gzip data"))
        // After a failure, pushes are ignored (not counted) and return it again.
        let again = [UInt8](repeating: 0x41, count: 10).withUnsafeBytes { p in s.feed(p) { _ in XCTFail("no output") } }
        XCTAssertEqual(again, first)
        XCTAssertEqual(s.bytesIn, UInt64(header.count))
        XCTAssertEqual(s.finish { _ in XCTFail("no output") }, first)
    }

    /// InputStage pushed gives the same bytes and failures as ChunkReader (the C core's input
    /// stage, pull mode) on the same streams.
    func testInputStagePushedMatchesChunkReader() throws {
        let a = Array("<rss version=\"2.0\"><channel/></rss>\n".utf8)
        var corrupt = gzip(text, level: 0)
        corrupt[corrupt.count - 300] ^= 0xFF
        let streams: [[UInt8]] = [a, gzip(a), gzip(a) + [0, 0] + gzip(a), gzip(a) + [0x41], Array(gzip(text).dropLast(3)),
                                  corrupt, [0x1F], [0x1F, 0x8B], gzip(a) + [0x1F, 0x8B, 0x08]]
        for (i, stream) in streams.enumerated() {
            let path = NSTemporaryDirectory() + "gzipstage-\(getpid())-\(i)"
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(stream)))
            defer { unlink(path) }
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            let reader = ChunkReader(fd: fd, inflate: true)
            var pulled: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1000)
            while true {
                let n = buffer.withUnsafeMutableBytes { reader.read(into: $0) }
                if n == 0 { break }
                pulled += buffer[0..<n]
            }
            let r = run(InputStage(limits: .default), stream, piece: 3)
            XCTAssertEqual(r.out, pulled, "stream \(i)")
            XCTAssertEqual(r.failure, reader.failure, "stream \(i)")
        }
    }
}
