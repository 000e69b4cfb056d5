// SPDX-License-Identifier: Apache-2.0
import CZlib

/// gzip-compresses bytes as one member (tests only).
func gzip(_ input: [UInt8], level: Int32 = 6) -> [UInt8] {
    deflated(input, level: level, flush: Z_FINISH)
}

/// A gzip member that breaks off right after all of `input` has been inflated: its
/// deflate data sync-flushed, then, when `corrupt`, an invalid block (type 3), else
/// nothing (truncated: no last block, no trailer). Tests only.
func gzipBreakingOff(_ input: [UInt8], corrupt: Bool) -> [UInt8] {
    deflated(input, level: 6, flush: Z_SYNC_FLUSH) + (corrupt ? [0xFF, 0xFF] : [])
}

/// `input` through one deflate call ending with `flush`: gzip, or with `raw`, deflate
/// data alone (no header, no trailer).
func deflated(_ input: [UInt8], level: Int32, flush: Int32, raw: Bool = false) -> [UInt8] {
    var z = z_stream()
    precondition(deflateInit2_(&z, level, Z_DEFLATED, raw ? -MAX_WBITS : 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                               Int32(MemoryLayout<z_stream>.size)) == Z_OK)
    defer { deflateEnd(&z) }
    var out = [UInt8](repeating: 0, count: Int(deflateBound(&z, UInt(input.count))) + 64)
    var input = input
    let produced = input.withUnsafeMutableBufferPointer { inp in
        out.withUnsafeMutableBufferPointer { o in
            z.next_in = inp.baseAddress
            z.avail_in = UInt32(inp.count)
            z.next_out = o.baseAddress
            z.avail_out = UInt32(o.count)
            precondition(deflate(&z, flush) == (flush == Z_FINISH ? Z_STREAM_END : Z_OK))
            return o.count - Int(z.avail_out)
        }
    }
    return Array(out[0..<produced])
}
