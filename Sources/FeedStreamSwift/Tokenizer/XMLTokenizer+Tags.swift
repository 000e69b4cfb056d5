// SPDX-License-Identifier: Apache-2.0 AND MIT
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// Markup: start and end tags, attributes and their values.
extension SwiftXMLTokenizer {
    func markup(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) throws -> Step {
        guard i + 1 < n else { return needMore(i, final) }
        let c = s[i + 1]
        if c == 0x2F { return try endTag(s, i, n, final: final) }
        if c == 0x21 { return try declarationOrComment(s, i, n, final: final) }
        if c == 0x3F { return processingInstruction(s, i, n, final: final) }
        return try startTag(s, i, n, final: final)
    }

    @inline(__always)
    func needMore(_ i: Int, _ final: Bool) -> Step {
        .stop(final ? .error(i, "unclosed token") : .more(i))
    }

    /// How a name may hold colons (expat in namespace mode): element and attribute
    /// names one, followed by a name's first character; end tags any (they must match
    /// a start tag anyway); references, PI targets none (a colon ends the name).
    enum Colons { case qualified, any, none }

    /// Scans a name from `i`; returns its end, or -1 when the input ends first, -2 when
    /// there is no valid name (the bad byte in ``badNameByte``, where expat reports it).
    @inline(__always)
    func name(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, colons: Colons = .qualified) -> Int {
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
    var nameCharacters: NameCharacters {
        NameCharacters(latin1: entityDepth == 0 && transcoder?.kind == .latin1)
    }

    func startTag(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) throws -> Step {
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
    struct DefaultValueError: Error { var at: Int; var message: String }

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
    func attributeDefault(_ s: UnsafePointer<UInt8>, _ from: Int, _ to: Int, cdata: Bool,
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

    func appendDefault(_ s: UnsafePointer<UInt8>, _ from: Int, _ to: Int, cdata: Bool, top: Bool, quote: Int,
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
    func referenceEnd(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> Int {
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

    func growRaw() {
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
    func element(_ s: UnsafePointer<UInt8>, _ tagStart: Int, _ nameStart: Int, _ nameEnd: Int, _ colonAt: Int,
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
        // to millions with --max-attributes 0): through hash tables, linear.
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
    func declaredCDATA(_ qname: UnsafePointer<UInt8>, _ qlen: Int, _ a: RawAttr) -> Bool {
        for d in defaults where d.name.count == Int(a.nameLength) && d.element.count == qlen
            && bytesEqual(d.name.baseAddress!, a.name, d.name.count)
            && d.element.withUnsafeBufferPointer({ bytesEqual($0.baseAddress!, qname, qlen) }) {
            return d.cdata
        }
        return true
    }

    /// Adds the declared defaults of attributes the tag does not specify, after the
    /// specified ones (as expat does). Returns the new attribute count.
    func applyDefaults(_ qname: UnsafePointer<UInt8>, _ qlen: Int, _ count: Int, _ tagStart: Int) -> Int {
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
    func attributeValueBytes(_ s: UnsafePointer<UInt8>, _ a: RawAttr) -> UnsafeRawBufferPointer {
        a.decoded >= 0 ? values.bytes(a.decoded, Int(a.valueLength))
            : UnsafeRawBufferPointer(start: a.value, count: Int(a.valueLength))
    }

    /// Decodes an attribute value into `values`: references replaced, each white space
    /// character (CR LF as one) a space, collapsed when the value is not CDATA
    /// (``attributeSpace()``).
    func attributeValue(_ s: UnsafePointer<UInt8>, _ from: Int, _ length: Int) throws -> Stop? {
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

    /// A space from white space (or `&#32;`) in an attribute value: for a value not of
    /// type CDATA, none at the start or after another (expat's appendAttributeValue; the
    /// one at the end is taken off after).
    @inline(__always)
    func attributeSpace() {
        if attributeCDATA || (values.count > attributeStart && values.base[values.count - 1] != 0x20) { values.append(0x20) }
    }

    /// An error position in an attribute value that stands for its start tag.
    static let atTag = Int.min

    func pushFrame(_ qname: UnsafeRawBufferPointer, _ localOffset: Int, _ bindingsBefore: Int) {
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

    func endTag(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) throws -> Step {
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
    func endElement(_ local: UnsafeRawBufferPointer, at: Int) throws {
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

}
