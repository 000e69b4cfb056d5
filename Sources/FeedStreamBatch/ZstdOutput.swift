// SPDX-License-Identifier: Apache-2.0
import FeedStream
internal import CZstd

/// Compresses everything written into one zstd frame (libzstd, RFC 8878) and passes the
/// compressed bytes on to another output, compressing on libzstd's own threads.
///
/// libzstd's multithreaded streaming compression cuts the input into jobs of a size set
/// by the level, never by the number of threads: the bytes written are the same for any
/// number of threads (from one up) and however the writes were cut, as long as
/// ``flush()`` is called at the same places (the command line calls it only at the end).
/// The frame carries its content checksum (XXH64), which readers verify.
///
/// Call ``finish()`` once at the end: it ends the frame, without which the file is
/// truncated for every reader.
package final class ZstdOutput: ByteOutput {
    /// The level of `feedstream convert -o FILE.zst` unless `--compress-level` says
    /// otherwise (zstd's own default).
    package static let defaultLevel = 3
    /// The levels taken: zstd's 1 to 19 (the "ultra" levels above need far more memory).
    package static let levels = 1...19

    private let base: any ByteOutput
    private let context: OpaquePointer
    private let buffer: UnsafeMutableRawPointer
    private let bufferSize = ZSTD_CStreamOutSize()
    private var finished = false

    /// Compressed bytes handed to the underlying output.
    package private(set) var bytesWritten: UInt64 = 0

    /// A zstd frame written to `base`, at `level`, compressed on `threads` threads
    /// besides the writing one (at least one; the output is the same for any number).
    package init(_ base: any ByteOutput, level: Int = ZstdOutput.defaultLevel, threads: Int = 1) {
        precondition(Self.levels.contains(level), "zstd level is 1...19")
        self.base = base
        guard let context = ZSTD_createCCtx() else { fatalError("FeedStream: ZSTD_createCCtx failed: out of memory") }
        self.context = context
        buffer = .allocate(byteCount: bufferSize, alignment: 16)
        Self.check(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, Int32(level)))
        Self.check(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1))
        // Without multithreading support in the library, compression stays on this
        // thread: the same frame format, other bytes.
        _ = ZSTD_CCtx_setParameter(context, ZSTD_c_nbWorkers, Int32(max(1, threads)))
    }

    deinit {
        ZSTD_freeCCtx(context)
        buffer.deallocate()
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        precondition(!finished, "ZstdOutput: write after finish()")
        var input = ZSTD_inBuffer(src: bytes.baseAddress, size: bytes.count, pos: 0)
        while input.pos < input.size {
            try step(&input, ZSTD_e_continue)
        }
    }

    /// Makes everything written so far decodable (ends the current block), and flushes
    /// the underlying output.
    package func flush() throws {
        guard !finished else { return try base.flush() }
        var input = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        while try step(&input, ZSTD_e_flush) != 0 {}
        try base.flush()
    }

    /// Ends the frame and flushes the underlying output. Writing afterwards is an error.
    package func finish() throws {
        guard !finished else { return }
        var input = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        while try step(&input, ZSTD_e_end) != 0 {}
        finished = true
        try base.flush()
    }

    /// One call of ZSTD_compressStream2, its output written out; returns what libzstd
    /// says is left to flush (0: done, for `ZSTD_e_flush` and `ZSTD_e_end`).
    @discardableResult
    private func step(_ input: inout ZSTD_inBuffer, _ directive: ZSTD_EndDirective) throws -> Int {
        var output = ZSTD_outBuffer(dst: buffer, size: bufferSize, pos: 0)
        let left = ZSTD_compressStream2(context, &output, &input, directive)
        Self.check(left)
        if output.pos > 0 {
            try base.write(UnsafeRawBufferPointer(start: buffer, count: output.pos))
            bytesWritten += UInt64(output.pos)
        }
        return left
    }

    /// libzstd's errors here are memory or misuse: neither can be recovered from.
    private static func check(_ code: Int) {
        if ZSTD_isError(code) != 0 { fatalError("FeedStream: zstd: " + String(cString: ZSTD_getErrorName(code))) }
    }
}
