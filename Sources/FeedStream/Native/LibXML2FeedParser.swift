internal import CFeedStream

/// The libxml2 backend: libxml2's SAX2 push parser driving the same C feed state
/// machine as ``ExpatFeedParser``, behind the ``FeedParser`` protocol. On well-formed
/// input its output is byte-identical to expat's (checked by `feedstream diff`).
///
/// Never loads an external entity or DTD (`XML_PARSE_NONET`, no `XML_PARSE_NOENT`,
/// no `XML_PARSE_DTDLOAD`). Reuse one parser for many inputs; not thread-safe.
public final class LibXML2FeedParser: FeedParser {
    public static let backendName = "libxml2"

    private let native: NativeParser

    /// - Parameters:
    ///   - maxItemBytes: upper bound on the text kept per item; 0 for 64 MiB.
    ///   - limits: the limits a document must stay within (``FeedLimits``).
    public init(maxItemBytes: Int = 0, limits: FeedLimits = .default) {
        native = NativeParser(backend: CFS_BACKEND_LIBXML2, maxItemBytes: maxItemBytes, limits: limits)
        self.limits = limits
    }

    /// The limits this parser enforces.
    public let limits: FeedLimits

    @discardableResult
    public func parse(_ input: FeedInput, handler: some FeedHandler) throws -> ParseSummary {
        try native.parse(input, parser: self, handler: handler)
    }
}

/// The parser backends this build provides, by the names the command line uses.
public enum FeedBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case expat
    case libxml2
    /// The pure-Swift parser (``SwiftFeedParser``).
    case swift

    /// A new parser of this backend.
    public func makeParser(maxItemBytes: Int = 0, limits: FeedLimits = .default) -> any FeedParser {
        switch self {
        case .expat: ExpatFeedParser(maxItemBytes: maxItemBytes, limits: limits)
        case .libxml2: LibXML2FeedParser(maxItemBytes: maxItemBytes, limits: limits)
        case .swift: SwiftFeedParser(maxItemBytes: maxItemBytes, limits: limits)
        }
    }

    public var description: String { rawValue }
}
