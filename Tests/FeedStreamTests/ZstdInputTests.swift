// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamTestSupport
import Foundation
import XCTest

/// zstd input, found by its magic number like gzip, read frame after frame by the same
/// member loop: the same lines as the gzip twin, on every backend and read path; a
/// corrupt frame keeps every later frame; the ratio limit holds.
final class ZstdInputTests: XCTestCase {
    private func dump() -> [UInt8] {
        bytes((0..<40).map { rss("z\($0)", items: $0 % 5 + 1) }.joined())
    }


    /// The events of `stream` through `backend`, every way: whole, in pieces (the parser
    /// decoding), through the read-ahead pipeline (a thread decoding).
    private func everyWay(_ stream: [UInt8], _ backend: FeedBackend) throws -> [(String, EventLog)] {
        var logs: [(String, EventLog)] = []
        let whole = EventLog()
        _ = try backend.makeParser().parse(.bytes(stream), handler: whole)
        logs.append(("whole", whole))
        for size in [1, 3, 4096] {
            let log = EventLog()
            let chunks = ChunkList(stream, size: size)
            _ = try backend.makeParser().parse(.chunks(FeedChunks { chunks.next() }), handler: log)
            logs.append(("pieces of \(size)", log))
        }
        let fd = try temporaryDescriptor(stream)
        defer { close(fd) }
        let piped = EventLog()
        _ = try ReadAheadPipeline(chunkSize: 777, depth: 2).parse(fileDescriptor: fd, with: backend.makeParser(),
                                                                    handler: piped)
        logs.append(("read ahead", piped))
        return logs
    }

    func testAZstdDumpGivesTheLinesOfItsGzipTwin() throws {
        let d = dump()
        let frames = stride(from: 0, to: d.count, by: 1000).map { zstd(Array(d[$0..<min($0 + 1000, d.count)])) }
        for backend in FeedBackend.allCases {
            let expected = EventLog()
            _ = try backend.makeParser().parse(.bytes(gzip(d)), handler: expected)
            XCTAssertTrue(expected.errors.isEmpty)
            for (stream, label) in [(zstd(d), "one frame"), (frames.flatMap { $0 }, "a frame per 1,000 bytes"),
                                    (zstd(d) + [0, 0, 0, 0], "zero padding after it")] {
                for (how, log) in try everyWay(stream, backend) {
                    XCTAssertEqual(log.events, expected.events, "\(backend), \(label), \(how)")
                    XCTAssertEqual(log.errors, [], "\(backend), \(label), \(how)")
                }
            }
        }
    }

    func testSkippableFramesArePassedOver() throws {
        let d = dump()
        // A skippable frame (magic 0x184D2A53, 5 bytes of user data) between two frames.
        let skippable: [UInt8] = [0x53, 0x2A, 0x4D, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5]
        let half = d.count / 2
        let stream = zstd(Array(d[..<half])) + skippable + zstd(Array(d[half...]))
        let expected = EventLog()
        _ = try SwiftFeedParser().parse(.bytes(d), handler: expected)
        for backend in FeedBackend.allCases {
            for (how, log) in try everyWay(stream, backend) {
                XCTAssertEqual(log.events, expected.events, "\(backend), \(how)")
            }
        }
    }

    func testACorruptFrameKeepsEveryLaterFrame() throws {
        var frames = (0..<12).map { zstd(bytes(rss("f\($0)", items: 2))) }
        frames[4][frames[4].count / 2] ^= 0x5A
        let stream = frames.flatMap { $0 }
        let start4 = UInt64(frames[0..<4].map(\.count).reduce(0, +))
        for backend in FeedBackend.allCases {
            var first: EventLog?
            for (how, log) in try everyWay(stream, backend) {
                let titles = Set(log.events.compactMap { $0.components(separatedBy: " title=").last }.filter { $0.hasSuffix(" 1") })
                for i in 0..<12 where i != 4 { XCTAssertTrue(titles.contains("f\(i) 1"), "\(backend), \(how): f\(i)") }
                let gaps = log.errors.filter { $0.compressedRange != nil }
                XCTAssertEqual(gaps.map(\.code), [.zstd], "\(backend), \(how)")
                XCTAssertEqual(gaps.first?.compressedRange, start4..<(start4 + UInt64(frames[4].count)), "\(backend), \(how)")
                XCTAssertEqual(gaps.first?.message, "corrupt zstd data")
                if let first { XCTAssertEqual(log.errors, first.errors, "\(backend), \(how)") } else { first = log }
            }
        }
    }

    func testAFailingFrameGivesTheSameBytesWhateverTheCuts() throws {
        // A frame of one raw block whose content size says more than the block holds:
        // libzstd copies a raw block out as its bytes come, and decodes a frame that is
        // all in its input in one pass (writing nothing of one that fails), so what the
        // frame gave before its error depended on how the input was cut.
        let raw = Array(bytes(rss("b", items: 1)).prefix(150))
        let blockHeader = UInt32(raw.count) << 3 | 1   // raw, last
        let broken: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0xF0]   // single segment, content size 240
            + [UInt8(blockHeader & 0xFF), UInt8(blockHeader >> 8 & 0xFF), UInt8(blockHeader >> 16)] + raw
        let stream = zstd(bytes(rss("a", items: 1))) + broken + zstd(bytes(rss("c", items: 1)))
        for backend in FeedBackend.allCases {
            var first: EventLog?
            for (how, log) in try everyWay(stream, backend) {
                XCTAssertTrue(log.events.contains { $0.hasSuffix("title=c 0") }, "\(backend), \(how): \(log.events)")
                XCTAssertEqual(log.errors.filter { $0.compressedRange != nil }.count, 1, "\(backend), \(how)")
                if let first {
                    XCTAssertEqual(log.events, first.events, "\(backend), \(how)")
                    XCTAssertEqual(log.errors, first.errors, "\(backend), \(how)")
                } else {
                    first = log
                }
            }
        }
    }

    func testATruncatedFrameSaysSo() throws {
        let z = zstd(dump())
        for backend in FeedBackend.allCases {
            let log = EventLog()
            _ = try backend.makeParser().parse(.bytes(Array(z.dropLast(z.count / 3))), handler: log)
            XCTAssertEqual(log.errors.last?.code, .zstd, "\(backend)")
            XCTAssertEqual(log.errors.last?.message, "truncated zstd data", "\(backend)")
        }
    }

    func testTheRatioLimitHoldsForZstd() throws {
        let bomb = bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><description>")
            + [UInt8](repeating: UInt8(ascii: "a"), count: 24 << 20) + bytes("</description></channel></rss>")
        let z = zstd(bomb, level: 19)
        XCTAssertLessThan(z.count, 24 << 10)
        for backend in FeedBackend.allCases {
            let log = EventLog()
            _ = try backend.makeParser().parse(.bytes(z), handler: log)
            XCTAssertTrue(log.errors.contains { $0.code == .limitExceeded && $0.message.contains("decompression ratio") },
                          "\(backend): \(log.errors)")
        }
    }
}
