// SPDX-License-Identifier: Apache-2.0
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
//
// The class holds the state; its work is in one file per construct: +Chunks (input in
// chunks, decoded documents), +Scan (character data), +Declaration (byte order marks,
// the XML declaration), +Tags (tags and attributes), +Namespaces, +References, +Prolog
// (comments, PIs, CDATA, the document type declaration) and +Bytes (byte classes).

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
    let machine: SwiftFeedMachine
    let maxDepth: Int
    let maxAttributes: Int
    let maxMarkupBytes: Int
    /// Document offset of the CDATA section being read (phase .cdata), and its line and
    /// the offset of that line's first byte: a section over maxMarkupBytes fails there.
    @exclusivity(unchecked) var cdataStart = 0
    @exclusivity(unchecked) var cdataLine = 1
    @exclusivity(unchecked) var cdataLineStart = 0
    /// The error being reported is a limit's (set with the Stop that reports it).
    @exclusivity(unchecked) var limitError = false
    // The byte tables, held here so hot loops do not go through lazy globals.
    let textTable = textClass
    let cdataTable = cdataClass
    /// The UTF-8 automaton that text and CDATA are read through (``skipTextBytes16``).
    let utf8StepTable = xmlUTF8Steps
    let nameTable = nameClass
    let nameStartTable = nameStartClass
    /// ``UnsafeRawBufferPointer/emptyBytes``, read per element and attribute without the
    /// global's lazy-initialization check.
    let emptyBytes = UnsafeRawBufferPointer.emptyBytes
    /// Where the last name scanned with qualified colons had its colon (-1: none).
    @exclusivity(unchecked) var nameColon = -1
    let lineFeed = newline
    let byteText = everyByte

    // ---- document state ----
    enum Phase { case start, declInUTF16, prolog, content, cdata }
    @exclusivity(unchecked) var phase = Phase.start
    @exclusivity(unchecked) var depth = 0
    @exclusivity(unchecked) var rootSeen = false
    /// Where the prolog stands in expat's grammar of it (XMLPrologTokens.swift).
    @exclusivity(unchecked) var grammar = PrologGrammar()
    /// Where the last name that was none went wrong (``name(_:_:_:colons:)``).
    @exclusivity(unchecked) var badNameByte = 0
    @exclusivity(unchecked) var standalone = false

    // ---- positions (in the UTF-8 the tokenizer sees) ----
    @exclusivity(unchecked) var processed = 0      // bytes of the document processed before the current buffer
    @exclusivity(unchecked) var given = 0          // bytes of the document given to parse (its markup checkpoints)
    @exclusivity(unchecked) var line = 1
    @exclusivity(unchecked) var lineStart = 0      // document offset of the current line's first byte
    /// Columns to add on line 1 for a byte order mark (see `error`).
    @exclusivity(unchecked) var markColumns = 0

    // ---- buffers ----
    @exclusivity(unchecked) var carry = ScratchBytes(capacity: 1 << 16)
    @exclusivity(unchecked) var names = ScratchBytes(capacity: 4096)        // qualified names of open elements
    @exclusivity(unchecked) var frames: UnsafeMutablePointer<Frame>
    @exclusivity(unchecked) var framesCapacity = 64
    @exclusivity(unchecked) var nsBytes = ScratchBytes(capacity: 1024)      // prefixes and URIs of bindings
    @exclusivity(unchecked) var bindings: UnsafeMutablePointer<Binding>
    @exclusivity(unchecked) var bindingsCount = 0
    /// The default namespace in scope (``lookup(_:)`` of the empty prefix), once looked
    /// up since the bindings last changed (most elements have no prefix; the bindings
    /// change at a few elements only).
    @exclusivity(unchecked) var defaultNamespace: UnsafeRawBufferPointer? = nil
    @exclusivity(unchecked) var defaultNamespaceKnown = false
    @exclusivity(unchecked) var bindingsCapacity = 32
    @exclusivity(unchecked) var raw: UnsafeMutablePointer<RawAttr>
    @exclusivity(unchecked) var rawCapacity = 64
    @exclusivity(unchecked) var values = ScratchBytes(capacity: 4096)       // decoded attribute values
    @exclusivity(unchecked) var attrs: UnsafeMutablePointer<XMLAttribute>
    @exclusivity(unchecked) var text = ScratchBytes(capacity: 64)           // a reference's replacement

    // ---- encodings ----
    @exclusivity(unchecked) var transcoder: XMLTranscoder?
    /// A transcoded document: where it switched from its first bytes (read as they are,
    /// so input and UTF-8 offsets agree up to there) to its charset, and the transcoder
    /// as it was then (``inputOffset(ofUTF8:in:)``).
    var switched: (offset: Int, transcoder: XMLTranscoder)?
    @exclusivity(unchecked) var rawPending = ScratchBytes(capacity: 1 << 14)
    let decoded = TranscodeBuffer()

    // ---- entities declared in the internal DTD subset ----
    /// A general entity: its replacement text (character references replaced), or nil
    /// for an external one; `binary` for an unparsed one (`NDATA`), which no reference
    /// may name.
    struct Entity { var value: [UInt8]?; var external: Bool; var binary = false }
    @exclusivity(unchecked) var entities: [[UInt8]: Entity] = [:]
    /// Parameter entities: the replacement text, nil for an external one (never read).
    @exclusivity(unchecked) var parameterEntities: [[UInt8]: [UInt8]?] = [:]
    @exclusivity(unchecked) var entityDepth = 0
    /// The document referred to parameter entities so far (a DOCTYPE with an external
    /// identifier, or a `%name;` between declarations): expat's `hasParamEntityRefs`.
    /// An undeclared entity in an attribute-list default is an error until then (or
    /// always, standalone), since no external declaration could have declared it.
    @exclusivity(unchecked) var refersToParameterEntities = false
    @exclusivity(unchecked) var expandedBytes = 0

    struct Frame {
        var nameOffset: Int32
        var nameLength: Int32
        var localOffset: Int32    // from nameOffset
        var bindings: Int32       // bindingsCount before the element's declarations
    }

    struct Binding {
        var prefixOffset: Int32, prefixLength: Int32
        var uriOffset: Int32, uriLength: Int32
    }

    struct RawAttr {
        var name: UnsafePointer<UInt8>, nameLength: Int32, colon: Int32   // colon: index in name, or -1
        var value: UnsafePointer<UInt8>, valueLength: Int32
        var position: Int32                                  // in the buffer, for errors
        var needsDecoding: Bool
        var uri: UnsafeRawBufferPointer = .emptyBytes
        var decoded = -1                                     // offset in `values`
    }

    /// Up to this many attributes, duplicates are found by comparing pairs.
    static let pairwiseAttributes = 16

    /// Duplicate attributes of one start tag in linear time: open-addressing tables of
    /// attribute indices, one by name as written, one by namespace and local name (for
    /// prefixed names). Attributes are checked in order and each against those before
    /// it, as the pairwise loop does, so the same one is reported. Namespace declarations
    /// never reach it (the caller skips them; no other attribute has their names). Kept
    /// by the tokenizer between tags (``reset(capacity:)`` before each that needs them),
    /// so a start tag with few attributes holds and destroys nothing.
    struct DuplicateTables {
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

    @exclusivity(unchecked) var duplicateTables = DuplicateTables()

    /// An attribute declared in the internal subset (`<!ATTLIST`): its default value,
    /// if it has one, and whether its type is CDATA.
    struct AttributeDefault {
        var element: [UInt8]
        var name: UnsafeMutableBufferPointer<UInt8>
        var value: UnsafeMutableBufferPointer<UInt8>?
        var cdata: Bool
    }
    @exclusivity(unchecked) var defaults: [AttributeDefault] = []
    /// An attribute of a type other than CDATA was declared: values given in start tags
    /// are looked up and normalized.
    @exclusivity(unchecked) var tokenizedDeclared = false

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

    func parsePiece(_ data: UnsafeRawBufferPointer, final: Bool, checkpoint: Bool) throws -> XMLTokOutcome {
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

    // ---- the attribute value being read (XMLTokenizer+Tags.swift) ----
    @exclusivity(unchecked) var attributeCDATA = true
    @exclusivity(unchecked) var attributeStart = 0
}
