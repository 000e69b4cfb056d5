/// Where the next document of a stream starts, after a document that failed: the
/// stream resynchronizes at the next `<?xml` declaration, root start tag (`<rss`,
/// `<feed`, `<rdf:RDF`, `<RDF`) or byte order mark followed by `<`, whichever comes
/// first, so that documents written without declarations (or in UTF-16) are not lost
/// after a failed one. The list is
/// CSources/CFeedStream/document_starts.def, which the C core's input.c
/// (`doc_start_step`) includes and ``table`` is generated from
/// (scripts/generate-document-starts.py): backends agree on where documents start.
enum DocumentStart {
    /// The starts, each followed by one of its delimiters (which is not part of it).
    private static let starts = table

    /// The XML declaration's start, `<?xml`, and the bytes that may follow it (the
    /// table's first): the start of a document wherever one may begin
    /// (``DocumentSplitter`` cuts dumps there).
    static let declaration = table[0]

    /// For each byte value, whether some start begins with it.
    static let firstBytes: [Bool] = (0..<256).map { b in table.contains { $0.bytes[0] == UInt8(b) } }

    /// A start that is a root start tag (`<` and not the declaration's `?`): after a
    /// document that failed before its root started, the first one found is that
    /// document's own root.
    static func isRootStartTag(_ held: [UInt8]) -> Bool { held.count > 1 && held[0] == 0x3C && held[1] != 0x3F }

    enum Step { case prefix, match, none }

    /// `held` (bytes from a '<', a prefix of some start) followed by `c`: still a prefix,
    /// a complete start (c is its delimiter), or neither.
    static func step(_ held: [UInt8], _ c: UInt8) -> Step {
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
}
