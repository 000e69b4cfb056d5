// SPDX-License-Identifier: Apache-2.0
import CFeedStreamInflate
import CZlib
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import FeedStreamBatch
import FeedStreamTools
import Foundation
import FeedStreamTestSupport
import XCTest

/// The two gzip inflaters (``GzipInflater``): zlib, and ISA-L where it is installed.
/// On intact gzip they must give the same bytes, member boundaries and counts, through
/// every way in (the Swift stage in pieces of any size, the C core, the read-ahead
/// pipeline, a dump in parts, the command line); on damage, each reports it.
final class InflaterTests: XCTestCase {
    override func tearDown() {
        cfs_inflate_set_isal_counter_ceiling(UInt32(1) << 31)
        super.tearDown()
    }

    /// The inflaters to compare: zlib, and ISA-L when it is here. CI installs ISA-L and
    /// sets FEEDSTREAM_REQUIRE_ISAL=1, so that there these tests cannot pass on zlib alone.
    private func inflaters() throws -> [GzipInflater] {
        if ProcessInfo.processInfo.environment["FEEDSTREAM_REQUIRE_ISAL"] == "1" {
            XCTAssertTrue(GzipInflater.isalAvailable, "ISA-L is required here (FEEDSTREAM_REQUIRE_ISAL=1) and did not load")
        }
        return GzipInflater.isalAvailable ? [.zlib, .isal] : [.zlib]
    }

    // MARK: gzip members built by hand (the header fields zlib's gzip writer never sets)

    private struct Header {
        var name: String?
        var comment: String?
        var extra: [UInt8]?
        var headerCRC = false
        var method: UInt8 = 8
        var reservedFlags: UInt8 = 0
        var corruptHeaderCRC = false
    }

    /// A gzip member of `data`: the header as told, raw deflate at `level`, the trailer
    /// (CRC-32, length), each changeable to make it wrong.
    private func member(_ data: [UInt8], level: Int32 = 6, header h: Header = Header(),
                        crcDelta: UInt32 = 0, lengthDelta: UInt32 = 0) -> [UInt8] {
        var flags: UInt8 = h.reservedFlags
        if h.headerCRC { flags |= 2 }
        if h.extra != nil { flags |= 4 }
        if h.name != nil { flags |= 8 }
        if h.comment != nil { flags |= 16 }
        var out: [UInt8] = [0x1F, 0x8B, h.method, flags, 0x12, 0x34, 0x56, 0x78, 0, 3]
        if let extra = h.extra { out += [UInt8(extra.count & 0xFF), UInt8(extra.count >> 8)] + extra }
        if let name = h.name { out += Array(name.utf8) + [0] }
        if let comment = h.comment { out += Array(comment.utf8) + [0] }
        if h.headerCRC {
            let crc = UInt32(out.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) })
            let c = h.corruptHeaderCRC ? crc ^ 1 : crc
            out += [UInt8(c & 0xFF), UInt8((c >> 8) & 0xFF)]
        }
        out += deflated(data, level: level, flush: Z_FINISH, raw: true)
        let crc = UInt32(data.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }) &+ crcDelta
        let length = UInt32(truncatingIfNeeded: data.count) &+ lengthDelta
        for v in [crc, length] { out += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        return out
    }

    /// Feed text: the real corpus's kind of bytes, ~1 MB, different on every line.
    private lazy var text: [UInt8] = {
        var s = ""
        for i in 0..<9000 {
            s += "<item><title>Item \(i) of the feed</title><link>https://example.org/\(i * 7919 % 10007)</link>"
                + "<description>&lt;p&gt;\(String(repeating: "word\(i % 97) ", count: i % 13))&lt;/p&gt;</description></item>\n"
        }
        return Array(s.utf8)
    }()

    /// Runs `input` through a Swift input stage in pieces of `piece` bytes.
    private func stage(_ input: [UInt8], piece: Int, inflater: GzipInflater)
        -> (out: [UInt8], failure: StreamFailure?, stage: InputStage)
    {
        let s = InputStage(limits: .unlimited)
        s.inflater = inflater
        s.memberStarts = []
        var out: [UInt8] = []
        var i = 0
        while i < input.count {
            let n = min(piece, input.count - i)
            _ = input[i..<(i + n)].withUnsafeBytes { p in s.feed(p) { out += $0 } }
            i += n
        }
        let failure = s.finish { out += $0 }
        return (out, failure, s)
    }

    // MARK: intact streams: the same bytes, boundaries and counts

    func testIntactStreamsGiveTheSameBytesMembersAndCounts() throws {
        let small = Array(text[0..<5000])
        let headers = [
            Header(),
            Header(name: "feeds.xml", comment: "a comment", extra: [1, 2, 3, 4, 5, 6], headerCRC: true),
            Header(extra: [UInt8](repeating: 7, count: 700)),
        ]
        let members: [[UInt8]] = [
            member(text, level: 6, header: headers[0]),
            member(small, level: 0, header: headers[1]),   // stored blocks
            member([], level: 6, header: headers[2]),      // an empty member
            member(text, level: 1, header: headers[0]),
            member(small, level: 9, header: headers[1]),
        ]
        let padding: [UInt8] = [0, 0, 0]
        let stream = members[0] + members[1] + padding + members[2] + members[3] + padding + members[4]
        let expected = text + small + text + small
        // Where each member starts: compressed offset, uncompressed offset (own figures).
        var starts: [(UInt64, UInt64)] = []
        var c = 0, u = 0
        for (k, m) in members.enumerated() {
            starts.append((UInt64(c), UInt64(u)))
            c += m.count + (k == 1 || k == 3 ? padding.count : 0)
            u += [text.count, small.count, 0, text.count, small.count][k]
        }
        for inflater in try inflaters() {
            for piece in [1, 7, 1000, 65536, Int.max] {
                let r = stage(stream, piece: piece == 1 ? 1 : piece, inflater: inflater)
                XCTAssertNil(r.failure, "\(inflater) piece \(piece)")
                XCTAssertTrue(r.out == expected, "\(inflater) piece \(piece): \(r.out.count) bytes, expected \(expected.count)")
                XCTAssertEqual(r.stage.bytesIn, UInt64(stream.count), "\(inflater) piece \(piece)")
                XCTAssertEqual(r.stage.compressedIn + r.stage.paddingIn, UInt64(stream.count), "\(inflater) piece \(piece)")
                XCTAssertEqual(r.stage.memberStarts?.map(\.compressed), starts.map(\.0), "\(inflater) piece \(piece)")
                XCTAssertEqual(r.stage.memberStarts?.map(\.uncompressed), starts.map(\.1), "\(inflater) piece \(piece)")
            }
        }
    }

    func testTrailingGarbageAfterAMemberFailsAlike() throws {
        let stream = member(Array(text[0..<20000])) + [0, 0, 0x41, 0x42]
        for inflater in try inflaters() {
            for piece in [1, 3, 4096, Int.max] {
                let r = stage(stream, piece: piece, inflater: inflater)
                XCTAssertTrue(r.out == Array(text[0..<20000]), "\(inflater) piece \(piece)")
                XCTAssertEqual(r.failure?.message, "trailing garbage after gzip data", "\(inflater) piece \(piece)")
            }
        }
    }

    /// ISA-L's 32-bit counter of output is brought back past 2^31 so that a member
    /// longer than 4 GiB inflates: with the ceiling lowered to 128 KiB, a 1 MB member's
    /// counter is brought back several times and the member still comes out whole, and
    /// the trailer's length is still checked (against the step's own 64-bit count).
    func testMembersPastISALsCounterInflateWhole() throws {
        guard try inflaters().contains(.isal) else { throw skip("ISA-L is not available here") }
        cfs_inflate_set_isal_counter_ceiling(128 << 10)
        let stream = member(text) + member(text, lengthDelta: 1)
        let r = stage(stream, piece: 40000, inflater: .isal)
        XCTAssertTrue(r.out == text + text)
        // The second member's length is one off: the check still catches it.
        XCTAssertEqual(r.failure?.message, "corrupt gzip data")
        XCTAssertEqual(r.stage.memberStarts?.count, 2)
    }

    // MARK: damage: each inflater reports it, at the same point where zlib parses

    func testWrongTrailersAndHeadersFailAlike() throws {
        let data = Array(text[0..<50000])
        let cases: [(String, [UInt8], [UInt8], String)] = [
            ("CRC-32", member(data, crcDelta: 1), data, "corrupt gzip data"),
            ("length", member(data, lengthDelta: 1), data, "corrupt gzip data"),
            ("method", member(data, header: Header(method: 7)), [], "corrupt gzip data"),
            ("reserved flag", member(data, header: Header(reservedFlags: 0x20)), [], "corrupt gzip data"),
            ("header CRC", member(data, header: Header(name: "x", headerCRC: true, corruptHeaderCRC: true)), [],
             "corrupt gzip data"),
            ("cut in the trailer", Array(member(data).dropLast(3)), data, "truncated gzip data"),
            ("cut in the header", Array(member(data, header: Header(name: "feeds.xml")).prefix(14)), [],
             "truncated gzip data"),
        ]
        for (what, stream, out, message) in cases {
            for inflater in try inflaters() {
                    for piece in [1, 5, 4096, Int.max] {
                    let r = stage(stream, piece: piece, inflater: inflater)
                    XCTAssertTrue(r.out == out, "\(what), \(inflater), piece \(piece): \(r.out.count) bytes")
                    XCTAssertEqual(r.failure?.message, message, "\(what), \(inflater), piece \(piece)")
                }
            }
        }
    }

    /// The inflater is a reader's, not the process's: two stages in one thread, one
    /// with each inflater, inflate their members each with its own, member after member.
    func testEachReaderInflatesWithItsOwnInflater() throws {
        guard try inflaters().contains(.isal) else { throw skip("ISA-L is not available here") }
        let stream = member(Array(text[0..<50000])) + member(Array(text[50000..<100000]))
        let a = InputStage(limits: .unlimited), b = InputStage(limits: .unlimited)
        a.inflater = .isal
        b.inflater = .zlib
        var outA: [UInt8] = [], outB: [UInt8] = []
        for piece in stride(from: 0, to: stream.count, by: 1000) {
            let slice = Array(stream[piece..<min(piece + 1000, stream.count)])
            _ = slice.withUnsafeBytes { p in a.feed(p) { outA += $0 } }
            _ = slice.withUnsafeBytes { p in b.feed(p) { outB += $0 } }
            XCTAssertEqual(a.memberInflater, .isal)
            XCTAssertEqual(b.memberInflater, .zlib)
        }
        XCTAssertNil(a.finish { outA += $0 })
        XCTAssertNil(b.finish { outB += $0 })
        XCTAssertTrue(outA == Array(text[0..<100000]) && outB == outA)
    }

    /// A stream cut anywhere: each inflater stops with "truncated gzip data", having
    /// handed on only bytes of the original, and at most one byte short of zlib (ISA-L
    /// can hold back the last symbol before the cut: the one difference measured between
    /// the inflaters on truncated input, docs/SCHEMA.md "Gzip").
    func testCutStreamsAreTruncatedAndKeepWhatInflated() throws {
        let stream = member(text) + member(Array(text[0..<300000]), level: 1)
        let whole = text + Array(text[0..<300000])
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<25 {
            let cut = Int.random(in: 20..<(stream.count - 1), using: &generator)
            var zlibCount = 0
            for inflater in try inflaters() {
                    let r = stage(Array(stream[0..<cut]), piece: 65536, inflater: inflater)
                if cut == member(text).count {
                    XCTAssertNil(r.failure)   // cut between the members: a whole stream
                } else {
                    XCTAssertEqual(r.failure?.message, "truncated gzip data", "\(inflater), cut at \(cut)")
                }
                XCTAssertTrue(r.out[...] == whole[0..<r.out.count], "\(inflater), cut at \(cut): not a prefix")
                if inflater == .zlib { zlibCount = r.out.count } else {
                    XCTAssertTrue((zlibCount - 1)...zlibCount ~= r.out.count, "cut at \(cut): \(r.out.count) against \(zlibCount)")
                }
            }
        }
    }

    // MARK: every way in

    /// The gzip inputs of the project's corpora (corpus/bad: a bad CRC, a bad header,
    /// trailing garbage, a stream cut short — damage both inflaters report at the same
    /// byte) and a dump of the corpus's feeds gzipped a member per feed, through every
    /// backend (the C core's stage and the Swift one): the same lines with both
    /// inflaters, and the dump's the same as from its plain bytes.
    func testCorpusGzipInputsConvertTheSameWithBothInflaters() throws {
        let gzFiles = ["feeds", "bad", "encodings", "hostile"].flatMap {
            Paths.files(in: Paths.corpus.appendingPathComponent($0)).filter { $0.pathExtension == "gz" }
        }
        // And the corpus's feeds, gzipped here one member per feed and all as one dump.
        let feeds = Paths.files(in: Paths.corpus.appendingPathComponent("feeds"), extensions: ["xml", "rss", "atom"])
        XCTAssertGreaterThan(feeds.count, 5)
        let dumpMembers = try feeds.map { member(Array(try Data(contentsOf: $0))) }
        let dumpPlain = try feeds.flatMap { Array(try Data(contentsOf: $0)) }
        var inputs: [(String, [UInt8])] = try gzFiles.map { ($0.lastPathComponent, Array(try Data(contentsOf: $0))) }
        inputs.append(("dump.gz", dumpMembers.flatMap { $0 }))
        for (name, input) in inputs {
            var reference: [String]?
            for inflater in try inflaters() {
                    var outputs: [String] = []
                for backend in FeedBackend.allCases {
                    let parser = backend.makeParser()
                    (parser as? InflaterChoosing)?.inflater = inflater
                    outputs.append(try jsonLines(.bytes(input), source: name, parser: parser).text)
                }
                if let reference {
                    XCTAssertEqual(outputs, reference, "\(name): \(inflater) differs from zlib")
                } else {
                    reference = outputs
                }
            }
            if name == "dump.gz" {
                let plain = try jsonLines(.bytes(dumpPlain), source: name, parser: FeedBackend.swift.makeParser()).text
                XCTAssertEqual(reference?.first, plain)
            }
        }
    }

    /// The batch converter (what `feedstream convert` runs) on one `.gz` dump: one
    /// thread, the read-ahead pipeline (-j 2), the dump in parts (-j 3), with each
    /// inflater: the same output.
    func testTheBatchConverterGivesTheSameOutputWithBothInflaters() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inflaters-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A dump big enough for the pipeline and for parts (several MB of XML).
        let feeds = Paths.files(in: Paths.corpus.appendingPathComponent("feeds"), extensions: ["xml", "rss", "atom"])
        var plain: [UInt8] = []
        while plain.count < 5 << 20 {
            for f in feeds { plain += Array(try Data(contentsOf: f)) }
        }
        let gz = dir.appendingPathComponent("dump.xml.gz")
        try Data(gzip(plain, level: 1)).write(to: gz)
        var outputs: [String: Data] = [:]
        for inflater in try inflaters() {
            for jobs in ["1", "2", "3"] {
                var options = BatchConverter.Options(jobs: Int(jobs)!, makeParser: { FeedBackend.swift.makeParser() })
                options.inflater = inflater
                options.pipelineMinimumBytes = 1 << 20
                options.dumpPartBytes = 1 << 20
                    let output = MemoryOutput()
                let summary = try BatchConverter(options: options).run([BatchInput.file(gz.path)], to: output)
                XCTAssertEqual(summary.failedInputs, 0)
                XCTAssertEqual(summary.bytesXML, UInt64(plain.count), "\(inflater) -j \(jobs)")
                outputs["\(inflater) -j \(jobs)"] = Data(output.string.utf8)
            }
        }
        let first = try XCTUnwrap(outputs["zlib -j 1"])
        XCTAssertGreaterThan(first.count, 1 << 20)
        for (k, v) in outputs { XCTAssertTrue(v == first, "\(k) differs from zlib -j 1") }
    }
}
