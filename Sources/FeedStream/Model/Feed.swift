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
        self.init(href: v.href.isPresent ? String(decoding: FeedURL.resolve(v.href, baseChain: v.baseChain), as: UTF8.self) : nil,
                  rel: v.rel.string ?? "alternate", type: v.type.string,
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

    init(_ v: FeedPersonView) {
        self.init(name: v.name.string, email: v.email.string,
                  uri: v.uri.isPresent ? String(decoding: FeedURL.resolve(v.uri, baseChain: v.baseChain), as: UTF8.self) : nil)
    }
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

    init(_ v: FeedEnclosureView) {
        self.init(url: v.url.isPresent ? String(decoding: FeedURL.resolve(v.url, baseChain: v.baseChain), as: UTF8.self) : nil,
                  type: v.type.string, length: v.length.string)
    }
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
    public var language: String?
    public var contributors: [FeedPerson]
    public var rights: FeedText?
    /// Every other member of the item's JSON line (docs/SCHEMA.md), flattened:
    /// "comments", "itunes.duration", "source.url", ...
    public var extensions: [String: String]
    /// Every other list of the item's JSON line, flattened: "media.content", ...
    public var extensionLists: [String: [[String: String]]]

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
        language = v.record[.language].string
        contributors = v.record.contributors.map(FeedPerson.init)
        rights = FeedText(v.record.text(.rights))
        var rest = ExtensionCollector(core: FeedItem.coreKeys)
        v.record.walk(RecordLayout.item, into: &rest)
        extensions = rest.values
        extensionLists = rest.lists
        if let l = v.record.primaryLink { link = String(decoding: FeedURL.resolve(l.href, baseChain: l.baseChain), as: UTF8.self) }
    }

    static let coreKeys: Set<String> = [
        "id", "language", "title", "title_type", "title_lang", "link", "links", "published", "published_raw",
        "updated", "updated_raw", "authors", "contributors", "summary", "summary_type", "summary_lang", "content",
        "content_type", "content_lang", "content_src", "rights", "rights_type", "rights_lang", "categories",
        "enclosures", "guid_is_permalink",
    ]
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
    public var rights: FeedText?
    public var authors: [FeedPerson]
    public var contributors: [FeedPerson]
    public var categories: [FeedCategory]
    /// Every other member of the feed's JSON line (docs/SCHEMA.md), flattened:
    /// "generator.name", "image.url", "itunes.owner_email", ...
    public var extensions: [String: String]
    /// Every other list of the feed's JSON line, flattened: "skip_hours", "itunes.categories", ...
    public var extensionLists: [String: [[String: String]]]

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
        rights = FeedText(v.record.text(.rights))
        authors = v.record.authors.map(FeedPerson.init)
        contributors = v.record.contributors.map(FeedPerson.init)
        categories = v.record.categories.map(FeedCategory.init)
        var rest = ExtensionCollector(core: Feed.coreKeys)
        v.record.walk(RecordLayout.feed, into: &rest)
        extensions = rest.values
        extensionLists = rest.lists
        if let l = v.record.primaryLink { link = String(decoding: FeedURL.resolve(l.href, baseChain: l.baseChain), as: UTF8.self) }
    }

    static let coreKeys: Set<String> = [
        "version", "title", "title_type", "title_lang", "subtitle", "subtitle_type", "subtitle_lang", "id", "link",
        "links", "language", "updated", "updated_raw", "published", "published_raw", "rights", "rights_type",
        "rights_lang", "authors", "contributors", "categories",
    ]
}

/// One document of an input: its feed fields, its items, and its error if it had one.
public struct FeedDocument: Sendable, Equatable {
    public var feed: Feed
    public var items: [FeedItem]
    /// Why the document stopped early; nil when it was a well-formed feed.
    public var error: FeedError?
}

/// Collects the members of a line that the typed properties do not cover.
struct ExtensionCollector: RecordSink {
    let core: Set<String>
    var values: [String: String] = [:]
    var lists: [String: [[String: String]]] = [:]
    private var path: [String] = []
    private var listKey: String?
    private var row: [String: String]?

    init(core: Set<String>) { self.core = core }

    private func flat(_ key: StaticString) -> String { (path + ["\(key)"]).joined(separator: ".") }

    mutating func string(_ key: StaticString, _ value: UnsafeRawBufferPointer) {
        let v = String(decoding: value, as: UTF8.self)
        if row != nil { row!["\(key)"] = v; return }
        let k = flat(key)
        if path.isEmpty && core.contains(k) { return }
        values[k] = v
    }
    mutating func literal(_ key: StaticString, _ value: StaticString) {
        string(key, UnsafeRawBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
    }
    mutating func beginObject(_ key: StaticString) { path.append("\(key)") }
    mutating func endObject() { path.removeLast() }
    mutating func beginArray(_ key: StaticString) {
        let k = flat(key)
        listKey = path.isEmpty && core.contains(k) ? nil : k
        if let listKey { lists[listKey] = [] }
    }
    mutating func beginElement() { row = [:] }
    mutating func endElement() {
        if let listKey, let row { lists[listKey]?.append(row) }
        row = nil
    }
    mutating func element(_ value: UnsafeRawBufferPointer) {
        if let listKey { lists[listKey]?.append(["value": String(decoding: value, as: UTF8.self)]) }
    }
    mutating func endArray() { listKey = nil }
}
