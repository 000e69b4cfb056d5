// Plain Swift values for people who want them: Sendable, Codable, Equatable.
// Each is built from the matching zero-copy view and carries the same normalized
// values the JSON Lines output carries.

/// A text construct.
public struct FeedText: Sendable, Codable, Equatable, Hashable {
    public var value: String
    /// "text", "html", "xhtml" or a MIME type.
    public var type: String

    public init(value: String, type: String = "text") {
        self.value = value
        self.type = type
    }

    init?(_ v: FeedTextView) {
        guard let value = v.value.string else { return nil }
        self.init(value: value, type: v.type.string ?? "text")
    }
}

public struct FeedLink: Sendable, Codable, Equatable, Hashable {
    public var href: String?
    public var rel: String
    public var type: String?
    public var hreflang: String?
    public var title: String?
    public var length: String?

    public init(href: String?, rel: String = "alternate", type: String? = nil, hreflang: String? = nil,
                title: String? = nil, length: String? = nil) {
        self.href = href
        self.rel = rel
        self.type = type
        self.hreflang = hreflang
        self.title = title
        self.length = length
    }

    init(_ v: FeedLinkView) {
        self.init(href: v.href.string, rel: v.rel.string ?? "alternate", type: v.type.string,
                  hreflang: v.hreflang.string, title: v.title.string, length: v.length.string)
    }
}

public struct FeedPerson: Sendable, Codable, Equatable, Hashable {
    public var name: String?
    public var email: String?
    public var uri: String?

    public init(name: String?, email: String? = nil, uri: String? = nil) {
        self.name = name
        self.email = email
        self.uri = uri
    }

    init(_ v: FeedPersonView) { self.init(name: v.name.string, email: v.email.string, uri: v.uri.string) }
}

public struct FeedCategory: Sendable, Codable, Equatable, Hashable {
    public var term: String?
    public var scheme: String?
    public var label: String?

    public init(term: String?, scheme: String? = nil, label: String? = nil) {
        self.term = term
        self.scheme = scheme
        self.label = label
    }

    init(_ v: FeedCategoryView) { self.init(term: v.term.string, scheme: v.scheme.string, label: v.label.string) }
}

public struct FeedEnclosure: Sendable, Codable, Equatable, Hashable {
    public var url: String?
    public var type: String?
    public var length: String?

    public init(url: String?, type: String? = nil, length: String? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }

    init(_ v: FeedEnclosureView) { self.init(url: v.url.string, type: v.type.string, length: v.length.string) }
}

/// A date field: as written, and normalized when it parsed.
public struct FeedDateValue: Sendable, Codable, Equatable, Hashable {
    public var raw: String
    public var date: FeedDate?

    public init(raw: String, date: FeedDate?) {
        self.raw = raw
        self.date = date
    }

    init?(_ v: FeedDateView) {
        guard let raw = v.raw.string else { return nil }
        self.init(raw: raw, date: v.date)
    }
}

/// One item (RSS `item`, Atom `entry`).
public struct FeedItem: Sendable, Codable, Equatable, Hashable {
    public var index: Int
    public var id: String?
    public var guidIsPermalink: Bool?
    public var title: FeedText?
    public var link: String?
    public var links: [FeedLink]
    public var published: FeedDateValue?
    public var updated: FeedDateValue?
    public var authors: [FeedPerson]
    public var summary: FeedText?
    public var content: FeedText?
    public var contentSource: String?
    public var categories: [FeedCategory]
    public var enclosures: [FeedEnclosure]
    public var isTruncated: Bool

    /// Copies a borrowed item view into plain values.
    public init(_ v: FeedItemView) {
        index = v.index
        id = v.id.string
        guidIsPermalink = v.guidIsPermalink
        title = FeedText(v.title)
        link = v.link.string
        links = v.links.map(FeedLink.init)
        published = FeedDateValue(v.published)
        updated = FeedDateValue(v.updated)
        authors = v.authors.map(FeedPerson.init)
        summary = FeedText(v.summary)
        content = FeedText(v.content)
        contentSource = v.contentSource.string
        categories = v.categories.map(FeedCategory.init)
        enclosures = v.enclosures.map(FeedEnclosure.init)
        isTruncated = v.isTruncated
    }
}

/// The feed-level fields of one document.
public struct Feed: Sendable, Codable, Equatable, Hashable {
    public var document: Int
    public var format: FeedFormat
    public var version: String?
    public var title: FeedText?
    public var subtitle: FeedText?
    public var id: String?
    public var link: String?
    public var links: [FeedLink]
    public var language: String?
    public var updated: FeedDateValue?
    public var published: FeedDateValue?
    public var itemCount: Int

    /// Copies a borrowed feed view into plain values.
    public init(_ v: FeedInfoView) {
        document = v.document
        format = v.format
        version = v.version.string
        title = FeedText(v.title)
        subtitle = FeedText(v.subtitle)
        id = v.id.string
        link = v.link.string
        links = v.links.map(FeedLink.init)
        language = v.language.string
        updated = FeedDateValue(v.updated)
        published = FeedDateValue(v.published)
        itemCount = v.itemCount
    }
}

/// One document of an input: its feed fields, its items, and its error if it had one.
public struct FeedDocument: Sendable, Equatable {
    public var feed: Feed
    public var items: [FeedItem]
    /// Why the document stopped early; nil when it was a well-formed feed.
    public var error: FeedError?
}
