// SPDX-License-Identifier: Apache-2.0
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
        /// and one parsing, and measured faster than parts on 2 cores (docs/PERFORMANCE.md).
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
        /// What inflates gzip in this run: every parser (``newParser()``), the read-ahead
        /// thread, the dumps and web archives read in parts (`convert --inflate`).
        package var inflater = GzipInflater.default
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

        /// A parser for this run: ``makeParser``'s, inflating with ``inflater``.
        package func newParser() -> any FeedParser {
            let parser = makeParser()
            (parser as? InflaterChoosing)?.inflater = inflater
            return parser
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
        // Interrupted: the files are those written out whole, in order, the items and
        // documents the lines written (what parsers had read beyond them was not), the
        // bytes those read.
        summary.interrupted = live.isCancelled
        if summary.interrupted {
            summary.items = sequencer.itemLines
            summary.documents = sequencer.feedLines
            let read = live.snapshot()
            summary.bytesIn = max(summary.bytesIn, read.bytesIn)
        }
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
final class RunTotals: @unchecked Sendable {
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
final class Dispatcher: @unchecked Sendable {
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

extension BatchConverter {
    /// True when a file found in a folder would be converted (gzip, or XML-like after a
    /// byte order mark and white space); convert skips the others, and so does diff.
    package static func looksLikeXMLOrGzip(_ fd: Int32) -> Bool { Worker.looksLikeXMLOrGzip(fd) }
}
