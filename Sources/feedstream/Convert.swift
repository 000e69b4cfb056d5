// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation

struct Convert: TakesPaths {
    static let configuration = CommandConfiguration(
        abstract: "Convert feeds to JSON Lines: one line per item and one per feed document.",
        discussion: """
            INPUT is a file, a folder (searched recursively; files in byte order of their \
            paths, hidden ones skipped), or - for standard input. A file holds RSS (0.9x, \
            1.0 as RDF, 2.0), Atom (1.0, 0.3) or JSON Feed (1.0, 1.1) documents, one or \
            many concatenated (a dump), or is a web archive (WARC 1.0/1.1, its response and \
            resource records read); each plain or gzip (one member or many), detected by \
            content, never by name. Inputs are converted on -j threads; the output keeps the \
            input order unless --unordered.

            Errors go to standard error, one line per failed document or file (and, with \
            --errors, one JSON record each); the other inputs go on. A document that is not \
            well-formed XML is read again by the recovery path (its lines are marked \
            "recovered"), unless --strict. A progress bar is shown when standard error is a \
            terminal, unless the output goes to a terminal too.

            Exit status: 0 nothing lost (every document converted, recovered ones \
            included; documents that are not feeds and web-archive records that hold no \
            feed are counted, not lost), 1 something lost: a document that failed and was \
            not recovered, a record or bytes of an input not read (0 with \
            --data-errors-ok), 2 usage or output error (an unknown option or bad value \
            included), 130 (143) interrupted by SIGINT (SIGTERM): the output file is then \
            not written.

            EXAMPLES:
              feedstream convert feed.xml > items.jsonl
              feedstream convert -j 2 archive/ -o archive.jsonl.gz --stats stats.json
              zcat feeds/*.gz | feedstream convert - > items.jsonl
              find /data -name '*.gz' | feedstream convert --files-from - -o items.jsonl
            """)

    enum Per: String, ExpressibleByArgument, CaseIterable {
        case item, feed
    }

    @Argument(help: "Files, folders, or - for standard input.")
    var inputs: [String] = []

    @Option(name: .long, help: ArgumentHelp("Also convert the paths listed in LIST, one per line (- for standard input).",
                                          valueName: "LIST"))
    var filesFrom: String?

    @Option(name: .long, help: ArgumentHelp("In folders, convert only files matching this glob (fnmatch(3), on the path relative to the folder or on the name; repeatable).",
                                          valueName: "GLOB"))
    var include: [String] = []

    @Option(name: .long, help: ArgumentHelp("In folders, skip files matching this glob (repeatable).", valueName: "GLOB"))
    var exclude: [String] = []

    @Option(name: .long, help: ArgumentHelp("Convert only shard K of N: the inputs whose path hashes to K (1-based), so N processes or machines split a list with no coordination.",
                                          valueName: "K/N"))
    var shard: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to FILE instead of standard output: through a temporary file renamed into place when the run completes; gzip-compressed when FILE ends in .gz, zstd-compressed when it ends in .zst (on as many threads as -j).",
                                                  valueName: "FILE"))
    var output: String?

    @Option(name: .customLong("compress-level"), parsing: .unconditional, help: ArgumentHelp("The compression level of -o FILE.gz (1 to 9, default \(GzipOutput.defaultLevel)) or -o FILE.zst (1 to \(ZstdOutput.levels.upperBound), default \(ZstdOutput.defaultLevel)); the output is the same for any -j.", valueName: "N"))
    var compressLevel: Int?

    @Option(help: "One line per item (and one per feed document), or one line per feed document holding its items.")
    var per: Per = .item

    // .unconditional: `-j -1` is a bad number (said so), not a missing value.
    @Option(name: [.customShort("j"), .long], parsing: .unconditional, help: ArgumentHelp("Convert N inputs at a time, 1 to \(Convert.maxJobs) (default: the number of cores; more than four per core run as four per core); a big dump is parsed in parts by the workers left idle, with the same output.", valueName: "N"))
    var jobs: Int?

    /// The most `-j` takes.
    static let maxJobs = 1024

    /// The workers `-j N` runs: N, but no more than four per core (or four): more threads
    /// than that only hold memory, and the output does not depend on their number.
    static func workers(for jobs: Int) -> Int {
        min(jobs, 4 * max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    @Flag(help: "Write each input's lines as they are ready, not in input order (lines of big inputs may interleave; each line stays whole).")
    var unordered = false

    @Flag(name: .customLong("no-pipeline"), help: "One thread per input: do not read and inflate big gzip inputs on a second thread, nor split a big dump or web archive into parts for the workers left idle.")
    var noPipeline = false

    @Option(name: .long, help: ArgumentHelp("Also write each error as a JSON record to FILE.", valueName: "FILE"))
    var errors: String?

    @Flag(name: .customLong("data-errors-ok"), help: "Exit 0, not 1, when something was lost (documents or inputs that failed: still reported on standard error and in --errors); usage and output errors still exit 2.")
    var dataErrorsOK = false

    @Option(name: .long, help: ArgumentHelp("Write the run's totals as JSON to FILE.", valueName: "FILE"))
    var stats: String?

    @Option(help: "The parser: swift (the pure-Swift parser), expat or libxml2 (under the C core); the lines are the same (docs/SCHEMA.md, \"Backends\").")
    var backend: FeedBackend = .default

    @Flag(help: "Do not re-read documents that fail as XML: keep only the items before the failure, and count the document as failed (exit 1). The recovery path is on by default (docs/SCHEMA.md, \"Recovered documents\").")
    var strict = false

    @Flag(name: .customLong("content-as-written"), help: "Write HTML and XHTML content as written: relative URIs in it (href, src, ...) are not resolved against its xml:base (they are by default; docs/SCHEMA.md, \"Relative URIs\").")
    var contentAsWritten = false

    @Option(name: .customLong("base-url"), help: ArgumentHelp("The URL the inputs were read from, an absolute http, https or ftp URL: relative URIs (links, content, ...) are resolved against it, and the documents' xml:base against it (docs/SCHEMA.md, \"URLs\").", valueName: "URL"))
    var baseURL: String?

    @Option(name: .customLong("content-type"), help: ArgumentHelp("The HTTP Content-Type the inputs were served with, e.g. 'application/rss+xml; charset=windows-1252': its charset is their documents' charset unless a byte order mark says otherwise, over their XML declaration (RFC 7303; docs/SCHEMA.md, \"Backends\"). Records of a web archive carry their own.", valueName: "VALUE"))
    var contentType: String?

    @OptionGroup(title: "Limits (a document that passes one fails with a \"limit\" error; the run goes on)")
    var limits: LimitOptions

    @OptionGroup
    var inflater: InflateOption

    @Flag(name: .shortAndLong, help: "No progress bar and no summary.")
    var quiet = false

    mutating func run() throws {
        let limits = try self.limits.limits(for: "convert")
        let inflater = try self.inflater.chosen(for: "convert")
        let asked = self.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let shard = try self.shard.map { text in
            guard let s = Shard(text) else { throw usage("--shard takes K/N with 1 <= K <= N, e.g. 3/8") }
            return s
        }
        guard (1...Self.maxJobs).contains(asked) else { throw usage("-j takes 1 to \(Self.maxJobs)") }
        if let baseURL, !FeedURL.isSafeBase(Array(baseURL.utf8)) {
            throw usage("--base-url takes an absolute http, https or ftp URL with a host, not \(baseURL)")
        }
        let jobs = Self.workers(for: asked)
        if let compressLevel {
            guard let format = output.flatMap(CompressedFormat.init(path:)) else {
                throw usage("--compress-level needs -o FILE.gz or -o FILE.zst")
            }
            guard format.levels.contains(compressLevel) else {
                throw usage("--compress-level takes \(format.levels.lowerBound) to \(format.levels.upperBound) for \(format) output")
            }
        }
        guard !inputs.isEmpty || filesFrom != nil else {
            throw usage("give inputs, or --files-from LIST\n"
                        + "Usage: \(FeedStreamCommand.usageString(for: Convert.self))\n"
                        + "  See 'feedstream convert --help' for examples.")
        }
        let stdinUses = inputs.filter { $0 == "-" }.count + (filesFrom == "-" ? 1 : 0)
        guard stdinUses <= 1 else { throw usage("standard input (-) can be read only once") }
        // A missing input is not checked for here: like a missing path of --files-from,
        // it is a failed input (reported, in --errors too), and the others go on.
        let list: LineReader?
        do {
            // The output may not be written inside a folder being converted; the reports may.
            // The list of --files-from is an input too; each path in it is checked as it is
            // read (below), and standard input when it is one.
            let outputs = [("-o", output ?? "-"), ("--errors", errors), ("--stats", stats)].compactMap { o, p in p.map { (o, $0) } }
            try InputList.checkOutputsApart(outputs)
            let roots = inputs + (filesFrom.map { $0 == "-" ? [] : [$0] } ?? [])
            for (option, path) in outputs {
                try InputList.checkOutput(path, option: option, roots: roots, mayBeInInputFolder: option != "-o")
                if stdinUses > 0, path != "-", let out = InputList.regularFile(path),
                   InputList.regularFile("-", descriptor: 0) == out {
                    throw InputList.Error(description: "feedstream convert: \(option) \(path) is the standard input: "
                                          + "refusing to overwrite an input")
                }
            }
            list = try filesFrom.map { try LineReader(path: $0) }
        } catch let error as InputList.Error {
            printError(error.description)
            throw ExitStatus.usageOrOutput
        }

        let backend = self.backend
        let strict = self.strict
        var options = BatchConverter.Options(
            jobs: jobs, ordered: !unordered, layout: per == .item ? .items : .documents, pipeline: !noPipeline,
            makeParser: { backend.makeParser(limits: limits, strict: strict) })
        options.resolvesRelativeURIsInContent = !contentAsWritten
        options.documentLocation = baseURL
        options.contentType = contentType
        options.inflater = inflater
        let converter = BatchConverter(options: options)
        // Before any temporary file exists, so none is left behind by a signal.
        Interrupt.shared.install { converter.cancel() }

        let sink: OutputFile
        let errorsFile: OutputFile?
        do {
            // The compressors run beside the workers, on as many threads as they (at most
            // one per core): the bytes are the same for any number.
            let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
            sink = try OutputFile(path: output, compression: .init(level: compressLevel, threads: min(jobs, cores)))
        } catch {
            printError(oneLine("feedstream: cannot write \(output ?? "-"): \(error)"))
            throw ExitStatus.usageOrOutput
        }
        do {
            errorsFile = try errors.map { try OutputFile(path: $0) }
        } catch {
            sink.abandon()
            printError(oneLine("feedstream: cannot write \(errors ?? ""): \(error)"))
            throw ExitStatus.usageOrOutput
        }

        let filter = PathFilter(include: include, exclude: exclude)
        let walker = InputWalker(Roots(arguments: inputs, list: list), filter: filter)
        // An input of the list that is an output file as it was before the run: the run
        // stops and is refused, its outputs abandoned (nothing is replaced).
        let existingOutputs = Dictionary([("-o", output), ("--errors", errors), ("--stats", stats)].compactMap { o, p in
            p.flatMap { $0 == "-" ? nil : InputList.regularFile($0) }.map { ($0, (o, p!)) }
        }, uniquingKeysWith: { a, _ in a })
        let clash = OutputClash()
        let terminal = Terminal()
        let reporter = RunReporter(terminal: terminal, errorsFile: errorsFile)
        let bar = ProgressBar.wanted(quiet: quiet, toStandardOutput: output == nil || output == "-")
            ? ProgressBar(converter: converter, terminal: terminal,
                          census: InputCensus(roots: inputs, listPath: filesFrom, filter: filter, shard: shard))
            : nil
        let start = ContinuousClock.now

        let summary: BatchSummary
        do {
            let inputs = walker.lazy.filter { input in
                if list != nil, !existingOutputs.isEmpty, case .file(let path) = input,
                   let id = InputList.regularFile(path), let (option, name) = existingOutputs[id] {
                    clash.found = "feedstream convert: \(option) \(name) is the input \(path) (--files-from): "
                        + "refusing to overwrite an input"
                    converter.cancel()
                    return false
                }
                return shard?.contains(input) ?? true
            }
            summary = try converter.run(inputs, to: sink.output, observer: reporter)
            if let error = reporter.writeError { throw error }
        } catch {
            bar?.stop()
            sink.abandon()
            errorsFile?.abandon()
            throw outputFailed(error)
        }
        bar?.stop()
        let elapsed = seconds(since: start)
        if let refusal = clash.found {
            sink.abandon()
            errorsFile?.abandon()
            printError(refusal)
            throw ExitStatus.usageOrOutput
        }

        // A signal from here on, until the process exits, ends it with 128 + N; one
        // before the outputs are in place leaves none of them.
        var interrupted = summary.interrupted || Interrupt.shared.isPending
        if interrupted {
            sink.abandon()
            errorsFile?.abandon()
        } else {
            do {
                try sink.finish()
                try errorsFile?.output.flush()
                try errorsFile?.finish()
                interrupted = !(try OutputFile.moveIntoPlace([sink] + (errorsFile.map { [$0] } ?? [])))
            } catch {
                sink.abandon()
                errorsFile?.abandon()
                throw outputFailed(error)
            }
        }

        let report = RunReport(summary: summary, bytesOut: sink.compressedBytes ?? summary.bytesOut, seconds: elapsed,
                               jobs: jobs, ordered: !unordered, per: per.rawValue, shard: shard)
        if let stats {
            do {
                let file = try OutputFile(path: stats)
                var json = report.json
                try json.withUTF8 { try file.output.write(UnsafeRawBufferPointer($0)) }
                try file.commit()
            } catch {
                printError(oneLine("feedstream: cannot write \(stats): \(error)"))
                throw ExitStatus.usageOrOutput
            }
        }
        if !quiet { terminal.line(report.line) }
        if let failure = list?.failure {
            printError(oneLine("feedstream: \(filesFrom ?? "-"): \(failure)"))
            throw ExitStatus.usageOrOutput
        }
        if interrupted || Interrupt.shared.isPending {
            let sig = Interrupt.shared.received
            let written = !summary.interrupted && !interrupted
            printError("feedstream: interrupted; " + (output == nil || output == "-"
                ? "the output ends at a line boundary"
                : written ? "\(output!) was written before the signal" : "\(output!) not written"))
            throw ExitCode(128 + (sig == 0 ? SIGINT : sig))
        }
        if summary.failedInputs > 0 && !dataErrorsOK { throw ExitStatus.inputsFailed }
    }

    /// A write that failed (the outputs already abandoned): `feedstream: FILE: write
    /// failed: REASON`, exit 2; a reader that went away (EPIPE: `| head`) ends the run
    /// quietly, as SIGPIPE does (141).
    private func outputFailed(_ error: any Error) -> ExitCode {
        if let failure = error as? OutputFile.Failure {
            if failure.errno == EPIPE { return ExitCode(128 + SIGPIPE) }
            printError(oneLine("feedstream: \(failure)"))
        } else {
            printError("feedstream: output error: \(error)")
        }
        return ExitStatus.usageOrOutput
    }

    private func usage(_ message: String) -> ExitCode {
        printError("feedstream convert: " + message)
        return ExitStatus.usageOrOutput
    }
}

/// An input found to be an output as the list is read (set on the walking thread, read
/// once the run has returned).
private final class OutputClash: @unchecked Sendable {
    var found: String?
}
