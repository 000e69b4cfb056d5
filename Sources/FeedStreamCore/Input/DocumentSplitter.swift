// SPDX-License-Identifier: Apache-2.0
internal import CFeedStreamInput
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Where a dump's uncompressed stream may be cut into parts that are parsed on their
/// own, on several threads (so that one `.gz` dump can use every core).
///
/// The splitter only *proposes* cuts: the offset of each `<?xml` declaration start
/// (document_starts.def's declaration, the same bytes and delimiters the parsers resynchronize
/// at) that lies at least ``minimumPartBytes`` after the previous cut. A dump written
/// without declarations gets no cut, and is parsed by one parser as today.
///
/// Whether a proposed cut is *exact* — the parser reading the whole stream begins a
/// document there with nothing carried over — depends on what comes before it: a
/// `<?xml` inside a CDATA section, a comment or a processing instruction, or after a
/// document left open, is not a document start, or not one that the parser reaches the
/// same way. So the part before a cut is parsed with the first bytes of the cut
/// appended (the *probe*, ``probeBytes``), and the cut is taken only when the parser
/// begins a document at the cut (``DumpParts``, in FeedStreamTools). Otherwise the two
/// parts are one: the cut is dropped.
///
/// A declaration right after a UTF-8 byte order mark is cut at the mark: the document
/// begins there (document_starts.def: a mark followed by `<`), and its columns count it.
///
/// Cuts may straddle chunks; offsets count the bytes of every chunk scanned, in order.
package struct DocumentSplitter: Sendable {
    /// The least distance between two cuts (and between the start and the first cut).
    package let minimumPartBytes: UInt64
    /// Bytes scanned so far.
    package private(set) var offset: UInt64 = 0
    private var lastCut: UInt64 = 0
    /// Bytes of `<?xml` matched at the end of what was scanned (5: all of it, the
    /// delimiter still to come).
    private var matched = 0
    /// The match's `<` came right after a UTF-8 byte order mark.
    private var afterMark = false
    /// The last three bytes scanned before this chunk, the latest last (a mark before a
    /// `<` at a chunk's start).
    private var tail: (UInt8, UInt8, UInt8) = (0, 0, 0)

    /// The bytes a cut begins with that the part before it is parsed with: `<?xml` and
    /// one delimiter.
    package static let probeBytes = declaration.bytes.count + 1

    /// The XML declaration as a document start: its bytes and the bytes one of which
    /// must follow them (the input stage's table, document_starts.def).
    private static let declaration: (bytes: [UInt8], delimiters: [UInt8]) = {
        var bytes: UnsafePointer<CChar>?, delimiters: UnsafePointer<CChar>?
        cfs_document_declaration(&bytes, &delimiters)
        return (Array(String(cString: bytes!).utf8), Array(String(cString: delimiters!).utf8))
    }()

    /// A splitter proposing cuts at least `minimumPartBytes` (at least 1) apart.
    package init(minimumPartBytes: UInt64) {
        self.minimumPartBytes = max(1, minimumPartBytes)
    }

    /// Scans the next bytes of the stream; returns the cuts proposed in them (stream
    /// offsets of the `<` of each declaration, ascending; a cut whose `<?xml` began in
    /// an earlier chunk is returned when its delimiter is scanned).
    package mutating func scan(_ chunk: UnsafeRawBufferPointer) -> [UInt64] {
        var cuts: [UInt64] = []
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), chunk.count > 0 else { return cuts }
        let declaration = Self.declaration
        let n = chunk.count
        var i = 0
        while i < n {
            if matched == 0 {
                guard let lt = memchr(base + i, 0x3C, n - i) else { break }
                let j = UnsafePointer<UInt8>(lt.assumingMemoryBound(to: UInt8.self)) - base
                // The three bytes before the '<', from this chunk or the last ones before it.
                func before(_ k: Int) -> UInt8 {
                    if j >= k { return base[j - k] }
                    switch k - j { case 1: return tail.2; case 2: return tail.1; default: return tail.0 }
                }
                afterMark = offset + UInt64(j) >= 3 && before(3) == 0xEF && before(2) == 0xBB && before(1) == 0xBF
                i = j + 1
                matched = 1
                continue
            }
            let c = base[i]
            if matched == declaration.bytes.count {
                if declaration.delimiters.contains(c) {
                    // The '<' is `matched` bytes before this one; the mark, three more.
                    let at = offset + UInt64(i) - UInt64(matched) - (afterMark ? 3 : 0)
                    if at >= lastCut + minimumPartBytes {
                        cuts.append(at)
                        lastCut = at
                    }
                }
                matched = 0
                continue   // this byte may be a '<'
            }
            if c == declaration.bytes[matched] {
                matched += 1
                i += 1
            } else {
                matched = 0   // a '<' here starts a new match
            }
        }
        switch n {
        case 1: tail = (tail.1, tail.2, base[0])
        case 2: tail = (tail.2, base[0], base[1])
        default: tail = (base[n - 3], base[n - 2], base[n - 1])
        }
        offset += UInt64(n)
        return cuts
    }
}
