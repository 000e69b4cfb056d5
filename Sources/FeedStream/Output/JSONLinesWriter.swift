/// Writes JSON Lines (docs/SCHEMA.md): one `"kind":"item"` line per item and one
/// `"kind":"feed"` line per document, straight from the zero-copy views into an output
/// buffer: no `String`, no intermediate model, no allocation per item once warm.
///
/// Set ``source`` before each input so every line says where it came from. Call
/// ``flush()`` when done (the buffer is also written out whenever it passes
/// `bufferSize`, always at a line boundary).
public final class JSONLinesWriter: FeedHandler {
    /// The schema version written in every line.
    public static let schemaVersion = 1

    private let output: any ByteOutput
    private let bufferSize: Int
    private var buffer: ByteBuffer
    private var sourceJSON: [UInt8] = [0x22, 0x22]   // the source, already a JSON string
    private var feedOpen = false                     // a feed line awaits its error/close

    /// Lines written so far.
    public private(set) var itemLines = 0
    public private(set) var feedLines = 0
    /// Bytes handed to the output so far.
    public private(set) var bytesWritten: UInt64 = 0

    public init(output: any ByteOutput, bufferSize: Int = 1 << 20) {
        self.output = output
        self.bufferSize = bufferSize
        buffer = ByteBuffer(capacity: bufferSize + (64 << 10))
    }

    /// The `source` written in each line (a path, or "-" for standard input).
    public var source: String = "" {
        didSet {
            var b = ByteBuffer(capacity: source.utf8.count + 8)
            var s = source
            s.withUTF8 { b.appendJSONString(UnsafeRawBufferPointer($0)) }
            sourceJSON = Array(b.bytes)
        }
    }

    /// Writes out everything buffered.
    public func flush() throws {
        if buffer.count > 0 {
            try output.write(buffer.bytes)
            bytesWritten += UInt64(buffer.count)
            buffer.removeAll()
        }
        try output.flush()
    }

    private func flushIfFull() throws {
        if buffer.count >= bufferSize && !feedOpen { try flush() }
    }

    // MARK: FeedHandler
    // Each method makes one mutating call on the buffer, so the whole record is
    // written under a single exclusive access.

    public func didParseItem(_ item: FeedItemView) throws {
        closeFeed()
        sourceJSON.withUnsafeBytes { buffer.writeItem(item, source: $0) }
        itemLines += 1
        try flushIfFull()
    }

    public func didParseFeedInfo(_ feed: FeedInfoView) throws {
        closeFeed()
        sourceJSON.withUnsafeBytes { buffer.writeFeed(feed, source: $0) }
        // Closed by didFinishDocument or didFail, which may add the error.
        feedOpen = true
    }

    public func didFinishDocument(_ document: Int) throws {
        closeFeed()
        try flushIfFull()
    }

    public func didFail(_ error: FeedError) throws {
        guard feedOpen else { return }   // errors without a document have no line
        buffer.writeError(error)
        closeFeed()
        try flushIfFull()
    }

    private func closeFeed() {
        guard feedOpen else { return }
        buffer.append("}\n")
        feedOpen = false
        feedLines += 1
    }
}

extension ByteBuffer {
    fileprivate mutating func writeItem(_ item: FeedItemView, source: UnsafeRawBufferPointer) {
        header(kind: "item", document: item.feed.document, source: source)
        key("index"); append(decimal: UInt64(item.index))
        let feed = item.feed
        append(",\"feed\":{\"format\":\"")
        append(feed.format.name)
        append(0x22)
        string("title", feed.title.value)
        string("link", feed.link)
        string("id", feed.id)
        string("language", feed.language)
        append(0x7D)

        string("id", item.id)
        if let p = item.guidIsPermalink {
            key("guid_is_permalink")
            append(p ? "true" : "false")
        }
        text("title", item.title)
        string("link", item.link)
        links(item.links)
        date("published", item.published)
        date("updated", item.updated)
        let authors = item.authors
        if !authors.isEmpty {
            key("authors")
            append(0x5B)
            for (i, a) in authors.enumerated() {
                if i > 0 { append(0x2C) }
                append(0x7B)
                var first = true
                string("name", a.name, &first)
                string("email", a.email, &first)
                string("uri", a.uri, &first)
                append(0x7D)
            }
            append(0x5D)
        }
        text("summary", item.summary)
        text("content", item.content)
        string("content_src", item.contentSource)
        let categories = item.categories
        if !categories.isEmpty {
            key("categories")
            append(0x5B)
            for (i, c) in categories.enumerated() {
                if i > 0 { append(0x2C) }
                append(0x7B)
                var first = true
                string("term", c.term, &first)
                string("scheme", c.scheme, &first)
                string("label", c.label, &first)
                append(0x7D)
            }
            append(0x5D)
        }
        let enclosures = item.enclosures
        if !enclosures.isEmpty {
            key("enclosures")
            append(0x5B)
            for (i, e) in enclosures.enumerated() {
                if i > 0 { append(0x2C) }
                append(0x7B)
                var first = true
                string("url", e.url, &first)
                string("type", e.type, &first)
                string("length", e.length, &first)
                append(0x7D)
            }
            append(0x5D)
        }
        if item.isTruncated { append(",\"truncated\":true") }
        append("}\n")
    }

    fileprivate mutating func writeFeed(_ feed: FeedInfoView, source: UnsafeRawBufferPointer) {
        header(kind: "feed", document: feed.document, source: source)
        append(",\"format\":\"")
        append(feed.format.name)
        append(0x22)
        string("version", feed.version)
        text("title", feed.title)
        text("subtitle", feed.subtitle)
        string("id", feed.id)
        string("link", feed.link)
        links(feed.links)
        string("language", feed.language)
        date("updated", feed.updated)
        date("published", feed.published)
        key("items"); append(decimal: UInt64(feed.itemCount))
    }

    fileprivate mutating func writeError(_ error: FeedError) {
        append(",\"error\":{\"code\":")
        var code = error.code.rawValue
        code.withUTF8 { appendJSONString(UnsafeRawBufferPointer($0)) }
        append(",\"message\":")
        var message = error.message
        message.withUTF8 { appendJSONString(UnsafeRawBufferPointer($0)) }
        key("line"); append(decimal: UInt64(error.line))
        key("column"); append(decimal: UInt64(error.column))
        key("offset"); append(decimal: error.offset)
        append(0x7D)
    }

    // MARK: Pieces

    private mutating func header(kind: StaticString, document: Int, source: UnsafeRawBufferPointer) {
        append("{\"schema\":1,\"kind\":\"")
        append(kind)
        append("\",\"source\":")
        append(source.baseAddress!, source.count)
        key("document"); append(decimal: UInt64(document))
    }

    @inline(__always)
    private mutating func key(_ k: StaticString) {
        append(",\"")
        append(k)
        append("\":")
    }

    @inline(__always)
    private mutating func string(_ k: StaticString, _ v: FeedBytes) {
        guard v.isPresent else { return }
        key(k)
        appendJSONString(v.buffer)
    }

    /// A member of an object being written; `first` tracks the comma.
    @inline(__always)
    private mutating func string(_ k: StaticString, _ v: FeedBytes, _ first: inout Bool) {
        guard v.isPresent else { return }
        if !first { append(0x2C) }
        first = false
        append(0x22)
        append(k)
        append("\":")
        appendJSONString(v.buffer)
    }

    private mutating func text(_ k: StaticString, _ t: FeedTextView) {
        guard t.value.isPresent else { return }
        key(k)
        appendJSONString(t.value.buffer)
        append(",\"")
        append(k)
        append("_type\":")
        appendJSONString(t.type.buffer)
    }

    private mutating func date(_ k: StaticString, _ d: FeedDateView) {
        guard d.raw.isPresent else { return }
        if let date = d.date {
            key(k)
            append(0x22)
            write(upTo: FeedDate.maxLength) { date.write(to: $0) }
            append(0x22)
        }
        append(",\"")
        append(k)
        append("_raw\":")
        appendJSONString(d.raw.buffer)
    }

    private mutating func links(_ links: FeedViewCollection<FeedLinkView>) {
        guard !links.isEmpty else { return }
        key("links")
        append(0x5B)
        for (i, l) in links.enumerated() {
            if i > 0 { append(0x2C) }
            append(0x7B)
            var first = true
            string("href", l.href, &first)
            string("rel", l.rel, &first)
            string("type", l.type, &first)
            string("hreflang", l.hreflang, &first)
            string("title", l.title, &first)
            string("length", l.length, &first)
            append(0x7D)
        }
        append(0x5D)
    }
}
