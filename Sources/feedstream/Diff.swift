// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FeedStream
import FeedStreamBatch
import FeedStreamTools
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `feedstream diff`: converts every input with each backend and reports every record
/// that differs, member by member (the check behind the test suite's DifferentialTests).
struct Diff: TakesPaths {
    static let configuration = CommandConfiguration(
        abstract: "Compare backends: report every record whose JSON differs between them.",
        discussion: """
            Each input is read as convert reads it (files in place, - through the same \
            stdin stage) and every line is compared as bytes: on a well-formed document \
            every line must be byte-identical (text in another Unicode normalization form \
            differs); on a document a backend rejects, every backend must reject it, and \
            they must agree on every item completed before the first error \
            (docs/SCHEMA.md, "Backends").

            Exit status: 0 no difference, 1 differences found, 2 usage error.

            EXAMPLES:
              feedstream diff corpus/feeds corpus/encodings
              feedstream diff --backends expat,swift --limit 10 archive/
            """)

    @Option(help: "Comma-separated backends to compare (the first is the reference).")
    var backends: String = FeedBackend.allCases.map(\.rawValue).joined(separator: ",")

    @OptionGroup(title: "Limits (as for convert)")
    var limits: LimitOptions

    @OptionGroup
    var inflater: InflateOption

    @Option(parsing: .unconditional, help: "Print at most this many differences, 0 to \(Diff.maxLimit).")
    var limit: Int = 50

    /// The most `--limit` takes.
    static let maxLimit = 1_000_000

    @Argument(help: "Files, folders, or - for standard input.")
    var inputs: [String]

    mutating func run() throws {
        let inflater = try self.inflater.chosen(for: "diff")
        guard (0...Self.maxLimit).contains(limit) else {
            printError("feedstream diff: --limit takes 0 to \(Self.maxLimit)")
            throw ExitStatus.usageOrOutput
        }
        let names = backends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let chosen = names.compactMap { FeedBackend(rawValue: $0) }
        guard chosen.count == names.count, chosen.count >= 2 else {
            printError("feedstream diff: --backends needs two or more of: "
                       + FeedBackend.allCases.map(\.rawValue).joined(separator: ", "))
            throw ExitStatus.usageOrOutput
        }
        do {
            try InputList.check(inputs)
        } catch let error as InputList.Error {
            printError(error.description)
            throw ExitStatus.usageOrOutput
        }
        // Each input is read as convert reads it (and with convert's default -j); files
        // found in folders that are neither XML nor gzip are skipped, as convert skips them.
        let diff = BackendDiff(backends: chosen, limits: try limits.limits(for: "diff"),
                               jobs: ProcessInfo.processInfo.activeProcessorCount, inflater: inflater)
        var report = BackendDiff.Report()
        var skipped = 0
        for input in InputWalker(inputs) {
            if case .foundInFolder(let path) = input {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                let xml = fd >= 0 && BatchConverter.looksLikeXMLOrGzip(fd)
                if fd >= 0 { close(fd) }
                if !xml {
                    skipped += 1
                    continue
                }
            }
            do {
                try diff.compare(input, into: &report)
            } catch let error as BackendDiff.CopyError {
                printError("feedstream diff: \(error)")
                throw ExitStatus.usageOrOutput
            }
        }
        for d in report.differences.prefix(limit) { print(d) }
        if report.differences.count > limit { print("… \(report.differences.count - limit) more") }
        let r = report
        print("\(chosen.map(\.rawValue).joined(separator: " vs ")): \(r.inputs) \(plural(r.inputs, "input")), "
              + "\(r.documents) \(plural(r.documents, "document")), \(r.records) \(plural(r.records, "record")) compared "
              + "(\(r.rejectedDocuments) \(plural(r.rejectedDocuments, "document")) rejected), "
              + "\(r.differences.count) \(plural(r.differences.count, "difference"))"
              + (skipped > 0 ? " (skipped \(skipped) non-XML \(plural(skipped, "file")))" : ""))
        if !report.differences.isEmpty { throw ExitStatus.inputsFailed }
    }
}
