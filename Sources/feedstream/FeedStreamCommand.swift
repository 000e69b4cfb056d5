// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CFeedStream
import FeedStream
import FeedStreamTools
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct FeedStreamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedstream",
        abstract: "Convert RSS, Atom, RDF and JSON Feed documents to JSON Lines: plain or gzip, one or many per file (dumps), or web archives (WARC).",
        version: CFS_VERSION_STRING,
        subcommands: [Convert.self, Schema.self, Diff.self, Bench.self],
        defaultSubcommand: Convert.self)

    /// ArgumentParser's entry point, with two changes: long runs of paths are kept out
    /// of its parsing (``ArgumentRuns``), and its usage errors (an unknown option, a bad
    /// value), which it ends with 64 (EX_USAGE), end with 2, as every other usage error
    /// of the command line (docs/CLI.md, `--help`).
    static func main() {
        do {
            var arguments = Array(CommandLine.arguments.dropFirst())
            var tails: [[String]] = []
            // Not for a subcommand without paths (its usage error names the arguments).
            let named = configuration.subcommands.first { $0._commandName == arguments.first }
            if named.map({ $0 is any TakesPaths.Type }) ?? true {
                (arguments, tails) = ArgumentRuns.compact(arguments)
            }
            var command = try parseAsRoot(arguments)
            if var paths = command as? any TakesPaths {
                paths.inputs = ArgumentRuns.expand(paths.inputs, tails)
                command = paths
            }
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                let message = fullMessage(for: error)
                if !message.isEmpty { printError(message) }
                exit(withError: ExitStatus.usageOrOutput)
            }
            exit(withError: error)
        }
    }
}

/// Exit statuses: 0 nothing lost, 1 something lost (a document, a record, bytes of an
/// input), 2 usage or output error.
enum ExitStatus {
    static let inputsFailed = ExitCode(1)
    static let usageOrOutput = ExitCode(2)
}

extension FeedBackend: ExpressibleByArgument {}

func printError(_ message: String) {
    var line = message
    line.append("\n")
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
