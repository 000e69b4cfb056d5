#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Where the next document of a stream starts, after a document that failed: the
/// stream resynchronizes at the next `<?xml` declaration, root start tag (`<rss`,
/// `<feed`, `<rdf:RDF`, `<RDF`) or byte order mark followed by `<`, whichever comes
/// first, so that documents written without declarations (or in UTF-16) are not lost
/// after a failed one. The list is
/// CSources/CFeedStream/document_starts.def, which the C core's input.c
/// (`doc_start_step`) includes and ``table`` is generated from
/// (scripts/generate-document-starts.py): backends agree on where documents start.
package enum DocumentStart {
    /// The starts, each followed by one of its delimiters (which is not part of it).
    private static let starts = table

    /// The XML declaration's start, `<?xml`, and the bytes that may follow it (the
    /// table's first): the start of a document wherever one may begin
    /// (``DocumentSplitter`` cuts dumps there).
    static let declaration = table[0]

    /// For each byte value, whether some start begins with it.
    package static let firstBytes: [Bool] = (0..<256).map { b in table.contains { $0.bytes[0] == UInt8(b) } }

    /// A start that is a root start tag (`<` and not the declaration's `?`): after a
    /// document that failed before its root started, the first one found is that
    /// document's own root.
    package static func isRootStartTag(_ held: [UInt8]) -> Bool { held.count > 1 && held[0] == 0x3C && held[1] != 0x3F }

    package enum Step { case prefix, match, none }

    /// `held` (bytes from a '<', a prefix of some start) followed by `c`: still a prefix,
    /// a complete start (c is its delimiter), or neither.
    package static func step(_ held: [UInt8], _ c: UInt8) -> Step {
        // Plain index loops: called for every '<' of a skipped document, so nothing here
        // may allocate.
        let n = held.count
        var isPrefix = false
        for k in 0..<starts.count {
            let bytes = starts[k].bytes
            guard bytes.count >= n else { continue }
            var i = 0
            while i < n && bytes[i] == held[i] { i += 1 }
            guard i == n else { continue }
            if bytes.count > n {
                if bytes[n] == c { isPrefix = true }
            } else if starts[k].delimiters.contains(c) {
                return .match
            }
        }
        return isPrefix ? .prefix : .none
    }

    /// The start of a document that the failed document `b` (its bytes up to its error)
    /// had taken into it, if there is one after offset `after`: a document cut short
    /// inside a CDATA section, a comment or a processing instruction takes what follows
    /// it, the next documents of a dump included, until something ends that construct,
    /// and its error comes later, if at all.
    ///
    /// A start is an XML declaration (`<?xml`, or a UTF-8 byte order mark and `<?xml`)
    /// past the document's first byte, followed by the start tag of a feed's root
    /// (``table``'s root start tags: `<rss`, `<RSS`, `<feed`, `<rdf:RDF`, `<RDF`) after nothing but white space,
    /// comments, processing instructions and a DOCTYPE, all of it before the error (so
    /// the answer is the same however the input was cut). The parser passes the end tag
    /// of the last item it delivered as `after`: those items are the failed document's
    /// own, and none is delivered twice. input.c's swallowed_start is the same rule.
    package static func swallowed(_ b: UnsafeRawBufferPointer, after: Int) -> Int? {
        let n = b.count
        var i = max(1, after)
        var tried = 0
        while i < n {
            guard let p = memchr(b.baseAddress! + i, 0x3C, n - i) else { break }
            i = b.baseAddress!.distance(to: UnsafeRawPointer(p))
            // Within lookaheadLimit of its '<', and no more than candidateLimit tried: a
            // failed document full of unfinished declarations costs no more than that.
            let window = UnsafeRawBufferPointer(rebasing: b[0..<min(n, i + lookaheadLimit)])
            if i + 1 < n && b[i + 1] == 0x3F {
                tried += 1
                if tried > candidateLimit { return nil }
            }
            if case .start = declarationAndRoot(window, i) {
                // Its byte order mark is its first byte; the document's own (at 0) is no other.
                let marked = i >= 3 && b[i - 3] == 0xEF && b[i - 2] == 0xBB && b[i - 1] == 0xBF
                let x = marked ? i - 3 : i
                if x > 0 && x >= after { return x }
            }
            i += 1
        }
        return nil
    }

    /// Whether a document that begins with `b` has its markup in ASCII bytes, so that a
    /// declaration of another document can be told in its bytes: not UTF-16 (a byte
    /// order mark, or `<` and a NUL either way round), where the bytes of one are no
    /// markup, and each tokenizer places its errors in them its own way. input.c's
    /// reads_ascii.
    package static func readsASCII(_ b: UnsafeRawBufferPointer) -> Bool {
        guard b.count >= 2 else { return true }
        switch (b[0], b[1]) {
        case (0xFF, 0xFE), (0xFE, 0xFF), (0x00, 0x3C), (0x3C, 0x00): return false
        default: return true
        }
    }

    /// What the bytes from a `<` say: a declaration followed by a feed's root start tag
    /// (the root's `<` at `root`), none, or not yet known (the bytes end first).
    package enum Lookahead: Equatable { case start(root: Int), none, needMore }

    /// An XML declaration at `i` followed, after white space, comments, processing
    /// instructions and a DOCTYPE, by a feed's root start tag (``table``'s) and one of
    /// its delimiters, all before the end of `b`. input.c's declaration_and_root.
    package static func declarationAndRoot(_ b: UnsafeRawBufferPointer, _ i: Int) -> Lookahead {
        let n = b.count
        /// `s` at `j`: whole (1), cut short by the end of `b` (0), or not (-1).
        func at(_ j: Int, _ s: [UInt8]) -> Int {
            var t = 0
            while t < s.count {
                if j + t >= n { return 0 }
                if b[j + t] != s[t] { return -1 }
                t += 1
            }
            return 1
        }
        /// The first byte after the first `end` from `j`, or nil when the bytes end first.
        func past(_ j: Int, _ end: [UInt8]) -> Int? {
            var j = j
            while j + end.count <= n {
                if at(j, end) == 1 { return j + end.count }
                j += 1
            }
            return nil
        }
        let d = declaration
        switch at(i, d.bytes) {
        case -1: return .none
        case 0: return .needMore
        default: break
        }
        let after = i + d.bytes.count
        guard after < n else { return .needMore }
        guard d.delimiters.contains(b[after]) else { return .none }
        guard var j = past(after, Self.piEnd) else { return .needMore }
        while true {
            guard j < n else { return .needMore }
            let c = b[j]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D {
                j += 1
                continue
            }
            let comment = at(j, Self.commentStart), pi = at(j, Self.piStart), doctype = at(j, Self.doctypeStart)
            if comment == 1 {
                guard let k = past(j + 4, Self.commentEnd) else { return .needMore }
                j = k
            } else if pi == 1 {
                guard let k = past(j + 2, Self.piEnd) else { return .needMore }
                j = k
            } else if doctype == 1 {
                // To its '>', past an internal subset in brackets and quoted literals.
                var k = j + 9, depth = 0, quote: UInt8 = 0
                while k < n {
                    let c = b[k]
                    if quote != 0 { if c == quote { quote = 0 } }
                    else if c == 0x22 || c == 0x27 { quote = c }
                    else if c == 0x5B { depth += 1 }
                    else if c == 0x5D { depth -= 1 }
                    else if c == 0x3E && depth <= 0 { break }
                    k += 1
                }
                guard k < n else { return .needMore }
                j = k + 1
            } else if comment == 0 || doctype == 0 {
                return .needMore   // "<!" or "<!-", "<!DOC" and the end
            } else {
                break
            }
        }
        var more = false
        for start in table.dropFirst() where start.bytes.count > 1 && start.bytes[0] == 0x3C {
            switch at(j, start.bytes) {
            case 1:
                let k = j + start.bytes.count
                if k >= n { more = true } else if start.delimiters.contains(b[k]) { return .start(root: j) }
            case 0: more = true
            default: break
            }
        }
        return more ? .needMore : .none
    }

    private static let piEnd: [UInt8] = Array("?>".utf8)
    private static let piStart: [UInt8] = Array("<?".utf8)
    private static let commentStart: [UInt8] = Array("<!--".utf8)
    private static let commentEnd: [UInt8] = Array("-->".utf8)
    private static let doctypeStart: [UInt8] = Array("<!DOCTYPE".utf8)
}
