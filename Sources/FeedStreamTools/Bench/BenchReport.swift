// SPDX-License-Identifier: Apache-2.0
import FeedStream

/// What `feedstream bench` measured: for each workload (one input as given), every
/// contender's throughput over the runs, its ratio to the two baselines, items per
/// second and peak memory. `Codable`, so `--json` is this value encoded.
///
/// Throughput is always megabytes (10^6 bytes) of *uncompressed* XML per second of wall
/// clock, whatever the input's compression, so contenders compare on the same scale.
public struct BenchReport: Sendable, Codable, Equatable {
    /// Version of this report's JSON shape.
    public var version = 1
    /// Where and when it ran.
    public var machine: BenchMachine
    /// Timed runs per contender (a warm-up run comes before them and is not counted).
    public var runs: Int
    /// How peak memory was measured ("child process" or "not measured").
    public var peakMemoryMethod: String
    /// Peak memory of the same child process doing nothing: the floor under every
    /// contender's peak (runtime, libraries). Nil when not measured.
    public var idleMemoryBytes: UInt64?
    /// The gzip inflater of the run (``GzipInflater``: `zlib` or `isa-l`; nil in
    /// reports from before it could be chosen: zlib).
    public var inflater: String?
    /// One result per workload, in the order given.
    public var workloads: [BenchWorkloadResult]

    /// A report; the arguments are stored as given.
    public init(machine: BenchMachine, runs: Int, peakMemoryMethod: String, workloads: [BenchWorkloadResult]) {
        self.machine = machine
        self.runs = runs
        self.peakMemoryMethod = peakMemoryMethod
        self.workloads = workloads
    }
}

/// The machine a report comes from.
public struct BenchMachine: Sendable, Codable, Equatable {
    /// The CPU model, from /proc/cpuinfo where there is one.
    public var cpu: String
    /// Online logical cores.
    public var cores: Int
    /// Operating system and kernel release (`uname -sr`), and architecture.
    public var system: String
    /// When the run started: ISO 8601, UTC.
    public var date: String

    /// A machine description; the arguments are stored as given.
    public init(cpu: String, cores: Int, system: String, date: String) {
        self.cpu = cpu
        self.cores = cores
        self.system = system
        self.date = date
    }
}

/// One workload: the files of one input (a file, or every file of a folder).
public struct BenchWorkloadResult: Sendable, Codable, Equatable {
    /// The input as given.
    public var name: String
    /// Files in the input.
    public var files: Int
    /// Files that are gzip (decided by content).
    public var gzipFiles: Int
    /// Bytes on disk.
    public var bytesIn: UInt64
    /// Uncompressed XML bytes, the scale of every MB/s figure.
    public var bytesXML: UInt64
    /// Documents the first backend found (nil when no backend ran).
    public var documents: Int?
    /// Items the first backend found (nil when no backend ran).
    public var items: Int?
    /// One result per contender, in the order they ran.
    public var results: [BenchResult]

    /// A workload result; the arguments are stored as given.
    public init(name: String, files: Int, gzipFiles: Int, bytesIn: UInt64, bytesXML: UInt64, documents: Int?,
                items: Int?, results: [BenchResult]) {
        self.name = name
        self.files = files
        self.gzipFiles = gzipFiles
        self.bytesIn = bytesIn
        self.bytesXML = bytesXML
        self.documents = documents
        self.items = items
        self.results = results
    }

    /// The result of a contender, by id (`tokenize-only`, `expat`, ...).
    public subscript(id: String) -> BenchResult? { results.first { $0.id == id } }
}

/// One contender on one workload.
public struct BenchResult: Sendable, Codable, Equatable {
    /// `tokenize-only`, `inflate-only`, a backend's name (`expat`), or a backend's name
    /// followed by `+inflate-thread` (gzip inflated on a second thread), `+parts` (a dump
    /// in parts) or `+parts>gzip` / `+parts>zstd` (in parts, to compressed output);
    /// `gzip-1` and `zstd-1` (compressing the JSON Lines alone).
    public var id: String
    /// What it is, in words.
    public var label: String
    /// `baseline` or `backend`.
    public var kind: String
    /// The backend's name, for backends.
    public var backend: String?
    /// Threads doing the work (2 when inflate runs on a thread of its own).
    public var threads: Int
    /// MB/s of uncompressed XML, one per timed run, in run order.
    public var runsMBps: [Double]
    /// The median of ``runsMBps``.
    public var medianMBps: Double
    /// The lowest of ``runsMBps``.
    public var minMBps: Double
    /// The highest of ``runsMBps``.
    public var maxMBps: Double
    /// (max - min) / median, in percent.
    public var spreadPercent: Double
    /// Items per second at the median throughput (backends only).
    public var itemsPerSecond: Double?
    /// Median over runs of this run's MB/s divided by the same run's tokenize-only MB/s
    /// (runs alternate contenders, so each ratio pairs measurements made moments apart).
    public var ratioToTokenizeOnly: Double?
    /// The same against inflate-only.
    public var ratioToInflateOnly: Double?
    /// For a backend writing compressed output (`swift+parts>gzip`): the same against its
    /// plain output (`swift+parts`), run by run.
    public var ratioToPlainOutput: Double?
    /// The same against compressing its JSON Lines alone on one thread (`gzip-1`,
    /// `zstd-1`).
    public var ratioToCompressOnly: Double?
    /// Peak resident memory in bytes of one run alone in a child process (nil when not
    /// measured).
    public var peakMemoryBytes: UInt64?
    /// Set when the contender failed on this workload (its figures are then zero).
    public var error: String?

    /// A result; the median, minimum, maximum and spread are computed from `runsMBps`.
    public init(id: String, label: String, kind: String, backend: String?, threads: Int, runsMBps: [Double],
                itemsPerSecond: Double?, ratioToTokenizeOnly: Double?, ratioToInflateOnly: Double?,
                ratioToPlainOutput: Double? = nil, ratioToCompressOnly: Double? = nil,
                peakMemoryBytes: UInt64?, error: String?) {
        self.id = id
        self.label = label
        self.kind = kind
        self.backend = backend
        self.threads = threads
        self.runsMBps = runsMBps
        let sorted = runsMBps.sorted()
        medianMBps = median(sorted)
        minMBps = sorted.first ?? 0
        maxMBps = sorted.last ?? 0
        spreadPercent = medianMBps > 0 ? (maxMBps - minMBps) / medianMBps * 100 : 0
        self.itemsPerSecond = itemsPerSecond
        self.ratioToTokenizeOnly = ratioToTokenizeOnly
        self.ratioToInflateOnly = ratioToInflateOnly
        self.ratioToPlainOutput = ratioToPlainOutput
        self.ratioToCompressOnly = ratioToCompressOnly
        self.peakMemoryBytes = peakMemoryBytes
        self.error = error
    }
}

/// The median of sorted values (0 for none).
func median(_ sorted: [Double]) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let n = sorted.count
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
}
