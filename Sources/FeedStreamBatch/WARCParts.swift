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

/// One web archive file converted on several threads, split across workers at record
/// boundaries, with the output, counts and errors of one
/// reader going through it from start to end.
///
/// **Cuts.** ``partBytes`` past the last cut (or the file's start), the first place a
/// record may start is the next proposed cut: in a `.warc.gz`, a gzip member's header
/// whose first inflated bytes are a WARC version line (what WARC writers do: a member
/// per record); in a plain `.warc`, a line that is a WARC version line. Cuts are looked
/// for as the reading comes near them (a few KiB read each), not all at the start, so
/// a big archive on a disk begins at once. Each part, from its cut, is read on its
/// own thread (`pread`: one descriptor) by a reader of its own, into JSON Lines in
/// memory, its documents numbered from 1, its errors kept.
///
/// **The chain.** A proposed cut can lie: a version line inside a payload (a WARC
/// archived in a WARC), a member that continues a record begun in the member before. A
/// part is therefore read past its end, up to the first record that begins exactly at
/// a later cut (a record that is the first thing of its member, at that member's
/// offset): there a reader of the whole file stands where a reader begun at the cut
/// stands, so that cut's part is what the whole reader would give from there on. The
/// parts are put together in order along that chain, from part 0; a part whose cut no
/// record began at is dropped (its bytes were read by the part before), and a part that
/// reaches the end of the stream (or a corrupt member: the whole reader stops there
/// too) ends the file. Each part's lines are renumbered by the documents before it
/// (``DumpParts/renumber(_:by:)``), its errors' documents likewise, and offsets in the
/// uncompressed stream by the uncompressed bytes before it; record offsets are the
/// file's from the start.
///
/// **Threads and memory.** The worker that took the file puts the parts together and
/// reads, straight out, the part it is at when nobody read it ahead (so a part that
/// runs on, past cuts that did not hold or in a file with none, is never held whole);
/// workers of the run with no input left (``LiveState/takeSpareWorkers(upTo:)``) read
/// parts ahead into memory, at most ``window`` parts ahead, each giving up (to be read
/// again in order) once it runs ``aheadLimit`` past its cut without reaching another.
///
/// `@unchecked Sendable`: the stored `var`s are only touched under `lock`; the rest is
/// set once, and each part's reader, writer and parser belong to the thread reading it.
package final class WARCParts: @unchecked Sendable {
    /// Parts are proposed about this many file bytes apart.
    let partBytes: UInt64
    /// Parts read ahead of the one being put together, at most.
    let window: Int

    private let fd: Int32
    private let size: UInt64
    private let gzip: Bool
    private let options: BatchConverter.Options
    private let live: LiveState
    private let source: String
    private let lock: ConditionLock
    /// 0, then the cuts proposed so far, ascending: part `k` starts at `bounds[k]`.
    private var bounds: [UInt64] = [0]
    /// Every cut not yet proposed is at or past this offset (where the next search begins).
    private var nextMark: UInt64
    /// Who reads which part, and the parts read ahead.
    private let board: PartBoard<Int, Part>
    /// The part being put together (helpers read at most ``window`` past it).
    private var assembling = 0
    private var done = false
    private let helpers: PartHelpers

    /// What one part gave, numbered as if it began the file (documents from 1,
    /// uncompressed offsets from its cut).
    struct Part {
        var lines: [UInt8]
        var summary: ParseSummary
        var counts: WARCCounts
        /// Its errors in order, each with whether its offset is in the uncompressed stream.
        var errors: [(FeedError, streamOffset: Bool)]
        var dropped: ErrorTally
        /// The later part it ends at (the index of the cut a record began at, and that
        /// record's uncompressed offset from this part's cut), or nil: it read to the end.
        var next: (part: Int, uncompressed: UInt64)?
        /// Read ahead, it ran past ``aheadLimit`` without reaching a cut: left to be read
        /// again as the part being put together (its output is not held whole).
        var abandoned = false
        /// Its lines and errors went out as it was read (``Streaming``): only its first
        /// error is here.
        var firstStreamedError: FeedError?
        var streamed = false
    }

    /// Where the part being put together goes as it is read, so that no part of any
    /// length is held whole: its lines, numbered after `documents` documents, and its
    /// errors, placed after `uncompressed` bytes of the stream.
    struct Streaming {
        var documents: Int
        var uncompressed: UInt64
        var write: (UnsafeRawBufferPointer) throws -> Void
        var report: (FeedError) throws -> Void
    }

    /// A part read ahead gives up past this many bytes of its cut (see ``Part/abandoned``).
    private var aheadLimit: UInt64 { UInt64(Self.maxMarks + 1) * partBytes }

    init(fd: Int32, size: UInt64, partBytes: UInt64, options: BatchConverter.Options, live: LiveState, source: String) {
        self.fd = fd
        self.size = size
        self.partBytes = max(1, partBytes)
        self.options = options
        self.live = live
        self.source = source
        window = options.jobs + 1
        helpers = PartHelpers(options: options, live: live, label: "feedstream.warc-part")
        nextMark = self.partBytes
        var magic: (UInt8, UInt8) = (0, 0)
        gzip = withUnsafeMutableBytes(of: &magic) { pread(fd, $0.baseAddress, 2, 0) } == 2
            && InputStage.isGzip(magic.0, magic.1)
        lock = ConditionLock()
        board = PartBoard(lock: lock)
    }

    // MARK: Cuts

    /// Every cut an archive is split at with parts of `partBytes` (the tests' view).
    package static func proposedCuts(fd: Int32, size: UInt64, partBytes: UInt64) -> [UInt64] {
        let parts = WARCParts(fd: fd, size: size, partBytes: partBytes, options: .init(jobs: 1), live: LiveState(workers: 1),
                              source: "")
        return parts.lock.withLock {
            while parts.nextMark < parts.size { _ = parts.proposeCut() }
            return Array(parts.bounds.dropFirst())
        }
    }

    /// Proposes the next cut: the first place a record may begin from ``nextMark`` on,
    /// looked for up to `partBytes` past it, then from there, for ``maxMarks`` marks at
    /// most (a few MiB read: an archive of records that big, or of one gzip member, is
    /// not scanned to its end under the lock). False when none was found in them (the
    /// file may end there: ``nextMark`` is then its size). Call with the lock held.
    private func proposeCut() -> Bool {
        let step = 16 << 10, lookahead = 4096
        var buffer = [UInt8](repeating: 0, count: step + lookahead)
        var marks = 0
        while nextMark < size && marks < Self.maxMarks {
            let mark = nextMark
            var at = mark - 1   // a plain line's start needs the line feed before it
            while at < min(size, mark + partBytes) {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(at)) }
                guard n > 1 else { break }
                for i in 0..<min(n - 1, step) {
                    let cut: UInt64
                    if gzip {
                        guard buffer[i] == 0x1F, buffer[i + 1] == 0x8B, i + 2 < n, buffer[i + 2] == 0x08,
                              buffer.withUnsafeBytes({ WARCReader.isWARCStart(UnsafeRawBufferPointer(rebasing: $0[i..<n])) })
                        else { continue }
                        cut = at + UInt64(i)
                    } else {
                        guard buffer[i] == 0x0A, buffer[i + 1] == 0x57,
                              buffer.withUnsafeBytes({ WARCReader.isWARC(UnsafeRawBufferPointer(rebasing: $0[(i + 1)..<n])) })
                        else { continue }
                        cut = at + UInt64(i) + 1
                    }
                    bounds.append(cut)
                    nextMark = cut + partBytes
                    return true
                }
                at += UInt64(step)
            }
            nextMark = mark + partBytes   // none here: look past the next mark
            marks += 1
        }
        return false
    }

    /// Marks looked past, at most, in one ``proposeCut()``.
    static let maxMarks = 4

    /// The index of the cut at `offset`, if one is there; proposes cuts up to it first.
    private func cut(at offset: UInt64) -> Int? {
        lock.withLock {
            while nextMark <= offset && nextMark < size { _ = proposeCut() }
            var lo = 0, hi = bounds.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if bounds[mid] < offset { lo = mid + 1 } else { hi = mid }
            }
            return lo < bounds.count && bounds[lo] == offset ? lo : nil
        }
    }

    // MARK: Reading a part

    /// Reads part `k` with `parser`, to the first record at a later cut (or the end):
    /// ahead into memory, giving up past ``aheadLimit``, or, given `streaming`, straight
    /// out. `hiring`: on the putting-together thread, which takes on idle workers as
    /// they come.
    private func read(_ k: Int, parser: any FeedParser, hiring: Bool = false, streaming: Streaming? = nil) throws -> Part {
        let from = lock.withLock { bounds[k] }
        let stop: @Sendable () -> Bool = { [live, self] in live.isCancelled || isDone }
        let reader = WARCReader(fd: fd, fileOffset: from, inflater: options.inflater, isCancelled: stop)
        let memory = MemoryOutput()
        let output: any ByteOutput = streaming.map { ClosureOutput($0.write) } ?? memory
        let writer = options.makeWriter(output: output)
        writer.source = source
        let errors = PartErrors(report: streaming?.report, streamOffsetBase: streaming?.uncompressed ?? 0)
        var conversion = WARCConversion(parser: parser, handler: FeedHandlerGroup(writer, errors), writer: writer,
                                        runLocation: options.documentLocation)
        conversion.willReportStreamOffset = { errors.nextIsStreamOffset = true }
        conversion.documentBase = streaming?.documents ?? 0
        let limit = streaming == nil ? from + aheadLimit : UInt64.max
        var next: (part: Int, uncompressed: UInt64)?
        var abandoned = false
        let (summary, counts, stopped) = try conversion.convert(reader, isCancelled: stop) { [self] record in
            if hiring { hire() }
            guard record.offset > from else { return false }
            if record.startsMember, let j = cut(at: record.offset) {
                next = (j, record.start)
                return true
            }
            abandoned = record.offset > limit
            return abandoned
        }
        if stopped == nil { next = nil }
        if stop() { throw BatchCancelled() }
        try writer.flush()
        var part = Part(lines: memory.bytes, summary: summary, counts: counts, errors: errors.kept,
                        dropped: errors.dropped, next: next)
        part.abandoned = abandoned
        part.streamed = streaming != nil
        part.firstStreamedError = errors.first
        return part
    }

    private var isDone: Bool { lock.withLock { done } }

    // MARK: Putting together

    /// Converts the file: its lines, errors and dropped errors go to `output`, in order.
    /// Returns the summary and the counts one reader of the whole file gives.
    func convert(parser: any FeedParser, output: PartOutput, didRead: (UInt64) -> Void) throws
        -> (ParseSummary, WARCCounts)
    {
        let write = output.write, report = output.report, dropped = output.dropped
        defer {
            lock.withLock {
                done = true
                lock.broadcast()
            }
            helpers.wait()
        }
        var total = ParseSummary()
        var counts = WARCCounts()
        var k = 0
        var uncompressed: UInt64 = 0   // the stream's bytes before part k
        while true {
            hire()
            let part = try result(k, parser: parser, streaming: Streaming(documents: total.documents,
                                                                          uncompressed: uncompressed,
                                                                          write: write, report: report))
            if part.streamed {
                if total.firstError == nil { total.firstError = part.firstStreamedError }
            } else {
                try DumpParts.renumber(part.lines, by: total.documents).withUnsafeBytes { try write($0) }
                for (error, streamOffset) in part.errors {
                    var e = error.numbered(after: total.documents)
                    if streamOffset { e.offset += uncompressed }
                    if total.firstError == nil { total.firstError = e }
                    try report(e)
                }
                dropped(part.dropped)
            }
            guard live.add(items: part.summary.items, documents: part.summary.documents) else { throw BatchCancelled() }
            total.documents += part.summary.documents
            total.items += part.summary.items
            total.failedDocuments += part.summary.failedDocuments
            total.recoveredDocuments += part.summary.recoveredDocuments
            total.bytesXML += part.summary.bytesXML
            counts.add(part.counts)
            guard let next = part.next else {
                total.bytesIn = lock.withLock { bounds[k] } + part.summary.bytesIn
                didRead(total.bytesIn)
                return (total, counts)
            }
            uncompressed += next.uncompressed
            didRead(lock.withLock { bounds[next.part] })
            lock.withLock {
                board.advance(from: k, to: next.part)   // parts skipped over are not used
                assembling = next.part
                lock.broadcast()
            }
            k = next.part
        }
    }

    /// Part `k`'s result: read here, straight out (`streaming`), if no helper took it or
    /// the helper gave it up; while a helper reads it, this thread reads the next part
    /// nobody took (within the window), or waits.
    private func result(_ k: Int, parser: any FeedParser, streaming: Streaming) throws -> Part {
        let part = try board.result(k, own: k, free: unclaimed,
                                    mine: { try read($0, parser: parser, hiring: true, streaming: streaming) },
                                    ahead: { try read($0, parser: parser, hiring: true) })
        return part.abandoned ? try read(k, parser: parser, hiring: true, streaming: streaming) : part
    }

    /// The first part nobody took within the window past the one being put together.
    /// Call with the lock held.
    private func unclaimed() -> (Int, Int)? {
        var j = assembling + 1
        while j <= assembling + window && (j < bounds.count || proposeCut()) {
            if !board.isTaken(j) { return (j, j) }
            j += 1
        }
        return nil
    }

    /// Hires the run's idle workers to read parts ahead, until every part is taken.
    private func hire() {
        helpers.hire { [self] parser in
            board.help(free: unclaimed,
                       exhausted: { nextMark >= size && !((assembling + 1)..<bounds.count).contains { !board.isTaken($0) } },
                       isOver: { done }, convert: { try read($0, parser: parser) })
        }
    }
}
