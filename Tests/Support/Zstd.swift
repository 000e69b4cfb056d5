// SPDX-License-Identifier: Apache-2.0
import CZstd

/// `data` decompressed with libzstd (every frame, checksums checked); nil when it is not
/// whole, valid zstd.
public func unzstd(_ data: [UInt8]) -> [UInt8]? {
    guard let d = ZSTD_createDCtx() else { return nil }
    defer { ZSTD_freeDCtx(d) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    return data.withUnsafeBytes { src -> [UInt8]? in
        var input = ZSTD_inBuffer(src: src.baseAddress, size: src.count, pos: 0)
        while true {
            let before = input.pos
            let (left, written) = chunk.withUnsafeMutableBytes { dst -> (Int, Int) in
                var output = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
                return (ZSTD_decompressStream(d, &output, &input), output.pos)
            }
            if ZSTD_isError(left) != 0 { return nil }
            out += chunk[0..<written]
            if left == 0 && input.pos == input.size { return out }   // the frame ended, checksum checked
            if written == 0 && input.pos == before { return nil }     // truncated
        }
    }
}

/// `data` as one zstd frame at `level`, with its content checksum (tests only).
public func zstd(_ data: [UInt8], level: Int32 = 3) -> [UInt8] {
    guard let c = ZSTD_createCCtx() else { fatalError("out of memory") }
    defer { ZSTD_freeCCtx(c) }
    _ = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)
    _ = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)
    var out = [UInt8](repeating: 0, count: ZSTD_compressBound(data.count))
    let n = out.withUnsafeMutableBytes { dst in
        data.withUnsafeBytes { src in ZSTD_compress2(c, dst.baseAddress, dst.count, src.baseAddress, src.count) }
    }
    precondition(ZSTD_isError(n) == 0)
    return Array(out[0..<n])
}
