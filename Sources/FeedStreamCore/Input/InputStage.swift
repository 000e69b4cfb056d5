// SPDX-License-Identifier: Apache-2.0
internal import CFeedStreamInflate
internal import CFeedStreamInput
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// The gzip stage of the Swift readers that are not the XML backends' input stage: JSON
// Feed (push), the read-ahead thread and web archives (pull, ``ChunkReader``), and the
// sniffs that look at a gzip stream's start. The members are read by the input stage's
// own loop (`cfs_unpack`, CFeedStreamInflate) and the ratio is the same rule
// (`cfs_ratio_over`, CFeedStreamInput): this type only hands the output on in chunks
// that end on the checkpoints.

/// Why a stream ended early.
package struct StreamFailure: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// Corrupt gzip data, a read error or the decompression ratio: the C core stops
        /// at once (`set_fatal`).
        case fatal
        /// The gzip stream ended inside a member.
        case truncated
        /// The run was cancelled.
        case cancelled
    }

    package var kind: Kind
    package var code: FeedError.Code
    /// The message the C core gives the document the failure cuts short.
    package var message: String
    /// The read error's errno, else 0.
    package var errno: Int32 = 0

    /// The message of the stream-level error (the C core adds the errno's text).
    package var fatalMessage: String { errno == 0 ? message : message + ": " + String(cString: strerror(errno)) }
}

/// Compressed bytes of a gzip stream that were not read (`cfs_unpack_gap`): a member that
/// could not be read, or bytes between members that are no member, up to the next member
/// read (or the end). The bytes inflated before and after it do not join.
package struct StreamGap: Sendable, Equatable {
    /// The compressed range, from the failed member's first byte (or the first byte that
    /// was no member) to the next member read or the end of the input.
    package var from: UInt64
    package var to: UInt64
    /// Why: "corrupt gzip data", or "trailing garbage after gzip data" (zstd's alike).
    package var why: String
    /// The stream is zstd, not gzip.
    package var zstd = false
    package init(from: UInt64, to: UInt64, why: String, zstd: Bool = false) {
        self.from = from
        self.to = to
        self.why = why
        self.zstd = zstd
    }
    /// The error code of the format (`gzip`, `zstd`).
    package var code: FeedError.Code { zstd ? .zstd : .gzip }
    /// The format as the C stage names it (`cfs_pack_format`: `cfs_parser_feed_gap`).
    package var packFormat: Int32 { Int32(bitPattern: (zstd ? CFS_PACK_ZSTD : CFS_PACK_GZIP).rawValue) }
}

/// Gzip or plain by content, gzip members one after another, and the decompression ratio
/// limit (``FeedLimits/maxRatio``), for the readers that do not run the input stage
/// (`CFeedStreamInput`) itself:
///
/// - gzip is detected by the first two bytes, 1F 8B (held across pushes when they come
///   split); anything else is plain, and passes through unchanged;
/// - gzip members are read one after another (`cfs_unpack`): zero bytes between members
///   are padding; a member that cannot be read, or other bytes between members, is
///   fatal ("corrupt gzip data", "trailing garbage after gzip data"), and
///   what was inflated before it is still handed on first; unless ``resumesAfterGaps``,
///   then reading resumes at the next member and the step says so (``gap``); the
///   stream ending inside a member is "truncated gzip data" (kind `.truncated`);
/// - output stops at every multiple of ``chunkSize`` of the uncompressed stream, a
///   *checkpoint*, the same wherever the input was cut; at a checkpoint, once everything
///   before it was handed on, the ratio of the whole stream is checked (`cfs_ratio_over`):
///   past it the stream fails, fatal, "limit exceeded: decompression ratio > N", before
///   anything after the checkpoint is inflated.
///
/// Three ways in:
/// - push (``feed(_:sink:)``): JSON Feed pushes bytes of any size; the sink gets each
///   uncompressed chunk, at most ``chunkSize`` bytes, borrowed for the call;
/// - pull (``detect(_:)`` and ``gzipStep(from:into:)``): ``ChunkReader`` inflates into
///   buffers of its own, stopping at each checkpoint, and hands on with each chunk the
///   compressed count ``compressedIn``;
/// - inflated (``feedInflated(_:compressed:sink:)``): chunks inflated by a
///   ``ChunkReader`` on another thread, with their counts: the ratio is checked at the
///   same checkpoints as the push way.
///
/// Once a failure has happened, pushes are ignored (not counted) and return that failure
/// again. If the sink throws, the error propagates and the stage should be ``reset()``
/// before further use. Not thread-safe: one thread uses a stage.
package final class InputStage {
    // chunkSize (CFS_RATIO_INTERVAL): the largest chunk handed on, and
    // the distance between checkpoints (LimitsTable.swift, generated from limits.def).
    // maxPiece (MAX_PARSE, the largest piece given to one step): LimitsTable.swift (limits.def).

    /// What the uncompressed start of a gzip stream says, for callers that must look at
    /// it before parsing (which content it is): inflates `head` (a stream's first bytes,
    /// gzip magic included) a few hundred bytes at a time, calling `decide` with all the
    /// output so far until it answers, the output passes `limit` bytes or `head` runs
    /// out (nil). Costs what it inflates, never a whole chunk.
    /// `stage`: one to reuse (reset here), for callers that peek at many inputs; a new
    /// one when nil.
    package static func peekInflated<R>(_ head: UnsafeRawBufferPointer, limit: Int = 64 << 10,
                                using stage: InputStage? = nil,
                                _ decide: (UnsafeRawBufferPointer) -> R?) -> R? {
        guard let format = compression(of: head), format != CFS_PACK_NONE else { return nil }
        let stage = stage ?? InputStage(limits: .unlimited)
        stage.reset()
        stage.begin(format)
        return withUnsafeTemporaryAllocation(byteCount: 256, alignment: 16) { out -> R? in
            var rest = head
            var seen: [UInt8] = []   // all the output so far (what decides may straddle steps)
            var drained = false
            while true {
                let step = stage.gzipStep(from: rest, into: out)
                rest = UnsafeRawBufferPointer(rebasing: rest[step.used...])
                seen += UnsafeRawBufferPointer(rebasing: out[0..<step.written])
                if let answer = seen.withUnsafeBytes(decide) { return answer }
                if seen.count > limit { return nil }
                if !step.more && (step.written == 0 || rest.isEmpty) {
                    // What the member loop holds of `head` (a zstd frame's first piece) is read too.
                    if rest.isEmpty && !drained && stage.gzipFinish() == .drain {
                        drained = true
                        continue
                    }
                    return nil
                }
            }
        }
    }

    /// True for the first two bytes of a gzip member, 1F 8B.
    @inline(__always)
    package static func isGzip(_ b0: UInt8, _ b1: UInt8) -> Bool { b0 == 0x1F && b1 == 0x8B }

    /// What a stream's first bytes say (`cfs_pack_detect`): gzip, zstd or none (plain);
    /// nil when more bytes are needed and `atEnd` is false.
    static func compression(of first: UnsafeRawBufferPointer, atEnd: Bool = true) -> cfs_pack_format? {
        var f = CFS_PACK_NONE
        let told = cfs_pack_detect(first.baseAddress?.assumingMemoryBound(to: UInt8.self), first.count, atEnd ? 1 : 0, &f)
        return told != 0 ? f : nil
    }

    /// True when a stream's first bytes are gzip's or zstd's (its `head`, whole or cut).
    package static func isCompressed(_ head: UnsafeRawBufferPointer) -> Bool {
        compression(of: head).map { $0 != CFS_PACK_NONE } ?? false
    }

    /// Plain or gzip, `.detect` until the first bytes tell, `.done` after a failure.
    enum Mode { case detect, plain, gzip, inflated, done }
    private(set) var mode: Mode = .detect
    private var head: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    private var headCount = 0
    private var finished = false
    /// The gzip members (`cfs_unpack`), made at the first stream and reused.
    private var z: OpaquePointer?
    /// What inflates the gzip streams begun from now on.
    package var inflater = GzipInflater.default
    /// Reading goes on after a gap (the XML readers: the input stage takes the gap as
    /// `cfs_input_feed_gap`); when false, a gap is the stream's failure where it begins.
    package var resumesAfterGaps = false
    /// The gap the last ``gzipStep(from:into:)`` or ``gzipFinish()`` resumed after, until
    /// taken.
    package private(set) var gap: StreamGap?
    /// Takes ``gap``.
    package func takeGap() -> StreamGap? {
        defer { gap = nil }
        return gap
    }
    /// The push way's inflate target, allocated at its first use.
    private var out: UnsafeMutablePointer<UInt8>?

    /// Bytes pushed (compressed bytes for gzip; in the inflated way, the bytes fed), not
    /// counting pushes after a failure.
    package private(set) var bytesIn: UInt64 = 0
    /// Uncompressed bytes handed on.
    package private(set) var bytesXML: UInt64 = 0
    /// The failure that stopped the stream, if any.
    private(set) var failure: StreamFailure?

    /// ``FeedLimits/maxRatio`` as compared (no limit: `Int.max`).
    let maxRatio: Int
    /// Compressed bytes inflate consumed (total over the members), after the last step:
    /// in the pull way, what goes with each chunk.
    var compressedIn: UInt64 { z.map { cfs_unpack_consumed($0) } ?? 0 }
    /// What inflated the last gzip member begun (nil before the first).
    var memberInflater: GzipInflater? {
        guard mode != .detect, mode != .plain, let z else { return nil }
        return cfs_unpack_engine(z) == CFS_INFLATE_ISAL ? .isal : .zlib
    }
    /// Inside a gzip member: the stream ending now is truncated.
    var inMember: Bool { mode == .gzip && z.map { cfs_unpack_in_member($0) != 0 } ?? false }
    /// Padding zeros skipped between members: with ``compressedIn``, the input bytes used.
    var paddingIn: UInt64 { z.map { cfs_unpack_padding($0) } ?? 0 }
    /// When not nil, each gzip member's start as it begins: its offset in the
    /// compressed input and the uncompressed offset of its first byte (a WARC.gz has a
    /// member per record, and a record is found by its member's offset).
    var memberStarts: [(compressed: UInt64, uncompressed: UInt64)]?
    /// Compressed bytes consumed at the last checkpoint.
    private var zCheckpoint: UInt64 = 0

    /// A stage enforcing `limits.maxRatio` (the only limit of this stage).
    package init(limits: FeedLimits) {
        maxRatio = FeedLimits.effective(limits.maxRatio)
    }

    deinit {
        out?.deallocate()
        cfs_unpack_free(z)
    }

    /// Ready for a new stream (the inflate state and buffer are kept for reuse):
    /// `cfs_parser_reset`.
    package func reset() {
        mode = .detect
        headCount = 0
        finished = false
        bytesIn = 0
        bytesXML = 0
        failure = nil
        gap = nil
        if memberStarts != nil { memberStarts = [] }
        zCheckpoint = 0
    }

    // MARK: The ratio

    /// A checkpoint: the uncompressed stream reached a multiple of ``chunkSize``,
    /// everything before it handed on, and inflate had consumed `consumed` compressed
    /// bytes to get there. Returns false when the stream fails here.
    @discardableResult
    private func ratioCheckpoint(_ consumed: UInt64) -> Bool {
        zCheckpoint = consumed
        if cfs_ratio_over(bytesXML, zCheckpoint, UInt64(maxRatio)) != 0 {
            return fail(.fatal, FeedLimits.Message.maxRatio(over: maxRatio), code: .limitExceeded)
        }
        return true
    }

    // MARK: Push (cfs_parser_feed)

    /// Pushes bytes; calls `sink` with each uncompressed chunk (borrowed for the call).
    /// Returns the failure that stops the stream, if any (now or before).
    @discardableResult
    package func feed(_ data: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) rethrows
        -> StreamFailure?
    {
        precondition(!finished, "InputStage.feed after finish")
        precondition(mode != .inflated, "InputStage.feed after feedInflated")
        if failure != nil { return failure }
        guard var p = data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count > 0 else { return nil }
        var len = data.count
        bytesIn += UInt64(len)
        if mode == .detect {
            // detect: the first bytes, held across pushes until they tell.
            var told: cfs_pack_format?
            while true {
                told = withUnsafeBytes(of: head) { Self.compression(of: UnsafeRawBufferPointer(rebasing: $0[0..<headCount]), atEnd: false) }
                if told != nil || len == 0 { break }
                withUnsafeMutableBytes(of: &head) { $0[headCount] = p[0] }
                headCount += 1
                p += 1
                len -= 1
            }
            guard let format = told else { return nil }
            try withUnsafeBytes(of: head) { h in
                begin(format)
                try dispatch(h.baseAddress!.assumingMemoryBound(to: UInt8.self), headCount, sink: sink)
            }
        }
        while len > 0 && failure == nil {
            let n = min(len, Self.maxPiece)
            try dispatch(p, n, sink: sink)
            p += n
            len -= n
        }
        return failure
    }

    /// Decides gzip, zstd or plain from the first bytes of the stream (as many as tell,
    /// or all there are at its end).
    func detect(_ first: UnsafeRawBufferPointer) {
        begin(Self.compression(of: first) ?? CFS_PACK_NONE)
    }

    /// The stream is `format` (none: plain).
    func begin(_ format: cfs_pack_format) {
        precondition(mode == .detect)
        if format != CFS_PACK_NONE {
            if gzipBegin(format) { memberStarts?.append((0, 0)) }
        } else {
            mode = .plain
        }
    }

    /// Plain bytes go on as they are, in chunks; gzip is inflated.
    private func dispatch(_ p: UnsafePointer<UInt8>, _ n: Int, sink: (UnsafeRawBufferPointer) throws -> Void)
        rethrows
    {
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
        case .gzip:
            try gzipInput(p, n, sink: sink)
        case .detect, .inflated, .done:
            break
        }
    }

    /// The end of the input: a held first byte goes out as plain; a stream that ended
    /// inside a gzip member fails as truncated. Returns the stream's failure, if any.
    @discardableResult
    package func finish(sink: (UnsafeRawBufferPointer) throws -> Void) rethrows -> StreamFailure? {
        precondition(!finished, "InputStage.finish called twice")
        finished = true
        if failure == nil && mode == .detect && headCount > 0 {
            mode = .plain
            bytesXML += UInt64(headCount)
            try withUnsafeBytes(of: head) { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<headCount])) }
        }
        // The bytes the member loop holds (a zstd frame's last piece) are read.
        var none: UInt8 = 0
        while failure == nil && mode == .gzip && gzipFinish() == .drain {
            try withUnsafePointer(to: &none) { try gzipInput($0, 0, sink: sink) }
        }
        if failure == nil && inMember { fail(.truncated, "truncated \(packName) data") }
        return failure
    }

    // MARK: gzip

    /// "gzip" or "zstd": the stream's format, as messages name it.
    var packName: String { z.map { String(cString: cfs_pack_name(cfs_unpack_format($0))) } ?? "gzip" }
    /// The error code of the stream's format.
    var packCode: FeedError.Code { z.map { cfs_unpack_format($0) == CFS_PACK_ZSTD ? .zstd : .gzip } ?? .gzip }

    /// A compressed stream begins (its first member).
    @discardableResult
    private func gzipBegin(_ format: cfs_pack_format) -> Bool {
        if z == nil {
            guard let g = cfs_unpack_new() else { return fail(.fatal, "out of memory", code: .outOfMemory) }
            z = g
        }
        cfs_unpack_set_engine(z, cfs_inflate_engine(rawValue: UInt32(bitPattern: inflater.engine)))
        switch cfs_unpack_begin(z, format) {
        case CFS_UNPACK_OK: break
        case CFS_UNPACK_NOMEM: return fail(.fatal, "out of memory", code: .outOfMemory)
        default: return fail(.fatal, "corrupt \(packName) data", code: packCode)
        }
        mode = .gzip
        return true
    }

    /// Inflates all of `input`, member after member, into the
    /// stage's buffer, handing each piece to the sink and checking the ratio at each
    /// checkpoint (after the sink has parsed everything before it).
    private func gzipInput(_ input: UnsafePointer<UInt8>, _ count: Int,
                           sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let out = self.out ?? {
            let b = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.chunkSize)
            self.out = b
            return b
        }()
        var rest = UnsafeRawBufferPointer(start: input, count: count)
        while failure == nil {
            // Output stops at every multiple of chunkSize of the stream: the checkpoints.
            let room = Self.chunkSize - Int(bytesXML % UInt64(Self.chunkSize))
            let step = gzipStep(from: rest, into: UnsafeMutableRawBufferPointer(start: out, count: room))
            rest = UnsafeRawBufferPointer(rebasing: rest[step.used...])
            if step.written > 0 { try sink(UnsafeRawBufferPointer(start: out, count: step.written)) }
            if failure != nil { return }   // corrupt data: what came before it went on
            // Past the ratio, nothing after the checkpoint is inflated.
            if step.written == room && !ratioCheckpoint(compressedIn) { return }
            if !step.more { return }
        }
    }

    /// One step of the member loop (`cfs_unpack_step`), without the sink and the
    /// checkpoint: between members, skips padding zeros and begins the next member (or
    /// fails: trailing garbage); then inflates from `input` into `out`, which must not
    /// reach past the next checkpoint (the pull way's ``ChunkReader`` calls this directly).
    ///
    /// Returns the input bytes used, the bytes written (counted in ``bytesXML``; after a
    /// corrupt-data failure, what inflate produced before it), and `more`: false when
    /// this input is used up or inflate can make no progress with it.
    func gzipStep(from input: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer)
        -> (used: Int, written: Int, more: Bool)
    {
        guard failure == nil, let z else { return (0, 0, false) }
        let members = cfs_unpack_members(z)
        var used = 0, written = 0
        let r = cfs_unpack_step(z, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, &used,
                                out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, &written)
        if memberStarts != nil && cfs_unpack_members(z) != members {
            memberStarts!.append((cfs_unpack_member_start(z), bytesXML))
        }
        bytesXML += UInt64(written)
        if !resumesAfterGaps && (cfs_unpack_in_gap(z) != 0 || r == CFS_UNPACK_GAP) {
            // What was inflated before it still goes on.
            fail(.fatal, Self.gapWhy(z), code: packCode)
            return (used, written, false)
        }
        switch r {
        case CFS_UNPACK_OK: return (used, written, true)
        case CFS_UNPACK_NEED: return (used, written, false)
        case CFS_UNPACK_GAP:
            gap = Self.gap(z)
            return (used, written, false)
        case CFS_UNPACK_NOMEM: fail(.fatal, "out of memory", code: .outOfMemory)
        default: fail(.fatal, "corrupt \(packName) data", code: packCode)
        }
        return (used, written, false)
    }

    /// What ``gzipFinish()`` found.
    enum Finish { case none, drain, gap }

    /// The input ended (pull way): the bytes the member loop holds (a zstd frame's last
    /// piece) are to be read (`.drain`: ``gzipStep(from:into:)`` with no input reads
    /// them), or a gap under way ends (`.gap`, in ``gap``), at the next member found in
    /// the bytes it kept (read the same way) or at the end.
    func gzipFinish() -> Finish {
        guard failure == nil, mode == .gzip, let z else { return .none }
        switch cfs_unpack_finish(z) {
        case CFS_UNPACK_OK:
            return .drain
        case CFS_UNPACK_GAP:
            gap = Self.gap(z)
            if !resumesAfterGaps { fail(.fatal, gap!.why, code: packCode) }
            return .gap
        case CFS_UNPACK_NOMEM:
            fail(.fatal, "out of memory", code: .outOfMemory)
        default:
            break
        }
        return .none
    }

    private static func gap(_ z: OpaquePointer) -> StreamGap {
        var from: UInt64 = 0, to: UInt64 = 0
        var why: UnsafePointer<CChar>?
        cfs_unpack_gap(z, &from, &to, &why)
        return StreamGap(from: from, to: to, why: why.map { String(cString: $0) } ?? "corrupt gzip data",
                         zstd: cfs_unpack_format(z) == CFS_PACK_ZSTD)
    }

    private static func gapWhy(_ z: OpaquePointer) -> String { gap(z).why }

    // MARK: Inflated elsewhere (cfs_parser_feed_inflated)

    /// Bytes of a gzip stream inflated by another stage (``ChunkReader`` on
    /// ``ReadAheadPipeline``'s reading thread): handed on as they are, and at a checkpoint
    /// the ratio is checked with `compressed`, the compressed bytes that stage had
    /// consumed when it produced the last of them (its ``compressedIn``). `chunk` must
    /// not run past the next checkpoint. Returns the stream's failure, if any.
    @discardableResult
    package func feedInflated(_ chunk: UnsafeRawBufferPointer, compressed: UInt64,
                      sink: (UnsafeRawBufferPointer) throws -> Void) rethrows -> StreamFailure? {
        precondition(!finished, "InputStage.feedInflated after finish")
        if failure != nil { return failure }
        if mode == .detect && headCount == 0 { mode = .inflated }
        precondition(mode == .inflated, "InputStage.feedInflated after feed")
        let room = Self.chunkSize - Int(bytesXML % UInt64(Self.chunkSize))
        precondition(chunk.count <= room, "InputStage.feedInflated: a chunk runs past a checkpoint")
        guard chunk.count > 0 else { return nil }
        bytesIn += UInt64(chunk.count)
        bytesXML += UInt64(chunk.count)
        try sink(chunk)
        if chunk.count == room { ratioCheckpoint(compressed) }
        return failure
    }

    @discardableResult
    private func fail(_ kind: StreamFailure.Kind, _ message: String, code: FeedError.Code = .gzip,
                      errno: Int32 = 0) -> Bool {
        if failure == nil { failure = StreamFailure(kind: kind, code: code, message: message, errno: errno) }
        mode = .done
        return false
    }

    /// A failure from outside the stage (a read error, a cancelled run): the stream
    /// stops here as after one of its own.
    func fail(_ failure: StreamFailure) {
        fail(failure.kind, failure.message, code: failure.code, errno: failure.errno)
    }
}
