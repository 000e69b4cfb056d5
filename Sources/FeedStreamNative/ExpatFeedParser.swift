import FeedStreamCore
import FeedStreamSwift
internal import CFeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The expat backend: the C core (zlib inflate straight into expat's buffer, the C
/// feed state machine) behind the ``FeedParser`` protocol.
///
/// Reuse one parser for many inputs: it keeps its buffers. A parser is used by one
/// thread at a time and is deliberately not `Sendable`: make one per task or thread.
public final class ExpatFeedParser: FeedParser {
    /// `"expat"`.
    public static let backendName = "expat"

    private let native: NativeParser

    /// - Parameters:
    ///   - maxItemBytes: upper bound on the text kept per item (text past it is dropped
    ///     and the item marked truncated); 0 for the default, 64 MiB.
    ///   - limits: the limits a document must stay within (``FeedLimits``).
    ///   - strict: true to report a document that fails as XML with the items before the
    ///     failure only; false (the default) to re-read it by the recovery path
    ///     (docs/SCHEMA.md, "Recovered documents").
    public init(maxItemBytes: Int = 0, limits: FeedLimits = .default, strict: Bool = false) {
        native = NativeParser(backend: CFS_BACKEND_EXPAT, maxItemBytes: maxItemBytes, limits: limits, strict: strict)
        self.limits = limits
        self.strict = strict
    }

    /// The limits this parser enforces.
    package let limits: FeedLimits
    /// True when documents that fail as XML are not re-read by the recovery path.
    package let strict: Bool

    /// Parses `input` with the charset its transport named (`cfs_parser_set_charset`);
    /// see ``FeedParser/parse(_:contentType:handler:)``.
    @discardableResult
    public func parse(_ input: FeedInput, contentType: String?, handler: some FeedHandler) throws -> ParseSummary {
        try native.parse(input, contentType: contentType, parser: self, handler: handler)
    }
}

@available(*, unavailable, message: "a parser is used by one thread at a time: make one per task")
extension ExpatFeedParser: Sendable {}

extension ExpatFeedParser: DocumentStateReporting {
    package var isInDocument: Bool? { native.isInDocument }
    package var lastDocumentOffset: UInt64? { native.lastDocumentOffset }
    package var rereadEnd: UInt64 { native.rereadEnd }
    package func settle() { native.settle() }
}
