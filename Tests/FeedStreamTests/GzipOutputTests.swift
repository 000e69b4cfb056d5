import CZlib
import FeedStream
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
}
