// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// Two-stage parsing of one input, so that one big `.gz` keeps two cores busy: a
/// second thread reads the file and inflates it (zlib) into a few fixed-size buffers
/// passed through a small bounded queue, while the calling thread feeds the plain bytes
/// to the parser (``FeedInput/chunks(_:)``).
///
/// The outcome is the same as `parser.parse(.fileDescriptor(fd), handler:)` — the same
/// events, the same errors (corrupt, truncated or trailing gzip data, read errors) at
/// the same documents, and the same ``ParseSummary`` — only faster when inflating and
/// parsing each take a core's worth of time.
///
/// The decompression ratio (``FeedLimits/maxRatio``) is the parser's: the reading
/// thread hands on, with each chunk, the compressed bytes inflate consumed to produce it,
/// and the parser checks its limit with them at the same checkpoints, over the same
/// window (from the last document begun, which only the parser knows), as when it
/// inflates itself. A gzip bomb stops at the same item either way; the reading thread
/// has then inflated at most `depth` chunks past that point, which are dropped.
///
/// Memory: `depth` buffers of `chunkSize` bytes, plus zlib's window. Gzip output is
/// cut at every 256 KiB of the uncompressed stream (the ratio checkpoints), so a
/// `chunkSize` above 256 KiB leaves the rest of each buffer unused for gzip input.
///
/// ```swift
/// let fd = open("dump.xml.gz", O_RDONLY)
/// let summary = try ReadAheadPipeline().parse(fileDescriptor: fd, with: SwiftFeedParser(), handler: writer)
/// ```
package struct ReadAheadPipeline: Sendable {
    /// Bytes per buffer handed from the reading thread to the parsing thread.
    package var chunkSize: Int
    /// Buffers in flight (2–4 is plenty: the queue only absorbs jitter).
    package var depth: Int
    /// What inflates gzip on the reading thread.
    package var inflater: GzipInflater

    /// A pipeline of `depth` buffers of `chunkSize` bytes (both > 0).
    package init(chunkSize: Int = 256 << 10, depth: Int = 3, inflater: GzipInflater = .default) {
        precondition(chunkSize > 0 && depth > 0)
        self.chunkSize = chunkSize
        self.depth = depth
        self.inflater = inflater
    }

    /// Parses what `fd` holds (plain XML or gzip, by content), reading and inflating
    /// on a second thread. Does not close `fd`.
    @discardableResult
    package func parse(fileDescriptor fd: Int32, with parser: any FeedParser, handler: some FeedHandler) throws
        -> ParseSummary
    {
        try parse(fileDescriptor: fd, with: parser, handler: handler, isCancelled: { false }, didRead: { _ in })
    }

    package func parse(fileDescriptor fd: Int32, prefix: [UInt8] = [], with parser: any FeedParser,
               handler: any FeedHandler, contentType: String? = nil,
               isCancelled: @escaping @Sendable () -> Bool, didRead: @escaping @Sendable (UInt64) -> Void) throws
        -> ParseSummary
    {
        let queue = ChunkQueue(chunkSize: chunkSize, depth: depth)
        let done = DispatchGroup()
        // A queue of its own: it targets an overcommitting pool, so the reader gets a
        // thread even when every worker of a batch is busy parsing.
        DispatchQueue(label: "feedstream.read-ahead").async(group: done) {
            queue.produce(from: ChunkReader(fd: fd, inflate: true, prefix: prefix, inflater: inflater,
                                            resumesAfterGaps: true, isCancelled: { queue.isClosed || isCancelled() }, didRead: didRead))
        }
        defer {
            queue.close()   // stops the reader if the parse ended early
            done.wait()
        }
        return try parseChunks(from: queue, with: parser, handler: handler, contentType: contentType, inflated: true)
    }
}

/// Parses `fd` as read, on the calling thread, without inflating (the parser does): a
/// read that can be cancelled while it waits on a pipe.
package func parseReading(fileDescriptor fd: Int32, prefix: [UInt8] = [], with parser: any FeedParser,
                  handler: any FeedHandler, contentType: String? = nil,
                  isCancelled: @escaping @Sendable () -> Bool, didRead: @escaping (UInt64) -> Void) throws
    -> ParseSummary
{
    let source = ReaderChunks(ChunkReader(fd: fd, inflate: false, prefix: prefix, isCancelled: isCancelled,
                                          didRead: didRead))
    return try parseChunks(from: source, with: parser, handler: handler, contentType: contentType)
}

/// Where a chunked parse gets its bytes.
protocol ChunkSource: AnyObject {
    /// The next chunk, borrowed until the next call; nil at the end.
    func nextChunk() -> UnsafeRawBufferPointer?
    /// Why the stream ended early, once ``nextChunk()`` has returned nil.
    var failure: StreamFailure? { get }
    /// Bytes read from the input to produce the chunks returned so far (all of them, at
    /// the end): the same count whether or not the reader ran ahead.
    var bytesIn: UInt64 { get }
    /// For gzip inflated by the source: the compressed bytes consumed to produce the
    /// chunk last returned (``ChunkReader/compressed``); nil otherwise.
    var compressed: UInt64? { get }
    /// The gap of the gzip stream the chunk last returned stands for (it is empty), nil
    /// for chunks of bytes.
    var gap: StreamGap? { get }
}

/// Feeds `source` to `parser` through a ``StreamFailureRelay``; `inflated`: the source
/// inflates, and the parser checks the ratio with its counts.
private func parseChunks(from source: any ChunkSource, with parser: any FeedParser, handler: any FeedHandler,
                         contentType: String?, inflated: Bool = false) throws -> ParseSummary
{
    let relay = StreamFailureRelay(handler, parser: parser)
    let feed = ChunkFeed(source: source, relay: relay)
    let chunks = inflated ? FeedChunks(inflated: { try feed.next() }, compressed: { feed.source.compressed },
                                       gap: { feed.source.gap })
                          : FeedChunks { try feed.next() }
    let summary = try parser.parse(.chunks(chunks), contentType: contentType, handler: relay)
    return try relay.finish(summary, bytesIn: source.bytesIn, parser: parser)
}

/// The closure state of a chunked parse.
///
/// `@unchecked Sendable`: ``FeedChunks`` needs a sendable closure, but the parser calls
/// it only on the thread that called `parse`, the thread that owns everything here.
private final class ChunkFeed: @unchecked Sendable {
    let source: any ChunkSource
    let relay: StreamFailureRelay
    var parsed: UInt64 = 0

    init(source: any ChunkSource, relay: StreamFailureRelay) {
        self.source = source
        self.relay = relay
    }

    func next() throws -> UnsafeRawBufferPointer? {
        if let chunk = source.nextChunk() {
            parsed += UInt64(chunk.count)
            return chunk
        }
        if source.failure?.kind == .cancelled { throw BatchCancelled() }
        relay.sourceDidEnd(failure: source.failure, bytesParsed: parsed)
        return nil
    }
}

/// A ``ChunkReader`` read on the parsing thread, into one buffer.
private final class ReaderChunks: ChunkSource {
    private let reader: ChunkReader
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)

    init(_ reader: ChunkReader) { self.reader = reader }
    deinit { buffer.deallocate() }

    func nextChunk() -> UnsafeRawBufferPointer? {
        let n = reader.read(into: buffer)
        return n > 0 ? UnsafeRawBufferPointer(rebasing: buffer[0..<n]) : nil
    }

    var failure: StreamFailure? { reader.failure }
    var bytesIn: UInt64 { reader.bytesIn }
    var compressed: UInt64? { reader.compressed }
    var gap: StreamGap? { nil }   // it does not inflate
}

/// The buffers between the reading thread (producer) and the parsing thread
/// (consumer): `depth` buffers, each either free, full and queued, or held by one side.
///
/// `@unchecked Sendable`: every stored property is read and written under `lock`, and
/// a buffer's bytes are touched only by the one side that took it from the queue.
package final class ChunkQueue: @unchecked Sendable, ChunkSource {
    private let lock = ConditionLock()
    private let storage: UnsafeMutableRawBufferPointer
    private var free: [UnsafeMutableRawBufferPointer]
    /// A chunk of bytes, or a gap (no buffer).
    private typealias Chunk = (buffer: UnsafeMutableRawBufferPointer?, count: Int, bytesIn: UInt64, compressed: UInt64?,
                               gap: StreamGap?)
    private var full: [Chunk] = []
    private var current: UnsafeMutableRawBufferPointer?   // the consumer's chunk
    private var currentBytesIn: UInt64 = 0
    private var currentCompressed: UInt64?
    private var currentGap: StreamGap?
    private var producerDone = false
    private var closed = false
    private var endFailure: StreamFailure?
    private var endBytesIn: UInt64 = 0

    package init(chunkSize: Int, depth: Int) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize * depth, alignment: 16)
        self.storage = storage
        free = (0..<depth).map { UnsafeMutableRawBufferPointer(rebasing: storage[($0 * chunkSize)..<(($0 + 1) * chunkSize)]) }
    }

    deinit { storage.deallocate() }

    var isClosed: Bool { lock.withLock { closed } }

    // MARK: Producer

    /// A free buffer to fill; nil when the consumer has gone.
    func takeFree() -> UnsafeMutableRawBufferPointer? {
        lock.lock()
        defer { lock.unlock() }
        while free.isEmpty && !closed { lock.wait() }
        return closed ? nil : free.removeLast()
    }

    /// A filled buffer: `count` bytes, produced after reading `bytesIn` bytes, and
    /// (gzip) consuming `compressed` of them.
    func put(_ buffer: UnsafeMutableRawBufferPointer, count: Int, bytesIn: UInt64, compressed: UInt64?) {
        lock.withLock {
            full.append((buffer, count, bytesIn, compressed, nil))
            lock.broadcast()
        }
    }

    /// A gap of the gzip stream after the chunks put so far.
    package func put(gap: StreamGap, bytesIn: UInt64, compressed: UInt64?) {
        lock.withLock {
            full.append((nil, 0, bytesIn, compressed, gap))
            lock.broadcast()
        }
    }

    func recycle(_ buffer: UnsafeMutableRawBufferPointer) {
        lock.withLock {
            free.append(buffer)
            lock.broadcast()
        }
    }

    /// The producer's loop: fills free buffers from `reader` until it ends or the
    /// consumer goes, then finishes. `didRead` runs after each read, before its chunk is
    /// handed on.
    package func produce(from reader: ChunkReader, didRead: (ChunkReader) -> Void = { _ in }) {
        while let buffer = takeFree() {
            let n = reader.read(into: buffer)
            didRead(reader)
            let gap = reader.takeGap()
            if n > 0 {
                put(buffer, count: n, bytesIn: reader.bytesIn, compressed: reader.compressed)
            } else {
                recycle(buffer)
            }
            if let gap {
                put(gap: gap, bytesIn: reader.bytesIn, compressed: reader.compressed)
            } else if n == 0 {
                break
            }
        }
        finish(failure: reader.failure, bytesIn: reader.bytesIn)
    }

    /// No more chunks.
    func finish(failure: StreamFailure?, bytesIn: UInt64) {
        lock.withLock {
            producerDone = true
            endFailure = failure
            endBytesIn = bytesIn
            lock.broadcast()
        }
    }

    // MARK: Consumer

    package func nextChunk() -> UnsafeRawBufferPointer? {
        lock.lock()
        defer { lock.unlock() }
        if let current {
            free.append(current)
            self.current = nil
            lock.broadcast()
        }
        while full.isEmpty && !producerDone { lock.wait() }
        guard !full.isEmpty else {
            currentBytesIn = endBytesIn
            currentCompressed = nil
            currentGap = nil
            return nil
        }
        let chunk = full.removeFirst()
        current = chunk.buffer
        currentBytesIn = chunk.bytesIn
        currentCompressed = chunk.compressed
        currentGap = chunk.gap
        guard let buffer = chunk.buffer else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: buffer[0..<chunk.count])
    }

    package var gap: StreamGap? { lock.withLock { currentGap } }

    var failure: StreamFailure? { lock.withLock { endFailure } }
    /// Up to the chunk the consumer took last (at the end: the reader's total), not
    /// what the reader has read ahead.
    package var bytesIn: UInt64 { lock.withLock { currentBytesIn } }
    /// How the stream ended, once the producer finished (whatever the consumer has
    /// taken); nil before.
    package var ended: (failure: StreamFailure?, bytesIn: UInt64)? {
        lock.withLock { producerDone ? (endFailure, endBytesIn) : nil }
    }
    package var compressed: UInt64? { lock.withLock { currentCompressed } }

    /// The consumer is done (at the end, or early): the producer stops at its next step.
    package func close() {
        lock.withLock {
            closed = true
            lock.broadcast()
        }
    }
}
