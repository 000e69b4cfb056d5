// SPDX-License-Identifier: Apache-2.0
// Values a feed writes in one text, given beside it in the form users query: a language
// as a BCP 47 tag, a DCMI period's start and end, a normal play time in seconds, a
// list's words (docs/SCHEMA.md, "Values in the form users query"). One implementation,
// applied by the layout to the records of every backend.

/// Derivations over ASCII bytes; each gives nothing when the text does not have the form.
enum QueryForms {
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
    private static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// `b` without the ASCII white space around it.
    static func trimmed(_ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var lo = 0, hi = b.count
        while lo < hi, isSpace(b[lo]) { lo += 1 }
        while hi > lo, isSpace(b[hi - 1]) { hi -= 1 }
        return UnsafeRawBufferPointer(rebasing: b[lo..<hi])
    }

    /// A language as a BCP 47 tag (RFC 5646): subtags split at `-` or `_`, each 1 to 8
    /// letters and digits, the first 2 to 8 letters (or the singleton `i` or `x`); in
    /// the case RFC 5646 section 2.1.1 recommends: the language lower case, a four-letter
    /// script title case, a two-letter region upper case, the rest lower case (after a
    /// singleton, all of it). `en_US` is `en-US`, `EN-gb` is `en-GB`, `zh-hant-tw` is
    /// `zh-Hant-TW`. Writes the tag to `out` (room for ``languageTagMaxLength`` bytes)
    /// and returns its length; 0 when the text is not of that syntax (`English (US)`).
    static func languageTag(_ text: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Int {
        let b = trimmed(text)
        guard !b.isEmpty, b.count <= languageTagMaxLength else { return 0 }
        var n = 0
        var start = 0, index = 0, afterSingleton = false
        while start <= b.count {
            var end = start
            while end < b.count, b[end] != 0x2D, b[end] != 0x5F { end += 1 }
            let count = end - start
            guard count >= 1, count <= 8 else { return 0 }
            var letters = true
            for i in start..<end {
                let c = b[i]
                guard isAlpha(c) || isDigit(c) else { return 0 }
                if !isAlpha(c) { letters = false }
            }
            if index == 0 {
                let singleton = count == 1 && (b[start] | 0x20 == 0x69 || b[start] | 0x20 == 0x78)
                guard letters, count >= 2 || singleton else { return 0 }
                afterSingleton = singleton
            }
            let upper = index > 0 && !afterSingleton && letters && count == 2
            let title = index > 0 && !afterSingleton && letters && count == 4
            if index > 0 { out[n] = 0x2D; n += 1 }
            for i in start..<end {
                let c = b[i]
                out[n] = !isAlpha(c) ? c : upper || title && i == start ? c & ~0x20 : c | 0x20
                n += 1
            }
            if index > 0 && count == 1 { afterSingleton = true }
            index += 1
            start = end + 1
        }
        return n
    }

    /// The longest text ``languageTag(_:into:)`` reads (and so the most it writes).
    static let languageTagMaxLength = 64

    /// The value of component `name` of a DCMI period (`start=…; end=…; scheme=W3C-DTF`,
    /// DCMI Period Encoding Scheme): the text after `name=` up to the next `;`, trimmed.
    /// Names are compared ignoring ASCII case. Nil when there is no such component.
    static func periodComponent(_ text: UnsafeRawBufferPointer, _ name: StaticString) -> UnsafeRawBufferPointer? {
        let w = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count, text[end] != 0x3B { end += 1 }
            let part = trimmed(UnsafeRawBufferPointer(rebasing: text[start..<end]))
            if let eq = part.firstIndex(of: 0x3D) {
                let key = trimmed(UnsafeRawBufferPointer(rebasing: part[0..<eq]))
                if key.count == w.count && zip(key, w).allSatisfy({ $0 | 0x20 == $1 }) {
                    return trimmed(UnsafeRawBufferPointer(rebasing: part[(eq + 1)...]))
                }
            }
            start = end + 1
        }
        return nil
    }

    /// A normal play time (RFC 2326 section 3.6, as Podlove Simple Chapters writes it:
    /// `HH:MM:SS.mmm`, `MM:SS`, `SS`, with or without a fraction) in seconds, as a JSON
    /// number written exactly (`00:01:02.500` is `62.5`). Minutes and seconds after a
    /// colon are below 60. Nil for any other text.
    static func playTimeSeconds(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        let b = trimmed(text)
        var parts: [Int] = []
        var i = 0
        var fraction = UnsafeRawBufferPointer(start: nil, count: 0)
        while true {
            var n = 0, digits = 0
            while i < b.count, isDigit(b[i]) {
                guard digits < 12 else { return nil }
                n = n * 10 + Int(b[i] - 0x30)
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            parts.append(n)
            if i < b.count, b[i] == 0x3A, parts.count < 3 { i += 1; continue }
            if i < b.count, b[i] == 0x2E {
                let from = i + 1
                i = from
                while i < b.count, isDigit(b[i]) { i += 1 }
                guard i > from, i - from <= 9 else { return nil }
                fraction = UnsafeRawBufferPointer(rebasing: b[from..<i])
            }
            break
        }
        guard i == b.count else { return nil }
        for p in parts.dropFirst() where p >= 60 { return nil }
        let seconds = parts.reduce(0) { $0 * 60 + $1 }
        var out = Array(String(seconds).utf8)
        var digits = Array(fraction)
        while digits.last == 0x30 { digits.removeLast() }
        if !digits.isEmpty { out.append(0x2E); out += digits }
        return out
    }

    /// The words of a space-separated list (Media RSS `restriction`: country codes or
    /// URIs), in order.
    static func words(_ text: UnsafeRawBufferPointer) -> [UnsafeRawBufferPointer] {
        var out: [UnsafeRawBufferPointer] = []
        var i = 0
        while i < text.count {
            while i < text.count, isSpace(text[i]) { i += 1 }
            let from = i
            while i < text.count, !isSpace(text[i]) { i += 1 }
            if i > from { out.append(UnsafeRawBufferPointer(rebasing: text[from..<i])) }
        }
        return out
    }
}
