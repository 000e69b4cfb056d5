// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FeedStream
import FeedStreamTools

/// The ``FeedLimits`` flags, shared by the commands that parse (`convert`, `diff`).
/// 0 means no limit. Values are taken as given (`.unconditional`), so `--max-depth -5`
/// is said to be negative, not a missing value.
struct LimitOptions: ParsableArguments {
    @Option(name: .customLong("max-depth"), parsing: .unconditional,
            help: ArgumentHelp("Fail a document whose elements nest deeper than N (0: no limit).", valueName: "N"))
    var maxDepth: Int = FeedLimits.defaultMaxDepth

    @Option(name: .customLong("max-field-bytes"), parsing: .unconditional,
            help: ArgumentHelp("Fail a document when the text of one kept field (a title, a description, ...) passes N bytes (0: no limit).",
                               valueName: "N"))
    var maxFieldBytes: Int = FeedLimits.defaultMaxFieldBytes

    @Option(name: .customLong("max-attributes"), parsing: .unconditional,
            help: ArgumentHelp("Fail a document with an element of more than N attributes (0: no limit).", valueName: "N"))
    var maxAttributes: Int = FeedLimits.defaultMaxAttributes

    @Option(name: .customLong("max-items"), parsing: .unconditional,
            help: ArgumentHelp("Fail a document at its item number N + 1 (0: no limit).", valueName: "N"))
    var maxItems: Int = FeedLimits.defaultMaxItems

    @Option(name: .customLong("max-document-bytes"), parsing: .unconditional,
            help: ArgumentHelp("Fail a document past N uncompressed bytes (0: no limit).", valueName: "N"))
    var maxDocumentBytes: Int = FeedLimits.defaultMaxDocumentBytes

    @Option(name: .customLong("max-ratio"), parsing: .unconditional,
            help: ArgumentHelp("Stop a gzip input that inflates more than R times its compressed size, past 16 MiB (0: no limit).",
                               valueName: "R"))
    var maxRatio: Int = FeedLimits.defaultMaxRatio

    @Option(name: .customLong("max-markup-bytes"), parsing: .unconditional,
            help: ArgumentHelp("Fail a document holding one tag, comment, processing instruction, CDATA section or DOCTYPE of more than N bytes (0: no limit; libxml2 stops at 10,000,000 whatever N).",
                               valueName: "N"))
    var maxMarkupBytes: Int = FeedLimits.defaultMaxMarkupBytes

    /// The limits, or a usage error (exit status 2, as the commands' other checks).
    func limits(for command: String) throws -> FeedLimits {
        for (flag, value) in [("--max-depth", maxDepth), ("--max-field-bytes", maxFieldBytes),
                              ("--max-attributes", maxAttributes), ("--max-items", maxItems),
                              ("--max-document-bytes", maxDocumentBytes), ("--max-ratio", maxRatio),
                              ("--max-markup-bytes", maxMarkupBytes)] where value < 0 {
            printError("feedstream \(command): \(flag) takes 0 (no limit) or more")
            throw ExitStatus.usageOrOutput
        }
        return limits
    }

    var limits: FeedLimits {
        FeedLimits(maxDepth: maxDepth, maxFieldBytes: maxFieldBytes, maxAttributes: maxAttributes, maxItems: maxItems,
                   maxDocumentBytes: maxDocumentBytes, maxRatio: maxRatio, maxMarkupBytes: maxMarkupBytes)
    }
}
