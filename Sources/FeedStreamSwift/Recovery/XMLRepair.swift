// SPDX-License-Identifier: Apache-2.0
// The recovery path's lenient reader: turns the bytes of a document that failed as XML
// into well-formed UTF-8 XML, repairing each fault the way lenient feed parsers do, so
// that the strict Swift tokenizer and machine can read it (FeedRecovery). One
// implementation for every backend: the expat and libxml2 backends hand a failed
// document's bytes here too, so a recovered document reads the same whatever the backend.
//
// The rules (docs/SCHEMA.md, "Recovered documents", says the same to users):
// - Characters: the document is decoded by its byte order mark, else its declared
//   encoding, else UTF-8 (the charset found goes in the feed record's `encoding`, as when
//   the document is read whole). In UTF-8, a byte that does not start a valid sequence is read
//   as windows-1252 (so a Latin-1 document that says nothing, or one stray Latin-1 byte,
//   reads as its author meant). A character that cannot be decoded otherwise, and a
//   character XML forbids (C0 controls, lone surrogates, U+FFFE/U+FFFF), becomes U+FFFD.
//   The output is UTF-8 and its XML declaration is dropped.
// - `&`: a character reference to a valid character is kept (`&#X41;` is written
//   `&#x41;`); one to an invalid character, and a bare `&`, are kept as literal text.
//   `&name;` is left as it is (the strict reader reads it as in any document: XML,
//   declared and HTML 4 entities decoded, any other name kept as its literal text).
// - `<` that cannot start markup (a space, a digit, `=`, ...) is literal text; so is
//   `]]>` in text.
// - Tags: an end tag closes every element open above its match (matched exactly, else
//   ignoring ASCII case); an end tag with no open match is dropped. An `item` or
//   `entry` start tag closes what is open inside the nearest channel or feed (an item
//   left open, a field never closed), as feed parsers that ignore nesting read it. Attributes: unquoted values are quoted, a name without a
//   value gets its name as value (HTML's rule), a repeated name keeps its first value,
//   a `<` or an unescaped `&` in a value is escaped. An undeclared prefix is bound to
//   the namespace of the family of that name (feed_rules.def: `itunes`, `media`, `dc`,
//   ...), or to `urn:feedstream:undeclared-prefix:NAME`; an element's `xmlns` prefix,
//   which cannot be bound, is written `undeclared-xmlns` (`bindable`).
// - Comments lose a `--` inside them; an unclosed comment, CDATA section or tag ends
//   the document there.
// - What follows the root element's end, and text before the root, is dropped; at the
//   end of the input every element still open is closed.
// The repair never reads anything external; the strict reader that reads its output
// applies every limit.

import FeedStreamCore


/// Repairs one document's bytes (see the rules at the top of this file).
struct XMLRepair {
    private var out: [UInt8] = []
    /// Open elements: qualified names, and how many prefix bindings each added.
    private var open: [(name: [UInt8], bindings: Int)] = []
    /// Prefixes in scope (declared or added), innermost last.
    private var prefixes: [[UInt8]] = []
    /// Open elements by name, as written and in lower case, and open containers: an end
    /// tag or an item with nothing to match is dropped without a search, and a search
    /// stops at its match, whose elements above it are closed (linear in all).
    private var openNames: [[UInt8]: Int] = [:]
    private var openLowered: [[UInt8]: Int] = [:]
    private var openContainers = 0
    /// How many times each prefix is in `prefixes` (a lookup that stays linear however
    /// many a tag declares).
    private var prefixCount: [[UInt8]: Int] = [:]
    private var rootClosed = false
    /// Past these the strict re-read fails on the limit anyway: the repair stops there
    /// (elements: the document ends; attributes: the rest of the tag's are not kept),
    /// so a hostile document costs it no more than the limits allow.
    private var maxDepth = Int.max
    private var maxAttributes = Int.max

    /// The repaired document: well-formed UTF-8 XML for every input the rules cover, and
    /// the charset it was decoded from (``XMLTranscoder/name``).
    static func repair(_ document: UnsafeRawBufferPointer, limits: FeedLimits = .default,
                       transportCharset: String? = nil) -> (xml: [UInt8], charset: String)
    {
        let (text, charset) = decode(document, transportCharset: transportCharset)
        var r = XMLRepair()
        r.maxDepth = FeedLimits.effective(limits.maxDepth)
        r.maxAttributes = FeedLimits.effective(limits.maxAttributes)
        r.out.reserveCapacity(text.count + text.count / 16 + 64)
        text.withUnsafeBufferPointer { r.markup($0) }
        return (r.out, charset)
    }

    // ---- characters -------------------------------------------------------------------

    /// The document as UTF-8 made of XML characters only, without its XML declaration,
    /// and the charset it was decoded from: found by its first bytes as the tokenizer
    /// finds it (``XMLTranscoder/sniff(_:_:)``), else by the transport's charset
    /// (without a byte order mark, as the tokenizer's `transportCharset`), else by its
    /// declaration when the name is known, else UTF-8.
    static func decode(_ d: UnsafeRawBufferPointer, transportCharset: String? = nil) -> (utf8: [UInt8], charset: String) {
        let b = d.bindMemory(to: UInt8.self)
        guard let base = b.baseAddress, b.count > 0 else { return ([], "utf-8") }
        var (transcoder, start) = XMLTranscoder.sniff(base, b.count)
        let transport = transcoder == nil && start == 0 ? transportCharset.flatMap(XMLTranscoder.transport) : nil
        if let transport {
            transcoder = transport.isPassthrough ? nil : transport
        } else if transcoder == nil, let name = declaredEncoding(b),
           let t = XMLTranscoder.named(UnsafeRawBufferPointer(rebasing: d[name])), !t.isPassthrough, !t.isWide {
            transcoder = t
        }
        guard var t = transcoder else {
            let utf8 = Array(UnsafeRawBufferPointer(rebasing: d[start...]))
            return (xmlCharacters(dropDeclaration(utf8)), "utf-8")
        }
        // A character that cannot be decoded is U+FFFD; the next one is tried one code
        // unit on.
        let unit = t.kind == .utf32LE || t.kind == .utf32BE ? 4 : t.isUTF16 ? 2 : 1
        let buffer = TranscodeBuffer(capacity: b.count + 16)
        var i = start
        while i < b.count {
            let (consumed, invalid) = t.decode(UnsafeRawBufferPointer(rebasing: d[i...]), final: true, into: buffer)
            i += consumed
            if invalid != nil {
                appendReplacement(buffer)
                i += min(unit, b.count - i)
            } else if consumed == 0 {
                break
            }
        }
        return (xmlCharacters(dropDeclaration(Array(buffer.bytes))), t.name)
    }

    private static func appendReplacement(_ buffer: TranscodeBuffer) {
        let p = buffer.reserveFree(3)
        p[0] = 0xEF; p[1] = 0xBF; p[2] = 0xBD
        buffer.count += 3
    }

    /// The range of the encoding name in an ASCII-compatible XML declaration.
    private static func declaredEncoding(_ b: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard b.count > 5, b[0] == 0x3C, b[1] == 0x3F, b[2] == 0x78, b[3] == 0x6D, b[4] == 0x6C else { return nil }
        var end = 5
        while end + 1 < b.count && !(b[end] == 0x3F && b[end + 1] == 0x3E) && b[end] != 0x3C { end += 1 }
        let key: [UInt8] = Array("encoding".utf8)
        var i = 5
        while i + key.count < end {
            if b[i] == key[0] && Array(b[i..<(i + key.count)]) == key {
                var j = i + key.count
                while j < end && (b[j] == 0x20 || b[j] == 0x3D || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D) { j += 1 }
                guard j < end, b[j] == 0x22 || b[j] == 0x27 else { return nil }
                let q = b[j]
                var k = j + 1
                while k < end && b[k] != q { k += 1 }
                return k > j + 1 ? (j + 1)..<k : nil
            }
            i += 1
        }
        return nil
    }

    /// Drops a leading XML declaration (`<?xml ... ?>`).
    private static func dropDeclaration(_ u: [UInt8]) -> [UInt8] {
        guard u.count > 5, u[0] == 0x3C, u[1] == 0x3F, u[2] == 0x78, u[3] == 0x6D, u[4] == 0x6C,
              isSpace(u[5]) || u[5] == 0x3F else { return u }
        var i = 5
        while i + 1 < u.count {
            if u[i] == 0x3F && u[i + 1] == 0x3E { return Array(u[(i + 2)...]) }
            if u[i] == 0x3C { return Array(u[i...]) }   // never closed: drop what it said
            i += 1
        }
        return []
    }

    /// UTF-8 bytes as valid UTF-8 of XML characters: invalid bytes read as windows-1252,
    /// forbidden characters replaced by U+FFFD.
    static func xmlCharacters(_ u: [UInt8]) -> [UInt8] {
        var o: [UInt8] = []
        o.reserveCapacity(u.count)
        var i = 0
        let n = u.count
        while i < n {
            // A run of printable ASCII and the three white-space controls: copied at once.
            var j = i
            while j < n, u[j] >= 0x20 && u[j] < 0x80 || u[j] == 0x0A || u[j] == 0x09 || u[j] == 0x0D { j += 1 }
            if j > i {
                o.append(contentsOf: u[i..<j])
                i = j
                if i == n { break }
            }
            let c = u[i]
            if c < 0x80 {
                if c >= 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { o.append(c) } else { o += replacement }
                i += 1
                continue
            }
            let len = sequenceLength(u, i)
            if len == 0 {
                appendUTF8(windows1252Character(c), to: &o)
                i += 1
                continue
            }
            var v = UInt32(c) & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07)
            for k in 1..<len { v = v << 6 | UInt32(u[i + k] & 0x3F) }
            if v == 0xFFFE || v == 0xFFFF { o += replacement } else { o += u[i..<(i + len)] }
            i += len
        }
        return o
    }

    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// The length of the valid UTF-8 sequence at u[i] (a lead byte), or 0.
    private static func sequenceLength(_ u: [UInt8], _ i: Int) -> Int {
        let c = u[i]
        let n = u.count
        func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool { k < n && u[k] >= lo && u[k] <= hi }
        switch c {
        case 0xC2...0xDF: return cont(i + 1) ? 2 : 0
        case 0xE0: return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0
        case 0xED: return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0   // no surrogates
        case 0xE1...0xEF: return cont(i + 1) && cont(i + 2) ? 3 : 0
        case 0xF0: return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0
        case 0xF1...0xF3: return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0
        case 0xF4: return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0
        default: return 0
        }
    }

    /// windows-1252's character for a byte >= 0x80 (``windows1252``; its five unassigned
    /// bytes read as their Latin-1 code points, as browsers do).
    private static func windows1252Character(_ c: UInt8) -> UInt32 {
        guard c >= 0x80 && c <= 0x9F else { return UInt32(c) }
        return windows1252[Int(c & 0x1F)] ?? UInt32(c)
    }

    // ---- markup -----------------------------------------------------------------------

    private mutating func markup(_ s: UnsafeBufferPointer<UInt8>) {
        let n = s.count
        var i = 0
        while i < n && !rootClosed {
            let c = s[i]
            if c != 0x3C {
                // Text: up to the next '<'.
                var j = i
                while j < n && s[j] != 0x3C { j += 1 }
                if !open.isEmpty { text(s, i, j, quote: 0) }
                i = j
                continue
            }
            let next: UInt8 = i + 1 < n ? s[i + 1] : 0
            if next == 0x21 {   // <!
                if hasPrefix(s, i, "<!--") {
                    guard let end = find(s, i + 4, "-->") else { return }
                    out += B.commentStart
                    var k = i + 4
                    while k < end {
                        if s[k] == 0x2D && (k + 1 == end || s[k + 1] == 0x2D) { out.append(0x20) } else { out.append(s[k]) }
                        k += 1
                    }
                    out += B.commentEnd
                    i = end + 3
                } else if hasPrefix(s, i, "<![CDATA[") {
                    let end = find(s, i + 9, "]]>")
                    if !open.isEmpty {
                        out += s[i..<(end ?? n)]
                        out += B.cdataEnd
                    }
                    guard let end else { i = n; break }
                    i = end + 3
                } else if hasPrefix(s, i, "<!DOCTYPE") && open.isEmpty {
                    i = doctype(s, i)
                } else {
                    // Some other declaration: literal text inside an element, else dropped.
                    if !open.isEmpty { out += B.lt }
                    i += 1
                }
            } else if next == 0x3F {   // <?
                guard let end = find(s, i + 2, "?>") else { return }
                let target = nameEnd(s, i + 2)
                let t = Array(s[(i + 2)..<target])
                if target > i + 2 && asciiLowercased(t) != B.xml { out += s[i..<(end + 2)] }
                i = end + 2
            } else if next == 0x2F {   // </
                i = endTag(s, i)
            } else if isNameStart(next) {
                i = startTag(s, i)
            } else {
                if !open.isEmpty { out += B.lt }
                i += 1
            }
        }
        while let top = open.popLast() { closeElement(top) }
    }

    /// The DOCTYPE declaration (with its internal subset), copied as it is when its
    /// name and external identifier are well-formed. One whose identifier is not
    /// (HTML's `PUBLIC "-//W3C//DTD HTML 4.01//EN"` without a system literal, a stray
    /// word) is written without it: the external subset is never read, so only the name
    /// and the internal subset mean anything here. One without a name is dropped.
    /// Returns the index past it.
    private mutating func doctype(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        var j = i + 9
        var quote: UInt8 = 0
        var inSubset = false
        var subset: Int?
        while j < s.count {
            let c = s[j]
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == 0x22 || c == 0x27 {
                quote = c
            } else if c == 0x5B {
                inSubset = true
                if subset == nil { subset = j }
            } else if c == 0x5D {
                inSubset = false
            } else if c == 0x3E && !inSubset {
                break
            }
            j += 1
        }
        guard j < s.count else { return s.count }
        let header = subset ?? j
        var k = i + 9
        func spaces() -> Bool {
            let from = k
            while k < header, s[k] == 0x20 || s[k] == 0x09 || s[k] == 0x0A || s[k] == 0x0D { k += 1 }
            return k > from
        }
        func literal() -> Bool {
            guard k < header, s[k] == 0x22 || s[k] == 0x27 else { return false }
            let q = s[k]
            k += 1
            while k < header && s[k] != q { k += 1 }
            guard k < header else { return false }
            k += 1
            return true
        }
        guard spaces(), k < header, isNameStart(s[k]) else { return j + 1 }
        let name = k ..< nameEnd(s, k)
        k = name.upperBound
        let spaced = spaces()
        var wellFormed = k == header
        if !wellFormed && spaced {
            if hasPrefix(s, k, "SYSTEM") {
                k += 6
                wellFormed = spaces() && literal()
            } else if hasPrefix(s, k, "PUBLIC") {
                k += 6
                wellFormed = spaces() && literal() && spaces() && literal()
            }
            _ = spaces()
            wellFormed = wellFormed && k == header
        }
        if wellFormed {
            out += s[i...j]
        } else {
            out += s[i..<(i + 9)]
            out.append(0x20)
            out += s[name]
            if let subset { out += s[subset..<j] }
            out.append(0x3E)
        }
        return j + 1
    }

    /// Text (or an attribute value, when `quote` is its quote) from s[from..<to].
    private mutating func text(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, quote: UInt8) {
        var i = from
        while i < to {
            // A run that needs nothing: copied at once.
            var j = i
            while j < to, s[j] != 0x26, s[j] != 0x3C, s[j] != 0x3E, s[j] != 0x22 { j += 1 }
            if j > i {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i..<j]))
                i = j
                if i == to { break }
            }
            let c = s[i]
            switch c {
            case 0x26:
                i = reference(s, i, to)
                continue
            case 0x3C:
                out += B.lt
            case 0x3E:
                // "]]>" may not appear in text.
                if quote == 0 && out.count >= 2 && out[out.count - 1] == 0x5D && out[out.count - 2] == 0x5D {
                    out += B.gt
                } else {
                    out.append(c)
                }
            case 0x22 where quote == 0x22:
                out += B.quot
            default:
                out.append(c)
            }
            i += 1
        }
    }

    /// An `&` at s[i]: writes what it stands for; returns the index past what it took.
    private mutating func reference(_ s: UnsafeBufferPointer<UInt8>, _ i: Int, _ to: Int) -> Int {
        if i + 1 < to && s[i + 1] == 0x23 {   // &#
            var j = i + 2
            let hex = j < to && (s[j] == 0x78 || s[j] == 0x58)
            if hex { j += 1 }
            let digitsStart = j
            var v: UInt32 = 0
            var overflow = false
            while j < to, let d = digit(s[j], hex: hex) {
                v = v &* (hex ? 16 : 10) &+ d
                if v > 0x10FFFF { overflow = true }
                j += 1
            }
            if j < to && s[j] == 0x3B && j > digitsStart && !overflow && isXMLScalar(v) {
                out += Array(hex ? "&#x".utf8 : "&#".utf8)
                out += s[digitsStart...j]
                return j + 1
            }
            out += B.amp
            return i + 1
        }
        let e = nameEnd(s, i + 1)
        guard e > i + 1, e < to, s[e] == 0x3B, isNameStart(s[i + 1]) else {
            out += B.amp
            return i + 1
        }
        // A reference to a named entity is left as it is: the strict reader decodes the
        // XML and declared ones, decodes HTML 4 names in text and keeps any other name as
        // the literal text (docs/SCHEMA.md, "Entities"), as in any document.
        out += s[i...e]
        return e + 1
    }

    private mutating func endTag(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let ne = nameEnd(s, i + 2)
        var j = ne
        while j < s.count && s[j] != 0x3E && s[j] != 0x3C { j += 1 }
        guard ne > i + 2, j < s.count, s[j] == 0x3E else {
            // Not an end tag: literal text.
            if !open.isEmpty { out += B.ltSlash }
            return i + 2
        }
        let name = Self.bindable(Array(s[(i + 2)..<ne]))
        let lowered = asciiLowercased(name)
        let k = openNames[name, default: 0] > 0 ? open.lastIndex(where: { $0.name == name })
            : openLowered[lowered, default: 0] > 0 ? open.lastIndex(where: { asciiLowercased($0.name) == lowered })
            : nil
        if let k {
            while open.count > k { closeElement(open.removeLast()) }
            if open.isEmpty { rootClosed = true }
        }
        return j + 1
    }

    private mutating func openElement(_ name: [UInt8], _ bindings: Int) {
        open.append((name, bindings))
        openNames[name, default: 0] += 1
        openLowered[asciiLowercased(name), default: 0] += 1
        if Self.isContainer(name) { openContainers += 1 }
    }

    private mutating func closeElement(_ e: (name: [UInt8], bindings: Int)) {
        openNames[e.name, default: 1] -= 1
        openLowered[asciiLowercased(e.name), default: 1] -= 1
        if Self.isContainer(e.name) { openContainers -= 1 }
        out += B.endTagStart
        out += e.name
        out.append(0x3E)
        popPrefixes(e.bindings)
    }

    private mutating func startTag(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let n = s.count
        let ne = nameEnd(s, i + 1)
        let name = Self.bindable(Array(s[(i + 1)..<ne]))
        var attributes: [(name: [UInt8], value: Range<Int>?, quote: UInt8)] = []
        var names: Set<[UInt8]> = []   // a repeated name keeps its first value (linear)
        var j = ne
        var selfClosing = false
        var unclosed = false
        while true {
            while j < n && isSpace(s[j]) { j += 1 }
            guard j < n else { unclosed = true; break }
            let c = s[j]
            if c == 0x3E { j += 1; break }
            if c == 0x2F && j + 1 < n && s[j + 1] == 0x3E { selfClosing = true; j += 2; break }
            if c == 0x3C { break }   // never closed: the tag ends where the next begins
            guard isNameStart(c) else { j += 1; continue }   // junk in the tag
            let an = nameEnd(s, j)
            let attributeName = Array(s[j..<an])
            j = an
            while j < n && isSpace(s[j]) { j += 1 }
            var value: Range<Int>? = nil
            var quote: UInt8 = 0x22
            if j < n && s[j] == 0x3D {
                j += 1
                while j < n && isSpace(s[j]) { j += 1 }
                if j < n && (s[j] == 0x22 || s[j] == 0x27) {
                    quote = s[j]
                    var k = j + 1
                    while k < n && s[k] != quote { k += 1 }
                    if k == n {   // never closed: up to the tag's end
                        k = j + 1
                        while k < n && s[k] != 0x3E { k += 1 }
                        value = (j + 1)..<k
                        j = k
                    } else {
                        value = (j + 1)..<k
                        j = k + 1
                    }
                } else {
                    var k = j
                    while k < n && !isSpace(s[k]) && s[k] != 0x3E { k += 1 }
                    value = j..<k
                    j = k
                }
            }
            if attributes.count <= maxAttributes && names.insert(attributeName).inserted {
                attributes.append((attributeName, value, quote))
            }
        }
        if rootClosed { return j }
        if name == B.item || name == B.entry, openContainers > 0,
           let container = open.lastIndex(where: { Self.isContainer($0.name) }) {
            // An item's parent is the channel or feed: close what was left open in it.
            while open.count > container + 1 { closeElement(open.removeLast()) }
        }
        out.append(0x3C)
        out += name
        var bindings = 0
        for a in attributes {
            out.append(0x20)
            out += a.name
            out += Array("=\"".utf8)
            if let v = a.value { text(s, v.lowerBound, v.upperBound, quote: 0x22) } else { out += a.name }
            out.append(0x22)
            if a.name.count > 6 && Array(a.name[0..<6]) == B.xmlnsColon {
                pushPrefix(Array(a.name[6...]))
                bindings += 1
            }
        }
        // Prefixes used and not declared.
        var used: [[UInt8]] = []
        if let p = prefix(name) { used.append(p) }
        for a in attributes {
            if let p = prefix(a.name), p != B.xmlns { used.append(p) }
        }
        for p in used where p != B.xml && prefixCount[p, default: 0] == 0 {
            out += B.spaceXmlnsColon
            out += p
            out += Array("=\"".utf8)
            out += Self.namespace(forPrefix: p)
            out.append(0x22)
            pushPrefix(p)
            bindings += 1
        }
        if selfClosing || unclosed && j >= n || Self.isHTMLVoid(name) {
            out += B.emptyEnd
            popPrefixes(bindings)
            if open.isEmpty { rootClosed = true }
        } else {
            out.append(0x3E)
            openElement(name, bindings)
            if open.count > maxDepth { rootClosed = true }   // the re-read stops here on the limit
        }
        return j
    }

    /// The HTML void elements that HTML left unescaped in a field is full of (`<br>`,
    /// `<hr>`, `<img …>`, `<wbr>`: never closed in HTML), in no prefix and any case:
    /// written empty, so that they do not hold the rest of the field (`a<br>b` was
    /// `a<br>b</br>`). Their end tags, when written, then match no open element and are
    /// dropped. Not the other void elements (`link`, `source`, `meta`, `track`, …):
    /// feeds use those names for elements that hold text or children.
    private static func isHTMLVoid(_ name: [UInt8]) -> Bool {
        guard name.count == 2 || name.count == 3 else { return false }
        let lowered = asciiLowercased(name)
        return lowered == B.br || lowered == B.hr || lowered == B.img || lowered == B.wbr
    }

    /// The elements items are children of: `channel`, `feed`, `rss`, `rdf:RDF`.
    private static func isContainer(_ name: [UInt8]) -> Bool {
        let local = name.lastIndex(of: 0x3A).map { Array(name[($0 + 1)...]) } ?? name
        return local == B.channel || local == B.feed || local == B.rss
            || local == B.rdfRoot
    }

    private mutating func pushPrefix(_ p: [UInt8]) {
        prefixes.append(p)
        prefixCount[p, default: 0] += 1
    }

    private mutating func popPrefixes(_ n: Int) {
        for _ in 0..<n { prefixCount[prefixes.removeLast(), default: 1] -= 1 }
    }

    private func prefix(_ name: [UInt8]) -> [UInt8]? {
        guard let colon = name.firstIndex(of: 0x3A), colon > 0 else { return nil }
        return Array(name[..<colon])
    }

    /// An element name with the prefix `xmlns`, which no declaration may bind (Namespaces
    /// in XML, section 3: every backend fails it as an unbound prefix), written with the
    /// prefix `undeclared-xmlns` instead, in its start and end tags alike: bound like any
    /// undeclared prefix, it is an unknown element, skipped, and the item around it is
    /// kept. Other names as they are.
    static func bindable(_ name: [UInt8]) -> [UInt8] {
        guard name.count > B.xmlnsColon.count, name.starts(with: B.xmlnsColon) else { return name }
        return B.undeclaredXmlns + name[(B.xmlnsColon.count - 1)...]
    }

    /// The namespace an undeclared prefix is bound to.
    static func namespace(forPrefix p: [UInt8]) -> [UInt8] {
        let lower = String(decoding: asciiLowercased(p), as: UTF8.self)
        if let family = SFM.familyPrefixes.firstIndex(of: lower),
           let ns = SwiftRulesTable.namespaces.first(where: { Int($0.2) == family }) {
            return Array(ns.0.utf8)
        }
        return Array("urn:feedstream:undeclared-prefix:".utf8) + p
    }
}

// ---- bytes ----------------------------------------------------------------------------

/// The byte strings the repair writes and compares (made once).
private enum B {
    static let amp: [UInt8] = Array("&amp;".utf8)
    static let undeclaredXmlns: [UInt8] = Array("undeclared-xmlns".utf8)
    static let br: [UInt8] = Array("br".utf8)
    static let cdataEnd: [UInt8] = Array("]]>".utf8)
    static let channel: [UInt8] = Array("channel".utf8)
    static let commentEnd: [UInt8] = Array("-->".utf8)
    static let commentStart: [UInt8] = Array("<!--".utf8)
    static let emptyEnd: [UInt8] = Array("/>".utf8)
    static let endTagStart: [UInt8] = Array("</".utf8)
    static let entry: [UInt8] = Array("entry".utf8)
    static let feed: [UInt8] = Array("feed".utf8)
    static let gt: [UInt8] = Array("&gt;".utf8)
    static let hr: [UInt8] = Array("hr".utf8)
    static let img: [UInt8] = Array("img".utf8)
    static let item: [UInt8] = Array("item".utf8)
    static let lt: [UInt8] = Array("&lt;".utf8)
    static let ltSlash: [UInt8] = Array("&lt;/".utf8)
    static let quot: [UInt8] = Array("&quot;".utf8)
    static let rdfRoot: [UInt8] = Array("RDF".utf8)
    static let rss: [UInt8] = Array("rss".utf8)
    static let spaceXmlnsColon: [UInt8] = Array(" xmlns:".utf8)
    static let wbr: [UInt8] = Array("wbr".utf8)
    static let xml: [UInt8] = Array("xml".utf8)
    static let xmlns: [UInt8] = Array("xmlns".utf8)
    static let xmlnsColon: [UInt8] = Array("xmlns:".utf8)
}

private func isNameStart(_ c: UInt8) -> Bool {
    (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A || c == 0x5F || c == 0x3A || c >= 0x80
}

private func isNameByte(_ c: UInt8) -> Bool {
    isNameStart(c) || c >= 0x30 && c <= 0x39 || c == 0x2D || c == 0x2E
}

private func nameEnd(_ s: UnsafeBufferPointer<UInt8>, _ from: Int) -> Int {
    var j = from
    while j < s.count && isNameByte(s[j]) { j += 1 }
    return j
}

private func hasPrefix(_ s: UnsafeBufferPointer<UInt8>, _ i: Int, _ p: StaticString) -> Bool {
    let n = p.utf8CodeUnitCount
    guard i + n <= s.count else { return false }
    let q = p.utf8Start
    for k in 0..<n where s[i + k] != q[k] { return false }
    return true
}

private func find(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ p: StaticString) -> Int? {
    var i = from
    let first = p.utf8Start[0]
    while i < s.count {
        if s[i] == first && hasPrefix(s, i, p) { return i }
        i += 1
    }
    return nil
}

private func digit(_ c: UInt8, hex: Bool) -> UInt32? {
    if c >= 0x30 && c <= 0x39 { return UInt32(c - 0x30) }
    guard hex else { return nil }
    let l = c | 0x20
    return l >= 0x61 && l <= 0x66 ? UInt32(l - 0x61 + 10) : nil
}

private func isXMLScalar(_ v: UInt32) -> Bool {
    v == 0x09 || v == 0x0A || v == 0x0D || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD)
        || (v >= 0x10000 && v <= 0x10FFFF)
}

private func asciiLowercased(_ b: [UInt8]) -> [UInt8] {
    b.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
}
