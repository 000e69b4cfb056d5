// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// Comments, processing instructions, CDATA sections and the document type declaration.
extension SwiftXMLTokenizer {
    /// `<!` in content: a comment or a CDATA section (expat's contentTok: anything else
    /// is not well-formed at the byte after `<!`; `CDATA[` is checked byte by byte).
    func declarationOrComment(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) throws -> Step {
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
    func construct(_ t: PrologScan, at i: Int, final: Bool) -> Step {
        switch t.token {
        case .invalid: return .stop(.error(t.next, "not well-formed (invalid token)"))
        case .partial: return needMore(i, final)
        case .partialChar: return .stop(final ? .error(i, "partial character") : .more(i))
        case .xmlDeclaration: return .stop(.error(i, "XML or text declaration not at start of entity"))
        default: return .next(t.next)
        }
    }

    func processingInstruction(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool) -> Step {
        construct(scanProcessingInstruction(s, i + 2, n, nameCharacters), at: i, final: final)
    }

    /// The prolog from `from` (before the root; the epilog is never read), token by
    /// token in expat's grammar of it, up to the root's start tag, which is read here
    /// too. A DOCTYPE is read whole: when it does not end in the bytes given, it is
    /// read again from its start with more (its identifiers and declarations are
    /// delivered once it ends; an error in the part read is reported at once, as expat
    /// reports it).
    func prolog(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, final: Bool) throws -> Step {
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
    func cdata(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, final: Bool) -> Step {
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
    func parameterEntity(_ s: UnsafePointer<UInt8>, _ from: Int, _ to: Int, open: inout [[UInt8]],
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
    func declareEntities(_ s: UnsafePointer<UInt8>, _ n: Int) {
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
    func declareAttributes(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> Int {
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

    func replaceCharacterReferences(_ s: UnsafePointer<UInt8>, _ n: Int, predefined: Bool = false) -> [UInt8] {
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
