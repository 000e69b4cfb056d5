import ArgumentParser
import FeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert feeds to JSON Lines: one line per item and one per feed document.",
        discussion: """
            INPUT is a file (plain XML or gzip, detected by content; it may hold several \
            concatenated documents), a folder (searched recursively, files in sorted order), \
            or - for standard input. Errors go to standard error, one line per failed \
            document or file; the other inputs go on.

            Exit status: 0 all inputs converted, 1 some inputs failed, 2 usage or output error.
            """)

    @Argument(help: "Files, folders, or - for standard input.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (written to a temporary file and renamed into place on success).")
    var output: String?

    @Option(help: "Parser backend: \(FeedBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: FeedBackend = .expat

    @Flag(name: .shortAndLong, help: "Print no summary.")
    var quiet = false

    mutating func run() throws {
        let files: [String]
        do {
            files = try InputList.expand(inputs)
        } catch let error as InputList.Error {
            printError(error.description)
            throw ExitStatus.usageOrOutput
        }

        let sink: OutputFile
        do {
            sink = try OutputFile(path: output)
        } catch {
            printError("cannot write \(output ?? "-"): \(error)")
            throw ExitStatus.usageOrOutput
        }

        let parser = backend.makeParser()
        let writer = JSONLinesWriter(output: sink.output)
        let report = ErrorReporter()
        let handler = FeedHandlerGroup(writer, report)
        var totals = ParseSummary()
        var failedInputs = 0
        let clock = ContinuousClock()
        let start = clock.now

        do {
            for file in files {
                writer.source = file
                report.source = file
                let input: FeedInput = file == "-" ? .standardInput : .file(path: file)
                let summary = try parser.parse(input, handler: handler)
                totals.bytesIn += summary.bytesIn
                totals.bytesXML += summary.bytesXML
                totals.documents += summary.documents
                totals.items += summary.items
                totals.failedDocuments += summary.failedDocuments
                if !summary.succeeded { failedInputs += 1 }
            }
            try writer.flush()
            try sink.commit()
        } catch {
            sink.abandon()
            printError("output error: \(error)")
            throw ExitStatus.usageOrOutput
        }

        if !quiet {
            let seconds = Double((clock.now - start).components.attoseconds) / 1e18
                + Double((clock.now - start).components.seconds)
            let mb = Double(totals.bytesXML) / 1e6
            printError(
                "feedstream: \(files.count - failedInputs)/\(files.count) inputs ok, "
                    + "\(totals.documents) documents (\(totals.failedDocuments) failed), \(totals.items) items, "
                    + "\(format(mb)) MB XML in \(format(seconds)) s (\(format(seconds > 0 ? mb / seconds : 0)) MB/s)")
        }
        if failedInputs > 0 { throw ExitStatus.inputsFailed }
    }
}

private func format(_ v: Double) -> String {
    let r = (v * 10).rounded() / 10
    return String(r)
}

/// Prints one line per failed document or input to standard error:
/// `feedstream: PATH: document N, line L, column C: reason`.
final class ErrorReporter: FeedHandler {
    var source = ""
    func didFail(_ error: FeedError) {
        printError("feedstream: \(source): \(error)")
    }
}
