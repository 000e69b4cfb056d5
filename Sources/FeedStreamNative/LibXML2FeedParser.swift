// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
import FeedStreamSwift
internal import CFeedStream

/// The libxml2 backend: libxml2's SAX2 push parser driving the same C feed state
/// machine as ``ExpatFeedParser``, behind the ``FeedParser`` protocol. On well-formed
/// input its output is byte-identical to expat's (checked by `feedstream diff`).
///
/// Never loads an external entity or DTD (`XML_PARSE_NONET`, no `XML_PARSE_NOENT`,
/// no `XML_PARSE_DTDLOAD`). Reuse one parser for many inputs. A parser is used by one
/// thread at a time and is deliberately not `Sendable`: make one per task or thread.
public final class LibXML2FeedParser: FeedParser {
    /// `"libxml2"`.
    public static let backendName = "libxml2"

    let native: NativeParser

    /// A parser with these settings (the defaults: 64 MiB of text per item, ``FeedLimits/default``,
    /// the recovery path on); see ``FeedParser/init(maxItemBytes:limits:strict:)``.
    public init(maxItemBytes: Int = 0, limits: FeedLimits = .default, strict: Bool = false) {
        native = NativeParser(backend: CFS_BACKEND_LIBXML2, maxItemBytes: maxItemBytes, limits: limits, strict: strict)
    }

    /// Parses `input` with the charset its transport named (`cfs_parser_set_charset`);
    /// see ``FeedParser/parse(_:contentType:handler:)``.
    @discardableResult
    public func parse(_ input: FeedInput, contentType: String?, handler: some FeedHandler) throws -> ParseSummary {
        try native.parse(input, contentType: contentType, parser: self, handler: handler)
    }
}

@available(*, unavailable, message: "a parser is used by one thread at a time: make one per task")
extension LibXML2FeedParser: Sendable {}

extension LibXML2FeedParser: NativeBacked, InflaterChoosing {
    package var inflater: GzipInflater {
        get { native.inflater }
        set { native.inflater = newValue }
    }
}
