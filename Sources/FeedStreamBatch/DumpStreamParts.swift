// SPDX-License-Identifier: Apache-2.0
import Dispatch
import FeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// One dump — a big file of documents one after another, gzip or plain — converted on
/// several threads (one `.gz` dump on every core), with the output, counts
/// and errors of one parser going through it from start to end.
///
/// **Reading.** One thread reads the file and inflates it (``ChunkReader``, as the
/// read-ahead pipeline does), and cuts the stream into parts at `<?xml` declarations
/// (``DocumentSplitter``), at least ``partBytes`` apart, noting for gzip the compressed
/// counts at the ratio checkpoints (``DumpParts/Checkpoints``). Each part is copied out
/// with the first bytes of the next (its probe), at most two parts per thread parsing
/// them ahead of the one being put together.
///
/// **Parsing.** Each part is parsed on its own (``DumpParts/parse(_:probe:start:documentBase:gzip:rest:end:contentType:parser:handler:)``),
/// into JSON Lines in memory, by the workers of the run that have no input left
/// (``LiveState/takeSpareWorkers(upTo:)``) and by the thread putting the parts
/// together, which parses the part it needs when nobody took it. The parts are put
/// together in order: lines renumbered by the documents before them
/// (``DumpParts/renumber(_:by:)``), errors likewise; a cut that did not hold (the
/// probe began no document) joins two parts, parsed again on this thread; a part in
/// which the parser stopped the stream (the decompression ratio, checked per part at
/// the whole stream's checkpoints) is the last, as for one parser.
///
/// **Memory.** Two parts per thread parsing them (this one and the helpers), and their
/// output: with no idle worker in the run, a part or two ahead, as the read-ahead
/// pipeline. A stretch of the stream of ``heldBytes`` without a cut (a dump written
/// without declarations, one huge document) is not held: from that stretch's start,
/// the rest of the stream is parsed by this thread as it is read, straight out. Nor is
/// a run of cuts that do not hold (a huge document with `<?xml` in its CDATA sections):
/// a part whose cut did not hold is joined with the next one, then two, four...
/// (parsed again a logarithmic number of times), and once joined past ``joinedBytes``
/// the rest of the stream is read straight out from its start (``PartsRest``).
///
/// **The end.** The last part (or the rest read straight out) is parsed with the
/// stream's failure — corrupt, truncated or trailing gzip data, a read error — which
/// one parser reports the same way (``DumpParts/End``).
///
/// `@unchecked Sendable`: the stored `var`s are only touched under `lock`; the rest is
/// set once, and each part's parser and writer belong to the thread parsing it.
final class DumpStreamParts: @unchecked Sendable {
    /// Parts are cut at least this many uncompressed bytes apart.
    let partBytes: Int
    /// Uncompressed bytes held without a cut before the rest is read straight out.
    let heldBytes: Int
    /// Parts joined (their cuts did not hold) past this many bytes: the rest of the stream
    /// is read straight out, from the joined part's start.
    let joinedBytes: Int

    private let fd: Int32
    private let options: BatchConverter.Options
    private let live: LiveState
    private let source: String
    private let lock: ConditionLock
    private let helpers: PartHelpers
    private let reading = DispatchGroup()

    // Under `lock`:
    /// Parts read, by number, until put together.
    private var parts: [Int: Part] = [:]
    /// Parts read so far; the reader made its last one when `readerDone`.
    private var produced = 0
    private var readerDone = false
    /// The part being put together (parts before it are done).
    private var assembling = 0
    /// The last part that thread asked for: past `assembling` while parts whose cuts did
    /// not hold are joined. The reader's window counts from it, else a join of more
    /// parts than the window waited for a part the reader waited to put (a deadlock: a
    /// huge document with `<?xml` in its CDATA sections, `convert -j 2`).
    private var wanted = 0
    /// Who parses which part, and the parts parsed ahead.
    private let board: PartBoard<Part, Parsed>
    /// The run is over (done or failed): the reader and the helpers stop.
    private var done = false
    /// Parts joined past ``joinedBytes`` (cuts that did not hold): the reader cuts no more,
    /// it hands the rest of the stream on as it is read, and no part is parsed ahead.
    private var straightOut = false
    /// That rest, closed with the run.
    private var straightRest: PartsRest?

    /// A part as read: its bytes and its probe's.
    struct Part: @unchecked Sendable {
        let start: UInt64
        /// The part's bytes, then its probe's (none for the last part).
        let bytes: [UInt8]
        let count: Int
        var hasProbe: Bool { bytes.count > count }
        let gzip: DumpParts.Checkpoints?
        /// For gzip: the bytes read from the file when the stream reached each of the
        /// part's checkpoints (those of `gzip`), for where a stop leaves the count.
        let reads: [UInt64]
        /// The last part: how the stream ended.
        let end: DumpParts.End?
        /// The rest of the stream follows, read as it comes.
        let rest: (any StreamRest)?
    }

    /// A part parsed ahead: its outcome, lines (documents numbered from 1) and errors.
    struct Parsed {
        var outcome: DumpParts.Outcome
        var lines: [UInt8]
        var errors: [FeedError]
        var dropped: ErrorTally
    }

    init(fd: Int32, partBytes: Int, options: BatchConverter.Options, live: LiveState, source: String) {
        self.fd = fd
        self.partBytes = max(1, partBytes)
        self.heldBytes = 2 * self.partBytes
        self.joinedBytes = 8 * self.partBytes
        self.options = options
        self.live = live
        self.source = source
        helpers = PartHelpers(options: options, live: live, label: "feedstream.dump-part")
        lock = ConditionLock()
        board = PartBoard(lock: lock)
    }

    private var isDone: Bool { lock.withLock { done } }

    // MARK: Reading

    /// Reads, inflates and cuts the stream into parts (on its own thread).
    private func read(isCancelled: @escaping @Sendable () -> Bool, didRead: @escaping @Sendable (UInt64) -> Void) {
        let reader = ChunkReader(fd: fd, inflate: true, inflater: options.inflater, resumesAfterGaps: true, isCancelled: { [self] in isDone || isCancelled() },
                                 didRead: didRead)
        let grid = UInt64(InputStage.chunkSize)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: InputStage.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var splitter = DocumentSplitter(minimumPartBytes: UInt64(partBytes))
        let probeBytes = UInt64(DocumentSplitter.probeBytes)
        var pending: [UInt8] = []   // the stream from `start`
        pending.reserveCapacity(heldBytes + InputStage.chunkSize)
        var start: UInt64 = 0
        var offset: UInt64 = 0
        var gzip: Bool?
        var counts: [UInt64] = [0]   // compressed counts at the checkpoints from `countsFirst`
        var reads: [UInt64] = [0]    // bytes read then
        var countsFirst = 0
        var cuts: [UInt64] = []
        func checkpoints(from: UInt64) -> (DumpParts.Checkpoints?, [UInt64]) {
            guard gzip == true else { return (nil, []) }
            let first = Int(from / grid)
            return (DumpParts.Checkpoints(first: first, counts: Array(counts[(first - countsFirst)...])),
                    Array(reads[(first - countsFirst)...]))
        }
        func make(_ bytes: [UInt8], count: Int, end: DumpParts.End? = nil, rest: ChunkQueue? = nil) -> Part {
            let (g, r) = checkpoints(from: start)
            return Part(start: start, bytes: bytes, count: count, gzip: g, reads: r, end: end, rest: rest)
        }
        while true {
            let n = reader.read(into: buffer)
            // A gap in the gzip stream: the bytes before and after it do not join, so no
            // part is cut from here on; the rest is read straight out, the gap first.
            let gap = reader.takeGap()
            if n == 0 && gap == nil { break }
            if gzip == nil { gzip = reader.compressed != nil }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            pending.append(contentsOf: chunk)
            offset += UInt64(n)
            if gzip == true && n > 0 && offset % grid == 0 {
                counts.append(reader.compressed ?? 0)
                reads.append(reader.bytesIn)
            }
            if gap == nil {
                cuts += splitter.scan(chunk).filter { gzip != true || DumpParts.cutKeepsTheRatioWindow($0) }
            }
            while gap == nil, let cut = cuts.first, offset >= cut + probeBytes {
                cuts.removeFirst()
                let k = Int(cut - start)
                let part = make(Array(pending[0..<(k + Int(probeBytes))]), count: k)
                pending.removeFirst(k)
                start = cut
                let drop = Int(start / grid) - countsFirst   // checkpoints no part needs any more
                if gzip == true && drop > 0 {
                    counts.removeFirst(drop)
                    reads.removeFirst(drop)
                    countsFirst += drop
                }
                guard put(part) else { return }
            }
            if gap != nil || (cuts.isEmpty && pending.count >= heldBytes) || lock.withLock({ straightOut }) {
                // A gap, no cut in sight, or parts joined past ``joinedBytes``: the rest of
                // the stream is read straight out.
                // Four chunks queued, one with the parser and one being read into.
                let rest = ChunkQueue(chunkSize: InputStage.chunkSize, depth: 6)
                if let gap { rest.put(gap: gap, bytesIn: reader.bytesIn, compressed: reader.compressed) }
                let held = pending
                pending = []   // the part's bytes are the part's alone
                guard put(make(held, count: held.count, rest: rest)) else { return }
                rest.produce(from: reader)
                return
            }
        }
        _ = put(make(pending, count: pending.count,
                     end: DumpParts.End(failure: reader.failure, bytesIn: reader.bytesIn)))
    }

    /// Hands a part on, once it is within the window; false when the run is over.
    private func put(_ part: Part) -> Bool {
        lock.withLock {
            while !done && produced > max(assembling, wanted) + 2 * (1 + helpers.hired) { lock.wait() }
            guard !done else { return false }
            parts[produced] = part
            produced += 1
            if part.end != nil || part.rest != nil { readerDone = true }
            lock.broadcast()
            return true
        }
    }

    /// Part `k`, once read; nil when the stream has fewer parts.
    private func part(_ k: Int) -> Part? {
        lock.withLock {
            if k > wanted {
                wanted = k
                lock.broadcast()
            }
            while parts[k] == nil && !(readerDone && produced <= k) && !done { lock.wait() }
            return parts[k]
        }
    }

    /// Part `k` taken for the rest read straight out: out of the parts (and of the
    /// window, which then counts from the next); nil when the stream has fewer parts or
    /// the run is over.
    fileprivate func take(_ k: Int) -> Part? {
        guard let p = part(k) else { return nil }
        lock.withLock {
            parts[k] = nil
            board.forget(k)
            lock.broadcast()
        }
        return p
    }

    // MARK: Parsing

    /// Parses a part into JSON Lines in memory, documents numbered from 1.
    private func parse(_ part: Part, parser: any FeedParser) throws -> Parsed {
        let output = MemoryOutput()
        let writer = options.makeWriter(output: output)
        writer.source = source
        let errors = PartErrors()
        let handler = FeedHandlerGroup(writer, errors)
        var end: (@Sendable () -> DumpParts.End)?
        if let e = part.end { end = { e } }
        let outcome = try part.bytes.withUnsafeBytes { (all: UnsafeRawBufferPointer) -> DumpParts.Outcome in
            let probe: UnsafeRawBufferPointer? = part.hasProbe ? UnsafeRawBufferPointer(rebasing: all[part.count...]) : nil
            return try DumpParts.parse(UnsafeRawBufferPointer(rebasing: all[0..<part.count]), probe: probe,
                                       start: part.start, documentBase: 0, gzip: part.gzip, end: end,
                                       contentType: options.contentType, parser: parser, handler: handler)
        }
        try writer.flush()
        return Parsed(outcome: outcome, lines: output.bytes, errors: errors.errors, dropped: errors.dropped)
    }

    // MARK: Putting together

    /// Converts the file: its lines, errors and dropped errors go to `output`, in order.
    /// Returns the summary one parser of the whole stream gives.
    func convert(parser: any FeedParser, output: PartOutput, isCancelled: @escaping @Sendable () -> Bool,
                 didRead: @escaping @Sendable (UInt64) -> Void) throws -> ParseSummary {
        let write = output.write, report = output.report, dropped = output.dropped
        DispatchQueue(label: "feedstream.dump-read").async(group: reading) { [self] in
            read(isCancelled: isCancelled, didRead: didRead)
            lock.withLock {
                readerDone = true
                lock.broadcast()
            }
        }
        defer {
            let rests: [any StreamRest] = lock.withLock {
                done = true
                lock.broadcast()
                defer { straightRest = nil }
                return parts.values.compactMap(\.rest) + (straightRest.map { [$0] } ?? [])
            }
            for r in rests { r.close() }
            reading.wait()
            helpers.wait()
        }
        var total = ParseSummary()
        var k = 0
        while true {
            hire()
            guard var part = part(k) else {
                if isCancelled() { throw BatchCancelled() }
                break
            }
            if part.end?.failure?.kind == .cancelled { throw BatchCancelled() }
            var parsed: Parsed?
            var next = k + 1
            while parsed == nil {
                if part.rest != nil {
                    break   // read straight out, below
                }
                let p = next == k + 1 ? try result(k, part, parser: parser) : try parse(part, parser: parser)
                if p.outcome.joined {
                    parsed = p
                    break
                }
                // The cut after this part did not hold: one part with the next ones, as
                // many as it holds (the cuts between them are passed over, as joining
                // always may): a run of cuts that do not hold (`<?xml` in the CDATA of a
                // huge document) is parsed again a logarithmic number of times, not once
                // per cut (quadratic).
                var bytes = Array(part.bytes[0..<part.count])
                var gzip = part.gzip, reads = part.reads, count = part.count
                var probe: ArraySlice<UInt8> = []
                var end: DumpParts.End?, rest: (any StreamRest)?
                for _ in 0..<(next - k) {
                    guard let following = self.part(next) else { throw BatchCancelled() }
                    if let g = gzip, let f = following.gzip {
                        // The checkpoints so far, then the following's past them.
                        let skip = max(0, g.first + g.counts.count - f.first)
                        gzip = DumpParts.Checkpoints(first: g.first, counts: g.counts + f.counts.dropFirst(skip))
                        reads += following.reads.dropFirst(skip)
                    }
                    bytes += following.bytes[0..<following.count]
                    count += following.count
                    probe = following.bytes[following.count...]
                    (end, rest) = (following.end, following.rest)
                    next += 1
                    if !following.hasProbe { break }   // the last part
                }
                part = Part(start: part.start, bytes: bytes + probe, count: count, gzip: gzip, reads: reads, end: end,
                            rest: rest)
                if part.hasProbe && part.count > joinedBytes {
                    // Joined past ``joinedBytes``: from this part's start, the rest of the
                    // stream is parsed as it is read (the parts read so far, then what the
                    // reader reads once it cuts no more), its lines written straight out,
                    // in the memory of a few chunks, not of the whole run of parts.
                    let rest = PartsRest(owner: self, from: next)
                    lock.withLock {
                        straightOut = true
                        straightRest = rest
                        lock.broadcast()
                    }
                    part = Part(start: part.start, bytes: bytes, count: count, gzip: gzip, reads: reads, end: nil,
                                rest: rest)
                }
            }
            let summary: ParseSummary
            var stopped = false
            var last = false
            if let parsed {
                try DumpParts.renumber(parsed.lines, by: total.documents).withUnsafeBytes { try write($0) }
                for error in parsed.errors { try report(error.numbered(after: total.documents)) }
                dropped(parsed.dropped)
                summary = DumpParts.renumbered(parsed.outcome.summary, by: total.documents)
                stopped = parsed.outcome.stopped
                last = part.end != nil
            } else {
                (summary, stopped) = try stream(part, documentBase: total.documents, parser: parser, write: write,
                                                report: report)
                last = true
            }
            guard live.add(items: summary.items, documents: summary.documents) else { throw BatchCancelled() }
            DumpParts.add(summary, to: &total)
            if stopped || last {
                // What was read from the file: at the end, or when the stream reached the
                // checkpoint the parser stopped at (as one parser counts it).
                let stop = (part.start + summary.bytesXML) / UInt64(InputStage.chunkSize)
                if stopped, let g = part.gzip, case let i = Int(stop) - g.first, i >= 0, i < part.reads.count {
                    total.bytesIn = part.reads[i]
                } else if let end = part.end {
                    total.bytesIn = end.bytesIn
                } else {
                    total.bytesIn = summary.bytesIn   // read straight out: the rest's count
                }
                return total
            }
            lock.withLock {
                for i in k..<next { parts[i] = nil }
                board.advance(from: k, to: next)
                assembling = next
                lock.broadcast()
            }
            k = next
        }
        return total
    }

    /// Part `k`'s result: parsed here if no helper took it; while a helper parses it,
    /// this thread parses the next part nobody took (within the window), or waits.
    private func result(_ k: Int, _ part: Part, parser: any FeedParser) throws -> Parsed {
        try board.result(k, own: part, free: unclaimed, mine: { try parse($0, parser: parser) },
                         ahead: { try parse($0, parser: parser) })
    }

    /// The first part read and not taken past the one being put together (not the rest
    /// read straight out). Call with the lock held.
    private func unclaimed() -> (Int, Part)? {
        if straightOut { return nil }
        var j = assembling + 1
        while j < produced {
            if !board.isTaken(j), let p = parts[j], p.rest == nil { return (j, p) }
            j += 1
        }
        return nil
    }

    /// Hires the run's idle workers to parse parts ahead, until the run is over or every
    /// part is taken.
    private func hire() {
        helpers.hire { [self] parser in
            board.help(free: unclaimed,
                       exhausted: {
                           straightOut || readerDone
                               && !(assembling..<produced).contains { !board.isTaken($0) && parts[$0]?.rest == nil }
                       },
                       isOver: { done }, convert: { try parse($0, parser: parser) })
        }
    }

    /// The rest of the stream from `part` on, parsed on this thread as it is read, its
    /// lines and errors straight out.
    private func stream(_ part: Part, documentBase: Int, parser: any FeedParser,
                        write: @escaping (UnsafeRawBufferPointer) throws -> Void,
                        report: @escaping (FeedError) throws -> Void) throws -> (ParseSummary, stopped: Bool) {
        guard let rest = part.rest else { preconditionFailure("a part read straight out has the rest") }
        let writer = options.makeWriter(output: ClosureOutput(write))
        writer.source = source
        writer.documentNumberOffset = documentBase
        let outcome = try part.bytes.withUnsafeBytes { all in
            try DumpParts.parse(UnsafeRawBufferPointer(rebasing: all[0..<part.count]), probe: nil, start: part.start,
                                documentBase: documentBase, gzip: part.gzip, rest: rest, end: { rest.end },
                                contentType: options.contentType, parser: parser,
                                handler: FeedHandlerGroup(writer, PartErrors(report: report)))
        }
        try writer.flush()
        if rest.end.failure?.kind == .cancelled { throw BatchCancelled() }
        return (outcome.summary, outcome.stopped)
    }
}

/// The rest of a stream read straight out, as ``DumpStreamParts/stream(_:documentBase:parser:write:report:)``
/// parses it: its chunks, how it ended, and a way to stop its reader.
protocol StreamRest: DumpParts.Rest {
    /// How the stream ended; before it ended (the parser stopped it), the bytes read
    /// for the chunks handed out.
    var end: DumpParts.End { get }
    /// The parsing side has gone (or the run is over): the reader stops.
    func close()
}

/// The rest read straight out, queued by the reading thread (``ChunkQueue/produce(from:didRead:)``).
extension ChunkQueue: StreamRest {
    package func next() -> UnsafeRawBufferPointer? { nextChunk() }

    var end: DumpParts.End {
        guard let ended else { return DumpParts.End(failure: nil, bytesIn: bytesIn) }
        return DumpParts.End(failure: ended.failure, bytesIn: ended.bytesIn)
    }
}

/// The rest of a stream whose parts were joined past ``DumpStreamParts/joinedBytes``,
/// read straight out: the bytes of the parts the reader had cut
/// (their own: a probe is the next part's first bytes), then those of the part it made
/// once told to cut no more and the chunks it reads after it (its ``ChunkQueue``), or the
/// last part and the stream's end. Chunks within the ratio checkpoints, each with the
/// compressed count at its end when that is a checkpoint, as a part's own.
///
/// `@unchecked Sendable`: used by the thread parsing the rest only (and closed by it).
private final class PartsRest: StreamRest, @unchecked Sendable {
    /// Unowned: the converter keeps this rest until its run ends.
    private unowned let owner: DumpStreamParts
    private var following: Int
    private var part: DumpStreamParts.Part?
    private var position = 0
    private var queue: (any StreamRest)?
    private var ended: DumpParts.End?
    private var lastCompressed: UInt64?
    private var lastBytesIn: UInt64 = 0
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: InputStage.chunkSize, alignment: 16)

    init(owner: DumpStreamParts, from first: Int) {
        self.owner = owner
        following = first
    }

    deinit { buffer.deallocate() }

    func next() -> UnsafeRawBufferPointer? {
        let grid = UInt64(InputStage.chunkSize)
        while true {
            if let queue { return queue.next() }
            if let p = part, position < p.count {
                let at = p.start + UInt64(position)
                let n = min(p.count - position, Int(grid - at % grid))
                p.bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
                position += n
                let end = at + UInt64(n)
                lastCompressed = nil
                if end % grid == 0, let g = p.gzip {
                    lastCompressed = g.count(at: end / grid)
                    let i = Int(end / grid) - g.first
                    if i >= 0 && i < p.reads.count { lastBytesIn = p.reads[i] }
                }
                return UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            }
            if let p = part {
                if let rest = p.rest {
                    queue = rest
                    continue
                }
                if let end = p.end {
                    ended = end
                    return nil
                }
            }
            guard let p = owner.take(following) else { return nil }
            following += 1
            part = p
            position = 0
        }
    }

    var compressed: UInt64? {
        if let queue { return queue.compressed }
        return lastCompressed ?? 0
    }

    var gap: StreamGap? { queue?.gap }

    var end: DumpParts.End { queue?.end ?? ended ?? DumpParts.End(failure: nil, bytesIn: lastBytesIn) }

    func close() {
        // The reader's rest, once taken (a part the reader made with a rest, not taken
        // yet, is closed with the parts): else the reader waits for room in it.
        (queue ?? part?.rest)?.close()
    }
}
