// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// JSON Feed 1.0 and 1.1 (https://www.jsonfeed.org/version/1.1/): maps a JSON Feed
/// document's members onto the same records the XML machines fill, so that its lines
/// have the members of an RSS or Atom document's (docs/SCHEMA.md, "JSON Feed").
///
/// One implementation for every backend: ``FeedFront`` hands it every input whose first
/// byte (after a byte order mark and white space, and after gzip) is `{`. Streamed: an
/// item is delivered when its object closes; nothing of the document is held but the
/// item and feed under construction (and the string being read).
package final class JSONFeedReader: JSONTokenSink {
    private enum Role { case feed, author, authors, hubs, hub, items, item, tags, attachments, attachment }
    private enum Key {
        case version, title, homePageURL, feedURL, description, userComment, nextURL, icon, favicon, author, authors
        case language, expired, hubs, items, id, url, externalURL, contentHTML, contentText, summary, image
        case bannerImage, datePublished, dateModified, tags, attachments, name, avatar, type, mimeType
        case sizeInBytes, durationInSeconds, extensionMember, other, none
    }
    private static let keys: [(StaticString, Key)] = [
        ("version", .version), ("title", .title), ("home_page_url", .homePageURL), ("feed_url", .feedURL),
        ("description", .description), ("user_comment", .userComment), ("next_url", .nextURL), ("icon", .icon),
        ("favicon", .favicon), ("author", .author), ("authors", .authors), ("language", .language),
        ("expired", .expired), ("hubs", .hubs), ("items", .items), ("id", .id), ("url", .url),
        ("external_url", .externalURL), ("content_html", .contentHTML), ("content_text", .contentText),
        ("summary", .summary), ("image", .image), ("banner_image", .bannerImage),
        ("date_published", .datePublished), ("date_modified", .dateModified), ("tags", .tags),
        ("attachments", .attachments), ("name", .name), ("avatar", .avatar), ("type", .type),
        ("mime_type", .mimeType), ("size_in_bytes", .sizeInBytes), ("duration_in_seconds", .durationInSeconds),
    ]

    private let tokenizer: JSONTokenizer
    private let stage: InputStage
    /// What inflates gzip input.
    var inflater: GzipInflater {
        get { stage.inflater }
        set { stage.inflater = newValue }
    }
    private let item: UnsafeMutablePointer<SFMRecord>
    private let feed: UnsafeMutablePointer<SFMRecord>
    private let pubItem = SFMPub()
    private let pubFeed = SFMPub()
    private let maxItems: Int
    private let reader = DescriptorReader()

    private var handler: (any FeedHandler)?
    private var parser: (any FeedParser)?
    private var summary = ParseSummary()

    // The document.
    private var document = 0
    private var items = 0
    private var format = FeedFormat.json
    private var feedDirty = true
    private var sawItems = false
    private var sawVersion = false
    private var documentOpen = false
    private var documentOffset: UInt64 = 0
    private var roles: [Role] = []
    private var key = Key.none
    private var extensionKey: [UInt8] = []
    // Per record (item or feed): which content the record holds, and whether `authors`
    // was seen (1.1's array supersedes 1.0's `author`).
    private var contentIsText = false
    private var contentIsHTML = false
    private var itemAuthorsArray = false
    private var feedAuthorsArray = false
    // The rows of the object being read (author, hub, attachment).
    private var row = -1
    private var jsonRow = -1

    package init(maxItemBytes: Int, limits: FeedLimits) {
        let limit = SFMRecord.limit(maxItemBytes: maxItemBytes)
        item = SFMRecord.make(limit: limit)
        feed = SFMRecord.make(limit: limit)
        maxItems = FeedLimits.effective(limits.maxItems)
        tokenizer = JSONTokenizer(limits: limits)
        stage = InputStage(limits: limits)
        roles.reserveCapacity(16)
        tokenizer.sink = self
    }

    deinit {
        SFMRecord.destroy(item)
        SFMRecord.destroy(feed)
        pubItem.free()
        pubFeed.free()
    }

    // ---- input ----------------------------------------------------------------------

    /// Parses `input` (a JSON Feed, plain or gzip; several documents may follow one
    /// another) for `parser`, delivering to `handler`.
    package func parse(_ input: FeedInput, parser: any FeedParser, handler: some FeedHandler) throws -> ParseSummary {
        stage.reset()
        tokenizer.reset()
        summary = ParseSummary()
        document = 0
        self.handler = handler
        self.parser = parser
        defer {
            self.handler = nil
            self.parser = nil
        }
        var fatal: FeedError?
        func failed(_ f: StreamFailure?) {
            if let f, fatal == nil, f.kind != .truncated { fatal = FeedError(code: f.code, message: f.fatalMessage) }
            if let f, f.kind == .truncated, fatal == nil { fatal = FeedError(code: f.code, message: f.message) }
        }
        func push(_ b: UnsafeRawBufferPointer) throws {
            guard fatal == nil else { return }
            failed(try stage.feed(b, sink: { try json($0) }))
        }
        func read(_ fd: Int32) throws {
            if let error = try reader.read(fd, while: { fatal == nil }, push) { fatal = error }
        }
        switch input {
        case .file(let path):
            let fd = FeedFront.openFile(path)
            if fd < 0 { return try parser.reportOpenFailure(errno: errno, to: handler) }
            defer { close(fd) }
            try read(fd)
        case .fileDescriptor(let fd):
            try read(fd)
        case .bytes(let bytes):
            try bytes.withUnsafeBytes { try push($0) }
        case .chunks(let chunks):
            while fatal == nil, let chunk = try chunks.next() {
                if let gap = chunks.gap?() {
                    // One JSON document: a gap in its gzip ends the input, as where the
                    // stage inflates it itself.
                    fatal = FeedError(code: gap.code, message: gap.why)
                } else if let compressed = chunks.compressed, let c = compressed() {
                    failed(try stage.feedInflated(chunk, compressed: c, sink: { try json($0) }))
                } else {
                    try push(chunk)
                }
            }
        }
        if fatal == nil { failed(try stage.finish(sink: { try json($0) })) }
        do {
            try tokenizer.finish()
        } catch let e as JSONTokError {
            try fail(e)
        }
        if documentOpen {
            if let f = fatal {
                // The stream broke inside the document: it fails with the stream's error.
                try endDocument(FeedError(code: f.code, message: f.message, document: document,
                                          offset: tokenizer.offset))
                tokenizer.stop()
            } else if let e = tokenizer.finishError() {
                try fail(e)
            }
        }
        summary.bytesIn = stage.bytesIn
        summary.bytesXML = stage.bytesXML
        if let fatal, summary.firstError == nil || summary.firstError!.code != fatal.code {
            if summary.firstError == nil { summary.firstError = fatal }
            if (fatal.code != .gzip && fatal.code != .zstd) || summary.documents == 0 { try handler.parser(parser, didFail: fatal) }
        }
        return summary
    }

    private func json(_ b: UnsafeRawBufferPointer) throws {
        do {
            try tokenizer.parse(b)
        } catch let e as JSONTokError {
            try fail(e)
        }
    }

    private func fail(_ e: JSONTokError) throws {
        tokenizer.stop()
        guard documentOpen else { return }
        try endDocument(FeedError(code: e.isLimit ? .limitExceeded : .malformedJSON, message: e.message,
                                  document: document, line: e.line, column: e.column, offset: e.offset))
    }

    // ---- documents ------------------------------------------------------------------

    func documentStart(offset: UInt64) throws {
        summary.documents += 1
        document = summary.documents
        documentOpen = true
        documentOffset = offset
        items = 0
        format = .json
        feedDirty = true
        sawItems = false
        sawVersion = false
        roles.removeAll(keepingCapacity: true)
        key = .none
        feed.pointee.reset()
        item.pointee.reset()
        contentIsText = false
        contentIsHTML = false
        feedAuthorsArray = false
        try handler?.parser(parser!, didStartDocument: document)
    }

    func documentEnd() throws {
        var error: FeedError?
        if !sawItems && !sawVersion {
            error = FeedError(code: .notAFeed, message: "JSON object is not a JSON Feed (no version, no items)",
                              document: document, line: 1, column: 1, offset: documentOffset)
        }
        try endDocument(error)
    }

    /// Publishes the feed; then didFinishDocument, or didFail with `error`.
    private func endDocument(_ error: FeedError?) throws {
        documentOpen = false
        summary.items += items
        var err = error
        if err != nil {
            err!.document = document
            summary.failedDocuments += 1
            if summary.firstError == nil { summary.firstError = err }
        }
        roles.removeAll(keepingCapacity: true)
        guard let handler, let parser else { return }
        feedDirty = true
        try handler.parser(parser, didParseFeedInfo: feedInfo())
        if let err {
            try handler.parser(parser, didFail: err)
        } else {
            try handler.parser(parser, didFinishDocument: document)
        }
    }

    private func feedInfo() -> FeedInfoView {
        if feedDirty {
            pubFeed.publish(feed)
            feedDirty = false
        }
        return FeedInfoView(document: document, format: format, itemCount: items, record: pubFeed.raw)
    }

    // ---- the mapping ----------------------------------------------------------------

    func key(_ bytes: UnsafeRawBufferPointer) {
        key = .other
        if bytes.count > 1 && bytes[0] == 0x5F {   // "_" and a name: an extension
            key = .extensionMember
            extensionKey.removeAll(keepingCapacity: true)
            extensionKey.append(contentsOf: bytes)
            return
        }
        for (name, k) in JSONFeedReader.keys where name.utf8CodeUnitCount == bytes.count {
            if memcmp(name.utf8Start, bytes.baseAddress!, bytes.count) == 0 {
                key = k
                return
            }
        }
    }

    private var record: UnsafeMutablePointer<SFMRecord> { roles.contains(.item) ? item : feed }

    func willBegin(_ kind: JSONValueKind, at pos: UInt64) throws -> JSONDisposition {
        let role = roles.last ?? .feed
        let container = kind == .object || kind == .array
        // Array elements have no key.
        if role == .authors || role == .hubs || role == .items || role == .tags || role == .attachments {
            switch role {
            case .tags:
                return container ? .mute : .report
            case .items:
                guard kind == .object else { return .mute }
                if items >= maxItems {
                    throw tokenizer.fail(FeedLimits.Message.maxItems(items + 1, maxItems), at: pos, limit: true)
                }
                item.pointee.reset()
                contentIsText = false
                contentIsHTML = false
                itemAuthorsArray = false
                roles.append(.item)
                return .report
            default:
                guard kind == .object else { return .mute }
                beginRowObject(role == .authors ? .author : role == .hubs ? .hub : .attachment)
                return .report
            }
        }
        let k = key
        if container || k == .extensionMember { key = .none }
        if k == .extensionMember {
            return role == .feed || role == .item ? .capture : .mute
        }
        if !container { return k == .other ? .mute : .report }
        switch (role, k, kind) {
        case (.feed, .items, .array):
            sawItems = true
            roles.append(.items)
        case (.feed, .author, .object), (.item, .author, .object):
            if role == .item ? itemAuthorsArray : feedAuthorsArray { return .mute }
            beginRowObject(.author)
        case (.feed, .authors, .array), (.item, .authors, .array):
            // 1.1's authors supersede 1.0's author (the specification: publishers may
            // write both for older readers).
            let r = record
            r.pointee.lists[FeedList.authors.rawValue].count = 0
            r.pointee.lists[FeedList.jsonAuthors.rawValue].count = 0
            if role == .item { itemAuthorsArray = true } else { feedAuthorsArray = true }
            roles.append(.authors)
        case (.feed, .hubs, .array):
            roles.append(.hubs)
        case (.item, .tags, .array):
            roles.append(.tags)
        case (.item, .attachments, .array):
            roles.append(.attachments)
        default:
            return .mute
        }
        return .report
    }

    private func beginRowObject(_ role: Role) {
        let r = record
        switch role {
        case .author:
            row = pushRow(r, .authors)
            jsonRow = pushRow(r, .jsonAuthors)
        case .hub:
            row = -1
            jsonRow = pushRow(r, .jsonHubs)
        default:
            row = pushRow(r, .enclosures)
            jsonRow = pushRow(r, .jsonAttachments)
        }
        roles.append(role)
    }

    private func pushRow(_ r: UnsafeMutablePointer<SFMRecord>, _ l: FeedList) -> Int {
        _ = r.pointee.lists[l.rawValue].push()
        r.pointee.listsUsed |= 1 &<< UInt64(l.rawValue)
        return r.pointee.lists[l.rawValue].count - 1
    }

    private func setCell(_ r: UnsafeMutablePointer<SFMRecord>, _ l: FeedList, _ row: Int, _ col: Int, _ ref: SFMRef) {
        guard row >= 0 else { return }
        let v = r.pointee.lists[l.rawValue]
        (v.v! + row * v.stride + col).pointee = ref
    }

    private func setCell(_ r: UnsafeMutablePointer<SFMRecord>, _ l: FeedList, _ row: Int, _ col: Int,
                         _ text: StaticString) {
        setCell(r, l, row, col, r.pointee.copy(text.utf8Start, text.utf8CodeUnitCount))
    }

    private func put(_ r: UnsafeMutablePointer<SFMRecord>, _ f: FeedField, _ ref: SFMRef) {
        r.pointee.put(f.rawValue, ref)
    }

    private func put(_ r: UnsafeMutablePointer<SFMRecord>, _ f: FeedField, _ text: StaticString) {
        r.pointee.put(f.rawValue, r.pointee.copy(text.utf8Start, text.utf8CodeUnitCount))
    }

    private func link(_ r: UnsafeMutablePointer<SFMRecord>, _ href: SFMRef, _ rel: StaticString,
                      type: StaticString? = nil) {
        let row = pushRow(r, .links)
        setCell(r, .links, row, 0, href)
        setCell(r, .links, row, 1, rel)
        if let type { setCell(r, .links, row, 2, type) }
    }

    func scalar(_ kind: JSONValueKind, _ bytes: UnsafeRawBufferPointer) {
        let role = roles.last ?? .feed
        if kind == .literal && bytes.count == 4 && bytes[0] == 0x6E { key = .none; return }   // null
        let r = record
        if role == .tags {
            let row = pushRow(r, .categories)
            setCell(r, .categories, row, 0, r.pointee.copy(bytes))
            return
        }
        let k = key
        key = .none
        if r == feed { feedDirty = true }
        switch (role, k) {
        // The feed.
        case (.feed, .version):
            sawVersion = true
            put(r, .version, r.pointee.copy(bytes))
            format = JSONFeedReader.format(version: bytes)
        case (.feed, .title), (.item, .title):
            put(r, .title, r.pointee.copy(bytes))
            put(r, .titleType, "text")
        case (.feed, .homePageURL), (.item, .url):
            link(r, r.pointee.copy(bytes), "alternate")
        case (.feed, .feedURL):
            link(r, r.pointee.copy(bytes), "self", type: "application/feed+json")   // the feed itself
        case (.item, .externalURL):
            link(r, r.pointee.copy(bytes), "related")
        case (.feed, .description), (.item, .summary):
            put(r, .summary, r.pointee.copy(bytes))
            put(r, .summaryType, "text")
        case (.feed, .userComment):
            put(r, .jsonUserComment, r.pointee.copy(bytes))
        case (.feed, .nextURL):
            put(r, .jsonNextUrl, r.pointee.copy(bytes))
        case (.feed, .icon):
            put(r, .logo, r.pointee.copy(bytes))
        case (.feed, .favicon):
            put(r, .icon, r.pointee.copy(bytes))
        case (.feed, .language), (.item, .language):
            put(r, .language, r.pointee.copy(bytes))
        case (.feed, .expired):
            put(r, .jsonExpired, r.pointee.copy(bytes))
        // Items.
        case (.item, .id):
            put(r, .id, r.pointee.copy(bytes))
        case (.item, .contentHTML):
            if contentIsText {
                // content_text came first: it moves aside, content_html is the content.
                put(r, .jsonContentText, r.pointee.field[FeedField.content.rawValue])
            }
            put(r, .content, r.pointee.copy(bytes))
            put(r, .contentType, "html")
            contentIsHTML = true
            contentIsText = false
        case (.item, .contentText):
            if contentIsHTML {
                put(r, .jsonContentText, r.pointee.copy(bytes))
            } else {
                put(r, .content, r.pointee.copy(bytes))
                put(r, .contentType, "text")
                contentIsText = true
            }
        case (.item, .image):
            put(r, .jsonImage, r.pointee.copy(bytes))
        case (.item, .bannerImage):
            put(r, .jsonBannerImage, r.pointee.copy(bytes))
        case (.item, .datePublished):
            put(r, .published, r.pointee.copy(bytes))
        case (.item, .dateModified):
            put(r, .updated, r.pointee.copy(bytes))
        // Authors, hubs, attachments.
        case (.author, .name):
            let v = r.pointee.copy(bytes)
            setCell(r, .authors, row, 0, v)
            setCell(r, .jsonAuthors, jsonRow, 0, v)
        case (.author, .url):
            let v = r.pointee.copy(bytes)
            setCell(r, .authors, row, 2, v)
            setCell(r, .jsonAuthors, jsonRow, 1, v)
        case (.author, .avatar):
            setCell(r, .jsonAuthors, jsonRow, 2, r.pointee.copy(bytes))
        case (.hub, .type):
            setCell(r, .jsonHubs, jsonRow, 0, r.pointee.copy(bytes))
        case (.hub, .url):
            setCell(r, .jsonHubs, jsonRow, 1, r.pointee.copy(bytes))
        case (.attachment, .url):
            let v = r.pointee.copy(bytes)
            setCell(r, .enclosures, row, 0, v)
            setCell(r, .jsonAttachments, jsonRow, 0, v)
        case (.attachment, .mimeType):
            let v = r.pointee.copy(bytes)
            setCell(r, .enclosures, row, 1, v)
            setCell(r, .jsonAttachments, jsonRow, 1, v)
        case (.attachment, .title):
            setCell(r, .jsonAttachments, jsonRow, 2, r.pointee.copy(bytes))
        case (.attachment, .sizeInBytes):
            let v = r.pointee.copy(bytes)
            setCell(r, .enclosures, row, 2, v)
            setCell(r, .jsonAttachments, jsonRow, 3, v)
        case (.attachment, .durationInSeconds):
            setCell(r, .jsonAttachments, jsonRow, 4, r.pointee.copy(bytes))
        default:
            break
        }
    }

    func captured(_ bytes: UnsafeRawBufferPointer) {
        let r = record
        if r == feed { feedDirty = true }
        let row = pushRow(r, .jsonExtensions)
        setCell(r, .jsonExtensions, row, 0, extensionKey.withUnsafeBytes { r.pointee.copy($0) })
        setCell(r, .jsonExtensions, row, 1, r.pointee.copy(bytes))
    }

    func end() throws {
        guard let role = roles.popLast() else { return }
        switch role {
        case .item:
            try emitItem()
        case .author, .hub, .attachment:
            row = -1
            jsonRow = -1
        default:
            break
        }
    }

    private func emitItem() throws {
        pubItem.publish(item)
        let index = items
        let truncated = item.pointee.arena.truncated
        let info = feedInfo()
        items += 1
        guard let handler, let parser else { return }
        try handler.parser(parser, didParseItem: FeedItemView(index: index, isTruncated: truncated,
                                                              record: pubItem.raw, feed: info))
    }

    /// `https://jsonfeed.org/version/1` is 1.0, `.../version/1.1` 1.1 (also with `http`,
    /// `www.` or a final `/`); anything else is a JSON Feed of an unknown version.
    static func format(version: UnsafeRawBufferPointer) -> FeedFormat {
        var s = String(decoding: version, as: UTF8.self).lowercased()
        for prefix in ["https://", "http://"] where s.hasPrefix(prefix) { s.removeFirst(prefix.count) }
        if s.hasPrefix("www.") { s.removeFirst(4) }
        guard s.hasPrefix("jsonfeed.org/version/") else { return .json }
        s.removeFirst("jsonfeed.org/version/".count)
        if s.hasSuffix("/") { s.removeLast() }
        switch s {
        case "1", "1.0": return .json10
        case "1.1": return .json11
        default: return .json
        }
    }
}
