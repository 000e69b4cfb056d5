/// The feed-level data of a document: in ``FeedHandler/parser(_:didParseItem:)``
/// (through ``FeedItemView/feed``) what appeared before the item; in
/// ``FeedHandler/parser(_:didParseFeedInfo:)`` all of it.
public struct FeedInfoView {
    /// 1-based index of the document in the input stream.
    public let document: Int
    /// "rss20", "rss10", "atom10", ... (see docs/SCHEMA.md).
    public let format: FeedFormat
    /// Items delivered so far in this document.
    public let itemCount: Int
    /// All fields and lists.
    public let record: FeedRecordView

    package init(document: Int, format: FeedFormat, itemCount: Int, record: RawRecord) {
        self.document = document
        self.format = format
        self.itemCount = itemCount
        self.record = FeedRecordView(record)
    }

    /// The root element's `version` attribute.
    public var version: FeedBytes { record[.version] }
    /// The feed's title.
    public var title: FeedTextView { record.text(.title) }
    /// RSS `description`, Atom `subtitle` (0.3: `tagline`).
    public var subtitle: FeedTextView { record.text(.summary) }
    /// The feed's identifier: Atom `id`, RSS 1.0 `rdf:about`.
    public var id: FeedBytes { record[.id] }
    /// The feed's language: RSS `language`, `dc:language`, or the root's `xml:lang`.
    public var language: FeedBytes { record[.language] }
    /// When the feed last changed (see ``Feed/updated``).
    public var updated: FeedDateView { record.date(.updated) }
    /// When the feed was published (see ``Feed/published``).
    public var published: FeedDateView { record.date(.published) }
    /// The feed's links, in document order.
    public var links: LazyMapCollection<FeedRowsView, FeedLinkView> { record.links }
    /// The first alternate link's href, as written.
    public var link: FeedBytes { record.primaryLink?.href ?? .absent }
}
