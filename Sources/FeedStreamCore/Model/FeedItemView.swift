// SPDX-License-Identifier: Apache-2.0
/// One finished item (RSS `item`, Atom `entry`), borrowed from the parser.
public struct FeedItemView {
    /// 0-based position of the item in its document.
    public let index: Int
    /// True when the item's text exceeded the parser's per-item limit and was cut.
    public let isTruncated: Bool
    /// True when the recovery path read the item (its document failed as XML before the
    /// item ended; docs/SCHEMA.md, "Recovered documents"): its text is what the lenient
    /// reading found, and may have been repaired (U+FFFD for bytes no charset reads).
    public let isRecovered: Bool
    /// All fields and lists.
    @_spi(RawRecords) public let record: FeedRecordView
    /// The feed data that appeared before this item.
    public let feed: FeedInfoView
    /// Every field's bytes are well-formed UTF-8, whole characters (the strict Swift
    /// tokenizer checked each, and the item was not cut at ``FeedLimits/maxItemBytes``):
    /// the JSON writer need not check them again.
    package let textIsUTF8: Bool

    package init(index: Int, isTruncated: Bool, isRecovered: Bool = false, textIsUTF8: Bool = false, record: RawRecord,
                 feed: FeedInfoView) {
        self.index = index
        self.isTruncated = isTruncated
        self.isRecovered = isRecovered
        self.textIsUTF8 = textIsUTF8 && !isTruncated
        self.record = FeedRecordView(record)
        self.feed = feed
    }

    /// RSS `guid`, Atom `id`, `dc:identifier`, RSS 1.0 `rdf:about` (in that order).
    public var id: FeedBytes { record[.id] }
    /// For an id from an RSS `guid`: whether it is a permalink (RSS default: true).
    public var guidIsPermalink: Bool? {
        let p = record[.guidPermalink]
        return p.isPresent ? !p.equalsIgnoringCase("false") : nil
    }
    /// The item's title.
    public var title: FeedTextView { record.text(.title) }
    /// RSS `description`, Atom `summary`.
    public var summary: FeedTextView { record.text(.summary) }
    /// `content:encoded`, Atom `content`.
    public var content: FeedTextView { record.text(.content) }
    /// Atom `content/@src`, as written.
    public var contentSource: FeedBytes { record[.contentSrc] }
    /// When the item was published (see ``FeedItem/published``).
    public var published: FeedDateView { record.date(.published) }
    /// When the item was last updated (see ``FeedItem/updated``).
    public var updated: FeedDateView { record.date(.updated) }
    /// The item's links, in document order.
    public var links: some RandomAccessCollection<FeedLinkView> { record.links }
    /// The first alternate link's href, else a permalink guid, as written (`FeedRecordView.primaryLink`).
    public var link: FeedBytes { record.primaryLink?.href ?? .absent }
    /// The item's authors: RSS `author`, `dc:creator`, Atom `author`.
    public var authors: some RandomAccessCollection<FeedPersonView> { record.authors }
    /// The item's categories.
    public var categories: some RandomAccessCollection<FeedCategoryView> { record.categories }
    /// The item's enclosures (media files).
    public var enclosures: some RandomAccessCollection<FeedEnclosureView> { record.enclosures }
}
