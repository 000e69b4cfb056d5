import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// The pure-Swift backend's XML tokenizer: one document at a time, fed in chunks split
// anywhere, driving a SwiftFeedMachine. It checks well-formedness as XML 1.0 with
// Namespaces defines it (what expat checks, so that both backends reject the same
// documents), decodes the document's encoding to UTF-8 first when it is not UTF-8,
// replaces references, normalizes line ends and attribute white space, and never
// loads anything a document points at.
//
// Speed comes from scanning bytes, not characters: character data is searched eight
// bytes at a time for the few bytes that need attention (`<`, `&`, `]`, CR, control
// characters, non-ASCII), and nothing is copied that need not be — names, values and
// text reach the machine as pointers into the input, except across chunk boundaries,
// where the unfinished construct is carried over.

/// How a call to ``SwiftXMLTokenizer/parse(_:final:)`` ended.
enum XMLTokOutcome {
    /// Everything was consumed; the document goes on.
    case ok
    /// The root element closed; this many bytes of the input belonged to the document.
    case rootEnd(consumed: Int)
    /// Not well-formed. `consumed`: input bytes before the error (where to resume).
    case error(XMLTokError, consumed: Int)
}

/// A well-formedness error, positioned in the document (1-based line and column in
/// UTF-8 bytes, and byte offset from the document's start).
struct XMLTokError {
    var message: String
    var line: Int
    var column: Int
    var offset: Int
    /// A ``FeedLimits`` limit, not a well-formedness error.
    var isLimit = false
    /// The markup-construct limit: the construct over it starts at `offset`.
    var overMarkup = false
}

final class SwiftXMLTokenizer {
    private let machine: SwiftFeedMachine
    private let maxDepth: Int
    private let maxAttributes: Int
    private let maxMarkupBytes: Int
    /// Document offset of the CDATA section being read (phase .cdata), and its line and
    /// the offset of that line's first byte: a section over maxMarkupBytes fails there.
    @exclusivity(unchecked) private var cdataStart = 0
    @exclusivity(unchecked) private var cdataLine = 1
    @exclusivity(unchecked) private var cdataLineStart = 0
    /// The error being reported is a limit's (set with the Stop that reports it).
    @exclusivity(unchecked) private var limitError = false
    // The byte tables, held here so hot loops do not go through lazy globals.
    private let textTable = textClass
    private let cdataTable = cdataClass
    /// The UTF-8 automaton that text and CDATA are read through (``skipTextBytes16``).
    private let utf8StepTable = xmlUTF8Steps
    private let nameTable = nameClass
    private let nameStartTable = nameStartClass
    /// ``UnsafeRawBufferPointer/emptyBytes``, read per element and attribute without the
    /// global's lazy-initialization check.
    private let emptyBytes = UnsafeRawBufferPointer.emptyBytes
    /// Where the last name scanned with qualified colons had its colon (-1: none).
    @exclusivity(unchecked) private var nameColon = -1
    private let lineFeed = newline
    private let byteText = everyByte

    // ---- document state ----
    private enum Phase { case start, declInUTF16, prolog, content, cdata }
    @exclusivity(unchecked) private var phase = Phase.start
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var rootSeen = false
    /// Where the prolog stands in expat's grammar of it (XMLPrologTokens.swift).
    @exclusivity(unchecked) private var grammar = PrologGrammar()
    /// Where the last name that was none went wrong (``name(_:_:_:colons:)``).
    @exclusivity(unchecked) private var badNameByte = 0
    @exclusivity(unchecked) private var standalone = false

    // ---- positions (in the UTF-8 the tokenizer sees) ----
    @exclusivity(unchecked) private var processed = 0      // bytes of the document processed before the current buffer
    @exclusivity(unchecked) private var given = 0          // bytes of the document given to parse (its markup checkpoints)
    @exclusivity(unchecked) private var line = 1
    @exclusivity(unchecked) private var lineStart = 0      // document offset of the current line's first byte
    /// Columns to add on line 1 for a byte order mark (see `error`).
    @exclusivity(unchecked) private var markColumns = 0

    // ---- buffers ----
    @exclusivity(unchecked) private var carry = ScratchBytes(capacity: 1 << 16)
    @exclusivity(unchecked) private var names = ScratchBytes(capacity: 4096)        // qualified names of open elements
    @exclusivity(unchecked) private var frames: UnsafeMutablePointer<Frame>
    @exclusivity(unchecked) private var framesCapacity = 64
    @exclusivity(unchecked) private var nsBytes = ScratchBytes(capacity: 1024)      // prefixes and URIs of bindings
    @exclusivity(unchecked) private var bindings: UnsafeMutablePointer<Binding>
    @exclusivity(unchecked) private var bindingsCount = 0
    /// The default namespace in scope (``lookup(_:)`` of the empty prefix), once looked
    /// up since the bindings last changed (most elements have no prefix; the bindings
    /// change at a few elements only).
    @exclusivity(unchecked) private var defaultNamespace: UnsafeRawBufferPointer? = nil
    @exclusivity(unchecked) private var defaultNamespaceKnown = false
    @exclusivity(unchecked) private var bindingsCapacity = 32
    @exclusivity(unchecked) private var raw: UnsafeMutablePointer<RawAttr>
    @exclusivity(unchecked) private var rawCapacity = 64
    @exclusivity(unchecked) private var values = ScratchBytes(capacity: 4096)       // decoded attribute values
    @exclusivity(unchecked) private var attrs: UnsafeMutablePointer<XMLAttribute>
    @exclusivity(unchecked) private var text = ScratchBytes(capacity: 64)           // a reference's replacement

    // ---- encodings ----
    @exclusivity(unchecked) private var transcoder: XMLTranscoder?
    /// A transcoded document: where it switched from its first bytes (read as they are,
    /// so input and UTF-8 offsets agree up to there) to its charset, and the transcoder
    /// as it was then (``inputOffset(ofUTF8:in:)``).
    private var switched: (offset: Int, transcoder: XMLTranscoder)?
    @exclusivity(unchecked) private var rawPending = ScratchBytes(capacity: 1 << 14)
    private let decoded = TranscodeBuffer()

    // ---- entities declared in the internal DTD subset ----
    /// A general entity: its replacement text (character references replaced), or nil
    /// for an external one; `binary` for an unparsed one (`NDATA`), which no reference
    /// may name.
    private struct Entity { var value: [UInt8]?; var external: Bool; var binary = false }
    @exclusivity(unchecked) private var entities: [[UInt8]: Entity] = [:]
    /// Parameter entities: the replacement text, nil for an external one (never read).
    @exclusivity(unchecked) private var parameterEntities: [[UInt8]: [UInt8]?] = [:]
    @exclusivity(unchecked) private var entityDepth = 0
    /// The document referred to parameter entities so far (a DOCTYPE with an external
    /// identifier, or a `%name;` between declarations): expat's `hasParamEntityRefs`.
    /// An undeclared entity in an attribute-list default is an error until then (or
    /// always, standalone), since no external declaration could have declared it.
    @exclusivity(unchecked) private var refersToParameterEntities = false
    @exclusivity(unchecked) private var expandedBytes = 0

    private struct Frame {
        var nameOffset: Int32
        var nameLength: Int32
        var localOffset: Int32    // from nameOffset
        var bindings: Int32       // bindingsCount before the element's declarations
    }

    private struct Binding {
        var prefixOffset: Int32, prefixLength: Int32
        var uriOffset: Int32, uriLength: Int32
    }

    private struct RawAttr {
        var name: UnsafePointer<UInt8>, nameLength: Int32, colon: Int32   // colon: index in name, or -1
        var value: UnsafePointer<UInt8>, valueLength: Int32
        var position: Int32                                  // in the buffer, for errors
        var needsDecoding: Bool
        var uri: UnsafeRawBufferPointer = .emptyBytes
        var decoded = -1                                     // offset in `values`
    }

    /// Up to this many attributes, duplicates are found by comparing pairs.
    private static let pairwiseAttributes = 16

    /// Duplicate attributes of one start tag in linear time: open-addressing tables of
    /// attribute indices, one by name as written, one by namespace and local name (for
    /// prefixed names). Attributes are checked in order and each against those before
    /// it, as the pairwise loop does, so the same one is reported. Namespace declarations
    /// never reach it (the caller skips them; no other attribute has their names). Kept
    /// by the tokenizer between tags (``reset(capacity:)`` before each that needs them),
    /// so a start tag with few attributes holds and destroys nothing.
    private struct DuplicateTables {
        private var byName: [Int32] = []
        private var byExpanded: [Int32] = []
        private var mask = 0

        /// Empty tables for a tag of `capacity` attributes: the ones kept, or new ones when
        /// they are too small or more than 16 times too large (a huge tag's are not kept
        /// past the next tag that needs tables, nor past its document: ``trim()``).
        mutating func reset(capacity: Int) {
            var size = 16
            while size < 2 * capacity { size <<= 1 }
            if byName.count < size || byName.count > 16 * size {
                byName = [Int32](repeating: -1, count: size)
                byExpanded = [Int32](repeating: -1, count: size)
            } else {
                for i in byName.indices { byName[i] = -1; byExpanded[i] = -1 }
            }
            mask = byName.count - 1
        }

        /// Gives back tables larger than a few thousand attributes need.
        mutating func trim() {
            if byName.count > 1 << 12 { byName = []; byExpanded = []; mask = 0 }
        }

        private static func hash(_ p: UnsafeRawPointer?, _ n: Int, _ seed: UInt64) -> UInt64 {
            var h = seed
            if let p { for i in 0..<n { h = (h ^ UInt64(p.load(fromByteOffset: i, as: UInt8.self))) &* 0x0000_0100_0000_01B3 } }
            return h
        }

        enum Duplicate { case none, byName, byNamespace }

        /// Whether attribute k duplicates one before it (else it is recorded).
        mutating func duplicate(_ raw: UnsafeMutablePointer<RawAttr>, _ k: Int) -> Duplicate {
            let a = raw[k]
            let n = Int(a.nameLength)
            var i = Int(truncatingIfNeeded: Self.hash(a.name, n, 0xCBF2_9CE4_8422_2325)) & mask
            while byName[i] >= 0 {
                let b = raw[Int(byName[i])]
                if Int(b.nameLength) == n && bytesEqual(b.name, a.name, n) { return .byName }
                i = (i + 1) & mask
            }
            byName[i] = Int32(k)
            guard a.colon >= 0 else { return .none }
            let local = a.name + Int(a.colon), localLength = n - Int(a.colon)
            var h = Self.hash(a.uri.baseAddress, a.uri.count, 0xCBF2_9CE4_8422_2325)
            h = Self.hash(local, localLength, h ^ 0x9E37_79B9_7F4A_7C15)
            i = Int(truncatingIfNeeded: h) & mask
            while byExpanded[i] >= 0 {
                let b = raw[Int(byExpanded[i])]
                if b.uri.equals(a.uri) && Int(b.nameLength - b.colon) == localLength
                    && bytesEqual(b.name + Int(b.colon), local, localLength) { return .byNamespace }
                i = (i + 1) & mask
            }
            byExpanded[i] = Int32(k)
            return .none
        }
    }

    @exclusivity(unchecked) private var duplicateTables = DuplicateTables()

    /// An attribute declared in the internal subset (`<!ATTLIST`): its default value,
    /// if it has one, and whether its type is CDATA.
    private struct AttributeDefault {
        var element: [UInt8]
        var name: UnsafeMutableBufferPointer<UInt8>
        var value: UnsafeMutableBufferPointer<UInt8>?
        var cdata: Bool
    }
    @exclusivity(unchecked) private var defaults: [AttributeDefault] = []
    /// An attribute of a type other than CDATA was declared: values given in start tags
    /// are looked up and normalized.
    @exclusivity(unchecked) private var tokenizedDeclared = false

    init(machine: SwiftFeedMachine, limits: FeedLimits = .default) {
        self.machine = machine
        maxDepth = FeedLimits.effective(limits.maxDepth)
        maxAttributes = FeedLimits.effective(limits.maxAttributes)
        maxMarkupBytes = FeedLimits.effective(limits.maxMarkupBytes)
        frames = .allocate(capacity: framesCapacity)
        bindings = .allocate(capacity: bindingsCapacity)
        raw = .allocate(capacity: rawCapacity)
        attrs = .allocate(capacity: rawCapacity)   // as many as raw: every attribute reaches the machine
    }

    deinit {
        carry.free(); names.free(); nsBytes.free(); values.free(); text.free(); rawPending.free()
        frames.deallocate(); bindings.deallocate(); raw.deallocate(); attrs.deallocate()
        // ATTLIST defaults of the last document (begin() frees those of earlier ones;
        // found by LeakSanitizer).
        for d in defaults { d.name.deallocate(); d.value?.deallocate() }
    }

    /// The charset the transport named (HTTP's `Content-Type` charset), set for a
    /// whole stream: a document without a byte order mark that is not UTF-16 or UTF-32
    /// by its first bytes is read in it, over its XML declaration (RFC 7303; the C
    /// core's `cfs_charset_detect` applies the same order). Ignored when it names a
    /// charset we do not read, or a wide one.
    var transportCharset: String?

    /// Prepares for a new document.
    func begin() {
        phase = .start
        depth = 0
        limitError = false
        rootSeen = false
        grammar = PrologGrammar()
        standalone = false
        processed = 0
        given = 0
        line = 1
        lineStart = 0
        markColumns = 0
        carry.removeAll()
        names.removeAll()
        nsBytes.removeAll()
        bindingsCount = 0
        defaultNamespaceKnown = false
        transcoder = nil
        switched = nil
        rawPending.removeAll()
        if !entities.isEmpty { entities.removeAll() }
        if !parameterEntities.isEmpty { parameterEntities.removeAll() }
        for d in defaults { d.name.deallocate(); d.value?.deallocate() }
        defaults.removeAll()
        duplicateTables.trim()
        tokenizedDeclared = false
        entityDepth = 0
        expandedBytes = 0
        refersToParameterEntities = false
    }

    /// Parses the next bytes of the document (`final`: there are no more), in pieces that
    /// end on its markup checkpoints: every `InputStage.chunkSize` bytes of the document,
    /// counted from its first, the construct held unfinished is checked against
    /// maxMarkupBytes (``markupOverLimit(consumed:)``), there and only there, so the
    /// outcome is a function of the document, never of how the input was cut (the C core
    /// cuts its parse calls at the same places: input.c, `to_checkpoint`).
    func parse(_ data: UnsafeRawBufferPointer, final: Bool) throws -> XMLTokOutcome {
        var done = 0
        repeat {
            let mark = InputStage.chunkSize - given % InputStage.chunkSize
            let n = min(data.count - done, mark)
            given += n
            let piece = n == data.count ? data : UnsafeRawBufferPointer(rebasing: data[done..<(done + n)])
            switch try parsePiece(piece, final: final && done + n == data.count, checkpoint: n == mark) {
            case .ok: break
            case .rootEnd(let c): return .rootEnd(consumed: done + c)
            case .error(let e, let c): return .error(e, consumed: done + c)
            }
            done += n
        } while done < data.count
        return .ok
    }

    private func parsePiece(_ data: UnsafeRawBufferPointer, final: Bool, checkpoint: Bool) throws -> XMLTokOutcome {
        if transcoder != nil { return try parseTranscoded(data, final: final, checkpoint: checkpoint) }
        let r = try parseUTF8(data, final: final, checkpoint: checkpoint)
        guard case .switchEncoding(let at) = r else { return r.outcome }
        switched = (processed, transcoder!)
        // The rest of this input is in the declared encoding.
        let rest = at < data.count ? UnsafeRawBufferPointer(rebasing: data[at...]) : UnsafeRawBufferPointer(start: nil, count: 0)
        switch try parseTranscoded(rest, final: final, checkpoint: checkpoint) {
        case .ok: return .ok
        case .rootEnd(let n): return .rootEnd(consumed: at + n)
        case .error(let e, let n): return .error(e, consumed: at + n)
        }
    }

    // ---- the chunk layer ------------------------------------------------------------

    private enum Stop {
        case more(Int)                  // bytes before this offset are processed
        case rootEnd(Int)
        case error(Int, String)
        case switchEncoding(Int)        // bytes from here on are in another encoding
    }

    private enum UTF8Outcome {
        case ok, rootEnd(Int), error(XMLTokError, Int)
        /// The bytes from this offset of the input on are in another encoding (bytes
        /// carried over from before the input, if any, are in `rawPending`).
        case switchEncoding(Int)
        var outcome: XMLTokOutcome {
            switch self {
            case .ok, .switchEncoding: .ok
            case .rootEnd(let n): .rootEnd(consumed: n)
            case .error(let e, let n): .error(e, consumed: n)
            }
        }
    }

    /// UTF-8 in: scans what is complete, carries over what is not. A construct cut by
    /// the end of the previous chunk is completed from the start of this one, taking
    /// only as many bytes as it needs (doubling), so whole chunks are never copied.
    private func parseUTF8(_ data: UnsafeRawBufferPointer, final: Bool, checkpoint: Bool) throws -> UTF8Outcome {
        let dataBase = data.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let dataCount = data.count
        var off = 0
        if carry.count > 0 {
            var oldLength = carry.count
            var k = min(dataCount, max(256, oldLength))
            while true {
                if k > 0 { carry.append(dataBase!, k) }
                let whole = k == dataCount
                let base = UnsafePointer(carry.base)
                let stop = try scan(base, carry.count, final: final && whole)
                switch stop {
                case .more(let q):
                    advance(base, q)
                    if whole {
                        carry.removeFirst(q)
                        if checkpoint && !final, let over = markupOverLimit(consumed: max(q - oldLength, 0)) { return over }
                        return final ? finish() : .ok
                    }
                    if q >= oldLength {
                        off = q - oldLength
                        carry.removeAll()
                    } else {
                        carry.removeFirst(q)
                        carry.removeLast(k)
                        oldLength -= q
                        k = min(dataCount, k * 2)
                        continue
                    }
                case .rootEnd(let q):
                    processed += q   // (no lines counted: nothing is positioned after the root's end)
                    carry.removeAll()
                    return .rootEnd(max(q - oldLength, 0))
                case .error(let q, let message):
                    let e = error(message, base, q)
                    carry.removeAll()
                    return .error(e, max(q - oldLength, 0))
                case .switchEncoding(let q):
                    advance(base, q)
                    rawPending.removeAll()
                    if q < oldLength { rawPending.append(base + q, oldLength - q) }
                    carry.removeAll()
                    return .switchEncoding(max(q - oldLength, 0))
                }
                break
            }
        }
        guard let dataBase, off < dataCount else {
            return final ? finish() : .ok
        }
        let base = dataBase + off
        let count = dataCount - off
        let stop = try scan(base, count, final: final)
        switch stop {
        case .more(let q):
            advance(base, q)
            if q < count { carry.append(base + q, count - q) }
            if checkpoint && !final, let over = markupOverLimit(consumed: off + q) { return over }
            return final ? finish() : .ok
        case .rootEnd(let q):
            processed += q   // (no lines counted: nothing is positioned after the root's end)
            return .rootEnd(off + q)
        case .error(let q, let message):
            return .error(error(message, base, q), off + q)
        case .switchEncoding(let q):
            advance(base, q)
            rawPending.removeAll()
            return .switchEncoding(off + q)
        }
    }

    /// The construct held unfinished (carried over to the next chunk, or the CDATA section
    /// being read) passed maxMarkupBytes: the document fails where it began, its `<`
    /// (checked at each markup checkpoint, ``parse(_:final:)``, as the C adapters are).
    private func markupOverLimit(consumed: Int) -> UTF8Outcome? {
        let pending = phase == .cdata ? processed + carry.count - cdataStart : carry.count
        guard pending > maxMarkupBytes else { return nil }
        limitError = true
        let message = FeedLimits.Message.maxMarkupBytes(over: maxMarkupBytes)
        var e = error(message, nil, 0)
        if phase == .cdata {
            e = XMLTokError(message: message, line: cdataLine,
                            column: cdataStart - cdataLineStart + 1 + (cdataLine == 1 ? markColumns : 0),
                            offset: cdataStart, isLimit: true)
        }
        e.overMarkup = true
        carry.removeAll()
        return .error(e, consumed)
    }

    /// The end of the document's bytes, with the root not closed (in a CDATA section
    /// whose bytes were all delivered: expat's "unclosed CDATA section", whatever the cuts).
    private func finish() -> UTF8Outcome {
        let message = carry.count > 0 ? "unclosed token" : phase == .cdata ? "unclosed CDATA section" : "no element found"
        let e = error(message, nil, 0)
        carry.removeAll()
        return .error(e, 0)
    }

    /// Another encoding: decoded to UTF-8 in slices, then scanned. Consumption is
    /// counted in bytes of `data` (bytes still pending from earlier calls come first).
    private func parseTranscoded(_ data: UnsafeRawBufferPointer, final: Bool, checkpoint: Bool) throws -> XMLTokOutcome {
        var off = 0
        let slice = 1 << 15
        let pendingAtEntry = rawPending.count
        var dropped = 0   // bytes removed from the front of rawPending since entry
        repeat {
            let take = min(data.count - off, slice)
            let last = off + take == data.count
            if take > 0 { rawPending.append(data.baseAddress!.assumingMemoryBound(to: UInt8.self) + off, take) }
            decoded.removeAll()
            let input = rawPending.bytes(0, rawPending.count)
            let (consumed, invalidAt) = transcoder!.decode(input, final: final && last, into: decoded)
            let r = try parseUTF8(decoded.bytes, final: final && last && invalidAt == nil, checkpoint: checkpoint && last)
            switch r {
            case .ok, .switchEncoding:
                if let invalidAt {
                    // Before a declaration could be read: the document is in the charset
                    // its first bytes gave, as the C core names it (no declaration error
                    // came; found by the differential fuzzer).
                    if phase == .declInUTF16 { machine.encoding(transcoder!.name) }
                    // At the character that cannot be decoded: after what was decoded
                    // before it, scanned or still carried (an unfinished token).
                    var e = error("not well-formed (invalid token)", UnsafePointer(carry.base), carry.count)
                    if final && last, let partial = truncatedUnit(input, at: invalidAt) {
                        // The input ends inside a UTF-16 character: expat's tokenizers see
                        // the input end there (XML_TOK_PARTIAL, XML_TOK_PARTIAL_CHAR): a
                        // token still open fails at its start, else where the bytes end.
                        if carry.count > 0 && phase != .cdata {
                            e = error(partial ? "partial character" : "unclosed token", nil, 0)
                        } else {
                            e.message = partial ? "partial character" : phase == .cdata ? "unclosed CDATA section" : "unclosed token"
                        }
                    }
                    return .error(e, consumed: max(dropped + consumed - pendingAtEntry, 0))
                }
                rawPending.removeFirst(consumed)
                dropped += consumed
            case .rootEnd(let q):
                let n = inputBytes(producing: q, from: input)
                rawPending.removeAll()
                return .rootEnd(consumed: max(dropped + n - pendingAtEntry, 0))
            case .error(let e, let q):
                // Resume just past the error, in input bytes (not at the slice's start,
                // which made the document search go back over the document; found by
                // fuzzing).
                let n = inputBytes(producing: q, from: input)
                rawPending.removeAll()
                return .error(e, consumed: max(dropped + n - pendingAtEntry, 0))
            }
            off += take
        } while off < data.count
        return .ok
    }

    /// Whether the bytes of `input` from `at` (where decoding failed) are a UTF-16
    /// character the input ends inside: an odd byte (false), or a high surrogate with
    /// no unit after it, an odd byte at most (true: a partial character); nil when they
    /// are something else (a character that is none: not well-formed).
    private func truncatedUnit(_ input: UnsafeRawBufferPointer, at: Int) -> Bool? {
        guard let transcoder, transcoder.isUTF16 else { return nil }
        let rest = input.count - at
        if rest == 1 { return false }
        guard rest == 2 || rest == 3 else { return nil }
        let unit = transcoder.kind == .utf16LE ? UInt16(input[at]) | UInt16(input[at + 1]) << 8
            : UInt16(input[at]) << 8 | UInt16(input[at + 1])
        return (0xD800...0xDBFF).contains(unit) ? true : nil
    }

    /// True when the document's offsets (errors) count UTF-8 bytes of decoded text, not
    /// its input bytes.
    var isTranscoded: Bool { switched != nil }

    /// The input offset (from the document's start) of the character at UTF-8 offset `u`
    /// of the document as the tokenizer read it (error offsets count those): `u` itself
    /// for a document read as UTF-8; for a transcoded one, the fewest input bytes whose
    /// decoding yields `u` bytes, found by decoding `input` (the document's bytes from its
    /// start, as far as they go) again. Used on errors only (the search for the next
    /// document resumes after the error's input byte, SwiftFeedParser.resyncFrom).
    func inputOffset(ofUTF8 u: Int, in input: UnsafeRawBufferPointer) -> Int {
        guard let (start, initial) = switched, u > start, input.count > start,
              let src = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return u }
        let need = u - start   // UTF-8 bytes after the switch
        var t = initial
        let block = 4096
        let dest = UnsafeMutablePointer<UInt8>.allocate(capacity: XMLTranscoder.maxOutput(forInput: block + 8))
        defer { dest.deallocate() }
        var i = start, produced = 0
        while i < input.count {
            let n = min(block, input.count - i)
            let before = t
            let r = t.decode(UnsafeRawBufferPointer(start: src + i, count: n), final: false, to: dest)
            if produced + r.written >= need {
                // In this block: the shortest prefix that yields enough.
                var lo = 0, hi = r.consumed
                while lo < hi {
                    let mid = (lo + hi) / 2
                    var t2 = before
                    let w = t2.decode(UnsafeRawBufferPointer(start: src + i, count: mid), final: false, to: dest).written
                    if produced + w >= need { hi = mid } else { lo = mid + 1 }
                }
                return i + lo
            }
            produced += r.written
            if r.invalidAt != nil || r.consumed == 0 { return i + r.consumed }
            i += r.consumed
        }
        return i
    }

    /// The column of input offset `raw` (of the document's bytes `input`, from its
    /// start), counted in characters as expat counts it: the error positions of the
    /// scanner count UTF-8 bytes, which a character past U+007F makes more. nil when
    /// `input` does not reach `raw`.
    func inputColumn(ofInput raw: Int, in input: UnsafeRawBufferPointer) -> Int? {
        guard raw >= 0, raw <= input.count, let base = input.baseAddress else { return nil }
        if let (from, t) = switched, t.isWide { return wideColumn(ofInput: raw, from: from, t, in: input) }
        let p = base.assumingMemoryBound(to: UInt8.self)
        // An ASCII-compatible charset: a line ends at byte 0x0A.
        var start = raw
        while start > 0 && p[start - 1] != 0x0A { start -= 1 }
        // A UTF-8 byte order mark on the line: one column (as expat counts it), and not
        // decoded in a declared charset (in ASCII its bytes are no characters at all).
        var mark = 0
        if start == 0 && markColumns == -2 && raw >= 3 {
            start = 3
            mark = 1
        }
        var utf8 = UnsafeRawBufferPointer(rebasing: input[start..<raw])
        var decoded: UnsafeMutablePointer<UInt8>?
        defer { decoded?.deallocate() }
        if let (_, initial) = switched {
            var t = initial
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: XMLTranscoder.maxOutput(forInput: utf8.count + 8))
            decoded = out
            let r = t.decode(utf8, final: true, to: out)
            utf8 = UnsafeRawBufferPointer(start: out, count: r.written)
        }
        // Every byte but a continuation byte begins a character.
        var chars = 0
        for c in utf8 where c & 0xC0 != 0x80 { chars += 1 }
        return chars + 1 + mark
    }

    /// ``inputColumn(ofInput:in:)`` in a UTF-16 or UTF-32 document, transcoded from
    /// input offset `from` (after its byte order mark, if any) by `initial`: the line
    /// starts after the last line feed unit before `raw`; its characters are counted by
    /// decoding it (a surrogate pair is one, as in expat), and on the document's first
    /// line its byte order mark is one column.
    private func wideColumn(ofInput raw: Int, from: Int, _ initial: XMLTranscoder,
                            in input: UnsafeRawBufferPointer) -> Int? {
        let p = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let unit = initial.isUTF16 ? 2 : 4
        let mark = markColumns < 0   // a byte order mark (markColumns is 1 - its bytes)
        let first = from
        guard raw >= first, (raw - first) % unit == 0 else { return nil }
        let littleEndian = initial.kind == .utf16LE || initial.kind == .utf32LE
        func isLineFeed(_ k: Int) -> Bool {
            for j in 0..<unit where p[k + j] != (j == (littleEndian ? 0 : unit - 1) ? 0x0A : 0) { return false }
            return true
        }
        var start = raw
        while start - unit >= first && !isLineFeed(start - unit) { start -= unit }
        var t = initial
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: XMLTranscoder.maxOutput(forInput: raw - start + 8))
        defer { out.deallocate() }
        let r = t.decode(UnsafeRawBufferPointer(rebasing: input[start..<raw]), final: true, to: out)
        var chars = 0
        for k in 0..<r.written where out[k] & 0xC0 != 0x80 { chars += 1 }
        return chars + 1 + (start == first && mark ? 1 : 0)
    }

    /// The fewest input bytes whose decoding yields at least `output` bytes (`input.count`
    /// when none do). Decoded once, a block at a time, up to the block where the output
    /// reaches `output`; that block alone is then searched by halves. (A search by halves
    /// over the whole input decoded it some 15 times over, at every document's end: most
    /// of the time of a document in a multi-byte charset.)
    private func inputBytes(producing output: Int, from input: UnsafeRawBufferPointer) -> Int {
        let block = 256
        let scratch = TranscodeBuffer(capacity: XMLTranscoder.maxOutput(forInput: block) + 16)
        var t = transcoder!   // the state before `input[pos...]`
        var pos = 0, produced = 0
        while pos < input.count {
            let end = min(input.count, pos + block)
            var next = t
            scratch.removeAll()
            let (consumed, _) = next.decode(UnsafeRawBufferPointer(rebasing: input[pos..<end]), final: false, into: scratch)
            if produced + scratch.count >= output {
                // Within this block: the fewest of its bytes that reach `output`.
                var lo = pos, hi = end
                while lo < hi {
                    let mid = (lo + hi) / 2
                    var probe = t
                    scratch.removeAll()
                    _ = probe.decode(UnsafeRawBufferPointer(rebasing: input[pos..<mid]), final: false, into: scratch)
                    if produced + scratch.count >= output { hi = mid } else { lo = mid + 1 }
                }
                return lo
            }
            // Nothing consumed: an invalid or unfinished character; no more output follows.
            guard consumed > 0 else { break }
            produced += scratch.count
            t = next
            pos += consumed
        }
        return input.count
    }

    /// Counts the lines of processed bytes. A CDATA section still open after them that
    /// began in them has its line taken on the way (where it fails if it grows over
    /// maxMarkupBytes); a section that ended in them needs none.
    private func advance(_ base: UnsafePointer<UInt8>, _ n: Int) {
        let k = cdataStart - processed
        if phase == .cdata && k >= 0 && k <= n {
            countLines(base, 0, k)
            cdataLine = line
            cdataLineStart = lineStart
            countLines(base, k, n)
        } else {
            countLines(base, 0, n)
        }
        processed += n
    }

    private func countLines(_ base: UnsafePointer<UInt8>, _ from: Int, _ to: Int) {
        let (count, last) = lineFeeds(base + from, to - from)
        if count > 0 {
            line += count
            lineStart = processed + from + last + 1
        }
    }

    private func error(_ message: String, _ base: UnsafePointer<UInt8>?, _ at: Int) -> XMLTokError {
        var line = self.line, lineStart = self.lineStart
        if let base {
            for k in 0..<at where base[k] == 0x0A {
                line += 1
                lineStart = processed + k + 1
            }
        }
        let offset = processed + at
        // A byte order mark counts as one column (expat's count), not as its 3 (UTF-8) or
        // 2 (UTF-16) bytes.
        let column = offset - lineStart + 1 + (line == 1 ? markColumns : 0)
        return XMLTokError(message: message, line: line, column: column, offset: offset,
                           isLimit: limitError)
    }

    // ---- the scanner ----------------------------------------------------------------

    private func scan(_ s: UnsafePointer<UInt8>, _ n: Int, final: Bool) throws -> Stop {
        let stop = try scanBytes(s, n, final: final)
        // A construct the input ends in, its last bytes the start of a character: expat's
        // tokenizers say XML_TOK_PARTIAL_CHAR there, "partial character".
        if final, case .error(let at, "unclosed token") = stop, endsInsideCharacter(s, n) {
            return .error(at, "partial character")
        }
        return stop
    }

    /// The last bytes of `s[0..<n]` begin a UTF-8 sequence that needs more bytes.
    private func endsInsideCharacter(_ s: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var k = n - 1
        while k >= 0 && k >= n - 3 && s[k] & 0xC0 == 0x80 { k -= 1 }
        guard k >= 0, s[k] >= 0xC0 else { return false }
        return utf8Length(s, k, n) == 0
    }

    private func scanBytes(_ s: UnsafePointer<UInt8>, _ n: Int, final: Bool) throws -> Stop {
        var i = 0
        if phase == .start || phase == .declInUTF16 {
            switch startOfDocument(s, n, final: final) {
            case .next(let j): i = j
            case .stop(let stop): return stop
            }
        }
        while i < n {
            // (A limit is passed at a tag, never in text: the field-text limit waits for
            // the next start or end tag, SwiftFeedMachineCore.checkField.)
            if phase == .cdata {
                switch cdata(s, i, n, final: final) {
                case .next(let j): i = j; continue
                case .stop(let stop): return stop
                }
            }
            if depth == 0 {
                // Prolog (the epilog is never scanned: the root's end stops the document).
                switch try prolog(s, i, n, final: final) {
                case .next(let j): i = j
                case .stop(let stop): return stop
                }
                continue
            }
            // Markup right after markup, or after a line break and indentation (most of
            // the text between a feed's tags): no text scan.
            var tag = i
            if s[tag] == 0x0A {
                tag &+= 1
                while tag < n && (s[tag] == 0x20 || s[tag] == 0x09) { tag &+= 1 }
            }
            if tag < n && s[tag] == 0x3C {
                if tag > i { deliver(s + i, tag &- i) }
                switch try markup(s, tag, n, final: final) {
                case .next(let j): i = j
                case .stop(let stop): return stop
                }
                continue
            }
            // Character data, up to the next markup (references are read in the scan).
            var runStart = i
            var stopByte: UInt8 = 0
            scanning: while true {
                let found = skipTextBytes16(s, &i, n, 0x3C, 0x26, 0x5D, utf8StepTable)
                while !found && i &+ 8 <= n {
                    let x = UnsafeRawPointer(s + i).loadUnaligned(as: UInt64.self)
                    let m = attentionMask(x)
                    if m != 0 { i &+= m.trailingZeroBitCount &>> 3; break }
                    i &+= 8
                }
                while i < n && textTable[Int(s[i])] == 0 { i &+= 1 }
                if i >= n { break scanning }
                let c = s[i]
                switch c {
                case 0x09, 0x0A:
                    i &+= 1
                case 0x26:
                    // A reference: the run before it, then what it stands for, and the
                    // scan goes on here (escaped markup is most of some feeds' text). The
                    // predefined ones from one load.
                    deliver(s + runStart, i &- runStart)
                    let reference = i
                    if let (c, length) = predefinedReference8(s, i, n) {
                        deliver(byteText + Int(c), 1)
                        i &+= length
                    } else {
                        switch try self.reference(s, i, n, final: final, inAttribute: false) {
                        case .next(let j): i = j
                        case .stop(let stop): return stop
                        }
                    }
                    if machine.limitHit { return limitStop(reference) }
                    runStart = i
                case 0x3C:
                    stopByte = c
                    break scanning
                case 0x0D:
                    stopByte = c
                    break scanning
                case 0x5D:   // "]]>" may not appear in text
                    if i + 2 >= n && !final {
                        deliver(s + runStart, i - runStart)
                        return .more(i)
                    }
                    if i + 2 < n && s[i + 1] == 0x5D && s[i + 2] == 0x3E { return .error(i, "not well-formed (invalid token)") }
                    i &+= 1
                default:
                    if c >= 0x80 {
                        let len = utf8Length(s, i, n)
                        if len > 0 { i &+= len; continue }
                        if len == 0 && !final {
                            deliver(s + runStart, i - runStart)
                            return .more(i)
                        }
                        // The input ends inside a character (expat's XML_TOK_PARTIAL_CHAR).
                        if len == 0 { return .error(i, "partial character") }
                    }
                    return .error(i, "not well-formed (invalid token)")
                }
            }
            deliver(s + runStart, i - runStart)
            if i >= n { return .more(n) }
            switch stopByte {
            case 0x0D:
                if i + 1 >= n {
                    if !final { return .more(i) }
                    deliver(lineFeed, 1)
                    i += 1
                } else {
                    if s[i + 1] != 0x0A { deliver(lineFeed, 1) }   // CR LF: the LF follows as text
                    i += 1
                }
            default:
                switch try markup(s, i, n, final: final) {
                case .next(let j): i = j
                case .stop(let stop): return stop
                }
            }
        }
        return .more(n)
    }

    private enum Step { case next(Int), stop(Stop) }

    /// The machine's limit (field text, items) stopped the document at `i`.
    private func limitStop(_ i: Int) -> Stop {
        limitError = true
        return .error(i, machine.limitMessage)
    }

    @inline(__always)
    private func deliver(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if n > 0 && machine.wantsText { machine.text(UnsafeRawBufferPointer(start: p, count: n)) }
    }

    // ---- start of a document: byte order marks, the XML declaration ------------------

    private func startOfDocument(_ s: UnsafePointer<UInt8>, _ n: Int, final: Bool) -> Step {
        var i = 0
        if phase == .start {
            if n < 4 && !final { return .stop(.more(0)) }
            let (found, mark) = XMLTranscoder.sniff(s, n)
            if let found {
                // UTF-16 or UTF-32: the declaration is read in it.
                transcoder = found
                markColumns = mark > 0 ? 1 - mark : 0
                phase = .declInUTF16
                return .stop(.switchEncoding(mark))
            }
            if mark == 3 {   // a UTF-8 byte order mark
                i = 3
                markColumns = -2
            }
        }
        // "<?xml" and white space: the declaration. Bytes that cannot begin one are read
        // at once as the document's (expat decides there too: a first character that
        // cannot start a document is the error, even with the next not yet decodable).
        if n - i < 6 && !final && matches(s + i, "<?xml", prefix: n - i) { return .stop(.more(i)) }
        let utf16 = phase == .declInUTF16   // or UTF-32: a wide charset, found by its first bytes
        // The transport's charset, for an 8-bit document without a byte order mark (a
        // UTF-8 mark set markColumns, also when its bytes were consumed by an earlier call).
        let transport = utf16 || i > 0 || markColumns != 0 ? nil : transportCharset.flatMap(XMLTranscoder.transport)
        /// Reads the document from `at` on in the transport's charset.
        func useTransport(_ t: XMLTranscoder, at: Int) -> Step {
            machine.encoding(t.name)
            if t.isPassthrough { return .next(at) }
            transcoder = t
            return .stop(.switchEncoding(at))
        }
        phase = .prolog
        grammar = PrologGrammar()
        guard n - i >= 6, matches(s + i, "<?xml"), isSpace(s[i + 5]) else {
            if let transport { return useTransport(transport, at: i) }
            machine.encoding(transcoder?.name ?? "utf-8")
            return .next(i)
        }
        // The declaration runs to the first "?>" (as the C core's cfs_charset_detect
        // finds it, before expat reads a byte). With none in the whole document, expat
        // scans it as a processing instruction: a bad character in it is the error, at
        // its place (the differential fuzzer: reported "unclosed" at its start).
        guard let close = find2(s, i + 5, n, 0x3F, 0x3E) else {
            phase = utf16 ? .declInUTF16 : .start
            guard final else { return .stop(.more(0)) }
            let pi = transport == nil ? scanProcessingInstruction(s, i + 2, n, NameCharacters()) : PrologScan(token: .partial, next: n)
            if pi.token == .invalid { return .stop(.error(pi.next, "not well-formed (invalid token)")) }
            return .stop(.error(i, pi.token == .partialChar ? "partial character" : "unclosed token"))
        }
        let end = close + 2
        grammar.state = .prolog1
        let (parsed, bad) = parseDeclaration(s, i + 5, close)
        guard let decl = parsed else { return .stop(.error(bad, "XML declaration not well-formed")) }
        standalone = decl.standalone
        if let transport { return useTransport(transport, at: end) }
        if let enc = decl.encoding {
            let declared = UnsafeRawBufferPointer(start: s + enc.0, count: enc.1)
            // The name it stands for (the alias table, charset_aliases.def), in lower case;
            // "UTF-8" in any case (most documents) is its own, looked up with no key built.
            let lower = isUTF8Name(declared) ? utf8Name
                : XMLTranscoder.alias(declared).map { Array($0.utf8) } ?? asciiLowercased(declared)
            // One of expat's built-in names, exactly (not "UTF-16HE": a name expat does not
            // know, found by the differential fuzzer).
            let builtin = lower.withUnsafeBytes { XMLTranscoder.builtinKind($0) }
            let isUTF16 = builtin == .utf16BE || builtin == .utf16LE
            let isUTF32 = builtin == .utf32BE || builtin == .utf32LE
            if utf16 {
                // expat's processXmlDecl, as the C core's cfs_charset_detect: "UTF-16"
                // ("UTF-32") keeps the byte order found; any other name must be the
                // built-in one of the document's width and byte order (a name expat does
                // not know included: expat would read on in it, the C core stops there).
                let kind = transcoder?.kind
                let wide32 = kind == .utf32LE || kind == .utf32BE
                let keepsOrder = lower == Array((wide32 ? "utf-32" : "utf-16").utf8)
                if !keepsOrder && builtin != kind {
                    return .stop(.error(enc.0, "encoding specified in XML declaration is incorrect"))
                }
            } else if isUTF16 || isUTF32 {
                return .stop(.error(enc.0, "encoding specified in XML declaration is incorrect"))
            } else if lower != utf8Name {
                guard let t = XMLTranscoder.named(declared) else { return .stop(.error(enc.0, "unknown encoding")) }
                if !t.isPassthrough {
                    transcoder = t
                    machine.encoding(t.name)
                    return .stop(.switchEncoding(end))
                }
            }
        }
        machine.encoding(transcoder?.name ?? "utf-8")
        return .next(end)
    }

    private struct Declaration { var encoding: (Int, Int)?; var standalone: Bool }

    /// The pseudo-attributes of an XML declaration (`from` just after "<?xml", `end` at
    /// "?>"): version, then optionally encoding, then optionally standalone, checked
    /// as expat's doParseXmlDecl and parsePseudoAttribute check them, so that the same
    /// declarations fail, at the same place (`bad`; where the search for the next
    /// document resumes, so a different place could find a different next document —
    /// found by the differential fuzzer).
    private func parseDeclaration(_ s: UnsafePointer<UInt8>, _ from: Int, _ end: Int) -> (Declaration?, bad: Int) {
        // expat's toAscii: the byte when ASCII, -1 past the end or for other bytes.
        func ascii(_ k: Int) -> Int { k < end && s[k] < 0x80 ? Int(s[k]) : -1 }
        func space(_ c: Int) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        func letter(_ c: Int) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) }
        struct Pseudo { var name: Int, nameEnd: Int, value: Int, next: Int }
        enum Parsed { case end, attribute(Pseudo), bad(Int) }
        // parsePseudoAttribute: white space, name, optional white space, "=", optional
        // white space, a quoted value of [A-Za-z0-9._-].
        func pseudo(_ start: Int) -> Parsed {
            var p = start
            if p >= end { return .end }
            if !space(ascii(p)) { return .bad(p) }
            repeat { p += 1 } while space(ascii(p))
            if p >= end { return .end }
            let name = p
            var nameEnd = p
            while true {
                let c = ascii(p)
                if c == -1 { return .bad(p) }
                if c == 0x3D { nameEnd = p; break }
                if space(c) {
                    nameEnd = p
                    repeat { p += 1 } while space(ascii(p))
                    if ascii(p) != 0x3D { return .bad(p) }
                    break
                }
                p += 1
            }
            if p == name { return .bad(p) }
            p += 1
            while space(ascii(p)) { p += 1 }
            let open = ascii(p)
            if open != 0x22 && open != 0x27 { return .bad(p) }
            p += 1
            let value = p
            while true {
                let c = ascii(p)
                if c == open { break }
                guard letter(c) || (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x2D || c == 0x5F else { return .bad(p) }
                p += 1
            }
            return .attribute(Pseudo(name: name, nameEnd: nameEnd, value: value, next: p + 1))
        }
        func named(_ a: Pseudo, _ keyword: StaticString) -> Bool {
            UnsafeRawBufferPointer(start: s + a.name, count: a.nameEnd - a.name).equals(keyword)
        }
        var decl = Declaration(encoding: nil, standalone: false)
        var a: Pseudo
        switch pseudo(from) {
        case .end: return (nil, from)   // expat leaves its pointer where it was
        case .bad(let p): return (nil, p)
        case .attribute(let x): a = x
        }
        if !named(a, "version") { return (nil, a.name) }
        switch pseudo(a.next) {
        case .end: return (decl, 0)
        case .bad(let p): return (nil, p)
        case .attribute(let x): a = x
        }
        if named(a, "encoding") {
            if !letter(ascii(a.value)) { return (nil, a.value) }
            decl.encoding = (a.value, a.next - 1 - a.value)
            switch pseudo(a.next) {
            case .end: return (decl, 0)
            case .bad(let p): return (nil, p)
            case .attribute(let x): a = x
            }
        }
        if !named(a, "standalone") { return (nil, a.name) }
        let v = UnsafeRawBufferPointer(start: s + a.value, count: a.next - 1 - a.value)
        if v.equals("yes") { decl.standalone = true } else if !v.equals("no") { return (nil, a.value) }
        var p = a.next
        while space(ascii(p)) { p += 1 }
        return p < end ? (nil, p) : (decl, 0)
    }

    // ---- markup -----------------------------------------------------------------------

    private func markup(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) throws -> Step {
        guard i + 1 < n else { return needMore(i, final) }
        let c = s[i + 1]
        if c == 0x2F { return try endTag(s, i, n, final: final) }
        if c == 0x21 { return try declarationOrComment(s, i, n, final: final) }
        if c == 0x3F { return processingInstruction(s, i, n, final: final) }
        return try startTag(s, i, n, final: final)
    }

    @inline(__always)
    private func needMore(_ i: Int, _ final: Bool) -> Step {
        .stop(final ? .error(i, "unclosed token") : .more(i))
    }

    /// How a name may hold colons (expat in namespace mode): element and attribute
    /// names one, followed by a name's first character; end tags any (they must match
    /// a start tag anyway); references, PI targets none (a colon ends the name).
    private enum Colons { case qualified, any, none }

    /// Scans a name from `i`; returns its end, or -1 when the input ends first, -2 when
    /// there is no valid name (the bad byte in ``badNameByte``, where expat reports it).
    @inline(__always)
    private func name(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, colons: Colons = .qualified) -> Int {
        var i = from
        nameColon = -1
        guard i < n else { return -1 }
        /// A name's first character at `i`: its length, 0 when the input ends in it, -1 when it is none.
        func start(_ i: Int) -> Int {
            let c = s[i]
            if c < 0x80 { return nameStartTable[Int(c)] == 0 ? -1 : 1 }
            // Beyond ASCII, the characters expat accepts (XMLNameCharacters.swift).
            let len = utf8Length(s, i, n)
            if len == 0 { return 0 }
            return len < 0 || !nameCharacters.accepts(utf8Scalar(s, i, len), first: true) ? -1 : len
        }
        var colon = false
        var k: Int
        if s[i] < 0x80 {
            // (An ASCII first character here, without the call.)
            if nameStartTable[Int(s[i])] == 0 { badNameByte = i; return -2 }
            i &+= 1
        } else {
            k = start(i)
            if k == 0 { return -1 }
            if k < 0 { badNameByte = i; return -2 }
            i += k
        }
        while i < n {
            // ASCII name characters but `:` (most of a name) 16 at a time, or lower-case
            // ASCII letters 8 at a time near the end; the byte after them goes the
            // general way.
            #if _endian(little)
            if i &+ 16 <= n {
                let run = asciiNameRun16(UnsafeRawPointer(s + i).loadUnaligned(as: SIMD16<UInt8>.self))
                i &+= run
                if run == 16 { continue }
            } else if i &+ 8 <= n {
                let run = lowercaseLetters(UnsafeRawPointer(s + i).loadUnaligned(as: UInt64.self))
                i &+= run
                if run == 8 { continue }
            }
            #endif
            let c = s[i]
            if c < 0x80 {
                if nameTable[Int(c)] != 0 { i += 1; continue }
                guard c == 0x3A else { return i }
                switch colons {
                case .none: return i
                case .any: i += 1; continue
                case .qualified:
                    if colon { badNameByte = i; return -2 }
                    colon = true
                    nameColon = i
                    i += 1
                    guard i < n else { return -1 }
                    k = start(i)
                    if k == 0 { return -1 }
                    if k < 0 { badNameByte = i; return -2 }
                    i += k
                }
            } else {
                let len = utf8Length(s, i, n)
                if len == 0 { return -1 }
                if len < 0 { badNameByte = i; return -2 }
                if !nameCharacters.accepts(utf8Scalar(s, i, len), first: false) { return i }
                i += len
            }
        }
        return -1
    }

    /// The name characters of what is being scanned (``NameCharacters``): the document's
    /// own bytes, or a replacement text (read as UTF-8).
    private var nameCharacters: NameCharacters {
        NameCharacters(latin1: entityDepth == 0 && transcoder?.kind == .latin1)
    }

    private func startTag(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) throws -> Step {
        if rootSeen && depth == 0 { return .stop(.error(i, "junk after document element")) }
        let nameStart = i + 1
        var j = name(s, nameStart, n)
        if j == -1 { return needMore(i, final) }
        if j == -2 { return .stop(.error(badNameByte, "not well-formed (invalid token)")) }
        let nameEnd = j
        let nameColonAt = nameColon
        var count = 0
        var empty = false
        while true {
            let ws = j
            while j < n && isSpace(s[j]) { j += 1 }
            guard j < n else { return needMore(i, final) }
            let c = s[j]
            if c == 0x3E { j += 1; break }
            if c == 0x2F {
                guard j + 1 < n else { return needMore(i, final) }
                // Where expat places it: on the byte after the slash (the resumed search
                // for the next document starts there; found by the differential fuzzer).
                guard s[j + 1] == 0x3E else { return .stop(.error(j + 1, "not well-formed (invalid token)")) }
                j += 2
                empty = true
                break
            }
            if ws == j { return .stop(.error(j, "not well-formed (invalid token)")) }
            // An attribute.
            let an = j
            let ae = name(s, an, n)
            if ae == -1 { return needMore(i, final) }
            if ae == -2 { return .stop(.error(badNameByte, "not well-formed (invalid token)")) }
            let colon = nameColon < 0 ? Int32(-1) : Int32(truncatingIfNeeded: nameColon &- an)
            j = ae
            while j < n && isSpace(s[j]) { j += 1 }
            guard j < n else { return needMore(i, final) }
            guard s[j] == 0x3D else { return .stop(.error(j, "not well-formed (invalid token)")) }
            j += 1
            while j < n && isSpace(s[j]) { j += 1 }
            guard j < n else { return needMore(i, final) }
            let quote = s[j]
            guard quote == 0x22 || quote == 0x27 else { return .stop(.error(j, "not well-formed (invalid token)")) }
            j += 1
            let vs = j
            var decode = false
            while true {
                // Plain bytes 16 at a time (not the quote, `<`, `&`, a control or non-ASCII).
                if j &+ 16 <= n {
                    let k = firstSpecialByte16(s + j, quote, 0x3C, 0x26)
                    j &+= k
                    if k == 16 { continue }
                }
                guard j < n else { return needMore(i, final) }
                let v = s[j]
                if v == quote { break }
                if v < 0x20 {
                    if v == 0x09 || v == 0x0A || v == 0x0D { decode = true; j += 1; continue }
                    return .stop(.error(j, "not well-formed (invalid token)"))
                }
                if v == 0x26 {
                    // Its syntax is checked here, as expat's scanAtts does (an error in
                    // it comes before one further on; the differential fuzzer); its
                    // meaning when the value is decoded.
                    decode = true
                    let r = referenceEnd(s, j + 1, n)
                    if r == -1 { return needMore(i, final) }
                    if r < -1 { return .stop(.error(-r - 2, "not well-formed (invalid token)")) }
                    j = r
                    continue
                }
                if v == 0x3C { return .stop(.error(j, "not well-formed (invalid token)")) }
                if v >= 0x80 {
                    let len = utf8Length(s, j, n)
                    if len == 0 { return final ? .stop(.error(i, "partial character")) : needMore(i, final) }
                    if len < 0 { return .stop(.error(j, "not well-formed (invalid token)")) }
                    j += len
                    continue
                }
                j += 1
            }
            if count == rawCapacity { growRaw() }
            raw[count] = RawAttr(name: s + an, nameLength: Int32(ae - an), colon: colon, value: s + vs,
                                 valueLength: Int32(j - vs), position: Int32(an), needsDecoding: decode, uri: emptyBytes)
            count += 1
            j += 1
        }
        if let stop = try element(s, i, nameStart, nameEnd, nameColonAt, count, empty: empty, tagEnd: j) { return .stop(stop) }
        if empty && depth == 0 { return .stop(.rootEnd(j)) }
        return .next(j)
    }

    /// Where and why an attribute-list default is not well-formed.
    private struct DefaultValueError: Error { var at: Int; var message: String }

    /// An attribute-list declaration's default value `s[from..<to]` (inside its quotes),
    /// read as expat's storeAttributeValue reads it (found by the differential fuzzer and
    /// by hand): references replaced, general entities declared so far expanded
    /// (recursively), literal white space a space, a character reference's white space
    /// kept; for a type other than CDATA, spaces collapsed and trimmed. Not well-formed:
    /// a `<` (also in a replacement text), a bad reference, a recursive one, one to an
    /// external or unparsed entity, and one to an undeclared entity while no external
    /// declaration could have declared it (standalone, or no parameter entity referred to
    /// yet; otherwise it is dropped). An error in the literal is placed at its byte (a
    /// reference's at its `&`), one in a replacement text or an undeclared entity at the
    /// literal's quote, where expat places them. `account`: counted toward the
    /// amplification limit (once per literal).
    private func attributeDefault(_ s: UnsafePointer<UInt8>, _ from: Int, _ to: Int, cdata: Bool,
                                  account: Bool = true) -> Result<[UInt8], DefaultValueError> {
        var out: [UInt8] = []
        var open: [[UInt8]] = []
        if let e = appendDefault(s, from, to, cdata: cdata, top: true, quote: from - 1, account: account,
                                 into: &out, open: &open) {
            return .failure(e)
        }
        if !cdata && out.last == 0x20 { out.removeLast() }
        return .success(out)
    }

    private func appendDefault(_ s: UnsafePointer<UInt8>, _ from: Int, _ to: Int, cdata: Bool, top: Bool, quote: Int,
                               account: Bool, into out: inout [UInt8], open: inout [[UInt8]]) -> DefaultValueError? {
        func space() { if cdata || (!out.isEmpty && out.last != 0x20) { out.append(0x20) } }
        func error(_ j: Int, _ message: String) -> DefaultValueError { DefaultValueError(at: top ? j : quote, message: message) }
        var j = from
        while j < to {
            let c = s[j]
            switch c {
            case 0x3C:
                return error(j, "not well-formed (invalid token)")
            case 0x0D:
                space()
                j += (j + 1 < to && s[j + 1] == 0x0A) ? 2 : 1
            case 0x20, 0x09, 0x0A:
                space()
                j += 1
            case 0x26:
                let r = referenceEnd(s, j + 1, to)
                if r == -1 { return error(j, "not well-formed (invalid token)") }
                if r < -1 { return error(-r - 2, "not well-formed (invalid token)") }
                if s[j + 1] == 0x23 {
                    let hex = s[j + 2] == 0x78
                    var v: UInt32 = 0
                    for k in (j + (hex ? 3 : 2))..<(r - 1) { v = v > 0x10FFFF ? v : v * (hex ? 16 : 10) + hexValue(s[k], hex)! }
                    if !isXMLChar(v) { return error(j, "reference to invalid character number") }
                    if v == 0x20 { space() } else { appendUTF8(v, to: &out) }
                } else {
                    let nm = UnsafeRawBufferPointer(start: s + j + 1, count: r - j - 2)
                    if let ch = predefinedEntity(nm) {
                        out.append(ch)
                    } else if !entities.isEmpty, case let key = Array(nm), let entity = entities[key] {
                        if open.contains(key) { return error(j, "recursive entity reference") }
                        if entity.binary { return error(j, "reference to binary entity") }
                        guard let value = entity.value else { return error(j, "reference to external entity in attribute") }
                        if account && amplified(by: value.count, at: j) { return error(j, Self.amplificationMessage) }
                        open.append(key)
                        let e = value.withUnsafeBufferPointer { b -> DefaultValueError? in
                            guard let p = b.baseAddress, b.count > 0 else { return nil }
                            entityDepth += 1   // a replacement text: its names are read as UTF-8
                            defer { entityDepth -= 1 }
                            return appendDefault(p, 0, b.count, cdata: cdata, top: false, quote: quote, account: account,
                                                 into: &out, open: &open)
                        }
                        open.removeLast()
                        if let e { return e }
                    } else if standalone || !refersToParameterEntities {
                        return DefaultValueError(at: quote, message: "undefined entity")
                    }
                }
                j = r
            default:
                out.append(c)
                j += 1
            }
        }
        return nil
    }

    /// The end (after its `;`) of the reference whose `&` is before `from`, as expat's
    /// scanRef and scanCharRef check it: -1 when the bytes end first, -2 - k for the bad
    /// byte at k.
    private func referenceEnd(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> Int {
        var p = from
        guard p < n else { return -1 }
        if s[p] == 0x23 {
            p += 1
            guard p < n else { return -1 }
            let hex = s[p] == 0x78
            if hex { p += 1; guard p < n else { return -1 } }
            if hexValue(s[p], hex) == nil { return -2 - p }
            p += 1
            while p < n {
                if s[p] == 0x3B { return p + 1 }
                if hexValue(s[p], hex) == nil { return -2 - p }
                p += 1
            }
            return -1
        }
        let e = name(s, p, n, colons: .none)
        if e == -1 { return -1 }
        if e == -2 { return -2 - badNameByte }
        return s[e] == 0x3B ? e + 1 : -2 - e
    }

    private func growRaw() {
        let nr = UnsafeMutablePointer<RawAttr>.allocate(capacity: rawCapacity * 2)
        nr.moveInitialize(from: raw, count: rawCapacity)
        raw.deallocate()
        raw = nr
        rawCapacity *= 2
        attrs.deallocate()   // filled anew for each element
        attrs = .allocate(capacity: rawCapacity)
    }

    /// A complete start tag (`s[tagStart..<tagEnd]`): namespaces, attribute values, the
    /// machine.
    private func element(_ s: UnsafePointer<UInt8>, _ tagStart: Int, _ nameStart: Int, _ nameEnd: Int, _ colonAt: Int,
                         _ count: Int, empty: Bool, tagEnd: Int) throws -> Stop? {
        let bindingsBefore = bindingsCount
        values.removeAll()
        let specified = count
        var count = count
        if !defaults.isEmpty { count = applyDefaults(s + nameStart, nameEnd - nameStart, count, tagStart) }
        // The attribute limit (namespace declarations count), before the duplicate checks
        // (quadratic) meet a hostile count.
        if count > maxAttributes {
            limitError = true
            return .error(tagStart, FeedLimits.Message.maxAttributes(count, maxAttributes))
        }
        // Values that need it are decoded first (declarations may use references).
        // A value of an attribute declared with a type other than CDATA is normalized
        // (defaults were when declared).
        for k in 0..<count {
            let cdata = !tokenizedDeclared || k >= specified || declaredCDATA(s + nameStart, nameEnd - nameStart, raw[k])
            guard raw[k].needsDecoding || !cdata else { continue }
            let start = values.count
            attributeCDATA = cdata
            attributeStart = start
            if let stop = try attributeValue(raw[k].value, 0, Int(raw[k].valueLength)) {
                attributeCDATA = true
                // attributeValue positions errors in the value; `s` is the buffer the
                // error is reported against (found by fuzzing: the position depended on
                // where the input was cut).
                if case .error(let at, let message) = stop {
                    return .error(at == Self.atTag ? tagStart : raw[k].value - s + at, message)
                }
                return stop
            }
            attributeCDATA = true
            if !cdata && values.count > start && values.base[values.count - 1] == 0x20 { values.removeLast(1) }
            raw[k].decoded = start
            raw[k].valueLength = Int32(values.count - start)
        }
        // Namespace declarations.
        var declared = false
        for k in 0..<count {
            let a = raw[k]
            let nm = a.name
            if a.colon == 5 && matches(nm, "xmlns") {
                let prefix = UnsafeRawBufferPointer(start: nm + 6, count: Int(a.nameLength) - 6)
                let value = attributeValueBytes(s, a)
                if value.count == 0 { return .error(Int(a.position), "must not undeclare prefix") }
                if prefix.equals("xmlns") { return .error(Int(a.position), "reserved prefix (xmlns) must not be declared or undeclared") }
                if prefix.equals("xml") != value.equals(xmlNamespace) {
                    return .error(Int(a.position), "reserved prefix (xml) must not be undeclared or bound to another namespace name")
                }
                if declaresAgain(prefix, since: bindingsBefore) { return .error(Int(a.position), "duplicate attribute") }
                bind(prefix, value)
                declared = true
            } else if a.colon == -1 && a.nameLength == 5 && matches(nm, "xmlns") {
                let value = attributeValueBytes(s, a)
                if value.equals(xmlNamespace) { return .error(Int(a.position), "reserved prefix (xml) must not be undeclared or bound to another namespace name") }
                if declaresAgain(UnsafeRawBufferPointer(start: nm, count: 0), since: bindingsBefore) {
                    return .error(Int(a.position), "duplicate attribute")
                }
                bind(UnsafeRawBufferPointer(start: nm, count: 0), value)
                declared = true
            }
        }
        _ = declared
        // The element's namespace.
        let qname = UnsafeRawBufferPointer(start: s + nameStart, count: nameEnd - nameStart)
        var localOffset = 0
        var uri = emptyBytes
        if colonAt >= 0 {
            localOffset = colonAt - nameStart + 1
            let prefix = UnsafeRawBufferPointer(rebasing: qname[0..<(localOffset - 1)])
            guard let u = namespace(ofPrefix: prefix) else { return .error(tagStart, "unbound prefix") }   // at the tag, as expat
            uri = u
        } else {
            if !defaultNamespaceKnown {
                defaultNamespace = lookup(UnsafeRawBufferPointer(start: s + nameStart, count: 0))
                defaultNamespaceKnown = true
            }
            if let u = defaultNamespace { uri = u }
        }
        // Attributes: namespaces, duplicates. Few attributes: compared pairwise; many (up
        // to millions with --max-attributes 0): through hash tables, linear (issue 17).
        var reported = 0
        let hashed = count > Self.pairwiseAttributes
        if hashed { duplicateTables.reset(capacity: count) }
        for k in 0..<count {
            let a = raw[k]
            let nm = a.name
            if a.colon == 5 && matches(nm, "xmlns") { continue }
            if a.colon == -1 && a.nameLength == 5 && matches(nm, "xmlns") { continue }
            if a.colon >= 0 {
                let prefix = UnsafeRawBufferPointer(start: nm, count: Int(a.colon))
                guard let u = namespace(ofPrefix: prefix) else { return .error(tagStart, "unbound prefix") }
                raw[k].uri = u
            }
            // Duplicates: the same name (reported at the attribute), or the same namespace
            // and local name (at the tag, as expat finds it once the names are expanded).
            if hashed {
                switch duplicateTables.duplicate(raw, k) {
                case .byName: return .error(Int(a.position), "duplicate attribute")
                case .byNamespace: return .error(tagStart, "duplicate attribute")
                case .none: break
                }
            } else {
                for m in 0..<k {
                    let b = raw[m]
                    if b.nameLength == a.nameLength && bytesEqual(b.name, nm, Int(a.nameLength)) {
                        return .error(Int(a.position), "duplicate attribute")
                    }
                    if a.colon >= 0 && b.colon >= 0 && !(b.colon == 5 && matches(b.name, "xmlns"))
                        && raw[m].uri.equals(raw[k].uri)
                        && Int(a.nameLength - a.colon) == Int(b.nameLength - b.colon)
                        && bytesEqual(nm + Int(a.colon), b.name + Int(b.colon), Int(a.nameLength - a.colon)) {
                        return .error(tagStart, "duplicate attribute")
                    }
                }
            }
            // Every attribute reaches the machine (their count is within maxAttributes).
            let local = a.colon >= 0
                ? UnsafeRawBufferPointer(start: nm + Int(a.colon) + 1, count: Int(a.nameLength - a.colon) - 1)
                : UnsafeRawBufferPointer(start: nm, count: Int(a.nameLength))
            attrs[reported] = XMLAttribute(uri: raw[k].uri, local: local, value: attributeValueBytes(s, raw[k]))
            reported += 1
        }
        if depth >= maxDepth {
            limitError = true
            return .error(tagStart, FeedLimits.Message.maxDepth(depth + 1, maxDepth))
        }
        // Push the element.
        if depth == 0 {
            rootSeen = true
            phase = .content
        }
        pushFrame(qname, localOffset, bindingsBefore)
        depth += 1
        let local = UnsafeRawBufferPointer(rebasing: qname[localOffset...])
        if machine.isSkipping {
            machine.skipStart()
        } else {
            try machine.start(uri: uri, local: local,
                              attributes: UnsafeBufferPointer(start: attrs, count: reported))
            if machine.limitHit { return limitStop(tagStart) }
        }
        if empty {
            // A limit at an empty element's end is where the tag ends, as expat's end
            // event and libxml2 say.
            try endElement(local, at: tagStart)
            if machine.limitHit { return limitStop(tagEnd) }
        }
        return nil
    }

    /// Whether the attribute `a` of element `qname` is of type CDATA (or not declared).
    private func declaredCDATA(_ qname: UnsafePointer<UInt8>, _ qlen: Int, _ a: RawAttr) -> Bool {
        for d in defaults where d.name.count == Int(a.nameLength) && d.element.count == qlen
            && bytesEqual(d.name.baseAddress!, a.name, d.name.count)
            && d.element.withUnsafeBufferPointer({ bytesEqual($0.baseAddress!, qname, qlen) }) {
            return d.cdata
        }
        return true
    }

    /// Adds the declared defaults of attributes the tag does not specify, after the
    /// specified ones (as expat does). Returns the new attribute count.
    private func applyDefaults(_ qname: UnsafePointer<UInt8>, _ qlen: Int, _ count: Int, _ tagStart: Int) -> Int {
        var n = count
        for d in defaults where d.element.count == qlen && d.element.withUnsafeBufferPointer({ bytesEqual($0.baseAddress!, qname, qlen) }) {
            guard let value = d.value else { continue }
            var present = false
            for k in 0..<n where Int(raw[k].nameLength) == d.name.count && bytesEqual(raw[k].name, d.name.baseAddress!, d.name.count) {
                present = true
            }
            if present { continue }
            if n == rawCapacity { growRaw() }
            var colon: Int32 = -1
            if let c = memchr(d.name.baseAddress!, 0x3A, d.name.count) {
                colon = Int32(UnsafePointer<UInt8>(c.assumingMemoryBound(to: UInt8.self)) - UnsafePointer(d.name.baseAddress!))
            }
            raw[n] = RawAttr(name: UnsafePointer(d.name.baseAddress!), nameLength: Int32(d.name.count), colon: colon,
                             value: UnsafePointer(value.baseAddress!), valueLength: Int32(value.count),
                             position: Int32(tagStart), needsDecoding: false)
            n += 1
        }
        return n
    }

    @inline(__always)
    private func attributeValueBytes(_ s: UnsafePointer<UInt8>, _ a: RawAttr) -> UnsafeRawBufferPointer {
        a.decoded >= 0 ? values.bytes(a.decoded, Int(a.valueLength))
            : UnsafeRawBufferPointer(start: a.value, count: Int(a.valueLength))
    }

    /// Decodes an attribute value into `values`: references replaced, each white space
    /// character (CR LF as one) a space, collapsed when the value is not CDATA
    /// (``attributeSpace()``).
    private func attributeValue(_ s: UnsafePointer<UInt8>, _ from: Int, _ length: Int) throws -> Stop? {
        var i = from
        let end = from + length
        while i < end {
            let c = s[i]
            switch c {
            case 0x0D:
                attributeSpace()
                i += (i + 1 < end && s[i + 1] == 0x0A) ? 2 : 1
            case 0x09, 0x0A:
                attributeSpace()
                i += 1
            case 0x20 where !attributeCDATA:
                attributeSpace()
                i += 1
            case 0x26:
                switch try reference(s, i, end, final: true, inAttribute: true) {
                case .next(let j): i = j
                case .stop(let stop): return stop
                }
            default:
                values.append(c)
                i += 1
            }
        }
        return nil
    }

    /// The decoded attribute value's type is CDATA (it is unless the internal subset
    /// declared another), and where in `values` it starts.
    @exclusivity(unchecked) private var attributeCDATA = true
    @exclusivity(unchecked) private var attributeStart = 0

    /// A space from white space (or `&#32;`) in an attribute value: for a value not of
    /// type CDATA, none at the start or after another (expat's appendAttributeValue; the
    /// one at the end is taken off after).
    @inline(__always)
    private func attributeSpace() {
        if attributeCDATA || (values.count > attributeStart && values.base[values.count - 1] != 0x20) { values.append(0x20) }
    }

    /// An error position in an attribute value that stands for its start tag.
    private static let atTag = Int.min

    private func pushFrame(_ qname: UnsafeRawBufferPointer, _ localOffset: Int, _ bindingsBefore: Int) {
        if depth == framesCapacity {
            let nf = UnsafeMutablePointer<Frame>.allocate(capacity: framesCapacity * 2)
            nf.moveInitialize(from: frames, count: framesCapacity)
            frames.deallocate()
            frames = nf
            framesCapacity *= 2
        }
        frames[depth] = Frame(nameOffset: Int32(names.count), nameLength: Int32(qname.count),
                              localOffset: Int32(localOffset), bindings: Int32(bindingsBefore))
        names.append(qname)
    }

    private func endTag(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) throws -> Step {
        let nameStart = i + 2
        // Most end tags: the open element's name, all ASCII, then `>`. Its bytes were
        // checked as a name in the start tag, and ASCII names read alike whatever the
        // encoding, so the name scan below would end at the `>` and find them equal.
        if depth > 0 {
            let f = frames[depth - 1]
            let len = Int(f.nameLength)
            if nameStart &+ len < n && s[nameStart &+ len] == 0x3E
                && sameASCIIName(names.base + Int(f.nameOffset), s + nameStart, len) {
                let local = names.bytes(Int(f.nameOffset + f.localOffset), Int(f.nameLength - f.localOffset))
                try endElement(local, at: i)
                if machine.limitHit { return .stop(limitStop(i)) }
                if depth == 0 { return .stop(.rootEnd(nameStart &+ len &+ 1)) }
                return .next(nameStart &+ len &+ 1)
            }
        }
        let nameEnd = name(s, nameStart, n, colons: .any)
        if nameEnd == -1 { return needMore(i, final) }
        if nameEnd == -2 { return .stop(.error(badNameByte, "not well-formed (invalid token)")) }
        var j = nameEnd
        while j < n && isSpace(s[j]) { j += 1 }
        guard j < n else { return needMore(i, final) }
        guard s[j] == 0x3E else { return .stop(.error(j, "not well-formed (invalid token)")) }
        guard depth > 0 else { return .stop(.error(i, "syntax error")) }
        let f = frames[depth - 1]
        guard Int(f.nameLength) == nameEnd - nameStart,
              bytesEqual(names.base + Int(f.nameOffset), s + nameStart, nameEnd - nameStart) else {
            return .stop(.error(nameStart, "mismatched tag"))
        }
        let local = names.bytes(Int(f.nameOffset + f.localOffset), Int(f.nameLength - f.localOffset))
        try endElement(local, at: i)
        if machine.limitHit { return .stop(limitStop(i)) }
        if depth == 0 { return .stop(.rootEnd(j + 1)) }
        return .next(j + 1)
    }

    /// Ends the innermost element (its name is `local`, in `names`), whose end tag (or
    /// empty start tag) begins at `at` in the buffer.
    private func endElement(_ local: UnsafeRawBufferPointer, at: Int) throws {
        if machine.isSkipping {
            machine.skipEnd()
        } else {
            try machine.end(local: local, at: processed &+ at)
        }
        depth -= 1
        let f = frames[depth]
        if Int(f.bindings) < bindingsCount {
            nsBytes.removeLast(nsBytes.count - Int(bindings[Int(f.bindings)].prefixOffset))
            bindingsCount = Int(f.bindings)
            defaultNamespaceKnown = false
        }
        names.removeLast(Int(f.nameLength))
    }

    // ---- namespaces -------------------------------------------------------------------

    private func bind(_ prefix: UnsafeRawBufferPointer, _ uri: UnsafeRawBufferPointer) {
        if bindingsCount == bindingsCapacity {
            let nb = UnsafeMutablePointer<Binding>.allocate(capacity: bindingsCapacity * 2)
            nb.moveInitialize(from: bindings, count: bindingsCapacity)
            bindings.deallocate()
            bindings = nb
            bindingsCapacity *= 2
        }
        let po = nsBytes.count
        nsBytes.append(prefix)
        let uo = nsBytes.count
        nsBytes.append(uri)
        bindings[bindingsCount] = Binding(prefixOffset: Int32(po), prefixLength: Int32(prefix.count),
                                          uriOffset: Int32(uo), uriLength: Int32(uri.count))
        bindingsCount += 1
        defaultNamespaceKnown = false   // (and nsBytes may have moved)
    }

    /// True when the element being started already declared `prefix` (bindings from
    /// `first` on are its own): `xmlns:a` twice is a duplicate attribute.
    private func declaresAgain(_ prefix: UnsafeRawBufferPointer, since first: Int) -> Bool {
        for k in first..<bindingsCount {
            let b = bindings[k]
            if Int(b.prefixLength) == prefix.count
                && (prefix.count == 0 || bytesEqual(nsBytes.base + Int(b.prefixOffset), prefix.baseAddress!, prefix.count)) {
                return true
            }
        }
        return false
    }

    /// The namespace bound to `prefix` (empty prefix: the default namespace), nil if none.
    @inline(__always)
    /// The namespace `prefix` names on an element or an attribute: its binding in
    /// scope; `xml`, bound by definition (Namespaces in XML, 3: expat binds it before
    /// reading; a declaration may bind it to that namespace only), also when undeclared.
    private func namespace(ofPrefix prefix: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        lookup(prefix) ?? (prefix.equals("xml") ? xmlNamespaceBytes : nil)
    }

    private func lookup(_ prefix: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var k = bindingsCount - 1
        while k >= 0 {
            let b = bindings[k]
            if Int(b.prefixLength) == prefix.count
                && (prefix.count == 0 || bytesEqual(nsBytes.base + Int(b.prefixOffset), prefix.baseAddress!, prefix.count)) {
                return b.uriLength == 0 ? nil : nsBytes.bytes(Int(b.uriOffset), Int(b.uriLength))
            }
            k -= 1
        }
        return nil
    }

    // ---- references -----------------------------------------------------------------

    /// A reference at `i` (`&`): replaced and delivered (in text) or appended to
    /// `values` (in attribute values).
    private func reference(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool, inAttribute: Bool) throws -> Step {
        guard i + 1 < n else { return needMore(i, final) }
        if s[i + 1] == 0x23 {
            // A character reference.
            var j = i + 2
            var hex = false
            if j < n && s[j] == 0x78 { hex = true; j += 1 }
            var v: UInt32 = 0
            let digits = j
            while j < n {
                let c = s[j]
                var d: UInt32
                if c >= 0x30 && c <= 0x39 { d = UInt32(c - 0x30) }
                else if hex && c >= 0x61 && c <= 0x66 { d = UInt32(c - 0x61 + 10) }
                else if hex && c >= 0x41 && c <= 0x46 { d = UInt32(c - 0x41 + 10) }
                else { break }
                v = v > 0x10FFFF ? v : v * (hex ? 16 : 10) + d
                j += 1
            }
            guard j < n else { return needMore(i, final) }
            // expat's scanCharRef: the error is at the first byte that is not a digit (or ';').
            guard s[j] == 0x3B, j > digits else { return .stop(.error(j, "not well-formed (invalid token)")) }
            guard isXMLChar(v) else { return .stop(.error(i, "reference to invalid character number")) }
            if inAttribute {
                if v == 0x20 { attributeSpace() } else { values.appendScalar(v) }
            } else if machine.wantsText {
                text.removeAll()
                text.appendScalar(v)
                machine.text(text.bytes(0, text.count))
            }
            return .next(j + 1)
        }
        // The predefined entities, most references, without the name scan: what the
        // scan and predefinedEntity would find for these bytes.
        if let (c, end) = predefinedReference(s, i + 1, n) {
            if inAttribute {
                values.append(c)
            } else if machine.wantsText {
                machine.text(UnsafeRawBufferPointer(start: byteText + Int(c), count: 1))
            }
            return .next(end)
        }
        let ne = name(s, i + 1, n, colons: .none)
        if ne == -1 { return needMore(i, final) }
        // expat's scanRef: at the byte that cannot start a name, or the one after the name.
        if ne == -2 { return .stop(.error(badNameByte, "not well-formed (invalid token)")) }
        if s[ne] != 0x3B { return .stop(.error(ne, "not well-formed (invalid token)")) }
        // (A predefined entity's name and `;` were taken above, by predefinedReference.)
        let nm = UnsafeRawBufferPointer(start: s + i + 1, count: ne - i - 1)
        if !entities.isEmpty, let entity = entities[Array(nm)] {
            if let stop = try expand(entity, s, i, inAttribute: inAttribute) { return .stop(stop) }
            return .next(ne + 1)
        }
        // Not declared: the document may have an external DTD we never read. (In an
        // attribute value expat places the error at the start tag.)
        if standalone { return .stop(.error(inAttribute ? Self.atTag : i, "undefined entity")) }
        if !inAttribute && machine.wantsText {
            if let t = HTMLEntities.utf8(named: nm) {
                machine.text(t)
            } else {
                // Not HTML either: kept as the literal text "&name;", never dropped.
                machine.text(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(start: s + i, count: ne + 1 - i)[...]))
            }
        }
        return .next(ne + 1)
    }

    /// Counts `bytes` of replacement text expanded at `at` (in the current buffer) and
    /// says whether the expansions passed expat's amplification limit: past 8 MiB, more
    /// than 100 times the input read (XML_SetBillionLaughsAttackProtection's defaults).
    private func amplified(by bytes: Int, at: Int) -> Bool {
        expandedBytes += bytes
        return expandedBytes > 8 << 20 && expandedBytes > 100 * (processed + at + 1)
    }

    private static let amplificationMessage = "limit on input amplification factor (from DTD and entities) breached"

    /// An entity declared in the internal subset. An unparsed one may not be referred
    /// to; an external one is not read in content and not allowed in an attribute value.
    /// An error in a replacement text is placed at the reference in content, at the start
    /// tag (``atTag``) in an attribute value, as expat places them.
    private func expand(_ entity: Entity, _ s: UnsafePointer<UInt8>, _ at: Int, inAttribute: Bool) throws -> Stop? {
        let here = inAttribute && entityDepth > 0 ? Self.atTag : at
        if entity.binary { return .error(here, "reference to binary entity") }
        guard let value = entity.value else {   // external: not read
            return inAttribute ? .error(here, "reference to external entity in attribute") : nil
        }
        entityDepth += 1
        defer { entityDepth -= 1 }
        if entityDepth > 40 { return .error(inAttribute ? Self.atTag : at, "recursive entity reference") }
        if amplified(by: value.count, at: at) { return .error(here, Self.amplificationMessage) }
        return try value.withUnsafeBufferPointer { b -> Stop? in
            guard let p = b.baseAddress, b.count > 0 else { return nil }
            if inAttribute {
                if memchr(p, 0x3C, b.count) != nil { return .error(Self.atTag, "not well-formed (invalid token)") }
                // A reference the replacement text ends inside is a bad token there
                // (expat's XML_TOK_PARTIAL in appendAttributeValue).
                if case .error(_, let message)? = try attributeValue(p, 0, b.count) {
                    return .error(Self.atTag, message == "unclosed token" ? "not well-formed (invalid token)" : message)
                }
                return nil
            }
            let depthBefore = depth, phaseBefore = phase
            let stop = try scan(p, b.count, final: true)
            switch stop {
            case .more(let q) where q == b.count:
                if depth != depthBefore || phase != phaseBefore { return .error(at, "asynchronous entity") }
                return nil
            case .error(_, let message):
                return .error(at, message)
            default:
                return .error(at, "asynchronous entity")
            }
        }
    }

    // ---- comments, processing instructions, CDATA, DOCTYPE ----------------------------

    /// `<!` in content: a comment or a CDATA section (expat's contentTok: anything else
    /// is not well-formed at the byte after `<!`; `CDATA[` is checked byte by byte).
    private func declarationOrComment(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) throws -> Step {
        guard i + 2 < n else { return needMore(i, final) }
        switch s[i + 2] {
        case 0x2D:
            return construct(scanComment(s, i + 3, n), at: i, final: final)
        case 0x5B:
            let keyword: StaticString = "CDATA["
            for k in 0..<6 {
                guard i + 3 + k < n else { return needMore(i, final) }
                if s[i + 3 + k] != keyword.utf8Start[k] { return .stop(.error(i + 3 + k, "not well-formed (invalid token)")) }
            }
            phase = .cdata
            cdataStart = processed + i
            return .next(i + 9)
        default:
            return .stop(.error(i + 2, "not well-formed (invalid token)"))
        }
    }

    /// A comment or processing instruction from `i`, scanned as expat scans it (an
    /// invalid character is the error as soon as it is read, the end or not; a PI named
    /// `xml` is misplaced once it is whole).
    private func construct(_ t: PrologScan, at i: Int, final: Bool) -> Step {
        switch t.token {
        case .invalid: return .stop(.error(t.next, "not well-formed (invalid token)"))
        case .partial: return needMore(i, final)
        case .partialChar: return .stop(final ? .error(i, "partial character") : .more(i))
        case .xmlDeclaration: return .stop(.error(i, "XML or text declaration not at start of entity"))
        default: return .next(t.next)
        }
    }

    private func processingInstruction(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) -> Step {
        construct(scanProcessingInstruction(s, i + 2, n, nameCharacters), at: i, final: final)
    }

    /// The prolog from `from` (before the root; the epilog is never read), token by
    /// token in expat's grammar of it, up to the root's start tag, which is read here
    /// too. A DOCTYPE is read whole: when it does not end in the bytes given, it is
    /// read again from its start with more (its identifiers and declarations are
    /// delivered once it ends; an error in the part read is reported at once, as expat
    /// reports it).
    private func prolog(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, final: Bool) throws -> Step {
        var i = from
        var doctypeStart = -1
        var beforeDoctype = grammar
        var publicID: (Int, Int)?, systemID: (Int, Int)?
        var declarationStart = 0
        // expat's keepProcessing: after a reference to a parameter entity not declared, a
        // document not standalone has its later declarations ignored.
        var keepProcessing = true
        var keepDeclaration = true
        /// More bytes are needed from `at`: from the DOCTYPE's start when inside one.
        func more(_ at: Int) -> Step {
            if doctypeStart >= 0 {
                grammar = beforeDoctype
                return .stop(.more(doctypeStart))
            }
            return .stop(.more(at))
        }
        while true {
            var t = prologToken(s, i, n, nameCharacters)
            if t.open && !final { return more(i) }
            switch t.token {
            case .none:
                // At the end of the input, "no element found" (a DOCTYPE not ended
                // included, as expat says), at the end.
                return final ? .stop(.more(n)) : more(n)
            case .partial, .partialChar:
                if !final { return more(i) }
                return .stop(.error(i, t.token == .partial ? "unclosed token" : "partial character"))
            case .invalid:
                return .stop(.error(t.next, "not well-formed (invalid token)"))
            case .xmlDeclaration where grammar.state == .prolog0:
                // `<?xml?>` at the start (the start takes a declaration with white
                // space): a declaration without a version.
                return .stop(.error(parseDeclaration(s, i + 5, t.next - 2).bad, "XML declaration not well-formed"))
            default:
                break
            }
            t.open = false
            let before = grammar
            switch grammar.role(t.token, s, i, t.next) {
            case .error:
                return .stop(.error(i, PrologGrammar.errorMessage(for: t.token)))
            case .rootStart:
                return try startTag(s, i, n, final: final)
            case .doctypeOpen:
                doctypeStart = i
                beforeDoctype = before
            case .doctypePublicID, .publicID:
                if let bad = badPublicIDByte(s, i + 1, t.next - 1) {
                    return .stop(.error(bad, "illegal character(s) in public id"))
                }
                if grammar.state == .doctype3 {
                    publicID = (i + 1, t.next - 1 - (i + 1))
                    refersToParameterEntities = true
                }
            case .doctypeSystemID:
                systemID = (i + 1, t.next - 1 - (i + 1))
                refersToParameterEntities = true
            case .declarationOpen:
                declarationStart = i
                keepDeclaration = keepProcessing
            case .declarationEnd:
                // Declared at once (a parameter entity may be referred to next); read
                // again with the DOCTYPE, a declaration changes nothing (the first wins).
                if keepDeclaration { declareEntities(s + declarationStart, t.next - declarationStart) }
            case .entityValue:
                if keepProcessing, let e = entityValueError(s, i + 1, t.next - 1, nameCharacters) { return .stop(.error(e.at, e.message)) }
            case .attributeDefault:
                if keepProcessing, case .failure(let e) = attributeDefault(s, i + 1, t.next - 1, cdata: true) {
                    return .stop(.error(e.at, e.message))
                }
            case .doctypeClose:
                machine.doctype(publicID: publicID.map { UnsafeRawBufferPointer(start: s + $0.0, count: $0.1) },
                                systemID: systemID.map { UnsafeRawBufferPointer(start: s + $0.0, count: $0.1) })
                doctypeStart = -1
            default:
                guard t.token == .parameterEntityReference else { break }
                refersToParameterEntities = true
                // As expat reads one (parameter entities parsed unless standalone, an
                // external one read as empty): an internal one is read as declarations,
                // an error in it reported at the reference; one never declared stops the
                // declarations after it.
                if standalone { break }
                var open: [[UInt8]] = []
                if let message = parameterEntity(s, i, t.next, open: &open, keep: &keepProcessing) {
                    return .stop(.error(i, message))
                }
            }
            i = t.next
        }
    }

    /// Inside a CDATA section: text up to "]]>".
    private func cdata(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, final: Bool) -> Step {
        var i = from
        var run = from
        while true {
            let found = skipTextBytes16(s, &i, n, 0x5D, 0x5D, 0x5D, utf8StepTable)
            while !found && i &+ 8 <= n {
                let m = cdataMask(UnsafeRawPointer(s + i).loadUnaligned(as: UInt64.self))
                if m != 0 { i &+= m.trailingZeroBitCount &>> 3; break }
                i &+= 8
            }
            while i < n && cdataTable[Int(s[i])] == 0 { i &+= 1 }
            if i >= n { break }
            let c = s[i]
            if c == 0x5D {
                if i + 2 >= n {
                    if final { return .stop(.error(i, "unclosed CDATA section")) }
                    deliver(s + run, i - run)
                    return .stop(.more(i))
                }
                if s[i + 1] == 0x5D && s[i + 2] == 0x3E {
                    deliver(s + run, i - run)
                    phase = .content
                    return .next(i + 3)
                }
                i &+= 1
            } else if c == 0x0D {
                deliver(s + run, i - run)
                if i + 1 >= n {
                    if final { return .stop(.error(i, "unclosed CDATA section")) }
                    return .stop(.more(i))
                }
                if s[i + 1] != 0x0A { deliver(lineFeed, 1) }
                i &+= 1
                run = i
            } else if c >= 0x80 {
                let len = utf8Length(s, i, n)
                if len > 0 { i &+= len; continue }
                if len == 0 && !final {
                    deliver(s + run, i - run)
                    return .stop(.more(i))
                }
                return .stop(.error(i, len == 0 ? "partial character" : "not well-formed (invalid token)"))
            } else if c == 0x09 || c == 0x0A {
                i &+= 1
            } else {
                return .stop(.error(i, "not well-formed (invalid token)"))
            }
        }
        deliver(s + run, n - run)
        if final { return .stop(.error(n, "unclosed CDATA section")) }
        return .stop(.more(n))
    }

    /// The parameter entity referred to by `s[from..<to]` (`%name;`), between
    /// declarations: an internal one's text read token by token in the prolog's grammar
    /// (its declarations declared when `keep`), an external one as empty, one never
    /// declared stops the declarations after it (`keep` false). Returns the error in
    /// it, if any (expat reports it at the reference).
    private func parameterEntity(_ s: UnsafePointer<UInt8>, _ from: Int, _ to: Int, open: inout [[UInt8]],
                                 keep: inout Bool) -> String? {
        let key = Array(UnsafeRawBufferPointer(start: s + from + 1, count: to - from - 2))
        guard let entity = parameterEntities[key] else {
            keep = false
            return nil
        }
        guard let text = entity, !text.isEmpty else { return nil }
        if open.contains(key) { return "recursive entity reference" }
        open.append(key)
        defer { open.removeLast() }
        return text.withUnsafeBufferPointer { buffer -> String? in
            let p = buffer.baseAddress!, n = buffer.count
            var i = 0, declarationStart = 0, keepDeclaration = keep
            while true {
                let t = prologToken(p, i, n, NameCharacters())
                switch t.token {
                case .none: return grammar.state == .internalSubset ? nil : "incomplete markup in parameter entity"
                case .partial, .partialChar, .invalid: return "not well-formed (invalid token)"
                default: break
                }
                switch grammar.role(t.token, p, i, t.next) {
                case .error, .rootStart:
                    return PrologGrammar.errorMessage(for: t.token)
                case .declarationOpen:
                    declarationStart = i
                    keepDeclaration = keep
                case .declarationEnd:
                    if keepDeclaration { declareEntities(p + declarationStart, t.next - declarationStart) }
                case .entityValue:
                    if keep, let e = entityValueError(p, i + 1, t.next - 1, NameCharacters()) { return e.message }
                case .attributeDefault:
                    if keep, case .failure(let e) = attributeDefault(p, i + 1, t.next - 1, cdata: true) { return e.message }
                case .publicID:
                    if badPublicIDByte(p, i + 1, t.next - 1) != nil { return "illegal character(s) in public id" }
                default:
                    if t.token == .parameterEntityReference,
                       let message = parameterEntity(p, i, t.next, open: &open, keep: &keep) { return message }
                }
                i = t.next
            }
        }
    }

    /// `<!ENTITY name "value">` and `<!ENTITY name SYSTEM "uri">` of the internal subset.
    /// Character references in a value are replaced when it is declared (as XML says);
    /// the first declaration of a name wins.
    private func declareEntities(_ s: UnsafePointer<UInt8>, _ n: Int) {
        var i = 0
        while i + 8 < n {
            guard let p = memchr(s + i, 0x3C, n - i) else { return }
            i = UnsafePointer<UInt8>(p.assumingMemoryBound(to: UInt8.self)) - s
            if i + 9 < n && matches(s + i, "<!ATTLIST") && isSpace(s[i + 9]) {
                i = declareAttributes(s, i + 9, n)
                continue
            }
            guard i + 8 < n, matches(s + i, "<!ENTITY"), isSpace(s[i + 8]) else { i += 1; continue }
            var j = i + 8
            while j < n && isSpace(s[j]) { j += 1 }
            // A parameter entity: its replacement text kept (nil: external, never read).
            let parameter = j < n && s[j] == 0x25
            if parameter {
                j += 1
                while j < n && isSpace(s[j]) { j += 1 }
            }
            let ne = name(s, j, n)
            guard ne > j else { i = j; continue }
            let key = Array(UnsafeRawBufferPointer(start: s + j, count: ne - j))
            j = ne
            while j < n && isSpace(s[j]) { j += 1 }
            guard j < n else { return }
            var entity = Entity(value: nil, external: true)
            if s[j] == 0x22 || s[j] == 0x27 {
                let q = s[j]
                let vs = j + 1
                guard let e = memchr(s + vs, Int32(q), n - vs) else { return }
                let ve = UnsafePointer<UInt8>(e.assumingMemoryBound(to: UInt8.self)) - s
                entity = Entity(value: replaceCharacterReferences(s + vs, ve - vs), external: false)
                j = ve + 1
            } else {
                // SYSTEM "uri" or PUBLIC "id" "uri", then `NDATA name` for an unparsed
                // entity (the grammar checked the form).
                var literals = matches(s + j, "PUBLIC") ? 2 : 1
                while literals > 0 && j < n {
                    if s[j] == 0x22 || s[j] == 0x27 {
                        guard let e = memchr(s + j + 1, Int32(s[j]), n - j - 1) else { return }
                        j = UnsafePointer<UInt8>(e.assumingMemoryBound(to: UInt8.self)) - s
                        literals -= 1
                    }
                    j += 1
                }
                while j < n && isSpace(s[j]) { j += 1 }
                entity.binary = j + 5 < n && matches(s + j, "NDATA") && isSpace(s[j + 5])
            }
            if parameter {
                if parameterEntities[key] == nil { parameterEntities[key] = .some(entity.value) }
            } else if entities[key] == nil {
                entities[key] = entity
            }
            i = j
        }
    }

    /// `<!ATTLIST element (name type default)*>`: keeps each attribute's declaration —
    /// whether its type is CDATA (a value of another type is normalized: spaces
    /// collapsed and trimmed) and its default (also `#FIXED`), read as
    /// ``attributeDefault(_:_:_:cdata:account:)`` says. The first declaration of an
    /// attribute wins (as in expat, one without a default too). Returns where the
    /// declaration ends.
    private func declareAttributes(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> Int {
        var j = from
        func ws() { while j < n && isSpace(s[j]) { j += 1 } }
        ws()
        let ee = name(s, j, n)
        guard ee > j else { return j }
        let element = Array(UnsafeBufferPointer(start: s + j, count: ee - j))
        j = ee
        while true {
            ws()
            guard j < n, s[j] != 0x3E else { return j }
            let ae = name(s, j, n)
            guard ae > j else { return j }
            let attribute = UnsafeBufferPointer(start: s + j, count: ae - j)
            j = ae
            ws()
            // The type: a name (NOTATION is followed by a group), or an enumeration.
            var cdata = false
            if j < n && s[j] != 0x28 {
                let te = name(s, j, n)
                guard te > j else { return j }
                cdata = te - j == 5 && matches(s + j, "CDATA")
                j = te
                ws()
            }
            if j < n && s[j] == 0x28 {
                guard let close = memchr(s + j, 0x29, n - j) else { return n }
                j = UnsafePointer<UInt8>(close.assumingMemoryBound(to: UInt8.self)) - s + 1
                ws()
            }
            guard j < n else { return j }
            var value: [UInt8]?
            var hasDefault = true
            if s[j] == 0x23 {   // #REQUIRED, #IMPLIED, #FIXED "v"
                let ke = name(s, j + 1, n)
                guard ke > j + 1 else { return j }
                hasDefault = ke - j - 1 == 5 && matches(s + j + 1, "FIXED")
                j = ke
                if hasDefault { ws() }
            }
            if hasDefault {
                guard j < n, s[j] == 0x22 || s[j] == 0x27 else { return j }
                guard let e = memchr(s + j + 1, Int32(s[j]), n - j - 1) else { return n }
                let ve = UnsafePointer<UInt8>(e.assumingMemoryBound(to: UInt8.self)) - s
                // Its errors stopped the document when the literal was read.
                guard case .success(let v) = attributeDefault(s, j + 1, ve, cdata: cdata, account: false) else { return n }
                value = v
                j = ve + 1
            }
            let known = defaults.contains { d in
                d.element == element && d.name.count == attribute.count && bytesEqual(d.name.baseAddress!, attribute.baseAddress!, attribute.count)
            }
            if known { continue }
            let nameCopy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(attribute.count, 1))
            _ = nameCopy.initialize(from: attribute)
            var valueCopy: UnsafeMutableBufferPointer<UInt8>?
            if let value {
                let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(value.count, 1))
                _ = copy.initialize(from: value)
                valueCopy = UnsafeMutableBufferPointer(rebasing: copy[0..<value.count])
            }
            if !cdata { tokenizedDeclared = true }
            defaults.append(AttributeDefault(element: element,
                                             name: UnsafeMutableBufferPointer(rebasing: nameCopy[0..<attribute.count]),
                                             value: valueCopy, cdata: cdata))
        }
    }

    private func replaceCharacterReferences(_ s: UnsafePointer<UInt8>, _ n: Int, predefined: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(n)
        var i = 0
        while i < n {
            if s[i] == 0x26 && i + 2 < n && s[i + 1] == 0x23 {
                var j = i + 2
                var hex = false
                if s[j] == 0x78 { hex = true; j += 1 }
                var v: UInt32 = 0
                let d0 = j
                while j < n, let d = hexValue(s[j], hex) { v = v > 0x10FFFF ? v : v * (hex ? 16 : 10) + d; j += 1 }
                if j < n && s[j] == 0x3B && j > d0 && isXMLChar(v) {
                    appendUTF8(v, to: &out)
                    i = j + 1
                    continue
                }
            }
            if predefined && s[i] == 0x26, let semi = memchr(s + i, 0x3B, min(n - i, 6)) {
                let e = UnsafePointer<UInt8>(semi.assumingMemoryBound(to: UInt8.self)) - s
                if let c = predefinedEntity(UnsafeRawBufferPointer(start: s + i + 1, count: e - i - 1)) {
                    out.append(c)
                    i = e + 1
                    continue
                }
            }
            out.append(s[i])
            i += 1
        }
        return out
    }
}

// ---- byte classes and small helpers ----------------------------------------------------

/// Bytes that stop a run of character data: `<`, `&`, `]`, control characters (tab
/// and LF included, to keep the test cheap) and every byte of a multi-byte character.
@inline(__always)
private func attentionMask(_ x: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let lt = x ^ (ones &* 0x3C), amp = x ^ (ones &* 0x26), rb = x ^ (ones &* 0x5D)
    let zeroLT = (lt &- ones) & ~lt
    let zeroAmp = (amp &- ones) & ~amp
    let zeroRB = (rb &- ones) & ~rb
    let control = (x &- (ones &* 0x20)) & ~x
    return ((zeroLT | zeroAmp | zeroRB | control) & high) | (x & high)
}

/// Bytes that need attention inside CDATA: `]`, control characters, non-ASCII.
@inline(__always)
private func cdataMask(_ x: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let rb = x ^ (ones &* 0x5D)
    return ((((rb &- ones) & ~rb) | ((x &- (ones &* 0x20)) & ~x)) & high) | (x & high)
}

private nonisolated(unsafe) let cdataClass: UnsafePointer<UInt8> = table { c in c < 0x20 || c >= 0x80 || c == 0x5D }

/// The tokenizer's UTF-8 automaton (``UTF8Steps/Rules/xml``), made once.
private nonisolated(unsafe) let xmlUTF8Steps = UTF8Steps.table(.xml)

/// Every byte value at its own offset: one character's text without a buffer of its own.
private nonisolated(unsafe) let everyByte: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for b in 0..<256 { p[b] = UInt8(b) }
    return UnsafePointer(p)
}()

private nonisolated(unsafe) let newline: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    p.pointee = 0x0A
    return UnsafePointer(p)
}()

private let xmlNamespace: StaticString = "http://www.w3.org/XML/1998/namespace"
private nonisolated(unsafe) let xmlNamespaceBytes = UnsafeRawBufferPointer(
    start: xmlNamespace.utf8Start, count: xmlNamespace.utf8CodeUnitCount)

/// 1 for bytes that stop character data (see attentionMask).
private nonisolated(unsafe) let textClass: UnsafePointer<UInt8> = table { c in
    c < 0x20 || c >= 0x80 || c == 0x3C || c == 0x26 || c == 0x5D
}

/// ASCII name characters (non-ASCII bytes are checked as UTF-8 and allowed).
private nonisolated(unsafe) let nameClass: UnsafePointer<UInt8> = table { c in
    isASCIILetter(c) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E || c == 0x5F || c >= 0x80
}

private nonisolated(unsafe) let nameStartClass: UnsafePointer<UInt8> = table { c in
    isASCIILetter(c) || c == 0x5F || c >= 0x80
}

private func table(_ f: (UInt8) -> Bool) -> UnsafePointer<UInt8> {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for c in 0..<256 { p[c] = f(UInt8(c)) ? 1 : 0 }
    return UnsafePointer(p)
}

@inline(__always)
private func isASCIILetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

@inline(__always)
private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }

@inline(__always)
/// `p` begins with `s` (with its first `prefix` bytes, when fewer).
private func matches(_ p: UnsafePointer<UInt8>, _ s: StaticString, prefix: Int = .max) -> Bool {
    bytesEqual(p, s.utf8Start, min(prefix, s.utf8CodeUnitCount))
}

/// "utf-8", the name the alias table gives UTF-8 (``XMLTranscoder/alias(_:)``).
private let utf8Name = Array("utf-8".utf8)

/// True when `name` is "UTF-8" in any case: the alias table's own name for it, so that
/// the declaration most documents carry needs no lookup key built.
@inline(__always)
private func isUTF8Name(_ name: UnsafeRawBufferPointer) -> Bool {
    name.count == 5 && name[0] | 0x20 == 0x75 && name[1] | 0x20 == 0x74 && name[2] | 0x20 == 0x66
        && name[3] == 0x2D && name[4] == 0x38
}

private func asciiLowercased<C: Collection>(_ b: C) -> [UInt8] where C.Element == UInt8 {
    b.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
}

@inline(__always)
private func hexValue(_ c: UInt8, _ hex: Bool) -> UInt32? {
    if c >= 0x30 && c <= 0x39 { return UInt32(c - 0x30) }
    if hex && c >= 0x61 && c <= 0x66 { return UInt32(c - 0x61 + 10) }
    if hex && c >= 0x41 && c <= 0x46 { return UInt32(c - 0x41 + 10) }
    return nil
}

/// The first `a b` pair at or after `from`, or nil.
@inline(__always)
private func find2(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ a: UInt8, _ b: UInt8) -> Int? {
    var i = from
    while i + 1 < n {
        guard let p = memchr(s + i, Int32(a), n - 1 - i) else { return nil }
        let k = UnsafePointer<UInt8>(p.assumingMemoryBound(to: UInt8.self)) - s
        if s[k + 1] == b { return k }
        i = k + 1
    }
    return nil
}

/// Characters XML allows.
@inline(__always)
private func isXMLChar(_ v: UInt32) -> Bool {
    switch v {
    case 0x09, 0x0A, 0x0D: true
    case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
    default: false
    }
}

/// A predefined entity's name and its `;` at `s[j...]` (before `n`): the character
/// (``predefinedEntity(_:)``) and the index after the `;`.
@inline(__always)
private func predefinedReference(_ s: UnsafePointer<UInt8>, _ j: Int, _ n: Int) -> (UInt8, Int)? {
    // Its `;` comes within the longest name's length (4) and one.
    let last = min(n, j &+ 5)
    var e = j
    while e < last && s[e] != 0x3B { e &+= 1 }
    guard e < last, let c = predefinedEntity(UnsafeRawBufferPointer(start: s + j, count: e &- j)) else { return nil }
    return (c, e &+ 1)
}

/// ``predefinedReference(_:_:_:)`` for the reference whose `&` is at `i`, read from one
/// 8-byte load (nil when fewer than 8 bytes are left: the general path takes it): the
/// character and the reference's length.
@inline(__always)
private func predefinedReference8(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> (UInt8, Int)? {
    #if _endian(little)
    guard i &+ 8 <= n else { return nil }
    return predefinedCharacter(UnsafeRawPointer(s + i).loadUnaligned(as: UInt64.self))
    #else
    return nil
    #endif
}

/// The XML predefined entities (the one table of them): the reference at the start of
/// `w`, its bytes `&name;` read as a little-endian word, and the character it stands
/// for; the character and the reference's length, nil when `w` starts with none.
@inline(__always)
private func predefinedCharacter(_ w: UInt64) -> (UInt8, Int)? {
    switch w & 0xFFFF_FFFF {
    case 0x3B74_6C26: return (0x3C, 4)   // &lt;
    case 0x3B74_6726: return (0x3E, 4)   // &gt;
    default: break
    }
    if w & 0xFF_FFFF_FFFF == 0x3B_706D_6126 { return (0x26, 5) }   // &amp;
    switch w & 0xFFFF_FFFF_FFFF {
    case 0x3B74_6F75_7126: return (0x22, 6)   // &quot;
    case 0x3B73_6F70_6126: return (0x27, 6)   // &apos;
    default: return nil
    }
}

/// The character the predefined entity `name` stands for (``predefinedCharacter(_:)``
/// asked about the reference `&name;`), nil when `name` is none.
@inline(__always)
private func predefinedEntity(_ name: UnsafeRawBufferPointer) -> UInt8? {
    let n = name.count
    guard n >= 2 && n <= 4 else { return nil }
    var w: UInt64 = 0x26
    for k in 0..<n { w |= UInt64(name[k]) &<< UInt64(8 &* (k &+ 1)) }
    w |= 0x3B &<< UInt64(8 &* (n &+ 1))
    guard let (c, length) = predefinedCharacter(w), length == n &+ 2 else { return nil }
    return c
}

/// The length of the valid UTF-8 sequence starting at `i` (a byte ≥ 0x80), 0 when the
/// input ends inside it, -1 when it is not valid or not an XML character (surrogates,
/// U+FFFE, U+FFFF).
@inline(__always)
func utf8Length(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
    let c = s[i]
    if c < 0xC2 { return -1 }
    if c < 0xE0 {
        guard i + 1 < n else { return 0 }
        return s[i + 1] & 0xC0 == 0x80 ? 2 : -1
    }
    if c < 0xF0 {
        guard i + 1 < n else { return 0 }
        let c1 = s[i + 1]
        if c1 & 0xC0 != 0x80 { return -1 }
        if c == 0xE0 && c1 < 0xA0 { return -1 }
        if c == 0xED && c1 >= 0xA0 { return -1 }
        guard i + 2 < n else { return 0 }
        let c2 = s[i + 2]
        if c2 & 0xC0 != 0x80 { return -1 }
        if c == 0xEF && c1 == 0xBF && c2 >= 0xBE { return -1 }
        return 3
    }
    if c < 0xF5 {
        guard i + 1 < n else { return 0 }
        let c1 = s[i + 1]
        if c1 & 0xC0 != 0x80 { return -1 }
        if c == 0xF0 && c1 < 0x90 { return -1 }
        if c == 0xF4 && c1 >= 0x90 { return -1 }
        guard i + 2 < n else { return 0 }
        if s[i + 2] & 0xC0 != 0x80 { return -1 }
        guard i + 3 < n else { return 0 }
        return s[i + 3] & 0xC0 == 0x80 ? 4 : -1
    }
    return -1
}

/// `a[0..<n]` and `b[0..<n]` are equal and all ASCII: 8 bytes at a time and the last 8
/// (overlapping), two overlapping loads of 4 under 8, three bytes under 4 (no loop by
/// the byte: its exit, at every name's own length, was mispredicted).
@inline(__always)
private func sameASCIIName(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
    var diff: UInt64 = 0, high: UInt64 = 0
    if n >= 8 {
        var k = 0
        while k &+ 8 < n {
            let x = (a + k).loadUnaligned(as: UInt64.self)
            diff |= x ^ (b + k).loadUnaligned(as: UInt64.self)
            high |= x
            k &+= 8
        }
        let x = (a + (n &- 8)).loadUnaligned(as: UInt64.self)
        diff |= x ^ (b + (n &- 8)).loadUnaligned(as: UInt64.self)
        high |= x
    } else if n >= 4 {
        let x = UInt64(a.loadUnaligned(as: UInt32.self)) | UInt64((a + (n &- 4)).loadUnaligned(as: UInt32.self)) &<< 32
        let y = UInt64(b.loadUnaligned(as: UInt32.self)) | UInt64((b + (n &- 4)).loadUnaligned(as: UInt32.self)) &<< 32
        diff = x ^ y
        high = x
    } else if n > 0 {
        let p = a.assumingMemoryBound(to: UInt8.self), q = b.assumingMemoryBound(to: UInt8.self)
        let x = UInt64(p[0]) | UInt64(p[n &>> 1]) &<< 8 | UInt64(p[n &- 1]) &<< 16
        let y = UInt64(q[0]) | UInt64(q[n &>> 1]) &<< 8 | UInt64(q[n &- 1]) &<< 16
        diff = x ^ y
        high = x
    }
    return diff == 0 && high & 0x8080_8080_8080_8080 == 0
}

/// How many of the bytes of `w` (little-endian: byte 0 first) are lower-case ASCII
/// letters before the first that is not one (8 when all are).
@inline(__always)
private func lowercaseLetters(_ w: UInt64) -> Int {
    let highs: UInt64 = 0x8080_8080_8080_8080
    let x = w & ~highs                                  // no carry between bytes below
    let atLeastA = x &+ 0x1F1F_1F1F_1F1F_1F1F           // high bit: x >= 0x61
    let pastZ = x &+ 0x0505_0505_0505_0505              // high bit: x >= 0x7B
    let other = ~(atLeastA & ~pastZ & ~w) & highs       // high bit: not in a...z
    return other == 0 ? 8 : other.trailingZeroBitCount &>> 3
}
