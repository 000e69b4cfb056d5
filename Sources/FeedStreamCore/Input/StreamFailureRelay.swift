// SPDX-License-Identifier: Apache-2.0
/// Sits between a parser fed plain bytes by a ``ChunkReader`` and the real handler, and
/// makes a gzip or read failure of the original stream come out exactly as the C core
/// reports it when it reads the stream itself (`cfs_parser_finish` in `input.c`):
///
/// - the document open when the stream broke off is closed with the failure's code and
///   message (at the tokenizer's position, which is the same: it saw the same bytes);
/// - a failure outside any document is reported alone, as document 0, instead of the
///   plain parser's "empty input";
/// - the failure becomes the summary's first error where the C core makes it so, and
///   `bytesIn` counts the bytes read, not the bytes parsed.
///
/// The parsing thread calls everything here.
package final class StreamFailureRelay: FeedHandler {
    private let base: any FeedHandler
    private var openDocument = 0
    private var ended = false
    private var failure: StreamFailure?
    private var openAtEnd = 0
    private var bytesParsed: UInt64 = 0
    private var reportedAlone = false
    private var rewritten: (original: FeedError, replacement: FeedError)?

    private let parser: (any FeedParser)?

    /// A relay to `base` of the events of `parser` (which tells, when it can, whether a
    /// document is open when the source ends: ``DocumentStateReporting``).
    package init(_ base: any FeedHandler, parser: (any FeedParser)? = nil) {
        self.base = base
        self.parser = parser
    }

    /// The source has given its last chunk; the parser is about to finish.
    package func sourceDidEnd(failure: StreamFailure?, bytesParsed: UInt64) {
        // What the parser holds is judged first: an error in it is the document's own, not
        // the failure's, however the chunks were cut (as the C core does when it inflates).
        if let failure, failure.kind != .cancelled { (parser as? DocumentStateReporting)?.settle() }
        ended = true
        self.failure = failure
        self.bytesParsed = bytesParsed
        // A document whose failure the parser has not reported yet (the recovery path
        // reports it later) is not open: the stream's failure does not cut it short,
        // as the C core's own inflating finds (found by DumpStreamPartsTests).
        openAtEnd = (parser as? DocumentStateReporting)?.isInDocument == false ? 0 : openDocument
    }

    /// The summary the C core would have returned; a stream failure reported alone is
    /// sent as from `parser`.
    package func finish(_ parsed: ParseSummary, bytesIn: UInt64, parser: any FeedParser) throws -> ParseSummary {
        var summary = parsed
        summary.bytesIn = bytesIn
        guard let failure, failure.kind != .cancelled else { return summary }
        let stream = FeedError(code: failure.code, message: failure.fatalMessage, document: openAtEnd,
                               offset: bytesParsed)
        if openAtEnd == 0 || failure.kind == .fatal {
            // The C core's stream error (set_fatal): reported alone when no document
            // carried it, and the first error of the stream.
            if openAtEnd == 0 && !reportedAlone { try base.parser(parser, didFail: stream) }
            summary.firstError = stream
        } else if let rewritten, summary.firstError == rewritten.original {
            summary.firstError = rewritten.replacement
        }
        return summary
    }

    package func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
        openDocument = document
        try base.parser(parser, didStartDocument: document)
    }

    package func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        try base.parser(parser, didParseItem: item)
    }

    package func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws {
        try base.parser(parser, didParseFeedInfo: feed)
    }

    package func parser(_ parser: any FeedParser, didFinishDocument document: Int) throws {
        openDocument = 0
        try base.parser(parser, didFinishDocument: document)
    }

    package func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        var error = error
        if ended, let failure, failure.kind != .cancelled {
            if error.document > 0 && error.document == openAtEnd && (error.line != 0 || error.column != 0) {
                // The tokenizer's error on the cut-off document (a synthesized "no element
                // found" at line 0 keeps its own code in the C core too).
                let original = error
                error.code = failure.code
                error.message = failure.message
                rewritten = (original, error)
            } else if error.document == 0 {
                error = FeedError(code: failure.code, message: failure.fatalMessage, offset: bytesParsed)
                reportedAlone = true
            }
        }
        if error.document > 0 && error.document == openDocument { openDocument = 0 }
        try base.parser(parser, didFail: error)
    }
}

/// A parser that can tell, while it parses, whether a document is open: begun, and
/// neither ended nor failed (`cfs_parser_in_document`). Nil when it does not know (a
/// JSON Feed).
package protocol DocumentStateReporting: AnyObject {
    var isInDocument: Bool? { get }
    /// Where the last document begun starts: the stream offset of its first byte, right
    /// already while ``FeedHandler/parser(_:didStartDocument:)`` runs
    /// (`cfs_parser_document_offset`). A dump's part tells by it which documents were
    /// begun in its own bytes, however long the parser held them. Nil when the parser
    /// does not know (a JSON Feed).
    var lastDocumentOffset: UInt64? { get }
    /// The stream offset before which no document a failed one had taken in is looked
    /// for any more (`cfs_parser_reread_end`): the error of the last failed document cut
    /// short at one (the input's end when that error was its end), 0 when none was. A
    /// dump's part begins a document at its cut as the whole stream's parser would only
    /// when this is not past the cut: a parser beginning at the cut knows nothing of the
    /// look backs before it.
    var rereadEnd: UInt64 { get }
    /// The source stops before its end (its inflating or reading failed): the parser
    /// judges the bytes it holds as one call with all of them would have, reporting an
    /// error in them now, as the document's own (`cfs_parser_settle`). Called during a
    /// parse, from the source, before ``isInDocument`` is asked.
    func settle()
}

extension DocumentStateReporting {
    /// Nothing to judge: the parser reports an error as soon as its bytes are read (the
    /// Swift parser, expat).
    package func settle() {}
}
