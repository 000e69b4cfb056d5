/// A handler that materializes every document of an input as plain values.
public final class FeedCollector: FeedHandler {
    public private(set) var documents: [FeedDocument] = []
    /// Errors not tied to a document (empty or unreadable input).
    public private(set) var streamErrors: [FeedError] = []
    private var items: [FeedItem] = []

    public init() {}

    public func didStartDocument(_ document: Int) { items.removeAll(keepingCapacity: true) }
    public func didParseItem(_ item: FeedItemView) { items.append(FeedItem(item)) }
    public func didParseFeedInfo(_ feed: FeedInfoView) {
        documents.append(FeedDocument(feed: Feed(feed), items: items, error: nil))
    }
    public func didFail(_ error: FeedError) {
        if error.document > 0, let last = documents.indices.last, documents[last].feed.document == error.document {
            documents[last].error = error
        } else {
            streamErrors.append(error)
        }
    }
}

/// Several handlers listening to one parse, called in order (e.g. a writer, a
/// statistics collector and a progress reporter).
public final class FeedHandlerGroup: FeedHandler {
    public private(set) var handlers: [any FeedHandler]

    public init(_ handlers: [any FeedHandler]) { self.handlers = handlers }
    public convenience init(_ handlers: any FeedHandler...) { self.init(handlers) }

    public func add(_ handler: any FeedHandler) { handlers.append(handler) }

    public func didStartDocument(_ document: Int) throws {
        for h in handlers { try h.didStartDocument(document) }
    }
    public func didParseItem(_ item: FeedItemView) throws {
        for h in handlers { try h.didParseItem(item) }
    }
    public func didParseFeedInfo(_ feed: FeedInfoView) throws {
        for h in handlers { try h.didParseFeedInfo(feed) }
    }
    public func didFinishDocument(_ document: Int) throws {
        for h in handlers { try h.didFinishDocument(document) }
    }
    public func didFail(_ error: FeedError) throws {
        for h in handlers { try h.didFail(error) }
    }
}
