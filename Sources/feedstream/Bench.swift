// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation

/// `feedstream bench`: the backends side by side on the same inputs, against the two
/// baselines (inflate only, tokenize only), in one process. The work is
/// ``FeedBench``'s; this maps flags to options and prints the report.
struct Bench: TakesPaths {
    static let configuration = CommandConfiguration(
        abstract: "Benchmark the backends against inflate-only and tokenize-only baselines.",
        discussion: """
            Each INPUT (a file, or a folder: all its files) is one workload. For each, run \
            after run, alternating: inflate only (zlib, nothing parsed), tokenize only \
            (expat with empty callbacks; a gzip file inflated in turn, or on a second \
            thread from \(BatchConverter.Options.defaultPipelineMinimumBytes >> 20) MiB, as convert reads it), and every backend converting to JSON Lines \
            (written to /dev/null); for gzip inputs also every backend with inflate on a \
            second thread (ReadAheadPipeline); for a workload of one file (a dump) also every \
            backend as convert -j N runs it on the machine's N cores (read and inflated on one \
            thread, parsed in parts on the others). One warm-up round comes first. Reports MB/s of uncompressed \
            XML (median and range over the runs), the ratios to the baselines, items/s, \
            and each contender's peak memory, measured alone in a child process.

            EXAMPLES:
              feedstream bench dump.xml dump.xml.gz
              feedstream bench --backends expat,swift --runs 3 --json archive/ > bench.json
              feedstream bench --backends swift --compressed-output dump.xml.gz
            """)

    @Option(help: "Comma-separated backends (\(FeedBackend.allCases.map(\.rawValue).joined(separator: ", "))).")
    var backends: String = FeedBackend.allCases.map(\.rawValue).joined(separator: ",")

    @Option(parsing: .unconditional, help: "Timed runs per contender (after one warm-up run), 1 to \(Bench.maxRuns).")
    var runs: Int = 5

    /// The most `--runs` takes.
    static let maxRuns = 1000

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Do not measure peak memory (saves one run per contender).")
    var noPeakMemory = false

    @Flag(help: "For gzip inputs, skip the runs with inflate on a second thread.")
    var noInflateThread = false

    @OptionGroup
    var inflater: InflateOption

    @Flag(name: .customLong("compare-inflaters"), help: "For gzip inputs, also run inflate only, each backend (one thread, and inflate on a second thread) and the dump in parts with the other inflater (isa-l, where it is available): ratios paired in one run.")
    var compareInflaters = false

    @Flag(name: .customLong("compressed-output"), help: "For a dump, also run the output side: each backend's dump in parts to gzip and to zstd output (convert -j N -o FILE.gz / FILE.zst, default levels), with its ratio to the plain output in parts and to gzip -1 / zstd -1 of the same JSON Lines on one thread.")
    var compressedOutput = false

    @Flag(name: .shortAndLong, help: "Print no progress on standard error.")
    var quiet = false

    /// Set in the child that measures one contender's peak memory: run it once, exit.
    @Option(help: .hidden)
    var peakChild: String?

    @Argument(help: "Files or folders; each is one workload.")
    var inputs: [String]

    mutating func run() throws {
        let inflater = try self.inflater.chosen(for: "bench")
        let names = backends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let chosen = names.compactMap { FeedBackend(rawValue: $0) }
        guard !chosen.isEmpty, chosen.count == names.count else {
            printError("feedstream bench: --backends takes one or more of: "
                       + FeedBackend.allCases.map(\.rawValue).joined(separator: ", "))
            throw ExitStatus.usageOrOutput
        }
        guard (1...Self.maxRuns).contains(runs) else {
            printError("feedstream bench: --runs takes 1 to \(Self.maxRuns)")
            throw ExitStatus.usageOrOutput
        }
        var workloads: [FeedBench.Workload] = []
        do {
            for input in inputs {
                guard input != "-" else {
                    printError("feedstream bench: standard input cannot be read run after run; give a file")
                    throw ExitStatus.usageOrOutput
                }
                workloads.append(FeedBench.Workload(name: input, files: try InputList.expand([input])))
            }
        } catch let error as InputList.Error {
            printError(error.description)
            throw ExitStatus.usageOrOutput
        }

        if let id = peakChild {
            for w in workloads { _ = try FeedBench.runOnce(contenderID: id, workload: w, inflater: inflater) }
            print(FeedBench.ownPeakMemory().map(String.init) ?? "")   // read by FeedBench.childPeakMemory
            return
        }

        var options = FeedBench.Options()
        options.backends = chosen
        options.runs = runs
        options.inflateThread = !noInflateThread
        options.inflater = inflater
        if compareInflaters { options.otherInflaters = GzipInflater.allCases }
        options.compressedOutput = compressedOutput
        if !quiet { options.progress = { printError("feedstream bench: " + $0) } }
        if !noPeakMemory {
            let exe = CommandLine.arguments[0].contains("/") ? CommandLine.arguments[0] : "/proc/self/exe"
            let executable = URL(fileURLWithPath: exe).standardizedFileURL.path
            options.peakMemoryMethod = "each contender run once alone in a child process (its own VmHWM)"
            options.peakMemory = { id, workload in
                FeedBench.childPeakMemory(executable: executable,
                                          arguments: ["bench", "--peak-child", id, "--inflate", inflater.rawValue, workload.name])
            }
        }
        let report = try FeedBench.run(workloads, options: options)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.table, terminator: "")
        }
    }
}
