// SPDX-License-Identifier: Apache-2.0
// Zero-copy views over a parser's current item and feed. They apply the normalization
// rules of docs/SCHEMA.md that slicing and pointing can express (whitespace trimming,
// type names, rel defaults, the primary link, permalink flags, date parsing), so every
// backend gets the same policy from this one place. What needs new bytes (URL
// resolution, base64) is done by the writers, into their own buffers.
//
// A view is valid only during the handler call that received it.

/// A record: the fields and lists of an item or of a feed.
@_spi(RawRecords) public struct FeedRecordView {
    let raw: RawRecord

    init(_ raw: RawRecord) { self.raw = raw }

    private var fields: UnsafePointer<CoreSpan> { raw.fields }
    private var presentBits: UnsafePointer<UInt64> { raw.present }

    /// The rows of a list.
    public func rows(_ list: FeedList) -> FeedRowsView {
        let base = raw.rows[list.rawValue]
        return FeedRowsView(base: base, columns: list.columns, count: base == nil ? 0 : raw.counts[list.rawValue])
    }

    /// True when the list whose raw value is `list` has rows.
    func hasRows(at list: Int) -> Bool { raw.rows[list] != nil && raw.counts[list] > 0 }

    /// A field, trimmed; absent when the feed did not have it.
    public subscript(field: FeedField) -> FeedBytes { bytes(fields[field.rawValue]) }

    /// The presence bits of the fields (bit i: field i may be present).
    var presence: UnsafePointer<UInt64> { presentBits }

    /// False when `field` is certainly absent (a quick check before reading it).
    func isSet(_ field: FeedField) -> Bool {
        presentBits[field.rawValue >> 6] & (1 << UInt64(field.rawValue & 63)) != 0
    }

    /// A text construct starting at `field` (title, summary, content, rights). An RSS
    /// item's `summary` element (``FeedField/rssSummary``) stands in for the summary when
    /// nothing else gives one, else for the content when nothing gives one (feedparser
    /// makes the second of `description` and `summary` the content).
    public func text(_ field: FeedField) -> FeedTextView {
        let own = construct(field)
        guard !own.value.isPresent, field == .summary || field == .content, isSet(.rssSummary) else { return own }
        if field == .content && !construct(.summary).value.isPresent { return own }
        return construct(.rssSummary)
    }

    /// An RSS item's `summary` element when it stands in for neither the summary nor the
    /// content (``text(_:)``: the item gives both otherwise, as `description` and
    /// `content:encoded`): nil when there is none or it is one of them. The line keeps it
    /// as the extension element it then is.
    var unusedRSSSummary: FeedBytes? {
        guard isSet(.rssSummary) else { return nil }
        let v = construct(.rssSummary).value
        guard v.isPresent, construct(.summary).value.isPresent, construct(.content).value.isPresent else { return nil }
        return v
    }

    /// The text construct whose fields start at `field`, as the record holds it.
    private func construct(_ field: FeedField) -> FeedTextView {
        // The construct's fields follow its value's (type, language, base chain, mode:
        // the field table's order), read by index.
        let i = field.rawValue
        let value = bytes(fields[i])
        guard value.isPresent else {
            return FeedTextView(value: .absent, type: .absent, language: .absent, baseChain: .absent, isBase64: false)
        }
        let mode = fields[i &+ 4]
        return FeedTextView(value: value, type: normalizedTextType(bytes(fields[i &+ 1])),
                            language: bytes(fields[i &+ 2]), baseChain: bytes(fields[i &+ 3]),
                            isBase64: mode.ptr != nil && bytes(mode).equalsIgnoringCase("base64"))
    }

    /// A date field: raw and parsed.
    public func date(_ field: FeedField) -> FeedDateView {
        let raw = self[field]
        return FeedDateView(raw: raw, date: raw.isPresent ? FeedDate.parse(raw.buffer) : nil)
    }

    /// The links, in document order (`rel` defaulted to "alternate", a self link's
    /// `type` to "application/atom+xml").
    public var links: LazyMapCollection<FeedRowsView, FeedLinkView> {
        rows(.links).lazy.map { r in
            let rel = FeedRecordView.defaultedRel(r[1])
            return FeedLinkView(href: r[0], rel: rel, type: FeedRecordView.defaultedType(r[2], rel: rel),
                                hreflang: r[3], title: r[4], length: r[5], baseChain: r[6])
        }
    }

    /// A link's `rel` as every reader of links takes it: "alternate" when absent or empty
    /// (the one place this default is written).
    @inline(__always)
    static func defaultedRel(_ rel: FeedBytes) -> FeedBytes {
        rel.isPresent && !rel.isEmpty ? rel : FeedBytes("alternate")
    }

    /// A link's `type` as every reader of links takes it: for a `self` link that gives
    /// none, `application/atom+xml`, the Atom link's (feedparser's default; a JSON
    /// Feed's `feed_url` is typed `application/feed+json`). The one place this default
    /// is written.
    @inline(__always)
    static func defaultedType(_ type: FeedBytes, rel: FeedBytes) -> FeedBytes {
        if type.isPresent && !type.isEmpty { return type }
        return rel.isPresent && rel.equals("self") ? FeedBytes("application/atom+xml") : type
    }

    /// The record's link: the first link whose rel is "alternate" (after defaulting)
    /// and that has an href; else, for an item whose id is an RSS `guid` that is a
    /// permalink (no `isPermaLink="false"`) and an http or https URL, that guid. RSS 2.0
    /// lets a reader take such a guid as the item's permalink, and feedparser makes it
    /// the link when the item has none (docs/SCHEMA.md, `link`).
    public var primaryLink: FeedLinkView? {
        // (Rows looked at by their rel and href alone; the view made for the one found.)
        let rows = rows(.links)
        if let i = rows.firstIndex(where: { r in
            FeedRecordView.defaultedRel(r[1]).equals("alternate") && r[0].isPresent
        }) {
            return links[i]
        }
        let permalink = self[.guidPermalink]
        guard permalink.isPresent, !permalink.equalsIgnoringCase("false"), self[.id].isPresent else { return nil }
        let id = FeedBytes(TextRules.trimmed(self[.id].buffer))
        guard FeedRecordView.isWebURL(id) else { return nil }
        return FeedLinkView(href: id, rel: FeedBytes("alternate"), type: .absent, hreflang: .absent, title: .absent,
                            length: .absent, baseChain: .absent)
    }

    /// Whether `b` starts with `http://` or `https://`, in any case.
    private static func isWebURL(_ b: FeedBytes) -> Bool {
        let n = b.buffer.count
        func lower(_ i: Int) -> UInt8 { b.buffer[i] | 0x20 }
        guard n > 7, lower(0) == 0x68, lower(1) == 0x74, lower(2) == 0x74, lower(3) == 0x70 else { return false }
        let rest = lower(4) == 0x73 ? 5 : 4   // "https" or "http"
        return n > rest + 3 && b.buffer[rest] == 0x3A && b.buffer[rest + 1] == 0x2F && b.buffer[rest + 2] == 0x2F
    }

    func persons(_ list: FeedList) -> LazyMapCollection<FeedRowsView, FeedPersonView> {
        rows(list).lazy.map { FeedPersonView(row: $0) }
    }
    /// The authors, in document order, as the record's author elements wrote them (see
    /// ``fallbackAuthor`` for a record that writes none).
    public var authors: LazyMapCollection<FeedRowsView, FeedPersonView> { persons(.authors) }
    /// The person a record whose author elements name no one names otherwise, which the
    /// JSON line's and the models' `authors` then hold (docs/SCHEMA.md, `authors`;
    /// feedparser documents both as author sources): `itunes:author`, else, for a feed,
    /// RSS `managingEditor`, read as a person written as text. Nil when one of
    /// ``authors`` is not ``FeedPersonView/isBlank``, or neither is there with text.
    public var fallbackAuthor: FeedPersonView? {
        guard !authors.contains(where: { !$0.isBlank }) else { return nil }
        let itunes = self[.itunesAuthor]
        if !itunes.isBlank { return FeedPersonView(text: itunes, baseChain: .absent) }
        let editor = self[.managingEditor]
        return editor.isBlank ? nil : FeedPersonView(text: editor, baseChain: .absent)
    }
    /// Hands out the persons the JSON line's and the models' `authors` hold: those of
    /// ``authors`` that are not ``FeedPersonView/isBlank``, else ``fallbackAuthor``.
    public func forEachAuthor(_ body: (FeedPersonView) -> Void) {
        var any = false
        forEachPerson(.authors) { p in
            any = true
            body(p)
        }
        if !any, let p = fallbackAuthor { body(p) }
    }

    /// The persons of `list` that are not ``FeedPersonView/isBlank``, in order.
    func forEachPerson(_ list: FeedList, _ body: (FeedPersonView) -> Void) {
        for p in persons(list) where !p.isBlank { body(p) }
    }
    /// The contributors, in document order.
    public var contributors: LazyMapCollection<FeedRowsView, FeedPersonView> { persons(.contributors) }
    /// The categories, in document order, as the category elements wrote them (see
    /// ``forEachCategory(_:)`` for those the JSON line and the models hold).
    public var categories: LazyMapCollection<FeedRowsView, FeedCategoryView> {
        rows(.categories).lazy.map { FeedCategoryView(term: $0[0], scheme: $0[1], label: $0[2]) }
    }

    /// The scheme of the categories read from iTunes elements, as feedparser names it.
    public static let itunesScheme: StaticString = "http://www.itunes.com/"

    /// Hands out the categories the JSON line's and the models' `categories` hold
    /// (docs/SCHEMA.md, `categories`): ``categories`` but those with no term, scheme or
    /// label (an empty `<dc:subject/>` names none), then the iTunes ones, each with
    /// the scheme ``itunesScheme``: every `itunes:category`'s `text`, then each term of
    /// `itunes:keywords` (split at commas, trimmed, empty ones skipped), as feedparser
    /// reads them (its feed tags list both). Nothing is allocated; the time is linear.
    public func forEachCategory(_ body: (FeedCategoryView) -> Void) {
        for r in rows(.categories) {   // (rows read directly: the lazy map's closure was a call a row)
            let c = FeedCategoryView(term: r[0], scheme: r[1], label: r[2])
            if !(c.term.isBlank && c.scheme.isBlank && c.label.isBlank) { body(c) }
        }
        let cats = rows(.itunesCategories)
        let keywords = self[.itunesKeywords]
        guard !cats.isEmpty || keywords.isPresent else { return }
        let scheme = FeedBytes(FeedRecordView.itunesScheme)
        func term(_ t: UnsafeRawBufferPointer) {
            let t = TextRules.trimmed(t)
            if !t.isEmpty { body(FeedCategoryView(term: FeedBytes(t), scheme: scheme, label: .absent)) }
        }
        for row in cats where row[0].isPresent { term(row[0].buffer) }
        guard keywords.isPresent, let base = keywords.buffer.baseAddress else { return }
        let b = keywords.buffer
        var start = 0
        while start <= b.count {
            var end = start
            while end < b.count && b[end] != 0x2C { end += 1 }
            term(UnsafeRawBufferPointer(start: base + start, count: end - start))
            start = end + 1
        }
    }
    /// The enclosures, in document order.
    public var enclosures: LazyMapCollection<FeedRowsView, FeedEnclosureView> {
        rows(.enclosures).lazy.map { FeedEnclosureView(url: $0[0], type: $0[1], length: $0[2], baseChain: $0[3]) }
    }
}

@inline(__always)
func bytes(_ s: CoreSpan) -> FeedBytes {
    let b = FeedBytes(UnsafeRawBufferPointer(start: s.ptr, count: s.len))
    // Most values have no space at either end: no call for them (this runs per field
    // written).
    guard let p = s.ptr, s.len > 0, isXMLSpace(p[0]) || isXMLSpace(p[s.len &- 1]) else { return b }
    return b.trimmed
}

/// Type names: as written, with Atom 0.3's MIME types mapped to Atom 1.0's names, and
/// "text" when absent (Atom's default; C supplies RSS's defaults).
@inline(__always)
func normalizedTextType(_ t: FeedBytes) -> FeedBytes {
    switch t.count {   // (by length first: most types are "text", "html" or "xhtml", none of these)
    case 0: return FeedBytes("text")
    case 10: return t.equalsIgnoringCase("text/plain") ? FeedBytes("text") : t
    case 9: return t.equalsIgnoringCase("text/html") ? FeedBytes("html") : t
    case 21: return t.equalsIgnoringCase("application/xhtml+xml") ? FeedBytes("xhtml") : t
    default: return t
    }
}
