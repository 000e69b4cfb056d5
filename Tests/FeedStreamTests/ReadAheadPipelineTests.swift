// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// The two-stage pipeline (read + inflate on a second thread) must be indistinguishable
/// from the parser reading the file itself: same events, same errors, same summary —
/// also on corrupt, truncated and odd gzip. And `.chunks` must parse like `.bytes`.
final class ReadAheadPipelineTests: XCTestCase {
    private func dump() throws -> [UInt8] {
        let three = try [UInt8](Data(contentsOf: Paths.corpus.appendingPathComponent("feeds/dump-three.xml")))
        var d: [UInt8] = []
        for i in 0..<40 { d += bytes(rss("feed\(i)", items: i % 7)) + three }
        return d
    }


    /// Events and summary of parsing `data` directly and through the pipeline.
    private func assertSame(_ data: [UInt8], _ label: String, pipeline: ReadAheadPipeline = ReadAheadPipeline(),
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let fd = try temporaryDescriptor(data)
        defer { close(fd) }
        let direct = EventLog()
        let expected = try ExpatFeedParser().parse(.fileDescriptor(fd), handler: direct)
        lseek(fd, 0, SEEK_SET)
        let piped = EventLog()
        let got = try pipeline.parse(fileDescriptor: fd, with: ExpatFeedParser(), handler: piped)
        XCTAssertEqual(piped.events, direct.events, label, file: file, line: line)
        XCTAssertEqual(piped.errors, direct.errors, label, file: file, line: line)
        XCTAssertEqual(got, expected, label, file: file, line: line)
    }

    func testWellFormedPlainAndGzipInputs() throws {
        let d = try dump()
        try assertSame(d, "plain")
        try assertSame(gzip(d), "gzip")
        try assertSame(gzip(Array(d[0..<(d.count / 2)])) + gzip(Array(d[(d.count / 2)...])), "two members")
        try assertSame(gzip(d) + [0, 0, 0, 0], "zero padding after the member")
        try assertSame(gzip([]) + gzip(d), "an empty member first")
        try assertSame([], "empty file")
        try assertSame(gzip([]), "gzip of nothing")
        try assertSame(bytes("  \n"), "whitespace only")
        try assertSame([0x1F], "one byte")
        // gzip whose content is gzip: inflated once, as the parser does (the pipeline's
        // parser must not take the inflated 1F 8B for gzip and inflate a second time).
        try assertSame(gzip(gzip(d)), "gzip inside gzip")
        // Tiny buffers and one in flight: every hand-over path of the queue.
        try assertSame(gzip(d), "small buffers", pipeline: ReadAheadPipeline(chunkSize: 1000, depth: 1))
    }

    func testTruncatedGzipAtManyPoints() throws {
        let gz = gzip(try dump())
        for cut in [1, 2, 10, 11, 40, gz.count / 3, gz.count / 2, gz.count - 9, gz.count - 4, gz.count - 1] {
            try assertSame(Array(gz[0..<cut]), "cut at \(cut) of \(gz.count)")
        }
        // Cut inside a document, and cut between documents (after a root end tag).
        let doc = bytes(rss("a", items: 3)) + bytes(rss("b", items: 2))
        let between = gzip(doc)
        try assertSame(Array(between[0..<(between.count - 8)]), "cut in the trailer: every document complete")
    }

    func testCorruptGzipAndTrailingGarbage() throws {
        let d = try dump()
        let gz = gzip(d)
        for at in [12, gz.count / 4, gz.count / 2] {
            var bad = gz
            for k in 0..<16 { bad[at + k] ^= 0x5A }
            try assertSame(bad, "corrupt at \(at)")
        }
        try assertSame(gz + bytes("garbage"), "trailing garbage")
        try assertSame(gzip(bytes("<rss><channel>")) + bytes("x"), "garbage after an unfinished document")
        try assertSame([0x1F, 0x8B, 0x08, 0xFF, 0xFF], "corrupt header")
    }

    /// gzip that breaks off (an invalid block, or the end of the file) right after bytes
    /// that are no XML: their error is the document's own, malformed XML, and the gzip
    /// error the stream's, reported alone — on every backend, however the input came:
    /// whole, in small pieces, through the pipeline in small buffers. (The libxml2 backend
    /// looked at a document's first bytes only as they doubled, so depending on the cuts
    /// their error became the gzip one; found by fuzz_libxml2.)
    func testAnErrorInTheLastBytesBeforeAGzipFailureIsTheDocumentsWhateverTheCuts() throws {
        let garbage: [UInt8] = [0xBE, 0xCC, 0x2F, 0x43, 0x2B, 0xDC]
        let declaration = bytes("<?xml version=\"1.0\"?>")
        let cases: [(label: String, xml: [UInt8], document: Int, items: Int)] = [
            ("bytes that are no XML", garbage, 1, 0),
            ("the same after a declaration", declaration + garbage + bytes("</t"), 1, 0),
            ("the same after a document", bytes(rss("a", items: 2)) + declaration + garbage, 2, 2),
        ]
        for c in cases {
            for corrupt in [true, false] {
                let stream = gzipBreakingOff(c.xml, corrupt: corrupt)
                let message = corrupt ? "corrupt gzip data" : "truncated gzip data"
                for backend in FeedBackend.allCases {
                    for (how, run) in try ways(stream, backend) {
                        let label = "\(c.label), \(corrupt ? "corrupt" : "truncated"), \(backend), \(how)"
                        let log = EventLog()
                        let summary = try run(log)
                        XCTAssertEqual(log.errors.map(\.code), [.malformedXML, .gzip], label)
                        XCTAssertEqual(log.errors.map(\.document), [c.document, 0], label)
                        XCTAssertEqual(log.errors.last?.message, message, label)
                        XCTAssertEqual(summary.items, c.items, label)
                        // Truncated, the stream's error comes first; corrupt, the gzip data is a
                        // gap after which reading goes on, and the document's error came first.
                        XCTAssertEqual(summary.firstError?.code, corrupt ? .malformedXML : .gzip, label)
                    }
                }
            }
        }
    }

    /// A stream that breaks off in a document's first bytes (a byte order mark, the
    /// start of a declaration: what the libxml2 adapter holds, and, for the mark, what
    /// the read-ahead pipeline's JSON sniffing reads before the parser starts) gives
    /// the same events whichever way it comes, on every backend.
    func testAStreamBreakingOffInADocumentsFirstBytesIsReportedAlikeEveryWay() throws {
        for xml in [[0xEF, 0xBB, 0xBF], [0xEF, 0xBB, 0xBF, 0x3C], bytes("<?xm"), bytes("<?xml version=")] as [[UInt8]] {
            for corrupt in [true, false] {
                let stream = gzipBreakingOff(xml, corrupt: corrupt)
                for backend in FeedBackend.allCases {
                    // bytesIn: what the caller gave; fed in pieces, nothing after the failure.
                    func parsed(_ s: ParseSummary) -> ParseSummary { var s = s; s.bytesIn = 0; return s }
                    let expected = EventLog()
                    let summary = try backend.makeParser().parse(.bytes(stream), handler: expected)
                    XCTAssertEqual(expected.errors.last?.code, .gzip, "\(xml), \(backend)")
                    for (how, run) in try ways(stream, backend).dropFirst() {
                        let label = "\(xml), \(corrupt ? "corrupt" : "truncated"), \(backend), \(how)"
                        let log = EventLog()
                        XCTAssertEqual(parsed(try run(log)), parsed(summary), label)
                        XCTAssertEqual(log.events, expected.events, label)
                        XCTAssertEqual(log.errors, expected.errors, label)
                    }
                }
            }
        }
    }

    /// The ways `stream` may reach `backend`'s parser: whole, in small pieces (the parser
    /// inflating), through the read-ahead pipeline in small buffers (a thread inflating).
    private func ways(_ stream: [UInt8], _ backend: FeedBackend) throws
        -> [(String, (EventLog) throws -> ParseSummary)]
    {
        var runs: [(String, (EventLog) throws -> ParseSummary)] = [
            ("whole", { try backend.makeParser().parse(.bytes(stream), handler: $0) }),
        ]
        for size in [1, 2, 3, 5, 8] {
            runs.append(("pieces of \(size)", { log in
                let chunks = ChunkList(stream, size: size)
                return try backend.makeParser().parse(.chunks(FeedChunks { chunks.next() }), handler: log)
            }))
        }
        for size in [1, 2, 5, 4096] {
            runs.append(("pipeline buffers of \(size)", { [self] log in
                let fd = try temporaryDescriptor(stream)
                defer { close(fd) }
                return try ReadAheadPipeline(chunkSize: size, depth: 2)
                    .parse(fileDescriptor: fd, with: backend.makeParser(), handler: log)
            }))
        }
        return runs
    }

    func testChunksParseLikeBytes() throws {
        let d = try dump()
        for input in [d, gzip(d)] {
            let expected = try jsonLines(.bytes(input), source: "x")
            for size in [1, 7, 4096, 1 << 20] {
                let chunks = ChunkList(input, size: size)
                let got = try jsonLines(.chunks(FeedChunks { chunks.next() }), source: "x")
                XCTAssertEqual(got.text, expected.text, "chunks of \(size)")
                XCTAssertEqual(got.summary, expected.summary, "chunks of \(size)")
            }
        }
    }

    func testAnErrorFromTheChunkSourceStopsTheParse() throws {
        struct Boom: Error {}
        let d = bytes(rss("a", items: 3))
        let calls = ChunkList(d, size: 10)
        XCTAssertThrowsError(try ExpatFeedParser().parse(.chunks(FeedChunks {
            if calls.delivered > 30 { throw Boom() }
            return calls.next()
        }), handler: EventLog())) { XCTAssertTrue($0 is Boom) }
        // The parser is still usable afterwards.
        XCTAssertEqual(try ExpatFeedParser().parse(.bytes(d), handler: EventLog()).items, 3)
    }
}

/// Hands out `data` in chunks of `size` bytes.
final class ChunkList: @unchecked Sendable {   // used on one thread
    private let data: UnsafeMutableRawBufferPointer
    private let size: Int
    private var offset = 0
    private(set) var delivered = 0

    init(_ bytes: [UInt8], size: Int) {
        let data = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { data.copyMemory(from: $0) }
        self.data = data
        self.size = size
        count = bytes.count
    }

    private let count: Int

    deinit { data.deallocate() }

    func next() -> UnsafeRawBufferPointer? {
        guard offset < count else { return nil }
        let n = min(size, count - offset)
        defer { offset += n; delivered += n }
        return UnsafeRawBufferPointer(rebasing: data[offset..<(offset + n)])
    }
}
