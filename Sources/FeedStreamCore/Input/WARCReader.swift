// SPDX-License-Identifier: Apache-2.0
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// Web archives (ISO 28500, WARC/1.0 and 1.1): records one after another, each a header
// (`WARC/1.1`, named fields, a blank line), a block of `Content-Length` bytes, and a
// blank line. A `.warc.gz` is the same stream gzip-compressed a member per record, read
// through the one Swift gzip stage (``ChunkReader``, ``InputStage``). The reader keeps
// one buffer: memory is flat whatever the archive's size; a block is read only as far
// as the caller asks, the rest skipped.

/// Header fields as WARC and HTTP write them (`Name: value`, a line each; a line that
/// starts with a space or tab continues the previous one), parsed from bytes.
///
/// Kept as bytes with the places of names and values: a record's header has a dozen
/// fields and the reader looks at a few, so only those become strings.
package struct HeaderFields: Sendable {
    /// The fields' bytes: each name, then its value (trimmed; continuations joined by a space).
    private var bytes: [UInt8] = []
    /// Where each field's name and value are in `bytes`: name `a..<b`, value `b..<c`.
    private var places: [(a: Int32, b: Int32, c: Int32)] = []

    package init() {}

    /// Adds one line (without its line end); false when it is neither a field nor a
    /// continuation.
    package mutating func add<C: RandomAccessCollection>(line: C) -> Bool where C.Element == UInt8, C.Index == Int {
        guard let first = line.first else { return false }
        if first == 0x20 || first == 0x09 {
            guard !places.isEmpty else { return false }
            let (lo, hi) = Self.trimmed(line, line.startIndex, line.endIndex)
            bytes.append(0x20)
            bytes.append(contentsOf: line[lo..<hi])
            places[places.count - 1].c = Int32(bytes.count)
            return true
        }
        guard let colon = line.firstIndex(of: 0x3A) else { return false }
        let (nlo, nhi) = Self.trimmed(line, line.startIndex, colon)
        let (vlo, vhi) = Self.trimmed(line, colon + 1, line.endIndex)
        let a = Int32(bytes.count)
        bytes.append(contentsOf: line[nlo..<nhi])
        let b = Int32(bytes.count)
        bytes.append(contentsOf: line[vlo..<vhi])
        places.append((a, b, Int32(bytes.count)))
        return true
    }

    /// The fields in order, names as written.
    package var fields: [(name: String, value: String)] {
        places.map { p in
            (String(decoding: bytes[Int(p.a)..<Int(p.b)], as: UTF8.self),
             String(decoding: bytes[Int(p.b)..<Int(p.c)], as: UTF8.self))
        }
    }

    /// The first value of a field, by name in any case (ASCII).
    package func value(_ name: String) -> String? {
        let key = Array(name.utf8)
        for p in places {
            let a = Int(p.a), b = Int(p.b)
            guard b - a == key.count else { continue }
            var same = true
            for n in 0..<key.count {
                // Letters match in any case; other bytes must be equal.
                let x = bytes[a + n], y = key[n]
                if x != y && !(Self.isLetter(x) && x | 0x20 == y | 0x20) { same = false; break }
            }
            if same { return String(decoding: bytes[b..<Int(p.c)], as: UTF8.self) }
        }
        return nil
    }

    private static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

    private static func trimmed<C: RandomAccessCollection>(_ b: C, _ from: Int, _ to: Int) -> (Int, Int)
        where C.Element == UInt8, C.Index == Int
    {
        var lo = from, hi = to
        while lo < hi, b[lo] == 0x20 || b[lo] == 0x09 || b[lo] == 0x0D { lo += 1 }
        while hi > lo, b[hi - 1] == 0x20 || b[hi - 1] == 0x09 || b[hi - 1] == 0x0D { hi -= 1 }
        return (lo, hi)
    }
}

/// A WARC record's header, as ``WARCReader`` read it.
package struct WARCRecord: Sendable {
    /// The version line, e.g. `WARC/1.1`.
    package var version: String
    /// The named fields.
    package var header: HeaderFields
    /// The named fields in order, names as written.
    package var fields: [(name: String, value: String)] { header.fields }
    /// Where the record starts: its offset in the file, or, in a `.warc.gz`, the offset
    /// of the gzip member it starts in (what WARC indexes such as CDX files record).
    package var offset: UInt64
    /// The uncompressed offset of the block's first byte.
    package var blockOffset: UInt64
    /// The block's length (`Content-Length`).
    package var contentLength: Int
    /// The uncompressed offset of the header's first byte (from where the reader began).
    package var start: UInt64 = 0
    /// True when the record is the first thing in its gzip member (plain: always): a
    /// reader begun at ``offset`` reads from here on what this one reads.
    package var startsMember = true

    package init(header: HeaderFields, version: String, offset: UInt64, blockOffset: UInt64) {
        self.header = header
        self.version = version
        self.offset = offset
        self.blockOffset = blockOffset
        contentLength = 0
    }

    /// A field's value, by name in any case (the first of that name).
    package func field(_ name: String) -> String? { header.value(name) }

    /// `WARC-Type`, lower-cased (`response`, `resource`, `revisit`, `request`, …).
    package var type: String { field("WARC-Type")?.lowercased() ?? "" }
}

/// Where a document was found in a web archive: the `warc` member of its lines
/// (docs/SCHEMA.md, "Web archives").
package struct WARCOrigin: Sendable, Equatable {
    /// `WARC-Record-ID`, as written (`<urn:uuid:…>`).
    package var recordID: String?
    /// `WARC-Target-URI`: the URL the feed was fetched from.
    package var targetURI: String?
    /// `WARC-Date`: when it was fetched, as written.
    package var date: String?
    /// ``WARCRecord/offset``.
    package var offset: UInt64

    package init(_ record: WARCRecord) {
        recordID = record.field("WARC-Record-ID")
        targetURI = record.field("WARC-Target-URI").map { $0.hasPrefix("<") && $0.hasSuffix(">") ? String($0.dropFirst().dropLast()) : $0 }
        date = record.field("WARC-Date")
        offset = record.offset
    }
}

/// A WARC stream that does not follow the format where a record should start.
package struct WARCFormatError: Error, Sendable, Equatable {
    package var message: String
    /// The uncompressed offset where it was found.
    package var offset: UInt64
}

/// Where a ``WARCReader`` gets its uncompressed bytes: a ``ChunkReader`` on the reader's
/// own thread, or ``ReadAheadWARCSource`` inflating on a second one.
protocol WARCByteSource: AnyObject {
    /// Fills `buffer` with the next bytes; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// gzip member starts found since the last call (some may lie ahead of the bytes read).
    func takeMemberStarts() -> [(compressed: UInt64, uncompressed: UInt64)]
    /// True once the stream was found to be gzip (nil before the first read).
    var isGzip: Bool? { get }
    var bytesIn: UInt64 { get }
    var failure: StreamFailure? { get }
}

extension ChunkReader: WARCByteSource {}

/// A WARC's bytes read and inflated on a second thread, a few chunks ahead (as
/// ``ReadAheadPipeline`` does for a `.gz` input): the converting thread only parses.
/// Released, it stops the reading thread and waits for it.
final class ReadAheadWARCSource: WARCByteSource {
    /// What the reading thread tells the converting one besides the chunks.
    private final class Found: @unchecked Sendable {   // under `lock`
        let lock = ConditionLock()
        var members: [(compressed: UInt64, uncompressed: UInt64)] = []
        var gzip: Bool?
    }
    private let queue: ChunkQueue
    private let found = Found()
    private let done = DispatchGroup()
    private var chunk = UnsafeRawBufferPointer(start: nil, count: 0)
    private var ended = false

    init(fd: Int32, prefix: [UInt8] = [], chunkSize: Int = 256 << 10, depth: Int = 3, inflater: GzipInflater,
         isCancelled: @escaping @Sendable () -> Bool, didRead: @escaping @Sendable (UInt64) -> Void) {
        let queue = ChunkQueue(chunkSize: chunkSize, depth: depth)
        let found = found
        self.queue = queue
        // Not `self`: the reader must not keep this object alive (deinit stops it).
        DispatchQueue(label: "feedstream.warc-read-ahead").async(group: done) {
            let reader = ChunkReader(fd: fd, inflate: true, prefix: prefix, inflater: inflater,
                                     isCancelled: { queue.isClosed || isCancelled() }, didRead: didRead)
            reader.recordMemberStarts()
            queue.produce(from: reader) { reader in
                // Before the chunk is handed on: a record in it finds its member's start.
                let starts = reader.takeMemberStarts()
                found.lock.withLock {
                    found.members += starts
                    found.gzip = reader.isGzip
                }
            }
        }
    }

    /// Stops the reading thread (if it is still reading) and waits for it.
    deinit {
        queue.close()
        done.wait()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while chunk.count == 0 {
            if ended { return 0 }
            guard let next = queue.nextChunk() else {
                ended = true
                return 0
            }
            chunk = next
        }
        let n = min(buffer.count, chunk.count)
        out.copyMemory(from: chunk.baseAddress!, byteCount: n)
        chunk = UnsafeRawBufferPointer(rebasing: chunk[n...])
        return n
    }

    func takeMemberStarts() -> [(compressed: UInt64, uncompressed: UInt64)] {
        found.lock.withLock {
            defer { found.members.removeAll() }
            return found.members
        }
    }

    var isGzip: Bool? { found.lock.withLock { found.gzip } }
    var bytesIn: UInt64 { queue.bytesIn }
    var failure: StreamFailure? { ended ? queue.failure : nil }
}

/// Reads a WARC file record by record, plain or gzip (by content).
package final class WARCReader {
    private let source: any WARCByteSource
    private static let capacity = 1 << 20
    /// Longest header (of a record, or of an HTTP message in its block) read.
    package static let maxHeaderBytes = 256 << 10
    private let buf = UnsafeMutablePointer<UInt8>.allocate(capacity: WARCReader.capacity)
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// The uncompressed offset of `buf[start]`.
    private var position: UInt64 = 0
    /// Bytes of the current block not yet read or skipped.
    package private(set) var blockLeft = 0
    /// gzip member starts not yet passed.
    private var members: [(compressed: UInt64, uncompressed: UInt64)] = []

    /// The file offset of the stream's first byte: added to every ``WARCRecord/offset``.
    private let fileOffset: UInt64

    /// Reads `fd` from its current position (plain or gzip, by content), after `prefix`
    /// (its first bytes, already read from it: a pipe's); or, given `fileOffset` (a
    /// regular file), from there with `pread` (the descriptor's position is left alone:
    /// several readers can read parts of one file), with the file's record offsets.
    package init(fd: Int32, prefix: [UInt8] = [], fileOffset: UInt64? = nil, inflater: GzipInflater = .default,
                 isCancelled: @escaping @Sendable () -> Bool = { false }, didRead: @escaping (UInt64) -> Void = { _ in }) {
        let reader = ChunkReader(fd: fd, inflate: true, prefix: prefix, fileOffset: fileOffset, inflater: inflater,
                                 isCancelled: isCancelled, didRead: didRead)
        reader.recordMemberStarts()
        source = reader
        self.fileOffset = fileOffset ?? 0
    }

    /// Reads `fd` with its reading and inflating on a second thread, a few chunks ahead
    /// (``ReadAheadWARCSource``); the same records, offsets and bytes.
    package init(readingAhead fd: Int32, prefix: [UInt8] = [], inflater: GzipInflater = .default,
                 isCancelled: @escaping @Sendable () -> Bool, didRead: @escaping @Sendable (UInt64) -> Void) {
        source = ReadAheadWARCSource(fd: fd, prefix: prefix, inflater: inflater, isCancelled: isCancelled,
                                     didRead: didRead)
        fileOffset = 0
    }

    deinit { buf.deallocate() }

    /// Bytes read from the file (compressed, for gzip).
    package var bytesIn: UInt64 { source.bytesIn }
    /// Uncompressed bytes read so far.
    package var bytesRead: UInt64 { position + UInt64(end - start) }
    /// Why the stream ended early (corrupt or truncated gzip, a read error), once a read
    /// came up short: its code and message.
    package var failure: (code: FeedError.Code, message: String)? {
        source.failure.flatMap { $0.kind == .cancelled ? nil : ($0.code, $0.fatalMessage) }
    }

    /// True when the file at `fd` is a WARC (plain, or gzip whose first member inflates
    /// to a WARC version line). Reads its first bytes with `pread`: the descriptor's
    /// position is left as it was.
    package static func isWARC(fd: Int32) -> Bool {
        var head = [UInt8](repeating: 0, count: 512)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 2 else { return false }
        return head[..<n].withUnsafeBytes { isWARCStart($0) }
    }

    /// True when `head`, a stream's first bytes (512 are enough), is a WARC's start:
    /// plain, or gzip whose first member inflates to a WARC version line (inflated with
    /// `stage` when given, reused by callers that look at many inputs).
    package static func isWARCStart(_ head: UnsafeRawBufferPointer, using stage: InputStage? = nil) -> Bool {
        guard head.count >= 2 else { return false }
        if !InputStage.isGzip(head[0], head[1]) { return isWARC(head) }
        let magic = "WARC/1.".utf8.count
        return InputStage.peekInflated(head, limit: magic, using: stage) { $0.count >= magic ? isWARC($0) : nil } ?? false
    }

    /// True when the first bytes of `head` (uncompressed) are a WARC version line.
    package static func isWARC(_ head: UnsafeRawBufferPointer) -> Bool {
        let magic = Array("WARC/1.".utf8)
        return head.count >= magic.count && head.prefix(magic.count).elementsEqual(magic)
    }

    // MARK: Records

    /// The next record's header, after skipping what is left of the current block and
    /// the blank lines after it; nil at the end of the stream.
    /// - Throws: ``WARCFormatError`` when the bytes there are not a WARC header
    ///   (``resynchronize()`` then finds the next record).
    package func next() throws(WARCFormatError) -> WARCRecord? {
        skipBlock()
        // The block is followed by CRLF CRLF; be lenient about how many line ends.
        while true {
            guard ensure(1) else { return nil }
            let c = buf[start]
            guard c == 0x0D || c == 0x0A else { break }
            consume(1)
        }
        let recordStart = position
        let (offset, startsMember) = recordOffset(recordStart)
        guard let version = line({ String(decoding: $0, as: UTF8.self) }), version.hasPrefix("WARC/") else {
            throw WARCFormatError(message: "not a WARC record header", offset: recordStart)
        }
        var header = HeaderFields()
        let headerStart = position
        while true {
            guard let more = line({ l -> Bool? in
                if l.isEmpty { return false }
                return header.add(line: l) ? true : nil
            }) else {
                throw WARCFormatError(message: "WARC header cut short", offset: recordStart)
            }
            if position - headerStart > UInt64(Self.maxHeaderBytes) {
                throw WARCFormatError(message: "WARC header longer than \(Self.maxHeaderBytes) bytes", offset: recordStart)
            }
            guard let more else {
                throw WARCFormatError(message: "WARC header line without a colon", offset: recordStart)
            }
            if !more { break }
        }
        var record = WARCRecord(header: header, version: version, offset: offset, blockOffset: position)
        record.start = recordStart
        record.startsMember = startsMember
        guard let lengthText = record.field("Content-Length"), let length = Int(lengthText), length >= 0 else {
            throw WARCFormatError(message: "WARC record without a valid Content-Length", offset: recordStart)
        }
        record.contentLength = length
        blockLeft = length
        return record
    }

    /// Reads up to `count` more bytes of the current block.
    package func readBlock(upTo count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var want = min(count, blockLeft)
        out.reserveCapacity(want)
        while want > 0 && ensure(1) {
            let n = min(want, end - start)
            out.append(contentsOf: UnsafeBufferPointer(start: buf + start, count: n))
            consume(n)
            blockLeft -= n
            want -= n
        }
        if want > 0 { blockLeft = 0 }   // the stream ended inside the block
        return out
    }

    /// Calls `body` with the next bytes of the current block (at most `count`, at least
    /// one unless the block or the stream ended: then empty), borrowed from the reader's
    /// buffer for the call, and consumes them.
    package func withNextBlockBytes<R>(upTo count: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard blockLeft > 0, ensure(1) else {
            blockLeft = 0
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let n = min(count, blockLeft, end - start)
        defer {
            consume(n)
            blockLeft -= n
        }
        return try body(UnsafeRawBufferPointer(start: buf + start, count: n))
    }

    /// Skips the rest of the current block.
    package func skipBlock() {
        while blockLeft > 0 && ensure(1) {
            let n = min(blockLeft, end - start)
            consume(n)
            blockLeft -= n
        }
        blockLeft = 0
    }

    /// After a ``WARCFormatError`` found at `from` (its ``WARCFormatError/offset``):
    /// skips to the next line that starts a WARC header (`WARC/1.`), or to the end.
    /// Returns how many bytes from `from` are not part of any record, so they can be
    /// reported. (The reader reads whole lines of a header, so it stands at a line's
    /// start.)
    package func resynchronize(from: UInt64) -> UInt64 {
        blockLeft = 0
        let magic = Array("\nWARC/1.".utf8)
        let version = Array(magic.dropFirst())
        if position > from, ensure(version.count), memcmp(buf + start, version, version.count) == 0 {
            return position - from   // the next line starts a record
        }
        while ensure(magic.count) {
            var i = start
            while i + magic.count <= end {
                if buf[i] == 0x0A && memcmp(buf + i, magic, magic.count) == 0 {
                    consume(i + 1 - start)
                    return position - from
                }
                i += 1
            }
            consume(end - start - (magic.count - 1))   // keep a possible partial match
        }
        while ensure(1) { consume(end - start) }
        return position - from
    }

    // MARK: Buffer

    /// The file offset of a record found at uncompressed offset `at`: in a gzip stream,
    /// the last member begun at or before it, and whether that member begins there.
    private func recordOffset(_ at: UInt64) -> (offset: UInt64, startsMember: Bool) {
        members += source.takeMemberStarts()
        guard source.isGzip == true else { return (fileOffset + at, true) }
        var best: (compressed: UInt64, uncompressed: UInt64) = (0, 0)
        var keep = 0
        for (i, m) in members.enumerated() where m.uncompressed <= at {
            best = m
            keep = i
        }
        members.removeFirst(keep)   // the later ones may start later records
        return (fileOffset + best.compressed, best.uncompressed == at)
    }

    /// True when at least `n` bytes are buffered (reading as needed); false at the end.
    private func ensure(_ n: Int) -> Bool {
        if end - start >= n { return true }
        if atEnd { return false }
        if start > 0 {
            memmove(buf, buf + start, end - start)
            end -= start
            start = 0
        }
        while end - start < n && !atEnd {
            let got = source.read(into: UnsafeMutableRawBufferPointer(start: buf + end, count: Self.capacity - end))
            if got == 0 { atEnd = true } else { end += got }
        }
        return end - start >= n
    }

    private func consume(_ n: Int) {
        start += n
        position += UInt64(n)
    }

    /// `body` with the next line, without its CRLF (or LF), borrowed for the call;
    /// nil at the end or past the header limit.
    private func line<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        var scanned = 0
        while true {
            if let nl = memchr(buf + start + scanned, 0x0A, end - start - scanned) {
                let i = buf.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                var len = i - start
                if len > 0 && buf[i - 1] == 0x0D { len -= 1 }
                let r = body(UnsafeBufferPointer(start: buf + start, count: len))
                consume(i + 1 - start)
                return r
            }
            scanned = end - start
            if scanned >= Self.maxHeaderBytes || !ensure(scanned + 1) { return nil }
        }
    }
}

// MARK: HTTP messages in blocks

/// An HTTP response as a WARC `response` record holds it: status, header fields, and
/// where the body starts in the block.
package struct HTTPResponseHead: Sendable {
    package var status: Int
    package var header: HeaderFields
    /// Index of the body's first byte in the block.
    package var bodyStart: Int

    package func field(_ name: String) -> String? { header.value(name) }

    /// Parses the head of `block`; nil when it is not an HTTP response or its head does
    /// not end within the bytes given.
    package init?(_ block: [UInt8]) {
        let http: [UInt8] = [0x48, 0x54, 0x54, 0x50, 0x2F]   // "HTTP/"
        guard block.count > http.count, block[0..<http.count].elementsEqual(http),
              let statusEnd = block.firstIndex(of: 0x0A) else { return nil }
        // "HTTP/1.1 200 OK": the status is the second word.
        var i = 0
        while i < statusEnd && block[i] != 0x20 { i += 1 }
        while i < statusEnd && block[i] == 0x20 { i += 1 }
        var status = 0, digits = 0
        while i < statusEnd, block[i] >= 0x30 && block[i] <= 0x39, digits < 3 {
            status = status * 10 + Int(block[i] - 0x30)
            digits += 1
            i += 1
        }
        guard digits == 3 else { return nil }
        var header = HeaderFields()
        i = statusEnd + 1
        while true {
            guard i < block.count, let nl = block[i...].firstIndex(of: 0x0A) else { return nil }
            var e = nl
            if e > i && block[e - 1] == 0x0D { e -= 1 }
            if e == i {
                bodyStart = nl + 1
                break
            }
            _ = header.add(line: block[i..<e])   // a line that is no field is ignored, as clients do
            i = nl + 1
        }
        self.status = status
        self.header = header
    }

    /// The media type of `Content-Type`, lower-cased, without parameters.
    package var mediaType: String? { field("Content-Type").map { ContentType($0).mediaType } }

    /// The `charset` parameter of `Content-Type`, as written (quotes removed).
    package var charset: String? { ContentType.charset(field("Content-Type")) }
}

/// Undoes `Transfer-Encoding: chunked` (RFC 9112 7.1) as the bytes stream in: each
/// piece given yields the chunks' data it holds.
package struct ChunkedDecoder {
    private var sizeLine: [UInt8] = []
    private var dataLeft = 0
    private var afterData = false
    /// True once the last (zero-size) chunk was read.
    package private(set) var done = false
    /// True when a size line was not hexadecimal (the body is not chunked as it says).
    package private(set) var malformed = false

    package init() {}

    /// The data in `raw`, the next bytes of the body.
    package mutating func decode(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var i = raw.startIndex
        while i < raw.endIndex && !done {
            if dataLeft > 0 {
                let n = min(dataLeft, raw.endIndex - i)
                out.append(contentsOf: raw[i..<(i + n)])
                dataLeft -= n
                i += n
                if dataLeft == 0 { afterData = true }
            } else if afterData {   // the CRLF after a chunk's data
                if raw[i] == 0x0A { afterData = false }
                i += 1
            } else {
                let c = raw[i]
                i += 1
                if c != 0x0A {
                    sizeLine.append(c)
                    continue
                }
                var text = String(decoding: sizeLine, as: UTF8.self)
                sizeLine = []
                if let semi = text.firstIndex(of: ";") { text = String(text[..<semi]) }   // chunk extensions
                guard let size = Int(text.trimmingASCIISpaces(), radix: 16), size >= 0 else {
                    done = true
                    malformed = true
                    break
                }
                if size == 0 { done = true } else { dataLeft = size }   // trailer fields are not needed
            }
        }
        return out
    }
}

/// Whether a payload is a feed: by its media type, then by its first bytes.
package enum FeedSniffer {
    /// Media types that name a feed.
    static let feedTypes: Set<String> = [
        "application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/rss",
        "application/x-rss+xml", "application/x-atom+xml", "application/atom", "text/rss+xml", "text/atom+xml",
        "application/feed+json",
    ]

    /// Why a payload is not taken, or nil when it is a feed.
    ///
    /// A payload is a feed when it is a JSON Feed (an object naming its version), or when
    /// its root element is one the feed machines read (``isFeedRoot(_:)``: `rss`, `feed`,
    /// `entry`, `rdf:RDF`, RSS 1.1's `Channel`, a CDF/RSS `channel`; after a byte order
    /// mark, an XML declaration, comments, processing instructions and a DOCTYPE),
    /// whatever its media type says; a payload
    /// whose media type names a feed is taken unless it is HTML (the parser then reports
    /// what it is). HTML pages, images and the like are skipped.
    package static func reasonToSkip(mediaType: String?, head: [UInt8]) -> String? {
        if isJSONFeed(head) { return nil }
        let root = rootName(head)
        if let root, isFeedRoot(root) { return nil }
        if let mediaType, feedTypes.contains(mediaType) {
            return root?.lowercased() == "html" ? "html" : nil
        }
        if root?.lowercased() == "html" || mediaType == "text/html" || mediaType == "application/xhtml+xml" { return "html" }
        if root != nil { return "xml, not a feed" }
        return "not a feed"
    }

    /// A payload's first bytes, when they are enough for ``reasonToSkip(mediaType:head:)``
    /// to decide: a root element found, or a first character that no XML or JSON
    /// document begins with (after a byte order mark and white space; a NUL may be
    /// UTF-16 or UTF-32, which waits); nil while more bytes could change the answer.
    package static func decides(_ head: UnsafeRawBufferPointer) -> [UInt8]? {
        let bytes = Array(head)
        // A root name is whole when one byte fewer gives the same (else it may go on).
        if let root = rootName(bytes), rootName(Array(bytes.dropLast())) == root { return bytes }
        if isJSONFeed(bytes) { return bytes }
        var i = 0
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        guard i < bytes.count else { return nil }
        return [0x3C, 0x7B, 0x00, 0xFE, 0xFF].contains(bytes[i]) ? nil : bytes
    }

    /// A JSON object naming a JSON Feed version (`"version": "https://jsonfeed.org/version/1.1"`)
    /// in its first bytes.
    package static func isJSONFeed(_ head: [UInt8]) -> Bool {
        var i = 0
        if head.count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF { i = 3 }
        while i < head.count, head[i] == 0x20 || head[i] == 0x09 || head[i] == 0x0A || head[i] == 0x0D { i += 1 }
        guard i < head.count, head[i] == 0x7B else { return false }   // '{'
        let marker = Array("jsonfeed.org/version/".utf8)
        guard head.count - i >= marker.count else { return false }
        for k in i...(head.count - marker.count) where head[k] == marker[0] && head[k..<(k + marker.count)].elementsEqual(marker) {
            return true
        }
        return false
    }

    /// Whether a root element's qualified name is one the feed machines read as a feed
    /// (`startRoot` in `SwiftFeedMachine.swift` and `machine.c`): `rss`, Atom's `feed`
    /// and entry document's `entry`, `rdf:RDF`, RSS 1.1's `Channel`, an RSS `channel`
    /// without its root, CDF's `CHANNEL`. By local name only (the head is not read for
    /// namespace declarations): a root of that name in another namespace is taken, and
    /// the parser then says what it is.
    static func isFeedRoot(_ name: String) -> Bool {
        let local = name.split(separator: ":").last.map(String.init) ?? name
        return ["rss", "feed", "entry", "RDF", "Channel", "channel", "CHANNEL"].contains(local)
    }

    /// The first element's name (qualified as written), or nil when the head holds no
    /// start tag (not XML, or cut too short).
    package static func rootName(_ head: [UInt8]) -> String? {
        var i = 0
        if head.count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF { i = 3 }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        func at(_ k: Int, _ c: UInt8) -> Bool { i + k < head.count && head[i + k] == c }
        /// Moves past the first `a b` (or `a` when b is 0) from i on; false when none.
        func skip(past a: UInt8, _ b: UInt8, _ c: UInt8 = 0) -> Bool {
            while i < head.count {
                if head[i] == a && (b == 0 || at(1, b)) && (c == 0 || at(2, c)) {
                    i += 1 + (b == 0 ? 0 : 1) + (c == 0 ? 0 : 1)
                    return true
                }
                i += 1
            }
            return false
        }
        while true {
            while i < head.count && isSpace(head[i]) { i += 1 }
            guard at(0, 0x3C) else { return nil }                     // '<'
            if at(1, 0x3F) {                                          // "<?" ... "?>"
                guard skip(past: 0x3F, 0x3E) else { return nil }
            } else if at(1, 0x21) && at(2, 0x2D) && at(3, 0x2D) {    // "<!--" ... "-->"
                i += 4
                guard skip(past: 0x2D, 0x2D, 0x3E) else { return nil }
            } else if at(1, 0x21) {                                   // DOCTYPE, its internal subset first
                var depth = 0
                while i < head.count {
                    let c = head[i]
                    i += 1
                    if c == 0x5B { depth += 1 } else if c == 0x5D { depth -= 1 } else if c == 0x3E && depth <= 0 { break }
                }
            } else {
                i += 1
                let s = i
                while i < head.count, !isSpace(head[i]), head[i] != 0x3E, head[i] != 0x2F { i += 1 }
                return i > s ? String(decoding: head[s..<i], as: UTF8.self) : nil
            }
        }
    }
}

extension StringProtocol {
    /// Without the spaces, tabs and carriage returns around it.
    package func trimmingASCIISpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
