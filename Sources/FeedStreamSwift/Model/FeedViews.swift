// Zero-copy views over a parser's current item and feed. They apply the normalization
// rules of docs/SCHEMA.md that slicing and pointing can express (whitespace trimming,
// type names, rel defaults, the primary link, permalink flags, date parsing), so every
// backend gets the same policy from this one place. What needs new bytes (URL
// resolution, base64) is done by the writers, into their own buffers.
//
// A view is valid only during the handler call that received it.

/// A text construct: value, type ("text", "html", "xhtml" or a MIME type), and the
/// xml:lang and xml:base in scope.
public struct FeedTextView {
    /// The text, trimmed; for xhtml, the serialized child markup.
    public let value: FeedBytes
    /// "text", "html", "xhtml" or a MIME type.
    public let type: FeedBytes
    /// The `xml:lang` in scope.
    public let language: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    public let baseChain: FeedBytes
    /// True when the value is base64 (Atom 0.3 `mode="base64"`) and must be decoded.
    public let isBase64: Bool
}

/// A link. `rel` defaults to "alternate" when the feed gave none; `href` as written
/// (resolve it against ``baseChain`` with ``FeedURL/resolve(_:baseChain:)``).
public struct FeedLinkView {
    /// The target as written (unresolved).
    public let href: FeedBytes
    /// The relation; "alternate" when the feed gave none.
    public let rel: FeedBytes
    /// The target's MIME type.
    public let type: FeedBytes
    /// The target's language.
    public let hreflang: FeedBytes
    /// The link's title.
    public let title: FeedBytes
    /// The target's length in bytes, as written.
    public let length: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    public let baseChain: FeedBytes
}

/// A person (author, contributor). RSS `author`, `dc:creator` fill `name` with the raw text.
public struct FeedPersonView {
    /// The name (or RSS's raw author text).
    public let name: FeedBytes
    /// The email address.
    public let email: FeedBytes
    /// The URI, as written (unresolved).
    public let uri: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    public let baseChain: FeedBytes
}

/// A category: term, scheme (RSS `domain`), label.
public struct FeedCategoryView {
    /// The category (RSS: the element's text; Atom: `term`).
    public let term: FeedBytes
    /// The scheme (RSS `domain`, Atom `scheme`).
    public let scheme: FeedBytes
    /// A human-readable label (Atom `label`).
    public let label: FeedBytes
}

/// An enclosure: url, MIME type, length in bytes (as written).
public struct FeedEnclosureView {
    /// The file's URL, as written (unresolved).
    public let url: FeedBytes
    /// The file's MIME type.
    public let type: FeedBytes
    /// The file's length in bytes, as written.
    public let length: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    public let baseChain: FeedBytes
}

/// A date as written, and its normalization (see ``FeedDate``).
public struct FeedDateView {
    /// The text as written, trimmed.
    public let raw: FeedBytes
    /// The parsed date, or nil when the text is not a date format the spec knows.
    public let date: FeedDate?
}

/// One row of a list: its columns by index (see ``FeedList``).
public struct FeedRowView {
    let base: UnsafePointer<CoreSpan>
    /// The number of columns.
    public let count: Int

    /// Column `i`, trimmed.

    public subscript(i: Int) -> FeedBytes {
        precondition(i >= 0 && i < count, "column out of range")
        return bytes(base[i])
    }
}

/// The rows of one list of a record.
public struct FeedRowsView: RandomAccessCollection {
    let base: UnsafePointer<CoreSpan>?
    let columns: Int
    public let count: Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(i: Int) -> FeedRowView {
        precondition(i >= 0 && i < count, "index out of range")
        return FeedRowView(base: base! + i * columns, count: columns)
    }
}

/// A record: the fields and lists of an item or of a feed.
public struct FeedRecordView {
    let raw: RawRecord

    init(_ raw: RawRecord) { self.raw = raw }

    private var fields: UnsafePointer<CoreSpan> { raw.fields }
    private var presentBits: UnsafePointer<UInt64> { raw.present }

    /// The rows of a list.
    public func rows(_ list: FeedList) -> FeedRowsView {
        let base = raw.rows[list.rawValue]
        return FeedRowsView(base: base, columns: list.columns, count: base == nil ? 0 : raw.counts[list.rawValue])
    }

    /// A field, trimmed; absent when the feed did not have it.
    public subscript(field: FeedField) -> FeedBytes { bytes(fields[field.rawValue]) }

    /// The presence bits of the fields (bit i: field i may be present).
    var presence: (UInt64, UInt64) { (presentBits[0], presentBits[1]) }

    /// False when `field` is certainly absent (a quick check before reading it).
    func isSet(_ field: FeedField) -> Bool {
        presentBits[field.rawValue >> 6] & (1 << UInt64(field.rawValue & 63)) != 0
    }

    /// A text construct starting at `field` (title, summary, content, rights).
    public func text(_ field: FeedField) -> FeedTextView {
        let value = self[field]
        guard value.isPresent else {
            return FeedTextView(value: .absent, type: .absent, language: .absent, baseChain: .absent, isBase64: false)
        }
        let type = self[FeedField(rawValue: field.rawValue + 1)!]
        let mode = self[FeedField(rawValue: field.rawValue + 4)!]
        return FeedTextView(value: value, type: normalizedTextType(type),
                            language: self[FeedField(rawValue: field.rawValue + 2)!],
                            baseChain: self[FeedField(rawValue: field.rawValue + 3)!],
                            isBase64: mode.equalsIgnoringCase("base64"))
    }

    /// A date field: raw and parsed.
    public func date(_ field: FeedField) -> FeedDateView {
        let raw = self[field]
        return FeedDateView(raw: raw, date: raw.isPresent ? FeedDate.parse(raw.buffer) : nil)
    }

    /// The links, in document order (`rel` defaulted to "alternate").
    public var links: LazyMapCollection<FeedRowsView, FeedLinkView> {
        rows(.links).lazy.map { r in
            let rel = r[1]
            return FeedLinkView(href: r[0], rel: rel.isPresent && !rel.isEmpty ? rel : FeedBytes("alternate"),
                                type: r[2], hreflang: r[3], title: r[4], length: r[5], baseChain: r[6])
        }
    }

    /// The first link whose rel is "alternate" (after defaulting) and that has an href.
    public var primaryLink: FeedLinkView? {
        links.first { $0.rel.equals("alternate") && $0.href.isPresent }
    }

    func persons(_ list: FeedList) -> LazyMapCollection<FeedRowsView, FeedPersonView> {
        rows(list).lazy.map { FeedPersonView(name: $0[0], email: $0[1], uri: $0[2], baseChain: $0[3]) }
    }
    /// The authors, in document order.
    public var authors: LazyMapCollection<FeedRowsView, FeedPersonView> { persons(.authors) }
    /// The contributors, in document order.
    public var contributors: LazyMapCollection<FeedRowsView, FeedPersonView> { persons(.contributors) }
    /// The categories, in document order.
    public var categories: LazyMapCollection<FeedRowsView, FeedCategoryView> {
        rows(.categories).lazy.map { FeedCategoryView(term: $0[0], scheme: $0[1], label: $0[2]) }
    }
    /// The enclosures, in document order.
    public var enclosures: LazyMapCollection<FeedRowsView, FeedEnclosureView> {
        rows(.enclosures).lazy.map { FeedEnclosureView(url: $0[0], type: $0[1], length: $0[2], baseChain: $0[3]) }
    }
}

@inline(__always)

func bytes(_ s: CoreSpan) -> FeedBytes {
    FeedBytes(UnsafeRawBufferPointer(start: s.ptr, count: s.len)).trimmed
}

/// Type names: as written, with Atom 0.3's MIME types mapped to Atom 1.0's names, and
/// "text" when absent (Atom's default; C supplies RSS's defaults).
@inline(__always)
func normalizedTextType(_ t: FeedBytes) -> FeedBytes {
    guard t.isPresent, !t.isEmpty else { return FeedBytes("text") }
    if t.equalsIgnoringCase("text/plain") { return FeedBytes("text") }
    if t.equalsIgnoringCase("text/html") { return FeedBytes("html") }
    if t.equalsIgnoringCase("application/xhtml+xml") { return FeedBytes("xhtml") }
    return t
}

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

/// One finished item (RSS `item`, Atom `entry`), borrowed from the parser.
public struct FeedItemView {
    /// 0-based position of the item in its document.
    public let index: Int
    /// True when the item's text exceeded the parser's per-item limit and was cut.
    public let isTruncated: Bool
    /// All fields and lists.
    public let record: FeedRecordView
    /// The feed data that appeared before this item.
    public let feed: FeedInfoView

    package init(index: Int, isTruncated: Bool, record: RawRecord, feed: FeedInfoView) {
        self.index = index
        self.isTruncated = isTruncated
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
    public var links: LazyMapCollection<FeedRowsView, FeedLinkView> { record.links }
    /// The first alternate link's href, as written.
    public var link: FeedBytes { record.primaryLink?.href ?? .absent }
    /// The item's authors: RSS `author`, `dc:creator`, Atom `author`.
    public var authors: LazyMapCollection<FeedRowsView, FeedPersonView> { record.authors }
    /// The item's categories.
    public var categories: LazyMapCollection<FeedRowsView, FeedCategoryView> { record.categories }
    /// The item's enclosures (media files).
    public var enclosures: LazyMapCollection<FeedRowsView, FeedEnclosureView> { record.enclosures }
}

/// A run of bytes as records hold it (the C core's `cfs_span` has the same layout).
package struct CoreSpan {
    package var ptr: UnsafePointer<UInt8>?
    package var len: Int

    package init(ptr: UnsafePointer<UInt8>?, len: Int) {
        self.ptr = ptr
        self.len = len
    }
}

/// Where a record's fields and lists live, whichever backend made them: `fields` has
/// one span per ``FeedField``, `present` two words of presence bits, `rows` and
/// `counts` one entry per ``FeedList`` (rows of ``FeedList/columns`` spans each).
package struct RawRecord {
    package let fields: UnsafePointer<CoreSpan>
    package let present: UnsafePointer<UInt64>
    package let rows: UnsafePointer<UnsafePointer<CoreSpan>?>
    package let counts: UnsafePointer<Int>

    package init(fields: UnsafePointer<CoreSpan>, present: UnsafePointer<UInt64>,
                 rows: UnsafePointer<UnsafePointer<CoreSpan>?>, counts: UnsafePointer<Int>) {
        self.fields = fields
        self.present = present
        self.rows = rows
        self.counts = counts
    }
}
