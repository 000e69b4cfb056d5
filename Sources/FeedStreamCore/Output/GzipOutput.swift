internal import CZlib

/// Compresses everything written into one gzip stream (zlib's `deflate`) and passes
/// the compressed bytes on to another output.
///
/// Call ``finish()`` once at the end: it writes the gzip trailer, without which the
/// file is truncated for every reader. ``flush()`` makes the bytes written so far
/// decodable (`Z_SYNC_FLUSH`) without ending the stream, at some cost in compression.
///
/// ```swift
/// let gz = GzipOutput(FileDescriptorOutput(fd: fd))
/// let writer = JSONLinesWriter(output: gz)
/// ... parse ...
/// try writer.flush()
/// try gz.finish()
/// ```
package final class GzipOutput: ByteOutput {
    private let base: any ByteOutput
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutablePointer<UInt8>
    private static let bufferSize = 256 << 10
    private var finished = false

    /// Compressed bytes handed to the underlying output.
    package private(set) var bytesWritten: UInt64 = 0

    /// A gzip stream written to `base`.
    ///
    /// - Parameters:
    ///   - base: where the compressed bytes go.
    ///   - level: 1 (fastest) to 9 (smallest); 6 is gzip's default.
    package init(_ base: any ByteOutput, level: Int = 6) {
        precondition((1...9).contains(level), "gzip level is 1...9")
        self.base = base
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = .allocate(capacity: Self.bufferSize)
        let status = deflateInit2_(stream, Int32(level), Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        if status != Z_OK { fatalError("FeedStream: deflateInit2 failed (\(status)): out of memory") }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        buffer.deallocate()
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return }
        precondition(!finished, "GzipOutput: write after finish()")
        // avail_in is 32 bits: feed huge writes in slices.
        var offset = 0
        while offset < bytes.count {
            let n = min(bytes.count - offset, 1 << 30)
            stream.pointee.next_in = UnsafeMutablePointer(mutating: (p + offset).assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(n)
            try deflate(Z_NO_FLUSH)
            offset += n
        }
    }

    /// Makes everything written so far decodable, and flushes the underlying output.
    package func flush() throws {
        guard !finished else { return try base.flush() }
        try deflate(Z_SYNC_FLUSH)
        try base.flush()
    }

    /// Ends the gzip stream (trailer with CRC and length) and flushes the underlying
    /// output. Writing afterwards is an error.
    package func finish() throws {
        guard !finished else { return }
        try deflate(Z_FINISH)
        finished = true
        try base.flush()
    }

    /// Runs deflate over the pending input, writing each full output buffer out.
    private func deflate(_ flush: Int32) throws {
        while true {
            stream.pointee.next_out = buffer
            stream.pointee.avail_out = UInt32(Self.bufferSize)
            let status = CZlib.deflate(stream, flush)
            let n = Self.bufferSize - Int(stream.pointee.avail_out)
            if n > 0 {
                try base.write(UnsafeRawBufferPointer(start: buffer, count: n))
                bytesWritten += UInt64(n)
            }
            if status == Z_STREAM_END { return }
            if status != Z_OK && status != Z_BUF_ERROR { fatalError("FeedStream: deflate failed (\(status))") }
            // Done when deflate had room left: all input consumed, flush complete.
            if stream.pointee.avail_out > 0 && stream.pointee.avail_in == 0 && flush != Z_FINISH { return }
        }
    }
}
