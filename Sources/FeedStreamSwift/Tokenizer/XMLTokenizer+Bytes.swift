// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// Byte classes and small helpers of the tokenizer.

/// Bytes that stop a run of character data: `<`, `&`, `]`, control characters (tab
/// and LF included, to keep the test cheap) and every byte of a multi-byte character.
@inline(__always)
func attentionMask(_ x: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let lt = x ^ (ones &* 0x3C), amp = x ^ (ones &* 0x26), rb = x ^ (ones &* 0x5D)
    let zeroLT = (lt &- ones) & ~lt
    let zeroAmp = (amp &- ones) & ~amp
    let zeroRB = (rb &- ones) & ~rb
    let control = (x &- (ones &* 0x20)) & ~x
    return ((zeroLT | zeroAmp | zeroRB | control) & high) | (x & high)
}

/// Bytes that need attention inside CDATA: `]`, control characters, non-ASCII.
@inline(__always)
func cdataMask(_ x: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let rb = x ^ (ones &* 0x5D)
    return ((((rb &- ones) & ~rb) | ((x &- (ones &* 0x20)) & ~x)) & high) | (x & high)
}

nonisolated(unsafe) let cdataClass: UnsafePointer<UInt8> = table { c in c < 0x20 || c >= 0x80 || c == 0x5D }

/// The tokenizer's UTF-8 automaton (``UTF8Steps/Rules/xml``), made once.
nonisolated(unsafe) let xmlUTF8Steps = UTF8Steps.table(.xml)

/// Every byte value at its own offset: one character's text without a buffer of its own.
nonisolated(unsafe) let everyByte: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for b in 0..<256 { p[b] = UInt8(b) }
    return UnsafePointer(p)
}()

nonisolated(unsafe) let newline: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    p.pointee = 0x0A
    return UnsafePointer(p)
}()

let xmlNamespace: StaticString = "http://www.w3.org/XML/1998/namespace"
nonisolated(unsafe) let xmlNamespaceBytes = UnsafeRawBufferPointer(
    start: xmlNamespace.utf8Start, count: xmlNamespace.utf8CodeUnitCount)

/// 1 for bytes that stop character data (see attentionMask).
nonisolated(unsafe) let textClass: UnsafePointer<UInt8> = table { c in
    c < 0x20 || c >= 0x80 || c == 0x3C || c == 0x26 || c == 0x5D
}

/// ASCII name characters (non-ASCII bytes are checked as UTF-8 and allowed).
nonisolated(unsafe) let nameClass: UnsafePointer<UInt8> = table { c in
    isASCIILetter(c) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E || c == 0x5F || c >= 0x80
}

nonisolated(unsafe) let nameStartClass: UnsafePointer<UInt8> = table { c in
    isASCIILetter(c) || c == 0x5F || c >= 0x80
}

func table(_ f: (UInt8) -> Bool) -> UnsafePointer<UInt8> {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for c in 0..<256 { p[c] = f(UInt8(c)) ? 1 : 0 }
    return UnsafePointer(p)
}

@inline(__always)
func isASCIILetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

@inline(__always)
func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }

@inline(__always)
/// `p` begins with `s` (with its first `prefix` bytes, when fewer).
func matches(_ p: UnsafePointer<UInt8>, _ s: StaticString, prefix: Int = .max) -> Bool {
    bytesEqual(p, s.utf8Start, min(prefix, s.utf8CodeUnitCount))
}

/// "utf-8", the name the alias table gives UTF-8 (``XMLTranscoder/alias(_:)``).
let utf8Name = Array("utf-8".utf8)

/// True when `name` is "UTF-8" in any case: the alias table's own name for it, so that
/// the declaration most documents carry needs no lookup key built.
@inline(__always)
func isUTF8Name(_ name: UnsafeRawBufferPointer) -> Bool {
    name.count == 5 && name[0] | 0x20 == 0x75 && name[1] | 0x20 == 0x74 && name[2] | 0x20 == 0x66
        && name[3] == 0x2D && name[4] == 0x38
}

func asciiLowercased<C: Collection>(_ b: C) -> [UInt8] where C.Element == UInt8 {
    b.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
}

@inline(__always)
func hexValue(_ c: UInt8, _ hex: Bool) -> UInt32? {
    if c >= 0x30 && c <= 0x39 { return UInt32(c - 0x30) }
    if hex && c >= 0x61 && c <= 0x66 { return UInt32(c - 0x61 + 10) }
    if hex && c >= 0x41 && c <= 0x46 { return UInt32(c - 0x41 + 10) }
    return nil
}

/// The first `a b` pair at or after `from`, or nil.
@inline(__always)
func find2(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ a: UInt8, _ b: UInt8) -> Int? {
    var i = from
    while i + 1 < n {
        guard let p = memchr(s + i, Int32(a), n - 1 - i) else { return nil }
        let k = UnsafePointer<UInt8>(p.assumingMemoryBound(to: UInt8.self)) - s
        if s[k + 1] == b { return k }
        i = k + 1
    }
    return nil
}

/// Characters XML allows.
@inline(__always)
func isXMLChar(_ v: UInt32) -> Bool {
    switch v {
    case 0x09, 0x0A, 0x0D: true
    case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
    default: false
    }
}

/// A predefined entity's name and its `;` at `s[j...]` (before `n`): the character
/// (``predefinedEntity(_:)``) and the index after the `;`.
@inline(__always)
func predefinedReference(_ s: UnsafePointer<UInt8>, _ j: Int, _ n: Int) -> (UInt8, Int)? {
    // Its `;` comes within the longest name's length (4) and one.
    let last = min(n, j &+ 5)
    var e = j
    while e < last && s[e] != 0x3B { e &+= 1 }
    guard e < last, let c = predefinedEntity(UnsafeRawBufferPointer(start: s + j, count: e &- j)) else { return nil }
    return (c, e &+ 1)
}

/// ``predefinedReference(_:_:_:)`` for the reference whose `&` is at `i`, read from one
/// 8-byte load (nil when fewer than 8 bytes are left: the general path takes it): the
/// character and the reference's length.
@inline(__always)
func predefinedReference8(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> (UInt8, Int)? {
    #if _endian(little)
    guard i &+ 8 <= n else { return nil }
    return predefinedCharacter(UnsafeRawPointer(s + i).loadUnaligned(as: UInt64.self))
    #else
    return nil
    #endif
}

/// The XML predefined entities (the one table of them): the reference at the start of
/// `w`, its bytes `&name;` read as a little-endian word, and the character it stands
/// for; the character and the reference's length, nil when `w` starts with none.
@inline(__always)
func predefinedCharacter(_ w: UInt64) -> (UInt8, Int)? {
    switch w & 0xFFFF_FFFF {
    case 0x3B74_6C26: return (0x3C, 4)   // &lt;
    case 0x3B74_6726: return (0x3E, 4)   // &gt;
    default: break
    }
    if w & 0xFF_FFFF_FFFF == 0x3B_706D_6126 { return (0x26, 5) }   // &amp;
    switch w & 0xFFFF_FFFF_FFFF {
    case 0x3B74_6F75_7126: return (0x22, 6)   // &quot;
    case 0x3B73_6F70_6126: return (0x27, 6)   // &apos;
    default: return nil
    }
}

/// The character the predefined entity `name` stands for (``predefinedCharacter(_:)``
/// asked about the reference `&name;`), nil when `name` is none.
@inline(__always)
func predefinedEntity(_ name: UnsafeRawBufferPointer) -> UInt8? {
    let n = name.count
    guard n >= 2 && n <= 4 else { return nil }
    var w: UInt64 = 0x26
    for k in 0..<n { w |= UInt64(name[k]) &<< UInt64(8 &* (k &+ 1)) }
    w |= 0x3B &<< UInt64(8 &* (n &+ 1))
    guard let (c, length) = predefinedCharacter(w), length == n &+ 2 else { return nil }
    return c
}

/// The length of the valid UTF-8 sequence starting at `i` (a byte ≥ 0x80), 0 when the
/// input ends inside it, -1 when it is not valid or not an XML character (surrogates,
/// U+FFFE, U+FFFF).
@inline(__always)
func utf8Length(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
    let c = s[i]
    if c < 0xC2 { return -1 }
    if c < 0xE0 {
        guard i + 1 < n else { return 0 }
        return s[i + 1] & 0xC0 == 0x80 ? 2 : -1
    }
    if c < 0xF0 {
        guard i + 1 < n else { return 0 }
        let c1 = s[i + 1]
        if c1 & 0xC0 != 0x80 { return -1 }
        if c == 0xE0 && c1 < 0xA0 { return -1 }
        if c == 0xED && c1 >= 0xA0 { return -1 }
        guard i + 2 < n else { return 0 }
        let c2 = s[i + 2]
        if c2 & 0xC0 != 0x80 { return -1 }
        if c == 0xEF && c1 == 0xBF && c2 >= 0xBE { return -1 }
        return 3
    }
    if c < 0xF5 {
        guard i + 1 < n else { return 0 }
        let c1 = s[i + 1]
        if c1 & 0xC0 != 0x80 { return -1 }
        if c == 0xF0 && c1 < 0x90 { return -1 }
        if c == 0xF4 && c1 >= 0x90 { return -1 }
        guard i + 2 < n else { return 0 }
        if s[i + 2] & 0xC0 != 0x80 { return -1 }
        guard i + 3 < n else { return 0 }
        return s[i + 3] & 0xC0 == 0x80 ? 4 : -1
    }
    return -1
}

/// `a[0..<n]` and `b[0..<n]` are equal and all ASCII: 8 bytes at a time and the last 8
/// (overlapping), two overlapping loads of 4 under 8, three bytes under 4 (no loop by
/// the byte: its exit, at every name's own length, was mispredicted).
@inline(__always)
func sameASCIIName(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
    var diff: UInt64 = 0, high: UInt64 = 0
    if n >= 8 {
        var k = 0
        while k &+ 8 < n {
            let x = (a + k).loadUnaligned(as: UInt64.self)
            diff |= x ^ (b + k).loadUnaligned(as: UInt64.self)
            high |= x
            k &+= 8
        }
        let x = (a + (n &- 8)).loadUnaligned(as: UInt64.self)
        diff |= x ^ (b + (n &- 8)).loadUnaligned(as: UInt64.self)
        high |= x
    } else if n >= 4 {
        let x = UInt64(a.loadUnaligned(as: UInt32.self)) | UInt64((a + (n &- 4)).loadUnaligned(as: UInt32.self)) &<< 32
        let y = UInt64(b.loadUnaligned(as: UInt32.self)) | UInt64((b + (n &- 4)).loadUnaligned(as: UInt32.self)) &<< 32
        diff = x ^ y
        high = x
    } else if n > 0 {
        let p = a.assumingMemoryBound(to: UInt8.self), q = b.assumingMemoryBound(to: UInt8.self)
        let x = UInt64(p[0]) | UInt64(p[n &>> 1]) &<< 8 | UInt64(p[n &- 1]) &<< 16
        let y = UInt64(q[0]) | UInt64(q[n &>> 1]) &<< 8 | UInt64(q[n &- 1]) &<< 16
        diff = x ^ y
        high = x
    }
    return diff == 0 && high & 0x8080_8080_8080_8080 == 0
}

/// How many of the bytes of `w` (little-endian: byte 0 first) are lower-case ASCII
/// letters before the first that is not one (8 when all are).
@inline(__always)
func lowercaseLetters(_ w: UInt64) -> Int {
    let highs: UInt64 = 0x8080_8080_8080_8080
    let x = w & ~highs                                  // no carry between bytes below
    let atLeastA = x &+ 0x1F1F_1F1F_1F1F_1F1F           // high bit: x >= 0x61
    let pastZ = x &+ 0x0505_0505_0505_0505              // high bit: x >= 0x7B
    let other = ~(atLeastA & ~pastZ & ~w) & highs       // high bit: not in a...z
    return other == 0 ? 8 : other.trailingZeroBitCount &>> 3
}
