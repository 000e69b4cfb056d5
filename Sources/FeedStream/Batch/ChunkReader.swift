internal import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Why a stream read by a ``ChunkReader`` ended early.
struct StreamFailure: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// Corrupt gzip data, or a read error: the C core stops at once (`set_fatal`).
        case fatal
        /// The gzip stream ended inside a member.
        case truncated
        /// The run was cancelled.
        case cancelled
    }

    var kind: Kind
    var code: FeedError.Code
    /// The message the C core gives the document the failure cuts short.
    var message: String
    /// The read error's errno, else 0.
    var errno: Int32 = 0

    /// The message of the stream-level error (the C core adds the errno's text).
    var fatalMessage: String { errno == 0 ? message : message + ": " + String(cString: strerror(errno)) }
}

/// The reading stage of a parse: reads a file descriptor and, when `inflate` is on and
/// the stream is gzip, inflates it, into buffers the caller provides. Mirrors the C
/// core's input stage (`input.c`) so that a parser fed these bytes reports the same
/// things as one reading the descriptor itself: gzip detected by its first two bytes,
/// members read one after another with zero padding between them allowed, anything
/// else after a member "trailing garbage", a stream ending inside a member "truncated".
///
/// Reads of descriptors that are not regular files (pipes, terminals) wait in
/// `poll(2)` and give up when `isCancelled` says so, so a run reading a silent pipe can
/// still be interrupted.
///
/// Not thread-safe: one thread calls ``read(into:)``.
final class ChunkReader {
    private let fd: Int32
    private let inflate: Bool
    private let pollable: Bool
    private let isCancelled: @Sendable () -> Bool
    /// Called with the compressed byte count after each read (for live progress).
    private let didRead: (UInt64) -> Void

    private enum Mode { case detect, plain, member, trailer, done }
    private var mode: Mode

    private static let inputSize = 64 << 10        // the C core's ZCHUNK: same reads, same bytes_in
    private let input = UnsafeMutablePointer<UInt8>.allocate(capacity: ChunkReader.inputSize)
    private var inputStart = 0
    private var inputCount = 0
    private var z: UnsafeMutablePointer<z_stream>?

    /// The decompression ratio limit (``FeedLimits/maxRatio``; `Int.max`: none). The
    /// reader does not see documents, so its window is the whole stream: checked every
    /// 256 KiB of output (as the C core's input stage does) once more than
    /// ``FeedLimits/ratioActivationBytes`` came out; the stream fails there, fatal, the
    /// bytes before it handed on.
    var maxRatio = Int.max
    private static let checkpoint = 256 << 10
    private var bytesOut: UInt64 = 0
    private var zConsumed: UInt64 = 0

    /// Bytes read from the descriptor.
    private(set) var bytesIn: UInt64 = 0
    /// Why the stream ended early, once ``read(into:)`` has returned 0.
    private(set) var failure: StreamFailure?

    /// - Parameter inflate: inflate gzip; when false every byte is passed on as read.
    init(fd: Int32, inflate: Bool, isCancelled: @escaping @Sendable () -> Bool = { false },
         didRead: @escaping (UInt64) -> Void = { _ in }) {
        self.fd = fd
        self.inflate = inflate
        self.isCancelled = isCancelled
        self.didRead = didRead
        var st = stat()
        pollable = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG
        mode = inflate ? .detect : .plain
    }

    deinit {
        input.deallocate()
        if let z {
            inflateEnd(z)
            z.deallocate()
        }
    }

    /// Fills `buffer` with the next bytes of the stream (inflated, for gzip). Returns how
    /// many; 0 at the end, and then ``failure`` tells whether the end came early.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if mode == .detect { detect() }
        switch mode {
        case .done, .detect:
            return 0
        case .plain:
            if inputCount > 0 {   // bytes read while detecting
                let n = min(inputCount, buffer.count)
                out.copyMemory(from: input + inputStart, byteCount: n)
                inputStart += n
                inputCount -= n
                return n
            }
            let n = readSome(into: out.assumingMemoryBound(to: UInt8.self), count: buffer.count)
            if n <= 0 { mode = .done }
            return max(n, 0)
        case .member, .trailer:
            return inflate(into: out.assumingMemoryBound(to: UInt8.self), count: buffer.count)
        }
    }

    /// Reads the first bytes and decides gzip or plain.
    private func detect() {
        while inputCount < 2 {
            let n = readSome(into: input + inputCount, count: Self.inputSize - inputCount)
            if n < 0 { mode = .done; return }
            if n == 0 { break }
            inputCount += n
        }
        if inputCount >= 2 && input[0] == 0x1F && input[1] == 0x8B {
            mode = beginMember() ? .member : .done
        } else {
            mode = .plain
        }
    }

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
        return true
    }

    private func inflate(into out: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        var produced = 0
        while produced < count {
            if inputCount == 0 {
                let n = readSome(into: input, count: Self.inputSize)
                if n < 0 { mode = .done; break }
                if n == 0 {
                    if mode == .member { _ = fail(.truncated, "truncated gzip data") } else { mode = .done }
                    break
                }
                inputStart = 0
                inputCount = n
            }
            if mode == .trailer {
                // Between members: padding zeros, another member, or garbage.
                while inputCount > 0 && input[inputStart] == 0 { inputStart += 1; inputCount -= 1 }
                if inputCount == 0 { continue }
                guard input[inputStart] == 0x1F else {
                    _ = fail(.fatal, "trailing garbage after gzip data")
                    break
                }
                guard beginMember() else { break }
                mode = .member
            }
            let z = self.z!
            z.pointee.next_in = input + inputStart
            z.pointee.avail_in = UInt32(inputCount)
            let room = min(count - produced, Self.checkpoint - Int(bytesOut % UInt64(Self.checkpoint)))
            z.pointee.next_out = out + produced
            z.pointee.avail_out = UInt32(room)
            let status = CZlib.inflate(z, Z_NO_FLUSH)
            let used = inputCount - Int(z.pointee.avail_in)
            inputStart += used
            inputCount -= used
            zConsumed += UInt64(used)
            let n = room - Int(z.pointee.avail_out)
            bytesOut += UInt64(n)
            produced += n
            if n > 0 && bytesOut % UInt64(Self.checkpoint) == 0 && bytesOut > UInt64(FeedLimits.ratioActivationBytes)
                && bytesOut / UInt64(maxRatio) > zConsumed {
                // The bytes up to the checkpoint go on; nothing after it is inflated.
                _ = fail(.fatal, "limit exceeded: decompression ratio > \(maxRatio)", code: .limitExceeded)
                break
            }
            if status == Z_STREAM_END {
                mode = .trailer
            } else if status != Z_OK && status != Z_BUF_ERROR {
                _ = fail(.fatal, "corrupt gzip data")   // what was inflated before it still goes out
                break
            }
        }
        return produced
    }

    /// Reads up to `count` bytes: > 0 read, 0 end of file, < 0 failed or cancelled
    /// (``failure`` set).
    private func readSome(into p: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        while true {
            if pollable {
                if isCancelled() { _ = fail(.cancelled, "cancelled", code: .aborted); return -1 }
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let r = poll(&pfd, 1, 100)
                if r == 0 || (r < 0 && errno == EINTR) { continue }
            }
            let n = Glibc.read(fd, p, count)
            if n >= 0 {
                bytesIn += UInt64(n)
                if n > 0 { didRead(bytesIn) }
                return n
            }
            if errno == EINTR || errno == EAGAIN { continue }
            _ = fail(.fatal, "read error", code: .io, errno: errno)
            return -1
        }
    }

    private func fail(_ kind: StreamFailure.Kind, _ message: String, code: FeedError.Code = .gzip,
                      errno: Int32 = 0) -> Bool {
        if failure == nil { failure = StreamFailure(kind: kind, code: code, message: message, errno: errno) }
        mode = .done
        return false
    }
}
