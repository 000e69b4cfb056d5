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

/// One worker thread: a parser, a writer and a meter, reused for every input it takes.
final class Worker {
    let number: Int
    let options: BatchConverter.Options
    let live: LiveState
    let sequencer: OutputSequencer
    let parser: any FeedParser
    private let sink: SequencerOutput
    var writer: any BatchLineWriter
    private let meter: InputMeter
    let handler: FeedHandlerGroup
    /// Inflates the start of gzip inputs to tell a web archive (kept for every input).
    private lazy var peekStage = InputStage(limits: .unlimited)

    init(number: Int, options: BatchConverter.Options, live: LiveState, sequencer: OutputSequencer) {
        self.number = number
        self.options = options
        self.live = live
        self.sequencer = sequencer
        parser = options.newParser()
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
            live.endInput(worker: number, summary: summary, lost: meter.tally.losses > 0)
            var result = BatchInputResult(index: index, input: input, summary: summary, errors: meter.errors,
                                          droppedErrors: meter.droppedErrors,
                                          bytesOut: writer.bytesWritten - writtenBefore + partBytesOut,
                                          notFeedDocuments: meter.tally.notFeeds)
            result.losses = meter.tally.losses
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
                let gzip = head.withUnsafeBytes(InputStage.isCompressed)   // gzip or zstd
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
            dropped: { [self] in meter.addDropped($0) })
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
    /// 100 ms, so that a cancelled run (a signal) never hangs on a FIFO nobody writes to;
    /// reading it then blocks as usual (and is cancellable, see readStream).
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
            return try ReadAheadPipeline(inflater: options.inflater)
                .parse(fileDescriptor: fd, prefix: prefix, with: parser, handler: handler, contentType: options.contentType,
                       isCancelled: isCancelled, didRead: didRead)
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

    /// True when the file's first bytes are gzip's (1F 8B), zstd's (28 B5 2F FD) or a WARC version line, or,
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
        if InputStage.isCompressed(head) { return true }   // gzip or zstd
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
    /// Every error of the input, kept or not.
    private(set) var tally = ErrorTally()
    /// Errors not kept (past ``BatchInputResult/maxErrors``).
    var droppedErrors: Int { tally.count - errors.count }

    init(_ live: LiveState) { self.live = live }

    func reset() {
        items = 0
        documents = 0
        errors.removeAll(keepingCapacity: true)
        tally = ErrorTally()
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
        tally.add(error)
        if errors.count < BatchInputResult.maxErrors { errors.append(error) }
    }

    /// Errors not passed on one by one (a part's past its cap).
    func addDropped(_ dropped: ErrorTally) {
        tally.add(dropped)
    }
}
