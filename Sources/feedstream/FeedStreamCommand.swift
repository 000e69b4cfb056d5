import ArgumentParser
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
        abstract: "Convert RSS and Atom feeds (plain or gzip, single or concatenated) to JSON Lines.",
        version: "0.1.0",
        subcommands: [Convert.self, Diff.self, Bench.self],
        defaultSubcommand: Convert.self)
}

/// Exit statuses: 0 all inputs converted, 1 some inputs failed, 2 usage or output error.
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
