// SPDX-License-Identifier: Apache-2.0
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
    @_spi(RawRecords) public let record: FeedRecordView

    /// Which publication of the parser's feed record this view shows (``FeedRevision``);
    /// ``FeedRevision/unknown`` from a parser that does not say.
    package let revision: FeedRevision

    /// Every field's bytes are well-formed UTF-8, whole characters (as
    /// ``FeedItemView``'s `textIsUTF8`): the JSON writer need not check them again.
    package let textIsUTF8: Bool

    package init(document: Int, format: FeedFormat, itemCount: Int, record: RawRecord,
                 revision: FeedRevision = .unknown, textIsUTF8: Bool = false) {
        self.document = document
        self.format = format
        self.itemCount = itemCount
        self.record = FeedRecordView(record)
        self.revision = revision
        self.textIsUTF8 = textIsUTF8
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
    public var links: some RandomAccessCollection<FeedLinkView> { record.links }
    /// The first alternate link's href, as written.
    public var link: FeedBytes { record.primaryLink?.href ?? .absent }
}

/// Names one publication of a parser's feed record: two views with the same known
/// revision show the same fields, so what a writer made of the first can stand for the
/// second (the JSON writer's `"feed"` member, written once per publication rather than
/// once per item). The parser's number is unique in the process (``next()``), the
/// publication's counts up within the parser; neither repeats.
package struct FeedRevision: Equatable, Sendable {
    package var parser: UInt64
    package var publication: UInt64

    /// A parser that does not number its publications: never equal to a known one.
    package static let unknown = FeedRevision(parser: 0, publication: 0)

    package var isKnown: Bool { parser != 0 }

    private static let lock = ConditionLock()
    nonisolated(unsafe) private static var parsers: UInt64 = 0

    /// The first publication of a parser not yet numbered (taken once per parser).
    package static func next() -> FeedRevision {
        lock.withLock {
            parsers += 1
            return FeedRevision(parser: parsers, publication: 0)
        }
    }
}
