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

/// A dump's uncompressed stream parsed in parts, each part on its own, so that one
/// `.gz` dump can use every core: the parts come from ``DocumentSplitter``'s cuts, and the
/// result — JSON Lines bytes, document numbers, error offsets, the summary — is the one
/// a single parser gives for the whole stream.
///
/// What makes a part exact: the part before a cut is parsed with the cut's first bytes
/// appended (the probe, ``DocumentSplitter/probeBytes``), and the cut holds only if the
/// parser begins a document at the cut: told by where the document starts
/// (``DocumentStateReporting/lastDocumentOffset``), not by when it is announced (a
/// parser may announce documents of the part's own bytes only once the probe comes,
/// as libxml2 does when it holds the last byte of a UTF-16 one). The part's last bytes
/// and the probe are given to the parser in one chunk, as the whole stream's are
/// (within the input stage's chunks). The parser then stands, at the
/// cut, where the whole-stream parser stands: a document begins there, nothing of the
/// previous ones carried over (a failed document was recovered from the bytes up to
/// the cut, the next document start), so the part after the cut parses on its own.
/// Everything the parser delivered before that document start is the part's output;
/// what it delivers for the document begun in the probe is dropped, and taken out of
/// the part's summary. When no document begins at the cut (the `<?xml` was inside
/// CDATA, a comment, a processing instruction or an open document), or when a look
/// back before it read bytes past the cut again (``DocumentStateReporting/rereadEnd``:
/// the whole stream's parser carries that over the cut), or when the
/// parser had begun no document of the part's own before the probe (it could not tell
/// the part's first document from the one at the cut), the part's output is dropped and
/// it is parsed again joined with the next part.
///
/// Each part's events are renumbered: document numbers (``JSONLinesWriter/documentNumberOffset``
/// for the lines, ``FeedError/document`` for errors) count the documents of the parts
/// before it, and error offsets the bytes before it.
///
/// For a gzip stream, each part's parser is given the stream's compressed counts at its
/// ratio checkpoints (``Checkpoints``, ``InflatedOrigin``): it checks the decompression
/// ratio where one parser of the whole stream checks it, and a part in which it stops
/// the stream (``Outcome/stopped``) is the last.
///
/// `feedstream convert` reads a big dump in parts through ``DumpStreamParts`` (parts
/// from the reading thread, memory bounded, the stream's failure given to the last
/// part). ``convertSequentially(_:minimumPartBytes:gzip:parser:source:layout:)`` (the
/// parts one after another) and ``convertParallel(_:minimumPartBytes:jobs:gzip:makeParser:source:layout:)``
/// (on several threads), both over a stream in memory and joining a part whose cut did
/// not hold with the next one at a time, are the references the tests and the `parts`
/// fuzzer hold it to.
package enum DumpParts {
    /// What parsing one part gave.
    package struct Outcome: Sendable {
        /// False when the parser did not begin a document in the probe: the part's
        /// output must be dropped and the part parsed again with the next.
        package var joined: Bool
        /// The parser stopped the stream inside the part (a fatal error: the
        /// decompression ratio): nothing after the part is parsed, as one parser of the
        /// whole stream parses nothing after it.
        package var stopped = false
        /// The part's counts (documents, items, failures), its first error renumbered;
        /// ``ParseSummary/bytesXML`` and ``ParseSummary/bytesIn`` are the part's bytes.
        package var summary: ParseSummary
    }

    /// The compressed counts of an inflated gzip stream at its ratio checkpoints (every
    /// ``InputStage/chunkSize`` bytes of the uncompressed stream): what a part's parser
    /// checks the ratio with (``InflatedOrigin``), for the checkpoints `first`... of the
    /// stream (the 0th, at offset 0, is 0).
    package struct Checkpoints: Sendable {
        package var first: Int
        package var counts: [UInt64]
        package init(first: Int = 0, counts: [UInt64]) {
            self.first = first
            self.counts = counts
        }

        /// The count at checkpoint `k` (at offset k·chunkSize).
        package func count(at k: UInt64) -> UInt64 {
            let i = Int(k) - first
            return i >= 0 && i < counts.count ? counts[i] : counts.last ?? 0
        }
    }

    /// Whether a cut in a gzip stream is one a part may begin at: no ratio checkpoint
    /// within its probe's bytes. One parser of the whole stream begins the document
    /// somewhere in those bytes (once its `<?xml` and delimiter are read), a part's own
    /// parser at their first: a checkpoint between the two would open their ratio
    /// windows at different compressed counts. (One cut in about 40,000.)
    package static func cutKeepsTheRatioWindow(_ cut: UInt64) -> Bool {
        let grid = UInt64(InputStage.chunkSize)
        return (cut + UInt64(DocumentSplitter.probeBytes)) / grid == cut / grid
    }

    /// Where the stream goes on after a part's bytes, when the part is the rest of the
    /// stream read as it comes (``DumpStreamParts``): its chunks (each within a ratio
    /// checkpoint), and for gzip the compressed count of the chunk last returned.
    package protocol Rest: AnyObject, Sendable {
        func next() -> UnsafeRawBufferPointer?
        var compressed: UInt64? { get }
        /// The gap of the gzip stream the chunk last returned stands for (``ChunkSource/gap``).
        var gap: StreamGap? { get }
    }

    /// How the stream a last part belongs to ended: its failure (corrupt or truncated
    /// gzip, a read error), reported as one parser of the whole stream reports it, and
    /// the bytes read from the input.
    package struct End: Sendable {
        package var failure: StreamFailure?
        package var bytesIn: UInt64
        package init(failure: StreamFailure?, bytesIn: UInt64) {
            self.failure = failure
            self.bytesIn = bytesIn
        }
    }

    /// Parses `part` (the stream's bytes from offset `start`, after `documentBase`
    /// documents) and then, when given, the `probe` (the first bytes of the next
    /// part), delivering renumbered events to `handler`; a writer among the handlers
    /// must have its ``JSONLinesWriter/documentNumberOffset`` set to `documentBase` by the caller.
    /// The last part of a stream has no probe and is given the stream's `end` (read
    /// once its bytes, and the `rest`'s, are all given).
    package static func parse(_ part: UnsafeRawBufferPointer, probe: UnsafeRawBufferPointer?, start: UInt64,
                              documentBase: Int, gzip: Checkpoints? = nil, rest: (any Rest)? = nil,
                              end: (@Sendable () -> End)? = nil, contentType: String? = nil,
                              parser: any FeedParser, handler: some FeedHandler) throws -> Outcome
    {
        let state = PartState()
        if probe != nil { state.cut = part.count }
        let renumbered = PartHandler(inner: handler, state: state, start: start, documentBase: documentBase)
        let relay = end.map { _ in StreamFailureRelay(renumbered, parser: parser) }
        state.relay = relay
        // The part in chunks of the input stage's size, then the probe or the rest, then
        // the end; for gzip, cut at the whole stream's ratio checkpoints.
        let grid = UInt64(InputStage.chunkSize)
        let unsafePart = UnsafeSendableBytes(part)
        let unsafeProbe = probe.map(UnsafeSendableBytes.init)
        let next: @Sendable () -> UnsafeRawBufferPointer? = {
            let segment: UnsafeRawBufferPointer
            let offset: Int   // of the segment in the part and probe
            if state.position < unsafePart.bytes.count {
                segment = unsafePart.bytes
                offset = 0
            } else if let p = unsafeProbe, state.position < unsafePart.bytes.count + p.bytes.count {
                state.inProbe = true
                segment = p.bytes
                offset = unsafePart.bytes.count
            } else if let rest, let chunk = rest.next() {
                state.inRest = true
                state.position += chunk.count
                return chunk
            } else {
                if !state.ended, let relay = state.relay, let end {
                    relay.sourceDidEnd(failure: end().failure, bytesParsed: UInt64(state.position))
                }
                state.ended = true
                return nil
            }
            let from = state.position - offset
            let stream = start + UInt64(state.position)
            let n = min(segment.count - from, Int(grid - stream % grid))
            state.position += n
            let cut = start + UInt64(state.position)
            if offset == 0, from + n == segment.count, let p = unsafeProbe, !p.bytes.isEmpty, cut % grid != 0 {
                // The part's last bytes and the probe in one chunk, as one parser of the
                // whole stream is given them: a parser's error in the last bytes can
                // depend on how many bytes follow them in the same call (libxml2's
                // "Input is not proper UTF-8" names four, else it says "expected '>'":
                // the parts fuzzer's finding).
                let m = min(p.bytes.count, Int(grid - cut % grid))
                state.inProbe = true
                state.merged = true
                state.position += m
                return state.joined(UnsafeRawBufferPointer(rebasing: segment[from..<from + n]),
                                    UnsafeRawBufferPointer(rebasing: p.bytes[0..<m]))
            }
            return UnsafeRawBufferPointer(rebasing: segment[from..<from + n])
        }
        let chunks: FeedChunks
        if let gzip {
            let origin = InflatedOrigin(offset: start, checkpoint: gzip.count(at: start / grid))
            chunks = FeedChunks(inflated: next, compressed: {
                if state.inRest { return rest?.compressed ?? 0 }
                let end = start + UInt64(state.position)
                return end % grid == 0 ? gzip.count(at: end / grid) : 0   // read at checkpoints only
            }, gap: { state.inRest ? rest?.gap : nil }, origin: origin)
        } else {
            chunks = FeedChunks(next)
        }
        var summary: ParseSummary
        if let relay, let end {
            summary = try relay.finish(try parser.parse(.chunks(chunks), contentType: contentType, handler: relay),
                                       bytesIn: end().bytesIn, parser: parser)
        } else {
            summary = try parser.parse(.chunks(chunks), contentType: contentType, handler: renumbered)
        }
        // The parser asked for no more bytes before the probe, or after the part's last
        // bytes given with it: it stopped the stream (in the probe's six bytes only a
        // handler's stop can: no ratio checkpoint lies in them, cutKeepsTheRatioWindow).
        let stopped = !state.ended && (!state.inProbe || state.merged)
        if probe != nil && !stopped {
            // No document begun at the cut, or the first the parser announced: then the
            // part's own first document was announced only once the probe was being
            // read (a part shorter than the input stage needs to tell a byte order mark,
            // gzip or UTF-16 from XML, or whose declaration ends past the cut), and the
            // document that did begin there is not told apart from it. Either way the
            // part is parsed again joined with the next (a 1-byte first part lost its
            // error record: the parts fuzzer's finding).
            guard let probeDocument = state.probeDocument, probeDocument > 1 else {
                return Outcome(joined: false, summary: ParseSummary())
            }
            // The document begun in the probe is the next part's: take out what it counted.
            summary.documents -= 1
            summary.items -= state.dropped.items
            summary.failedDocuments -= state.dropped.failedDocuments
            summary.recoveredDocuments -= state.dropped.recoveredDocuments
            if summary.firstError?.document == probeDocument { summary.firstError = nil }
        }
        if var e = summary.firstError?.numbered(after: documentBase) {
            e.offset += start
            summary.firstError = e
        }
        // The part's bytes (the parser read the probe too), or, stopped or the last,
        // those it read.
        if probe != nil && !stopped { summary.bytesXML = UInt64(part.count) }
        if end == nil { summary.bytesIn = summary.bytesXML }
        return Outcome(joined: true, stopped: stopped, summary: summary)
    }

    /// Converts a whole uncompressed stream to JSON Lines part by part, on this thread:
    /// the reference for the threaded converter, and what the tests hold equal to one
    /// parse of the whole stream. Returns the lines, the summary, the parts parsed and the
    /// cuts proposed (a cut that did not hold joins two parts).
    package static func convertSequentially(_ stream: UnsafeRawBufferPointer, minimumPartBytes: UInt64,
                                            gzip: Checkpoints? = nil, parser: any FeedParser, source: String,
                                            layout: BatchConverter.Options.Layout = .items) throws
        -> (lines: [UInt8], summary: ParseSummary, parts: Int, cuts: Int)
    {
        var splitter = DocumentSplitter(minimumPartBytes: minimumPartBytes)
        let cuts = splitter.scan(stream).filter { gzip == nil || cutKeepsTheRatioWindow($0) }.map(Int.init)
        let bounds = [0] + cuts + [stream.count]
        var lines: [UInt8] = []
        var total = ParseSummary()
        var parts = 0
        var from = 0   // the current part's first bound
        var to = 1     // ... and its last
        while from < bounds.count - 1 {
            let start = bounds[from], end = bounds[to]
            let last = to == bounds.count - 1
            let output = MemoryOutput()
            let writer = makeWriter(layout, output: output, source: source)
            writer.documentNumberOffset = total.documents
            let probe = last ? nil
                : UnsafeRawBufferPointer(rebasing: stream[end..<min(stream.count, end + DocumentSplitter.probeBytes)])
            let outcome = try parse(UnsafeRawBufferPointer(rebasing: stream[start..<end]), probe: probe,
                                    start: UInt64(start), documentBase: total.documents, gzip: gzip,
                                    parser: parser, handler: writer)
            guard outcome.joined else {
                to += 1   // the cut did not hold: this part and the next are one
                continue
            }
            try writer.flush()
            lines += output.bytes
            add(outcome.summary, to: &total)
            parts += 1
            if outcome.stopped { break }
            from = to
            to += 1
        }
        return (lines, total, parts, cuts.count)
    }

    /// ``convertSequentially(_:minimumPartBytes:gzip:parser:source:layout:)`` with the parts parsed
    /// on `jobs` threads at once, each with a parser of its own: the parts are parsed
    /// speculatively, numbered from 1, and put together in order — a part's document
    /// numbers (``renumber(_:by:)``) and first error shifted by the documents before it;
    /// a part whose cut did not hold is parsed again, joined with the next, on this
    /// thread. The result is the same as the sequential one.
    package static func convertParallel(_ stream: UnsafeRawBufferPointer, minimumPartBytes: UInt64, jobs: Int,
                                        gzip: Checkpoints? = nil,
                                        makeParser: @escaping @Sendable () -> any FeedParser, source: String,
                                        layout: BatchConverter.Options.Layout = .items) throws
        -> (lines: [UInt8], summary: ParseSummary, parts: Int, cuts: Int)
    {
        var splitter = DocumentSplitter(minimumPartBytes: minimumPartBytes)
        let cuts = splitter.scan(stream).filter { gzip == nil || cutKeepsTheRatioWindow($0) }.map(Int.init)
        let bounds = [0] + cuts + [stream.count]
        let count = bounds.count - 1
        let bytes = UnsafeSendableBytes(stream)
        let results = SpeculativeResults(count: count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, count)) {
            DispatchQueue.global().async(group: group) {
                let parser = makeParser()
                while let i = results.take() {
                    results.set(i, Result { try parsePart(bytes.bytes, from: bounds[i], to: bounds[i + 1],
                                                          probe: i + 1 < count, gzip: gzip, parser: parser,
                                                          source: source, layout: layout) })
                }
            }
        }
        group.wait()

        var lines: [UInt8] = []
        var total = ParseSummary()
        var parts = 0
        var i = 0
        let parser = makeParser()
        while i < count {
            var (outcome, partLines) = try results.get(i).get()
            var end = i + 1
            while !outcome.joined {   // the cut at bounds[end] did not hold: one part with the next
                end += 1
                (outcome, partLines) = try parsePart(stream, from: bounds[i], to: bounds[end], probe: end < count,
                                                     gzip: gzip, parser: parser, source: source, layout: layout)
            }
            lines += renumber(partLines, by: total.documents)
            add(renumbered(outcome.summary, by: total.documents), to: &total)
            parts += 1
            if outcome.stopped { break }
            i = end
        }
        return (lines, total, parts, cuts.count)
    }

    /// One part parsed on its own, numbered from document 1, into JSON Lines.
    private static func parsePart(_ stream: UnsafeRawBufferPointer, from start: Int, to end: Int, probe: Bool,
                                  gzip: Checkpoints?, parser: any FeedParser, source: String,
                                  layout: BatchConverter.Options.Layout) throws -> (Outcome, [UInt8]) {
        let output = MemoryOutput()
        let writer = makeWriter(layout, output: output, source: source)
        let probeBytes = probe
            ? UnsafeRawBufferPointer(rebasing: stream[end..<min(stream.count, end + DocumentSplitter.probeBytes)]) : nil
        let outcome = try parse(UnsafeRawBufferPointer(rebasing: stream[start..<end]), probe: probeBytes,
                                start: UInt64(start), documentBase: 0, gzip: gzip, parser: parser, handler: writer)
        try writer.flush()
        return (outcome, output.bytes)
    }

    /// The writer of `layout` (lines per item, or per document) into `output`.
    private static func makeWriter(_ layout: BatchConverter.Options.Layout, output: MemoryOutput,
                                   source: String) -> any BatchLineWriter {
        var writer: any BatchLineWriter
        switch layout {
        case .items: writer = JSONLinesWriter(output: output)
        case .documents: writer = DocumentLinesWriter(output: output)
        }
        writer.source = source
        return writer
    }

    /// JSON lines numbered from document 1 renumbered after `base` documents: the
    /// `"document":N` member of each line's head (the first one of the line: the
    /// `source` before it is a JSON string, where a `"` is escaped) becomes N + base.
    package static func renumber(_ lines: [UInt8], by base: Int) -> [UInt8] {
        guard base != 0 else { return lines }
        let key = Array(",\"document\":".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(lines.count + lines.count / 64)
        lines.withUnsafeBytes { all in
            guard let p = all.baseAddress else { return }
            var i = 0
            while i < all.count {
                let lineEnd = memchr(p + i, 0x0A, all.count - i).map { p.distance(to: UnsafeRawPointer($0)) + 1 } ?? all.count
                guard let k = find(key, in: p, from: i, to: lineEnd) else {
                    out.append(contentsOf: all[i..<lineEnd])
                    i = lineEnd
                    continue
                }
                var d = k + key.count
                var n = 0
                while d < lineEnd, all[d] >= 0x30, all[d] <= 0x39 {
                    n = n * 10 + Int(all[d] - 0x30)
                    d += 1
                }
                out.append(contentsOf: all[i..<k + key.count])
                out.append(contentsOf: String(n + base).utf8)
                out.append(contentsOf: all[d..<lineEnd])
                i = lineEnd
            }
        }
        return out
    }

    /// Where `key` (which begins with a comma) first is in `p[from..<to]`.
    private static func find(_ key: [UInt8], in p: UnsafeRawPointer, from: Int, to: Int) -> Int? {
        var i = from
        while i + key.count <= to, let c = memchr(p + i, Int32(key[0]), to - i - key.count + 1) {
            let k = p.distance(to: UnsafeRawPointer(c))
            if key.withUnsafeBytes({ memcmp(p + k, $0.baseAddress!, $0.count) }) == 0 { return k }
            i = k + 1
        }
        return nil
    }

    /// A part's summary (documents numbered from 1) with its first error's document
    /// numbered after `base` documents.
    package static func renumbered(_ summary: ParseSummary, by base: Int) -> ParseSummary {
        var s = summary
        s.firstError = s.firstError?.numbered(after: base)
        return s
    }

    /// Adds a part's summary to the stream's.
    package static func add(_ part: ParseSummary, to total: inout ParseSummary) {
        total.bytesIn += part.bytesIn
        total.bytesXML += part.bytesXML
        total.documents += part.documents
        total.items += part.items
        total.failedDocuments += part.failedDocuments
        total.recoveredDocuments += part.recoveredDocuments
        if total.firstError == nil { total.firstError = part.firstError }
    }
}

/// The parts parsed ahead, each taken by one thread.
///
/// `@unchecked Sendable`: every stored property is only touched under `lock`.
private final class SpeculativeResults: @unchecked Sendable {
    private let lock = ConditionLock()
    private var next = 0
    private var results: [Result<(DumpParts.Outcome, [UInt8]), any Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    /// The next part to parse, if any is left.
    func take() -> Int? {
        lock.withLock {
            guard next < results.count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func set(_ i: Int, _ r: Result<(DumpParts.Outcome, [UInt8]), any Error>) { lock.withLock { results[i] = r } }
    func get(_ i: Int) -> Result<(DumpParts.Outcome, [UInt8]), any Error> { lock.withLock { results[i]! } }
}

/// A part's bytes, only read (by the parsing threads) while the caller holds them.
private struct UnsafeSendableBytes: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
}

/// The part's reading position and counts, shared by its chunk source and its handler
/// (both on the parsing thread).
private final class PartState: @unchecked Sendable {
    var position = 0
    /// Where the probe begins in the part's stream (the part's bytes), when it has one.
    var cut: Int?
    var inProbe = false
    /// The part's last bytes were given with the probe, in one chunk (``joined(_:_:)``).
    var merged = false
    /// That chunk's bytes.
    private var tail: UnsafeMutableRawBufferPointer?
    /// Reading the stream past the part's own bytes (``DumpParts/Rest``).
    var inRest = false
    /// The last part's: the stream's failure goes through it. Weak: the relay holds the
    /// handler, which holds this state (a cycle would keep the part's output alive).
    weak var relay: StreamFailureRelay?
    /// The (part's) number of the document begun at the cut, if one was.
    var probeDocument: Int?
    /// The part and its probe were all given: a document begun now is none the probe
    /// began (the report of a comment left open at the end: the cut did not hold).
    var ended = false
    /// What the parser delivered for that document, which is not passed on.
    var dropped = ParseSummary()

    deinit { tail?.deallocate() }

    /// `a` then `b` in one buffer of this state's, valid until the next call.
    func joined(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let count = a.count + b.count
        if (tail?.count ?? 0) < count {
            tail?.deallocate()
            tail = .allocate(byteCount: count, alignment: 16)
        }
        let buffer = tail!
        if let p = a.baseAddress { buffer.baseAddress!.copyMemory(from: p, byteCount: a.count) }
        if let p = b.baseAddress { (buffer.baseAddress! + a.count).copyMemory(from: p, byteCount: b.count) }
        return UnsafeRawBufferPointer(rebasing: buffer[0..<count])
    }
}

/// Renumbers a part's events into the whole stream's; from a document begun at the cut
/// on, passes nothing on (that document is the next part's).
private final class PartHandler<Inner: FeedHandler>: FeedHandler {
    let inner: Inner
    let state: PartState
    let start: UInt64
    let documentBase: Int

    init(inner: Inner, state: PartState, start: UInt64, documentBase: Int) {
        self.inner = inner
        self.state = state
        self.start = start
        self.documentBase = documentBase
    }

    func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
        if let cut = state.cut, !state.ended, state.probeDocument == nil {
            // Begun at the cut: told by where it starts, not by when (a parser may hold
            // a part's last bytes until the probe comes: libxml2 held a UTF-16 document's
            // last byte, and its failure and the document found after it in the part's
            // bytes were announced with the probe's, the parts fuzzer's finding). A
            // parser that does not say where (a JSON Feed's: no document of it begins at
            // a `<?xml`) holds no cut.
            // Nor when a look back before the cut read bytes past it again (a failed
            // document cut short at one it had taken in, its error past the cut): the
            // whole stream's parser then looks for no such document before that error,
            // and a parser beginning at the cut would.
            if let reporting = parser as? DocumentStateReporting, let offset = reporting.lastDocumentOffset,
               offset >= UInt64(cut), reporting.rereadEnd <= UInt64(cut) {
                state.probeDocument = document
            }
        }
        if state.probeDocument != nil { return }
        try inner.parser(parser, didStartDocument: documentBase + document)
    }

    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        if state.probeDocument != nil {
            state.dropped.items += 1
            return
        }
        try inner.parser(parser, didParseItem: item)
    }

    func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws {
        if state.probeDocument != nil { return }
        try inner.parser(parser, didParseFeedInfo: feed)
    }

    func parser(_ parser: any FeedParser, didFinishDocument document: Int) throws {
        if state.probeDocument != nil { return }
        try inner.parser(parser, didFinishDocument: documentBase + document)
    }

    func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        if state.probeDocument != nil {
            if error.document != 0 {
                if error.recovered { state.dropped.recoveredDocuments += 1 } else { state.dropped.failedDocuments += 1 }
            }
            return
        }
        var e = error.numbered(after: documentBase)
        e.offset += start
        try inner.parser(parser, didFail: e)
    }
}

extension FeedError {
    /// The error of a part whose documents are numbered from 1 (a dump's part, a WARC
    /// record's payload), numbered after `base` documents; an error of no document (0,
    /// the stream's) stays so.
    package func numbered(after base: Int) -> FeedError {
        var e = self
        if e.document != 0 { e.document += base }
        return e
    }
}
