// SPDX-License-Identifier: Apache-2.0
internal import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The reading stage of a parse: reads a file descriptor and, when `inflate` is on and
/// the stream is gzip, inflates it, into buffers the caller provides, through an
/// ``InputStage`` (pull way): the same gzip detection, and the input stage's own member
/// loop (`cfs_unpack`), so a parser fed these bytes reports the same things as one
/// reading the descriptor itself.
///
/// Inflated output stops at every ratio checkpoint (each multiple of
/// ``InputStage/chunkSize`` of the uncompressed stream): a chunk never runs past one,
/// and ``compressed`` tells, for the chunk last read, the compressed bytes inflate had
/// consumed to produce it. The reader does not check the ratio (it does not know where
/// documents begin): the parser it feeds does, at those checkpoints, with those counts
/// (`cfs_parser_feed_inflated`, ``InputStage/feedInflated(_:compressed:sink:)``).
///
/// With `resumesAfterGaps`, reading goes on after a gap of the gzip stream (a member that
/// cannot be read: ``StreamGap``): a read stops at it, and ``takeGap()`` hands it out
/// before the bytes after it are read; without, a gap is the stream's failure.
///
/// Reads of descriptors that are not regular files (pipes, terminals) wait in
/// `poll(2)` and give up when `isCancelled` says so, so a run reading a silent pipe can
/// still be interrupted.
///
/// Not thread-safe: one thread calls ``read(into:)``.
package final class ChunkReader {
    private let fd: Int32
    private let inflate: Bool
    private let pollable: Bool
    private let isCancelled: @Sendable () -> Bool
    /// Called with the compressed byte count after each read (for live progress).
    private let didRead: (UInt64) -> Void

    // inputSize, the C core's ZCHUNK (same reads, same bytes_in): LimitsTable.swift (limits.def).
    private let input = UnsafeMutablePointer<UInt8>.allocate(capacity: ChunkReader.inputSize)
    private var inputStart = 0
    private var inputCount = 0
    private var atEnd = false
    /// The first read's size, when the stream begins inside a file (`fileOffset`).
    private var firstReadLimit: Int?
    /// Where the next `pread` reads, when reading at an offset (`fileOffset`).
    private var readPosition: UInt64?
    /// The stage: never checks the ratio here (see above), so no limit.
    private let stage = InputStage(limits: .unlimited)

    /// Bytes read from the descriptor.
    package private(set) var bytesIn: UInt64 = 0
    /// Why the stream ended early, once ``read(into:)`` has returned 0.
    package var failure: StreamFailure? { stage.failure }
    /// For gzip: the compressed bytes inflate had consumed when it produced the last byte
    /// read so far (``InputStage/compressedIn``); nil for plain input (or no inflating).
    package var compressed: UInt64? { stage.mode == .plain || !inflate ? nil : stage.compressedIn }

    /// Records each gzip member's start (``InputStage/memberStarts``) from now on;
    /// ``takeMemberStarts()`` hands them out.
    func recordMemberStarts() { stage.memberStarts = stage.memberStarts ?? [] }

    /// The member starts recorded since the last call, oldest first.
    func takeMemberStarts() -> [(compressed: UInt64, uncompressed: UInt64)] {
        defer { if stage.memberStarts != nil { stage.memberStarts = [] } }
        return stage.memberStarts ?? []
    }

    /// The gap the last read stopped at (the bytes it returned come before it), until
    /// taken; the next read returns the bytes after it.
    package func takeGap() -> StreamGap? { stage.takeGap() }

    /// True once the stream was found to be gzip (nil before the first read).
    var isGzip: Bool? { stage.mode == .detect ? nil : stage.mode != .plain }

    /// - Parameters:
    ///   - inflate: inflate gzip; when false every byte is passed on as read.
    ///   - prefix: the stream's first bytes, already read from `fd` (to look at a pipe's
    ///     start: ``readHead(fd:count:isCancelled:)``); at most 64 KiB.
    ///   - fileOffset: read the (regular) file with `pread` from this offset, leaving the
    ///     descriptor's position alone (several readers can share it), instead of from
    ///     its position; the first read ends where a reader from the file's start would
    ///     end one, so both have read the same bytes (``bytesIn``) when they stop at the
    ///     same place.
    ///   - inflater: what inflates gzip.
    package init(fd: Int32, inflate: Bool, prefix: [UInt8] = [], fileOffset: UInt64? = nil,
                 inflater: GzipInflater = .default, resumesAfterGaps: Bool = false,
                 isCancelled: @escaping @Sendable () -> Bool = { false }, didRead: @escaping (UInt64) -> Void = { _ in }) {
        self.fd = fd
        stage.inflater = inflater
        stage.resumesAfterGaps = resumesAfterGaps
        readPosition = fileOffset
        let misalignment = Int((fileOffset ?? 0) % UInt64(Self.inputSize))
        firstReadLimit = misalignment == 0 ? nil : Self.inputSize - misalignment
        self.inflate = inflate
        self.isCancelled = isCancelled
        self.didRead = didRead
        var st = stat()
        pollable = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG
        precondition(prefix.count <= Self.inputSize)
        if !prefix.isEmpty {
            prefix.withUnsafeBytes { input.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: prefix.count) }
            inputCount = prefix.count
            bytesIn = UInt64(prefix.count)
        }
    }

    /// Reads the first `count` bytes of `fd` (fewer at its end), for a pipe whose start
    /// decides how it is read; then hand them on as a reader's `prefix`. Nil when the
    /// run was cancelled while waiting.
    package static func readHead(fd: Int32, count: Int, isCancelled: @escaping @Sendable () -> Bool,
                                 didRead: @escaping (UInt64) -> Void) -> [UInt8]? {
        let reader = ChunkReader(fd: fd, inflate: false, isCancelled: isCancelled, didRead: didRead)
        var head = [UInt8](repeating: 0, count: count)
        var n = 0
        while n < count {
            let k = head.withUnsafeMutableBytes { reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[n...])) }
            if k == 0 { break }
            n += k
        }
        if reader.failure?.kind == .cancelled { return nil }
        return Array(head[..<n])
    }

    deinit { input.deallocate() }

    /// Fills `buffer` with the next bytes of the stream (inflated, for gzip; never past a
    /// ratio checkpoint). Returns how many; 0 at the end, and then ``failure`` tells
    /// whether the end came early.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let out = buffer.baseAddress, buffer.count > 0, stage.failure == nil, stage.gap == nil else { return 0 }
        if stage.mode == .detect {
            if inflate {
                // The first bytes decide (fewer: the stream is that short).
                while InputStage.compression(of: UnsafeRawBufferPointer(start: input, count: inputCount), atEnd: atEnd) == nil
                    && fill(at: inputCount) {}
                if stage.failure != nil { return 0 }
                stage.detect(UnsafeRawBufferPointer(start: input, count: inputCount))
            } else {
                stage.detect(UnsafeRawBufferPointer(start: nil, count: 0))   // plain
            }
        }
        switch stage.mode {
        case .plain:
            if inputCount > 0 {   // bytes read while detecting
                let n = min(inputCount, buffer.count)
                out.copyMemory(from: input + inputStart, byteCount: n)
                inputStart += n
                inputCount -= n
                return n
            }
            if atEnd { return 0 }
            let n = readSome(into: out.assumingMemoryBound(to: UInt8.self), count: buffer.count)
            if n <= 0 { atEnd = true }
            return max(n, 0)
        case .gzip:
            return inflate(into: buffer)
        case .detect, .inflated, .done:
            return 0
        }
    }

    /// The pull way of the stage's `gzip_input`: inflates into `buffer`, reading as
    /// needed, up to its end or the next checkpoint.
    private func inflate(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var produced = 0
        let chunk = UInt64(InputStage.chunkSize)
        while produced < buffer.count {
            let room = min(buffer.count - produced, Int(chunk - stage.bytesXML % chunk))
            let step = stage.gzipStep(from: UnsafeRawBufferPointer(start: input + inputStart, count: inputCount),
                                      into: UnsafeMutableRawBufferPointer(rebasing: buffer[produced..<(produced + room)]))
            inputStart += step.used
            inputCount -= step.used
            produced += step.written
            if stage.failure != nil { break }   // what came before a corrupt byte still goes out
            if stage.gap != nil { break }       // the bytes after it come after it is taken
            if step.written > 0 && stage.bytesXML % chunk == 0 { break }   // a checkpoint: the chunk ends here
            if step.more { continue }
            // This input is used up.
            if atEnd || !fill(at: 0) {
                switch stage.gzipFinish() {
                case .drain: continue        // the bytes held, read with no input
                case .gap: break             // a gap to the end, or before a member kept
                case .none: break
                }
                if stage.gap != nil || stage.failure != nil { break }
                if stage.failure == nil && stage.inMember {
                    stage.fail(StreamFailure(kind: .truncated, code: stage.packCode,
                                             message: "truncated \(stage.packName) data"))
                }
                break
            }
        }
        return produced
    }

    /// Reads into the input buffer at `at` (0: the buffer is used up, start over).
    /// False at the end of the stream or after a failure.
    private func fill(at: Int) -> Bool {
        if at == 0 { inputStart = 0 }
        let n = readSome(into: input + inputStart + at, count: Self.inputSize - inputStart - at)
        if n <= 0 {
            atEnd = true
            return false
        }
        inputCount = at + n
        return true
    }

    /// Reads up to `count` bytes: > 0 read, 0 end of file, < 0 failed or cancelled
    /// (``failure`` set).
    private func readSome(into p: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        while true {
            if pollable {
                if isCancelled() {
                    stage.fail(StreamFailure(kind: .cancelled, code: .aborted, message: "cancelled"))
                    return -1
                }
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let r = poll(&pfd, 1, 100)
                if r == 0 || (r < 0 && errno == EINTR) { continue }
            }
            let size = min(count, firstReadLimit ?? count)
            let n = readPosition.map { pread(fd, p, size, off_t($0)) } ?? systemRead(fd, p, size)
            if n >= 0 {
                firstReadLimit = nil
                readPosition? += UInt64(n)
                bytesIn += UInt64(n)
                if n > 0 { didRead(bytesIn) }
                return n
            }
            if errno == EINTR || errno == EAGAIN { continue }
            stage.fail(StreamFailure(kind: .fatal, code: .io, message: "read error", errno: errno))
            return -1
        }
    }
}
