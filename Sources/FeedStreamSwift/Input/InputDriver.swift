// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
package import CFeedStreamInput
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Runs a ``FeedInput`` through the input stage every backend shares (the C target
/// `CFeedStreamInput`: gzip, the decompression ratio, documents one after another, the
/// search for the next document after an error, the bytes kept for recovery), and turns
/// what it counted into a ``ParseSummary``. The expat and libxml2 backends give it the
/// stage of their C parser; the Swift backend one that reads each document with the Swift
/// tokenizer (``SwiftDocumentReader``).
///
/// It is also the context of every callback from C during a parse: the parser and
/// handler of the parse, and the error a handler threw, which waits here until the C
/// call returns and is then rethrown. `parser` and `handler` are set only during a parse
/// (the public parser owns this driver: no cycle outlives a call).
package final class InputDriver {
    /// The stage (`cfs_input`), owned by whoever made it (``attach(_:)``).
    private var input: OpaquePointer!
    package var parser: (any FeedParser)?
    package var handler: (any FeedHandler)?
    package var error: (any Error)?
    /// The recovery path (nil for a strict parser), and what it did during this parse.
    private let recovery: FeedRecovery?
    private var recoveredItems = 0
    private var recoveredDocuments = 0
    private var firstRecovered: FeedError?
    private var unrecovered = 0
    /// True while an XML stream is parsed (not a JSON Feed).
    private var parsing = false

    /// A driver with a recovery path unless `strict`; ``attach(_:)`` gives it its stage.
    package init(maxItemBytes: Int, limits: FeedLimits, strict: Bool) {
        recovery = strict ? nil : FeedRecovery(maxItemBytes: maxItemBytes, limits: limits)
    }

    /// The stage this driver runs (a `cfs_input`, made with ``context`` as the context of
    /// its reader's callbacks), before the first parse.
    package func attach(_ input: OpaquePointer) {
        self.input = input
        cfs_input_set_gap_hook(input, { ctx, gap in
            InputDriver.from(ctx).call { try $1.parser($0, didFail: FeedError(gap!.pointee)) }
        }, context)
        guard recovery != nil else { return }
        cfs_input_set_recover(input, { ctx, bytes, len, delivered, error in
            let driver = InputDriver.from(ctx)
            guard let recovery = driver.recovery else { return 0 }
            return driver.call { parser, handler in
                let failure = FeedError(error!.pointee)
                let (total, recovered) = try recovery.recover(
                    UnsafeRawBufferPointer(start: bytes, count: len), number: failure.document,
                    delivered: delivered, error: failure, parser: parser, handler: handler)
                driver.recoveredItems += total - delivered
                if recovered {
                    driver.recoveredDocuments += 1
                    if driver.firstRecovered == nil { driver.firstRecovered = failure }
                } else {
                    driver.unrecovered += 1
                }
            }
        }, context, InputStage.resyncWindow)
    }

    /// The context the C callbacks are given.
    package var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    @inline(__always)
    package static func from(_ ctx: UnsafeMutableRawPointer?) -> InputDriver {
        Unmanaged<InputDriver>.fromOpaque(ctx!).takeUnretainedValue()
    }

    /// What inflates gzip input, from the next stream on (`cfs_input_set_inflater`).
    package var inflater = GzipInflater.default {
        didSet { cfs_input_set_inflater(input, inflater.engine) }
    }

    /// The charset the transport named, for the recovery path (the reader has its own).
    package var transportCharset: String? {
        get { recovery?.transportCharset }
        set { recovery?.transportCharset = newValue }
    }

    /// Runs `body` with the parser and the handler; returns non-zero (stop) if it threw.
    @inline(__always)
    package func call(_ body: (any FeedParser, any FeedHandler) throws -> Void) -> Int32 {
        guard let handler, let parser else { return 0 }
        do {
            try body(parser, handler)
            return 0
        } catch {
            self.error = error
            return 1
        }
    }

    /// Parses `xml` (an XML stream: ``FeedFront`` routed it here) for `parser`, the
    /// public object named to the handler in every callback. The stage must have been
    /// reset for the stream.
    package func parse(_ xml: FeedInput, parser: any FeedParser, handler: some FeedHandler) throws -> ParseSummary {
        parsing = true
        self.parser = parser
        self.handler = handler
        error = nil
        recoveredItems = 0
        recoveredDocuments = 0
        firstRecovered = nil
        unrecovered = 0
        defer {
            parsing = false
            self.handler = nil
            self.parser = nil
        }
        cfs_input_reset(input)
        switch xml {
        case .file(let path):
            let fd = FeedFront.openFile(path)
            if fd < 0 { return try parser.reportOpenFailure(errno: errno, to: handler) }
            defer { close(fd) }
            _ = cfs_input_feed_fd(input, fd)
        case .fileDescriptor(let fd):
            _ = cfs_input_feed_fd(input, fd)
        case .bytes(let bytes):
            _ = bytes.withUnsafeBytes { cfs_input_feed(input, $0.baseAddress, $0.count) }
        case .chunks(let chunks):
            if let compressed = chunks.compressed {
                // Inflated by ReadAheadPipeline's reader: the ratio is still checked here.
                if let origin = chunks.origin { _ = cfs_input_inflated_origin(input, origin.offset, origin.checkpoint) }
                while let chunk = try chunks.next() {
                    let status = if let gap = chunks.gap?() {
                        cfs_input_feed_gap(input, gap.packFormat, gap.why, gap.from, gap.to)
                    } else if let c = compressed() {
                        cfs_input_feed_inflated(input, chunk.baseAddress, chunk.count, c)
                    } else {
                        cfs_input_feed(input, chunk.baseAddress, chunk.count)
                    }
                    if status != CFS_OK { break }
                }
            } else {
                while let chunk = try chunks.next(), cfs_input_feed(input, chunk.baseAddress, chunk.count) == CFS_OK {}
            }
        }
        if let error { throw error }
        let status = cfs_input_finish(input)
        if let error { throw error }

        let stats = cfs_input_stats(input)
        var summary = ParseSummary()
        summary.bytesIn = stats.bytes_in
        summary.bytesXML = stats.bytes_xml
        summary.documents = Int(stats.documents)
        summary.items = Int(stats.items) + recoveredItems
        summary.failedDocuments = Int(stats.failed_documents) + unrecovered
        summary.recoveredDocuments = recoveredDocuments
        if status != CFS_OK, let e = cfs_input_error(input) {
            var error = FeedError(e.pointee)
            // The first error is a recovered document's (not a fatal error of the stream).
            error.recovered = error == firstRecovered
            summary.firstError = error
            if error.code == .outOfMemory { throw error }
            // Errors of a document were delivered with it, gaps as they came; the others
            // are delivered here.
            if e.pointee.document == 0 && error.compressedRange == nil { try handler.parser(parser, didFail: error) }
        }
        return summary
    }

    /// ``DocumentStateReporting/isInDocument``.
    package var isInDocument: Bool? { parsing ? cfs_input_in_document(input) != 0 : nil }
    /// ``DocumentStateReporting/lastDocumentOffset``.
    package var lastDocumentOffset: UInt64? { parsing ? cfs_input_document_offset(input) : nil }
    /// ``DocumentStateReporting/rereadEnd``.
    package var rereadEnd: UInt64 { parsing ? cfs_input_reread_end(input) : 0 }
    /// ``DocumentStateReporting/settle()``: a handler's error waits here, as for any callback.
    package func settle() {
        if parsing { _ = cfs_input_settle(input) }
    }
}

extension FeedError {
    /// The error the C stage or core reported.
    package init(_ e: cfs_error) {
        let code: Code
        switch e.code {
        case CFS_ERR_XML: code = .malformedXML
        case CFS_ERR_GZIP: code = .gzip
        case CFS_ERR_ZSTD: code = .zstd
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
        if e.compressed_length > 0 {
            compressedRange = e.compressed_offset..<(e.compressed_offset &+ e.compressed_length)
        }
    }
}

extension FeedLimits {
    /// The limits as the C stage and core take them: the same meaning on both sides (0:
    /// no limit), so the values go straight through (a negative one, "no limit" too in
    /// FeedLimits, as 0).
    package var cLimits: cfs_limits {
        func c(_ v: Int) -> UInt64 { UInt64(max(v, 0)) }
        return cfs_limits(max_depth: c(maxDepth), max_field_bytes: c(maxFieldBytes), max_attributes: c(maxAttributes),
                          max_items: c(maxItems), max_document_bytes: c(maxDocumentBytes), max_ratio: c(maxRatio),
                          max_markup_bytes: c(maxMarkupBytes))
    }
}
