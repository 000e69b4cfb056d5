// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
internal import CFeedStream
internal import CFeedStreamBaseline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The benchmark runner behind `feedstream bench`: every backend on the same inputs,
/// run after run alternating contenders in one process, against two baselines measured
/// in the same runs:
///
/// - *inflate only*: the run's ``GzipInflater`` (zlib, or ISA-L when chosen) inflating the workload's gzip files, nothing parsed (plain
///   files are only read);
/// - *tokenize only*: expat, namespace-aware, with empty callbacks, over the
///   uncompressed XML, one parser and its buffers kept between files
///   (`cfs_baseline_tokenizer`), as the backends keep theirs. A gzip file of 1 MiB or more is inflated on a second thread and
///   piped in (the figure is then the tokenizer's own speed while inflate is the faster
///   of the two); a smaller one is inflated in turn, on the tokenizer's thread, as
///   `feedstream convert` reads it: a thread and a pipe for each small file cost more
///   than they hide (``isBigGzip(_:)``).
///
/// Each backend converts the workload to JSON Lines (``JSONLinesWriter`` to
/// `/dev/null`), reading every file from disk each run as `feedstream convert` does;
/// for a workload with gzip files it also runs with inflate on a second thread
/// (``ReadAheadPipeline``, what `feedstream convert` does with a big `.gz`).
///
/// A warm-up round (not counted) comes first, which also warms the page cache. Timing
/// thresholds belong to benchmarks, never to tests: the report only says what was seen.
public enum FeedBench: Sendable {
    /// The files of one input, benchmarked as a whole.
    public struct Workload: Sendable, Equatable {
        /// The input as given (a file or a folder).
        public var name: String
        /// Its files, in order.
        public var files: [String]

        /// A workload; the arguments are stored as given.
        public init(name: String, files: [String]) {
            self.name = name
            self.files = files
        }
    }

    /// What to run and how often; the defaults run every backend five times after a
    /// warm-up round.
    public struct Options: Sendable {
        /// Backends to run, in this order.
        public var backends: [FeedBackend] = FeedBackend.allCases
        /// Timed runs per contender.
        public var runs = 5
        /// Run a round before the timed ones (page cache, parser buffers).
        public var warmUp = true
        /// For workloads with gzip files, also run each backend with inflate on a
        /// second thread.
        public var inflateThread = true
        /// For a workload of one file (a dump), also run each backend as `convert -j N`
        /// runs it on N cores (the machine's, at least 2): read and inflated on one
        /// thread, parsed in parts on the others (``BatchConverter/Options/dumpPartBytes``).
        public var dumpParts = true
        /// For workloads with gzip files, also run inflate only, each backend (on one
        /// thread and with inflate on a second), and each dump in parts with these inflaters
        /// (besides ``inflater``), for ratios paired in one run; the ones not available
        /// here are left out.
        package var otherInflaters: [GzipInflater] = []
        /// For a workload of one file (a dump), also run the output side: each backend's
        /// dump in parts to gzip and to zstd output (`convert -j N -o FILE.gz|.zst`, the
        /// default levels), against its plain output in parts and against compressing the
        /// same JSON Lines alone on one thread at level 1 (`gzip -1`, `zstd -1`).
        public var compressedOutput = false
        /// What inflates gzip in the run (`bench --inflate`).
        package var inflater = GzipInflater.default
        /// Measures one contender's peak memory (e.g. in a child process); nil to skip.
        /// Arguments: the contender's id and the workload.
        public var peakMemory: (@Sendable (String, Workload) -> UInt64?)?
        /// How peak memory is measured, for the report ("child process").
        public var peakMemoryMethod = "not measured"
        /// Called with a line of progress now and then.
        public var progress: (@Sendable (String) -> Void)?

        /// The default options.
        public init() {}
    }

    /// What one run of one contender did.
    public struct Measurement: Sendable, Equatable {
        /// Wall-clock seconds.
        public var seconds: Double
        /// Uncompressed XML bytes processed.
        public var bytesXML: UInt64
        /// Bytes read from disk.
        public var bytesIn: UInt64
        /// Documents parsed.
        public var documents: Int
        /// Items parsed.
        public var items: Int
        /// Why the run stopped early, if it did (a baseline refusing ill-formed XML).
        public var error: String?

        /// A measurement; the arguments are stored as given.
        public init(seconds: Double, bytesXML: UInt64, bytesIn: UInt64, documents: Int, items: Int, error: String? = nil) {
            self.seconds = seconds
            self.bytesXML = bytesXML
            self.bytesIn = bytesIn
            self.documents = documents
            self.items = items
            self.error = error
        }

        /// Megabytes (10^6 bytes) of uncompressed XML per second; 0 for a zero time.
        public var megabytesPerSecond: Double { seconds > 0 ? Double(bytesXML) / 1e6 / seconds : 0 }
    }

    /// The ids of the contenders for a workload: `inflate-only`, `tokenize-only`, then
    /// each backend, then (for gzip workloads) each backend with `+inflate-thread`.
    public static func contenderIDs(for workload: Workload, options: Options) -> [String] {
        contenders(for: workload, options: options).map(\.id)
    }

    /// Runs every contender on every workload and reports.
    public static func run(_ workloads: [Workload], options: Options = Options()) throws -> BenchReport {
        precondition(options.runs >= 1, "runs must be at least 1")
        let machine = BenchMachine.current()
        var results: [BenchWorkloadResult] = []
        for workload in workloads {
            results.append(try run(workload, options: options))
        }
        var report = BenchReport(machine: machine, runs: options.runs, peakMemoryMethod: options.peakMemoryMethod,
                                 workloads: results)
        if let first = workloads.first { report.idleMemoryBytes = options.peakMemory?(idleID, first) }
        report.inflater = options.inflater.rawValue
        return report
    }

    /// One run of one contender by id: what a child process does to measure the peak
    /// memory of that contender alone.
    /// The id `idle` runs nothing: its peak is the process's own floor; a
    /// ``ballastID(megabytes:)`` holds that much memory and parses nothing.
    package static func runOnce(contenderID: String, workload: Workload, inflater: GzipInflater) throws -> Measurement {
        if contenderID == idleID || runBallast(contenderID) {
            return Measurement(seconds: 0, bytesXML: 0, bytesIn: 0, documents: 0, items: 0)
        }
        guard let contender = Contender(id: contenderID) else {
            throw FeedError(code: .init(rawValue: "usage"), message: "unknown contender \(contenderID)")
        }
        let runner = Runner(contender, threadedGzip: WorkloadGzip(workload.files).onAThread, inflater: inflater)
        return try runner.run(workload.files)
    }

    /// The pseudo-contender that does nothing (see ``BenchReport/idleMemoryBytes``).
    public static let idleID = "idle"

    // MARK: - Internals

    static func contenders(for workload: Workload, options: Options) -> [Contender] {
        let gzip = workload.files.contains(where: isGzip)
        var list: [Contender] = [.inflateOnly, .tokenizeOnly]
        list += options.backends.map { .backend($0, inflateThread: false) }
        if gzip && options.inflateThread {
            list += options.backends.map { .backend($0, inflateThread: true) }
        }
        if workload.files.count == 1 && options.dumpParts {
            list += options.backends.map { .parts($0) }
        }
        if workload.files.count == 1 && options.compressedOutput {
            for format in CompressedFormat.allCases {
                list.append(.compressOnly(format))
                list += options.backends.map { .compressedParts($0, format) }
            }
        }
        if gzip {
            for inflater in options.otherInflaters
            where inflater != options.inflater && (inflater != .isal || GzipInflater.isalAvailable) {
                list += list.filter(\.inflates).map { .inflatedBy(inflater, $0) }
            }
        }
        return list
    }

    static func run(_ workload: Workload, options: Options) throws -> BenchWorkloadResult {
        let contenders = contenders(for: workload, options: options)
        let gzip = WorkloadGzip(workload.files)
        let runners = contenders.map { Runner($0, threadedGzip: gzip.onAThread, inflater: options.inflater) }
        var measured = Array(repeating: [Measurement](), count: runners.count)
        let rounds = options.runs + (options.warmUp ? 1 : 0)
        for round in 0..<rounds {
            let counted = !options.warmUp || round > 0
            // Start each round at a different contender, so none always runs first.
            for k in 0..<runners.count {
                let i = (k + round) % runners.count
                let m = try runners[i].run(workload.files)
                if counted { measured[i].append(m) }
                options.progress?("\(workload.name): \(contenders[i].id) \(counted ? "run \(measured[i].count)" : "warm-up"): "
                                  + "\(format1(m.megabytesPerSecond)) MB/s")
            }
        }

        let tokenize = contenders.firstIndex(of: .tokenizeOnly)!
        let inflate = contenders.firstIndex(of: .inflateOnly)!
        let firstBackend = contenders.firstIndex { $0.backend != nil }
        let reference = firstBackend.map { measured[$0].first! } ?? measured[inflate].first!
        // A contender's inflate-only reference: the one with its inflater.
        func inflateOnly(of contender: Contender) -> Int {
            if case .inflatedBy(let i, _) = contender, let j = contenders.firstIndex(of: .inflatedBy(i, .inflateOnly)) {
                return j
            }
            return inflate
        }
        var results: [BenchResult] = []
        for (i, contender) in contenders.enumerated() {
            let runs = measured[i]
            let mbps = runs.map(\.megabytesPerSecond)
            func ratio(to j: Int) -> Double? {
                let r = zip(runs, measured[j]).compactMap { a, b -> Double? in
                    let d = b.megabytesPerSecond
                    return d > 0 ? a.megabytesPerSecond / d : nil
                }
                return r.isEmpty ? nil : median(r.sorted())
            }
            let medianMBps = median(mbps.sorted())
            var itemsPerSecond: Double?
            if contender.backend != nil, let r = runs.first, r.bytesXML > 0 {
                itemsPerSecond = Double(r.items) * medianMBps * 1e6 / Double(r.bytesXML)
            }
            var toPlain: Double?, toCompressor: Double?
            if case .compressedParts(let b, let format) = contender {
                toPlain = contenders.firstIndex(of: .parts(b)).flatMap(ratio(to:))
                toCompressor = contenders.firstIndex(of: .compressOnly(format)).flatMap(ratio(to:))
            }
            let peak = options.peakMemory?(contender.id, workload)
            results.append(BenchResult(
                id: contender.id, label: contender.label(gzip, inflater: options.inflater), kind: contender.backend == nil ? "baseline" : "backend",
                backend: contender.backend?.rawValue, threads: contender.threads(gzip),
                runsMBps: mbps,
                itemsPerSecond: itemsPerSecond, ratioToTokenizeOnly: ratio(to: tokenize), ratioToInflateOnly: ratio(to: inflateOnly(of: contender)),
                ratioToPlainOutput: toPlain, ratioToCompressOnly: toCompressor,
                peakMemoryBytes: peak, error: runs.compactMap(\.error).first))
        }
        return BenchWorkloadResult(
            name: workload.name, files: workload.files.count, gzipFiles: gzip.files, bytesIn: reference.bytesIn,
            bytesXML: reference.bytesXML, documents: firstBackend == nil ? nil : reference.documents,
            items: firstBackend == nil ? nil : reference.items, results: results)
    }

    indirect enum Contender: Equatable {
        case inflateOnly
        case tokenizeOnly
        case backend(FeedBackend, inflateThread: Bool)
        /// `convert -j N` on one dump: in parts on ``partsJobs`` threads.
        case parts(FeedBackend)
        /// A contender run with another ``GzipInflater`` than the process's.
        case inflatedBy(GzipInflater, Contender)
        /// `.parts` writing compressed output (`convert -j N -o FILE.gz|.zst`).
        case compressedParts(FeedBackend, CompressedFormat)
        /// The workload's JSON Lines (made once, before the runs) compressed at level 1 on
        /// one thread, nothing parsed: `gzip -1`, `zstd -1`.
        case compressOnly(CompressedFormat)

        static let inflaterSeparator = "@"
        static let outputSeparator = ">"

        /// Whether the inflater sets its pace: inflate only, a backend (one thread, or
        /// with inflate on a second thread), a dump in parts (the ones run with each
        /// inflater; tokenize only stays the reference).
        var inflates: Bool {
            switch self {
            case .inflateOnly, .parts, .backend: true
            default: false
            }
        }

        static let threadSuffix = "+inflate-thread"
        static let partsSuffix = "+parts"
        /// The jobs of the `.parts` contenders: the machine's cores, at least 2.
        static var partsJobs: Int { max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

        var id: String {
            switch self {
            case .inflateOnly: "inflate-only"
            case .tokenizeOnly: "tokenize-only"
            case .backend(let b, let t): b.rawValue + (t ? Contender.threadSuffix : "")
            case .parts(let b): b.rawValue + Contender.partsSuffix
            case .inflatedBy(let i, let c): c.id + Contender.inflaterSeparator + i.rawValue
            case .compressedParts(let b, let f): Contender.parts(b).id + Contender.outputSeparator + f.rawValue
            case .compressOnly(let f): f.rawValue + "-1"
            }
        }

        init?(id: String) {
            if let at = id.lastIndex(of: Character(Contender.inflaterSeparator)) {
                guard let inflater = GzipInflater(rawValue: String(id[id.index(after: at)...])),
                      let base = Contender(id: String(id[..<at])) else { return nil }
                self = .inflatedBy(inflater, base)
                return
            }
            if let at = id.lastIndex(of: Character(Contender.outputSeparator)) {
                guard let format = CompressedFormat(rawValue: String(id[id.index(after: at)...])),
                      case .parts(let b)? = Contender(id: String(id[..<at])) else { return nil }
                self = .compressedParts(b, format)
                return
            }
            if id.hasSuffix("-1"), let format = CompressedFormat(rawValue: String(id.dropLast(2))) {
                self = .compressOnly(format)
                return
            }
            switch id {
            case "inflate-only": self = .inflateOnly
            case "tokenize-only": self = .tokenizeOnly
            case _ where id.hasSuffix(Contender.partsSuffix):
                guard let b = FeedBackend(rawValue: String(id.dropLast(Contender.partsSuffix.count))) else { return nil }
                self = .parts(b)
            default:
                let threaded = id.hasSuffix(Contender.threadSuffix)
                let name = threaded ? String(id.dropLast(Contender.threadSuffix.count)) : id
                guard let b = FeedBackend(rawValue: name) else { return nil }
                self = .backend(b, inflateThread: threaded)
            }
        }

        var backend: FeedBackend? {
            switch self {
            case .backend(let b, _), .parts(let b), .compressedParts(let b, _): b
            case .inflatedBy(_, let c): c.backend
            default: nil
            }
        }

        func threads(_ gzip: WorkloadGzip) -> Int {
            switch self {
            case .inflateOnly: 1
            case .tokenizeOnly: gzip.onAThread.isEmpty ? 1 : 2
            case .backend(_, let t): t ? 2 : 1
            case .parts, .compressedParts: Contender.partsJobs
            case .compressOnly: 1
            case .inflatedBy(_, let c): c.threads(gzip)
            }
        }

        func label(_ gzip: WorkloadGzip, inflater: GzipInflater) -> String {
            switch self {
            case .inflatedBy(let i, .inflateOnly):
                "inflate only (\(i), nothing parsed)"
            case .inflatedBy(let i, let c):
                c.label(gzip, inflater: i) + ", \(i)"
            case .inflateOnly:
                gzip.files > 0 ? "inflate only (\(inflater), nothing parsed)" : "read only (plain input, nothing to inflate)"
            case .tokenizeOnly:
                "tokenize only (expat, empty callbacks)" + gzip.baselineLabelSuffix
            case .backend(let b, let t):
                "\(b.rawValue) → JSON Lines" + (t ? ", inflate on a 2nd thread (ReadAheadPipeline)" : gzip.files > 0 ? ", one thread" : "")
            case .parts(let b):
                "\(b.rawValue) → JSON Lines, the dump in parts on \(Contender.partsJobs) threads (DumpStreamParts)"
            case .compressedParts(let b, let f):
                "\(b.rawValue) → JSON Lines → \(f) (level \(f.defaultLevel)), the dump in parts on \(Contender.partsJobs) threads"
            case .compressOnly(.gzip):
                "gzip -1 of the JSON Lines (zlib level 1, one thread, nothing parsed)"
            case .compressOnly(.zstd):
                "zstd -1 of the JSON Lines (libzstd level 1, one worker, nothing parsed)"
            }
        }
    }

    /// A workload's gzip files, looked at once (not in the timed runs): how many, and
    /// those the tokenize-only baseline inflates on a second thread (``isBigGzip(_:)``;
    /// the rest in turn). For the labels and thread counts.
    struct WorkloadGzip {
        let files: Int
        let onAThread: Set<String>

        init(_ paths: [String]) {
            var files = 0
            var big = Set<String>()
            for path in paths {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }
                defer { close(fd) }
                guard isGzip(fd) else { continue }
                files += 1
                if isBigGzip(fd) { big.insert(path) }
            }
            self.files = files
            onAThread = big
        }

        var baselineLabelSuffix: String {
            if files == 0 { return "" }
            if onAThread.count == files { return ", inflate on a 2nd thread" }
            if onAThread.isEmpty { return ", inflate in turn" }
            return ", inflate in turn (on a 2nd thread from \(BatchConverter.Options.defaultPipelineMinimumBytes >> 20) MiB)"
        }
    }

    /// Runs one contender; keeps its parser and writer between runs, as a user
    /// converting many inputs would.
    final class Runner {
        let contender: Contender
        private var parser: (any FeedParser)?
        private var writer: JSONLinesWriter?
        private let devNull: Int32

        /// The inflater the contender runs with: its own, or the run's.
        private let inflater: GzipInflater
        /// The contender without its inflater.
        private let base: Contender

        /// The gzip files the tokenize-only baseline inflates on a second thread
        /// (``WorkloadGzip``, looked at once per workload, not in the timed runs).
        private let threadedGzip: Set<String>

        init(_ contender: Contender, threadedGzip: Set<String>, inflater runInflater: GzipInflater) {
            self.threadedGzip = threadedGzip
            self.contender = contender
            if case .inflatedBy(let i, let c) = contender {
                inflater = i
                base = c
            } else {
                inflater = runInflater
                base = contender
            }
            devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
            if case .backend(let b, _) = base {
                let p = b.makeParser()
                (p as? InflaterChoosing)?.inflater = inflater
                parser = p
                writer = JSONLinesWriter(output: FileDescriptorOutput(fd: devNull))
            }
            if case .tokenizeOnly = base { tokenizer = cfs_baseline_tokenizer_new() }
        }

        deinit {
            close(devNull)
            cfs_baseline_tokenizer_free(tokenizer)
            if let lines { unlink(lines.path) }
        }

        /// Converts `files` (the swift backend, in parts) into a temporary file of JSON
        /// Lines.
        private func writeLines(_ files: [String]) throws -> (path: String, bytesXML: UInt64, bytes: UInt64) {
            var template = Array("/tmp/feedstream-bench-lines-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { throw OutputError(errno: errno) }
            defer { close(fd) }
            let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            var options = BatchConverter.Options(jobs: Contender.partsJobs, makeParser: { FeedBackend.swift.makeParser() })
            options.inflater = inflater
            let s = try BatchConverter(options: options).run(files.map { BatchInput.file($0) }, to: FileDescriptorOutput(fd: fd))
            var st = stat()
            fstat(fd, &st)
            return (path, s.bytesXML, UInt64(st.st_size))
        }

        /// The tokenize-only baseline's expat parser and buffers, kept between files and
        /// runs as the backends keep theirs.
        private var tokenizer: OpaquePointer?

        /// The JSON Lines the compress-only baselines compress: made once, before their
        /// first run (not timed), in a temporary file the page cache keeps.
        private var lines: (path: String, bytesXML: UInt64, bytes: UInt64)?

        func run(_ files: [String]) throws -> Measurement {
            var m = Measurement(seconds: 0, bytesXML: 0, bytesIn: 0, documents: 0, items: 0, error: nil)
            if case .compressOnly = base, lines == nil { lines = try writeLines(files) }
            let clock = ContinuousClock()
            let start = clock.now
            for file in files {
                try runFile(file, into: &m)
            }
            if let writer { try writer.flush() }
            let d = clock.now - start
            m.seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            return m
        }

        private func runFile(_ file: String, into m: inout Measurement) throws {
            switch base {
            case .inflateOnly:
                let fd = open(file, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return noteError(&m, "\(file): cannot open") }
                defer { close(fd) }
                var st = cfs_baseline_stats()
                st.inflater = inflater.engine
                if cfs_baseline_inflate_fd(fd, -1, &st) != 0 { noteError(&m, "\(file): \(String(cString: st.error))") }
                m.bytesIn += st.bytes_in
                m.bytesXML += st.bytes_xml

            case .tokenizeOnly:
                // One open, as the backends' own (the magic read with pread on it).
                let fd = open(file, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return noteError(&m, "\(file): cannot open") }
                defer { close(fd) }
                var st = cfs_baseline_stats()
                st.inflater = inflater.engine
                let rc: Int32
                guard let tokenizer else { return noteError(&m, "out of memory") }
                let gzip = isGzip(fd)
                if gzip && threadedGzip.contains(file) {
                    let (r, inflated) = try withInflateThread(fd, inflater: inflater) { out in cfs_baseline_tokenizer_run(tokenizer, out, 0, &st) }
                    rc = r
                    m.bytesIn += inflated.bytes_in
                } else {
                    rc = cfs_baseline_tokenizer_run(tokenizer, fd, gzip ? 1 : 0, &st)
                    m.bytesIn += st.bytes_in
                }
                if rc != 0 { noteError(&m, "\(file): \(String(cString: st.error))") }
                m.bytesXML += st.bytes_xml
                m.documents += Int(st.documents)

            case .parts(let b):
                // What `feedstream convert -j N --backend B FILE > /dev/null` runs, in parts
                // also for gzip on 2 cores (where convert prefers the read-ahead pipeline).
                var options = BatchConverter.Options(jobs: Contender.partsJobs, makeParser: { b.makeParser() })
                options.inflater = inflater
                options.gzipDumpPartsMinimumJobs = 2
                let s = try BatchConverter(options: options).run([BatchInput.file(file)],
                                                                 to: FileDescriptorOutput(fd: devNull))
                if s.failedInputs > 0 { noteError(&m, "\(file): failed") }
                m.bytesIn += s.bytesIn
                m.bytesXML += s.bytesXML
                m.documents += s.documents
                m.items += s.items

            case .backend(_, let threaded):
                guard let parser, let writer else { return }
                writer.source = file
                let summary: ParseSummary
                if threaded {
                    // The library's own two-stage reader for gzip, as `feedstream convert`
                    // runs it (a plain file is parsed from the same descriptor).
                    let fd = open(file, O_RDONLY | O_CLOEXEC)
                    guard fd >= 0 else { return noteError(&m, "\(file): cannot open") }
                    defer { close(fd) }
                    summary = isGzip(fd)
                        ? try ReadAheadPipeline(inflater: inflater).parse(fileDescriptor: fd, with: parser, handler: writer)
                        : try parser.parse(.fileDescriptor(fd), handler: writer)
                    m.bytesIn += summary.bytesIn
                } else {
                    summary = try parser.parse(.file(path: file), handler: writer)
                    m.bytesIn += summary.bytesIn
                }
                m.bytesXML += summary.bytesXML
                m.documents += summary.documents
                m.items += summary.items

            case .compressedParts(let b, let format):
                // What `feedstream convert -j N -o FILE.gz|.zst` runs, writing to /dev/null.
                var options = BatchConverter.Options(jobs: Contender.partsJobs, makeParser: { b.makeParser() })
                options.inflater = inflater
                options.gzipDumpPartsMinimumJobs = 2
                let output = format.output(FileDescriptorOutput(fd: devNull), level: nil, threads: Contender.partsJobs)
                let s = try BatchConverter(options: options).run([BatchInput.file(file)], to: output)
                try output.finish()
                if s.failedInputs > 0 { noteError(&m, "\(file): failed") }
                m.bytesIn += s.bytesIn
                m.bytesXML += s.bytesXML
                m.documents += s.documents
                m.items += s.items

            case .compressOnly(let format):
                // The workload's JSON Lines at level 1 on one thread, as `gzip -1` and
                // `zstd -1` compress a file (zlib, not ISA-L: the common tool's deflate).
                guard let lines else { return }
                let fd = open(lines.path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return noteError(&m, "\(lines.path): cannot open") }
                defer { close(fd) }
                let sink = FileDescriptorOutput(fd: devNull)
                let output: any CompressedOutput = format == .gzip
                    ? GzipOutput(sink, level: 1, threads: 0, isal: false) : ZstdOutput(sink, level: 1, threads: 1)
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { buffer.deallocate() }
                while true {
                    let n = read(fd, buffer.baseAddress, buffer.count)
                    if n <= 0 { break }
                    try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                }
                try output.finish()
                m.bytesIn += lines.bytes
                m.bytesXML += lines.bytesXML

            case .inflatedBy:
                preconditionFailure("a contender has one inflater")
            }
        }

        private func noteError(_ m: inout Measurement, _ message: String) {
            if m.error == nil { m.error = message }
        }
    }
}

/// True when the tokenize-only baseline inflates the file open on `fd` on a second thread
/// (piped in): gzip of at least the size from which `feedstream convert` reads a `.gz`
/// ahead on a second thread (``BatchConverter/Options/defaultPipelineMinimumBytes``). A
/// smaller gzip file is inflated in turn, on the tokenizer's thread, where a thread of
/// its own would cost more than it hides (a thread per small file, a few KB each, is
/// slower than inflating in turn), as `feedstream convert` decides.
func isBigGzip(_ fd: Int32) -> Bool {
    var st = stat()
    return isGzip(fd) && fstat(fd, &st) == 0 && Int(st.st_size) >= BatchConverter.Options.defaultPipelineMinimumBytes
}

/// True when the file starts with the gzip magic bytes.
func isGzip(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return isGzip(fd)
}

/// True when the file open on `fd` starts with the gzip magic bytes (read with `pread`:
/// the descriptor does not move).
func isGzip(_ fd: Int32) -> Bool {
    var magic: (UInt8, UInt8) = (0, 0)
    let n = withUnsafeMutableBytes(of: &magic) { pread(fd, $0.baseAddress, 2, 0) }
    return n == 2 && InputStage.isGzip(magic.0, magic.1)
}

/// The inflate thread's side of a pipe.
private final class InflateFeeder {
    let inFD: Int32
    let outFD: Int32
    var stats = cfs_baseline_stats()
    init(inFD: Int32, outFD: Int32) {
        self.inFD = inFD
        self.outFD = outFD
    }
}

/// Runs `body` with the read end of a pipe that a second thread fills with the gzip file
/// open on `inFD` inflated (cfs_baseline_inflate_fd, from where the descriptor is).
/// Returns body's result and the inflate stats.
private func withInflateThread<T>(_ inFD: Int32, inflater: GzipInflater, _ body: (Int32) throws -> T) throws
    -> (T, cfs_baseline_stats)
{
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw FeedError(code: .io, message: "pipe failed") }
    #if os(Linux)
    _ = fcntl(fds[0], 1031 /* F_SETPIPE_SZ */, Int32(1 << 20))
    #endif
    let feeder = InflateFeeder(inFD: inFD, outFD: fds[1])
    feeder.stats.inflater = inflater.engine
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { raw in
        let feeder = Unmanaged<InflateFeeder>.fromOpaque(raw!).takeUnretainedValue()
        _ = cfs_baseline_inflate_fd(feeder.inFD, feeder.outFD, &feeder.stats)
        close(feeder.outFD)
        return nil
    }, Unmanaged.passUnretained(feeder).toOpaque())
    guard started == 0 else {
        close(fds[0]); close(fds[1])
        throw FeedError(code: .io, message: "cannot start the inflate thread")
    }
    let result: Result<T, any Error>
    do { result = .success(try body(fds[0])) } catch { result = .failure(error) }
    close(fds[0])   // a reader that stopped early makes the writer end with EPIPE
    pthread_join(thread, nil)
    return (try result.get(), withExtendedLifetime(feeder) { feeder.stats })
}

func format1(_ v: Double) -> String {
    let r = (v * 10).rounded() / 10
    return String(r)
}
