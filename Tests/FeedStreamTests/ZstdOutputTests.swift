// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamTestSupport
@testable import FeedStreamBatch
import XCTest

/// ZstdOutput writes one zstd frame (with its checksum) that libzstd reads back byte for
/// byte, the same bytes for any number of threads and however the writes were cut.
final class ZstdOutputTests: XCTestCase {
    private func sample(_ count: Int) -> [UInt8] {
        var text: [UInt8] = []
        for i in 0..<count {
            text += Array("{\"kind\":\"item\",\"n\":\(i),\"title\":\"item \(i &* 7919 % 100_003)\"}\n".utf8)
        }
        return text
    }

    private func compress(_ text: [UInt8], level: Int = ZstdOutput.defaultLevel, threads: Int, piece: Int) throws -> [UInt8] {
        let sink = MemoryOutput()
        let z = ZstdOutput(sink, level: level, threads: threads)
        var offset = 0
        while offset < text.count {
            let n = min(piece, text.count - offset)
            try text[offset..<(offset + n)].withUnsafeBytes { try z.write($0) }
            offset += n
        }
        try z.finish()
        try z.finish()   // once is enough; again is harmless
        XCTAssertEqual(z.bytesWritten, UInt64(sink.bytes.count))
        return sink.bytes
    }

    func testRoundTripAndTheSameBytesForAnyThreads() throws {
        let text = sample(300_000)   // ~17 MB: several of libzstd's jobs at level 3
        let reference = try compress(text, threads: 1, piece: 1 << 20)
        XCTAssertEqual(Array(reference.prefix(4)), [0x28, 0xB5, 0x2F, 0xFD])   // the frame's magic
        XCTAssertEqual(unzstd(reference), text)
        XCTAssertLessThan(reference.count, text.count / 4)
        for (threads, piece) in [(2, 4096), (4, 100_003)] {
            XCTAssertEqual(try compress(text, threads: threads, piece: piece), reference, "\(threads) threads")
        }
    }

    func testAnEmptyStreamIsAValidFrame() throws {
        let bytes = try compress([], threads: 2, piece: 1)
        XCTAssertEqual(unzstd(bytes), [])
    }

    func testFormatsAreChosenByName() {
        XCTAssertEqual(CompressedFormat(path: "out.jsonl.gz"), .gzip)
        XCTAssertEqual(CompressedFormat(path: "out.jsonl.zst"), .zstd)
        XCTAssertNil(CompressedFormat(path: "out.jsonl"))
        XCTAssertNil(CompressedFormat(path: "out.zstd"))
        XCTAssertEqual(CompressedFormat.zstd.levels, 1...19)
        XCTAssertEqual(CompressedFormat.gzip.levels, 1...9)
    }
}
