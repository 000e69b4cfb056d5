import FeedStreamCore
import FeedStreamSwift
internal import CFeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Owns a C parser handle and the sink its callbacks reach. Shared by the C backends.
final class NativeParser {
    private let handle: OpaquePointer
    private let sink = NativeSink()
    /// JSON Feed input goes to the shared JSON Feed reader.
    private let front: FeedFront

    init(backend: cfs_backend, maxItemBytes: Int, limits: FeedLimits, strict: Bool) {
        front = FeedFront(maxItemBytes: maxItemBytes, limits: limits)
        var options = cfs_options()
        cfs_options_init(&options)
        options.backend = backend
        options.max_item_bytes = maxItemBytes
        // The same meaning on both sides (0: no limit), so the values go straight through
        // (a negative one, "no limit" too in FeedLimits, as 0).
        func c(_ v: Int) -> UInt64 { UInt64(max(v, 0)) }
        options.limits = cfs_limits(max_depth: c(limits.maxDepth), max_field_bytes: c(limits.maxFieldBytes),
                                    max_attributes: c(limits.maxAttributes), max_items: c(limits.maxItems),
                                    max_document_bytes: c(limits.maxDocumentBytes), max_ratio: c(limits.maxRatio),
                                    max_markup_bytes: c(limits.maxMarkupBytes))
        var callbacks = cfs_callbacks(
            on_document_start: { ctx, document in
                NativeSink.from(ctx).call { try $1.parser($0, didStartDocument: document) }
            },
            on_item: { ctx, item, feed in
                NativeSink.from(ctx).call { try $1.parser($0, didParseItem: FeedItemView(item!, feed: feed!)) }
            },
            on_document_end: { ctx, feed, error in
                let sink = NativeSink.from(ctx)
                return sink.call { parser, handler in
                    try handler.parser(parser, didParseFeedInfo: FeedInfoView(feed!))
                    if let error {
                        try handler.parser(parser, didFail: FeedError(error.pointee))
                    } else {
                        try handler.parser(parser, didFinishDocument: feed!.pointee.document)
                    }
                }
            })
        guard let h = cfs_parser_create(&options, &callbacks, Unmanaged.passUnretained(sink).toOpaque()) else {
            fatalError("FeedStream: out of memory creating a parser")
        }
        handle = h
        if !strict {
            sink.recovery = FeedRecovery(maxItemBytes: maxItemBytes, limits: limits)
            cfs_parser_set_recover(h, { ctx, bytes, len, delivered, error in
                let sink = NativeSink.from(ctx)
                guard let recovery = sink.recovery else { return 0 }
                return sink.call { parser, handler in
                    let (total, recovered) = try recovery.recover(
                        UnsafeRawBufferPointer(start: bytes, count: len), number: error!.pointee.document,
                        delivered: delivered, error: FeedError(error!.pointee), parser: parser, handler: handler)
                    sink.recoveredItems += total - delivered
                    if recovered {
                        sink.recoveredDocuments += 1
                        if sink.firstRecovered == nil { sink.firstRecovered = FeedError(error!.pointee) }
                    } else {
                        sink.unrecovered += 1
                    }
                }
            }, InputStage.resyncWindow)
        }
    }

    deinit { cfs_parser_destroy(handle) }

    /// Parses `input` for `parser` (the public object that owns this one, named to the
    /// handler in every callback).
    func parse(_ input: FeedInput, contentType: String?, parser: any FeedParser, handler: some FeedHandler) throws
        -> ParseSummary
    {
        let charset = ContentType.charset(contentType)
        sink.recovery?.transportCharset = charset
        return try front.parse(input, parser: parser, handler: handler) {
            try parseXML($0, charset: charset, parser: parser, handler: handler)
        }
    }

    /// True while an XML stream is parsed (not a JSON Feed).
    private var parsingXML = false

    /// ``DocumentStateReporting/isInDocument``: the C core's (`cfs_parser_in_document`).
    var isInDocument: Bool? { parsingXML ? cfs_parser_in_document(handle) != 0 : nil }

    /// ``DocumentStateReporting/lastDocumentOffset``: the C core's (`cfs_parser_document_offset`).
    var lastDocumentOffset: UInt64? { parsingXML ? cfs_parser_document_offset(handle) : nil }

    /// ``DocumentStateReporting/rereadEnd``: the C core's (`cfs_parser_reread_end`).
    var rereadEnd: UInt64 { parsingXML ? cfs_parser_reread_end(handle) : 0 }

    /// ``DocumentStateReporting/settle()``: the C core's (`cfs_parser_settle`); a handler's
    /// error waits in the sink, as for any callback.
    func settle() {
        if parsingXML { _ = cfs_parser_settle(handle) }
    }

    private func parseXML(_ input: FeedInput, charset: String?, parser: any FeedParser, handler: some FeedHandler) throws
        -> ParseSummary
    {
        parsingXML = true
        defer { parsingXML = false }
        cfs_parser_reset(handle)
        // A name too long for the C core (63 bytes) is no charset we read: ignored, as an unknown one.
        _ = cfs_parser_set_charset(handle, charset)
        sink.parser = parser
        sink.handler = handler
        sink.error = nil
        sink.recoveredItems = 0
        sink.recoveredDocuments = 0
        sink.firstRecovered = nil
        sink.unrecovered = 0
        defer {
            sink.handler = nil
            sink.parser = nil
        }

        switch input {
        case .file(let path):
            let fd = FeedFront.openFile(path)
            if fd < 0 {
                return try parser.reportOpenFailure(errno: errno, to: handler)
            }
            defer { close(fd) }
            _ = cfs_parser_feed_fd(handle, fd)
        case .fileDescriptor(let fd):
            _ = cfs_parser_feed_fd(handle, fd)
        case .bytes(let bytes):
            _ = bytes.withUnsafeBytes { cfs_parser_feed(handle, $0.baseAddress, $0.count) }
        case .chunks(let chunks):
            if let compressed = chunks.compressed {
                // Inflated by ReadAheadPipeline's reader: the ratio is still checked here.
                if let origin = chunks.origin { _ = cfs_parser_inflated_origin(handle, origin.offset, origin.checkpoint) }
                while let chunk = try chunks.next() {
                    let status = if let c = compressed() {
                        cfs_parser_feed_inflated(handle, chunk.baseAddress, chunk.count, c)
                    } else {
                        cfs_parser_feed(handle, chunk.baseAddress, chunk.count)
                    }
                    if status != CFS_OK { break }
                }
            } else {
                while let chunk = try chunks.next(), cfs_parser_feed(handle, chunk.baseAddress, chunk.count) == CFS_OK {}
            }
        }
        if let error = sink.error { throw error }
        let status = cfs_parser_finish(handle)
        if let error = sink.error { throw error }

        let stats = cfs_parser_stats(handle)
        var summary = ParseSummary()
        summary.bytesIn = stats.bytes_in
        summary.bytesXML = stats.bytes_xml
        summary.documents = Int(stats.documents)
        summary.items = Int(stats.items) + sink.recoveredItems
        summary.failedDocuments = Int(stats.failed_documents) + sink.unrecovered
        summary.recoveredDocuments = sink.recoveredDocuments
        if status != CFS_OK, let e = cfs_parser_error(handle) {
            var error = FeedError(e.pointee)
            // The first error is a recovered document's (not a fatal error of the stream).
            error.recovered = error == sink.firstRecovered
            summary.firstError = error
            if error.code == .outOfMemory { throw error }
            // Errors of a document were delivered with it; the others are delivered here.
            if e.pointee.document == 0 { try handler.parser(parser, didFail: error) }
        }
        return summary
    }
}

extension FeedError {
    init(_ e: cfs_error) {
        let code: Code
        switch e.code {
        case CFS_ERR_XML: code = .malformedXML
        case CFS_ERR_GZIP: code = .gzip
        case CFS_ERR_NOT_FEED: code = .notAFeed
        case CFS_ERR_EMPTY: code = .empty
        case CFS_ERR_IO: code = .io
        case CFS_ERR_NOMEM: code = .outOfMemory
        case CFS_ERR_ABORTED: code = .aborted
        case CFS_ERR_LIMIT: code = .limitExceeded
        default: code = Code(rawValue: "error")
        }
        var message = e.message.map { String(cString: $0) } ?? "error"
        if e.code == CFS_ERR_IO && e.sys_errno != 0 { message += ": " + String(cString: strerror(e.sys_errno)) }
        self.init(code: code, message: message, document: e.document, line: Int(e.line), column: Int(e.column),
                  offset: e.offset)
        skipped = e.skipped
    }
}
