// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// What every parser backend provides: turn an input (plain XML or gzip, one feed
/// document or many concatenated) into a stream of events delivered to a handler.
///
/// Backends are interchangeable: for the same input they deliver the same events with
/// the same values (see `docs/SCHEMA.md`). Code that consumes feeds should depend on
/// this protocol, never on a concrete backend.
///
/// A parser keeps its buffers between calls, so reuse one for many inputs. A parser is
/// a single-thread object and none of the backends is `Sendable` (their `Sendable`
/// conformance is explicitly unavailable): make one per thread or task. Parsers share
/// no state, so any number of them may run at once on different threads. A parser parses
/// one input at a time: a handler must not call `parse` on the parser that is calling
/// it (its state is the outer input's); parse a nested input with a second parser.
/// The parser *type* is shareable (`SendableMetatype`): generic code can make a parser
/// of type `P` on another thread.
///
/// ```swift
/// let parser = SwiftFeedParser()   // or ExpatFeedParser(), LibXML2FeedParser() (import FeedStream)
/// let collector = FeedCollector()
/// let summary = try parser.parse(.file(path: "dump.xml.gz"), handler: collector)
/// print(summary.items, collector.documents.first?.feed.title ?? "")
/// ```
public protocol FeedParser: AnyObject, SendableMetatype {
    /// The backend's name as the command line spells it (`expat`, ...).
    static var backendName: String { get }

    /// A parser with these settings, so generic code over a parser type (`P.Type`, for
    /// static dispatch) can make one.
    ///
    /// - Parameters:
    ///   - maxItemBytes: upper bound on the text kept per item (text past it is dropped
    ///     and the item marked truncated); 0 for the default, 64 MiB.
    ///   - limits: the limits a document must stay within (``FeedLimits``).
    ///   - strict: true to report a document that fails as XML with the items before the
    ///     failure only; false to re-read it by the recovery path (docs/SCHEMA.md,
    ///     "Recovered documents").
    init(maxItemBytes: Int, limits: FeedLimits, strict: Bool)

    /// Parses `input` that came with a media type from its transport: `contentType` is
    /// the HTTP `Content-Type` value as received (`application/rss+xml; charset=ISO-8859-1`),
    /// or nil. Its `charset` parameter is the charset of every document of the input,
    /// in RFC 7303's order: a byte order mark (or UTF-16/UTF-32 found by a document's
    /// first bytes) first, then the `charset`, then the XML declaration's `encoding`,
    /// then UTF-8. A charset we do not read, or a wide one for a document that is not,
    /// is ignored; JSON Feed is UTF-8 whatever the header says. The feed's `encoding`
    /// member names the charset used. Otherwise as ``parse(_:handler:)``.
    @discardableResult
    func parse(_ input: FeedInput, contentType: String?, handler: some FeedHandler) throws -> ParseSummary
}

extension FeedParser {
    /// A parser with the default settings.
    package static func make() -> Self { Self(maxItemBytes: 0, limits: .default, strict: false) }

    /// Parses `input` to its end, delivering every event to `handler`.
    ///
    /// Problems with the input (ill-formed XML, corrupt gzip, a file that is not a feed,
    /// an unreadable file) are not thrown: they reach ``FeedHandler/parser(_:didFail:)`` with
    /// their position, every item parsed before them has already been delivered, and
    /// parsing goes on with the next document of the stream where that is possible.
    ///
    /// - Returns: counts for the whole input, and its first error, if any.
    /// - Throws: only what `handler` threw (parsing stops at once), or
    ///   ``FeedError/Code/outOfMemory``.
    @discardableResult
    public func parse(_ input: FeedInput, handler: some FeedHandler) throws -> ParseSummary {
        try parse(input, contentType: nil, handler: handler)
    }
}

/// Where the bytes come from. Plain XML or gzip is decided by content, not by name.
public enum FeedInput: Sendable, Equatable {
    /// A file path. `"-"` is not special here; use ``standardInput``.
    case file(path: String)
    /// An open file descriptor, read to its end and not closed.
    case fileDescriptor(Int32)
    /// Bytes in memory.
    case bytes([UInt8])
    /// Bytes pulled chunk by chunk (from another thread, a decompressor, a socket).
    case chunks(FeedChunks)

    /// The process's standard input.
    public static var standardInput: FeedInput { .fileDescriptor(0) }
}

/// Counts for one parsed input.
public struct ParseSummary: Sendable, Equatable {
    /// Bytes read (compressed bytes, for gzip input).
    public var bytesIn: UInt64 = 0
    /// Uncompressed XML bytes parsed.
    public var bytesXML: UInt64 = 0
    /// Documents found in the stream.
    public var documents: Int = 0
    /// Items delivered.
    public var items: Int = 0
    /// Documents that ended with an error (recovered ones not included).
    public var failedDocuments: Int = 0
    /// Documents that failed as XML and were read by the recovery path (their error is
    /// marked ``FeedError/recovered``); not counted in ``failedDocuments``.
    public var recoveredDocuments: Int = 0
    /// The first error of the input, if any.
    public var firstError: FeedError?

    /// Zero counts, no error.
    package init() {}

    /// True when every document was a well-formed feed and the input was readable.
    public var succeeded: Bool { firstError == nil }
}

/// Receives a parser's events: the delegate of a streaming parse.
///
/// For each document of the input the events arrive in this order:
/// ``parser(_:didStartDocument:)``, ``parser(_:didParseItem:)`` for each item,
/// ``parser(_:didParseFeedInfo:)`` (the complete feed-level fields, also for a document
/// that failed), then ``parser(_:didFinishDocument:)`` or ``parser(_:didFail:)``.
/// Errors not tied to a document (an empty or unreadable input) arrive as
/// ``parser(_:didFail:)`` alone.
///
/// Every callback names the parser that sends it first, as `XMLParserDelegate` does, so
/// one handler can serve several parsers and tell them apart (`parser === expat`) or
/// ask the sender for its backend (`type(of: parser).backendName`). Passing the parser
/// costs nothing: it is a class reference, passed without retaining or boxing.
///
/// Every method has a no-op default; implement the ones you need. The views passed in
/// borrow the parser's memory and are valid only during the call: copy what you keep
/// (``FeedItem/init(_:)`` materializes a view into plain values). To deliver the
/// events to several handlers, wrap them in a ``FeedHandlerGroup``.
///
/// Throwing from any method stops the parse; ``FeedParser/parse(_:handler:)``
/// rethrows the error once the parser has stopped.
///
/// Handlers are called on the thread that called `parse`, one event at a time; a
/// handler used by one parse at a time needs no locking.
///
/// ```swift
/// final class Titles: FeedHandler {
///     var titles: [String] = []
///     func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) {
///         titles.append(item.title.value.string ?? "")
///     }
/// }
/// ```
public protocol FeedHandler: AnyObject {
    /// A document begins. `document` is its 1-based number in the input.
    func parser(_ parser: any FeedParser, didStartDocument document: Int) throws
    /// An item of the current document is complete. `item` is valid during the call only.
    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws
    /// The feed-level fields of the current document, complete; sent once per document,
    /// after its last item and before it finishes or fails. Valid during the call only.
    func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws
    /// Document number `document` ended well-formed.
    func parser(_ parser: any FeedParser, didFinishDocument document: Int) throws
    /// A document (``FeedError/document`` > 0) or the input as a whole (`document` 0)
    /// failed. Parsing goes on with the next document where the input allows it.
    func parser(_ parser: any FeedParser, didFail error: FeedError) throws
}

extension FeedHandler {
    /// Does nothing.
    public func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {}
    /// Does nothing.
    public func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {}
    /// Does nothing.
    public func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws {}
    /// Does nothing.
    public func parser(_ parser: any FeedParser, didFinishDocument document: Int) throws {}
    /// Does nothing.
    public func parser(_ parser: any FeedParser, didFail error: FeedError) throws {}
}

extension FeedParser {
    /// Parses `input` and materializes every document as plain values.
    ///
    /// Convenient for small inputs; for archives, prefer a ``FeedHandler`` that
    /// processes items as they stream by. Lenient: a failed document keeps the items
    /// parsed before its failure, which is in its ``FeedDocument/error``.
    ///
    /// - Returns: the documents in input order; never empty.
    /// - Throws: ``FeedError`` when the input yields no document at all (unreadable,
    ///   empty, corrupt from its start), or ``FeedError/Code/outOfMemory``.
    public func documents(from input: FeedInput) throws(FeedError) -> [FeedDocument] {
        let collector = FeedCollector()
        let summary: ParseSummary
        do {
            summary = try parse(input, handler: collector)
        } catch let error as FeedError {
            throw error
        } catch {
            // FeedCollector throws nothing; only the parser's own FeedError can get here.
            throw FeedError(code: .aborted, message: String(describing: error))
        }
        if collector.documents.isEmpty {
            throw summary.firstError ?? collector.streamErrors.first
                ?? FeedError(code: .empty, message: "empty input: no XML document")
        }
        return collector.documents
    }

    /// Parses `input` and hands the outcome to `completion` — every document, as
    /// ``documents(from:)`` returns them, or the error it throws — before returning, on
    /// the calling thread.
    ///
    /// To parse on another thread, use
    /// ``documents(from:backend:completion:)``: a parser is not `Sendable`, so it
    /// cannot be handed to one.
    public func parse(_ input: FeedInput, completion: (Result<[FeedDocument], FeedError>) -> Void) {
        completion(Result { () throws(FeedError) -> [FeedDocument] in try documents(from: input) })
    }
}

extension FeedParser {
    /// A file that cannot be opened: one `io` failure with the system's message, reported
    /// to `handler` and returned as the summary's first error. Every backend and the batch
    /// converter report it through here, so it reads the same whoever opened the file.
    package func reportOpenFailure(errno code: Int32, to handler: any FeedHandler) throws -> ParseSummary {
        let error = FeedError(code: .io, message: String(cString: strerror(code)))
        try handler.parser(self, didFail: error)
        var summary = ParseSummary()
        summary.firstError = error
        return summary
    }
}
