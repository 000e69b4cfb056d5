// SPDX-License-Identifier: Apache-2.0 AND MIT
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// The start of a document: byte order marks and the XML declaration.
extension SwiftXMLTokenizer {
    func startOfDocument(_ s: UnsafePointer<UInt8>, _ n: Int, final: Bool) -> Step {
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

    struct Declaration { var encoding: (Int, Int)?; var standalone: Bool }

    /// The pseudo-attributes of an XML declaration (`from` just after "<?xml", `end` at
    /// "?>"): version, then optionally encoding, then optionally standalone, checked
    /// as expat's doParseXmlDecl and parsePseudoAttribute check them, so that the same
    /// declarations fail, at the same place (`bad`; where the search for the next
    /// document resumes, so a different place could find a different next document —
    /// found by the differential fuzzer).
    func parseDeclaration(_ s: UnsafePointer<UInt8>, _ from: Int, _ end: Int) -> (Declaration?, bad: Int) {
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

}
