// SPDX-License-Identifier: Apache-2.0
// Plain Swift values for people who want them: Sendable, Codable, Equatable.
// Each is built from the matching zero-copy view and carries the same normalized
// values the JSON Lines output carries.

/// A text construct.
public struct FeedText: Sendable, Codable, Equatable, Hashable {
    /// The text, trimmed; for xhtml, the serialized child markup.
    public var value: String
    /// "text", "html", "xhtml" or a MIME type.
    public var type: String

    /// A text construct of the given type.
    package init(value: String, type: String = "text") {
        self.value = value
        self.type = type
    }

    /// The text construct at `field` as the JSON writer writes it: base64 decoded, and
    /// relative URIs in HTML and XHTML resolved against its base (docs/SCHEMA.md) — the
    /// same walk of the layout, so the value model and the output cannot differ.
    init?(_ record: FeedRecordView, _ field: FeedField) {
        var c = ExtensionCollector(core: [])
        if let table = FeedText.tables[field] {
            record.walk(table, into: &c)
        } else {
            // Not a text construct of the layout: read as one all the same, through a
            // table built for the call and kept (one per field, at most).
            record.walk(FeedText.table(field), into: &c)
        }
        guard let value = c.values["value"] else { return nil }
        self.init(value: value, type: c.values["type"] ?? "text")
    }

    /// The one-member layout tables the text constructs are read through, built once for
    /// every text construct field the layout writes (``RecordLayout/textConstructFields``):
    /// a table's storage lives as long as the process (``TableArray``), so one built per
    /// call leaked it (~4 KB per title, summary, content and rights of every value).
    private static let tables: [FeedField: MemberTable] = Dictionary(uniqueKeysWithValues:
        RecordLayout.textConstructFields.map { ($0, table($0)) })

    private static func table(_ field: FeedField) -> MemberTable {
        MemberTable([.text("value", "type", "lang", "base", field)])
    }
}

/// A link (Atom `link`, RSS `link`, `atom:link` in RSS), its `href` resolved against
/// the `xml:base` in scope.
public struct FeedLink: Sendable, Codable, Equatable, Hashable {
    /// The target, resolved against `xml:base`; nil when the link had none.
    public var href: String?
    /// The relation: `alternate` (the default), `self`, `enclosure`, `related`, `via`, ...
    public var rel: String
    /// The target's MIME type, as written.
    public var type: String?
    /// The target's language.
    public var hreflang: String?
    /// The link's title.
    public var title: String?
    /// The target's length in bytes, as written.
    public var length: String?

    /// A link; the arguments are stored as given.
    package init(href: String?, rel: String = "alternate", type: String? = nil, hreflang: String? = nil,
                title: String? = nil, length: String? = nil) {
        self.href = href
        self.rel = rel
        self.type = type
        self.hreflang = hreflang
        self.title = title
        self.length = length
    }

    init(_ v: FeedLinkView) {
        self.init(href: v.href.isPresent ? FeedBytes.string(FeedURL.resolve(v.href, baseChain: v.baseChain)) : nil,
                  rel: v.rel.string ?? "alternate", type: v.type.string,
                  hreflang: v.hreflang.string, title: v.title.string, length: v.length.string)
    }
}

/// A person: an author or a contributor. A person written as one text (RSS `author`,
/// `dc:creator`, `dc:author`, `dc:contributor`) is split into `name` and `email` when
/// it holds an email address, and then kept as written in `raw`.
public struct FeedPerson: Sendable, Codable, Equatable, Hashable {
    /// The person's name.
    public var name: String?
    /// The person's email address (Atom `email`, or the address in a text).
    public var email: String?
    /// The person's URI, resolved against `xml:base`.
    public var uri: String?
    /// The text as written, when it was split into `name` and `email`.
    public var raw: String?
    /// The URL of the person's image (`gd:image`), resolved against `xml:base`.
    public var avatar: String?

    /// A person; the arguments are stored as given.
    package init(name: String?, email: String? = nil, uri: String? = nil, raw: String? = nil, avatar: String? = nil) {
        self.name = name
        self.email = email
        self.uri = uri
        self.raw = raw
        self.avatar = avatar
    }

    init(_ v: FeedPersonView) {
        self.init(name: v.name.string, email: v.email.string,
                  uri: v.uri.isPresent ? FeedBytes.string(FeedURL.resolve(v.uri, baseChain: v.baseChain)) : nil,
                  raw: v.raw.string,
                  avatar: v.avatar.isPresent ? FeedBytes.string(FeedURL.resolve(v.avatar, baseChain: v.baseChain)) : nil)
    }

    /// The authors of a record's line (`FeedRecordView.forEachAuthor(_:)`).
    static func authors(_ record: FeedRecordView) -> [FeedPerson] {
        var out: [FeedPerson] = []
        record.forEachAuthor { out.append(FeedPerson($0)) }
        return out
    }

    /// The persons of `list` in a record's line: those that name someone.
    static func all(_ record: FeedRecordView, _ list: FeedList) -> [FeedPerson] {
        var out: [FeedPerson] = []
        record.forEachPerson(list) { out.append(FeedPerson($0)) }
        return out
    }
}

/// A category: RSS `category` (its `domain` as `scheme`), Atom `category`, `dc:subject`.
public struct FeedCategory: Sendable, Codable, Equatable, Hashable {
    /// The category itself (RSS: the element's text; Atom: `term`).
    public var term: String?
    /// The categorization scheme (RSS `domain`, Atom `scheme`).
    public var scheme: String?
    /// A human-readable label (Atom `label`).
    public var label: String?

    /// A category; the arguments are stored as given.
    package init(term: String?, scheme: String? = nil, label: String? = nil) {
        self.term = term
        self.scheme = scheme
        self.label = label
    }

    init(_ v: FeedCategoryView) { self.init(term: v.term.string, scheme: v.scheme.string, label: v.label.string) }

    /// The categories of a record's line (`FeedRecordView.forEachCategory(_:)`).
    static func all(_ record: FeedRecordView) -> [FeedCategory] {
        var out: [FeedCategory] = []
        record.forEachCategory { out.append(FeedCategory($0)) }
        return out
    }
}

/// An enclosure: a media file attached to an item (RSS `enclosure`, Atom
/// `link rel="enclosure"`).
public struct FeedEnclosure: Sendable, Codable, Equatable, Hashable {
    /// The file's URL, resolved against `xml:base`.
    public var url: String?
    /// The file's MIME type, as written.
    public var type: String?
    /// The file's length in bytes, as written.
    public var length: String?

    /// An enclosure; the arguments are stored as given.
    package init(url: String?, type: String? = nil, length: String? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }

    init(_ v: FeedEnclosureView) {
        self.init(url: v.url.isPresent ? FeedBytes.string(FeedURL.resolve(v.url, baseChain: v.baseChain)) : nil,
                  type: v.type.string, length: v.length.string)
    }
}

/// A date field: as written, and normalized when it parsed.
public struct FeedDateValue: Sendable, Codable, Equatable, Hashable {
    /// The date as written, trimmed.
    public var raw: String
    /// The date normalized to UTC; nil when the text is not a date format the schema
    /// knows (see docs/SCHEMA.md, "Dates").
    public var date: FeedDate?

    /// A date value; the arguments are stored as given.
    package init(raw: String, date: FeedDate?) {
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
    /// 0-based position of the item in its document.
    public var index: Int
    /// The identifier: RSS `guid`, Atom `id`, `dc:identifier`, RSS 1.0 `rdf:about`.
    public var id: String?
    /// For an id from an RSS `guid`: whether it is a permalink (RSS's default: true);
    /// nil for other ids.
    public var guidIsPermalink: Bool?
    /// The title.
    public var title: FeedText?
    /// The first alternate link's `href`, resolved against `xml:base`.
    public var link: String?
    /// Every link, in document order.
    public var links: [FeedLink]
    /// When the item was published: RSS `pubDate`, Atom `published` (0.3 `issued`),
    /// `dcterms:issued`, `dc:date`.
    public var published: FeedDateValue?
    /// When the item was last updated: Atom `updated` (0.3 `modified`), `dc:date`, `dcterms:modified`.
    public var updated: FeedDateValue?
    /// The authors: RSS `author`, `dc:creator`, Atom `author`; when there are none,
    /// `itunes:author` (`FeedRecordView.fallbackAuthor`).
    public var authors: [FeedPerson]
    /// The summary: RSS `description`, Atom `summary`.
    public var summary: FeedText?
    /// The full content: `content:encoded`, Atom `content`.
    public var content: FeedText?
    /// Atom `content`'s `src`: where content kept out of line is.
    public var contentSource: String?
    /// The categories, in document order: RSS `category`, Atom `category`, `dc:subject`;
    /// then the iTunes ones (`FeedRecordView.forEachCategory(_:)`).
    public var categories: [FeedCategory]
    /// The enclosures (media files), in document order.
    public var enclosures: [FeedEnclosure]
    /// True when the item's text passed the parser's per-item limit and was cut.
    public var isTruncated: Bool
    /// True when the recovery path read the item (``FeedItemView/isRecovered``).
    public var isRecovered: Bool
    /// The item's language (`dc:language`, or its `xml:lang`).
    public var language: String?
    /// The contributors: Atom `contributor`, `dc:contributor`.
    public var contributors: [FeedPerson]
    /// The rights: Atom `rights`, `dc:rights`.
    public var rights: FeedText?
    /// Every other member of the item's JSON line (docs/SCHEMA.md), flattened:
    /// "comments", "itunes.duration", "source.url", ...
    public var extensions: [String: String]
    /// Every other list of the item's JSON line, flattened: "media.content", ...;
    /// "extensions" holds the item's extension elements (docs/SCHEMA.md, "Extension
    /// elements").
    public var extensionLists: [String: [[String: String]]]
    /// The members of the item's JSON line whose text was UTF-8 read as ISO-8859-1 and
    /// is given read again as UTF-8 (its `redecoded` member: "title", "summary", ...);
    /// nil when none (``FeedBytes/isRedecoded``, docs/SCHEMA.md, "Encodings").
    public var redecoded: [String]?

    /// Copies a borrowed item view into plain values.
    public init(_ v: FeedItemView) {
        index = v.index
        id = v.id.string
        guidIsPermalink = v.guidIsPermalink
        title = FeedText(v.record, .title)
        link = v.link.string
        links = v.links.map(FeedLink.init)
        published = FeedDateValue(v.published)
        updated = FeedDateValue(v.updated)
        authors = FeedPerson.authors(v.record)
        summary = FeedText(v.record, .summary)
        content = FeedText(v.record, .content)
        contentSource = v.contentSource.string
        categories = FeedCategory.all(v.record)
        enclosures = v.enclosures.map(FeedEnclosure.init)
        isTruncated = v.isTruncated
        isRecovered = v.isRecovered
        language = v.record[.language].string
        contributors = FeedPerson.all(v.record, .contributors)
        rights = FeedText(v.record, .rights)
        var rest = ExtensionCollector(core: FeedItem.coreKeys)
        v.record.walk(RecordLayout.item, into: &rest)
        extensions = rest.values
        extensionLists = rest.lists
        redecoded = rest.redecoded.isEmpty ? nil : rest.redecoded
        if let l = v.record.primaryLink { link = FeedBytes.string(FeedURL.resolve(l.href, baseChain: l.baseChain)) }
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
    /// 1-based index of the document in its input.
    public var document: Int
    /// The feed's format, from its root element, namespace and version.
    public var format: FeedFormat
    /// The root element's `version` attribute, as written.
    public var version: String?
    /// The feed's title.
    public var title: FeedText?
    /// The feed's description: RSS `description`, Atom `subtitle` (0.3 `tagline`).
    public var subtitle: FeedText?
    /// The feed's identifier: Atom `id`, RSS 1.0 `rdf:about`.
    public var id: String?
    /// The first alternate link's `href`, resolved against `xml:base`: the site.
    public var link: String?
    /// Every link of the feed, in document order.
    public var links: [FeedLink]
    /// The feed's language: RSS `language`, `dc:language`, or the root's `xml:lang`.
    public var language: String?
    /// When the feed last changed: Atom `updated` (0.3 `modified`), RSS `lastBuildDate`,
    /// `dc:date`, `dcterms:modified`.
    public var updated: FeedDateValue?
    /// When the feed was published: RSS `pubDate`, `dcterms:issued`.
    public var published: FeedDateValue?
    /// Items in the document (delivered before any failure).
    public var itemCount: Int
    /// The feed's rights: RSS `copyright`, Atom `rights`, `dc:rights`.
    public var rights: FeedText?
    /// The feed's authors: Atom `author`, `dc:creator`; when there are none,
    /// `itunes:author`, else RSS `managingEditor` (`FeedRecordView.fallbackAuthor`).
    public var authors: [FeedPerson]
    /// The feed's contributors.
    public var contributors: [FeedPerson]
    /// The feed's categories: RSS `category`, Atom `category`, `dc:subject`; then the
    /// iTunes ones (`FeedRecordView.forEachCategory(_:)`).
    public var categories: [FeedCategory]
    /// Every other member of the feed's JSON line (docs/SCHEMA.md), flattened:
    /// "generator.name", "image.url", "itunes.owner_email", ...
    public var extensions: [String: String]
    /// Every other list of the feed's JSON line, flattened: "skip_hours", "itunes.categories", ...;
    /// "extensions" holds the feed's extension elements (docs/SCHEMA.md, "Extension elements").
    public var extensionLists: [String: [[String: String]]]
    /// The members of the feed's JSON line whose text was UTF-8 read as ISO-8859-1 and
    /// is given read again as UTF-8 (its `redecoded` member); nil when none.
    public var redecoded: [String]?

    /// Copies a borrowed feed view into plain values.
    public init(_ v: FeedInfoView) {
        document = v.document
        format = v.format
        version = v.version.string
        title = FeedText(v.record, .title)
        subtitle = FeedText(v.record, .summary)
        id = v.id.string
        link = v.link.string
        links = v.links.map(FeedLink.init)
        language = v.language.string
        updated = FeedDateValue(v.updated)
        published = FeedDateValue(v.published)
        itemCount = v.itemCount
        rights = FeedText(v.record, .rights)
        authors = FeedPerson.authors(v.record)
        contributors = FeedPerson.all(v.record, .contributors)
        categories = FeedCategory.all(v.record)
        var rest = ExtensionCollector(core: Feed.coreKeys)
        v.record.walk(RecordLayout.feed, into: &rest)
        extensions = rest.values
        extensionLists = rest.lists
        redecoded = rest.redecoded.isEmpty ? nil : rest.redecoded
        if let l = v.record.primaryLink { link = FeedBytes.string(FeedURL.resolve(l.href, baseChain: l.baseChain)) }
    }

    static let coreKeys: Set<String> = [
        "version", "title", "title_type", "title_lang", "subtitle", "subtitle_type", "subtitle_lang", "id", "link",
        "links", "language", "updated", "updated_raw", "published", "published_raw", "rights", "rights_type",
        "rights_lang", "authors", "contributors", "categories",
    ]
}

/// One document of an input: its feed fields, its items, and its error if it had one.
public struct FeedDocument: Sendable, Equatable {
    /// The document's feed-level fields.
    public var feed: Feed
    /// The document's items, in order (for a failed document: those before the failure).
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
    /// Arrays within a row (child rows, RecordLayout's `Column(_:rowsOf:parent:_:)`):
    /// the enclosing array's key and row, and the row's number. A child array is the
    /// list "<the enclosing list>.<key>", each of its rows with "parent_row", the number
    /// (from 0) of the row it belongs to in that list.
    private var outer: [(listKey: String?, row: [String: String]?, index: Int)] = []
    private var rowIndex = 0
    /// The line's members whose text the writers' rules read again (``FeedBytes/isRedecoded``),
    /// named as the JSON writer names them in `redecoded`: the top-level member.
    private(set) var redecoded: [String] = []
    /// JSON nesting depth, and the top-level member being walked.
    private var depth = 0
    private var top = ""

    init(core: Set<String>) { self.core = core }

    private func flat(_ key: StaticString) -> String { (path + ["\(key)"]).joined(separator: ".") }

    /// Notes `value` of member `key` (nil: an array's element) when it is read again.
    private mutating func note(_ key: StaticString?, _ value: UnsafeRawBufferPointer) {
        guard TextRules.applies(to: value) else { return }
        let name = depth == 0 ? key.map { "\($0)" } ?? top : top
        if redecoded.last != name { redecoded.append(name) }
    }

    private mutating func enter(_ key: StaticString?) {
        if depth == 0, let key { top = "\(key)" }
        depth += 1
    }

    mutating func string(_ key: StaticString, _ value: UnsafeRawBufferPointer) {
        collect(key, TextRules.trimmed(value))
    }

    mutating func decodedString(_ key: StaticString, _ value: UnsafeRawBufferPointer) { collect(key, value) }

    private mutating func collect(_ key: StaticString, _ value: UnsafeRawBufferPointer) {
        note(key, value)
        let v = FeedBytes.string(value, trimming: false)   // as the JSON writer writes it
        if row != nil { row!["\(key)"] = v; return }
        let k = flat(key)
        if path.isEmpty && core.contains(k) { return }
        values[k] = v
    }
    mutating func literal(_ key: StaticString, _ value: StaticString) {
        string(key, UnsafeRawBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
    }
    mutating func beginObject(_ key: StaticString) { enter(key); path.append("\(key)") }
    mutating func endObject() { depth -= 1; path.removeLast() }
    mutating func beginArray(_ key: StaticString) {
        enter(key)
        if row != nil {
            outer.append((listKey, row, rowIndex))
            listKey = listKey.map { "\($0).\(key)" }
            row = nil
        } else {
            let k = flat(key)
            listKey = path.isEmpty && core.contains(k) ? nil : k
        }
        if let listKey, lists[listKey] == nil { lists[listKey] = [] }
    }
    mutating func beginElement() {
        enter(nil)
        row = outer.isEmpty ? [:] : ["parent_row": String(outer[outer.count - 1].index)]
        rowIndex = listKey.flatMap { lists[$0]?.count } ?? 0   // its number in the flattened list
    }
    mutating func endElement() {
        depth -= 1
        if let listKey, let row { lists[listKey]?.append(row) }
        row = nil
    }
    mutating func element(_ value: UnsafeRawBufferPointer) {
        note(nil, TextRules.trimmed(value))
        if let listKey { lists[listKey]?.append(["value": FeedBytes.string(value)]) }
    }
    mutating func endArray() {
        depth -= 1
        if let o = outer.popLast() {
            (listKey, row, rowIndex) = o
        } else {
            listKey = nil
        }
    }
}
