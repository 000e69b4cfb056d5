// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Writes one JSON line per feed document (docs/SCHEMA.md, "Document lines"; the
/// command line's `--per feed`): the feed line's members, with `kind` `"document"`
/// and `items` the array of the document's items, each an item line's object without
/// the common members (`schema`, `kind`, `source`, `document`).
///
/// Built on ``JSONLinesWriter``, so both layouts say the same thing byte for byte:
/// the item objects are the item lines' members, the document line the feed line's.
/// A document's items are held until it ends, so memory grows with the largest
/// document, not with the input.
///
/// Set ``source`` before each input; call ``flush()`` when done.
package final class DocumentLinesWriter: FeedHandler {
    private let assembler: DocumentAssembler
    private let lines: JSONLinesWriter

    /// A writer buffering up to about `bufferSize` bytes before writing to `output`.
    package init(output: any ByteOutput, bufferSize: Int = 1 << 20) {
        assembler = DocumentAssembler(output: output, bufferSize: bufferSize)
        lines = JSONLinesWriter(output: assembler, bufferSize: 64 << 10)
    }

    /// Where the next documents were found in a web archive
    /// (``JSONLinesWriter/warc``).
    package var warc: WARCOrigin? {
        get { lines.warc }
        set { lines.warc = newValue }
    }

    /// The `source` written in each line (a path, or "-" for standard input).
    package var source: String {
        get { lines.source }
        set { lines.source = newValue }
    }

    /// Added to every document number written (``JSONLinesWriter/documentNumberOffset``).
    package var documentNumberOffset: Int {
        get { lines.documentNumberOffset }
        set { lines.documentNumberOffset = newValue }
    }

    /// Resolve relative URIs inside HTML and XHTML content (the default); false keeps
    /// it as written (``JSONLinesWriter/resolvesRelativeURIsInContent``).
    package var resolvesRelativeURIsInContent: Bool {
        get { lines.resolvesRelativeURIsInContent }
        set { lines.resolvesRelativeURIsInContent = newValue }
    }

    /// The URL the documents were read from, when known
    /// (``JSONLinesWriter/documentLocation``).
    package var documentLocation: String? {
        get { lines.documentLocation }
        set { lines.documentLocation = newValue }
    }

    /// Document lines written so far.
    package var documentLines: Int { assembler.documents }
    /// Bytes handed to the output so far.
    package var bytesWritten: UInt64 { assembler.bytesWritten }

    /// Writes out everything buffered.
    package func flush() throws {
        try lines.flush()
        try assembler.flushOutput()
    }

    /// Starts holding a new document's items.
    package func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
        try lines.parser(parser, didStartDocument: document)
    }

    /// Adds the item's object to the current document.
    package func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        try lines.parser(parser, didParseItem: item)
    }

    /// Records the document's feed members.
    package func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws {
        try lines.parser(parser, didParseFeedInfo: feed)
    }

    /// Writes the document's line.

    package func parser(_ parser: any FeedParser, didFinishDocument document: Int) throws {
        try lines.parser(parser, didFinishDocument: document)
        try lines.flush()   // the feed line is closed: the document can be assembled
    }

    /// Writes the failed document's line, with its error (errors without a document
    /// write nothing).
    package func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        try lines.parser(parser, didFail: error)
        try lines.flush()
    }
}

/// Receives whole JSON lines from a ``JSONLinesWriter`` (it writes out only at line
/// boundaries) and turns each document's item lines and feed line into one line.
private final class DocumentAssembler: ByteOutput {
    private let output: any ByteOutput
    private let bufferSize: Int
    private var items: ByteBuffer      // the current document's item objects, comma-separated
    private var itemCount = 0
    private var out: ByteBuffer
    private(set) var documents = 0
    private(set) var bytesWritten: UInt64 = 0

    init(output: any ByteOutput, bufferSize: Int) {
        self.output = output
        self.bufferSize = bufferSize
        items = ByteBuffer(capacity: 64 << 10)
        out = ByteBuffer(capacity: bufferSize + (64 << 10))
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var start = 0
        while start < bytes.count {
            var nl = bytes.count
            if let p = memchr(base + start, 0x0A, bytes.count - start) {
                nl = UnsafePointer(p.assumingMemoryBound(to: UInt8.self)) - base
            }
            try line(UnsafeBufferPointer(start: base + start, count: nl - start))
            start = nl + 1
        }
    }

    /// Called by the line writer on each of its flushes: nothing to do, documents are
    /// written out as they complete and by ``flushOutput()``.
    func flush() throws {}

    func flushOutput() throws {
        if out.count > 0 {
            try output.write(out.bytes)
            bytesWritten += UInt64(out.count)
            out.removeAll()
        }
        try output.flush()
    }

    /// One line, without its newline.
    private func line(_ l: UnsafeBufferPointer<UInt8>) throws {
        guard let kind = find(Self.kindKey, in: l, from: 0) else { return }
        let value = kind + Self.kindKey.count
        if l.count >= value + 5 && l[value] == UInt8(ascii: "i") {   // "item"
            guard let document = find(Self.documentKey, in: l, from: value) else { return }
            var p = document + Self.documentKey.count
            while p < l.count && l[p] >= 0x30 && l[p] <= 0x39 { p += 1 }
            // l[p] is the comma after the common members: the object goes on from p + 1.
            if itemCount > 0 { items.append(0x2C) }
            items.append(0x7B)
            items.append(UnsafeRawPointer(l.baseAddress! + p + 1), l.count - p - 1)
            itemCount += 1
        } else {
            try document(l, kindValue: value)
        }
    }

    /// The feed line: written with kind "document" and the items array for the count.
    private func document(_ l: UnsafeBufferPointer<UInt8>, kindValue: Int) throws {
        let base = UnsafeRawPointer(l.baseAddress!)
        guard let key = topLevelItemsKey(l) else { return }
        var end = key + Self.itemsKey.count
        while end < l.count && l[end] >= 0x30 && l[end] <= 0x39 { end += 1 }
        out.append(base, kindValue)
        out.append("document\"")
        let afterKind = kindValue + 5   // past `feed"`
        out.append(base + afterKind, key - afterKind)
        out.append(Self.itemsOpen)
        out.append(items.bytes.baseAddress!, items.count)
        out.append(0x5D)
        out.append(base + end, l.count - end)
        out.append(0x0A)
        items.removeAll()
        itemCount = 0
        documents += 1
        if out.count >= bufferSize {
            try output.write(out.bytes)
            bytesWritten += UInt64(out.count)
            out.removeAll()
        }
    }

    private static let kindKey: [UInt8] = Array("\"kind\":\"".utf8)
    private static let documentKey: [UInt8] = Array(",\"document\":".utf8)
    private static let itemsKey: [UInt8] = Array("\"items\":".utf8)
    private static let itemsOpen: StaticString = "\"items\":["

    private func find(_ needle: [UInt8], in l: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard l.count >= needle.count else { return nil }
        var i = from
        while i <= l.count - needle.count {
            if l[i] == needle[0] && memcmp(l.baseAddress! + i, needle, needle.count) == 0 { return i }
            i += 1
        }
        return nil
    }

    /// Where the top-level `"items":` key starts (strings and nested values skipped).
    private func topLevelItemsKey(_ l: UnsafeBufferPointer<UInt8>) -> Int? {
        var depth = 0
        var i = 0
        while i < l.count {
            switch l[i] {
            case 0x22:   // a string: a key of this object when at depth 1
                if depth == 1 && l.count - i >= Self.itemsKey.count
                    && memcmp(l.baseAddress! + i, Self.itemsKey, Self.itemsKey.count) == 0 {
                    return i
                }
                i += 1
                while i < l.count && l[i] != 0x22 { i += l[i] == 0x5C ? 2 : 1 }
            case 0x7B, 0x5B: depth += 1
            case 0x7D, 0x5D: depth -= 1
            default: break
            }
            i += 1
        }
        return nil
    }
}
