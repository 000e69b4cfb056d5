internal import CFeedStream

// Zero-copy views over a parser's current item and feed. They apply the normalization
// rules of docs/SCHEMA.md (whitespace trimming, type defaults, rel defaults, the
// primary link, permalink flags, date normalization) by slicing and pointing, never by
// copying, so every backend gets the same policy from this one place.
//
// A view is valid only during the handler call that received it.

/// A text construct: value and type ("text", "html", "xhtml" or a MIME type).
public struct FeedTextView {
    public let value: FeedBytes
    public let type: FeedBytes
}

/// A link. `rel` defaults to "alternate" when the feed gave none.
public struct FeedLinkView {
    public let href, rel, type, hreflang, title, length: FeedBytes
}

/// A person (author). RSS `author` and `dc:creator` fill `name` with the raw text.
public struct FeedPersonView {
    public let name, email, uri: FeedBytes
}

/// A category: term, scheme (RSS `domain`), label.
public struct FeedCategoryView {
    public let term, scheme, label: FeedBytes
}

/// An enclosure: url, MIME type, length in bytes (as written).
public struct FeedEnclosureView {
    public let url, type, length: FeedBytes
}

/// A date as written, and its normalization (see ``FeedDate``).
public struct FeedDateView {
    /// The text as written, trimmed.
    public let raw: FeedBytes
    /// The parsed date, or nil when the text is not a date format the spec knows.
    public let date: FeedDate?
}

/// A random-access collection over an array the parser owns.
public struct FeedViewCollection<Element>: RandomAccessCollection {
    @usableFromInline let base: UnsafeRawPointer?
    @usableFromInline let stride: Int
    public let count: Int
    @usableFromInline let make: @Sendable (UnsafeRawPointer) -> Element

    init(base: UnsafeRawPointer?, count: Int, stride: Int, make: @escaping @Sendable (UnsafeRawPointer) -> Element) {
        self.base = base
        self.count = base == nil ? 0 : count
        self.stride = stride
        self.make = make
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    @inlinable
    public subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "index out of range")
        return make(base! + i * stride)
    }
}

@inline(__always)
func bytes(_ s: cfs_span) -> FeedBytes {
    FeedBytes(UnsafeRawBufferPointer(start: s.ptr, count: s.len)).trimmed
}

@inline(__always)
func isRSSFamily(_ f: cfs_format) -> Bool {
    f != CFS_FORMAT_ATOM03 && f != CFS_FORMAT_ATOM10
}

/// Type of a text construct: as written (Atom), else the format's default.
@inline(__always)
func textType(_ t: cfs_text, rssDefault: StaticString, format: cfs_format) -> FeedBytes {
    let value = bytes(t.value)
    guard value.isPresent else { return .absent }
    let written = bytes(t.type)
    if written.isPresent && !written.isEmpty { return written }
    return isRSSFamily(format) ? FeedBytes(rssDefault) : FeedBytes("text")
}

private let makeLink: @Sendable (UnsafeRawPointer) -> FeedLinkView = { p in
    let l = p.assumingMemoryBound(to: cfs_link.self).pointee
    let rel = bytes(l.rel)
    return FeedLinkView(href: bytes(l.href), rel: rel.isPresent && !rel.isEmpty ? rel : FeedBytes("alternate"),
                        type: bytes(l.type), hreflang: bytes(l.hreflang), title: bytes(l.title),
                        length: bytes(l.length))
}

private func links(_ base: UnsafePointer<cfs_link>?, _ count: Int) -> FeedViewCollection<FeedLinkView> {
    FeedViewCollection(base: UnsafeRawPointer(base), count: count, stride: MemoryLayout<cfs_link>.stride, make: makeLink)
}

/// The href of the first link whose rel is "alternate" (after defaulting).
private func primaryLink(_ links: FeedViewCollection<FeedLinkView>) -> FeedBytes {
    for l in links where l.rel.equals("alternate") && l.href.isPresent { return l.href }
    return .absent
}

/// The feed-level fields of a document: in ``FeedHandler/didParseItem(_:)`` (through
/// ``FeedItemView/feed``) those seen before the item; in
/// ``FeedHandler/didParseFeedInfo(_:)`` all of them.
public struct FeedInfoView {
    let raw: UnsafePointer<cfs_feed>

    /// 1-based index of the document in the input stream.
    public var document: Int { raw.pointee.document }
    /// "rss20", "rss10", "atom10", ... (see docs/SCHEMA.md).
    public var format: FeedFormat { FeedFormat(raw.pointee.format) }
    /// The root's `version` attribute as written.
    public var version: FeedBytes { bytes(raw.pointee.version) }
    public var title: FeedTextView {
        FeedTextView(value: bytes(raw.pointee.title.value),
                     type: textType(raw.pointee.title, rssDefault: "text", format: raw.pointee.format))
    }
    /// RSS `description`, Atom `subtitle` (0.3: `tagline`).
    public var subtitle: FeedTextView {
        FeedTextView(value: bytes(raw.pointee.subtitle.value),
                     type: textType(raw.pointee.subtitle, rssDefault: "html", format: raw.pointee.format))
    }
    public var id: FeedBytes { bytes(raw.pointee.id) }
    public var language: FeedBytes { bytes(raw.pointee.language) }
    public var updated: FeedDateView { dateView(raw.pointee.updated) }
    public var published: FeedDateView { dateView(raw.pointee.published) }
    public var links: FeedViewCollection<FeedLinkView> { FeedStream.links(raw.pointee.links, raw.pointee.links_count) }
    /// The first alternate link.
    public var link: FeedBytes { primaryLink(links) }
    /// Items delivered so far in this document.
    public var itemCount: Int { raw.pointee.items_count }
}

/// One finished item (RSS `item`, Atom `entry`), borrowed from the parser.
public struct FeedItemView {
    let raw: UnsafePointer<cfs_item>
    let rawFeed: UnsafePointer<cfs_feed>

    private var format: cfs_format { rawFeed.pointee.format }

    /// The feed fields that appeared before this item.
    public var feed: FeedInfoView { FeedInfoView(raw: rawFeed) }
    /// 0-based position of the item in its document.
    public var index: Int { raw.pointee.index }
    /// RSS `guid`, Atom `id`, `dc:identifier`, RSS 1.0 `rdf:about` (in that order).
    public var id: FeedBytes { bytes(raw.pointee.id) }
    /// For an id from an RSS `guid`: whether it is a permalink (RSS default: true).
    public var guidIsPermalink: Bool? {
        let p = bytes(raw.pointee.guid_is_permalink)
        return p.isPresent ? !p.equalsIgnoringCase("false") : nil
    }
    public var title: FeedTextView {
        FeedTextView(value: bytes(raw.pointee.title.value),
                     type: textType(raw.pointee.title, rssDefault: "text", format: format))
    }
    /// RSS `description`, Atom `summary`.
    public var summary: FeedTextView {
        FeedTextView(value: bytes(raw.pointee.summary.value),
                     type: textType(raw.pointee.summary, rssDefault: "html", format: format))
    }
    /// `content:encoded`, Atom `content`.
    public var content: FeedTextView {
        FeedTextView(value: bytes(raw.pointee.content.value),
                     type: textType(raw.pointee.content, rssDefault: "html", format: format))
    }
    /// Atom `content/@src`.
    public var contentSource: FeedBytes { bytes(raw.pointee.content_src) }
    public var published: FeedDateView { dateView(raw.pointee.published) }
    public var updated: FeedDateView { dateView(raw.pointee.updated) }
    public var links: FeedViewCollection<FeedLinkView> { FeedStream.links(raw.pointee.links, raw.pointee.links_count) }
    /// The first alternate link.
    public var link: FeedBytes { primaryLink(links) }
    public var authors: FeedViewCollection<FeedPersonView> {
        FeedViewCollection(base: UnsafeRawPointer(raw.pointee.authors), count: raw.pointee.authors_count,
                           stride: MemoryLayout<cfs_person>.stride) { p in
            let x = p.assumingMemoryBound(to: cfs_person.self).pointee
            return FeedPersonView(name: bytes(x.name), email: bytes(x.email), uri: bytes(x.uri))
        }
    }
    public var categories: FeedViewCollection<FeedCategoryView> {
        FeedViewCollection(base: UnsafeRawPointer(raw.pointee.categories), count: raw.pointee.categories_count,
                           stride: MemoryLayout<cfs_category>.stride) { p in
            let x = p.assumingMemoryBound(to: cfs_category.self).pointee
            return FeedCategoryView(term: bytes(x.term), scheme: bytes(x.scheme), label: bytes(x.label))
        }
    }
    public var enclosures: FeedViewCollection<FeedEnclosureView> {
        FeedViewCollection(base: UnsafeRawPointer(raw.pointee.enclosures), count: raw.pointee.enclosures_count,
                           stride: MemoryLayout<cfs_enclosure>.stride) { p in
            let x = p.assumingMemoryBound(to: cfs_enclosure.self).pointee
            return FeedEnclosureView(url: bytes(x.url), type: bytes(x.type), length: bytes(x.length))
        }
    }
    /// True when the item's text exceeded the parser's per-item limit and was cut.
    public var isTruncated: Bool { raw.pointee.truncated != 0 }
}

@inline(__always)
func dateView(_ s: cfs_span) -> FeedDateView {
    let raw = bytes(s)
    return FeedDateView(raw: raw, date: raw.isPresent ? FeedDate.parse(raw.buffer) : nil)
}
