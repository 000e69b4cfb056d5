// SPDX-License-Identifier: Apache-2.0
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

    let native: NativeParser

    /// A parser with these settings (the defaults: 64 MiB of text per item, ``FeedLimits/default``,
    /// the recovery path on); see ``FeedParser/init(maxItemBytes:limits:strict:)``.
    public init(maxItemBytes: Int = 0, limits: FeedLimits = .default, strict: Bool = false) {
        native = NativeParser(backend: CFS_BACKEND_EXPAT, maxItemBytes: maxItemBytes, limits: limits, strict: strict)
    }

    /// Parses `input` with the charset its transport named (`cfs_parser_set_charset`);
    /// see ``FeedParser/parse(_:contentType:handler:)``.
    @discardableResult
    public func parse(_ input: FeedInput, contentType: String?, handler: some FeedHandler) throws -> ParseSummary {
        try native.parse(input, contentType: contentType, parser: self, handler: handler)
    }
}

@available(*, unavailable, message: "a parser is used by one thread at a time: make one per task")
extension ExpatFeedParser: Sendable {}

extension ExpatFeedParser: NativeBacked, InflaterChoosing {
    package var inflater: GzipInflater {
        get { native.inflater }
        set { native.inflater = newValue }
    }
}
