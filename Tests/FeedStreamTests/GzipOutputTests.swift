// SPDX-License-Identifier: Apache-2.0
import CZlib
import FeedStream
import Foundation
import XCTest

/// GzipOutput writes one gzip stream that zlib (and gzip) read back byte for byte.
final class GzipOutputTests: XCTestCase {
    private func gunzip(_ data: [UInt8]) -> [UInt8]? {
        var z = z_stream()
        guard inflateInit2_(&z, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&z) }
        var out: [UInt8] = []
        var input = data
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        return input.withUnsafeMutableBufferPointer { inp -> [UInt8]? in
            z.next_in = inp.baseAddress
            z.avail_in = UInt32(inp.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { c -> Int32 in
                    z.next_out = c.baseAddress
                    z.avail_out = UInt32(c.count)
                    return inflate(&z, Z_NO_FLUSH)
                }
                out += chunk[0..<(chunk.count - Int(z.avail_out))]
                if status == Z_STREAM_END { return z.avail_in == 0 ? out : nil }
                if status != Z_OK { return nil }
            }
        }
    }

    func testRoundTripWithFlushesInBetween() throws {
        var text: [UInt8] = []
        for i in 0..<20_000 { text += bytes("{\"n\":\(i),\"title\":\"item \(i * 7919 % 1000)\"}\n") }
        for level in [1, 6, 9] {
            let sink = MemoryOutput()
            let gz = GzipOutput(sink, level: level)
            var offset = 0
            var step = 1
            while offset < text.count {
                let n = min(step, text.count - offset)
                try text[offset..<(offset + n)].withUnsafeBytes { try gz.write($0) }
                offset += n
                step = step * 3 + 1
                if step % 5 == 0 { try gz.flush() }
            }
            try gz.finish()
            try gz.finish()   // once is enough; again is harmless
            XCTAssertEqual(gz.bytesWritten, UInt64(sink.bytes.count))
            XCTAssertEqual(Array(sink.bytes.prefix(2)), [0x1F, 0x8B])
            XCTAssertLessThan(sink.bytes.count, text.count / 3, "level \(level) compresses")
            XCTAssertEqual(gunzip(sink.bytes), text, "level \(level)")
        }
    }

    func testEmptyStreamIsValidGzip() throws {
        let sink = MemoryOutput()
        try GzipOutput(sink).finish()
        XCTAssertEqual(gunzip(sink.bytes), [])
    }

    func testFlushMakesWrittenBytesDecodable() throws {
        let sink = MemoryOutput()
        let gz = GzipOutput(sink)
        try bytes("hello\n").withUnsafeBytes { try gz.write($0) }
        try gz.flush()
        // Without the trailer the stream is unfinished, but what was flushed inflates.
        var z = z_stream()
        XCTAssertEqual(inflateInit2_(&z, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)), Z_OK)
        defer { inflateEnd(&z) }
        var input = sink.bytes
        var out = [UInt8](repeating: 0, count: 64)
        let produced = input.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o -> Int in
                z.next_in = i.baseAddress; z.avail_in = UInt32(i.count)
                z.next_out = o.baseAddress; z.avail_out = UInt32(o.count)
                _ = inflate(&z, Z_SYNC_FLUSH)
                return o.count - Int(z.avail_out)
            }
        }
        XCTAssertEqual(Array(out[0..<produced]), bytes("hello\n"))
    }

    /// JSON-Lines-like text of `count` lines, varied enough to compress like real output.
    private func sampleLines(_ count: Int) -> [UInt8] {
        var text: [UInt8] = []
        for i in 0..<count {
            text += bytes("{\"kind\":\"item\",\"n\":\(i),\"title\":\"item \(i &* 7919 % 100_003)\",\"link\":"
                          + "\"https://example.com/\(i % 977)/\(i &* 31 % 1013)\"}\n")
        }
        return text
    }

    /// Writes `text` in pieces of the sizes `cut` gives, then finishes.
    private func compress(_ text: [UInt8], level: Int = 6, threads: Int, isal: Bool = true,
                          cut: (Int) -> Int) throws -> [UInt8] {
        let sink = MemoryOutput()
        let gz = GzipOutput(sink, level: level, threads: threads, isal: isal)
        var offset = 0, k = 0
        while offset < text.count {
            let n = min(max(1, cut(k)), text.count - offset)
            try text[offset..<(offset + n)].withUnsafeBytes { try gz.write($0) }
            offset += n
            k += 1
        }
        try gz.finish()
        XCTAssertEqual(gz.bytesWritten, UInt64(sink.bytes.count))
        return sink.bytes
    }

    /// The blocks (128 KiB each, compressed apart on the threads) make one gzip member
    /// that reads back whole, and the bytes are the same for any number of threads and
    /// however the writes were cut: the output of `-o FILE.gz` does not depend on `-j`.
    func testTheBytesAreTheSameForAnyThreadsAndWrites() throws {
        let text = sampleLines(40_000)   // about 4 MB: 30-odd blocks
        XCTAssertGreaterThan(text.count, 20 * GzipOutput.blockSize)
        var reference: [UInt8] = []
        // Level 2: ISA-L's deflate where it is installed, and zlib's.
        for isal in [true, false] {
            reference = try compress(text, level: 2, threads: 0, isal: isal) { _ in 1 << 20 }
            XCTAssertEqual(gunzip(reference), text)
            for threads in [1, 2, 4] {
                for (name, cut) in [("64 KiB", { (_: Int) in 64 << 10 }), ("uneven", { (k: Int) in (k &* 7919) % 100_000 + 1 }),
                                    ("whole", { (_: Int) in Int.max })] {
                    XCTAssertEqual(try compress(text, level: 2, threads: threads, isal: isal, cut: cut), reference,
                                   "isal \(isal), \(threads) threads, writes \(name)")
                }
            }
        }
        // One member: after the header, no second 1F 8B 08 member header is needed by readers,
        // and the trailer holds the length of the whole.
        let n = reference.count
        let isize = reference[(n - 4)...].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        XCTAssertEqual(isize, text.count)
    }

    /// Levels keep their meaning: with zlib, a higher level is not larger; level 1 (and
    /// ISA-L's levels, where it is installed) still compress this text to under a quarter.
    func testLevelsCompressAsTheirNumbersSay() throws {
        let text = sampleLines(20_000)
        let sizes = try [1, 6, 9].map { level -> Int in
            let out = try compress(text, level: level, threads: 2, isal: false) { _ in 1 << 16 }
            XCTAssertEqual(gunzip(out), text, "level \(level)")
            return out.count
        }
        XCTAssertLessThan(sizes[0], text.count / 4)
        XCTAssertLessThanOrEqual(sizes[1], sizes[0])
        XCTAssertLessThanOrEqual(sizes[2], sizes[1])
        for level in 1...3 {
            let out = try compress(text, level: level, threads: 2, isal: true) { _ in 1 << 16 }
            XCTAssertEqual(gunzip(out), text, "level \(level), ISA-L where installed")
            XCTAssertLessThan(out.count, text.count / 4)
        }
    }

    /// gzip(1) reads the output as one intact member (its CRC-32 and length checked).
    func testGzipReadsTheOutput() throws {
        let text = sampleLines(5_000)
        let out = try compress(text, threads: 2) { k in 1000 + k }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gzout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("out.jsonl.gz")
        try Data(out).write(to: file)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["gzip", "-dc", file.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let got = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertEqual([UInt8](got), text)
    }
}

