// SPDX-License-Identifier: Apache-2.0
import FeedStream
/// One input of a batch: a file, or the process's standard input.
public enum BatchInput: Sendable, Hashable, CustomStringConvertible {
    /// A file, by path.
    case file(String)
    /// The process's standard input, named `-`.
    case standardInput
    /// A file found by walking a folder (``InputWalker``): converted as ``file(_:)``
    /// when its first bytes (after a byte order mark and white space) are gzip's, an
    /// XML `<` or a WARC version line, else skipped — counted in ``BatchSummary/skippedInputs``, not failed.
    case foundInFolder(String)

    /// The name written as `source` in every line: the path as given, or `-`.
    public var name: String {
        switch self {
        case .file(let path), .foundInFolder(let path): path
        case .standardInput: "-"
        }
    }

    /// The file's path; nil for standard input.
    public var path: String? {
        switch self {
        case .file(let path), .foundInFolder(let path): path
        case .standardInput: nil
        }
    }

    /// The input's ``name``.
    public var description: String { name }
}

/// What became of one input.
public struct BatchInputResult: Sendable {
    /// 0-based position of the input in the run's input sequence.
    public var index: Int
    /// The input.
    public var input: BatchInput
    /// Counts, and the input's first error.
    public var summary: ParseSummary
    /// Every error of the input, in order (documents that failed, and errors not tied to
    /// a document such as an unreadable or empty file), up to ``maxErrors``.
    public var errors: [FeedError]
    /// Errors past ``maxErrors``, counted but not kept.
    public var droppedErrors: Int
    /// JSON bytes written for this input.
    public var bytesOut: UInt64
    /// Documents that were well-formed but not feeds (code `not_feed`: an HTML page, …),
    /// counted whether or not their errors were kept.
    public var notFeedDocuments = 0

    /// How many errors a result keeps.
    public static let maxErrors = 10_000

    /// True when the input was found in a folder and is not XML or gzip: not converted,
    /// not failed.
    public var skipped = false

    /// For a web archive (WARC): its records, converted and skipped; nil for other inputs.
    public var warc: WARCCounts?

    /// Errors, kept or not, that lost something: a document that failed and was not
    /// recovered, bytes of the input not read (corrupt gzip, a read error, a limit), a
    /// record of a web archive that could not be read whole. A document read by the
    /// recovery path, and one that is not a feed, lose nothing.
    public var losses = 0

    /// True when every document was a well-formed feed and the input was readable.
    public var succeeded: Bool { summary.succeeded }

    /// True when nothing of the input was lost (``losses`` is 0): every document was
    /// converted, read by the recovery path, or is not a feed.
    public var convertedWhole: Bool { losses == 0 }
}

/// Totals of a batch run.
public struct BatchSummary: Sendable, Equatable {
    /// Inputs converted (to their end, whether or not they had errors).
    public var inputs = 0
    /// Inputs that lost something (``BatchInputResult/losses``).
    public var failedInputs = 0
    /// Inputs that lost nothing but had documents read by the recovery path.
    public var recoveredInputs = 0
    /// Files found in folders and skipped as neither XML nor gzip (not in ``inputs``).
    public var skippedInputs = 0
    /// Documents found in every input.
    public var documents = 0
    /// Documents that ended with an error (recovered ones not included).
    public var failedDocuments = 0
    /// Documents that failed as XML and were read by the recovery path
    /// (``ParseSummary/recoveredDocuments``).
    public var recoveredDocuments = 0
    /// Documents, among ``documents`` and ``failedDocuments``, that were well-formed
    /// but not feeds (an HTML page, …).
    public var notFeedDocuments = 0
    /// Items converted.
    public var items = 0
    /// Bytes read (compressed bytes, for gzip inputs).
    public var bytesIn: UInt64 = 0
    /// Uncompressed XML bytes parsed.
    public var bytesXML: UInt64 = 0
    /// JSON bytes handed to the output.
    public var bytesOut: UInt64 = 0
    /// Web archive records, over every WARC input.
    public var warc = WARCCounts()
    /// WARC inputs among ``inputs``.
    public var warcInputs = 0
    /// True when the run was cancelled before every input was converted. The counts are
    /// then what was written out: ``items`` and ``documents`` the item and feed lines,
    /// ``bytesIn`` the bytes read, the other counts those of the inputs whose lines were
    /// all written, in order.
    public var interrupted = false

    /// Zero totals.
    public init() {}


    mutating func add(_ r: BatchInputResult) {
        if r.skipped {
            skippedInputs += 1
            return
        }
        inputs += 1
        if !r.convertedWhole {
            failedInputs += 1
        } else if r.summary.recoveredDocuments > 0 {
            recoveredInputs += 1
        }
        documents += r.summary.documents
        failedDocuments += r.summary.failedDocuments
        recoveredDocuments += r.summary.recoveredDocuments
        notFeedDocuments += r.notFeedDocuments
        items += r.summary.items
        bytesIn += r.summary.bytesIn
        bytesXML += r.summary.bytesXML
        bytesOut += r.bytesOut
        if let w = r.warc {
            warcInputs += 1
            warc.add(w)
        }
    }
}

/// A live view of a run, for progress displays. Counts include the inputs being
/// converted, so they move during one big input too.
public struct BatchProgress: Sendable, Equatable {
    /// Inputs finished (converted or failed).
    public var inputsDone = 0
    /// Inputs finished that lost something (``BatchInputResult/losses``).
    public var inputsFailed = 0
    /// Documents so far.
    public var documents = 0
    /// Items so far.
    public var items = 0
    /// Bytes read so far, including the current position in inputs being converted.
    public var bytesIn: UInt64 = 0

    /// Nothing done yet.
    public init() {}
}

/// Told about each finished input. Every method has a no-op default.
///
/// Calls come from the converter's worker threads, one at a time (never concurrently),
/// in input order — in completion order when the run is unordered.
public protocol BatchObserver: AnyObject, Sendable {
    /// An input is finished: converted to its end, with or without errors.
    func didFinishInput(_ result: BatchInputResult)
}

extension BatchObserver {
    /// Does nothing.
    public func didFinishInput(_ result: BatchInputResult) {}
}
