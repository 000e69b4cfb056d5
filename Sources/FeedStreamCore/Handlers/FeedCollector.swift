// SPDX-License-Identifier: Apache-2.0
/// A handler that materializes every document of an input as plain values.
///
/// What ``FeedParser/documents(from:)`` uses. Memory grows with the input: for archives,
/// write a handler that processes items as they stream by.
public final class FeedCollector: FeedHandler {
    /// The documents parsed so far, in input order, each with its items and its error.
    public private(set) var documents: [FeedDocument] = []
    /// Errors not tied to a document (empty or unreadable input).
    public private(set) var streamErrors: [FeedError] = []
    private var items: [FeedItem] = []

    /// An empty collector.
    public init() {}

    /// Starts collecting a new document's items.
    public func parser(_ parser: any FeedParser, didStartDocument document: Int) {
        items.removeAll(keepingCapacity: true)
    }

    /// Copies the item into a ``FeedItem``.
    public func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) { items.append(FeedItem(item)) }

    /// Appends the document, with the items collected since it started.
    public func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) {
        documents.append(FeedDocument(feed: Feed(feed), items: items, error: nil))
    }

    /// Attaches the error to its document, or to ``streamErrors`` when it has none.
    public func parser(_ parser: any FeedParser, didFail error: FeedError) {
        if error.document > 0, let last = documents.indices.last, documents[last].feed.document == error.document {
            documents[last].error = error
        } else {
            streamErrors.append(error)
        }
    }
}

/// Several handlers listening to one parse, called in order (e.g. a writer, a
/// statistics collector and a progress reporter).
///
/// Each event goes to every handler in turn, with the same parser and the same view; a
/// handler that throws stops the parse, and the handlers after it do not see the event.
///
/// ```swift
/// let group = FeedHandlerGroup(writer, counter)
/// try parser.parse(.file(path: "dump.xml.gz"), handler: group)
/// ```
public final class FeedHandlerGroup: FeedHandler {
    /// The handlers, in the order they are called.
    package private(set) var handlers: [any FeedHandler]

    /// A group calling `handlers` in order.
    package init(_ handlers: [any FeedHandler]) { self.handlers = handlers }
    /// A group calling `handlers` in order.
    public convenience init(_ handlers: any FeedHandler...) { self.init(handlers) }

    /// Adds `handler` after the others.
    package func add(_ handler: any FeedHandler) { handlers.append(handler) }

    /// Forwards to every handler.
    public func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
        for h in handlers { try h.parser(parser, didStartDocument: document) }
    }
    /// Forwards to every handler.
    public func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        for h in handlers { try h.parser(parser, didParseItem: item) }
    }
    /// Forwards to every handler.
    public func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws {
        for h in handlers { try h.parser(parser, didParseFeedInfo: feed) }
    }
    /// Forwards to every handler.
    public func parser(_ parser: any FeedParser, didFinishDocument document: Int) throws {
        for h in handlers { try h.parser(parser, didFinishDocument: document) }
    }
    /// Forwards to every handler.
    public func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        for h in handlers { try h.parser(parser, didFail: error) }
    }
}
