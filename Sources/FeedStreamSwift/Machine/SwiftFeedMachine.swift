// SPDX-License-Identifier: Apache-2.0
// The pure-Swift backend's feed state machine: tokenizer events in (start element with
// namespace URI, local name and attributes; character data; end element), finished
// items out through the handler, once per item, as spans into a per-item arena.
//
// A faithful port of the C core's machine.c (with arena.c's limits): the output must be
// byte-identical to it for every input. What each element means is data (SwiftRules):
// (namespace family, local name, scope) -> an action on a field or list of the record in
// scope. Only the text of fields that are kept is gathered; every other subtree is
// skipped by counting depth (the driver calls skipStart/skipEnd while isSkipping).
//
// Performance: the state lives in a struct behind a pointer allocated once (no
// exclusivity checks, no ARC on the hot path); arenas, ref vectors and the published
// records keep their capacity, so after the first items nothing is allocated.

import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

final class SwiftFeedMachine {
    let core: UnsafeMutablePointer<SwiftFeedMachineCore>

    /// Set by the driver for each parse: the handler, and the parser named to it in
    /// every callback (unset between parses, so the owning parser is not retained).
    /// Not owned: the driver's caller holds both for the whole parse and the driver
    /// unsets them before it returns (held strongly, reading them retained and released
    /// both at every item).
    var handler: (any FeedHandler)? { delivery?.handler }
    var parser: (any FeedParser)? { delivery?.parser }

    /// Sets ``handler`` and ``parser`` for a parse.
    func deliver(to handler: any FeedHandler, as parser: any FeedParser) {
        let d = Delivery(handler: handler, parser: parser)
        delivery = d
        deliveryRef = Unmanaged.passUnretained(d)
    }

    /// Unsets ``handler`` and ``parser`` at the end of a parse.
    func stopDelivering() {
        delivery = nil
        deliveryRef = nil
    }

    /// The handler and the parser of a parse, in one object (one allocation a parse) that
    /// ``emitItem()`` borrows through ``deliveryRef``: read from optional properties, the
    /// two references were retained and released at every item.
    private final class Delivery {
        let handler: any FeedHandler
        let parser: any FeedParser
        init(handler: any FeedHandler, parser: any FeedParser) {
            self.handler = handler
            self.parser = parser
        }
    }
    private var delivery: Delivery?
    private var deliveryRef: Unmanaged<Delivery>?
    /// Items of the document not to deliver (counted all the same): the recovery path
    /// re-reads a failed document from its start, and its first items were delivered.
    var skipItems = 0
    /// The recovery path's machine: its items are marked ``FeedItemView/isRecovered``.
    var recovering = false

    /// - Parameters:
    ///   - maxItemBytes: per-record byte limit; 0 for the default (64 MiB).
    ///   - limits: the field-text and item limits are the machine's (the tokenizer
    ///     checks depth and attributes).
    init(maxItemBytes: Int, limits: FeedLimits = .default) {
        core = .allocate(capacity: 1)
        core.initialize(to: SwiftFeedMachineCore(limit: SFMRecord.limit(maxItemBytes: maxItemBytes)))
        core.pointee.maxFieldBytes = FeedLimits.effective(limits.maxFieldBytes)
        core.pointee.maxItems = FeedLimits.effective(limits.maxItems)
    }

    /// A limit stopped the document (the tokenizer reports it as the document's error).
    var limitHit: Bool {
        @inline(__always) get { core.pointee.limit != 0 }
    }

    /// The message of the limit that stopped the document (as the C core words it).
    var limitMessage: String {
        let c = core.pointee
        if c.limit == SFM.limitItems { return FeedLimits.Message.maxItems(c.items + 1, c.maxItems) }
        return FeedLimits.Message.maxFieldBytes(over: c.maxFieldBytes)
    }

    deinit {
        core.pointee.free()
        core.deinitialize(count: 1)
        core.deallocate()
    }

    /// Starts document number `document` (1-based).
    func begin(document: Int) {
        core.pointee.begin(document)
        lastItemEnd = 0
    }

    /// The document's charset (``XMLTranscoder/name``), known before its root element:
    /// the feed record's `encoding` when not UTF-8 (the C core's cfs_machine_encoding).
    func encoding(_ name: String) {
        guard name != "utf-8" else { return }
        var name = name
        let feed = core.pointee.feed
        name.withUTF8 { feed.pointee.put(SFM.fieldEncoding, feed.pointee.copy(UnsafeRawBufferPointer($0))) }
    }

    /// A DOCTYPE declaration: a Netscape RSS 0.91 one makes `<rss version="0.91">` rss091n.
    func doctype(publicID: UnsafeRawBufferPointer?, systemID: UnsafeRawBufferPointer?) {
        if SwiftFeedMachineCore.mentionsNetscape(publicID) || SwiftFeedMachineCore.mentionsNetscape(systemID) {
            core.pointee.netscape = true
        }
    }

    /// True while inside an ignored subtree: start/end go to skipStart/skipEnd.
    var isSkipping: Bool {
        @inline(__always) get { core.pointee.skipDepth > 0 }
    }

    @inline(__always)
    func skipStart() {
        core.pointee.skipDepth += 1
        core.pointee.depth += 1
    }

    /// An end tag inside an ignored subtree.
    @inline(__always)
    func skipEnd() { core.pointee.skipEnd() }

    /// True while text is wanted (the tokenizer may skip character data otherwise).
    var wantsText: Bool {
        @inline(__always) get { core.pointee.capturing }
    }

    func start(uri: UnsafeRawBufferPointer, local: UnsafeRawBufferPointer,
               attributes: UnsafeBufferPointer<XMLAttribute>) throws {
        core.pointee.start(uri, local, attributes)
    }

    /// An end tag at document offset `at` (in the UTF-8 the tokenizer reads); may
    /// deliver an item to the handler (whose errors propagate).
    func end(local: UnsafeRawBufferPointer, at: Int = 0) throws {
        if core.pointee.end(local) {
            lastItemEnd = at
            try emitItem()
        }
    }

    /// Where the end tag of the document's last item delivered begins (0: none yet):
    /// a document the failed one had taken in is looked for after it
    /// (the input stage's `swallowed_start`), so that no item is delivered twice.
    private(set) var lastItemEnd = 0

    @inline(__always)
    func text(_ bytes: UnsafeRawBufferPointer) { core.pointee.text(bytes) }

    var rootClosed: Bool { core.pointee.rootClosed }
    var notFeed: Bool { core.pointee.notFeed }
    var items: Int { core.pointee.items }
    var document: Int { core.pointee.document }
    var format: FeedFormat { core.pointee.format }

    /// Ends the current document: publishes the feed and calls didParseFeedInfo, then
    /// didFail if error is not nil, else didFinishDocument.
    func finish(error: FeedError?) throws {
        guard let handler, let parser else { return }
        core.pointee.feedDirty = true
        try handler.parser(parser, didParseFeedInfo: feedInfo())
        if let error {
            try handler.parser(parser, didFail: error)
        } else {
            try handler.parser(parser, didFinishDocument: core.pointee.document)
        }
    }

    /// The feed as known now.
    func feedInfo() -> FeedInfoView {
        let c = core
        if c.pointee.feedDirty {
            c.pointee.pubFeed.publish(c.pointee.feed)
            c.pointee.feedDirty = false
            c.pointee.feedRevision.publication &+= 1
        }
        // (Its text came from the strict tokenizer, as an item's: trusted unless cut, in
        // its arena or in the scope arena its xml:lang and xml:base came from.)
        return FeedInfoView(document: c.pointee.document, format: c.pointee.format, itemCount: c.pointee.items,
                            record: c.pointee.pubFeed.raw, revision: c.pointee.feedRevision,
                            textIsUTF8: !c.pointee.feed.pointee.arena.truncated && !c.pointee.scopeArena.truncated)
    }

    private func emitItem() throws {
        let c = core
        c.pointee.pubItem.publish(c.pointee.item)
        let index = c.pointee.items
        let truncated = c.pointee.item.pointee.arena.truncated
        let feed = feedInfo()
        c.pointee.items += 1
        guard index >= skipItems, let deliveryRef else { return }
        // Every byte of the item's fields came from the strict tokenizer, which checks
        // UTF-8 (the recovery path's repaired bytes too), or was written here whole;
        // except an xml:lang or xml:base the scope arena cut at the item limit, which may
        // end inside a character (the writer then checks the text, as for C records).
        let item = FeedItemView(index: index, isTruncated: truncated, isRecovered: recovering,
                                textIsUTF8: !c.pointee.scopeArena.truncated, record: c.pointee.pubItem.raw, feed: feed)
        try deliveryRef._withUnsafeGuaranteedRef { try $0.handler.parser($0.parser, didParseItem: item) }
    }
}

/// The machine's state and logic (see SwiftFeedMachine). Mutating methods on a struct at
/// a fixed address: field access costs a load or a store, nothing more.
struct SwiftFeedMachineCore {
    let item: UnsafeMutablePointer<SFMRecord>
    let feed: UnsafeMutablePointer<SFMRecord>
    var cur: UnsafeMutablePointer<SFMRecord>       // the record rules write into
    let pubItem = SFMPub()
    let pubFeed = SFMPub()
    var feedDirty = true
    /// The feed record's last publication (counted at each publish of pubFeed).
    var feedRevision = FeedRevision.next()

    // Document state.
    var document = 0
    var items = 0
    var format: FeedFormat = .unknown
    var netscape = false          // a Netscape RSS 0.91 DOCTYPE was seen
    var rootSeen = false
    var rootClosed = false
    var notFeed = false
    /// The root is not a feed: its elements are looked at as roots in turn (startRoot).
    var seeking = false
    /// A `feed` root in no or a non-Atom namespace is read as Atom: elements in its
    /// namespace (these bytes; empty for none) are Atom's.
    /// When the root's namespace is not its format's: that namespace, whose elements are
    /// read as `lenientClass`'s.
    var lenientNS: [UInt8]? = nil
    var lenientClass: (ns: UInt8, fam: UInt8) = (0, 0)
    var inItem = false
    var depth = 0                 // element depth in the document
    var maxFieldBytes = Int.max   // limits (FeedLimits)
    var maxItems = Int.max
    var limit: UInt8 = 0          // 0, or the limit that stopped the document (SFM.limit*)
    /// The field being captured passed maxFieldBytes: its text was dropped, the capture
    /// ended, and the next start or end tag stops the document (checkField; machine.c's
    /// field_over).
    var fieldOver = false
    var scope: UInt32 = SFM.scDoc
    var personList: UInt16 = 0    // authors or contributors, in person scope
    var itcatRow: UInt32 = 0      // the enclosing itunes:category row, + 1
    var parentRow: UInt32 = 0     // the row the last LATTR entering a scope pushed

    let frames: UnsafeMutablePointer<SFMFrame>
    var nframes = 0
    var skipDepth = 0             // > 0: inside an ignored subtree

    var scopeArena: SFMArena
    var scopes: UnsafeMutablePointer<SFMScopeAttrs>
    var nscopes = 0
    var scopesCap = 16

    // Text capture.
    var capturing = false
    var capRec: UnsafeMutablePointer<SFMRecord>
    var capStart: UInt32 = 0
    var markup = false            // children are serialized as markup
    var markupPendingGT = false   // a start tag awaits its '>'
    var markupDepth = 0           // depth of children inside the captured element
    var xhtmlStripDiv: UInt8 = 0  // 1: the wrapping xhtml div may come; 2: inside it

    // Tables.
    let rules: UnsafeMutablePointer<SFMRule>
    let ruleHead: UnsafeMutablePointer<UInt16>
    let ruleNext: UnsafeMutablePointer<UInt16>
    let mapEntries: UnsafeMutablePointer<SFMAttrEntry>
    let mapStart: UnsafeMutablePointer<Int>
    let mapCount: UnsafeMutablePointer<Int>
    let namespaces: UnsafeMutablePointer<SFMNamespace>
    let namespaceCount: Int

    // The last namespace URIs classified (the same few repeat, and a feed's elements
    // alternate between them: an RSS 1.0 item's title, dc:date, content:encoded), each
    // up to nsCacheCapacity bytes, replaced in turn.
    static let nsCacheCapacity = 256
    static let nsCacheEntries = 8
    let nsCache: UnsafeMutablePointer<UInt8>
    let nsCacheLen: UnsafeMutablePointer<Int>
    let nsCacheClass: UnsafeMutablePointer<(ns: UInt8, fam: UInt8)>
    var nsCacheNext = 0

    init(limit: Int) {
        let t = SwiftRules.shared
        item = SFMRecord.make(limit: limit)
        feed = SFMRecord.make(limit: limit)
        cur = feed
        capRec = feed
        frames = .allocate(capacity: SFM.maxFrames)
        scopeArena = SFMArena(initial: 1024, limit: limit)
        scopes = .allocate(capacity: 16)
        rules = t.rules
        ruleHead = t.head
        ruleNext = t.next
        mapEntries = t.mapEntries
        mapStart = t.mapStart
        mapCount = t.mapCount
        namespaces = t.namespaces
        namespaceCount = t.namespaceCount
        nsCache = .allocate(capacity: SwiftFeedMachineCore.nsCacheCapacity * SwiftFeedMachineCore.nsCacheEntries)
        nsCacheLen = .allocate(capacity: SwiftFeedMachineCore.nsCacheEntries)
        nsCacheLen.initialize(repeating: -1, count: SwiftFeedMachineCore.nsCacheEntries)
        nsCacheClass = .allocate(capacity: SwiftFeedMachineCore.nsCacheEntries)
        nsCacheClass.initialize(repeating: (0, 0), count: SwiftFeedMachineCore.nsCacheEntries)
    }

    func free() {
        SFMRecord.destroy(item)
        SFMRecord.destroy(feed)
        pubItem.free()
        pubFeed.free()
        frames.deallocate()
        scopeArena.free()
        scopes.deallocate()
        nsCache.deallocate()
        nsCacheLen.deallocate()
        nsCacheClass.deallocate()
    }

    mutating func begin(_ document: Int) {
        feed.pointee.reset()
        item.pointee.reset()
        scopeArena.reset()
        nscopes = 0
        cur = feed
        feedDirty = true
        self.document = document
        items = 0
        format = .unknown
        netscape = false
        rootSeen = false
        rootClosed = false
        notFeed = false
        seeking = false
        lenientNS = nil
        inItem = false
        depth = 0
        limit = 0
        fieldOver = false
        scope = SFM.scDoc
        nframes = 0
        skipDepth = 0
        capturing = false
        markup = false
        markupPendingGT = false
        markupDepth = 0
        xhtmlStripDiv = 0
        itcatRow = 0
        parentRow = 0
    }

    /// A case-insensitive "netscape" in an identifier (up to a NUL, as C strings end).
    static func mentionsNetscape(_ id: UnsafeRawBufferPointer?) -> Bool {
        guard let id, let p = id.baseAddress else { return false }
        let b = p.assumingMemoryBound(to: UInt8.self)
        var n = 0
        while n < id.count && b[n] != 0 { n += 1 }
        let word: StaticString = "netscape"
        let w = word.utf8Start
        var i = 0
        while i + 8 <= n {
            var k = 0
            while k < 8 && (b[i + k] | 0x20) == w[k] { k += 1 }
            if k == 8 { return true }
            i += 1
        }
        return false
    }

    // ---- namespaces ----------------------------------------------------------------

    @inline(__always)
    mutating func classify(_ uri: UnsafeRawBufferPointer) -> (ns: UInt8, fam: UInt8) {
        let n = uri.count
        if n == 0 { return (SFM.nsNone, SFM.fRss) }
        let p = uri.baseAddress!
        for k in 0..<SwiftFeedMachineCore.nsCacheEntries
        where nsCacheLen[k] == n && bytesEqual(p, nsCache + k &* SwiftFeedMachineCore.nsCacheCapacity, n) {
            return nsCacheClass[k]
        }
        return classifySlow(p, n)
    }

    @inline(never)
    mutating func classifySlow(_ p: UnsafeRawPointer, _ n: Int) -> (ns: UInt8, fam: UInt8) {
        var ns = SFM.nsOther, fam = SFM.fOther
        for i in 0..<namespaceCount {
            let e = namespaces[i]
            if e.len == n && bytesEqual(e.uri, p, n) {
                ns = e.ns
                fam = e.fam
                break
            }
        }
        if ns == SFM.nsOther {
            // As people misspell them: any case, http or https, a trailing slash or not.
            let u = SwiftFeedMachineCore.looseURI(UnsafeRawBufferPointer(start: p, count: n))
            for i in 0..<namespaceCount {
                let e = namespaces[i]
                let t = SwiftFeedMachineCore.looseURI(UnsafeRawBufferPointer(start: e.uri, count: e.len))
                if t.count == u.count && SwiftFeedMachineCore.equalIgnoringASCIICase(t, u) {
                    ns = e.ns
                    fam = e.fam
                    break
                }
            }
        }
        if n <= SwiftFeedMachineCore.nsCacheCapacity {
            let k = nsCacheNext
            nsCacheNext = (k &+ 1) % SwiftFeedMachineCore.nsCacheEntries
            memcpy(nsCache + k &* SwiftFeedMachineCore.nsCacheCapacity, p, n)
            nsCacheLen[k] = n
            nsCacheClass[k] = (ns, fam)
        }
        return (ns, fam)
    }

    /// `uri` without `http://` or `https://` (any case) and one trailing '/' (machine.c's loose_uri).
    static func looseURI(_ uri: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var lo = 0, hi = uri.count
        func prefix(_ s: StaticString) -> Bool {
            let k = s.utf8CodeUnitCount
            guard hi >= k else { return false }
            return equalIgnoringASCIICase(UnsafeRawBufferPointer(rebasing: uri[0..<k]),
                                          UnsafeRawBufferPointer(start: s.utf8Start, count: k))
        }
        if prefix("http://") { lo = 7 } else if prefix("https://") { lo = 8 }
        if hi > lo && uri[hi - 1] == 0x2F { hi -= 1 }
        return UnsafeRawBufferPointer(rebasing: uri[lo..<hi])
    }

    static func equalIgnoringASCIICase(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count {
            var x = a[i], y = b[i]
            if x >= 0x41 && x <= 0x5A { x |= 0x20 }
            if y >= 0x41 && y <= 0x5A { y |= 0x20 }
            if x != y { return false }
        }
        return true
    }

    @inline(__always)
    static func isXMLNS(_ a: UnsafePointer<XMLAttribute>) -> Bool {
        a.pointee.uri.count == 36 && a.pointee.uri.equals("http://www.w3.org/XML/1998/namespace")
    }

    @inline(__always)
    static func isXLinkNS(_ a: UnsafePointer<XMLAttribute>) -> Bool {
        a.pointee.uri.count == 28 && a.pointee.uri.equals("http://www.w3.org/1999/xlink")
    }

    // ---- attributes ------------------------------------------------------------------

    /// An attribute in no namespace, by name: as written, else with ASCII letters in any
    /// case (`URL`, `isPermalink`, `VERSION`: feedparser lower-cases attribute names as it
    /// does element names, ``findRule(_:_:_:)``). machine.c's `find_attr`.
    @inline(__always)
    static func findAttr(_ attrs: UnsafeBufferPointer<XMLAttribute>, _ name: UnsafePointer<UInt8>, _ len: Int)
        -> UnsafePointer<XMLAttribute>?
    {
        guard let base = attrs.baseAddress else { return nil }
        var anyCase: UnsafePointer<XMLAttribute>?
        for i in 0..<attrs.count {
            let a = base + i
            guard a.pointee.uri.count == 0 && a.pointee.local.count == len else { continue }
            if bytesEqual(a.pointee.local.baseAddress!, name, len) { return a }
            if anyCase == nil && asciiLower(a.pointee.local[0]) == asciiLower(name[0])
                && bytesEqualIgnoringCase(a.pointee.local.baseAddress!.assumingMemoryBound(to: UInt8.self), name, len)
            {
                anyCase = a
            }
        }
        return anyCase
    }

    @inline(__always)
    static func findAttr(_ attrs: UnsafeBufferPointer<XMLAttribute>, _ name: StaticString)
        -> UnsafePointer<XMLAttribute>?
    {
        findAttr(attrs, name.utf8Start, name.utf8CodeUnitCount)
    }

    /// An attribute of the given namespace (RSS 1.0's rdf:about).
    mutating func findNSAttr(_ attrs: UnsafeBufferPointer<XMLAttribute>, _ ns: UInt8, _ name: StaticString)
        -> UnsafePointer<XMLAttribute>?
    {
        guard let base = attrs.baseAddress else { return nil }
        for i in 0..<attrs.count {
            let a = base + i
            if a.pointee.local.equals(name) && classify(a.pointee.uri).ns == ns { return a }
        }
        return nil
    }

    @inline(__always)
    static func attrIs(_ a: UnsafePointer<XMLAttribute>?, _ v: StaticString) -> Bool {
        guard let a else { return false }
        return a.pointee.value.equals(v)
    }

    // ---- xml:lang and xml:base --------------------------------------------------------

    @inline(__always)
    var currentLang: SFMRef { nscopes > 0 ? scopes[nscopes - 1].lang : .absent }

    @inline(__always)
    var currentBase: SFMRef { nscopes > 0 ? scopes[nscopes - 1].base : .absent }

    /// Pushes the element's xml:lang / xml:base, if it has either.
    mutating func pushScopeAttrs(_ attrs: UnsafeBufferPointer<XMLAttribute>) {
        var lang: UnsafePointer<XMLAttribute>? = nil, base: UnsafePointer<XMLAttribute>? = nil
        let p = attrs.baseAddress!
        for i in 0..<attrs.count {
            let a = p + i
            if !SwiftFeedMachineCore.isXMLNS(a) { continue }
            if a.pointee.local.equals("lang") { lang = a }
            if a.pointee.local.equals("base") { base = a }
        }
        if lang == nil && base == nil { return }
        if nscopes == scopesCap {
            let c = scopesCap * 2
            scopes = realloc(scopes, c * MemoryLayout<SFMScopeAttrs>.stride)!.assumingMemoryBound(to: SFMScopeAttrs.self)
            scopesCap = c
        }
        var s = SFMScopeAttrs(depth: depth, lang: currentLang, base: currentBase)
        if let lang { s.lang = scopeArena.copy(lang.pointee.value.baseAddress, lang.pointee.value.count) }
        if let base {
            let outer = s.base
            let start = scopeArena.len
            if !outer.isAbsent {
                _ = scopeArena.reserve(Int(outer.len))
                scopeArena.appendSelf(Int(outer.off), Int(outer.len))
                scopeArena.appendByte(1)
            }
            scopeArena.append(base.pointee.value.baseAddress, base.pointee.value.count)
            s.base = SFMRef(off: UInt32(truncatingIfNeeded: start), len: UInt32(truncatingIfNeeded: scopeArena.len - start))
        }
        scopes[nscopes] = s
        nscopes += 1
    }

    @inline(__always)
    mutating func popScopeAttrs() {
        if nscopes > 0 && scopes[nscopes - 1].depth == depth { nscopes -= 1 }
    }

    /// Copies a ref of the scope arena into a record's arena.
    @inline(__always)
    func copyScopeRef(_ r: UnsafeMutablePointer<SFMRecord>, _ ref: SFMRef) -> SFMRef {
        if ref.isAbsent { return ref }
        _ = r.pointee.arena.reserve(Int(ref.len))
        return r.pointee.arena.copy(scopeArena.buf + Int(ref.off), Int(ref.len))
    }

    // ---- frames and captures ------------------------------------------------------------

    @inline(__always)
    mutating func pushFrame(_ action: UInt8, _ target: UInt16, _ col: UInt8, _ row: UInt32) -> Bool {
        if nframes == SFM.maxFrames { return false }
        frames[nframes] = SFMFrame(row: row, scope: scope, item: cur == item, action: action, target: target, col: col)
        nframes += 1
        return true
    }

    /// Skips the subtree of the element just started.
    @inline(__always)
    mutating func skip() { skipDepth = 1 }

    @inline(__always)
    mutating func beginCapture(_ r: UnsafeMutablePointer<SFMRecord>, _ markup: Bool) {
        capturing = true
        capRec = r
        capStart = UInt32(truncatingIfNeeded: r.pointee.arena.len)
        self.markup = markup
        markupPendingGT = false
        markupDepth = 0
        xhtmlStripDiv = markup ? 1 : 0
    }

    mutating func captureField(_ field: Int, _ prio: UInt8, action: UInt8 = SFM.aCapField) {
        let r = cur
        if r.pointee.taken(field, prio) { return skip() }
        if !pushFrame(action, UInt16(field), prio, 0) { return skip() }
        beginCapture(r, false)
    }

    mutating func captureRow(_ list: Int, _ col: UInt8) {
        let r = cur
        let count = r.pointee.lists[list].count
        if count == 0 { return skip() }
        if !pushFrame(SFM.aCapRow, UInt16(list), col, UInt32(truncatingIfNeeded: count - 1)) { return skip() }
        beginCapture(r, false)
    }

    /// An element of the feed or of an item that no rule reads (an extension element, RFC
    /// 4287 section 6.4): a row of ``SFM/listExtensions`` per attribute (`xml:` ones are
    /// the scope's), then one for its text, captured. A child element turns it into a
    /// skipped subtree and its rows are dropped (``extensionChild()``); white space only,
    /// after attribute rows, drops the text row (``finishCapture(_:)``). machine.c's
    /// start_extension is the same.
    mutating func startExtension(_ uri: UnsafeRawBufferPointer, _ local: UnsafeRawBufferPointer,
                                 _ attrs: UnsafeBufferPointer<XMLAttribute>) {
        let r = cur
        let list = SFM.listExtensions
        let first = r.pointee.lists[list].count
        if !pushFrame(SFM.aCapExt, UInt16(list), 3, UInt32(truncatingIfNeeded: first)) { return skip() }
        let ns = r.pointee.copy(uri), name = r.pointee.copy(local)
        var i = 0
        while i <= attrs.count {
            defer { i += 1 }
            if i < attrs.count && SwiftFeedMachineCore.isXMLNS(attrs.baseAddress! + i) { continue }
            let row = r.pointee.lists[list].push()
            r.pointee.listsUsed |= 1 &<< UInt64(list)
            row[0] = ns
            row[1] = name
            if i < attrs.count {
                let a = attrs[i]
                if a.uri.count == 0 {
                    row[2] = r.pointee.copy(a.local)
                } else {
                    // {namespace}name
                    let off = r.pointee.arena.len
                    r.pointee.arena.appendByte(0x7B)
                    r.pointee.arena.append(a.uri.baseAddress, a.uri.count)
                    r.pointee.arena.appendByte(0x7D)
                    r.pointee.arena.append(a.local.baseAddress, a.local.count)
                    row[2] = SFMRef(off: UInt32(truncatingIfNeeded: off),
                                    len: UInt32(truncatingIfNeeded: r.pointee.arena.len - off))
                }
                row[3] = r.pointee.copy(a.value)
            }
        }
        beginCapture(r, false)
    }

    /// True when the element being read is an extension element (its text captured, no
    /// child yet).
    var inExtension: Bool {
        markupDepth == 0 && !markup && nframes > 0 && frames[nframes - 1].action == SFM.aCapExt
    }

    /// The extension element being read is dropped, its rows and text, and the rest of
    /// it skipped: `depth` elements end the skip (the element, and a child just started).
    @inline(never)
    mutating func dropExtension(_ depth: Int) {
        let fr = frames[nframes - 1]
        capRec.pointee.lists[SFM.listExtensions].count = Int(fr.row)
        capRec.pointee.arena.len = Int(capStart)
        capturing = false
        scope = fr.scope
        cur = fr.item ? item : feed
        nframes -= 1
        skipDepth = depth
    }

    /// A child element in an extension element being read: the element is skipped whole,
    /// as one no rule reads was before extensions were kept.
    mutating func extensionChild() -> Bool {
        guard inExtension else { return false }
        dropExtension(2)
        return true
    }

    /// A text construct: value, type, lang, base, mode at field ... field + 4.
    mutating func captureText(_ field: Int, _ prio: UInt8, _ deftype: UInt8,
                              _ attrs: UnsafeBufferPointer<XMLAttribute>) {
        let r = cur
        if r.pointee.taken(field, prio) { return skip() }
        if !pushFrame(SFM.aCapField, UInt16(field), prio, 0) { return skip() }
        let type = SwiftFeedMachineCore.findAttr(attrs, "type")
        let mode = SwiftFeedMachineCore.findAttr(attrs, "mode")
        for k in 1...4 {
            r.pointee.put(field + k, .absent)
            r.pointee.prio[field + k] = prio
        }
        if let type {
            r.pointee.put(field + 1, r.pointee.copy(type.pointee.value))
        } else if deftype != 0 {
            let s = SwiftRulesTable.defaultTypes[Int(deftype) &- 1]
            r.pointee.put(field + 1, r.pointee.copy(s.utf8Start, s.utf8CodeUnitCount))
        }
        r.pointee.put(field + 2, copyScopeRef(r, currentLang))
        r.pointee.put(field + 3, copyScopeRef(r, currentBase))
        if let mode { r.pointee.put(field + 4, r.pointee.copy(mode.pointee.value)) }
        let xhtml = SwiftFeedMachineCore.attrIs(type, "xhtml") || SwiftFeedMachineCore.attrIs(mode, "xml")
        beginCapture(r, xhtml)
    }

    /// Pushes a row and fills it from attributes (and the base column).
    mutating func pushRow(_ list: Int, _ map: UInt8, _ attrs: UnsafeBufferPointer<XMLAttribute>)
        -> UnsafeMutablePointer<SFMRef>
    {
        let r = cur
        let row = r.pointee.lists[list].push()
        r.pointee.listsUsed |= 1 &<< UInt64(list)
        if map != SFM.none {
            let start = mapStart[Int(map)]
            for k in start..<(start + mapCount[Int(map)]) {
                let e = mapEntries[k]
                if let v = SwiftFeedMachineCore.findAttr(attrs, e.name, e.len) {
                    row[Int(e.index)] = r.pointee.copy(v.pointee.value)
                }
            }
        }
        let bc = SFM.baseColumn(list)
        if bc >= 0 { row[bc] = copyScopeRef(r, currentBase) }
        let pc = SFM.parentColumn(list)
        if pc >= 0 {
            // The row the enclosing element pushed (LATTR entering a scope), from 0.
            row[pc] = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 12) { buf in
                var n = parentRow, i = 12
                repeat {
                    i -= 1
                    buf[i] = UInt8(ascii: "0") + UInt8(n % 10)
                    n /= 10
                } while n > 0
                return r.pointee.copy(buf.baseAddress! + i, 12 - i)
            }
        }
        return row
    }

    /// Returns 1 when an attribute gave the field `target`, 2 when the map has it but no
    /// attribute gave it, 0 when the map does not have it (machine.c's set_fields_from).
    mutating func setFieldsFrom(_ map: UInt8, _ prio: UInt8, _ attrs: UnsafeBufferPointer<XMLAttribute>,
                                target: Int) -> Int {
        guard map != SFM.none else { return 0 }
        let start = mapStart[Int(map)]
        // One element's attributes replace the last one's, the cleared fields taking its
        // priority (machine.c's set_fields_from).
        for k in start..<(start + mapCount[Int(map)]) where !cur.pointee.taken(Int(mapEntries[k].index), prio) {
            cur.pointee.put(Int(mapEntries[k].index), .absent)
            cur.pointee.prio[Int(mapEntries[k].index)] = prio
        }
        var gave = 0
        for k in start..<(start + mapCount[Int(map)]) {
            let e = mapEntries[k]
            let v = SwiftFeedMachineCore.findAttr(attrs, e.name, e.len)
            if Int(e.index) == target && gave != 1 { gave = v != nil ? 1 : 2 }
            cur.pointee.setFieldAttr(Int(e.index), prio, v)
        }
        return gave
    }

    @inline(__always)
    mutating func enter(_ s: UInt32) {
        if !pushFrame(SFM.aNone, 0, 0, 0) { return skip() }
        scope = s
    }

    /// CDF: the HREF of a channel or item is its link, LASTMOD its update date
    /// (feedparser's reading).
    mutating func cdfCommon(_ attrs: UnsafeBufferPointer<XMLAttribute>) {
        let href = SwiftFeedMachineCore.findAttr(attrs, "HREF")
        let mod = SwiftFeedMachineCore.findAttr(attrs, "LASTMOD")
        if let href {
            let row = pushRow(SFM.listLinks, SFM.none, attrs)
            row[0] = cur.pointee.copy(href.pointee.value)
        }
        cur.pointee.setFieldAttr(SFM.fieldUpdated, SFM.p1, mod)
    }

    mutating func beginItem(_ attrs: UnsafeBufferPointer<XMLAttribute>) {
        if items >= maxItems {
            limit = SFM.limitItems
            return skip()
        }
        if !pushFrame(SFM.aEndItem, 0, 0, 0) { return skip() }
        item.pointee.reset()
        cur = item
        inItem = true
        scope = SFM.scItem
        // rdf:about: the id, as a guid or Atom id is; the same in machine.c begin_item.
        item.pointee.setFieldAttr(SFM.fieldId, SFM.p1, findNSAttr(attrs, SFM.nsRdf, "about"))
        item.pointee.setField(SFM.fieldLanguage, SFM.p3, copyScopeRef(item, currentLang))
        item.pointee.put(SFM.fieldBase, copyScopeRef(item, currentBase))
        if format == .cdf { cdfCommon(attrs) }
    }

    // ---- rules ---------------------------------------------------------------------------

    /// The first rule in table order for (family, name) that applies in `scope`; for a name
    /// no rule has as written, one that differs from it only in case
    /// (``SwiftRules/findAnyCase(_:_:_:_:)``, machine.c's `find_rule`).
    @inline(__always)
    func findRule(_ fam: UInt8, _ name: UnsafeRawBufferPointer, _ scope: UInt32) -> UnsafePointer<SFMRule>? {
        let len = name.count
        let p = name.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if let r = SwiftRules.walk(ruleHead[SwiftRules.hash(fam, p, len)], ruleNext, rules, fam, p, len, scope,
                                   { bytesEqual($0, $1, $2) }) {
            return r
        }
        return SwiftRules.shared.findAnyCase(fam, p, len, scope)
    }

    mutating func apply(_ ru: SFMRule, _ attrs: UnsafeBufferPointer<XMLAttribute>) {
        let r = cur
        switch ru.action {
        case SFM.rText:
            captureField(Int(ru.target), ru.col)
        case SFM.rTextc:
            captureText(Int(ru.target), ru.col, ru.deftype, attrs)
        case SFM.rLtext:
            let list = Int(ru.target == SFM.noTarget ? personList : ru.target)
            if ru.target != SFM.noTarget { _ = pushRow(list, ru.map, attrs) }
            captureRow(list, ru.col)
        case SFM.rLattr:
            let target = Int(ru.target)
            let row = pushRow(target, ru.map, attrs)
            if target == SFM.listItunesCategories {
                // Nested categories: the row names its parent; the frame keeps the outer
                // category to restore.
                if itcatRow != 0 { row[1] = r.pointee.lists[target].v![Int(itcatRow - 1) * 2] }
                if !pushFrame(SFM.aNone, 0, 0, itcatRow) { return skip() }
                scope = SFM.scItcat
                itcatRow = UInt32(truncatingIfNeeded: r.pointee.lists[target].count)
                return
            }
            if ru.enter == 0 { return skip() }
            // The row is the parent of the rows pushed inside; the outer one's is restored
            // when the element ends (machine.c).
            if !pushFrame(SFM.aEndParent, 0, 0, parentRow) { return skip() }
            scope = ru.enter
            parentRow = UInt32(truncatingIfNeeded: r.pointee.lists[target].count - 1)
        case SFM.rResource:
            if let res = findNSAttr(attrs, SFM.nsRdf, "resource") {
                r.pointee.setFieldAttr(Int(ru.target), ru.col, res)
                skip()
            } else {
                captureField(Int(ru.target), ru.col)
            }
        case SFM.rFattr:
            let gave = setFieldsFrom(ru.map, ru.col, attrs, target: ru.target == SFM.noTarget ? -1 : Int(ru.target))
            if gave == 1 || ru.target == SFM.noTarget {
                skip()
            } else {
                captureField(Int(ru.target), ru.col, action: gave == 2 ? SFM.aCapFallback : SFM.aCapField)
            }
        case SFM.rScope:
            _ = setFieldsFrom(ru.map, ru.col, attrs, target: -1)   // a map: the element's attributes
            enter(ru.enter)
        case SFM.rItem:
            beginItem(attrs)
            if cur == item { _ = setFieldsFrom(ru.map, ru.col, attrs, target: -1) }
        case SFM.rPerson:
            _ = pushRow(Int(ru.target), SFM.none, attrs)
            personList = ru.target
            enter(SFM.scPerson)
        case SFM.rRowattr:
            // The last row of the list (the person being read): columns from attributes.
            let list = ru.target == SFM.noTarget ? Int(personList) : Int(ru.target)
            let count = r.pointee.lists[list].count
            if count > 0 && ru.map != SFM.none {
                let v = r.pointee.lists[list]
                let row = v.v! + (count - 1) * v.stride
                let start = mapStart[Int(ru.map)]
                for k in start..<(start + mapCount[Int(ru.map)]) {
                    let e = mapEntries[k]
                    if let a = SwiftFeedMachineCore.findAttr(attrs, e.name, e.len) {
                        row[Int(e.index)] = r.pointee.copy(a.pointee.value)
                    }
                }
            }
            skip()
        case SFM.rGuid:
            if r.pointee.taken(SFM.fieldId, SFM.p1) { return skip() }
            if let pl = SwiftFeedMachineCore.findAttr(attrs, "isPermaLink") {
                r.pointee.put(SFM.fieldGuidPermalink, r.pointee.copy(pl.pointee.value))
            } else {
                let t: StaticString = "true"
                r.pointee.put(SFM.fieldGuidPermalink, r.pointee.copy(t.utf8Start, 4))
            }
            captureField(SFM.fieldId, SFM.p1)
        case SFM.rContent:
            if r.pointee.taken(SFM.fieldContent, SFM.p1) { return skip() }
            r.pointee.put(SFM.fieldContentSrc, .absent)
            r.pointee.setFieldAttr(SFM.fieldContentSrc, SFM.p1, SwiftFeedMachineCore.findAttr(attrs, "src"))
            captureText(SFM.fieldContent, SFM.p1, 0, attrs)
        case SFM.rAlink:
            let rel = SwiftFeedMachineCore.findAttr(attrs, "rel")
            if scope == SFM.scSource {
                if rel == nil || SwiftFeedMachineCore.attrIs(rel, "alternate") {
                    r.pointee.setFieldAttr(SFM.fieldSourceUrl, SFM.p1, SwiftFeedMachineCore.findAttr(attrs, "href"))
                }
                _ = pushRow(SFM.listSourceLinks, ru.map, attrs)
                return skip()
            }
            let row = pushRow(SFM.listLinks, ru.map, attrs)
            if scope == SFM.scItem && SwiftFeedMachineCore.attrIs(rel, "enclosure") {
                let href = row[0], type = row[2], length = row[5], base = row[6]
                let e = r.pointee.lists[SFM.listEnclosures].push()
                r.pointee.listsUsed |= 1 &<< UInt64(SFM.listEnclosures)
                e[0] = href
                e[1] = type
                e[2] = length
                e[3] = base
                return skip()
            }
            // A link without an href whose address is its text (Atom 0.3 as some wrote
            // it; feedparser takes the text as the link).
            if row[0].isAbsent { return captureRow(SFM.listLinks, 0) }
            skip()
        default:
            skip()
        }
    }

    static func rssVersion(_ v: UnsafeRawBufferPointer, _ netscape: Bool) -> FeedFormat {
        let n = v.count
        if n == 0 { return .rss }
        let b = v.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if n >= 2 && b[0] == UInt8(ascii: "2") && b[1] == UInt8(ascii: ".") { return .rss20 }
        if n == 1 && b[0] == UInt8(ascii: "2") { return .rss20 }
        if n == 4 && b[0] == UInt8(ascii: "0") && b[1] == UInt8(ascii: ".") && b[2] == UInt8(ascii: "9") {
            switch b[3] {
            case UInt8(ascii: "1"): return netscape ? .rss091n : .rss091u
            case UInt8(ascii: "2"): return .rss092
            case UInt8(ascii: "3"): return .rss093
            case UInt8(ascii: "4"): return .rss094
            default: break
            }
        }
        return .rss
    }

    mutating func startRoot(_ c: (ns: UInt8, fam: UInt8), _ uri: UnsafeRawBufferPointer, _ local: UnsafeRawBufferPointer,
                            _ attrs: UnsafeBufferPointer<XMLAttribute>) {
        rootSeen = true
        let version = SwiftFeedMachineCore.findAttr(attrs, "version")
        if c.fam == SFM.fRss && local.equalsIgnoringCase("rss") {
            format = version.map { SwiftFeedMachineCore.rssVersion($0.pointee.value, netscape) } ?? .rss
            scope = SFM.scRss
        } else if c.fam == SFM.fOther && local.equalsIgnoringCase("rss") {
            // An rss root in a namespace that is not RSS's (a URL of the specification,
            // say): RSS, its namespace's elements read as RSS's.
            lenientNS = Array(uri)
            lenientClass = (SFM.nsNone, SFM.fRss)
            format = version.map { SwiftFeedMachineCore.rssVersion($0.pointee.value, netscape) } ?? .rss
            scope = SFM.scRss
        } else if uri.count == 0 && local.equals("CHANNEL") {
            // Microsoft's CDF: its elements, in no namespace, are read by the CDF rules.
            lenientNS = []
            lenientClass = (SFM.nsNone, SFM.fCdf)
            format = .cdf
            scope = SFM.scFeed
        } else if c.fam == SFM.fRss && c.ns == SFM.nsNone && local.equals("channel") {
            // An RSS channel without its rss root.
            format = .rss
            scope = SFM.scFeed
        } else if c.fam == SFM.fRss && c.ns == SFM.nsNone && !seeking && local.equals("redirect") {
            // A moved feed's redirect document (<redirect><newLocation>…): its elements
            // read as an RSS channel's, newLocation the feed's new URL.
            format = .redirect
            scope = SFM.scFeed
        } else if c.fam == SFM.fRdf && local.equals("RDF") {
            format = .rss10   // refined by the channel's namespace
            scope = SFM.scRdf
        } else if c.ns == SFM.nsRss11 && local.equals("Channel") {
            // RSS 1.1: the root is the channel, its rdf:about the feed's id.
            format = .rss11
            scope = SFM.scFeed
            feed.pointee.setFieldAttr(SFM.fieldId, SFM.p1, findNSAttr(attrs, SFM.nsRdf, "about"))
        } else if c.fam == SFM.fAtom && local.equals("feed") {
            format = c.ns == SFM.nsAtom03 ? .atom03 : .atom10
            scope = SFM.scFeed
        } else if local.equals("feed") {
            // A feed in no or another namespace: Atom of an unknown version, its
            // namespace's elements read as Atom's (as lenient parsers do).
            lenientNS = Array(uri)
            lenientClass = (SFM.nsAtom10, SFM.fAtom)
            format = .atom
            scope = SFM.scFeed
        } else if c.fam == SFM.fAtom && !seeking && local.equals("entry") {
            // An Atom Entry Document (RFC 4287, section 2): the root is the one entry.
            format = c.ns == SFM.nsAtom03 ? .atom03 : .atom10
            scope = SFM.scFeed
            feedRoot(version, attrs)
            return beginItem(attrs)
        } else {
            // Not a feed's root: a feed may be inside it (an Atom feed in an XHTML page,
            // as lenient parsers find it). Its elements are looked at as roots in turn, the
            // first feed root found is the document's feed; none, and the document is not
            // a feed (the input stage's end_document). machine.c's start_root does the same.
            notFeed = true
            seeking = true
            if !pushFrame(SFM.aNone, 0, 0, 0) { return skip() }
            return
        }
        _ = pushFrame(SFM.aNone, 0, 0, 0)
        feedRoot(version, attrs)
    }

    /// The feed record's fields from its root element (or the entry of an entry document).
    mutating func feedRoot(_ version: UnsafePointer<XMLAttribute>?, _ attrs: UnsafeBufferPointer<XMLAttribute>) {
        notFeed = false
        seeking = false
        cur = feed
        feed.pointee.setFieldAttr(SFM.fieldVersion, SFM.p1, version)
        feed.pointee.setField(SFM.fieldLanguage, SFM.p3, copyScopeRef(feed, currentLang))
        feed.pointee.put(SFM.fieldBase, copyScopeRef(feed, currentBase))
        if format == .cdf { cdfCommon(attrs) }
    }

    /// Children of <rss> and <rdf:RDF>: the channel, and RSS 1.0's sibling elements.
    mutating func startInRoot(_ c: (ns: UInt8, fam: UInt8), _ uri: UnsafeRawBufferPointer, _ local: UnsafeRawBufferPointer,
                              _ attrs: UnsafeBufferPointer<XMLAttribute>) {
        var c = c
        if c.fam == SFM.fOther && scope == SFM.scRdf && lenientNS == nil && uri.count > 0 && local.equals("channel") {
            // An RDF channel in a namespace that is not RSS's (RSS 0.90's spelled another
            // way, say): RSS, its namespace's elements read as RSS's, as for an rss root in
            // such a namespace (machine.c's start_in_root does the same).
            lenientNS = Array(uri)
            lenientClass = (SFM.nsNone, SFM.fRss)
            c = lenientClass
        }
        if c.fam != SFM.fRss { return skip() }
        cur = feed
        if local.equalsIgnoringCase("channel") {
            if c.ns == SFM.nsRss090 { format = .rss090 }
            if scope == SFM.scRdf {
                feed.pointee.setFieldAttr(SFM.fieldId, SFM.p1, findNSAttr(attrs, SFM.nsRdf, "about"))
            }
            // The channel is the feed's record element: its xml:base counts.
            feed.pointee.put(SFM.fieldBase, copyScopeRef(feed, currentBase))
            return enter(SFM.scFeed)
        }
        if local.equalsIgnoringCase("item") { return beginItem(attrs) }
        if scope == SFM.scRdf {
            if local.equalsIgnoringCase("image") { return enter(SFM.scImage) }
            if local.equalsIgnoringCase("textinput") { return enter(SFM.scTextinput) }
        }
        skip()
    }

    // ---- markup inside captured text ------------------------------------------------------

    static func appendEscaped(_ a: inout SFMArena, _ s: UnsafePointer<UInt8>, _ len: Int, _ attr: Bool) {
        var start = 0
        var i = 0
        while i < len {
            let c = s[i]
            if c == UInt8(ascii: "&") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">") || c == UInt8(ascii: "\"") {
                var rep: StaticString? = nil
                switch c {
                case UInt8(ascii: "&"): rep = "&amp;"
                case UInt8(ascii: "<"): rep = "&lt;"
                case UInt8(ascii: ">"): if !attr { rep = "&gt;" }
                default: if attr { rep = "&quot;" }
                }
                if let rep {
                    a.append(s + start, i - start)
                    a.append(rep)
                    start = i + 1
                }
            }
            i += 1
        }
        a.append(s + start, len - start)
    }

    /// The captured element turned out to have child elements: what was captured as plain
    /// text so far becomes escaped markup text.
    mutating func switchToMarkup() {
        let r = capRec
        let from = Int(capStart)
        let len = r.pointee.arena.len - from
        var specials = 0
        let buf = r.pointee.arena.buf
        for i in from..<r.pointee.arena.len {
            let c = buf[i]
            if c == UInt8(ascii: "&") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">") { specials += 1 }
        }
        markup = true
        xhtmlStripDiv = 0
        if specials == 0 { return }
        if !r.pointee.arena.reserve(len + specials * 4) { return }
        let copyAt = r.pointee.arena.len
        SwiftFeedMachineCore.appendEscaped(&r.pointee.arena, r.pointee.arena.buf + from, len, false)
        let escLen = r.pointee.arena.len - copyAt
        memmove(r.pointee.arena.buf + from, r.pointee.arena.buf + copyAt, escLen)
        r.pointee.arena.len = from + escLen
    }

    @inline(__always)
    mutating func closePendingGT() {
        if markupPendingGT {
            capRec.pointee.arena.appendByte(UInt8(ascii: ">"))
            markupPendingGT = false
        }
    }

    mutating func markupStart(_ uri: UnsafeRawBufferPointer, _ local: UnsafeRawBufferPointer,
                              _ attrs: UnsafeBufferPointer<XMLAttribute>) {
        if !markup { switchToMarkup() }
        closePendingGT()
        markupDepth += 1
        if xhtmlStripDiv == 1 {
            if markupDepth == 1 && local.equals("div") && classify(uri).ns == SFM.nsXhtml {
                xhtmlStripDiv = 2   // the wrapper: not serialized
                return
            }
            xhtmlStripDiv = 0
        }
        let r = capRec
        r.pointee.arena.appendByte(UInt8(ascii: "<"))
        r.pointee.arena.append(local.baseAddress, local.count)
        if let p = attrs.baseAddress {
            for i in 0..<attrs.count {
                let a = p + i
                r.pointee.arena.appendByte(UInt8(ascii: " "))
                // An attribute's name as HTML serializes it: the XML and XLink namespaces'
                // with their prefixes (xml:lang, xlink:href), the others by local name.
                if SwiftFeedMachineCore.isXMLNS(a) {
                    r.pointee.arena.append("xml:")
                } else if SwiftFeedMachineCore.isXLinkNS(a) {
                    r.pointee.arena.append("xlink:")
                }
                r.pointee.arena.append(a.pointee.local.baseAddress, a.pointee.local.count)
                r.pointee.arena.append("=\"")
                let v = a.pointee.value
                if v.count > 0 {
                    SwiftFeedMachineCore.appendEscaped(&r.pointee.arena, v.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                       v.count, true)
                }
                r.pointee.arena.appendByte(UInt8(ascii: "\""))
            }
        }
        markupPendingGT = true
    }

    mutating func markupEnd(_ local: UnsafeRawBufferPointer) {
        if markupDepth == 1 && xhtmlStripDiv == 2 {
            xhtmlStripDiv = 0
            closePendingGT()
        } else if markupPendingGT {
            capRec.pointee.arena.append("/>")
            markupPendingGT = false
        } else {
            let r = capRec
            r.pointee.arena.append("</")
            r.pointee.arena.append(local.baseAddress, local.count)
            r.pointee.arena.appendByte(UInt8(ascii: ">"))
        }
        markupDepth -= 1
    }

    // ---- events ------------------------------------------------------------------------------

    mutating func start(_ uri: UnsafeRawBufferPointer, _ local: UnsafeRawBufferPointer,
                        _ attrs: UnsafeBufferPointer<XMLAttribute>) {
        depth += 1
        if fieldOver { limit = SFM.limitField; return }
        if capturing && extensionChild() { return }
        if capturing && !becomesPerson(uri, local) {
            markupStart(uri, local, attrs)
            return checkField()
        }
        if attrs.count > 0 { pushScopeAttrs(attrs) }
        if local.count == 0 { return skip() }
        let c = elementClass(uri)
        if scope == SFM.scDoc {
            if rootSeen && !seeking { skip() } else { startRoot(c, uri, local, attrs) }
        } else if scope == SFM.scRss || scope == SFM.scRdf {
            startInRoot(c, uri, local, attrs)
        } else {
            if let ru = findRule(c.fam, local, scope) {
                apply(ru.pointee, attrs)
            } else if scope & (SFM.scFeed | SFM.scItem) != 0 {
                startExtension(uri, local, attrs)
            } else {
                skip()
            }
            if cur == feed { feedDirty = true }
        }
    }

    /// An element's namespace class: its URI's, or the lenient one the root set for it.
    @inline(__always)
    mutating func elementClass(_ uri: UnsafeRawBufferPointer) -> (ns: UInt8, fam: UInt8) {
        if let ns = lenientNS, ns.elementsEqual(uri) { return lenientClass }
        return classify(uri)
    }

    /// A person written as text (RSS `author`, `dc:creator`: ``SFM/personTextColumn``)
    /// whose first child, after white space only, is one a person rule reads (`name`,
    /// `email`, `uri`, `url`): the person is read as Atom's instead. The white space
    /// captured is dropped, the element's frame becomes a person scope's, and the child
    /// is read by the person rules. The same in machine.c's `becomes_person`.
    mutating func becomesPerson(_ uri: UnsafeRawBufferPointer, _ local: UnsafeRawBufferPointer) -> Bool {
        guard markupDepth == 0, !markup, nframes > 0 else { return false }
        let fr = frames + (nframes - 1)
        guard fr.pointee.action == SFM.aCapRow, Int(fr.pointee.col) == SFM.personTextColumn,
              Int(fr.pointee.target) == SFM.listAuthors || Int(fr.pointee.target) == SFM.listContributors
        else { return false }
        let captured = SFMRef(off: capStart, len: UInt32(truncatingIfNeeded: capRec.pointee.arena.len - Int(capStart)))
        guard capRec.pointee.isBlank(captured) else { return false }
        guard findRule(elementClass(uri).fam, local, SFM.scPerson) != nil else { return false }
        capRec.pointee.arena.len = Int(capStart)
        capturing = false
        fr.pointee.action = SFM.aNone
        personList = fr.pointee.target
        scope = SFM.scPerson
        return true
    }

    @inline(__always)
    mutating func skipEnd() {
        skipDepth -= 1
        if skipDepth == 0 { popScopeAttrs() }   // the element that started the skip may have pushed
        depth -= 1
        if depth == 0 && rootSeen { rootClosed = true }
    }

    @inline(__always)
    mutating func text(_ s: UnsafeRawBufferPointer) {
        if !capturing { return }
        if markup {
            closePendingGT()
            if s.count == 0 { return }
            SwiftFeedMachineCore.appendEscaped(&capRec.pointee.arena, s.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                               s.count, false)
        } else {
            capRec.pointee.arena.append(s.baseAddress, s.count)
        }
        checkField()
    }

    /// The text being gathered passed maxFieldBytes: the field's text is dropped and no
    /// more is gathered (the capture ends), and the document stops at the next start or
    /// end tag, a place in the input however the tokenizer cut the text (machine.c's
    /// check_field and field_limit). An extension element's text over it: the element is
    /// skipped, as one holding elements is, and the document goes on.
    @inline(__always)
    mutating func checkField() {
        if capRec.pointee.arena.len - Int(capStart) > maxFieldBytes {
            if inExtension { return dropExtension(1) }
            capRec.pointee.arena.len = Int(capStart)
            capturing = false
            fieldOver = true
        }
    }

    mutating func finishCapture(_ fr: SFMFrame) {
        let r = capRec
        closePendingGT()
        let ref = SFMRef(off: capStart, len: UInt32(truncatingIfNeeded: r.pointee.arena.len - Int(capStart)))
        if fr.action == SFM.aCapFallback {
            if !r.pointee.isBlank(ref) {
                r.pointee.put(Int(fr.target), ref)
                r.pointee.prio[Int(fr.target)] = fr.col
            }
        } else if fr.action == SFM.aCapField {
            r.pointee.put(Int(fr.target), ref)
            r.pointee.prio[Int(fr.target)] = fr.col
        } else if fr.action == SFM.aCapExt {
            // The text row is the last; after attribute rows, white space only drops it.
            let t = Int(fr.target)
            let count = r.pointee.lists[t].count
            if count > Int(fr.row) + 1 && r.pointee.isBlank(ref) {
                r.pointee.lists[t].count = count - 1
            } else if count > Int(fr.row) {
                let v = r.pointee.lists[t]
                v.v![(count - 1) * v.stride + Int(fr.col)] = ref
            }
        } else {
            // A link's address from its text (rAlink): white space only gives none.
            let v = r.pointee.lists[Int(fr.target)]
            if Int(fr.row) < v.count && !(Int(fr.target) == SFM.listLinks && r.pointee.isBlank(ref)) {
                v.v![Int(fr.row) * v.stride + Int(fr.col)] = ref
            }
        }
        capturing = false
        markup = false
        if r == feed { feedDirty = true }
    }

    /// An end tag; returns true when an item ended (the caller delivers it).
    mutating func end(_ local: UnsafeRawBufferPointer) -> Bool {
        if fieldOver { limit = SFM.limitField; return false }
        if capturing && markupDepth > 0 {
            markupEnd(local)
            depth -= 1
            checkField()
            return false
        }
        popScopeAttrs()
        depth -= 1
        if depth == 0 && rootSeen { rootClosed = true }
        if nframes == 0 { return false }
        nframes -= 1
        let fr = frames[nframes]
        if scope == SFM.scItcat { itcatRow = fr.row }
        scope = fr.scope
        cur = fr.item ? item : feed
        switch fr.action {
        case SFM.aCapField, SFM.aCapRow, SFM.aCapFallback, SFM.aCapExt:
            finishCapture(fr)
            return false
        case SFM.aEndItem:
            inItem = false
            cur = feed
            return true
        case SFM.aEndParent:
            parentRow = fr.row
            return false
        default:
            return false
        }
    }
}
