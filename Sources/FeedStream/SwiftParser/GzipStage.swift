internal import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The decompression stage of the Swift backend, push mode: bytes in, pushed in pieces
/// of any size; uncompressed bytes out, to a sink. Mirrors the C core's input stage
/// (`input.c`: `detect`, `gzip_begin`, `gzip_input`, `cfs_parser_finish`) and
/// ``ChunkReader``, so that the Swift backend sees the same bytes and reports the same
/// failures as the C backends:
///
/// - gzip is detected by the first two bytes, 1F 8B (held across pushes when they come
///   split); anything else is plain, and passes through unchanged;
/// - gzip members are read one after another; zero bytes between members are padding;
///   any other byte after a member is fatal, "trailing garbage after gzip data";
/// - an inflate error is fatal, "corrupt gzip data", and what was inflated before it is
///   still given to the sink first;
/// - the stream ending inside a member is "truncated gzip data", reported by ``finish(sink:)``
///   (kind `.truncated`);
/// - output stops at every multiple of ``chunkSize`` of the stream (a checkpoint, the same
///   wherever the input was cut); at a checkpoint, when the ratio window (from
///   ``startRatioWindow(at:)``) has inflated more than ``FeedLimits/ratioActivationBytes``
///   and more than ``maxRatio`` times the compressed bytes it consumed, the stream fails,
///   fatal, "limit exceeded: decompression ratio > N", after the bytes up to the
///   checkpoint went to the sink and before anything after it is inflated (a gzip bomb).
///
/// The sink gets each uncompressed chunk borrowed for the call: at most ``chunkSize``
/// bytes, inflated into one buffer reused for every chunk (no allocation per chunk).
/// Plain input is not copied: the sink gets slices of the caller's bytes (also at most
/// ``chunkSize`` each) and the held first byte(s).
///
/// Once a failure has happened, ``push(_:sink:)`` ignores its bytes (they are not
/// counted, as in the C core) and returns that failure again. If the sink throws, the
/// error propagates and the stage should be ``reset()`` before further use.
///
/// Not thread-safe: one thread pushes.
final class GzipStage {
    /// Largest chunk given to the sink (the C core's CHUNK).
    static let chunkSize = 256 << 10
    /// Largest piece given to zlib at once (its counters are 32-bit; the C core's MAX_PARSE).
    private static let maxPiece = 1 << 30

    private enum Mode { case detect, plain, member, trailer, done }
    private var mode: Mode = .detect
    private var head: (UInt8, UInt8) = (0, 0)
    private var headCount = 0
    private var finished = false
    private var z: UnsafeMutablePointer<z_stream>?
    private let out = UnsafeMutablePointer<UInt8>.allocate(capacity: GzipStage.chunkSize)

    /// Bytes pushed (compressed bytes for gzip), not counting pushes after a failure.
    private(set) var bytesIn: UInt64 = 0
    /// Bytes given to the sink.
    private(set) var bytesXML: UInt64 = 0
    /// The failure that stopped the stream, if any.
    private(set) var failure: StreamFailure?

    /// The decompression ratio limit (`Int.max`: none).
    var maxRatio = Int.max
    // Compressed bytes inflate consumed, in all and at the last checkpoint; where the
    // ratio window started (uncompressed offset, checkpoint input).
    private var zConsumed: UInt64 = 0
    private var zCheckpoint: UInt64 = 0
    private var ratioIn: UInt64 = 0
    private var ratioOut: UInt64 = 0

    init() {}

    deinit {
        out.deallocate()
        if let z {
            inflateEnd(z)
            z.deallocate()
        }
    }

    /// Ready for a new stream (the inflate state is kept for reuse).
    func reset() {
        mode = .detect
        headCount = 0
        finished = false
        bytesIn = 0
        bytesXML = 0
        failure = nil
        zConsumed = 0
        zCheckpoint = 0
        ratioIn = 0
        ratioOut = 0
    }

    /// A document begins at this uncompressed offset: the ratio is measured from here.
    func startRatioWindow(at offset: UInt64) {
        ratioIn = zCheckpoint
        ratioOut = offset
    }

    /// Pushes bytes; calls `sink` with each uncompressed chunk (borrowed for the call).
    /// Returns the failure that stops the stream, if any (now or before).
    @discardableResult
    func push(_ data: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) rethrows
        -> StreamFailure?
    {
        precondition(!finished, "GzipStage.push after finish")
        if failure != nil { return failure }
        guard var p = data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count > 0 else { return nil }
        var len = data.count
        bytesIn += UInt64(len)
        if mode == .detect {
            while headCount < 2 && len > 0 {
                if headCount == 0 { head.0 = p[0] } else { head.1 = p[0] }
                headCount += 1
                p += 1
                len -= 1
            }
            if headCount < 2 { return nil }
            try withUnsafeBytes(of: head) { h in
                if h[0] == 0x1F && h[1] == 0x8B {
                    if beginMember() { try inflate(h.baseAddress!.assumingMemoryBound(to: UInt8.self), 2, sink) }
                } else {
                    mode = .plain
                    bytesXML += 2
                    try sink(h)
                }
            }
        }
        while len > 0 && failure == nil {
            let n = min(len, Self.maxPiece)
            switch mode {
            case .plain:
                bytesXML += UInt64(n)
                var q = p, left = n
                while left > 0 {
                    let k = min(left, Self.chunkSize)
                    try sink(UnsafeRawBufferPointer(start: q, count: k))
                    q += k
                    left -= k
                }
            case .member, .trailer:
                try inflate(p, n, sink)
            case .detect, .done:
                break
            }
            p += n
            len -= n
        }
        return failure
    }

    /// The end of the input: a held first byte goes out as plain; a stream that ended
    /// inside a gzip member fails as truncated. Returns the stream's failure, if any.
    @discardableResult
    func finish(sink: (UnsafeRawBufferPointer) throws -> Void) rethrows -> StreamFailure? {
        precondition(!finished, "GzipStage.finish called twice")
        finished = true
        if failure == nil && mode == .detect && headCount > 0 {
            mode = .plain
            bytesXML += UInt64(headCount)
            try withUnsafeBytes(of: head) { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<headCount])) }
        }
        if failure == nil && mode == .member { fail(.truncated, "truncated gzip data") }
        return failure
    }

    // MARK: gzip

    /// The C core's `gzip_begin`.
    private func beginMember() -> Bool {
        if let z {
            if inflateReset2(z, 16 + MAX_WBITS) != Z_OK { return fail(.fatal, "corrupt gzip data") }
        } else {
            let s = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            s.initialize(to: z_stream())
            guard inflateInit2_(s, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                s.deallocate()
                return fail(.fatal, "out of memory", code: .outOfMemory)
            }
            z = s
        }
        mode = .member
        return true
    }

    /// The C core's `gzip_input`: inflates all of `input`, member after member.
    private func inflate(_ input: UnsafePointer<UInt8>, _ count: Int,
                         _ sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard let z else { return }
        z.pointee.next_in = UnsafeMutablePointer(mutating: input)
        z.pointee.avail_in = UInt32(count)
        defer {
            z.pointee.next_in = nil   // never keep the caller's pointer
            z.pointee.avail_in = 0
        }
        while failure == nil {
            if mode == .trailer {
                // Between members: another member, or padding zeros, or garbage.
                while z.pointee.avail_in > 0 && z.pointee.next_in[0] == 0 {
                    z.pointee.next_in += 1
                    z.pointee.avail_in -= 1
                }
                if z.pointee.avail_in == 0 { return }
                if z.pointee.next_in[0] != 0x1F {
                    fail(.fatal, "trailing garbage after gzip data")
                    return
                }
                guard beginMember() else { return }
            }
            // Output stops at every multiple of chunkSize of the stream: the checkpoints.
            let room = Self.chunkSize - Int(bytesXML % UInt64(Self.chunkSize))
            z.pointee.next_out = out
            z.pointee.avail_out = UInt32(room)
            let availIn = z.pointee.avail_in
            let zr = CZlib.inflate(z, Z_NO_FLUSH)
            let n = room - Int(z.pointee.avail_out)
            zConsumed += UInt64(availIn - z.pointee.avail_in)
            if zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR {
                // Keep what was inflated, then stop.
                fail(.fatal, "corrupt gzip data")
                bytesXML += UInt64(n)
                if n > 0 { try sink(UnsafeRawBufferPointer(start: out, count: n)) }
                return
            }
            if zr == Z_STREAM_END { mode = .trailer }
            bytesXML += UInt64(n)
            if n > 0 { try sink(UnsafeRawBufferPointer(start: out, count: n)) }
            if n == room {
                // A checkpoint, everything before it given to the sink (input.c).
                zCheckpoint = zConsumed
                let windowOut = bytesXML - ratioOut
                let windowIn = zCheckpoint - ratioIn
                if windowOut > UInt64(FeedLimits.ratioActivationBytes) && windowOut / UInt64(maxRatio) > windowIn {
                    fail(.fatal, "limit exceeded: decompression ratio > \(maxRatio)", code: .limitExceeded)
                    return
                }
            }
            if n == 0 && mode == .member && z.pointee.avail_in == 0 { return }
            if zr == Z_BUF_ERROR && n == 0 { return }
        }
    }

    @discardableResult
    private func fail(_ kind: StreamFailure.Kind, _ message: String, code: FeedError.Code = .gzip) -> Bool {
        if failure == nil { failure = StreamFailure(kind: kind, code: code, message: message) }
        mode = .done
        return false
    }
}
