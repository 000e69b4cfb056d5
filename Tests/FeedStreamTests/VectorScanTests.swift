// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import FeedStreamBatch
import FeedStreamTools
import Foundation
import XCTest

/// The vector scans (`ByteScan.swift` for the tokenizer, `JSONEscaping.swift` for the
/// writers) give what the byte-by-byte reading gives, wherever
/// the bytes sit: the 16-byte step, the 8-byte step and the last bytes are each taken
/// at every alignment, over every file of our corpus whole and, when the shared
/// real-world corpus is there, over a slice of each of its files (JSON escaping) and
/// every tenth file whole at one alignment, a different one each (the tokenizer): the
/// whole of it at 16 alignments takes minutes in a debug build.
final class VectorScanTests: XCTestCase {
    /// Every file of our corpus.
    private var ourFiles: [URL] {
        Paths.files(in: Paths.corpus.appendingPathComponent("feeds"))
            + Paths.files(in: Paths.corpus.appendingPathComponent("fuzz-regressions"))
    }

    /// The shared real-world corpus's files, when present.
    private var realFiles: [URL] { Paths.files(in: Paths.sharedReal).filter { $0.pathExtension != "tsv" } }

    func testFirstSpecialByteIsTheFirstByteOfTheClass() {
        // Every byte value at every lane, in a block of plain bytes.
        for lane in 0..<16 {
            for v in 0...255 {
                var block = [UInt8](repeating: 0x61, count: 16)
                block[lane] = UInt8(v)
                let k = block.withUnsafeBytes { firstSpecialByte16($0.baseAddress!, 0x3C, 0x26, 0x5D) }
                let special = v < 0x20 || v >= 0x80 || v == 0x3C || v == 0x26 || v == 0x5D
                XCTAssertEqual(k, special ? lane : 16, "byte \(v) at \(lane)")
            }
        }
        // The first of several.
        let block: [UInt8] = Array("abc\"def\\gh\u{1}ijklm".utf8)
        XCTAssertEqual(block.withUnsafeBytes { firstSpecialByte16($0.baseAddress!, 0x22, 0x5C, 0x5C) }, 3)
    }

    /// The tokenizer's text step (``skipTextBytes16``) stops at the bytes to handle and
    /// only there: every byte value at every lane of a step (and of the step after it),
    /// in a run of plain ASCII. Tabs and line feeds are text; a lone byte >= 0x80 is a
    /// malformed sequence, stopped at; the others below 0x20 and the three asked for stop
    /// the step.
    func testTheTextStepStopsAtEveryByteToHandleAndNowhereElse() {
        let steps = UTF8Steps.table(.xml)
        defer { steps.deallocate() }
        for lane in 0..<32 {
            for v in 0...255 {
                var block = [UInt8](repeating: 0x61, count: 40)
                block[lane] = UInt8(v)
                var i = 0
                let found = block.withUnsafeBufferPointer { skipTextBytes16($0.baseAddress!, &i, 40, 0x3C, 0x26, 0x5D, steps) }
                let stops = (v < 0x20 && v != 0x09 && v != 0x0A) || v >= 0x80 || v == 0x3C || v == 0x26 || v == 0x5D
                // A lead byte the last step ends with: the next step starts at it, and
                // fewer than 16 bytes are left (the byte-by-byte reading finds it).
                let cut = lane == 31 && v >= 0xC2 && v <= 0xF4
                XCTAssertEqual(found, stops && !cut, "byte \(v) at \(lane)")
                XCTAssertEqual(i, stops ? lane : 32, "byte \(v) at \(lane)")
            }
        }
    }

    /// The name step (``asciiNameRun16(_:)``): the run of ASCII name characters but `:`
    /// from the first byte, for every byte value at every lane.
    func testTheNameStepEndsAtTheFirstByteThatIsNotAnASCIINameCharacter() {
        for lane in 0..<16 {
            for v in 0...255 {
                var block = Array("aZ09-._zAyBxCwDv".utf8)
                block[lane] = UInt8(v)
                let run = block.withUnsafeBytes { asciiNameRun16($0.loadUnaligned(as: SIMD16<UInt8>.self)) }
                let c = UInt8(v)
                let nameCharacter = (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
                    || c == 0x2D || c == 0x2E || c == 0x5F
                XCTAssertEqual(run, nameCharacter ? 16 : lane, "byte \(v) at \(lane)")
            }
        }
    }

    /// The tokenizer's line count (`lineFeeds`): the count and the last line feed's index
    /// as a byte-by-byte count gives them, at every length to 40 and every alignment, in
    /// long runs (past the 255 steps counted in byte lanes) and with none at all.
    func testLineFeedsAreCountedAtEveryAlignment() {
        func reference(_ b: ArraySlice<UInt8>) -> (Int, Int) {
            (b.filter { $0 == 0x0A }.count, b.lastIndex(of: 0x0A).map { $0 - b.startIndex } ?? -1)
        }
        func counted(_ b: ArraySlice<UInt8>) -> (Int, Int) {
            b.withUnsafeBufferPointer { lineFeeds($0.baseAddress!, $0.count) }
        }
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D   // xorshift, a fixed seed
        func next() -> UInt64 {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            return seed
        }
        var bytes = (0..<9_000).map { _ in next() % 8 == 0 ? UInt8(0x0A) : UInt8(0x61 + next() % 26) }
        bytes += [UInt8](repeating: 0x0A, count: 4_200) + [UInt8](repeating: 0x20, count: 300)
        for start in 0..<16 {
            for n in Array(0...40) + [255 * 16 - 1, 255 * 16, 255 * 16 + 17, 9_000, bytes.count - start] {
                let b = bytes[start..<start + n]
                let (c, l) = counted(b), (rc, rl) = reference(b)
                XCTAssertEqual(c, rc, "count, start \(start), n \(n)")
                XCTAssertEqual(l, rl, "last, start \(start), n \(n)")
            }
        }
        // Known values: none; 4,200 in a row (more than 255 in each byte lane) after 9,000.
        XCTAssertEqual(counted([UInt8](repeating: 0x61, count: 100)[...]).1, -1)
        XCTAssertEqual(counted([UInt8](repeating: 0x61, count: 100)[...]).0, 0)
        let tail = counted(bytes[9_000...])
        XCTAssertEqual(tail.0, 4_200)
        XCTAssertEqual(tail.1, 4_199)
        XCTAssertEqual(counted(Array("a\nbb\n\nccc".utf8)[...]).0, 3)
        XCTAssertEqual(counted(Array("a\nbb\n\nccc".utf8)[...]).1, 5)
    }

    /// bytesEqual (names and namespace URIs at each element) is `memcmp(...) == 0`: every
    /// length to 70, equal, and different at each single byte.
    func testBytesEqualIsMemcmp() {
        let a = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 41 &+ 7) }
        for n in 0...70 {
            for start in [0, 3] {
                var b = a
                XCTAssertTrue(a.withUnsafeBytes { x in b.withUnsafeBytes { bytesEqual(x.baseAddress! + start, $0.baseAddress! + start, n) } })
                for k in 0..<n {
                    b = a
                    b[start + k] ^= 0x20
                    let equal = a.withUnsafeBytes { x in b.withUnsafeBytes { bytesEqual(x.baseAddress! + start, $0.baseAddress! + start, n) } }
                    XCTAssertFalse(equal, "n \(n), start \(start), differing at \(k)")
                }
            }
        }
        let s1 = Array("http://purl.org/dc/elements/1.1/".utf8), s2 = Array("http://purl.org/dc/elements/1.1X".utf8)
        XCTAssertTrue(bytesEqual(s1, s1, s1.count))
        XCTAssertFalse(bytesEqual(s1, s2, s1.count))
        XCTAssertTrue(bytesEqual(s1, s2, s1.count - 1))
    }

    /// JSON string escaping as the writers define it, one byte at a time: the oracle.
    private func referenceEscaped(_ s: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        let b = Array(s)
        var i = 0
        func scalar(_ v: UInt32) { out += Array(String(Unicode.Scalar(v)!).utf8) }
        while i < b.count {
            let c = b[i]
            switch c {
            case 0x22: out += Array("\\\"".utf8); i += 1
            case 0x5C: out += Array("\\\\".utf8); i += 1
            case 0x0A: out += Array("\\n".utf8); i += 1
            case 0x0D: out += Array("\\r".utf8); i += 1
            case 0x09: out += Array("\\t".utf8); i += 1
            case 0x08: out += Array("\\b".utf8); i += 1
            case 0x0C: out += Array("\\f".utf8); i += 1
            case 0..<0x20: out += Array(String(format: "\\u%04x", c).utf8); i += 1
            case 0x20..<0x80: out.append(c); i += 1
            default:
                // A well-formed UTF-8 sequence is kept (a C1 control as windows-1252
                // reads it, where it defines one); any other byte is U+FFFD.
                let len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0
                if len > 0 && i + len <= b.count,
                   let decoded = String(validating: b[i..<i + len], as: UTF8.self),
                   decoded.unicodeScalars.count == 1 {
                    let v = decoded.unicodeScalars.first!.value
                    if v >= 0x80 && v < 0xA0, let w = windows1252[Int(v - 0x80)] { scalar(w) } else { out += b[i..<i + len] }
                    i += len
                } else {
                    scalar(0xFFFD)
                    i += 1
                }
            }
        }
        return out
    }

    /// copyBytes (the short copies of the JSON writer, the machine's arena and scratch
    /// buffers) moves bytes as memmove does: every length to 72 (past the 64 copied
    /// without a call), the regions apart or overlapping by up to 5 bytes either way, and
    /// by 16 and 20 (an overlap across the four loads of 16), the bytes around left alone.
    func testShortCopiesAreMemmove() {
        let pattern = (0..<160).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for n in 0...72 {
            for shift in Array(-5...5) + [-20, -16, 16, 20] {
                var expected = pattern, actual = pattern
                let src = 40, dst = 40 + shift
                expected.withUnsafeMutableBytes { b in _ = memmove(b.baseAddress! + dst, b.baseAddress! + src, n) }
                actual.withUnsafeMutableBytes { b in copyBytes(to: b.baseAddress! + dst, from: b.baseAddress! + src, n) }
                XCTAssertEqual(actual, expected, "n \(n), shift \(shift)")
            }
        }
        // A known result: 5 bytes two places to the right, over themselves.
        var b: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        b.withUnsafeMutableBytes { copyBytes(to: $0.baseAddress! + 2, from: $0.baseAddress!, 5) }
        XCTAssertEqual(b, [1, 2, 1, 2, 3, 4, 5, 8])
    }

    /// 4,000 strings of 1–12 ASCII runs (0–19 bytes) each followed by one of `fragments`,
    /// from a fixed seed (the same strings each run).
    private func randomMixes(of fragments: [[UInt8]], seed: UInt64) -> [[UInt8]] {
        var seed = seed
        func next(_ bound: Int) -> Int {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            return Int(seed % UInt64(bound))
        }
        return (0..<4000).map { _ in
            var s: [UInt8] = []
            for _ in 0..<(1 + next(12)) {
                s += [UInt8](repeating: UInt8(0x61 + next(26)), count: next(20))
                s += fragments[next(fragments.count)]
            }
            return s
        }
    }

    private func escaped(_ s: ArraySlice<UInt8>, trusted: Bool = false) -> [UInt8] {
        var buffer = ByteBuffer(capacity: 64)
        s.withUnsafeBytes { trusted ? buffer.appendTrustedJSONEscaped($0, closing: nil) : buffer.appendJSONEscaped($0) }
        return Array(buffer.bytes)
    }

    /// As the writer writes a string member's value (``ByteBuffer/appendTrustedJSONString(_:closing:redecoding:key:)``:
    /// up to 64 bytes with nothing to handle copied inline, the rest escaped), with its
    /// closing quote.
    private func writtenTrusted(_ s: ArraySlice<UInt8>) -> [UInt8] {
        var buffer = ByteBuffer(capacity: 64)
        s.withUnsafeBytes { buffer.appendTrustedJSONString($0, closing: 0x22, redecoding: false, key: "t") }
        return Array(buffer.bytes)
    }

    func testJSONEscapingAtEveryAlignmentIsTheByteByByteEscaping() throws {
        var checked = 0
        let slices = try ourFiles.map { ($0, try [UInt8](Data(contentsOf: $0))) } + realFiles.map { url in
            // 528 bytes from the middle of the file: its text, past the prolog.
            let data = try [UInt8](Data(contentsOf: url))
            let from = max(0, data.count / 2 - 264)
            return (url, Array(data[from..<min(data.count, from + 528)]))
        }
        for (url, data) in slices {
            // Whole from each of 16 offsets, and each offset's first 1–40 bytes (the
            // 8-byte and byte-by-byte paths at the end).
            for offset in 0..<min(16, data.count) {
                let s = data[offset...]
                XCTAssertEqual(escaped(s), referenceEscaped(s), "\(url.lastPathComponent) from \(offset)")
                for length in [1, 7, 15, 16, 17, 31, 33, 40] where offset + length <= data.count {
                    let t = data[offset..<offset + length]
                    XCTAssertEqual(escaped(t), referenceEscaped(t), "\(url.lastPathComponent) [\(offset), \(length)]")
                }
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
        // Special bytes at every lane of both halves of a step, after plain runs.
        for lane in 0..<40 {
            for special: [UInt8] in [[0x22], [0x5C], [0x01], [0xC3, 0xA9], [0xC2, 0x80], [0xFF], [0xE2, 0x82]] {
                let s = ArraySlice([UInt8](repeating: 0x78, count: lane) + special + [UInt8](repeating: 0x79, count: 20))
                XCTAssertEqual(escaped(s), referenceEscaped(s), "\(special) at \(lane)")
            }
        }
        // Strings of 16–40 bytes, whose last bytes are looked at as the tail of their
        // last 16: a special byte at every lane, alone and with another in the last
        // byte (the first, already handled, inside the tail's lanes before the second).
        for length in 16...40 {
            for lane in 0..<length {
                for special: [UInt8] in [[0x22], [0x0A], [0xC3, 0xA9], [0xE2, 0x80, 0x93], [0xFF]] {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    bytes.replaceSubrange(lane..<min(length, lane + special.count), with: special.prefix(length - lane))
                    XCTAssertEqual(escaped(bytes[...]), referenceEscaped(bytes[...]), "\(special) at \(lane) of \(length)")
                    if lane < length - 1 {
                        bytes[length - 1] = 0x5C
                        XCTAssertEqual(escaped(bytes[...]), referenceEscaped(bytes[...]), "\(special) at \(lane), \\ last, of \(length)")
                    }
                }
            }
        }
        // The expected bytes themselves, for one (the reference above is this file's own).
        XCTAssertEqual(escaped(ArraySlice(Array("0123456789abcdef\"tail\\é\n".utf8))),
                       Array("0123456789abcdef\\\"tail\\\\é\\n".utf8))
    }

    /// The 16-byte steps read non-ASCII text through a UTF-8 automaton, a character
    /// possibly spanning two steps, and go byte by byte only where something is to be
    /// escaped, mapped or replaced: every kind of sequence (well-formed of each length
    /// and at each bound, C1 controls, overlong, surrogate, beyond U+10FFFF, truncated,
    /// stray) at every lane of the first three steps, then random mixes, each compared
    /// with the byte-by-byte escaping; and some expected bytes written out.
    func testJSONEscapingOfUTF8AcrossStepsIsTheByteByByteEscaping() {
        let fragments: [[UInt8]] = [
            [0xC3, 0xA9], [0xC2, 0xA0], [0xDF, 0xBF], [0xE2, 0x82, 0xAC], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x9D, 0x84, 0x9E], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xC2, 0x80], [0xC2, 0x81], [0xC2, 0x9F],   // C1: mapped, undefined in windows-1252, mapped
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82], [0xF0, 0x9D, 0x84], [0xC3],
            [0x22], [0x5C], [0x0A], [0x01], [0x1F], [0x7F],
        ]
        var checked = 0
        for f in fragments {
            for lane in 0..<48 {
                for after: [UInt8] in [Array(repeating: 0x79, count: 20), [0xC3, 0xA9] + Array(repeating: 0x79, count: 17), [0xE2, 0x82]] {
                    let s = ArraySlice([UInt8](repeating: 0x78, count: lane) + f + after)
                    XCTAssertEqual(escaped(s), referenceEscaped(s), "\(f) at \(lane) before \(after.prefix(2))")
                    checked += 1
                }
            }
        }
        // Random mixes of the fragments and ASCII runs.
        for s in randomMixes(of: fragments, seed: 0x9E37_79B9_7F4A_7C15) {
            XCTAssertEqual(escaped(s[...]), referenceEscaped(s[...]), "\(s)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 8000)
        // Expected bytes: é across the first two steps kept; a C1 control across them
        // mapped (U+0080 is € in windows-1252); a truncated sequence across them, then
        // ASCII, replaced byte by byte; an overlong in the second step replaced.
        let a15 = [UInt8](repeating: 0x61, count: 15), b20 = [UInt8](repeating: 0x62, count: 20)
        XCTAssertEqual(escaped((a15 + [0xC3, 0xA9] + b20)[...]), a15 + [0xC3, 0xA9] + b20)
        XCTAssertEqual(escaped((a15 + [0xC2, 0x80] + b20)[...]), a15 + [0xE2, 0x82, 0xAC] + b20)
        XCTAssertEqual(escaped((a15 + [0xE2, 0x82] + b20)[...]), a15 + [0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD] + b20)
        XCTAssertEqual(escaped((a15 + [0x61, 0xC0, 0x80] + b20)[...]),
                       a15 + [0x61, 0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD] + b20)
        XCTAssertEqual(escaped((a15 + [0xF0, 0x9D, 0x84, 0x9E, 0x22] + b20)[...]),
                       a15 + [0xF0, 0x9D, 0x84, 0x9E, 0x5C, 0x22] + b20)
    }

    /// Well-formed UTF-8 (an item's fields from the strict tokenizer: ``ByteBuffer/trustsUTF8``)
    /// is escaped without the automaton, and exactly as with it: every well-formed
    /// sequence, C1 controls (still mapped to windows-1252) and bytes to escape, at every
    /// lane of the first three steps, a character spanning two steps, strings from every
    /// offset of the corpus's well-formed files, and random mixes.
    func testTrustedUTF8IsEscapedAsCheckedUTF8() throws {
        let fragments: [[UInt8]] = [
            [0xC3, 0xA9], [0xC2, 0xA0], [0xDF, 0xBF], [0xE2, 0x82, 0xAC], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x9D, 0x84, 0x9E], [0xF4, 0x8F, 0xBF, 0xBF], [0xC2, 0x80], [0xC2, 0x81],
            [0xC2, 0x9F], [0x22], [0x5C], [0x0A], [0x01], [0x7F],
        ]
        var checked = 0
        for f in fragments {
            for lane in 0..<48 {
                for after: [UInt8] in [Array(repeating: 0x79, count: 20), [0xE2, 0x80, 0x93] + Array(repeating: 0x79, count: 17),
                                       [0xC2, 0x85, 0x22] + Array(repeating: 0xC3, count: 1) + [0xA9]] {
                    let s = ArraySlice([UInt8](repeating: 0x78, count: lane) + f + after)
                    XCTAssertEqual(escaped(s, trusted: true), referenceEscaped(s), "\(f) at \(lane) before \(after.prefix(3))")
                    checked += 1
                }
            }
        }
        for s in randomMixes(of: fragments, seed: 0x2545_F491_4F6C_DD1D) {
            XCTAssertEqual(escaped(s[...], trusted: true), referenceEscaped(s[...]), "\(s)")
            checked += 1
        }
        for url in ourFiles {
            let data = try [UInt8](Data(contentsOf: url))
            guard Array(String(decoding: data, as: UTF8.self).utf8) == data else { continue }   // UTF-8 files only
            for offset in 0..<min(16, data.count) where data[offset] & 0xC0 != 0x80 {
                let s = data[offset...]
                XCTAssertEqual(escaped(s, trusted: true), referenceEscaped(s), "\(url.lastPathComponent) from \(offset)")
                checked += 1
            }
        }
        // Short strings and the last bytes of longer ones, read in overlapping words: a
        // byte to handle at each place, followed by the byte a borrow from it could flag
        // ('#' after '"', ']' after '\\', a space after a control), and a second one later.
        for length in 1...72 {
            for at in 0..<length {
                for (special, follower): ([UInt8], UInt8) in [([0x22], 0x23), ([0x5C], 0x5D), ([0x01], 0x20),
                                                              ([0x0A], 0x20), ([0xC2, 0x85], 0x23), ([0xC2, 0xA0], 0x5D)] {
                    var s = [UInt8](repeating: 0x78, count: length)
                    s.replaceSubrange(at..<min(length, at + special.count), with: special.prefix(length - at))
                    if at + special.count < length { s[at + special.count] = follower }
                    if at + special.count + 3 < length { s[at + special.count + 3] = 0x22 }
                    guard Array(String(decoding: s, as: UTF8.self).utf8) == s else { continue }   // whole characters
                    XCTAssertEqual(escaped(s[...], trusted: true), referenceEscaped(s[...]), "\(s)")
                    XCTAssertEqual(writtenTrusted(s[...]), referenceEscaped(s[...]) + [0x22], "written: \(s)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 10000)
        // Written as a member's value: short strings copied as they are, 16, 32, 33 and 64
        // bytes (the longest copied inline) and 65; a quote at the last byte of 32 and of
        // 64, and at byte 40 of 64 (in none of the four loads' first lanes), escaped.
        let x64 = [UInt8](repeating: 0x78, count: 64)
        for n in [16, 32, 33, 64] { XCTAssertEqual(writtenTrusted(x64[..<n]), Array(x64[..<n]) + [0x22], "\(n)") }
        XCTAssertEqual(writtenTrusted((x64 + [0x79])[...]), x64 + [0x79, 0x22])
        XCTAssertEqual(writtenTrusted((x64[..<31] + [0x22])[...]), Array(x64[..<31]) + [0x5C, 0x22, 0x22])
        XCTAssertEqual(writtenTrusted((x64[..<63] + [0x22])[...]), Array(x64[..<63]) + [0x5C, 0x22, 0x22])
        XCTAssertEqual(writtenTrusted((x64[..<40] + [0x5C] + x64[..<23])[...]),
                       Array(x64[..<40]) + [0x5C, 0x5C] + Array(x64[..<23]) + [0x22])
        XCTAssertEqual(writtenTrusted((x64[..<20] + [0xC2, 0x80])[...]), Array(x64[..<20]) + [0xE2, 0x82, 0xAC, 0x22])
        XCTAssertEqual(writtenTrusted((x64[..<50] + [0xC2, 0x80])[...]), Array(x64[..<50]) + [0xE2, 0x82, 0xAC, 0x22])
        // Expected bytes: é and a C1 control across the first two steps.
        let a15 = [UInt8](repeating: 0x61, count: 15), b20 = [UInt8](repeating: 0x62, count: 20)
        XCTAssertEqual(escaped((a15 + [0xC3, 0xA9] + b20)[...], trusted: true), a15 + [0xC3, 0xA9] + b20)
        XCTAssertEqual(escaped((a15 + [0xC2, 0x80] + b20)[...], trusted: true), a15 + [0xE2, 0x82, 0xAC] + b20)
        // A character C2 xx kept as written across two steps: its second byte is not in
        // the step that stored the first (the steps store what they look at).
        XCTAssertEqual(escaped((a15 + [0xC2, 0xB1] + b20)[...], trusted: true), a15 + [0xC2, 0xB1] + b20)
        XCTAssertEqual(escaped((a15 + [0xF0, 0x9D, 0x84, 0x9E, 0x22] + b20)[...], trusted: true),
                       a15 + [0xF0, 0x9D, 0x84, 0x9E, 0x5C, 0x22] + b20)
    }

    /// Text and CDATA in any script go through the tokenizer's UTF-8 automaton 16 bytes a
    /// step (``skipTextBytes16``): every kind of sequence — well-formed, the ones left to
    /// the byte-by-byte path (U+FFC0–U+FFFF, among them U+FFFE and U+FFFF that XML
    /// forbids), malformed, cut short — and line breaks, tabs and controls, at each lane
    /// of a step and across two, before a tail of CJK text, is read as expat reads it (the
    /// same lines, or the same error at the same place); and kept text is the text
    /// written.
    func testTextInAnyScriptIsReadAsExpatReadsIt() throws {
        let fragments: [[UInt8]] = [
            [0xC3, 0xA9], [0xE2, 0x82, 0xAC], Array("日本語".utf8), [0xF0, 0x9D, 0x84, 0x9E], [0xC2, 0x85],
            [0xEF, 0xBF, 0xBD], [0xEF, 0xBC, 0x81], [0xEF, 0xBF, 0xBE], [0xEF, 0xBF, 0xBF], [0xED, 0x9F, 0xBF],
            [0xED, 0xA0, 0x80], [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xE2, 0x82], [0xFF],
            // Line breaks and tabs (text, not stopped at), CR (normalized), a control.
            [0x0A], [0x09, 0x0A, 0x09], [0x0D, 0x0A], [0x0D], [0x0B],
        ]
        // 27 bytes, all non-ASCII; or ASCII, so that a sequence cut short is followed by
        // ASCII within its step (malformed there, not a character cut at the step's end).
        let tails = [Array("漢字かなカナ한국어".utf8), Array("plainASCIItextAfterIt-0123".utf8)]
        let diff = BackendDiff(backends: [.expat, .swift])
        var report = BackendDiff.Report()
        var kept = 0
        for fragment in fragments {
            for pad in 0..<20 {
                for tail in tails {
                    let text = [UInt8](repeating: 0x61, count: pad) + fragment + tail
                    let doc = Array("<rss version=\"2.0\"><channel><item><title>".utf8) + text
                        + Array("</title><description><![CDATA[".utf8) + text
                        + Array("]]></description></item></channel></rss>".utf8)
                    try diff.compare(.bytes(doc), source: "t", into: &report)
                    guard let s = String(validating: text, as: UTF8.self), !s.unicodeScalars.contains(where: {
                        $0.value >= 0xFFFE && $0.value <= 0xFFFF || $0.value < 0x20 && ![0x09, 0x0A, 0x0D].contains($0.value)
                    }) else { continue }
                    // Well-formed and allowed: the title and the summary are the text.
                    let line = try jsonLines(.bytes(doc), source: "t", parser: SwiftFeedParser()).text
                    let item = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.split(separator: "\n")[0].utf8)) as? [String: Any])
                    // Line ends normalized; the value trimmed (U+0085 is white space too, as
                    // Python's str.strip() sees it); then C1 controls as windows-1252 reads them.
                    let expected = String(s.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
                        .drop(while: { $0 == "\n" || $0 == "\t" || $0 == "\u{85}" }))
                        .replacingOccurrences(of: "\u{85}", with: "\u{2026}")
                    XCTAssertEqual(item["title"] as? String, expected, "\(fragment) after \(pad), before \(tail.prefix(3))")
                    XCTAssertEqual(item["summary"] as? String, expected, "\(fragment) after \(pad), before \(tail.prefix(3))")
                    kept += 1
                }
            }
        }
        for d in report.differences.prefix(10) { print(d) }
        XCTAssertEqual(report.differences.count, 0)
        XCTAssertEqual(report.documents, fragments.count * 20 * 2)
        XCTAssertEqual(report.rejectedDocuments, 11 * 20 * 2)   // the malformed and forbidden ones
        XCTAssertEqual(kept, 14 * 20 * 2)
    }

    /// Every corpus file parsed by the Swift backend from each of 16 alignments in
    /// memory, in one piece: the lines the same as from a file read whole.
    func testTheSwiftTokenizerGivesTheSameLinesAtEveryAlignment() throws {
        var checked = 0
        // Ours at every alignment; every tenth real file at one, each a different one.
        let real = realFiles.enumerated().filter { $0.offset % 10 == 0 }.map { ($0.element, [$0.offset / 10 % 15 + 1]) }
        for (url, offsets) in ourFiles.map({ ($0, Array(1..<16)) }) + real {
            let data = try [UInt8](Data(contentsOf: url))
            guard !data.starts(with: [0x1F, 0x8B]) else { continue }
            let reference = try jsonLines(.bytes(data), source: "t", parser: SwiftFeedParser()).text
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count + 16, alignment: 64)
            defer { buffer.deallocate() }
            for offset in offsets {
                let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + data.count])
                slice.copyBytes(from: data)
                let once = OneChunk(UnsafeRawBufferPointer(slice))
                let text = try jsonLines(.chunks(FeedChunks { once.next() }), source: "t", parser: SwiftFeedParser()).text
                XCTAssertEqual(text, reference, "\(url.lastPathComponent) at alignment \(offset)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }
}

/// One chunk of memory, given once (`@unchecked Sendable`: read on the parsing thread only).
private final class OneChunk: @unchecked Sendable {
    private let bytes: UnsafeRawBufferPointer
    private var given = false
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
    func next() -> UnsafeRawBufferPointer? {
        defer { given = true }
        return given ? nil : bytes
    }
}
