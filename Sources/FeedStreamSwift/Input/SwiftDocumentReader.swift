// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
internal import CFeedStreamInput
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// What reads one document for the input stage in the Swift backend: the Swift
/// tokenizer driving the Swift feed machine, behind the stage's `cfs_document_ops`
/// (``ops``). The stage calls it once per document begun and ended and once per parse
/// call (at most one checkpoint's worth of bytes), never per event.
///
/// The tokenizer reads UTF-8 (a document in another charset is decoded first), so it
/// places its errors in the text it read; ``ops``' `locate` places them in the
/// document's own bytes, as the C core's readers report them. A handler's error thrown
/// inside a call waits in the ``InputDriver`` and stops the stage.
final class SwiftDocumentReader {
    let machine: SwiftFeedMachine
    let tokenizer: SwiftXMLTokenizer
    /// Where a handler's error waits (set once, by the parser that owns both).
    unowned(unsafe) var driver: InputDriver!
    /// The last error's message, for the stage (which copies it).
    private var message: UnsafeMutablePointer<CChar>?
    /// Input bytes of the last parse call before its error (where to resume when the
    /// error cannot be placed in the document's bytes).
    private var consumed = 0
    /// The last error is the markup-construct limit's.
    private var overMarkup = false

    init(machine: SwiftFeedMachine, tokenizer: SwiftXMLTokenizer) {
        self.machine = machine
        self.tokenizer = tokenizer
    }

    deinit { free(message) }

    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    @inline(__always)
    private static func from(_ ctx: UnsafeMutableRawPointer?) -> SwiftDocumentReader {
        Unmanaged<SwiftDocumentReader>.fromOpaque(ctx!).takeUnretainedValue()
    }

    private func fail(_ e: XMLTokError, consumed: Int, into err: UnsafeMutablePointer<cfs_error>) {
        free(message)
        message = strdup(e.message)
        self.consumed = consumed
        overMarkup = e.overMarkup
        err.pointee = cfs_error(code: e.isLimit ? CFS_ERR_LIMIT : CFS_ERR_XML, message: message, document: 0,
                                line: UInt(max(e.line, 0)), column: UInt(max(e.column, 0)),
                                offset: UInt64(max(e.offset, 0)), sys_errno: 0, skipped: 0,
                                compressed_offset: 0, compressed_length: 0)
    }

    /// The stage's view of this reader (`doc` is a reader's ``context``).
    nonisolated(unsafe) static let ops: UnsafeMutablePointer<cfs_document_ops> = {
        let ops = UnsafeMutablePointer<cfs_document_ops>.allocate(capacity: 1)
        ops.initialize(to: cfs_document_ops(
            begin: { ctx, number in
                let r = from(ctx)
                r.machine.begin(document: number)
                r.tokenizer.begin()
                r.overMarkup = false
                return r.driver.call { try $1.parser($0, didStartDocument: number) } == 0 ? CFS_OK : CFS_ERR_ABORTED
            },
            parse: { ctx, data, len, final, _, consumed, err in
                // The tokenizer cuts its input at the document's markup checkpoints itself.
                let r = from(ctx)
                do {
                    switch try r.tokenizer.parse(UnsafeRawBufferPointer(start: data, count: len), final: final != 0) {
                    case .ok:
                        return CFS_DOC_OK
                    case .rootEnd(let c):
                        // A root cannot end before the first byte of the input that ended
                        // it: never hand the same bytes to the next document.
                        consumed!.pointee = max(c, 1)
                        return CFS_DOC_ROOT_END
                    case .error(let e, let c):
                        r.fail(e, consumed: c, into: err!)
                        return CFS_DOC_ERROR
                    }
                } catch {
                    r.driver.error = error
                    return CFS_DOC_ABORT
                }
            },
            buffer: nil,
            parse_buffer: nil,
            settle: nil,
            locate: { ctx, bytes, count, at, err, after in
                let r = from(ctx)
                let t = r.tokenizer
                guard let bytes else {
                    // The document outgrew the bytes kept: a decoded document's error is
                    // placed where the tokenizer stopped reading.
                    if t.isTranscoded { err!.pointee.offset = at + UInt64(max(r.consumed, 0)) }
                    return
                }
                let b = UnsafeRawBufferPointer(start: bytes, count: count)
                let u = Int(err!.pointee.offset)
                let raw = t.isTranscoded ? t.inputOffset(ofUTF8: u, in: b) : u
                if let column = t.inputColumn(ofInput: raw, in: b) { err!.pointee.column = UInt(column) }
                if let line = t.inputLine(ofInput: raw, in: b), err!.pointee.line > 0 { err!.pointee.line = UInt(line) }
                err!.pointee.offset = UInt64(raw)
                let delivered = r.machine.lastItemEnd
                after!.pointee = UInt64(t.isTranscoded && delivered > 0 ? t.inputOffset(ofUTF8: delivered, in: b) : delivered)
            },
            facts: { ctx, out in
                let r = from(ctx)
                let core = r.machine.core
                out!.pointee = cfs_doc_facts(items: core.pointee.items, last_item_end: UInt64(r.machine.lastItemEnd),
                                             root_seen: core.pointee.rootSeen ? 1 : 0,
                                             not_feed: core.pointee.notFeed ? 1 : 0, markup_over: r.overMarkup ? 1 : 0)
            },
            end: { ctx, error in
                let r = from(ctx)
                do {
                    try r.machine.finish(error: error.map { FeedError($0.pointee) })
                    return 0
                } catch {
                    r.driver.error = error
                    return 1
                }
            }))
        return ops
    }()
}
