// SPDX-License-Identifier: Apache-2.0
/// Writes JSON Lines (docs/SCHEMA.md): one `"kind":"item"` line per item and one
/// `"kind":"feed"` line per document, straight from the zero-copy views into an output
/// buffer: no `String`, no intermediate model, no allocation per item once warm.
///
/// Set ``source`` before each input so every line says where it came from. Call
/// ``flush()`` when done (the buffer is also written out whenever it passes
/// `bufferSize`, always at a line boundary).
public final class JSONLinesWriter: FeedHandler {
    /// The schema version written in every line.
    package static let schemaVersion = 1

    private let output: any ByteOutput
    private let bufferSize: Int
    @exclusivity(unchecked) private var buffer: ByteBuffer
    @exclusivity(unchecked) private var sourceJSON: [UInt8] = [0x22, 0x22]   // the source, already a JSON string
    @exclusivity(unchecked) private var feedOpen = false                     // a feed line awaits its error/close

    /// Item lines written so far.
    @exclusivity(unchecked) package private(set) var itemLines = 0
    /// Feed lines (one per document) written so far.
    @exclusivity(unchecked) package private(set) var feedLines = 0
    /// Bytes handed to the output so far.
    @exclusivity(unchecked) package private(set) var bytesWritten: UInt64 = 0

    /// The bytes a writer buffers by default before writing them out: 256 KiB, small
    /// enough to stay in a core's second-level cache with the input being parsed (1 MiB
    /// wrote 0.6-1.5% slower on the benchmark's dump and files), large enough that the
    /// writes are few.
    @usableFromInline package static let defaultBufferSize = 256 << 10

    /// A writer buffering up to about `bufferSize` bytes before writing to `output`.
    public init(output: any ByteOutput, bufferSize: Int = JSONLinesWriter.defaultBufferSize) {
        self.output = output
        self.bufferSize = bufferSize
        buffer = ByteBuffer(capacity: bufferSize + (64 << 10))
        updateHead()
    }

    /// Added to every document number written: a part of a stream parsed on its own
    /// (`DocumentSplitter`, `DumpParts`) is numbered as in the whole stream.
    @exclusivity(unchecked) package var documentNumberOffset = 0

    /// Resolve relative URIs inside HTML and XHTML text constructs (`href`, `src`, and
    /// the other URI attributes) against their `xml:base`, as links are (the default);
    /// false keeps content as written (docs/SCHEMA.md, "Relative URIs").
    public var resolvesRelativeURIsInContent: Bool {
        get { buffer.resolvesMarkupURIs }
        set { buffer.resolvesMarkupURIs = newValue }
    }

    /// The URL the documents were read from, when known (nil by default): relative URIs
    /// (links, content, …) are resolved against it, and against the `xml:base`s inside
    /// the document relative to it, as if the root had `xml:base` set to it
    /// (docs/SCHEMA.md, "URLs"). Set it before each input, as ``source``.
    public var documentLocation: String? {
        get { buffer.documentBytes.isEmpty ? nil : String(decoding: buffer.documentBytes, as: UTF8.self) }
        set { buffer.setDocumentBase(Array((newValue ?? "").utf8)) }
    }

    /// Where the next documents were found in a web archive (nil by default): written as
    /// the `warc` member of each line, after `source` (docs/SCHEMA.md, "Web archives").
    package var warc: WARCOrigin? {
        didSet {
            guard let warc else { return warcJSON = [] }
            var b = ByteBuffer(capacity: 256)
            b.append(",\"warc\":{")
            var first = true
            for (key, value) in [("record_id", warc.recordID), ("target_uri", warc.targetURI), ("date", warc.date)] {
                guard let value else { continue }
                if !first { b.append(0x2C) }
                first = false
                b.append(0x22)
                Array(key.utf8).withUnsafeBytes { b.append($0.baseAddress!, $0.count) }
                b.append("\":")
                Array(value.utf8).withUnsafeBytes { b.appendJSONString($0) }
            }
            if !first { b.append(0x2C) }
            b.append("\"offset\":")
            b.append(decimal: warc.offset)
            b.append(0x7D)
            warcJSON = Array(b.bytes)
        }
    }
    private var warcJSON: [UInt8] = [] { didSet { updateHead() } }
    /// What follows `"source":` in each line: the source, then the `warc` member if any
    /// (in a buffer, not an array: handing an array's bytes to the line's writer retained
    /// and released its storage at every line).
    @exclusivity(unchecked) private var headJSON = ByteBuffer(capacity: 256)

    /// The `source` written in each line (a path, or "-" for standard input).
    public var source: String = "" {
        didSet {
            // Written in the scratch buffer kept for it and copied into the arrays' own
            // storage (set once per input: no buffer or array allocated per file).
            sourceScratch.removeAll()
            sourceScratch.appendJSONPath(source)   // a file name's bytes that are not UTF-8 as \udcXX
            sourceJSON.removeAll(keepingCapacity: true)
            sourceJSON.append(contentsOf: sourceScratch.bytes)
            updateHead()
        }
    }
    /// Where ``source`` is written as JSON.
    private var sourceScratch = ByteBuffer(capacity: 256)

    /// ``headJSON`` from the source and the `warc` member, in its own storage.
    private func updateHead() {
        headJSON.removeAll()
        sourceJSON.withUnsafeBytes { headJSON.append($0.baseAddress!, $0.count) }
        warcJSON.withUnsafeBytes { if let p = $0.baseAddress { headJSON.append(p, $0.count) } }
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

    /// Writes the item's line.
    public func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        closeFeed()
        withSource { buffer.writeItem(item, source: $0, documentNumberOffset: documentNumberOffset) }
        itemLines += 1
        try flushIfFull()
    }

    /// Writes the document's feed line (closed when the document finishes or fails).
    public func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws {
        closeFeed()
        withSource { buffer.writeFeed(feed, source: $0, documentNumberOffset: documentNumberOffset) }
        // Closed by didFinishDocument or didFail, which may add the error.
        feedOpen = true
    }

    /// Closes the feed line.
    public func parser(_ parser: any FeedParser, didFinishDocument document: Int) throws {
        closeFeed()
        try flushIfFull()
    }

    /// Closes the feed line with the document's error (errors without a document write
    /// nothing).
    public func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        guard feedOpen else { return }   // errors without a document have no line
        buffer.writeError(error)
        closeFeed()
        try flushIfFull()
    }

    /// What follows `"source":` in each line (``headJSON``).
    private func withSource(_ body: (UnsafeRawBufferPointer) -> Void) { body(headJSON.bytes) }

    private func closeFeed() {
        guard feedOpen else { return }
        buffer.append("}\n")
        feedOpen = false
        feedLines += 1
    }
}

extension ByteBuffer {
    fileprivate mutating func writeItem(_ item: FeedItemView, source: UnsafeRawBufferPointer, documentNumberOffset: Int) {
        header(kind: "item", document: documentNumberOffset + item.feed.document, source: source)
        key("index"); append(decimal: UInt64(item.index))
        writeFeedMember(item.feed)
        beginLine(depth: 0)
        trustsUTF8 = item.textIsUTF8
        item.record.walk(RecordLayout.item, into: &self)
        trustsUTF8 = false
        if redecodedCount > 0 { writeRedecoded() }
        if item.isTruncated { append(",\"truncated\":true") }
        if item.isRecovered { append(",\"recovered\":true") }
        append("}\n")
    }

    /// `,"feed":{…}`: as written for the last item when the feed record has not been
    /// published again since (``FeedRevision``; every member of an item line repeats its
    /// feed's, so most are copies), else written from the record and kept.
    private mutating func writeFeedMember(_ info: FeedInfoView) {
        let revision = info.revision
        if revision.isKnown && revision == feedMemberRevision {
            if feedMemberRedecoded { noteRedecoded("feed") }
            return append(UnsafeRawPointer(feedMember.baseAddress!), feedMemberCount)
        }
        let from = count
        let noted = redecodedCount
        let feed = info.record
        append(",\"feed\":{\"format\":\"")
        append(info.format.name)
        append(0x22)
        beginLine(depth: 1)
        topKey = "feed"
        trustsUTF8 = info.textIsUTF8
        if feed[.title].isPresent { string("title", feed[.title].buffer) }
        feed.walk(RecordLayout.itemFeed, into: &self)
        trustsUTF8 = false
        append(0x7D)
        guard revision.isKnown else { return }
        feedMemberRedecoded = redecodedCount > noted
        keepFeedMember(from: from, revision)
    }

    /// `,"redecoded":[…]`: the line's members whose text ``TextRules`` read again.
    private mutating func writeRedecoded() {
        append(",\"redecoded\":[")
        for k in 0..<redecodedCount {
            if k > 0 { append(0x2C) }
            append(0x22)
            append(redecodedKeys[k])
            append(0x22)
        }
        append(0x5D)
        redecodedCount = 0
    }

    private mutating func keepFeedMember(from: Int, _ revision: FeedRevision) {
        let n = count - from
        if feedMember.count < n {
            feedMember.baseAddress.map { $0.deallocate() }
            feedMember = .allocate(byteCount: max(n, 2 * feedMember.count, 256), alignment: 1)
        }
        feedMember.baseAddress!.copyMemory(from: base + from, byteCount: n)
        feedMemberCount = n
        feedMemberRevision = revision
    }

    fileprivate mutating func writeFeed(_ feed: FeedInfoView, source: UnsafeRawBufferPointer, documentNumberOffset: Int) {
        header(kind: "feed", document: documentNumberOffset + feed.document, source: source)
        append(",\"format\":\"")
        append(feed.format.name)
        append(0x22)
        beginLine(depth: 0)
        trustsUTF8 = feed.textIsUTF8
        feed.record.walk(RecordLayout.feed, into: &self)
        trustsUTF8 = false
        key("items"); append(decimal: UInt64(feed.itemCount))
        if redecodedCount > 0 { writeRedecoded() }
    }

    fileprivate mutating func writeError(_ error: FeedError) {
        append(",\"error\":{\"code\":")
        var code = error.code.rawValue
        code.withUTF8 { appendJSONString(UnsafeRawBufferPointer($0)) }
        append(",\"message\":")
        var message = error.message
        message.withUTF8 { appendJSONString(UnsafeRawBufferPointer($0)) }
        // (0 when unknown, SCHEMA.md: also for a position a backend got wrong, which
        // must not trap the writer and with it a whole batch.)
        key("line"); append(decimal: UInt64(max(0, error.line)))
        key("column"); append(decimal: UInt64(max(0, error.column)))
        key("offset"); append(decimal: error.offset)
        if error.skipped > 0 { key("skipped"); append(decimal: error.skipped) }
        append(0x7D)
        if error.recovered { append(",\"recovered\":true") }
    }

    private mutating func header(kind: StaticString, document: Int, source: UnsafeRawBufferPointer) {
        redecodedCount = 0
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
}

// The layout walker writes JSON through these: `commas` has bit d set when the next
// member at nesting depth d needs a comma before it.
extension ByteBuffer: RecordSink {
    mutating func beginLine(depth: Int) {
        self.depth = depth
        commas |= 1 << UInt64(depth)
    }

    /// `,"key":` (the comma when the member is not its object's first), reserved and
    /// written at once, and `"` too when `quote` (a string value follows).
    @inline(__always)
    private mutating func member(_ key: StaticString, quote: Bool = false) {
        let bit: UInt64 = 1 << UInt64(depth)
        let comma = commas & bit != 0
        commas |= bit
        let k = key.utf8CodeUnitCount
        write(upTo: k &+ 5) { p in
            var q = p
            if comma { q[0] = 0x2C; q += 1 }
            q[0] = 0x22
            copyBytes(to: q + 1, from: key.utf8Start, k)
            q += 1 &+ k
            q[0] = 0x22; q[1] = 0x3A
            if quote { q[2] = 0x22; return q + 3 - p }
            return q + 2 - p
        }
    }

    @inline(__always)
    private mutating func open(_ c: UInt8) {
        append(c)
        depth += 1
        commas &= ~(1 << UInt64(depth))
    }

    @inline(__always)
    private mutating func close(_ c: UInt8) {
        append(c)
        depth -= 1
    }

    mutating func string(_ key: StaticString, _ value: UnsafeRawBufferPointer) {
        text(key, TextRules.trimmed(value))
    }

    /// Decoded bytes are not the tokenizer's: checked as UTF-8 whatever ``trustsUTF8``
    /// says (base64 with `mode="base64"` may decode to any bytes; trusted, they were
    /// written as they came, not as U+FFFD).
    mutating func decodedString(_ key: StaticString, _ value: UnsafeRawBufferPointer) {
        let trusted = trustsUTF8
        trustsUTF8 = false
        text(key, value)
        trustsUTF8 = trusted
    }

    /// A string member's key and value (the value as the rules left it, escaped here);
    /// inlined in each, so that writing a member is one call.
    @inline(__always)
    private mutating func text(_ key: StaticString, _ value: UnsafeRawBufferPointer) {
        member(key, quote: true)
        if trustsUTF8 {
            appendTrustedJSONString(value, closing: 0x22, redecoding: true, key: key)
        } else {
            currentKey = key
            appendDocumentText(value, closing: 0x22)
        }
    }

    /// Written in place, with its closing quote: no text rule or escape applies (nor is
    /// anything read again: ``currentKey`` is not needed).
    mutating func formatted(_ key: StaticString, maxLength: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        member(key, quote: true)
        self.write(upTo: maxLength &+ 1) { p in
            let n = write(p)
            p[n] = 0x22
            return n &+ 1
        }
    }

    mutating func literal(_ key: StaticString, _ value: StaticString) {
        member(key)
        append(value)
    }

    mutating func number(_ key: StaticString, maxLength: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        member(key)
        self.write(upTo: maxLength, write)
    }

    mutating func beginObject(_ key: StaticString) {
        if depth == 0 { topKey = key }
        member(key)
        open(0x7B)
    }

    mutating func endObject() { close(0x7D) }

    mutating func beginArray(_ key: StaticString) {
        if depth == 0 { topKey = key }
        member(key)
        open(0x5B)
    }

    mutating func beginElement() {
        let bit: UInt64 = 1 << UInt64(depth)
        if commas & bit != 0 { append(0x2C) }
        commas |= bit
        open(0x7B)
    }

    mutating func endElement() { close(0x7D) }

    mutating func element(_ value: UnsafeRawBufferPointer) {
        let bit: UInt64 = 1 << UInt64(depth)
        if commas & bit != 0 { append(0x2C) }
        commas |= bit
        append(0x22)
        // As a member's string: the UTF-8 the strict tokenizer checked is not checked again
        // (read again, it is counted under the array's key, ``topKey``).
        if trustsUTF8 {
            appendTrustedJSONString(TextRules.trimmed(value), closing: 0x22, redecoding: true, key: topKey)
        } else {
            appendDocumentText(TextRules.trimmed(value), closing: 0x22)
        }
    }

    mutating func endArray() { close(0x5D) }
}
