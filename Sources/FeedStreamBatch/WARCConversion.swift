// SPDX-License-Identifier: Apache-2.0
import FeedStream

/// What a web archive input held: records seen, those converted as feeds, and those
/// skipped, by reason (`--stats`: `warc_records`, `warc_feed_records`, `warc_skipped`).
public struct WARCCounts: Sendable, Equatable {
    /// Records read.
    public var records = 0
    /// Records whose payload was converted as a feed.
    public var feedRecords = 0
    /// Records not converted, by reason: the record type (`request`, `warcinfo`,
    /// `metadata`, `revisit`, …), or for responses `html`, `not a feed`, `xml, not a
    /// feed`, `http status NNN`, `content-encoding NAME`.
    public var skipped: [String: Int] = [:]

    /// None.
    public init() {}

    mutating func add(_ other: WARCCounts) {
        records += other.records
        feedRecords += other.feedRecords
        for (k, v) in other.skipped { skipped[k, default: 0] += v }
    }
}

extension FeedError.Code {
    /// A web archive record could not be read, or its payload is not all there (a
    /// `revisit` of a feed, a payload the crawler truncated).
    public static let warc = FeedError.Code(rawValue: "warc")
    /// A web archive's `revisit` record of a feed: its payload is in another capture,
    /// not in this archive. Reported so that the feed is not missed without a word, but
    /// nothing of this archive was lost (the record is counted as skipped).
    public static let revisit = FeedError.Code(rawValue: "revisit")
}

/// Converts one WARC input: each `response` or `resource` record whose payload is a
/// feed is parsed (chunked transfer coding undone; a gzip content coding is inflated
/// by the parser, which reads gzip by content), with `WARC-Target-URI` as the
/// document's location and the record's `warc` member on its lines; every other record
/// is counted as skipped, by reason. Documents are numbered across the archive.
struct WARCConversion {
    let parser: any FeedParser
    let handler: any FeedHandler
    let writer: any BatchLineWriter
    /// The location the run was given (`--base-url`), restored after each record.
    let runLocation: String?
    /// Read and inflate the archive on a second thread (as a large `.gz` input is read
    /// with `-j` above 1): the converting thread only parses.
    var readAhead = false
    /// Documents before the first one read here (a part of an archive read after others).
    var documentBase = 0

    /// Bytes of a response's block read before deciding whether it is a feed: its HTTP
    /// head and the start of its body.
    static let headBytes = 64 << 10
    /// What is read first, to decide without copying more of records that are skipped.
    static let sniffBytes = 4 << 10

    /// Called before an error whose offset is one in the uncompressed stream (bytes
    /// that are no record, a stream that ended early) is reported, as opposed to a
    /// record's file offset: a part of an archive (``WARCParts``) knows the former only
    /// relative to where it began.
    var willReportStreamOffset: (() -> Void)? = nil

    /// Converts the archive read from `fd`, after `prefix` (its first bytes, already
    /// read from it: a pipe's).
    func convert(fd: Int32, prefix: [UInt8] = [], isCancelled: @escaping @Sendable () -> Bool,
                 didRead: @escaping @Sendable (UInt64) -> Void) throws -> (ParseSummary, WARCCounts) {
        // The archive is inflated as the parser inflates its records.
        let inflater = (parser as? InflaterChoosing)?.inflater ?? .default
        let reader = readAhead
            ? WARCReader(readingAhead: fd, prefix: prefix, inflater: inflater, isCancelled: isCancelled, didRead: didRead)
            : WARCReader(fd: fd, prefix: prefix, inflater: inflater, isCancelled: isCancelled, didRead: didRead)
        let (summary, counts, _) = try convert(reader, isCancelled: isCancelled)
        return (summary, counts)
    }

    /// Converts the records `reader` reads, up to the end of its stream or, when
    /// `stopAt` is given, up to the first record it is true for (that record is not
    /// read: it is returned).
    func convert(_ reader: WARCReader, isCancelled: @escaping @Sendable () -> Bool,
                 stopAt: ((WARCRecord) -> Bool)? = nil) throws -> (ParseSummary, WARCCounts, stoppedAt: WARCRecord?) {
        var summary = ParseSummary()
        var counts = WARCCounts()
        defer {
            writer.documentLocation = runLocation
            writer.warc = nil
            writer.documentNumberOffset = 0
        }
        func report(_ e: FeedError, streamOffset: Bool = false) throws {
            if summary.firstError == nil { summary.firstError = e }
            if streamOffset { willReportStreamOffset?() }
            try handler.parser(parser, didFail: e)
        }
        while true {
            if isCancelled() { throw BatchCancelled() }
            let record: WARCRecord
            do {
                guard let r = try reader.next() else { break }
                record = r
            } catch {
                try report(FeedError(code: .warc, message: error.message, offset: error.offset), streamOffset: true)
                let skipped = reader.resynchronize(from: error.offset)
                try report(FeedError(code: .warc, message: "\(skipped) bytes skipped to the next WARC record",
                                     offset: error.offset), streamOffset: true)
                continue
            }
            if let stopAt, stopAt(record) {
                summary.bytesIn = reader.bytesIn
                return (summary, counts, record)
            }
            counts.records += 1
            let type = record.type
            guard type == "response" || type == "resource" || type == "revisit" else {
                counts.skipped[type.isEmpty ? "no type" : type, default: 0] += 1
                continue
            }
            // A few KiB hold the HTTP head and the body's start as a rule; more only when not.
            var head = reader.readBlock(upTo: Self.sniffBytes)
            var contentType: String?   // the payload's, as the server (or the archiver) gave it
            var chunked = false
            var bodyStart = 0
            if type == "resource" {
                contentType = record.field("Content-Type")
            } else {
                var parsed = HTTPResponseHead(head)
                if parsed == nil && reader.blockLeft > 0 {
                    head += reader.readBlock(upTo: Self.headBytes - head.count)
                    parsed = HTTPResponseHead(head)
                }
                guard let http = parsed else {
                    counts.skipped["not an http response", default: 0] += 1
                    continue
                }
                contentType = http.field("Content-Type")
                bodyStart = http.bodyStart
                let mediaType = http.mediaType
                if type == "revisit" {
                    // The payload is elsewhere (an earlier capture): reported when it was a feed.
                    counts.skipped["revisit", default: 0] += 1
                    if let mediaType, FeedSniffer.reasonToSkip(mediaType: mediaType, head: []) == nil {
                        try report(FeedError(code: .revisit, message: "revisit record of a feed: the payload is not in this record"
                                             + (record.field("WARC-Refers-To-Target-URI").map { " (refers to \($0))" } ?? ""),
                                             offset: record.offset))
                    }
                    continue
                }
                guard (200..<300).contains(http.status) else {
                    counts.skipped["http status \(http.status)", default: 0] += 1
                    continue
                }
                chunked = http.field("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
                if let coding = http.field("Content-Encoding")?.lowercased().trimmingASCIISpaces(),
                   !["", "identity", "gzip", "x-gzip"].contains(coding) {
                    counts.skipped["content-encoding \(coding)", default: 0] += 1
                    continue
                }
            }
            // Decide on the body's first bytes (dechunked, so the sniffer sees the document).
            var first = Array(head[bodyStart...])
            head = []
            func decoded() -> [UInt8] {
                guard chunked else { return first }
                var sniffing = ChunkedDecoder()
                return sniffing.decode(first[...])
            }
            var body = decoded()
            var gzipped: Bool { body.count >= 2 && InputStage.isGzip(body[0], body[1]) }
            // A long prolog, or a root name cut where the bytes read end: look further.
            if (gzipped || body.withUnsafeBytes({ FeedSniffer.decides($0) }) == nil) && reader.blockLeft > 0 {
                first += reader.readBlock(upTo: Self.headBytes)
                body = decoded()
            }
            // A gzip coding is looked through: its first inflated bytes decide (when the
            // bytes at hand are too few to, the payload is parsed and the parser says).
            let sniffed: [UInt8]? = gzipped
                ? body.withUnsafeBytes { InputStage.peekInflated($0, limit: Self.sniffBytes) { FeedSniffer.decides($0) } }
                : body
            if let sniffed, let reason = FeedSniffer.reasonToSkip(mediaType: contentType.map { ContentType($0).mediaType },
                                                                   head: sniffed) {
                counts.skipped[reason, default: 0] += 1
                continue
            }
            counts.feedRecords += 1
            // Parse: the head's body bytes, then the rest of the block, streamed.
            let stream = PayloadStream(reader: reader, first: first, chunked: chunked)
            let origin = WARCOrigin(record)
            writer.documentLocation = origin.targetURI ?? runLocation
            writer.warc = origin
            writer.documentNumberOffset = documentBase + summary.documents
            let renumbered = Renumbering(inner: handler, base: documentBase + summary.documents)
            // The HTTP charset applies over the XML declaration (RFC 7303; FeedParser's contentType).
            let part = try parser.parse(.chunks(FeedChunks { try stream.next() }), contentType: contentType,
                                        handler: renumbered)
            summary.documents += part.documents
            summary.items += part.items
            summary.failedDocuments += part.failedDocuments
            summary.recoveredDocuments += part.recoveredDocuments
            summary.bytesXML += part.bytesXML
            if summary.firstError == nil { summary.firstError = part.firstError?.numbered(after: renumbered.base) }
            if let truncated = record.field("WARC-Truncated") {
                try report(FeedError(code: .warc, message: "payload truncated by the crawler (WARC-Truncated: \(truncated))",
                                     offset: record.offset))
            }
            if stream.cutShort && reader.failure == nil {
                try report(FeedError(code: .warc, message: "chunked payload cut short", offset: record.offset))
            }
        }
        if let failure = reader.failure {
            try report(FeedError(code: failure.code, message: failure.message, offset: reader.bytesRead), streamOffset: true)
        }
        summary.bytesIn = reader.bytesIn
        return (summary, counts, nil)
    }
}

/// A record's payload for the parser, chunk by chunk: the bytes read with the head,
/// then the rest of the block; chunked transfer coding undone as it streams.
///
/// `@unchecked Sendable`: used by the one thread that runs the parse.
private final class PayloadStream: @unchecked Sendable {
    private let reader: WARCReader
    private var first: [UInt8]?
    private let chunked: Bool
    private var current: [UInt8] = []
    private var decoder = ChunkedDecoder()
    /// True when a chunked payload ended before its last chunk, or was not chunked as
    /// its header said.
    var cutShort: Bool { chunked && (!decoder.done || decoder.malformed) }

    init(reader: WARCReader, first: [UInt8], chunked: Bool) {
        self.reader = reader
        self.first = first
        self.chunked = chunked
    }

    func next() throws -> UnsafeRawBufferPointer? {
        while true {
            let raw: [UInt8]
            if let f = first {
                first = nil
                raw = f
            } else if !chunked {
                // The reader's own buffer, borrowed until the next call (FeedChunks' contract):
                // the bytes stay put until the reader reads again.
                let b = reader.withNextBlockBytes(upTo: 256 << 10) { $0 }
                return b.count > 0 ? b : nil
            } else {
                raw = reader.readBlock(upTo: 256 << 10)
                if raw.isEmpty { return nil }
            }
            current = chunked ? decoder.decode(raw[...]) : raw
            if !current.isEmpty {
                return current.withUnsafeBytes { UnsafeRawBufferPointer(start: $0.baseAddress, count: $0.count) }
            }
        }
    }
}

/// A record's parse, renumbered into the archive's documents.
private final class Renumbering: FeedHandler {
    let inner: any FeedHandler
    let base: Int

    init(inner: any FeedHandler, base: Int) {
        self.inner = inner
        self.base = base
    }

    func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
        try inner.parser(parser, didStartDocument: base + document)
    }

    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        try inner.parser(parser, didParseItem: item)
    }

    func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws {
        try inner.parser(parser, didParseFeedInfo: feed)
    }

    func parser(_ parser: any FeedParser, didFinishDocument document: Int) throws {
        try inner.parser(parser, didFinishDocument: base + document)
    }

    func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        try inner.parser(parser, didFail: error.numbered(after: base))
    }
}
