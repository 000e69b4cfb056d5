import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The pure-Swift backend: its own XML tokenizer and feed state machine, written in
/// Swift over byte buffers, behind the ``FeedParser`` protocol. It shares nothing with
/// the C core but decompression (zlib), and gives the same output on every input (see
/// docs/SCHEMA.md, "Backends"; `feedstream diff --backends expat,swift` checks it).
///
/// Reuse one parser for many inputs: it keeps its buffers. A parser is used by one
/// thread at a time and is deliberately not `Sendable`: make one per task or thread.
public final class SwiftFeedParser: FeedParser {
    /// `"swift"`.
    public static let backendName = "swift"

    private let machine: SwiftFeedMachine
    private let tokenizer: SwiftXMLTokenizer
    private let stage: InputStage
    private let reader = DescriptorReader()
    /// JSON Feed input goes to the shared JSON Feed reader.
    private let front: FeedFront

    // The stream: documents one after another (as input.c splits them).
    private enum DocumentState { case between, open, skip }
    private var state = DocumentState.between
    private var skipHeld: [UInt8] = []
    /// The failed document's root had not started: the next root start tag is its own.
    private var skipOwnRoot = false
    /// Bytes at the start of the next input the search passes over: the resume point lay
    /// past the bytes the error came with (handle; input.c's skip_ahead).
    private var skipAhead = 0
    private enum BetweenState { case space, lt, bang, bangDash, comment, piTarget, pi }
    private var between = BetweenState.space
    /// Stream offset of the '<' of the Misc being skipped between documents.
    private var betweenStart: UInt64 = 0
    private var held: [UInt8] = []
    private var run = 0
    private var xmlOffset: UInt64 = 0
    private var documentOffset: UInt64 = 0
    private var summary = ParseSummary()
    private var fatal: FeedError?
    /// The limits this parser enforces.
    public let limits: FeedLimits
    /// True when documents that fail as XML are not re-read by the recovery path.
    public let strict: Bool
    private let maxDocumentBytes: UInt64
    // The open document's bytes (up to InputStage.resyncWindow): where the search for the
    // next document resumes after an error (resync), and what the recovery path re-reads;
    // the failure that waits for the end of the failed document (the next document's
    // start, or the end of the input).
    private let recovery: FeedRecovery?
    private var kept = DocumentBytes()
    private var pending: (error: FeedError, delivered: Int)?
    /// A failed document whose rest is skipped with no recovery (strict, or over the
    /// window): it ends once the skip ends, with the bytes skipped (endSkip).
    private var deferred: FeedError?
    /// Kept bytes to search again for the next document after an error (replay()).
    private var replayFrom = 0
    private var replayCount = 0
    /// The last error's search resumes inside the failed document, at a document it had
    /// taken in (DocumentStart.swallowed): replayed even at the input's end.
    private var resumedInside = false
    /// The stream offset before which no document a failed one had taken in is looked
    /// for: the error of the last one that was (the input's end at its end), so that no
    /// byte is read again twice (input.c's reread_end).
    package private(set) var rereadEnd: UInt64 = 0
    /// The input has ended: the documents still open are closed (finish).
    private var finishing = false
    /// The search resumes at the error's own byte, where the next document's declaration
    /// may begin (a document cut short in a tag or text): its bytes are held until they
    /// tell (DocumentStart.declarationAndRoot), up to resumeLimit; else the search goes
    /// on from the byte after it. input.c's resume and resume_len.
    private var resuming = false
    private var resumeHeld: [UInt8] = []
    static let resumeLimit = DocumentStart.lookaheadLimit

    /// - Parameters:
    ///   - maxItemBytes: upper bound on the text kept per item (text past it is dropped
    ///     and the item marked truncated); 0 for the default, 64 MiB.
    ///   - limits: the limits a document must stay within (``FeedLimits``).
    ///   - strict: true to report a document that fails as XML with the items before the
    ///     failure only; false (the default) to re-read it by the recovery path
    ///     (docs/SCHEMA.md, "Recovered documents").
    public init(maxItemBytes: Int = 0, limits: FeedLimits = .default, strict: Bool = false) {
        machine = SwiftFeedMachine(maxItemBytes: maxItemBytes, limits: limits)
        tokenizer = SwiftXMLTokenizer(machine: machine, limits: limits)
        self.limits = limits
        self.strict = strict
        recovery = strict ? nil : FeedRecovery(maxItemBytes: maxItemBytes, limits: limits)
        maxDocumentBytes = UInt64(FeedLimits.effective(limits.maxDocumentBytes))
        stage = InputStage(limits: limits)
        front = FeedFront(maxItemBytes: maxItemBytes, limits: limits)
        held.reserveCapacity(8)
    }

    /// A parser with the default limits.
    public convenience init() { self.init(maxItemBytes: 0) }

    /// Parses `input` with the Swift tokenizer and state machine; see
    /// ``FeedParser/parse(_:handler:)``.
    @discardableResult
    public func parse(_ input: FeedInput, handler: some FeedHandler) throws -> ParseSummary {
        try parse(input, contentType: nil, handler: handler)
    }

    /// Parses `input` with the charset its transport named; see
    /// ``FeedParser/parse(_:contentType:handler:)``.
    @discardableResult
    public func parse(_ input: FeedInput, contentType: String?, handler: some FeedHandler) throws -> ParseSummary {
        let charset = ContentType.charset(contentType)
        tokenizer.transportCharset = charset
        recovery?.transportCharset = charset
        return try front.parse(input, parser: self, handler: handler) { try parseXML($0, handler: handler) }
    }

    /// True while an XML stream is parsed (not a JSON Feed).
    private var parsingXML = false

    private func parseXML(_ input: FeedInput, handler: some FeedHandler) throws -> ParseSummary {
        parsingXML = true
        defer { parsingXML = false }
        reset()
        machine.deliver(to: handler, as: self)
        defer { machine.stopDelivering() }
        switch input {
        case .file(let path):
            let fd = FeedFront.openFile(path)
            if fd < 0 {
                return try self.reportOpenFailure(errno: errno, to: handler)
            }
            defer { close(fd) }
            try read(fd)
        case .fileDescriptor(let fd):
            try read(fd)
        case .bytes(let bytes):
            try bytes.withUnsafeBytes { try push($0) }
        case .chunks(let chunks):
            if let compressed = chunks.compressed {
                // Inflated by ReadAheadPipeline's reader: the ratio is still checked here.
                if let origin = chunks.origin { stage.inflatedOrigin(origin) }
                while fatal == nil, let chunk = try chunks.next() {
                    if let c = compressed() {
                        if let failure = try stage.feedInflated(chunk, compressed: c, sink: { try xmlInput($0) }) {
                            streamFailed(failure)
                        }
                    } else {
                        try push(chunk)
                    }
                }
            } else {
                while fatal == nil, let chunk = try chunks.next() { try push(chunk) }
            }
        }
        try finish(handler)
        summary.bytesIn = stage.bytesIn
        summary.bytesXML = stage.bytesXML
        return summary
    }

    private func reset() {
        stage.reset()
        state = .between
        skipHeld.removeAll(keepingCapacity: true)
        skipAhead = 0
        between = .space
        held.removeAll(keepingCapacity: true)
        xmlOffset = 0
        documentOffset = 0
        summary = ParseSummary()
        fatal = nil
        pending = nil
        deferred = nil
        kept.reset()
        replayCount = 0
        resuming = false
        resumeHeld.removeAll(keepingCapacity: true)
        rereadEnd = 0
        finishing = false
    }

    private func read(_ fd: Int32) throws {
        if let error = try reader.read(fd, while: { fatal == nil }, push) { setFatal(error) }
    }

    private func push(_ bytes: UnsafeRawBufferPointer) throws {
        guard fatal == nil else { return }
        if let failure = try stage.feed(bytes, sink: { try xmlInput($0) }) { streamFailed(failure) }
    }

    private func streamFailed(_ failure: StreamFailure) {
        if failure.kind == .fatal { setFatal(FeedError(code: failure.code, message: failure.fatalMessage)) }
    }

    private func setFatal(_ error: FeedError) {
        guard fatal == nil else { return }
        var e = error
        e.document = state == .open ? machine.document : 0
        e.offset = xmlOffset
        fatal = e
    }

    // ---- documents --------------------------------------------------------------------

    /// Begins the document whose first byte is at stream offset `at` (its start may
    /// have been held back: the bytes before `xmlOffset`).
    private func beginDocument(at: UInt64) throws {
        summary.documents += 1
        machine.begin(document: summary.documents)
        tokenizer.begin()
        state = .open
        documentOffset = at
        kept.reset()
        stage.ratioWindow(at: xmlOffset)
        try machine.handler?.parser(self, didStartDocument: summary.documents)
    }

    private func endDocument(_ error: FeedError?) throws {
        // XML errors, and a document cut short by corrupt or truncated gzip (only finish
        // reports one here), are recovered.
        if let error, error.code == .malformedXML || error.code == .gzip, recovery != nil, !kept.overflowed {
            // Recovered once the rest of the document is known (recoverPending).
            var e = error
            e.document = machine.document
            pending = (e, machine.items)
            state = .skip
            skipOwnRoot = !machine.core.pointee.rootSeen
            skipHeld.removeAll(keepingCapacity: true)
            skipAhead = 0
            between = .space
            held.removeAll(keepingCapacity: true)
            return
        }
        var err = error
        if err == nil && machine.notFeed {
            // The same words as the C core's end_document (input.c).
            err = FeedError(code: .notAFeed, message: "root element is not rss, rdf:RDF or feed",
                            document: machine.document, line: 1, column: 1, offset: documentOffset)
        }
        state = err?.code == .malformedXML || err?.code == .limitExceeded ? .skip : .between
        if err != nil {
            err!.document = machine.document
            summary.failedDocuments += 1
            // A skip's first: once its skip is counted (endSkip).
            if summary.firstError == nil && state != .skip { summary.firstError = err }
        }
        summary.items += machine.items
        skipOwnRoot = !machine.core.pointee.rootSeen
        skipHeld.removeAll(keepingCapacity: true)
        skipAhead = 0
        between = .space
        held.removeAll(keepingCapacity: true)
        if state == .skip {
            deferred = err   // ends when the skip ends (endSkip), with the bytes skipped
            return
        }
        try machine.finish(error: err)
    }

    /// The search past a failed document's error ended at the current stream offset
    /// (the next document's start, or the stream's end): its error counts the bytes from
    /// the error's own to there (``FeedError/skipped``), and the document ends — through
    /// the recovery path when it waits there. input.c's end_skip is the same step.
    private func endSkip() throws {
        func skipped(_ e: FeedError) -> UInt64 { xmlOffset > e.offset ? xmlOffset - e.offset : 0 }
        if var p = pending {
            p.error.skipped = skipped(p.error)
            pending = p
            try recoverPending()
        } else if var e = deferred {
            deferred = nil
            e.skipped = skipped(e)
            if summary.firstError == nil { summary.firstError = e }
            try machine.finish(error: e)
        }
    }

    /// Where the search for the next document begins after a construct over
    /// maxMarkupBytes at `start` (its `<`, where the document fails): past the bytes
    /// it read as the construct's, never read again (input.c's handle, the same step).
    /// So a dump of documents that each open a CDATA section running to its end costs
    /// its bytes once, not once per document.
    private static func pastConstruct(_ start: Int, _ limits: FeedLimits, given: Int) -> Int {
        let limit = FeedLimits.effective(limits.maxMarkupBytes)
        return limit >= given - min(start, given) ? given : start + limit + 1
    }

    /// Where the search for the next document resumes after an error at document
    /// (input) offset `at`: the byte after it. input.c's resync_from is the same rule.
    private static func resyncFrom(_ at: UInt64) -> UInt64 { at + 1 }

    /// Handles what the tokenizer said about `len` bytes that start at document offset
    /// `at`; returns how many belonged to the document (the rest starts anew). `fresh`:
    /// those of the bytes not kept yet. After an error in bytes of an earlier call (the
    /// tokenizer held them: an unfinished declaration, say) it returns 0 and
    /// replayCount says which kept bytes replay() must search again before the rest.
    private func handle(_ r: XMLTokOutcome, _ len: Int, at: UInt64,
                        fresh: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) throws -> Int {
        switch r {
        case .ok:
            return len
        case .rootEnd(let consumed):
            try endDocument(nil)
            // A root cannot end before the first byte of the input that ended it; never
            // hand the same bytes to the next document.
            return max(consumed, 1)
        case .error(var e, let consumed):
            let kept = !self.kept.overflowed && UInt64(self.kept.bytes.count) >= at
            // The scanner counts UTF-8 bytes: the error's input offset (a transcoded
            // document's differ) and its column in characters (expat's), from the kept bytes.
            var from: UInt64
            if kept {
                let input = fresh.count > 0 ? self.kept.bytes + Array(fresh) : self.kept.bytes
                var swallowed: Int?
                var end = 0   // the bytes the document read (input.c's handle: `e`)
                let raw = input.withUnsafeBytes { b in
                    let raw = tokenizer.isTranscoded ? tokenizer.inputOffset(ofUTF8: e.offset, in: b) : e.offset
                    if let column = tokenizer.inputColumn(ofInput: raw, in: b) { e.column = column }
                    e.offset = raw
                    end = e.overMarkup ? Self.pastConstruct(raw, limits, given: b.count) : raw
                    if (!e.isLimit || e.overMarkup) && end <= b.count && DocumentStart.readsASCII(b) {
                        let delivered = machine.lastItemEnd
                        let after = tokenizer.isTranscoded && delivered > 0 ? tokenizer.inputOffset(ofUTF8: delivered, in: b) : delivered
                        // Not in bytes an earlier look back already gave a document to read
                        // again (input.c's swallowed: each byte is read again at most once).
                        let reread = rereadEnd > documentOffset ? rereadEnd - documentOffset : 0
                        if reread < UInt64(end) {
                            swallowed = DocumentStart.swallowed(UnsafeRawBufferPointer(rebasing: b[0..<end]),
                                                                after: max(after, Int(reread)))
                        }
                    }
                    return raw
                }
                from = e.overMarkup ? UInt64(end) : Self.resyncFrom(UInt64(raw))
                if swallowed == nil && !e.isLimit && raw > 0 && raw <= input.count && machine.core.pointee.rootSeen
                    && input.withUnsafeBytes({ DocumentStart.readsASCII($0) }) {
                    // The next document may begin at the error's byte: told once its bytes come.
                    from = UInt64(raw)
                    resuming = true
                    resumeHeld.removeAll(keepingCapacity: true)
                }
                if let x = swallowed {
                    // A document it had taken in starts at x: this one ends there, cut short.
                    rereadEnd = finishing ? xmlOffset : documentOffset + UInt64(end)
                    from = UInt64(x)
                    e = XMLTokError(message: DocumentStart.cutShortMessage, line: 0, column: 0, offset: x)
                    resumedInside = true
                }
            } else if !tokenizer.isTranscoded {
                from = e.overMarkup ? UInt64(Self.pastConstruct(e.offset, limits, given: Int(at) + len))
                    : Self.resyncFrom(UInt64(e.offset))
            } else {
                from = at + UInt64(max(consumed, 0)) + 1
            }
            try endDocument(FeedError(code: e.isLimit ? .limitExceeded : .malformedXML, message: e.message,
                                      document: machine.document, line: e.line, column: e.column,
                                      offset: documentOffset + UInt64(e.offset)))
            if from >= at {
                // The resume point lies past these bytes: the search passes over the bytes
                // before it in the next input (input.c's handle, the same step).
                if state == .skip && from > at + UInt64(len) { skipAhead = Int(from - at - UInt64(len)) }
                return Int(min(from - at, UInt64(len)))
            }
            // The resume point is in bytes of an earlier call: in the kept bytes, unless
            // the document outgrew the window (then at the start of these).
            if kept && state == .skip && fatal == nil {
                replayFrom = Int(from)
                replayCount = Int(at - from)
            }
            return 0
        }
    }

    /// After handle() asked for it: searches the failed document's kept bytes from the
    /// resume point again, as if they came now (a document found there starts and takes
    /// them), at their own stream offset. Called where the next byte is the one after
    /// them. input.c's replay() is the same step.
    private func replay() throws {
        guard replayCount > 0 else { return }
        let copy = Array(kept.bytes[replayFrom..<(replayFrom + replayCount)])   // the next document's kept bytes reuse kept
        kept.removeLast(kept.bytes.count - replayFrom)   // a pending document keeps them again as they are skipped
        xmlOffset -= UInt64(replayCount)
        replayCount = 0
        try copy.withUnsafeBytes { try xmlInput($0) }
    }

    /// Re-reads the failed document whose bytes are kept (its end is known now).
    private func recoverPending() throws {
        guard let (error, delivered) = pending, let recovery, let handler = machine.handler else { return }
        pending = nil
        let (total, recovered) = try kept.bytes.withUnsafeBytes {
            try recovery.recover($0, number: error.document, delivered: delivered, error: error,
                                 parser: self, handler: handler)
        }
        kept.reset()
        summary.items += total
        if recovered { summary.recoveredDocuments += 1 } else { summary.failedDocuments += 1 }
        if summary.firstError == nil {
            var e = error
            e.recovered = recovered
            summary.firstError = e
        }
    }

    /// The open document reached maxDocumentBytes and goes on (input.c's
    /// document_too_big): it fails there, and the rest of it is skipped.
    private func documentTooBig() throws {
        try endDocument(FeedError(code: .limitExceeded,
                                  message: FeedLimits.Message.maxDocumentBytes(over: maxDocumentBytes),
                                  document: machine.document, offset: xmlOffset))
    }

    /// Uncompressed bytes: split into documents and parse.
    private func xmlInput(_ chunk: UnsafeRawBufferPointer) throws {
        guard var data = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var len = chunk.count
        while len > 0 {
            var used = 0
            switch state {
            case .between:
                let start = skipMisc(data, len, &used)
                xmlOffset += UInt64(used)
                data += used
                len -= used
                if !start { return }
                try startHeldDocument()
            case .skip:
                if resuming {
                    // Told from the bytes held (earlier inputs') and these; these are
                    // held only while they do not tell, so that the bytes are parsed in
                    // the pieces they came in (libxml2 reports some errors by its pieces).
                    let n = min(len, Self.resumeLimit - resumeHeld.count)
                    let verdict: DocumentStart.Lookahead
                    if resumeHeld.isEmpty {
                        verdict = DocumentStart.declarationAndRoot(UnsafeRawBufferPointer(start: data, count: n), 0)
                    } else {
                        var joined = resumeHeld
                        joined.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
                        verdict = joined.withUnsafeBytes { DocumentStart.declarationAndRoot($0, 0) }
                    }
                    if verdict == .needMore && resumeHeld.count + n < Self.resumeLimit {
                        resumeHeld.append(contentsOf: UnsafeBufferPointer(start: data, count: len))
                        return
                    }
                    if try resumeTold(verdict) {   // the '<' is this input's first byte: passed over
                        if pending != nil { kept.append(data, 1) }
                        xmlOffset += 1
                        data += 1
                        len -= 1
                    }
                    continue
                }
                // Look for the next document's start (DocumentStart); a match may
                // straddle chunks: its first bytes are then in skipHeld.
                var i = min(skipAhead, len)
                skipAhead -= i
                var matched = false
                scan: while i < len {
                    if skipHeld.isEmpty {   // the next byte a start begins with (the rest of a rejected document may be huge)
                        DocumentStart.firstBytes.withUnsafeBufferPointer { first in
                            while i < len && !first[Int(data[i])] { i += 1 }
                        }
                        if i == len { break }
                        skipHeld.append(data[i])
                        i += 1
                        continue
                    }
                    var step = DocumentStart.step(skipHeld, data[i])
                    if case .match = step, skipOwnRoot, DocumentStart.isRootStartTag(skipHeld) {
                        skipOwnRoot = false   // the failed document's own root
                        step = .none
                    }
                    switch step {
                    case .prefix:
                        skipHeld.append(data[i])
                        i += 1
                    case .match:
                        matched = true
                        break scan
                    case .none:
                        skipHeld.removeAll(keepingCapacity: true)
                        if DocumentStart.firstBytes[Int(data[i])] { skipHeld.append(data[i]) }
                        i += 1
                    }
                }
                if !matched {
                    if pending != nil { kept.append(data, len) }
                    xmlOffset += UInt64(len)
                    return
                }
                // The start's bytes: those in this chunk end at i; `before` came earlier.
                let startBytes = skipHeld
                skipHeld.removeAll(keepingCapacity: true)
                let inThis = min(i, startBytes.count)
                let before = startBytes.count - inThis
                if pending != nil {
                    kept.append(data, i - inThis)
                    kept.removeLast(before)
                }
                xmlOffset += UInt64(i - inThis)
                xmlOffset -= UInt64(before)
                data += i - inThis
                len -= i - inThis
                try endSkip()
                state = .between
                try beginDocument(at: xmlOffset)
                if before > 0 {
                    kept.append(startBytes, before)
                    let r = try startBytes.withUnsafeBytes {
                        try tokenizer.parse(UnsafeRawBufferPointer(rebasing: $0[0..<before]), final: false)
                    }
                    xmlOffset += UInt64(before)
                    _ = try handle(r, before, at: 0)
                }
            case .open:
                let inDocument = xmlOffset - documentOffset
                let room = inDocument >= maxDocumentBytes ? 0 : maxDocumentBytes - inDocument
                let over = UInt64(len) > room
                let n = over ? Int(room) : len
                if n > 0 {
                    let chunk = UnsafeRawBufferPointer(start: data, count: n)
                    let r = try tokenizer.parse(chunk, final: false)
                    used = try handle(r, n, at: xmlOffset - documentOffset, fresh: chunk)
                    if state == .open || pending != nil { kept.append(data, used) }
                }
                xmlOffset += UInt64(used)
                data += used
                len -= used
                if over && state == .open { try documentTooBig() }
                try replay()
            }
        }
    }

    /// The search from the error's own byte (resuming) is told: the next document begins
    /// there (a declaration followed by a feed's root), or the search goes on from the
    /// byte after it. The bytes held (earlier inputs') are read first. Returns true when
    /// the byte to pass over is the first of the caller's input (none was held).
    /// input.c's resume_told.
    private func resumeTold(_ verdict: DocumentStart.Lookahead) throws -> Bool {
        resuming = false
        let held = resumeHeld
        resumeHeld.removeAll(keepingCapacity: true)
        if case .start = verdict {
            try endSkip()
            state = .between
            if !held.isEmpty { try held.withUnsafeBytes { try xmlInput($0) } }
            return false
        }
        guard !held.isEmpty else { return true }
        // The '<' is passed over, the rest searched as ever.
        if pending != nil { kept.append(held, 1) }
        xmlOffset += 1
        try held.withUnsafeBytes { try xmlInput(UnsafeRawBufferPointer(rebasing: $0[1...])) }
        return false
    }

    /// Between documents: white space and NUL; once a document has ended, also the
    /// comments and processing instructions that may follow a root element. Returns true
    /// when a document starts at data[used]; bytes of it already consumed are in `held`.
    private func skipMisc(_ data: UnsafePointer<UInt8>, _ len: Int, _ used: inout Int) -> Bool {
        var i = 0
        let afterDocument = summary.documents > 0
        while i < len {
            let c = data[i]
            switch between {
            case .space:
                // NUL only after a document (the other half of a UTF-16LE line end):
                // before the first, "00 3C" begins a UTF-16BE document without a mark.
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || (c == 0 && afterDocument) { break }
                if c != 0x3C || !afterDocument { used = i; return true }
                held = [c]
                between = .lt
                betweenStart = xmlOffset + UInt64(i)
            case .lt:
                if c == 0x21 { between = .bang } else if c == 0x3F { between = .piTarget } else { used = i; return true }
                held.append(c)
            case .bang:
                if c != 0x2D { used = i; return true }
                held.append(c)
                between = .bangDash
            case .bangDash:
                if c != 0x2D { used = i; return true }
                held.removeAll(keepingCapacity: true)
                between = .comment
                run = 0
            case .comment:
                if c == 0x3E && run >= 2 { between = .space } else { run = c == 0x2D ? run + 1 : 0 }
            case .piTarget:
                let k = held.count - 2
                let xml: [UInt8] = [0x78, 0x6D, 0x6C]
                if k < 3 && c == xml[k] {
                    held.append(c)
                    break
                }
                // An XML declaration: the rule of a document start after a failed one.
                if k == 3 && DocumentStart.step(held, c) == .match { used = i; return true }
                held.removeAll(keepingCapacity: true)
                between = .pi
                run = c == 0x3F ? 1 : 0
            case .pi:
                if c == 0x3E && run != 0 { between = .space } else { run = c == 0x3F ? 1 : 0 }
            }
            i += 1
        }
        used = i
        return false
    }

    /// The input ended inside a comment or processing instruction after the last
    /// document: reported as a document that fails at its '<' (input.c's unclosed_misc).
    private func unclosedMisc() throws {
        let what = between == .comment ? "unclosed comment after the last document"
                                       : "unclosed processing instruction after the last document"
        between = .space
        try beginDocument(at: betweenStart)
        try endDocument(FeedError(code: .malformedXML, message: what, document: machine.document, line: 0, column: 0,
                                  offset: betweenStart))
    }

    /// Starts the document whose first bytes skipMisc held back, and feeds them.
    private func startHeldDocument() throws {
        let bytes = held
        held.removeAll(keepingCapacity: true)
        between = .space
        try beginDocument(at: xmlOffset - UInt64(bytes.count))
        guard !bytes.isEmpty else { return }
        kept.append(bytes, bytes.count)
        let r = try bytes.withUnsafeBytes { try tokenizer.parse($0, final: false) }
        _ = try handle(r, bytes.count, at: 0)
    }

    private func finish(_ handler: some FeedHandler) throws {
        var truncated = false
        if fatal == nil, let failure = try stage.finish(sink: { try xmlInput($0) }) {
            if failure.kind == .truncated { truncated = true } else { streamFailed(failure) }
        }
        var reported = false
        finishing = true
        while true {
            if fatal == nil && state == .skip && resuming {
                // The input ended: what is held tells now (a declaration without its root: none).
                let verdict = resumeHeld.withUnsafeBytes { DocumentStart.declarationAndRoot($0, 0) }
                _ = try resumeTold(verdict == .needMore ? .none : verdict)
            }
            if fatal == nil && state == .between && !held.isEmpty { try startHeldDocument() }
            if fatal == nil && state == .between && (between == .comment || between == .pi) { try unclosedMisc() }
            guard state == .open else { break }
            reported = true
            var r = try tokenizer.parse(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
            if case .error(var e, let consumed) = r, truncated || fatal != nil {
                let code: FeedError.Code = truncated ? .gzip : fatal!.code
                e.message = truncated ? "truncated gzip data" : fatal!.message
                try endDocument(FeedError(code: code, message: e.message, document: machine.document,
                                          line: e.line, column: e.column, offset: documentOffset + UInt64(e.offset)))
                _ = consumed
                r = .ok
            } else {
                resumedInside = false
                _ = try handle(r, 0, at: xmlOffset - documentOffset)
                // A document the failed one had taken in: read from its start, to the end
                // again (input.c's cfs_parser_finish, the same loop).
                if resumedInside && replayCount > 0 && fatal == nil {
                    try replay()
                    continue
                }
            }
            // The input ended: nothing else after the error is searched again (input.c's
            // cfs_parser_finish says why).
            replayCount = 0
            resuming = false
            resumeHeld.removeAll(keepingCapacity: true)
            break
        }
        try endSkip()
        if truncated && !reported { setFatal(FeedError(code: .gzip, message: "truncated gzip data")) }
        if let fatal {
            summary.firstError = fatal
            if fatal.document == 0 { try handler.parser(self, didFail: fatal) }
            return
        }
        if truncated {
            if summary.firstError == nil { summary.firstError = FeedError(code: .gzip, message: "truncated gzip data") }
            return
        }
        if summary.documents == 0 {
            let e = FeedError(code: .empty, message: "empty input: no XML document")
            summary.firstError = e
            try handler.parser(self, didFail: e)
        }
    }
}

@available(*, unavailable, message: "a parser is used by one thread at a time: make one per task")
extension SwiftFeedParser: Sendable {}

extension SwiftFeedParser: DocumentStateReporting {
    package var isInDocument: Bool? { parsingXML ? state == .open : nil }
    package var lastDocumentOffset: UInt64? { parsingXML ? documentOffset : nil }
}
