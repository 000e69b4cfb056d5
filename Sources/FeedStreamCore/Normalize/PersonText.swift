// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A person written as one text (RSS `author`, `managingEditor`, `webMaster`,
/// `dc:creator`, `dc:author`, `dc:contributor`, `itunes:author`): its name and email
/// address, as docs/SCHEMA.md ("Persons written as text") describes.
///
/// The forms people write, after RSS 2.0 (`lawyer@boyer.net (Lawyer Boyer)`) and RFC
/// 5322's mailboxes (`Lawyer Boyer <lawyer@boyer.net>`): `email (Name)`,
/// `Name (email)`, `Name <email>`, `"Name" <email>`, `<email>`, a bare address, and any
/// of these with `mailto:` before the address. Every part is a slice of the text (no
/// copy), so every backend gets the same answer from this one function.
enum PersonText {
    /// The name and email address in `text`; nil when the text holds no email address
    /// (then the whole text is the name). `name` is absent when only an address is
    /// written.
    static func split(_ text: FeedBytes) -> (name: FeedBytes, email: FeedBytes)? {
        guard text.isPresent, let base = text.buffer.baseAddress else { return nil }
        let b = text.buffer
        let n = b.count
        // Most names hold no '@' at all: no token to look at.
        guard memchr(base, 0x40, n) != nil else { return nil }
        // The first token holding an '@' that looks like an address.
        var i = 0
        while i < n {
            while i < n && isDelimiter(b[i]) { i += 1 }
            let start = i
            var at = -1, ats = 0
            while i < n && !isDelimiter(b[i]) {
                if b[i] == 0x40 { at = i; ats += 1 }
                i += 1
            }
            guard ats == 1 else { continue }
            var lo = start
            if hasPrefixIgnoringCase(b, lo, "mailto:") { lo += 7 }
            guard isAddress(b, lo, at, i) else { continue }
            let email = FeedBytes(UnsafeRawBufferPointer(start: base + lo, count: i - lo))
            // The address's brackets, when it is enclosed: "(email)" or "<email>".
            var outerLo = start, outerHi = i
            if outerLo > 0 && outerHi < n && ((b[outerLo - 1] == 0x28 && b[outerHi] == 0x29) ||
                                              (b[outerLo - 1] == 0x3C && b[outerHi] == 0x3E)) {
                outerLo -= 1
                outerHi += 1
            }
            var name = unwrapped(base, 0, outerLo)
            if name.count == 0 { name = unwrapped(base, outerHi, n) }
            return (name.count == 0 ? .absent : name, email)
        }
        return nil
    }

    /// Characters that end an address token.
    private static func isDelimiter(_ c: UInt8) -> Bool {
        switch c {
        case 0x20, 0x09, 0x0A, 0x0D, 0x28, 0x29, 0x3C, 0x3E, 0x5B, 0x5D, 0x2C, 0x3B, 0x22: return true
        default: return false
        }
    }

    /// `local@domain` with a non-empty local part and a dotted domain of letters,
    /// digits, hyphens (`b[lo..<hi]`, the '@' at `at`).
    private static func isAddress(_ b: UnsafeRawBufferPointer, _ lo: Int, _ at: Int, _ hi: Int) -> Bool {
        guard at > lo, hi - at > 3 else { return false }
        var dots = 0
        var previous: UInt8 = 0x2E
        for k in (at + 1)..<hi {
            let c = b[k]
            if c == 0x2E {
                if previous == 0x2E { return false }
                dots += 1
            } else if !(c >= 0x80 || c == 0x2D || (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A)) {
                return false
            }
            previous = c
        }
        return dots > 0 && previous != 0x2E
    }

    private static func hasPrefixIgnoringCase(_ b: UnsafeRawBufferPointer, _ at: Int, _ p: StaticString) -> Bool {
        let count = p.utf8CodeUnitCount
        guard b.count - at >= count else { return false }
        for k in 0..<count where (b[at + k] | 0x20) != (p.utf8Start[k] | 0x20) { return false }
        return true
    }

    /// `base[lo..<hi]`, trimmed, without one pair of enclosing parentheses or quotes
    /// (and trimmed again).
    private static func unwrapped(_ base: UnsafeRawPointer, _ lo: Int, _ hi: Int) -> FeedBytes {
        var t = FeedBytes(UnsafeRawBufferPointer(start: base + lo, count: hi - lo)).trimmed
        let c = t.count
        if c >= 2, let p = t.buffer.baseAddress {
            let first = t.buffer[0], last = t.buffer[c - 1]
            if (first == 0x28 && last == 0x29) || (first == 0x22 && last == 0x22) {
                t = FeedBytes(UnsafeRawBufferPointer(start: p + 1, count: c - 2)).trimmed
            }
        }
        return t
    }
}
