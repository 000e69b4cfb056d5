// SPDX-License-Identifier: Apache-2.0
// The shape of a JSON line: which member holds which field or list, in which order
// (docs/SCHEMA.md is the same information in prose). The JSON Lines writer and the
// value model both walk these tables, so the output and `FeedItem`/`Feed` cannot
// drift apart.

/// One member of a line, and where its value comes from.
enum Member: Sendable {
    /// A string from a field.
    case string(StaticString, FeedField)
    /// A URL from a field, resolved against the xml:base chain in `base`.
    case url(StaticString, FeedField, base: FeedField)
    /// `key` (normalized, when the date parses) and `key_raw` (the second key).
    case date(StaticString, StaticString, FeedField)
    /// A text construct: `key`, `key_type`, `key_lang` when it differs from the
    /// record's language, and `key_base`, the `xml:base` in scope (the four keys, then
    /// the field; written with ``text(_:_:_:_:_:)``). Relative URIs in HTML and XHTML
    /// values are resolved against that base unless the sink keeps markup as written
    /// (MarkupURLs).
    case textConstruct(TableBox<TextKeys>, FeedField)
    /// `guid_is_permalink`.
    case permalink
    /// `link`: the first alternate link, else a permalink guid (FeedRecordView.primaryLink), resolved.
    case primaryLink
    /// An array of objects, one per row.
    case rows(StaticString, FeedList, TableArray<Column>)
    /// The cells of the list's first row, written as members of the enclosing object
    /// (nothing when the list is empty): a block whose first occurrence is the one
    /// readers query (`psc`'s `version` and `chapters`).
    case firstRow(FeedList, TableArray<Column>)
    /// An array of objects, one per row after the first (``firstRow(_:_:)`` writes the
    /// first).
    case laterRows(StaticString, FeedList, TableArray<Column>)
    /// An array of strings: column 0 of each row.
    case strings(StaticString, FeedList)
    /// An array of persons (`name`, `email`, `uri` resolved, `raw`): Atom's as written,
    /// those written as text split (FeedPersonView, PersonText).
    case persons(StaticString, FeedList)
    /// `authors`: the persons of the `authors` list, else the one person
    /// FeedRecordView.fallbackAuthor names.
    case authors
    /// `categories`: those FeedRecordView.forEachCategory hands out (the list's, then
    /// the iTunes ones).
    case categories
    /// `extensions`: the rows of the `extensions` list, then an RSS item's `summary`
    /// element that stands in for neither the summary nor the content
    /// (FeedRecordView.unusedRSSSummary), as the extension element it then is.
    case extensions
    /// A person written as text in a field, split: an object (`name`, `email`) written
    /// only when the text holds an email address (the field itself is written as a
    /// string member of its own).
    case person(StaticString, FeedField)
    /// A nested object, written only when one of its members is present (the mask
    /// says which fields and lists it draws on; written with ``obj(_:_:)``).
    case object(StaticString, TableArray<Member>, TableBox<FieldMask>)
    /// A boolean read from a field's text by `rule` (the field itself is written as a
    /// string member of its own); absent when the rule gives no meaning to the text.
    case flag(StaticString, FeedField, FlagRule)
    /// A value derived from a field (``Derivation``), written beside the field's own
    /// member; absent when the field does not have the form.
    case derived(StaticString, FeedField, TableBox<Derivation>)

    /// A derived member (``derived(_:_:_:)``).
    static func derive(_ key: StaticString, _ f: FeedField, _ d: Derivation) -> Member {
        .derived(key, f, TableBox(d))
    }

    /// A text construct member (``textConstruct(_:_:)``).
    static func text(_ key: StaticString, _ type: StaticString, _ lang: StaticString, _ base: StaticString,
                     _ f: FeedField) -> Member {
        .textConstruct(TableBox(TextKeys(value: key, type: type, lang: lang, base: base)), f)
    }
}

/// How a ``Member/derived(_:_:_:)`` member reads its field (QueryForms).
enum Derivation {
    /// The field as a BCP 47 tag.
    case languageTag
    /// A DCMI period's `start` or `end` component, as a normalized date.
    case periodStart, periodEnd
    /// The field as written; when absent and `owner` is present, `value`: the default the
    /// specification gives an attribute left out (Media RSS `scheme`, `type`).
    case orDefault(owner: FeedField, value: StaticString)

    var isStart: Bool {
        if case .periodStart = self { return true }
        return false
    }
}

/// How a ``Column`` writes its cell.
enum ColumnForm {
    /// As written.
    case asWritten
    /// A normal play time in seconds, as a number (QueryForms.playTimeSeconds).
    case seconds
    /// The words of a space-separated list, as an array of strings.
    case words
    /// As written, else (for a row with any cell) `value`: a specification's default.
    case orDefault(StaticString)
}

/// A text construct's four keys (``Member/textConstruct(_:_:)``).
struct TextKeys {
    let value, type, lang, base: StaticString
}

/// One value of a layout table, stored once for the life of the process as
/// ``TableArray``'s elements are: the large payloads of ``Member`` (a text construct's
/// keys, an object's mask) are held by pointer, so that a member is 56 bytes, not 112,
/// and the walk's `switch` reads less.
struct TableBox<Value>: @unchecked Sendable {
    let pointer: UnsafePointer<Value>

    init(_ value: Value) {
        let p = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        p.initialize(to: value)
        pointer = UnsafePointer(p)
    }

    var value: Value {
        @inline(__always) get { pointer.pointee }
    }
}

/// How a flag member reads its field's text: ASCII letters in any case, with the
/// whitespace around them ignored (docs/SCHEMA.md, "iTunes flags").
enum FlagRule {
    /// `itunes:explicit`: `yes`, `true`, `explicit` are true; `no`, `false`, `clean`
    /// are false; any other text gives no flag.
    case explicit
    /// `itunes:block`, `itunes:isClosedCaptioned`: `yes` is true, any other text false.
    case yes

    func read(_ v: FeedBytes) -> Bool? {
        guard v.isPresent else { return nil }
        let b = v.buffer
        var lo = 0, hi = b.count
        while lo < hi, FlagRule.isSpace(b[lo]) { lo += 1 }
        while hi > lo, FlagRule.isSpace(b[hi - 1]) { hi -= 1 }
        let start = lo, end = hi
        func `is`(_ word: StaticString) -> Bool { FlagRule.equals(b, start, end, word) }
        switch self {
        case .explicit:
            if `is`("yes") || `is`("true") || `is`("explicit") { return true }
            if `is`("no") || `is`("false") || `is`("clean") { return false }
            return nil
        case .yes:
            return `is`("yes")
        }
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Whether b[lo..<hi] is `word` (lower-case ASCII letters), ignoring ASCII case.
    private static func equals(_ b: UnsafeRawBufferPointer, _ lo: Int, _ hi: Int, _ word: StaticString) -> Bool {
        guard hi - lo == word.utf8CodeUnitCount else { return false }
        let w = word.utf8Start
        for i in 0..<(hi - lo) where b[lo + i] | 0x20 != w[i] { return false }
        return true
    }
}

/// Eight 64-bit words of presence bits (512 fields), aligned as `UInt64` is: the tables
/// are statically initialized arrays of members holding them, and a 512-bit
/// `SIMD8<UInt64>` there (64-byte aligned) made the one-time initialization of
/// ``RecordLayout/feed`` read past its global (AddressSanitizer, the differential fuzzer).
struct PresenceWords {
    private var w: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    var scalarCount: Int { 8 }

    subscript(i: Int) -> UInt64 {
        get {
            precondition(i >= 0 && i < 8)
            return withUnsafeBytes(of: w) { $0.load(fromByteOffset: i &* 8, as: UInt64.self) }
        }
        set {
            precondition(i >= 0 && i < 8)
            withUnsafeMutableBytes(of: &w) { $0.storeBytes(of: newValue, toByteOffset: i &* 8, as: UInt64.self) }
        }
    }
}

/// Fields (bits) and lists (bits) a member draws on, for quick presence checks.
/// Trivial to copy (no array): checking an absent object's mask retains nothing.
struct FieldMask {
    /// Presence bits of up to 512 fields (the first `SFM.presenceWords` words are used;
    /// scripts/generate-rules.py allows no more fields).
    var words = PresenceWords()
    var lists: UInt64 = 0   // at most 64 lists (scripts/generate-rules.py checks)

    init(_ members: [Member]) {
        precondition(SFM.presenceWords <= words.scalarCount, "FieldMask holds up to 512 fields")
        for m in members { add(m) }
    }

    private mutating func add(_ field: FeedField) {
        let f = field.rawValue
        words[f >> 6] |= 1 << UInt64(f & 63)
    }

    private mutating func add(_ m: Member) {
        switch m {
        case .string(_, let f), .url(_, let f, _), .date(_, _, let f), .person(_, let f), .flag(_, let f, _): add(f)
        case .textConstruct(_, let f):
            add(f)
            // An RSS item's summary stands in for the summary or content (FeedRecordView.text).
            if f == .summary || f == .content { add(.rssSummary) }
        case .derived(_, let f, let d):
            add(f)
            if case .orDefault(let owner, _) = d.value { add(owner) }
        case .permalink: add(.guidPermalink)
        case .primaryLink:   // an alternate link, else a permalink guid (FeedRecordView.primaryLink)
            lists |= 1 << UInt64(FeedList.links.rawValue)
            add(.guidPermalink)
        case .authors:   // the list, else the fields of FeedRecordView.fallbackAuthor
            lists |= 1 << UInt64(FeedList.authors.rawValue)
            add(.itunesAuthor)
            add(.managingEditor)
        case .extensions:
            lists |= 1 << UInt64(FeedList.extensions.rawValue)
            add(.rssSummary)
        case .categories:   // what FeedRecordView.forEachCategory reads
            lists |= 1 << UInt64(FeedList.categories.rawValue) | 1 << UInt64(FeedList.itunesCategories.rawValue)
            add(.itunesKeywords)
        case .rows(_, let l, _), .strings(_, let l), .persons(_, let l), .firstRow(let l, _), .laterRows(_, let l, _):
            lists |= 1 << UInt64(l.rawValue)   // (child rows come with their parent rows)
        case .object(_, let members, _): for x in members { add(x) }
        }
    }
}

/// A record's members in order, indexed by what each draws on (its ``FieldMask``): for
/// every field and every list, the members that read it. The walk ORs the members of
/// the record's present fields and non-empty lists into one set and dispatches those
/// only, in order; the absent ones (most of a record's ~40, with the vocabularies read)
/// cost nothing. (With a gate per member, tested in turn, the walk's own instructions
/// were ~2,510 a line; with the sets, ~1,740: callgrind, 300 generated files.) A member
/// in the set may still write nothing (a field present but blank, an object whose
/// fields are): its own case checks, as before.
struct MemberTable: ExpressibleByArrayLiteral, Sendable {
    let members: [Member]
    /// Per presence bit (``SFM/presenceWords`` words of 64), the members (bit i: member
    /// i) that read that field.
    let byField: TableArray<UInt64>
    /// The lists some member reads, and the members that read each.
    let lists: TableArray<(list: Int, members: UInt64)>

    init(_ members: [Member]) {
        precondition(members.count <= 64, "a member table holds up to 64 members (one bit each)")
        self.members = members
        var byField = [UInt64](repeating: 0, count: SFM.presenceWords &* 64)
        var byList = [UInt64](repeating: 0, count: 64)
        for (i, m) in members.enumerated() {
            let mask = FieldMask([m])
            let bit: UInt64 = 1 << UInt64(i)
            for w in 0..<SFM.presenceWords {
                var bits = mask.words[w]
                while bits != 0 {
                    byField[w &* 64 &+ bits.trailingZeroBitCount] |= bit
                    bits &= bits &- 1
                }
            }
            var lists = mask.lists
            while lists != 0 {
                byList[lists.trailingZeroBitCount] |= bit
                lists &= lists &- 1
            }
            precondition(mask.lists != 0 || (0..<SFM.presenceWords).contains { mask.words[$0] != 0 },
                         "a member draws on a field or a list")
        }
        self.byField = TableArray(byField)
        lists = TableArray(byList.indices.filter { byList[$0] != 0 }.map { (list: $0, members: byList[$0]) })
    }

    init(arrayLiteral members: Member...) { self.init(members) }
}

/// Elements of a layout table (a list's columns, an object's members), stored once for
/// the life of the process (the tables are built once, never freed), so that a member or
/// a column holding them is plain data: the walk reads them with no reference counting
/// (with `[Column]` and `[Member]` payloads and `ChildRows` a class, a retain and a
/// release per rows member, per column and per object: 2-5% of writing the dump).
/// Build them (and ``MemberTable``s, ``TableBox``es, members made with `obj` or `text`)
/// only in `static let`s: one built per call is never freed.
struct TableArray<Element>: RandomAccessCollection, ExpressibleByArrayLiteral, @unchecked Sendable {
    let buffer: UnsafeBufferPointer<Element>

    init(_ elements: [Element]) {
        let storage = UnsafeMutableBufferPointer<Element>.allocate(capacity: elements.count)
        _ = storage.initialize(from: elements)
        buffer = UnsafeBufferPointer(storage)
    }

    init(arrayLiteral elements: Element...) { self.init(elements) }

    var startIndex: Int { 0 }
    var endIndex: Int { buffer.count }
    subscript(i: Int) -> Element {
        @inline(__always) get { buffer[i] }
    }
}

/// A nested object member.
func obj(_ key: StaticString, _ members: [Member]) -> Member {
    .object(key, TableArray(members), TableBox(FieldMask(members)))
}

/// A column of a list written as a member of each row's object.
struct Column {
    let key: StaticString
    let index: Int
    /// The column holding the xml:base chain to resolve this one against.
    let base: Int?
    /// Not a column: the rows of another list whose `parent_row` column names this row
    /// (written as an array member of the row's object; `index` is unused).
    let children: ChildRows?
    /// How the cell is written.
    let form: ColumnForm

    init(_ key: StaticString, _ index: Int, base: Int? = nil, _ form: ColumnForm = .asWritten) {
        self.key = key
        self.index = index
        self.base = base
        self.children = nil
        self.form = form
    }

    /// An array member of each row: the rows of `list` whose column `parent` (the list's
    /// `parent_row`) holds the
    /// row's number (from 0), written with `columns`.
    init(_ key: StaticString, rowsOf list: FeedList, parent: Int, _ columns: TableArray<Column>) {
        self.key = key
        self.index = -1
        self.base = nil
        self.children = ChildRows(list: list, parent: parent, columns: columns)
        self.form = .asWritten
    }
}

/// The child rows of a `Column(_:rowsOf:parent:_:)`.
struct ChildRows: Sendable {
    let list: FeedList
    let parent: Int
    let columns: TableArray<Column>

    init(list: FeedList, parent: Int, columns: TableArray<Column>) {
        self.list = list
        self.parent = parent
        self.columns = columns
    }
}

enum RecordLayout {
    static let linkColumns: TableArray<Column> = [
        Column("href", 0, base: 6), Column("rel", 1), Column("type", 2), Column("hreflang", 3), Column("title", 4),
        Column("length", 5),
    ]
    static let links = Member.rows("links", .links, linkColumns)
    static let categoryColumns: TableArray<Column> = [Column("term", 0), Column("scheme", 1), Column("label", 2)]
    static let geo = obj("geo", [
        .string("point", .geoPoint), .string("lat", .geoLat), .string("long", .geoLong),
        // GeoRSS Simple and GML (geo-podcast): coordinates as written.
        .string("line", .geoLine), .string("polygon", .geoPolygon), .string("box", .geoBox),
        .string("featuretypetag", .geoFeaturetypetag), .string("relationshiptag", .geoRelationshiptag),
        .string("featurename", .geoFeaturename), .string("elev", .geoElev), .string("floor", .geoFloor),
        .string("radius", .geoRadius),
        obj("where", [
            .string("point", .geoWherePoint), .string("line", .geoWhereLine), .string("polygon", .geoWherePolygon),
            .string("lower_corner", .geoWhereLower), .string("upper_corner", .geoWhereUpper),
            .string("srs_name", .geoWhereSrsName), .string("srs_dimension", .geoWhereSrsDimension),
        ]),
    ])
    static let dc = obj("dc", [
        .string("publisher", .dcPublisher), .string("source", .dcSource), .string("relation", .dcRelation),
        .string("coverage", .dcCoverage), .string("format", .dcFormat), .string("type", .dcType),
        .string("valid", .dcValid), .derive("valid_start", .dcValid, .periodStart),
        .derive("valid_end", .dcValid, .periodEnd), .person("publisher_detail", .dcPublisher),
        // The other DCMI terms, in alphabetical order.
        .string("abstract", .dcAbstract), .string("access_rights", .dcAccessRights),
        .string("accrual_method", .dcAccrualMethod), .string("accrual_periodicity", .dcAccrualPeriodicity),
        .string("accrual_policy", .dcAccrualPolicy), .string("alternative", .dcAlternative),
        .string("audience", .dcAudience), .string("available", .dcAvailable),
        .string("bibliographic_citation", .dcBibliographicCitation), .string("conforms_to", .dcConformsTo),
        .string("date_accepted", .dcDateAccepted), .string("date_copyrighted", .dcDateCopyrighted),
        .string("date_submitted", .dcDateSubmitted), .string("education_level", .dcEducationLevel),
        .string("extent", .dcExtent), .string("has_format", .dcHasFormat), .string("has_part", .dcHasPart),
        .string("has_version", .dcHasVersion), .string("instructional_method", .dcInstructionalMethod),
        .string("is_format_of", .dcIsFormatOf), .string("is_part_of", .dcIsPartOf),
        .string("is_referenced_by", .dcIsReferencedBy), .string("is_replaced_by", .dcIsReplacedBy),
        .string("is_required_by", .dcIsRequiredBy), .string("is_version_of", .dcIsVersionOf),
        .string("mediator", .dcMediator), .string("medium", .dcMedium), .string("provenance", .dcProvenance),
        .string("references", .dcReferences), .string("replaces", .dcReplaces), .string("requires", .dcRequires),
        .string("rights_holder", .dcRightsHolder), .string("spatial", .dcSpatial),
        .string("table_of_contents", .dcTableOfContents), .string("temporal", .dcTemporal),
    ])
    /// PRISM's bibliographic elements: an article's on its item, a journal's on the feed.
    static let prism = obj("prism", [
        .string("doi", .prismDoi), .string("publication_name", .prismPublicationName),
        .string("publication_date", .prismPublicationDate), .string("cover_date", .prismCoverDate),
        .string("volume", .prismVolume), .string("number", .prismNumber),
        .string("starting_page", .prismStartingPage), .string("ending_page", .prismEndingPage),
        .string("section", .prismSection), .string("issn", .prismIssn),
        .string("e_issn", .prismEIssn), .string("url", .prismUrl), .string("page_range", .prismPageRange),
        .string("issue_name", .prismIssueName), .string("isbn", .prismIsbn), .string("edition", .prismEdition),
        .string("cover_display_date", .prismCoverDisplayDate), .string("copyright", .prismCopyright),
        .string("aggregation_type", .prismAggregationType),
    ])
    static let media = obj("media", [
        .string("title", .mediaTitle), .string("description", .mediaDescription),
        .string("keywords", .mediaKeywords), .string("rating", .mediaRating),
        // Media RSS 1.5.1 in full.
        .derive("title_type", .mediaTitleType, .orDefault(owner: .mediaTitle, value: "plain")),
        .derive("description_type", .mediaDescriptionType, .orDefault(owner: .mediaDescription, value: "plain")),
        .derive("rating_scheme", .mediaRatingScheme, .orDefault(owner: .mediaRating, value: "urn:simple")),
        .string("copyright", .mediaCopyright), .string("copyright_url", .mediaCopyrightUrl),
        .rows("content", .media, [
            Column("url", 0), Column("type", 1), Column("medium", 2), Column("is_default", 3),
            Column("expression", 4), Column("bitrate", 5), Column("framerate", 6), Column("samplingrate", 7),
            Column("channels", 8), Column("duration", 9), Column("height", 10), Column("width", 11),
            Column("lang", 12), Column("file_size", 13),
        ]),
        .rows("thumbnails", .thumbnails, [Column("url", 0), Column("width", 1), Column("height", 2), Column("time", 3)]),
        .rows("credits", .credits, [Column("name", 0), Column("role", 1), Column("scheme", 2)]),
        // Media RSS 1.5.1 in full.
        .rows("categories", .mediaCategories, [
            Column("term", 0), Column("scheme", 1, .orDefault("http://search.yahoo.com/mrss/category_schema")),
            Column("label", 2),
        ]),
        .rows("restrictions", .mediaRestrictions, [
            Column("value", 0), Column("values", 0, .words), Column("relationship", 1), Column("type", 2),
        ]),
        .rows("licenses", .mediaLicenses, [Column("text", 0), Column("type", 1), Column("href", 2)]),
        .rows("players", .mediaPlayers, [Column("url", 0), Column("height", 1), Column("width", 2)]),
        .rows("hashes", .mediaHashes, [Column("value", 0), Column("algo", 1)]),
        .rows("texts", .mediaTexts, [
            Column("text", 0), Column("type", 1), Column("lang", 2), Column("start", 3), Column("end", 4),
        ]),
        obj("community", [
            obj("star_rating", [
                .string("average", .mediaStarAverage), .string("count", .mediaStarCount),
                .string("min", .mediaStarMin), .string("max", .mediaStarMax),
            ]),
            obj("statistics", [.string("views", .mediaViews), .string("favorites", .mediaFavorites)]),
            .string("tags", .mediaTags),
        ]),
        .rows("subtitles", .mediaSubtitles, [Column("href", 0), Column("type", 1), Column("lang", 2)]),
        .rows("peer_links", .mediaPeerLinks, [Column("href", 0), Column("type", 1)]),
        .rows("prices", .mediaPrices, [Column("price", 0), Column("currency", 1), Column("type", 2), Column("info", 3)]),
        .string("status_state", .mediaStatusState), .string("status_reason", .mediaStatusReason),
    ])
    static let podcastPeople = Member.rows("persons", .persons, [
        Column("name", 0), Column("role", 1), Column("group", 2), Column("img", 3), Column("href", 4),
    ])
    static let itunesCategoryColumns: TableArray<Column> = [Column("text", 0), Column("parent", 1)]
    static let podcastFunding = Member.rows("funding", .funding, [Column("url", 0), Column("text", 1)])

    // Podcasting 2.0 members of both lines (geo-podcast).
    static let podcastShared: [Member] = [
        .rows("locations", .locations, [
            Column("text", 0), Column("geo", 1), Column("osm", 2), Column("rel", 3), Column("country", 4),
        ]),
        .string("license", .podcastLicense), .string("license_url", .podcastLicenseUrl),
        .string("images_srcset", .podcastImagesSrcset),
        .rows("images", .podcastImages, [
            Column("href", 0), Column("alt", 1), Column("aspect_ratio", 2), Column("width", 3), Column("height", 4),
            Column("type", 5), Column("purpose", 6),
        ]),
        .rows("txt", .txts, [Column("text", 0), Column("purpose", 1)]),
        .rows("value", .values, [
            Column("type", 0), Column("method", 1), Column("suggested", 2),
            Column("recipients", rowsOf: .valueRecipients, parent: 7, recipientColumns),
            Column("time_splits", rowsOf: .valueTimeSplits, parent: 4, [
                Column("start_time", 0), Column("duration", 1), Column("remote_start_time", 2),
                Column("remote_percentage", 3),
                Column("recipients", rowsOf: .timeSplitRecipients, parent: 7, recipientColumns),
                Column("remote_items", rowsOf: .timeSplitRemoteItems, parent: 4, remoteItemColumns),
            ]),
        ]),
        .rows("remote_items", .remoteItems, remoteItemColumns),
        .string("chat_server", .podcastChatServer), .string("chat_protocol", .podcastChatProtocol),
        .string("chat_account_id", .podcastChatAccountId), .string("chat_space", .podcastChatSpace),
    ]
    static let remoteItemColumns: TableArray<Column> = [Column("feed_guid", 0), Column("item_guid", 1), Column("feed_url", 2), Column("medium", 3)]
    static let recipientColumns: TableArray<Column> = [
        Column("name", 0), Column("custom_key", 1), Column("custom_value", 2), Column("type", 3),
        Column("address", 4), Column("split", 5), Column("fee", 6),
    ]

    /// An item line, after its common members (schema, kind, source, document).
    static let item: MemberTable = [
        .string("id", .id),
        .permalink,
        .string("language", .language), .derive("language_tag", .language, .languageTag),
        .text("title", "title_type", "title_lang", "title_base", .title),
        .primaryLink,
        links,
        .date("published", "published_raw", .published),
        .date("updated", "updated_raw", .updated),
        .date("created", "created_raw", .created),
        .date("expired", "expired_raw", .expired),
        .authors,
        .persons("contributors", .contributors),
        .text("summary", "summary_type", "summary_lang", "summary_base", .summary),
        .text("content", "content_type", "content_lang", "content_base", .content),
        .url("content_src", .contentSrc, base: .contentBase),
        .text("rights", "rights_type", "rights_lang", "rights_base", .rights),
        .string("license", .license),
        .categories,
        .rows("enclosures", .enclosures, [Column("url", 0, base: 3), Column("type", 1), Column("length", 2)]),
        .url("comments", .comments, base: .base),
        .url("comments_feed", .commentRss, base: .base),
        .string("comment_count", .commentCount),
        obj("slash", [
            .string("section", .slashSection), .string("department", .slashDepartment),
            .string("hit_parade", .slashHitParade),
        ]),
        obj("source_feed", [
            .text("title", "title_type", "title_lang", "title_base", .sourceTitle),
            .url("url", .sourceUrl, base: .base), .string("id", .sourceId),
            .string("updated", .sourceUpdated),
            .text("subtitle", "subtitle_type", "subtitle_lang", "subtitle_base", .sourceSubtitle),
            .text("rights", "rights_type", "rights_lang", "rights_base", .sourceRights),
            obj("generator", [
                .string("name", .sourceGenerator), .url("uri", .sourceGeneratorUri, base: .base),
                .string("version", .sourceGeneratorVersion),
            ]),
            .url("icon", .sourceIcon, base: .base),
            .url("logo", .sourceLogo, base: .base),
            .rows("links", .sourceLinks, linkColumns),
            .persons("authors", .sourceAuthors),
            .persons("contributors", .sourceContributors),
            .rows("categories", .sourceCategories, categoryColumns),
        ]),
        dc,
        geo,
        obj("feedburner", [
            .url("orig_link", .feedburnerOrigLink, base: .base),
            .url("orig_enclosure_link", .feedburnerOrigEnclosureLink, base: .base),
        ]),
        obj("youtube", [.string("video_id", .youtubeVideoId), .string("channel_id", .youtubeChannelId)]),
        obj("wordpress", [.string("post_id", .wordpressPostId)]),
        obj("googleplay", [
            .string("author", .googleplayAuthor), .string("description", .googleplayDescription),
            .string("explicit", .googleplayExplicit), .string("block", .googleplayBlock),
            .url("image", .googleplayImage, base: .base),
        ]),
        prism,
        obj("itunes", [
            .string("author", .itunesAuthor), .person("author_detail", .itunesAuthor), .string("duration", .itunesDuration),
            .string("explicit", .itunesExplicit), .url("image", .itunesImage, base: .base),
            .string("episode", .itunesEpisode), .string("season", .itunesSeason),
            .string("episode_type", .itunesEpisodeType), .string("title", .itunesTitle),
            .string("summary", .itunesSummary), .string("subtitle", .itunesSubtitle),
            .string("block", .itunesBlock), .string("keywords", .itunesKeywords),
            // iTunes at item level.
            .flag("is_explicit", .itunesExplicit, .explicit), .flag("is_blocked", .itunesBlock, .yes),
            .rows("categories", .itunesCategories, itunesCategoryColumns),
            .string("order", .itunesOrder), .string("closed_captioned", .itunesClosedCaptioned),
            .flag("is_closed_captioned", .itunesClosedCaptioned, .yes),
        ]),
        media,
        obj("podcast", [
            .string("season", .podcastSeason), .string("episode", .podcastEpisode),
            .string("chapters_url", .podcastChaptersUrl), .string("chapters_type", .podcastChaptersType),
            .rows("transcripts", .transcripts, [Column("url", 0), Column("type", 1), Column("language", 2), Column("rel", 3)]),
            podcastPeople,
            podcastFunding,
            // geo-podcast
            .string("season_name", .podcastSeasonName), .string("episode_display", .podcastEpisodeDisplay),
            .string("live_status", .podcastLiveStatus), .string("live_start", .podcastLiveStart),
            .string("live_end", .podcastLiveEnd),
            .rows("soundbites", .soundbites, [Column("start_time", 0), Column("duration", 1), Column("text", 2)]),
            .rows("alternate_enclosures", .altEnclosures, [
                Column("type", 0), Column("length", 1), Column("bitrate", 2), Column("height", 3), Column("lang", 4),
                Column("title", 5), Column("rel", 6), Column("codecs", 7), Column("default", 8),
                Column("sources", rowsOf: .altEnclosureSources, parent: 2, [Column("uri", 0), Column("content_type", 1)]),
                Column("integrity", rowsOf: .altEnclosureIntegrity, parent: 2, [Column("type", 0), Column("value", 1)]),
            ]),
            .rows("content_links", .contentLinks, [Column("href", 0), Column("text", 1)]),
            .rows("social_interacts", .socialInteracts, [
                Column("uri", 0), Column("protocol", 1), Column("account_id", 2), Column("account_url", 3),
                Column("priority", 4),
            ]),
        ] + podcastShared),
        psc,
        obj("json_feed", [
            .string("content_text", .jsonContentText),
            .url("image", .jsonImage, base: .base), .url("banner_image", .jsonBannerImage, base: .base),
            jsonAuthors,
            .rows("attachments", .jsonAttachments, [
                Column("url", 0), Column("mime_type", 1), Column("title", 2), Column("size_in_bytes", 3),
                Column("duration_in_seconds", 4),
            ]),
            jsonExtensions,
        ]),
        extensionElements,
    ]

    /// Extension elements no rule reads (docs/SCHEMA.md, "Extension elements"), of the
    /// item or the feed: one row per element's text and per attribute.
    static let extensionElements = Member.extensions
    static let extensionColumns: TableArray<Column> = [
        Column("namespace", 0), Column("name", 1), Column("attribute", 2), Column("value", 3),
    ]

    /// Podlove Simple Chapters: the first `psc:chapters` block's `version` and `chapters`
    /// (the block readers query, feedparser's `psc_chapters`), the blocks after it apart
    /// in `later_blocks`.
    static let psc: Member = {
        let chapter: TableArray<Column> = [
            Column("start", 0), Column("start_seconds", 0, .seconds), Column("title", 1), Column("href", 2),
            Column("image", 3),
        ]
        let block: TableArray<Column> = [
            Column("version", 0), Column("chapters", rowsOf: .pscChapters, parent: 4, chapter),
        ]
        return obj("psc", [.firstRow(.pscBlocks, block), .laterRows("later_blocks", .pscBlocks, block)])
    }()

    // JSON Feed's own members (docs/SCHEMA.md, "JSON Feed"), beside the shared ones.
    static let jsonAuthors = Member.rows("authors", .jsonAuthors, [Column("name", 0), Column("url", 1), Column("avatar", 2)])
    static let jsonExtensions = Member.rows("extensions", .jsonExtensions, [Column("key", 0), Column("json", 1)])

    /// A feed line, after its common members and `format`.
    /// The feed members repeated in every item line (its `feed` object), after `title`.
    /// A constant, so writing an item builds no array.
    /// The fields the item and feed layouts write as text constructs (``Member/textConstruct(_:_:)``,
    /// inside objects too): the value model reads each through a table of its own (FeedText).
    static var textConstructFields: Set<FeedField> {
        func collect(_ members: some Sequence<Member>, into fields: inout Set<FeedField>) {
            for m in members {
                switch m {
                case .textConstruct(_, let f): fields.insert(f)
                case .object(_, let inner, _): collect(inner, into: &fields)
                default: break
                }
            }
        }
        var fields = Set<FeedField>()
        collect(item.members, into: &fields)
        collect(feed.members, into: &fields)
        return fields
    }

    static let itemFeed: MemberTable = [
        .primaryLink, .string("id", .id), .string("language", .language), .derive("language_tag", .language, .languageTag),
    ]

    static let feed: MemberTable = [
        .string("version", .version),
        .string("encoding", .encoding),
        .text("title", "title_type", "title_lang", "title_base", .title),
        .text("subtitle", "subtitle_type", "subtitle_lang", "subtitle_base", .summary),
        .text("info", "info_type", "info_lang", "info_base", .info),
        .string("id", .id),
        .primaryLink,
        links,
        .string("language", .language), .derive("language_tag", .language, .languageTag),
        .date("updated", "updated_raw", .updated),
        .date("published", "published_raw", .published),
        .date("created", "created_raw", .created),
        .text("rights", "rights_type", "rights_lang", "rights_base", .rights),
        .string("license", .license),
        .authors,
        .persons("contributors", .contributors),
        .categories,
        obj("generator", [
            .string("name", .generator), .url("uri", .generatorUri, base: .base), .string("version", .generatorVersion),
        ]),
        .url("icon", .icon, base: .base),
        .url("logo", .logo, base: .base),
        obj("image", [
            .url("url", .imageUrl, base: .base), .string("title", .imageTitle), .url("link", .imageLink, base: .base),
            .string("width", .imageWidth), .string("height", .imageHeight), .string("description", .imageDescription),
        ]),
        obj("text_input", [
            .string("title", .textinputTitle), .string("description", .textinputDescription),
            .string("name", .textinputName), .url("link", .textinputLink, base: .base),
        ]),
        obj("cloud", [
            .string("domain", .cloudDomain), .string("port", .cloudPort), .string("path", .cloudPath),
            .string("register_procedure", .cloudProcedure), .string("protocol", .cloudProtocol),
        ]),
        .string("ttl", .ttl),
        .url("docs", .docs, base: .base),
        .string("new_location", .newLocation),
        .string("error_reports_to", .errorReportsTo),
        .string("managing_editor", .managingEditor),
        .person("managing_editor_detail", .managingEditor),
        .string("webmaster", .webmaster),
        .person("webmaster_detail", .webmaster),
        .strings("skip_hours", .skipHours),
        .strings("skip_days", .skipDays),
        obj("sy", [
            .string("update_period", .syPeriod), .string("update_frequency", .syFrequency),
            .string("update_base", .syBase),
        ]),
        dc,
        geo,
        obj("feedburner", [
            .string("info_uri", .feedburnerInfoUri), .string("browser_friendly", .feedburnerBrowserFriendly),
            .string("email_service_id", .feedburnerEmailServiceId), .string("hostname", .feedburnerHostname),
        ]),
        obj("blog_channel", [
            .url("blog_roll", .blogRoll, base: .base), .url("my_subscriptions", .mySubscriptions, base: .base),
            .url("blink", .blink, base: .base), .url("changes", .changes, base: .base),
        ]),
        obj("youtube", [.string("channel_id", .youtubeChannelId), .string("playlist_id", .youtubePlaylistId)]),
        obj("wordpress", [.string("site", .wordpressSite)]),
        obj("googleplay", [
            .string("author", .googleplayAuthor), .string("email", .googleplayEmail), .string("owner", .googleplayOwner),
            .string("description", .googleplayDescription), .string("category", .googleplayCategory),
            .string("explicit", .googleplayExplicit), .string("block", .googleplayBlock),
            .url("image", .googleplayImage, base: .base),
        ]),
        prism,
        obj("itunes", [
            .string("author", .itunesAuthor), .person("author_detail", .itunesAuthor), .string("explicit", .itunesExplicit), .url("image", .itunesImage, base: .base),
            .string("title", .itunesTitle), .string("summary", .itunesSummary), .string("subtitle", .itunesSubtitle),
            .string("type", .itunesType), .string("block", .itunesBlock), .string("complete", .itunesComplete),
            .string("new_feed_url", .itunesNewFeedUrl), .string("keywords", .itunesKeywords),
            .string("owner_name", .itunesOwnerName), .string("owner_email", .itunesOwnerEmail),
            .rows("categories", .itunesCategories, itunesCategoryColumns),
            .flag("is_explicit", .itunesExplicit, .explicit), .flag("is_blocked", .itunesBlock, .yes),
        ]),
        media,
        obj("podcast", [
            .string("guid", .podcastGuid), .string("locked", .podcastLocked),
            .string("locked_owner", .podcastLockedOwner), .string("medium", .podcastMedium),
            podcastPeople,
            podcastFunding,
            // geo-podcast
            .rows("trailers", .trailers, [
                Column("url", 0), Column("pubdate", 1), Column("length", 2), Column("type", 3), Column("season", 4),
                Column("text", 5),
            ]),
            .rows("block", .blocks, [Column("text", 0), Column("id", 1)]),
            .string("update_frequency", .podcastUpdateFrequency),
            .string("update_frequency_complete", .podcastUpdateFrequencyComplete),
            .string("update_frequency_dtstart", .podcastUpdateFrequencyDtstart),
            .string("update_frequency_rrule", .podcastUpdateFrequencyRrule),
            .string("podping", .podcastPodping),
            .rows("podroll", .podroll, remoteItemColumns),
            .string("publisher_feed_guid", .podcastPublisherFeedGuid),
            .string("publisher_feed_url", .podcastPublisherFeedUrl),
            .string("publisher_medium", .podcastPublisherMedium),
        ] + podcastShared),
        obj("json_feed", [
            .string("user_comment", .jsonUserComment),
            .url("next_url", .jsonNextUrl, base: .base),
            .flag("expired", .jsonExpired, .explicit),
            jsonAuthors,
            .rows("hubs", .jsonHubs, [Column("type", 0), Column("url", 1)]),
            jsonExtensions,
        ]),
        extensionElements,
    ]
}

// MARK: - Member types

/// What a member holds, as written: the one statement of each member's type, from which
/// `feedstream schema` derives the DuckDB, Spark and JSON Schema descriptions
/// (RecordSchema.swift). The layout members above carry theirs by their case; the
/// members the writer puts around them (`schema`, `kind`, ..., `items`, `error`) are
/// listed below, next to the layout, and a test checks real output against the lot.
package indirect enum MemberType: Equatable, Sendable {
    /// Text as written in the feed (also numbers a feed writes, such as `ttl`: a feed
    /// may write anything there, and it is passed on, never converted).
    case string
    /// A number the converter itself writes (`document`, `index`, `items`, ...).
    case integer
    /// A number the converter derives from the feed's text (`start_seconds`).
    case number
    case boolean
    /// A normalized date: RFC 3339 in UTC (docs/SCHEMA.md, "Dates").
    case timestamp
    case array(MemberType)
    case object([MemberField])
}

/// A member's key and type.
package struct MemberField: Equatable, Sendable {
    package let key: String
    package let type: MemberType

    package init(_ key: String, _ type: MemberType) {
        self.key = key
        self.type = type
    }
}

extension Member {
    /// The keys this member may write, with their types.
    var fields: [MemberField] {
        func k(_ s: StaticString) -> String { s.description }
        switch self {
        case .string(let key, _), .url(let key, _, _): return [MemberField(k(key), .string)]
        case .date(let key, let raw, _): return [MemberField(k(key), .timestamp), MemberField(k(raw), .string)]
        case .textConstruct(let keys, _):
            let t = keys.value
            return [MemberField(k(t.value), .string), MemberField(k(t.type), .string), MemberField(k(t.lang), .string),
                    MemberField(k(t.base), .string)]
        case .permalink: return [MemberField("guid_is_permalink", .boolean)]
        case .primaryLink: return [MemberField("link", .string)]
        case .rows(let key, _, let columns), .laterRows(let key, _, let columns):
            return [MemberField(k(key), Column.arrayType(columns))]
        case .firstRow(_, let columns): return Column.fields(columns)
        case .strings(let key, _): return [MemberField(k(key), .array(.string))]
        case .persons(let key, _):
            return [MemberField(k(key), .array(.object(["name", "email", "uri", "raw", "avatar"].map { MemberField($0, .string) })))]
        case .authors: return Member.persons("authors", .authors).fields
        case .categories: return Member.rows("categories", .categories, RecordLayout.categoryColumns).fields
        case .extensions: return Member.rows("extensions", .extensions, RecordLayout.extensionColumns).fields
        case .person(let key, _):
            return [MemberField(k(key), .object([MemberField("name", .string), MemberField("email", .string)]))]
        case .object(let key, let members, _): return [MemberField(k(key), .object(members.flatMap(\.fields)))]
        case .flag(let key, _, _): return [MemberField(k(key), .boolean)]
        case .derived(let key, _, let d):
            switch d.value {
            case .periodStart, .periodEnd: return [MemberField(k(key), .timestamp)]
            case .languageTag, .orDefault: return [MemberField(k(key), .string)]
            }
        }
    }
}

extension Column {
    /// The type of an array of rows written with `columns`.
    static func arrayType(_ columns: TableArray<Column>) -> MemberType {
        .array(.object(fields(columns)))
    }

    /// The members of a row written with `columns`.
    static func fields(_ columns: TableArray<Column>) -> [MemberField] {
        columns.map {
            let type: MemberType
            switch $0.form {
            case .seconds: type = .number
            case .words: type = .array(.string)
            case .asWritten, .orDefault: type = $0.children.map { arrayType($0.columns) } ?? .string
            }
            return MemberField($0.key.description, type)
        }
    }
}

extension RecordLayout {
    /// The members every line starts with (JSONLinesWriter's `header`).
    static let commonFields: [MemberField] = [
        MemberField("schema", .integer), MemberField("kind", .string), MemberField("source", .string),
        // Documents read from a web archive (JSONLinesWriter.warc, docs/SCHEMA.md "Web archives").
        MemberField("warc", .object([MemberField("record_id", .string), MemberField("target_uri", .string),
                                     MemberField("date", .string), MemberField("offset", .integer)])),
        MemberField("document", .integer),
    ]

    /// An item line's members after the common ones: its index, its feed object, the
    /// layout's members, `redecoded`, `truncated` and `recovered`.
    package static var itemFields: [MemberField] {
        [MemberField("index", .integer),
         MemberField("feed", .object([MemberField("format", .string), MemberField("title", .string)]
                                     + itemFeed.members.flatMap(\.fields)))]
            + item.members.flatMap(\.fields)
            + [redecodedField, MemberField("truncated", .boolean), MemberField("recovered", .boolean)]
    }

    /// The members whose text was read again as UTF-8 (JSONLinesWriter's `writeRedecoded`).
    static let redecodedField = MemberField("redecoded", .array(.string))

    /// A failed document's `error` object (JSONLinesWriter's `writeError`).
    static let errorField = MemberField("error", .object([
        MemberField("code", .string), MemberField("message", .string), MemberField("line", .integer),
        MemberField("column", .integer), MemberField("offset", .integer), MemberField("skipped", .integer),
    ]))

    /// A feed line's members after the common ones; `items` is the document's item count;
    /// `recovered` follows the error of a document the recovery path read.
    package static var feedFields: [MemberField] {
        [MemberField("format", .string)] + feed.members.flatMap(\.fields)
            + [MemberField("items", .integer), redecodedField, errorField, MemberField("recovered", .boolean)]
    }

    /// Every member of an item line.
    package static var itemLine: [MemberField] { commonFields + itemFields }
    /// Every member of a feed line.
    package static var feedLine: [MemberField] { commonFields + feedFields }
    /// Every member of a document line (`--per feed`): the feed line's, with `items` the
    /// array of the document's item objects (item lines without the common members).
    package static var documentLine: [MemberField] {
        commonFields + feedFields.map { $0.key == "items" ? MemberField("items", .array(.object(itemFields))) : $0 }
    }
}

/// Receives a record's members as the layout is walked.
protocol RecordSink: ~Copyable {
    /// False to write HTML and XHTML text constructs as written (no URI resolution).
    var resolvesMarkupURIs: Bool { get }
    /// The document's location when known (empty otherwise): the base outside every
    /// xml:base. Bytes the sink owns, valid while it lives.
    var documentBytes: UnsafeRawBufferPointer { get }
    /// A string member from the document: the sink applies the text rules (TextRules.swift).
    mutating func string(_ key: StaticString, _ value: UnsafeRawBufferPointer)
    /// A string member decoded from the document's text (base64): the text rules but the
    /// trim, which came before the decoding (feedparser strips, then decodes).
    mutating func decodedString(_ key: StaticString, _ value: UnsafeRawBufferPointer)
    mutating func literal(_ key: StaticString, _ value: StaticString)
    /// A number member whose digits `write` writes (at most `maxLength` bytes, returning
    /// how many): a JSON number derived from the document's text.
    mutating func number(_ key: StaticString, maxLength: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int)
    /// A string member whose value `write` writes (at most `maxLength` bytes, returning
    /// how many): ASCII that needs no escaping and no text rule (a normalized date).
    mutating func formatted(_ key: StaticString, maxLength: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int)
    mutating func beginObject(_ key: StaticString)
    mutating func endObject()
    mutating func beginArray(_ key: StaticString)
    mutating func beginElement()
    mutating func endElement()
    mutating func element(_ value: UnsafeRawBufferPointer)
    mutating func endArray()
}

extension RecordSink where Self: ~Copyable {
    var resolvesMarkupURIs: Bool { true }
    var documentBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    mutating func number(_ key: StaticString, maxLength: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        formatted(key, maxLength: maxLength, write)
    }

    mutating func formatted(_ key: StaticString, maxLength: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength) { buf in
            let n = write(buf.baseAddress!)
            string(key, UnsafeRawBufferPointer(start: buf.baseAddress, count: n))
        }
    }
}

extension FeedRecordView {
    /// False when none of the mask's fields and lists can be present.
    @inline(__always)
    func mayHave(_ mask: FieldMask) -> Bool {
        for w in 0..<SFM.presenceWords where presence[w] & mask.words[w] != 0 { return true }
        var lists = mask.lists   // only the lists the mask names, lowest first
        while lists != 0 {
            if hasRows(at: lists.trailingZeroBitCount) { return true }
            lists &= lists &- 1
        }
        return false
    }

    /// True when `member` would write anything for this record.
    func has(_ member: Member) -> Bool {
        withUnsafePointer(to: member) { has($0) }
    }

    private func has(_ member: UnsafePointer<Member>) -> Bool {
        switch member.pointee {
        case .string(_, let f), .url(_, let f, _), .date(_, _, let f): return isSet(f) && self[f].isPresent
        case .textConstruct(_, let f): return text(f).value.isPresent
        case .permalink: return self[.guidPermalink].isPresent
        case .primaryLink: return primaryLink != nil
        case .rows(_, let l, _), .strings(_, let l): return !rows(l).isEmpty
        case .firstRow(let l, let columns):
            // A cell of the first row, or a child row (an empty block writes nothing).
            guard let row = rows(l).first else { return false }
            return columns.contains { c in c.children.map { !rows($0.list).isEmpty } ?? row[c.index].isPresent }
        case .laterRows(_, let l, _): return rows(l).count > 1
        case .persons(_, let l):
            var any = false
            forEachPerson(l) { _ in any = true }
            return any
        case .authors:
            var any = false
            forEachAuthor { _ in any = true }
            return any
        case .categories:
            var any = false
            forEachCategory { _ in any = true }
            return any
        case .extensions: return !rows(.extensions).isEmpty || unusedRSSSummary != nil
        case .person(_, let f): return isSet(f) && FeedPersonView.split(field: self[f]) != nil
        case .object(_, let members, let mask): return mayHave(mask.value) && hasAny(members)
        case .flag(_, let f, let rule): return isSet(f) && rule.read(self[f]) != nil
        case .derived(_, let f, let d):
            guard isSet(f) else {
                if case .orDefault(let owner, _) = d.value { return isSet(owner) && self[owner].isPresent }
                return false
            }
            return gives(self[f], d.value)
        }
    }

    /// Walks `table`, handing what is present to `sink`.
    func walk<S: RecordSink & ~Copyable>(_ table: MemberTable, into sink: inout S) {
        // The members that read a present field or a non-empty list (MemberTable).
        var set: UInt64 = 0
        let byField = table.byField.buffer.baseAddress!
        for w in 0..<SFM.presenceWords {
            var bits = presence[w]
            while bits != 0 {
                set |= byField[w &<< 6 &+ bits.trailingZeroBitCount]
                bits &= bits &- 1
            }
        }
        for l in table.lists.buffer where hasRows(at: l.list) { set |= l.members }
        table.members.withUnsafeBufferPointer { ms in
            while set != 0 {
                walk(ms.baseAddress! + set.trailingZeroBitCount, into: &sink)
                set &= set &- 1
            }
        }
    }

    /// Walks `members`, handing what is present to `sink`.
    func walk<S: RecordSink & ~Copyable>(_ members: TableArray<Member>, into sink: inout S) {
        let ms = members.buffer
        for i in ms.indices { walk(ms.baseAddress! + i, into: &sink) }
    }

    /// A date member: the normalized date written in place (``RecordSink/formatted(_:maxLength:_:)``),
    /// then the text as written. Out of line: a sink's default `formatted` puts a buffer
    /// on the stack, which would make every member's walk set up a stack guard.
    @inline(never)
    private func writeDate<S: RecordSink & ~Copyable>(_ key: StaticString, _ rawKey: StaticString, _ f: FeedField,
                                                      into sink: inout S) {
        let raw = self[f]   // (the field as date(_:) reads it, without the view's copies)
        guard raw.isPresent else { return }
        if let parsed = FeedDate.parse(raw.buffer) {
            // (The closure takes the date by address: captured, it was copied, its
            // fraction's string with it.)
            withUnsafePointer(to: parsed) { d in sink.formatted(key, maxLength: FeedDate.maxLength) { d.pointee.write(to: $0) } }
        }
        sink.string(rawKey, raw.buffer)
    }

    /// True when one of `members` would write anything.
    private func hasAny(_ members: TableArray<Member>) -> Bool {
        let ms = members.buffer
        for i in ms.indices where has(ms.baseAddress! + i) { return true }
        return false
    }

    @inline(__always)
    private func walk<S: RecordSink & ~Copyable>(_ member: UnsafePointer<Member>, into sink: inout S) {
        switch member.pointee {
        case .string(let key, let f):
            guard isSet(f) else { return }
            let v = self[f]
            if v.isPresent { sink.string(key, v.buffer) }
        case .url(let key, let f, let base):
            let v = self[f]
            if v.isPresent { resolved(v, base: self[base], document: sink.documentBytes) { sink.string(key, $0) } }
        case .date(let key, let rawKey, let f):
            writeDate(key, rawKey, f, into: &sink)
        case .textConstruct(let keys, let f):
            let k = keys.pointer
            let t = text(f)
            guard t.value.isPresent else { return }
            let document = sink.documentBytes
            let hasBase = t.baseChain.isPresent && !t.baseChain.isEmpty || !document.isEmpty
            // (Nil when there is none: no array made or released per construct.)
            let base = hasBase ? FeedURL.base(ofChain: t.baseChain, document: Array(document)) : nil
            if t.isBase64, let decoded = Base64.decode(TextRules.trimmed(t.value.buffer)) {
                decoded.withUnsafeBytes { sink.decodedString(k.pointee.value, $0) }
            } else if Base64.isEncodedType(t.type), let decoded = Base64.decodeText(TextRules.trimmed(t.value.buffer)) {
                decoded.withUnsafeBytes { sink.decodedString(k.pointee.value, $0) }
            } else if let base, sink.resolvesMarkupURIs && (t.type.equals("html") || t.type.equals("xhtml")),
                      let resolved = MarkupURLs.resolve(t.value.buffer, base: base, xhtml: t.type.equals("xhtml")) {
                resolved.withUnsafeBytes { sink.string(k.pointee.value, $0) }
            } else {
                sink.string(k.pointee.value, t.value.buffer)
            }
            sink.string(k.pointee.type, t.type.buffer)
            let lang = self[.language]
            if t.language.isPresent && !(lang.isPresent && lang.buffer.elementsEqual(t.language.buffer)) {
                sink.string(k.pointee.lang, t.language.buffer)
            }
            if let base, !base.isEmpty { base.withUnsafeBytes { sink.string(k.pointee.base, $0) } }
        case .permalink:
            let p = self[.guidPermalink]
            if p.isPresent { sink.literal("guid_is_permalink", p.equalsIgnoringCase("false") ? "false" : "true") }
        case .primaryLink:
            if let l = primaryLink { resolved(l.href, base: l.baseChain, document: sink.documentBytes) { sink.string("link", $0) } }
        case .rows(let key, let list, let columns):
            writeRows(key, list, columns, from: 0, into: &sink)
        case .laterRows(let key, let list, let columns):
            writeRows(key, list, columns, from: 1, into: &sink)
        case .firstRow(let list, let columns):
            let rows = rows(list)
            if let row = rows.first { writeCells(of: row, number: 0, list: list, columns, into: &sink) }
        case .strings(let key, let list):
            let rows = rows(list)
            guard !rows.isEmpty else { return }
            sink.beginArray(key)
            for row in rows where row[0].isPresent { sink.element(row[0].buffer) }
            sink.endArray()
        case .persons(let key, let list):
            writePersons(key, into: &sink) { body in forEachPerson(list, body) }
        case .authors:
            writePersons("authors", into: &sink) { body in forEachAuthor(body) }
        case .categories:
            var open = false
            forEachCategory { c in
                if !open { sink.beginArray("categories") }
                open = true
                sink.beginElement()
                if c.term.isPresent { sink.string("term", c.term.buffer) }
                if c.scheme.isPresent { sink.string("scheme", c.scheme.buffer) }
                if c.label.isPresent { sink.string("label", c.label.buffer) }
                sink.endElement()
            }
            if open { sink.endArray() }
        case .extensions:
            let summary = unusedRSSSummary
            guard let summary else { return writeRows("extensions", .extensions, RecordLayout.extensionColumns, from: 0, into: &sink) }
            sink.beginArray("extensions")
            writeElements(.extensions, RecordLayout.extensionColumns, from: 0, into: &sink)
            sink.beginElement()
            let name: StaticString = "summary"   // (an RSS element: no namespace)
            sink.string("namespace", UnsafeRawBufferPointer(start: name.utf8Start, count: 0))
            sink.string("name", UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            sink.string("value", summary.buffer)
            sink.endElement()
            sink.endArray()
        case .person(let key, let f):
            guard isSet(f), let p = FeedPersonView.split(field: self[f]) else { return }
            sink.beginObject(key)
            if p.name.isPresent { sink.string("name", p.name.buffer) }
            sink.string("email", p.email.buffer)
            sink.endObject()
        case .object(let key, let members, let mask):
            // The mask first: most objects are absent.
            guard mayHave(mask.value), hasAny(members) else { return }
            sink.beginObject(key)
            walk(members, into: &sink)
            sink.endObject()
        case .flag(let key, let f, let rule):
            guard isSet(f), let b = rule.read(self[f]) else { return }
            sink.literal(key, b ? "true" : "false")
        case .derived(let key, let f, let d):
            if !isSet(f) || !self[f].isPresent {
                if case .orDefault(let owner, let value) = d.value, isSet(owner), self[owner].isPresent {
                    sink.string(key, UnsafeRawBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
                }
                return
            }
            let v = self[f]
            switch d.value {
            case .orDefault: sink.string(key, v.buffer)
            case .languageTag:
                // ASCII letters, digits and hyphens: made once on the stack, written as
                // formatted (no text rule needed).
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: QueryForms.languageTagMaxLength) { tag in
                    let n = QueryForms.languageTag(v.buffer, into: tag.baseAddress!)
                    guard n > 0 else { return }
                    sink.formatted(key, maxLength: n) { $0.update(from: tag.baseAddress!, count: n); return n }
                }
            case .periodStart, .periodEnd:
                guard let part = QueryForms.periodComponent(v.buffer, d.value.isStart ? "start" : "end"),
                      let parsed = FeedDate.parse(part) else { return }
                withUnsafePointer(to: parsed) { p in sink.formatted(key, maxLength: FeedDate.maxLength) { p.pointee.write(to: $0) } }
            }
        }
    }

    /// Whether the derivation `d` gives a value for `v`.
    private func gives(_ v: FeedBytes, _ d: Derivation) -> Bool {
        guard v.isPresent else { return false }
        switch d {
        case .orDefault: return true
        case .languageTag:
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: QueryForms.languageTagMaxLength) {
                QueryForms.languageTag(v.buffer, into: $0.baseAddress!) > 0
            }
        case .periodStart, .periodEnd:
            guard let part = QueryForms.periodComponent(v.buffer, d.isStart ? "start" : "end") else { return false }
            return FeedDate.parse(part) != nil
        }
    }

    /// The array `key` of the persons `each` hands out; nothing when it hands out none.
    private func writePersons<S: RecordSink & ~Copyable>(_ key: StaticString, into sink: inout S,
                                                         _ each: ((FeedPersonView) -> Void) -> Void) {
        var open = false
        each { p in
            if !open { sink.beginArray(key) }
            open = true
            writePerson(p, into: &sink)
        }
        if open { sink.endArray() }
    }

    /// One person of a persons array.
    private func writePerson<S: RecordSink & ~Copyable>(_ p: FeedPersonView, into sink: inout S) {
        sink.beginElement()
        if p.name.isPresent { sink.string("name", p.name.buffer) }
        if p.email.isPresent { sink.string("email", p.email.buffer) }
        if p.uri.isPresent { resolved(p.uri, base: p.baseChain, document: sink.documentBytes) { sink.string("uri", $0) } }
        if p.raw.isPresent { sink.string("raw", p.raw.buffer) }
        if p.avatar.isPresent {
            resolved(p.avatar, base: p.baseChain, document: sink.documentBytes) { sink.string("avatar", $0) }
        }
        sink.endElement()
    }

    /// The rows of `list` from row `first` on, as the array member `key`, each an object
    /// of `columns`; nothing when there are none.
    private func writeRows<S: RecordSink & ~Copyable>(_ key: StaticString, _ list: FeedList,
                                                     _ columns: TableArray<Column>, from first: Int,
                                                     into sink: inout S) {
        guard rows(list).count > first else { return }
        sink.beginArray(key)
        writeElements(list, columns, from: first, into: &sink)
        sink.endArray()
    }

    /// The rows of `list` from row `first` on, each an element of the array being written.
    private func writeElements<S: RecordSink & ~Copyable>(_ list: FeedList, _ columns: TableArray<Column>,
                                                         from first: Int, into sink: inout S) {
        let rows = rows(list)
        for i in first..<max(first, rows.count) {
            sink.beginElement()
            writeCells(of: rows[i], number: i, list: list, columns, into: &sink)
            sink.endElement()
        }
    }

    /// The cells of `row` (row `number` of `list`) as members, in the order of
    /// `columns`: each in its form, resolved when it has a base, and the rows of
    /// another list that name it as their parent.
    private func writeCells<S: RecordSink & ~Copyable>(of row: FeedRowView, number: Int, list: FeedList,
                                                      _ columns: TableArray<Column>, into sink: inout S) {
        // The columns read in place (iterated as values, each was copied whole, its
        // 80 bytes, for every row).
        let cs = columns.buffer.baseAddress!, nc = columns.buffer.count
        let defaultsRel = list == .links || list == .sourceLinks
        for j in 0..<nc {
            let c = cs + j
            if c.pointee.children != nil {
                writeChildren(c.pointee.key, c.pointee.children!, of: number, into: &sink)
                continue
            }
            let index = c.pointee.index
            var v = row[index]
            if defaultsRel && index == 1 { v = FeedRecordView.defaultedRel(v) }
            if defaultsRel && index == 2 { v = FeedRecordView.defaultedType(v, rel: row[1]) }
            switch c.pointee.form {
            case .asWritten: break
            case .orDefault(let value):
                if !v.isPresent || v.isEmpty { v = FeedBytes(value) }
            case .seconds:
                if v.isPresent, let n = QueryForms.playTimeSeconds(v.buffer) {
                    n.withUnsafeBytes { b in
                        sink.number(c.pointee.key, maxLength: b.count) { p in
                            p.update(from: b.bindMemory(to: UInt8.self).baseAddress!, count: b.count)
                            return b.count
                        }
                    }
                }
                continue
            case .words:
                let words = v.isPresent ? QueryForms.words(v.buffer) : []
                if !words.isEmpty {
                    sink.beginArray(c.pointee.key)
                    for w in words { sink.element(w) }
                    sink.endArray()
                }
                continue
            }
            guard v.isPresent else { continue }
            if let b = c.pointee.base {
                resolved(v, base: row[b], document: sink.documentBytes) { sink.string(c.pointee.key, $0) }
            } else {
                sink.string(c.pointee.key, v.buffer)
            }
        }
    }

    /// The rows of `ch.list` whose parent column holds `row` (as written by the
    /// machines: decimal digits), as the array member `key`; nothing when there are none.
    private func writeChildren<S: RecordSink & ~Copyable>(_ key: StaticString, _ ch: ChildRows, of row: Int,
                                                         into sink: inout S) {
        func isChild(_ r: FeedRowView) -> Bool {
            let p = r[ch.parent]
            guard p.isPresent, !p.isEmpty else { return false }
            var n = 0
            for b in p.buffer {
                guard b >= 0x30 && b <= 0x39 else { return false }
                n = n &* 10 &+ Int(b - 0x30)
            }
            return n == row
        }
        let rows = rows(ch.list)
        guard rows.contains(where: isChild) else { return }
        sink.beginArray(key)
        for (j, r) in rows.enumerated() where isChild(r) {
            sink.beginElement()
            writeCells(of: r, number: j, list: ch.list, ch.columns, into: &sink)   // (its own children name row j)
            sink.endElement()
        }
        sink.endArray()
    }

    /// Calls `body` with `value` resolved against the document's location and the
    /// xml:base chain `base` (no copy when there is neither).
    private func resolved(_ value: FeedBytes, base: FeedBytes, document: UnsafeRawBufferPointer,
                          _ body: (UnsafeRawBufferPointer) -> Void) {
        if base.isPresent && !base.isEmpty || !document.isEmpty {
            FeedURL.resolve(Array(value.buffer), against: FeedURL.base(ofChain: base, document: Array(document)))
                .withUnsafeBytes(body)
        } else {
            body(value.buffer)
        }
    }
}

