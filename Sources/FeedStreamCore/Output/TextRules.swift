// SPDX-License-Identifier: Apache-2.0
// The writers' rules for a document's string values, before JSON escaping, in the order
// feedparser applies them to an element's text: white space trimmed at both ends (Python's
// `str.strip()`), UTF-8 read as ISO-8859-1 read again, C1 controls as windows-1252 (that
// last one in the escaping itself: JSONEscaping.swift's `windows1252`). One place for the
// JSON writer (JSONLinesWriter.swift) and the models' strings (FeedBytes.string).

/// The writers' text rules (docs/SCHEMA.md, "General rules" and "Encodings").
///
/// **Trimming.** A value loses the white space at both ends that feedparser strips (every
/// character Python's `str.isspace` accepts: the XML white space the machines trim
/// already, and U+000B, U+000C, U+001C–U+001F, U+0085, U+00A0, U+1680, U+2000–U+200A,
/// U+2028, U+2029, U+202F, U+205F, U+3000): `Title&#160;` is `Title`.
///
/// **Reading again.** Text that is UTF-8 read as ISO-8859-1, read again as UTF-8, as
/// feedparser does with every element's text ("address common error where people take
/// data that is already utf-8, presume that it is iso-8859-1, and re-encode it":
/// `encode('iso-8859-1').decode('utf-8')`, after the strip and before its windows-1252
/// mapping of C1 controls): `BrÃ¸ndby` is `Brøndby` again. Such text comes from a
/// document in UTF-8 that declares ISO-8859-1, or from text encoded twice by its
/// publisher. The rule: a string whose characters are all U+0000–U+00FF, with at least
/// one beyond ASCII, whose characters taken as bytes are well-formed UTF-8, is that
/// UTF-8. Any other string stays as it is (legitimate Latin-1 text such as `café` is not
/// well-formed as bytes: `E9` alone). Applied to a string whole, once. The writers mark
/// the members whose text it changed (`redecoded`); it can be undone exactly (each UTF-8
/// byte of the result as a character).
enum TextRules {
    /// `bytes` (well-formed UTF-8, or close to it) without the white space at its ends.
    /// One compare per end for most values (the machines trimmed XML white space already).
    @inline(__always)
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let p = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return bytes }
        let first = p[0], last = p[bytes.count &- 1]
        if first > 0x20 && first < 0x80 && last > 0x20 && last < 0x80 { return bytes }
        return trimmedSlowly(p, bytes.count)
    }

    private static func trimmedSlowly(_ p: UnsafePointer<UInt8>, _ n: Int) -> UnsafeRawBufferPointer {
        var start = 0, end = n
        while start < end {
            let k = spaceLength(p + start, end &- start)
            if k == 0 { break }
            start &+= k
        }
        while end > start {
            // The last character's first byte: back over continuation bytes (at most 3).
            var j = end &- 1
            while j > start && end &- j < 4 && p[j] & 0xC0 == 0x80 { j &-= 1 }
            guard spaceLength(p + j, end &- j) == end &- j else { break }
            end = j
        }
        return UnsafeRawBufferPointer(start: p + start, count: end &- start)
    }

    /// The length of the white space character at `p` (`n` bytes there), 0 when there is none.
    @inline(__always)
    private static func spaceLength(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        let c = p[0]
        switch c {
        case 0x09...0x0D, 0x1C...0x20: return 1
        case 0xC2:
            return n >= 2 && (p[1] == 0x85 || p[1] == 0xA0) ? 2 : 0
        case 0xE1:
            return n >= 3 && p[1] == 0x9A && p[2] == 0x80 ? 3 : 0                     // U+1680
        case 0xE2:
            guard n >= 3 else { return 0 }
            if p[1] == 0x80 { return p[2] <= 0x8A || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF ? 3 : 0 }
            return p[1] == 0x81 && p[2] == 0x9F ? 3 : 0                                // U+205F
        case 0xE3:
            return n >= 3 && p[1] == 0x80 && p[2] == 0x80 ? 3 : 0                     // U+3000
        default:
            return 0
        }
    }

    /// Writes what `src[0..<n]`, which the rule applies to (``readsAgain(_:_:)``), reads
    /// as again to `out` (room for `n` bytes: the result is shorter) and returns its length.
    static func write(_ src: UnsafePointer<UInt8>, _ n: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var i = 0, k = 0
        while i < n {
            let c = src[i]
            if c < 0x80 {
                out[k] = c
                i &+= 1
            } else {
                out[k] = (c & 0x03) << 6 | (src[i &+ 1] & 0x3F)
                i &+= 2
            }
            k &+= 1
        }
        return k
    }

    /// True when the rule applies to `src[0..<n]` (well-formed UTF-8): one pass that
    /// reads the characters as bytes and checks them as UTF-8 as it goes, so that most
    /// text it does not apply to is told at its first character beyond ASCII (`Ü`, as
    /// the byte DC, needs a continuation byte, and a letter follows). Every character
    /// beyond ASCII the rule can take is C2 or C3 and a continuation byte, and a result
    /// beyond ASCII needs a continuation byte (80-BF, written C2 80-C2 BF): a string with
    /// no C2 is never changed (the callers look for one first).
    static func readsAgain(_ src: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        var need = 0                                  // continuation bytes still to come
        var low: UInt8 = 0x80, high: UInt8 = 0xBF     // the next one's range
        var beyondASCII = false
        while i < n {
            // ASCII 8 bytes at a time, where no sequence is open.
            if need == 0 {
                while i &+ 8 <= n && UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    i &+= 8
                }
                guard i < n else { break }
            }
            let c = src[i]
            if c < 0x80 {
                if need > 0 { return false }
                i &+= 1
                continue
            }
            // U+0080-U+00FF, and nothing else, as two bytes: the byte it stands for.
            guard c == 0xC2 || c == 0xC3, i &+ 1 < n, src[i &+ 1] & 0xC0 == 0x80 else { return false }
            let b = (c & 0x03) << 6 | (src[i &+ 1] & 0x3F)
            i &+= 2
            beyondASCII = true
            if need > 0 {
                guard b >= low && b <= high else { return false }
                need &-= 1
                low = 0x80; high = 0xBF
                continue
            }
            switch b {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; high = 0x9F
            case 0xF0: need = 3; low = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; high = 0x8F
            default: return false   // a continuation byte on its own, C0, C1, F5-FF
            }
        }
        return beyondASCII && need == 0
    }

    /// True when the rule changes `bytes` (well-formed UTF-8).
    static func applies(to bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.contains(0xC2) else { return false }
        return readsAgain(base, bytes.count)
    }

    /// `bytes` read again by the rule; nil when it does not apply.
    static func redecoded(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.contains(0xC2),
              readsAgain(base, bytes.count) else { return nil }
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { out, count in
            count = write(base, bytes.count, into: out.baseAddress!)
        }
    }
}
