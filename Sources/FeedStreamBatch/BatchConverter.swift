import FeedStream
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Converts many inputs to JSON Lines on several threads into one output — what
/// `feedstream convert` runs.
///
/// Each worker thread has its own parser and its own writer, takes the next input,
/// and writes that input's lines in blocks of whole lines; an output sequencer
/// puts the blocks out in input order (or as they come), holding at most
/// ``Options/maxBufferedBytes`` for inputs that finished ahead of an earlier one. A big
/// gzip input is read and inflated on a second thread (``ReadAheadPipeline``); a big web
/// archive is split at record boundaries and read by the workers left without input
/// (``WARCParts``). Ill-formed inputs are reported, in the results, and the run goes on.
///
/// ```swift
/// let converter = BatchConverter(options: .init(jobs: 8))
/// let summary = try converter.run(InputWalker(["archive/"]), to: FileDescriptorOutput.standardOutput)
/// ```
///
/// The output is the same whatever `jobs` and pipelining are, and, when ordered, the
/// same as converting the inputs one after another with one ``JSONLinesWriter``.
public final class BatchConverter: Sendable {
    /// How a run is carried out; the defaults convert one input at a time, in order,
    /// with the default backend (``FeedBackend/default``).
    public struct Options: Sendable {
        /// One line per item and one per document (``JSONLinesWriter``), or one line per
        /// document holding its items (``DocumentLinesWriter``).
        public enum Layout: Sendable {
            /// One line per item and one per document (the default).
            case items
            /// One line per document, holding its items.
            case documents
        }

        /// Worker threads, each converting one input at a time.
        public var jobs: Int
        /// Output in input order (true), or in completion order.
        public var ordered: Bool
        /// The output's layout: lines per item (default) or per document.
        public var layout: Layout
        /// Read and inflate big gzip inputs (and standard input) on a second thread.
        /// Never with one job.
        public var pipeline: Bool
        /// Gzip files from this size (compressed) are pipelined.
        public var pipelineMinimumBytes: Int
        /// The default ``pipelineMinimumBytes``, 1 MiB: below it a thread of its own for
        /// one input costs more than inflating in turn saves (`feedstream bench`'s
        /// tokenize-only baseline follows the same rule).
        public static let defaultPipelineMinimumBytes = 1 << 20
        /// A web archive file of at least twice this size is converted in parts of
        /// about this size, split at record boundaries, on the workers that have no
        /// input left (so one big archive uses every job); nil: never. Never with one
        /// job or without ``pipeline``. The output is the same either way.
        public var warcPartBytes: Int? = 1 << 20
        /// A dump — a file of documents one after another, gzip or plain — is converted
        /// in parts of at least this many uncompressed bytes, cut at `<?xml`
        /// declarations, read and inflated on one thread and parsed on the workers that
        /// have no input left (so one big `.gz` uses every job), a few parts ahead per
        /// thread (a stretch of 2 parts' size without a cut is parsed as it is read,
        /// not held); nil: never. Used for
        /// gzip files from ``pipelineMinimumBytes`` and plain files of at least twice
        /// this size; never with one job or without ``pipeline``. The output is the same
        /// either way.
        public var dumpPartBytes: Int? = 4 << 20
        /// A gzip dump is converted in parts from this many jobs on (plain dumps from 2).
        /// With 2, the read-ahead pipeline already keeps both cores busy, one inflating
        /// and one parsing, and measured faster than parts on 2 cores (README, Results).
        public var gzipDumpPartsMinimumJobs = 3
        /// Ordered runs: output held in memory for inputs that finished before an
        /// earlier one; workers past it wait.
        public var maxBufferedBytes: Int
        /// A worker hands its output on in blocks of about this many bytes (whole
        /// lines): what one worker holds, and the grain at which unordered inputs
        /// interleave.
        public var blockBytes: Int
        /// Makes each worker's parser.
        public var makeParser: @Sendable () -> any FeedParser
        /// The descriptor read for ``BatchInput/standardInput`` (0 unless changed):
        /// `feedstream diff` gives each backend a copy of its standard input this way.
        public var standardInputDescriptor: Int32 = 0
        /// Resolve relative URIs inside HTML and XHTML content against its `xml:base`
        /// (the default); false writes content as written
        /// (``JSONLinesWriter/resolvesRelativeURIsInContent``).
        public var resolvesRelativeURIsInContent = true
        /// The URL every input was read from, when known
        /// (``JSONLinesWriter/documentLocation``): `convert --base-url`.
        public var documentLocation: String? = nil
        /// The HTTP `Content-Type` the inputs were served with (`convert --content-type`):
        /// its `charset` is their documents' (``FeedParser/parse(_:contentType:handler:)``).
        /// A WARC record carries its own.
        public var contentType: String? = nil

        /// Options; `jobs` must be at least 1.
        public init(jobs: Int = 1, ordered: Bool = true, layout: Layout = .items, pipeline: Bool = true,
                    pipelineMinimumBytes: Int = defaultPipelineMinimumBytes, maxBufferedBytes: Int = 32 << 20, blockBytes: Int = JSONLinesWriter.defaultBufferSize,
                    makeParser: @escaping @Sendable () -> any FeedParser = { FeedBackend.default.makeParser() }) {
            precondition(jobs >= 1, "at least one job")
            self.jobs = jobs
            self.ordered = ordered
            self.layout = layout
            self.pipeline = pipeline
            self.pipelineMinimumBytes = pipelineMinimumBytes
            self.maxBufferedBytes = maxBufferedBytes
            self.blockBytes = blockBytes
            self.makeParser = makeParser
        }
    }

    /// The options the converter was made with.
    public let options: Options
    private let live: LiveState

    /// A converter; reuse it for several runs, one at a time.
    public init(options: Options) {
        self.options = options
        live = LiveState(workers: options.jobs)
    }

    /// Converts every input of `inputs` into `output`, then flushes it. Blocks until
    /// done; one run at a time per converter.
    ///
    /// A ``cancel()`` that comes before the run starts (a signal while the caller is
    /// still setting up) stops this run before its first input: the cancellation is
    /// cleared when a run returns, not when one begins.
    ///
    /// - Returns: the totals; ``BatchSummary/interrupted`` when ``cancel()`` stopped it.
    /// - Throws: the first error writing `output` (the run stops at once).
    public func run<S: Sequence>(_ inputs: S, to output: any ByteOutput, observer: (any BatchObserver)? = nil)
        throws -> BatchSummary where S.Element == BatchInput
    {
        live.reset()
        defer { live.clearCancellation() }
        let dispatcher = Dispatcher(AnyIterator(inputs.makeIterator()))
        let totals = RunTotals()
        let sequencer = OutputSequencer(
            output: output, ordered: options.ordered, budget: options.maxBufferedBytes,
            window: max(4096, options.jobs * 4)
        ) { result in
            // Under the sequencer's write lock: one call at a time, in output order.
            totals.add(result)
            observer?.didFinishInput(result)
        }
        live.attach(sequencer)
        defer { live.attach(nil) }

        let group = DispatchGroup()
        for w in 0..<options.jobs {
            // Queues of their own get threads of their own (an overcommitting pool):
            // workers block on I/O and on each other, which a width-limited pool must not see.
            DispatchQueue(label: "feedstream.worker.\(w)").async(group: group) { [options, live] in
                let worker = Worker(number: w, options: options, live: live, sequencer: sequencer)
                do {
                    try worker.run(dispatcher)
                } catch is BatchCancelled {
                    sequencer.stop()
                } catch {
                    totals.fail(error)
                    live.cancel()
                }
            }
        }
        group.wait()

        if let error = totals.error { throw error }
        var summary = totals.summary
        summary.interrupted = live.isCancelled
        if summary.interrupted { summary.include(live.snapshot()) }
        if !summary.interrupted { try sequencer.flush() }
        return summary
    }

    /// Stops a run from any thread (a signal handler's queue, a UI): no input is started
    /// after it, inputs being converted are abandoned, and ``run(_:to:observer:)``
    /// returns with ``BatchSummary/interrupted`` set. What was written out is whole
    /// lines; inputs after the last one written are missing, and the last one may be cut.
    public func cancel() {
        live.cancel()
    }

    /// A live view of the current run: safe from any thread, cheap enough to poll.
    public func progress() -> BatchProgress { live.snapshot() }

}

/// The totals of a run, and its first fatal error.
///
/// `@unchecked Sendable`: both stored properties are only touched under `lock`.
private final class RunTotals: @unchecked Sendable {
    private let lock = ConditionLock()
    private var _summary = BatchSummary()
    private var _error: (any Error)?

    func add(_ result: BatchInputResult) { lock.withLock { _summary.add(result) } }
    func fail(_ error: any Error) { lock.withLock { if _error == nil { _error = error } } }
    var summary: BatchSummary { lock.withLock { _summary } }
    var error: (any Error)? { lock.withLock { _error } }
}

/// Hands out inputs, in order, numbered.
///
/// `@unchecked Sendable`: the iterator is only advanced under `lock`.
private final class Dispatcher: @unchecked Sendable {
    private let lock = ConditionLock()
    private let iterator: AnyIterator<BatchInput>
    private var index = 0

    init(_ iterator: AnyIterator<BatchInput>) { self.iterator = iterator }

    func next() -> (Int, BatchInput)? {
        lock.withLock {
            guard let input = iterator.next() else { return nil }
            defer { index += 1 }
            return (index, input)
        }
    }
}

/// What a progress display reads while a run goes on, and the cancellation flag.
///
/// `@unchecked Sendable`: every stored property is only touched under `lock`.
final class LiveState: @unchecked Sendable {
    private let lock = ConditionLock()
    private var progress = BatchProgress()
    private var cancelled = false
    private var sequencer: OutputSequencer?
    /// Per worker: the descriptor being parsed in place (its read position is the bytes
    /// read), or the bytes a reading stage has read.
    private var openFile: [Int32]
    private var reading: [UInt64]
    /// Per worker: the bytes read of an input closed but not summarized (yet, or ever:
    /// an input cut short by ``cancel()``).
    private var closed: [UInt64]
    /// Workers with no input left, whose threads can read parts of another worker's input.
    private var spareWorkers = 0

    init(workers: Int) {
        openFile = Array(repeating: -1, count: workers)
        reading = Array(repeating: 0, count: workers)
        closed = Array(repeating: 0, count: workers)
    }

    /// Clears the progress of the last run; not the cancellation (``clearCancellation()``).
    func reset() {
        lock.withLock {
            progress = BatchProgress()
            spareWorkers = 0
            for i in openFile.indices { openFile[i] = -1; reading[i] = 0; closed[i] = 0 }
        }
    }

    /// The run's sequencer, stopped by ``cancel()``.
    func attach(_ sequencer: OutputSequencer?) { lock.withLock { self.sequencer = sequencer } }

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// The run has returned: the next one starts uncancelled.
    func clearCancellation() { lock.withLock { cancelled = false } }

    func cancel() {
        let s: OutputSequencer? = lock.withLock {
            cancelled = true
            return sequencer
        }
        s?.stop()
    }

    /// Items and documents parsed since the last call; returns false when cancelled.
    func add(items: Int, documents: Int) -> Bool {
        lock.withLock {
            progress.items += items
            progress.documents += documents
            return !cancelled
        }
    }

    /// A worker found no input left: its thread is free for another's parts.
    func returnSpareWorkers(_ n: Int) { lock.withLock { spareWorkers += n } }

    /// Takes up to `n` of the free workers; returns how many.
    func takeSpareWorkers(upTo n: Int) -> Int {
        lock.withLock {
            let k = min(n, spareWorkers)
            spareWorkers -= k
            return k
        }
    }

    func parsing(fd: Int32, worker: Int) { lock.withLock { openFile[worker] = fd } }
    func read(_ bytes: UInt64, worker: Int) { lock.withLock { reading[worker] = bytes } }

    /// The worker is done reading its input; with the input's summary once converted.
    func endInput(worker: Int, summary: ParseSummary? = nil) {
        lock.withLock {
            if let summary {
                progress.inputsDone += 1
                if !summary.succeeded { progress.inputsFailed += 1 }
                progress.bytesIn += summary.bytesIn
                closed[worker] = 0
            } else {
                closed[worker] = openFile[worker] >= 0
                    ? UInt64(max(0, lseek(openFile[worker], 0, SEEK_CUR))) : reading[worker]
            }
            openFile[worker] = -1
            reading[worker] = 0
        }
    }

    func snapshot() -> BatchProgress {
        lock.withLock {
            var p = progress
            for c in closed { p.bytesIn += c }
            for (fd, bytes) in zip(openFile, reading) {
                // A registered descriptor is still open (the worker unregisters it under
                // this lock before closing it), so its offset is this input's.
                p.bytesIn += fd >= 0 ? UInt64(max(0, lseek(fd, 0, SEEK_CUR))) : bytes
            }
            return p
        }
    }
}

extension BatchConverter.Options {
    /// A writer of the run's layout into `output`, in blocks of ``blockBytes``, with the
    /// run's content and location options: a worker's, or a web archive part's.
    func makeWriter(output: any ByteOutput) -> any BatchLineWriter {
        var writer: any BatchLineWriter
        switch layout {
        case .items: writer = JSONLinesWriter(output: output, bufferSize: blockBytes)
        case .documents: writer = DocumentLinesWriter(output: output, bufferSize: blockBytes)
        }
        writer.resolvesRelativeURIsInContent = resolvesRelativeURIsInContent
        writer.documentLocation = documentLocation
        return writer
    }
}

/// Writers a worker can use: JSON lines per item or per document.
protocol BatchLineWriter: FeedHandler {
    var source: String { get set }
    var documentNumberOffset: Int { get set }
    var resolvesRelativeURIsInContent: Bool { get set }
    var documentLocation: String? { get set }
    var warc: WARCOrigin? { get set }
    var bytesWritten: UInt64 { get }
    func flush() throws
}

extension JSONLinesWriter: BatchLineWriter {}
extension DocumentLinesWriter: BatchLineWriter {}

/// One worker thread: a parser, a writer and a meter, reused for every input it takes.
private final class Worker {
    let number: Int
    let options: BatchConverter.Options
    let live: LiveState
    let sequencer: OutputSequencer
    let parser: any FeedParser
    let sink: SequencerOutput
    var writer: any BatchLineWriter
    let meter: InputMeter
    let handler: FeedHandlerGroup
    /// Inflates the start of gzip inputs to tell a web archive (kept for every input).
    private lazy var peekStage = InputStage(limits: .unlimited)

    init(number: Int, options: BatchConverter.Options, live: LiveState, sequencer: OutputSequencer) {
        self.number = number
        self.options = options
        self.live = live
        self.sequencer = sequencer
        parser = options.makeParser()
        sink = SequencerOutput(sequencer)
        writer = options.makeWriter(output: sink)
        meter = InputMeter(live)
        handler = FeedHandlerGroup(writer, meter)
    }

    func run(_ dispatcher: Dispatcher) throws {
        while !live.isCancelled {
            guard let (index, input) = dispatcher.next() else {
                live.returnSpareWorkers(1)   // no input left: free to read another's parts
                break
            }
            guard sequencer.admit(index) else { break }
            sink.index = index
            writer.source = input.name
            meter.reset()
            partBytesOut = 0
            let writtenBefore = writer.bytesWritten
            let converted: ParseSummary?
            warc = nil
            do {
                converted = try convert(input)
            } catch {
                meter.publishPending()   // what a cancelled input parsed still counts
                throw error
            }
            let summary = converted ?? ParseSummary()
            try writer.flush()
            try meter.publish()
            live.endInput(worker: number, summary: summary)
            var result = BatchInputResult(index: index, input: input, summary: summary, errors: meter.errors,
                                          droppedErrors: meter.droppedErrors,
                                          bytesOut: writer.bytesWritten - writtenBefore + partBytesOut,
                                          notFeedDocuments: meter.notFeeds)
            result.skipped = converted == nil
            result.warc = warc
            try sequencer.finish(index, result: result)
        }
    }

    /// What the last input held when it was a web archive.
    private var warc: WARCCounts?
    /// Bytes of the last input written past the writer (a web archive read in parts).
    private var partBytesOut: UInt64 = 0

    /// The input's summary; nil when it was found in a folder and skipped as not XML.
    private func convert(_ input: BatchInput) throws -> ParseSummary? {
        let cancelled: @Sendable () -> Bool = { [live] in live.isCancelled }
        let worker = number
        let progress: @Sendable (UInt64) -> Void = { [live] in live.read($0, worker: worker) }
        switch input {
        case .standardInput:
            return try readPipe(fd: options.standardInputDescriptor, isCancelled: cancelled, didRead: progress)
        case .file(let path), .foundInFolder(let path):
            var status: stat?
            let fd = Self.openInput(path, status: &status, isCancelled: cancelled)
            if fd == -2 { throw BatchCancelled() }
            if fd < 0 {
                return try parser.reportOpenFailure(errno: errno, to: handler)
            }
            defer {
                live.endInput(worker: number)   // before close: the snapshot reads its offset
                close(fd)
            }
            guard let st = status else {
                return try parser.parse(.fileDescriptor(fd), contentType: options.contentType, handler: handler)
            }
            var whole: [UInt8]?   // a small regular file's bytes
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                // A small file is read whole and parsed from memory (DescriptorReader's
                // readWhole); the first KiB (of it, or read alone) serves every look below.
                // The descriptor's position stays at 0 for the routes that read it.
                whole = DescriptorReader.readWhole(fd, status: st)
                let head = whole.map { $0.prefix(Self.headBytes) } ?? Self.head(of: fd)[...]
                if case .foundInFolder = input, !head.withUnsafeBytes(Self.looksLikeXMLOrGzip) { return nil }
                if head.withUnsafeBytes({ WARCReader.isWARCStart($0, using: peekStage) }) {
                    if pipelining, let partBytes = options.warcPartBytes, Int(st.st_size) >= 2 * partBytes {
                        return try convertInParts(fd: fd, size: UInt64(st.st_size), partBytes: partBytes,
                                                  didRead: progress)
                    }
                    var conversion = WARCConversion(parser: parser, handler: handler, writer: writer,
                                                    runLocation: options.documentLocation)
                    conversion.readAhead = pipelining && Int(st.st_size) >= options.pipelineMinimumBytes
                    let (summary, counts) = try conversion.convert(fd: fd, isCancelled: cancelled, didRead: progress)
                    warc = counts
                    return summary
                }
                let gzip = head.count >= 2 && InputStage.isGzip(head[0], head[1])
                if pipelining, let partBytes = options.dumpPartBytes,
                   gzip ? Int(st.st_size) >= options.pipelineMinimumBytes && options.jobs >= options.gzipDumpPartsMinimumJobs
                        : Int(st.st_size) >= 2 * partBytes {
                    return try convertDumpInParts(fd: fd, partBytes: partBytes, isCancelled: cancelled, didRead: progress)
                }
                if pipelining && Int(st.st_size) >= options.pipelineMinimumBytes && gzip {
                    return try readStream(fd: fd, isCancelled: cancelled, didRead: progress)
                }
            case S_IFDIR:
                break   // the parser reports the read error
            default:
                // A pipe or a device: read so that cancelling does not wait on it.
                return try readPipe(fd: fd, isCancelled: cancelled, didRead: progress)
            }
            if let whole {
                progress(UInt64(whole.count))
                return try parser.parse(.bytes(whole), contentType: options.contentType, handler: handler)
            }
            live.parsing(fd: fd, worker: number)
            return try parser.parse(.fileDescriptor(fd), contentType: options.contentType, handler: handler)
        }
    }

    private var pipelining: Bool { options.pipeline && options.jobs > 1 }

    /// A web archive file read in parts on this thread and the run's idle workers
    /// (``WARCParts``): the same lines, errors and counts as one reader gives.
    private func convertInParts(fd: Int32, size: UInt64, partBytes: Int,
                                didRead: @escaping @Sendable (UInt64) -> Void) throws -> ParseSummary {
        let parts = WARCParts(fd: fd, size: size, partBytes: UInt64(partBytes), options: options, live: live,
                              source: writer.source)
        let (summary, counts) = try parts.convert(parser: parser, output: partOutput(), didRead: didRead)
        warc = counts
        return summary
    }

    /// Where an input's parts go: past the writer (flushed first), to this worker's
    /// output and meter.
    private func partOutput() throws -> PartOutput {
        try writer.flush()
        return PartOutput(
            write: { [self] lines in
                try sink.write(lines)
                partBytesOut += UInt64(lines.count)
            },
            report: { [self] in try meter.parser(parser, didFail: $0) },
            dropped: { [self] in meter.addDropped(errors: $0, notFeeds: $1) })
    }

    /// A dump read and inflated on one thread, parsed in parts on this thread and the
    /// run's idle workers (``DumpStreamParts``): the same lines, errors and counts as
    /// one parser gives.
    private func convertDumpInParts(fd: Int32, partBytes: Int, isCancelled: @escaping @Sendable () -> Bool,
                                    didRead: @escaping @Sendable (UInt64) -> Void) throws -> ParseSummary {
        let parts = DumpStreamParts(fd: fd, partBytes: partBytes, options: options, live: live, source: writer.source)
        return try parts.convert(parser: parser, output: partOutput(), isCancelled: isCancelled, didRead: didRead)
    }

    /// Opens an input by its name's bytes (``PathBytes``), without waiting (O_NONBLOCK),
    /// and tells its kind from the descriptor (`status`, nil when `fstat` failed): one
    /// path lookup per input. A FIFO is then waited for in slices of
    /// 100 ms, so that a cancelled run (a signal) never hangs on a FIFO nobody writes to
    /// (issue 17); reading it then blocks as usual (and is cancellable, see readStream).
    /// Anything else gets its blocking reads back at once (one `fcntl`: the descriptor
    /// has no other status flag). -1 with errno when it cannot be opened, -2 when the
    /// run was cancelled.
    static func openInput(_ path: String, status: inout stat?, isCancelled: () -> Bool) -> Int32 {
        let fd = open(PathBytes.cString(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return fd }
        var st = stat()
        status = fstat(fd, &st) == 0 ? st : nil
        guard status != nil && (st.st_mode & S_IFMT) == S_IFIFO else {
            _ = fcntl(fd, F_SETFL, 0)
            return fd
        }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            if isCancelled() {
                close(fd)
                return -2
            }
            let r = poll(&p, 1, 100)
            if r > 0 || (r < 0 && errno != EINTR) { break }   // data, or a writer came and went
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// A stream read by a ChunkReader: on a second thread (inflating) when pipelining,
    /// else on this one (the parser inflates).
    private func readStream(fd: Int32, prefix: [UInt8] = [], isCancelled: @escaping @Sendable () -> Bool,
                            didRead: @escaping @Sendable (UInt64) -> Void) throws -> ParseSummary {
        if pipelining {
            return try ReadAheadPipeline().parse(fileDescriptor: fd, prefix: prefix, with: parser, handler: handler,
                                                 contentType: options.contentType, isCancelled: isCancelled,
                                                 didRead: didRead)
        }
        return try parseReading(fileDescriptor: fd, prefix: prefix, with: parser, handler: handler,
                                contentType: options.contentType, isCancelled: isCancelled, didRead: didRead)
    }

    /// A pipe (standard input among them), which cannot be looked at before it is read:
    /// its first bytes are read, and decide whether it is a web archive (converted as a
    /// WARC file is) or not (parsed as a stream); the rest is read after them.
    private func readPipe(fd: Int32, isCancelled: @escaping @Sendable () -> Bool,
                          didRead: @escaping @Sendable (UInt64) -> Void) throws -> ParseSummary {
        guard let head = ChunkReader.readHead(fd: fd, count: 512, isCancelled: isCancelled, didRead: didRead) else {
            throw BatchCancelled()
        }
        guard head.withUnsafeBytes({ WARCReader.isWARCStart($0) }) else {
            return try readStream(fd: fd, prefix: head, isCancelled: isCancelled, didRead: didRead)
        }
        var conversion = WARCConversion(parser: parser, handler: handler, writer: writer,
                                        runLocation: options.documentLocation)
        conversion.readAhead = pipelining
        let (summary, counts) = try conversion.convert(fd: fd, prefix: head, isCancelled: isCancelled, didRead: didRead)
        warc = counts
        return summary
    }

    /// True when the file's first bytes are gzip's (1F 8B) or a WARC version line, or,
    /// after a byte order mark and white space (NULs too: UTF-16 and UTF-32 without a
    /// mark), an XML `<`, or a JSON Feed's `{` when the first KiB names
    /// `jsonfeed.org/version` (the specification asks for `version` at the top; other
    /// JSON, such as JSON Lines, is skipped); true
    /// also for an empty or all-blank start, which the parser reports.
    static func looksLikeXMLOrGzip(_ fd: Int32) -> Bool {
        head(of: fd).withUnsafeBytes(looksLikeXMLOrGzip)
    }

    /// How much of a file's start the looks at it read (``head(of:)``).
    static let headBytes = 1024

    /// The file's first KiB (fewer when it is shorter; none on a read error), read with
    /// `pread`: the descriptor's position is left as it was.
    static func head(of fd: Int32) -> [UInt8] {
        var head = [UInt8](repeating: 0, count: headBytes)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        head.removeSubrange(max(0, n)...)
        return head
    }

    /// The same look at `head`, the file's first bytes.
    static func looksLikeXMLOrGzip(_ head: UnsafeRawBufferPointer) -> Bool {
        let n = head.count
        guard n > 0 else { return true }
        let bytes = head[0..<n]
        if n >= 2 && InputStage.isGzip(bytes[0], bytes[1]) { return true }
        if bytes.starts(with: Array("WARC/1.".utf8)) { return true }   // a web archive
        var rest = bytes[...]
        for mark: [UInt8] in [[0xEF, 0xBB, 0xBF], [0x00, 0x00, 0xFE, 0xFF], [0xFF, 0xFE], [0xFE, 0xFF]]
        where rest.starts(with: mark) {
            rest = rest.dropFirst(mark.count)
            break
        }
        guard let first = rest.first(where: { ![0x00, 0x09, 0x0A, 0x0D, 0x20].contains($0) }) else { return true }
        if first == UInt8(ascii: "{") { return FeedSniffer.isJSONFeed(Array(bytes)) }
        return first == UInt8(ascii: "<")
    }

}

/// The worker's writer output: blocks go to the sequencer for the current input.
private final class SequencerOutput: ByteOutput {
    let sequencer: OutputSequencer
    var index = 0

    init(_ sequencer: OutputSequencer) { self.sequencer = sequencer }

    func write(_ bytes: UnsafeRawBufferPointer) throws { try sequencer.write(bytes, for: index) }
}

/// Per input: its errors, and live counts published every few hundred items (which is
/// also where a cancelled run stops a long input).
private final class InputMeter: FeedHandler {
    private let live: LiveState
    private var items = 0
    private var documents = 0
    private(set) var errors: [FeedError] = []
    private(set) var droppedErrors = 0
    private(set) var notFeeds = 0

    init(_ live: LiveState) { self.live = live }

    func reset() {
        items = 0
        documents = 0
        errors.removeAll(keepingCapacity: true)
        droppedErrors = 0
        notFeeds = 0
    }

    func publish() throws {
        if !publishPending() { throw BatchCancelled() }
    }

    /// Adds the counts not yet published to the run's progress; false when cancelled.
    @discardableResult
    func publishPending() -> Bool {
        let ok = live.add(items: items, documents: documents)
        items = 0
        documents = 0
        return ok
    }

    func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
        documents += 1
        if documents >= 16 { try publish() }
    }

    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        items += 1
        if items >= 256 { try publish() }
    }

    func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        if error.code == .notAFeed { notFeeds += 1 }
        if errors.count < BatchInputResult.maxErrors { errors.append(error) } else { droppedErrors += 1 }
    }

    /// Errors not passed on one by one (a part's past its cap), and the "not a feed"
    /// reports among them.
    func addDropped(errors: Int, notFeeds: Int) {
        droppedErrors += errors
        self.notFeeds += notFeeds
    }
}

extension BatchConverter {
    /// True when a file found in a folder would be converted (gzip, or XML-like after a
    /// byte order mark and white space); convert skips the others, and so does diff.
    package static func looksLikeXMLOrGzip(_ fd: Int32) -> Bool { Worker.looksLikeXMLOrGzip(fd) }
}
