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

    public func didParseItem(_ item: FeedItemView) throws {
        header(kind: "item", document: item.feed.document)
        key("index"); buffer.append(decimal: UInt64(item.index))
        let feed = item.feed
        buffer.append(",\"feed\":{\"format\":\"")
        buffer.append(feed.format.name)
        buffer.append(0x22)
        string("title", feed.title.value)
        string("link", feed.link)
        string("id", feed.id)
        string("language", feed.language)
        buffer.append(0x7D)

        string("id", item.id)
        if let p = item.guidIsPermalink {
            key("guid_is_permalink")
            buffer.append(p ? "true" : "false")
        }
        text("title", item.title)
        string("link", item.link)
        links(item.links)
        date("published", item.published)
        date("updated", item.updated)
        let authors = item.authors
        if !authors.isEmpty {
            key("authors")
            buffer.append(0x5B)
            for (i, a) in authors.enumerated() {
                if i > 0 { buffer.append(0x2C) }
                object { first in
                    string("name", a.name, &first)
                    string("email", a.email, &first)
                    string("uri", a.uri, &first)
                }
            }
            buffer.append(0x5D)
        }
        text("summary", item.summary)
        text("content", item.content)
        string("content_src", item.contentSource)
        let categories = item.categories
        if !categories.isEmpty {
            key("categories")
            buffer.append(0x5B)
            for (i, c) in categories.enumerated() {
                if i > 0 { buffer.append(0x2C) }
                object { first in
                    string("term", c.term, &first)
                    string("scheme", c.scheme, &first)
                    string("label", c.label, &first)
                }
            }
            buffer.append(0x5D)
        }
        let enclosures = item.enclosures
        if !enclosures.isEmpty {
            key("enclosures")
            buffer.append(0x5B)
            for (i, e) in enclosures.enumerated() {
                if i > 0 { buffer.append(0x2C) }
                object { first in
                    string("url", e.url, &first)
                    string("type", e.type, &first)
                    string("length", e.length, &first)
                }
            }
            buffer.append(0x5D)
        }
        if item.isTruncated { buffer.append(",\"truncated\":true") }
        buffer.append("}\n")
        itemLines += 1
        try flushIfFull()
    }

    public func didParseFeedInfo(_ feed: FeedInfoView) throws {
        header(kind: "feed", document: feed.document)
        buffer.append(",\"format\":\"")
        buffer.append(feed.format.name)
        buffer.append(0x22)
        string("version", feed.version)
        text("title", feed.title)
        text("subtitle", feed.subtitle)
        string("id", feed.id)
        string("link", feed.link)
        links(feed.links)
        string("language", feed.language)
        date("updated", feed.updated)
        date("published", feed.published)
        key("items"); buffer.append(decimal: UInt64(feed.itemCount))
        // Closed by didFinishDocument or didFail, which may add the error.
        feedOpen = true
    }

    public func didFinishDocument(_ document: Int) throws {
        closeFeed()
        try flushIfFull()
    }

    public func didFail(_ error: FeedError) throws {
        guard feedOpen else { return }   // errors without a document have no line
        buffer.append(",\"error\":{\"code\":")
        var code = error.code.rawValue
        code.withUTF8 { buffer.appendJSONString(UnsafeRawBufferPointer($0)) }
        buffer.append(",\"message\":")
        var message = error.message
        message.withUTF8 { buffer.appendJSONString(UnsafeRawBufferPointer($0)) }
        key("line"); buffer.append(decimal: UInt64(error.line))
        key("column"); buffer.append(decimal: UInt64(error.column))
        key("offset"); buffer.append(decimal: error.offset)
        buffer.append(0x7D)
        closeFeed()
        try flushIfFull()
    }

    // MARK: Pieces

    private func closeFeed() {
        guard feedOpen else { return }
        buffer.append("}\n")
        feedOpen = false
        feedLines += 1
    }

    private func header(kind: StaticString, document: Int) {
        closeFeed()
        buffer.append("{\"schema\":1,\"kind\":\"")
        buffer.append(kind)
        buffer.append("\",\"source\":")
        sourceJSON.withUnsafeBytes { buffer.append($0.baseAddress!, $0.count) }
        key("document"); buffer.append(decimal: UInt64(document))
    }

    @inline(__always)
    private func key(_ k: StaticString) {
        buffer.append(",\"")
        buffer.append(k)
        buffer.append("\":")
    }

    @inline(__always)
    private func string(_ k: StaticString, _ v: FeedBytes) {
        guard v.isPresent else { return }
        key(k)
        buffer.appendJSONString(v.buffer)
    }

    /// A member of an object being written; `first` tracks the comma.
    @inline(__always)
    private func string(_ k: StaticString, _ v: FeedBytes, _ first: inout Bool) {
        guard v.isPresent else { return }
        if !first { buffer.append(0x2C) }
        first = false
        buffer.append(0x22)
        buffer.append(k)
        buffer.append("\":")
        buffer.appendJSONString(v.buffer)
    }

    @inline(__always)
    private func object(_ body: (inout Bool) -> Void) {
        buffer.append(0x7B)
        var first = true
        body(&first)
        buffer.append(0x7D)
    }

    private func text(_ k: StaticString, _ t: FeedTextView) {
        guard t.value.isPresent else { return }
        key(k)
        buffer.appendJSONString(t.value.buffer)
        buffer.append(",\"")
        buffer.append(k)
        buffer.append("_type\":")
        buffer.appendJSONString(t.type.buffer)
    }

    private func date(_ k: StaticString, _ d: FeedDateView) {
        guard d.raw.isPresent else { return }
        if let date = d.date {
            key(k)
            buffer.append(0x22)
            buffer.write(upTo: FeedDate.maxLength) { date.write(to: $0) }
            buffer.append(0x22)
        }
        buffer.append(",\"")
        buffer.append(k)
        buffer.append("_raw\":")
        buffer.appendJSONString(d.raw.buffer)
    }

    private func links(_ links: FeedViewCollection<FeedLinkView>) {
        guard !links.isEmpty else { return }
        key("links")
        buffer.append(0x5B)
        for (i, l) in links.enumerated() {
            if i > 0 { buffer.append(0x2C) }
            object { first in
                string("href", l.href, &first)
                string("rel", l.rel, &first)
                string("type", l.type, &first)
                string("hreflang", l.hreflang, &first)
                string("title", l.title, &first)
                string("length", l.length, &first)
            }
        }
        buffer.append(0x5D)
    }
}
