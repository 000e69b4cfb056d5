// SPDX-License-Identifier: Apache-2.0
// Vector scanning of byte runs (SIMD): 16 bytes classified per
// step with portable SIMD (`SIMD16<UInt8>`, no platform intrinsics), for the loops that
// skip plain bytes — character data, attribute values and CDATA in the Swift XML
// tokenizer (JSON string escaping has its own, JSONEscaping.swift) — and the UTF-8
// automaton both read non-ASCII text with. The callers keep their 8-byte and
// byte-by-byte paths for the last bytes (and to handle the byte found).
//
// The class tests compare whole vectors (`.==`, `.<`) and use the mask as bytes (all
// bits set in a lane that matches: `lanes(_:equalTo:)`, `lanes(_:below:)`), which LLVM
// lowers to one byte compare each (SSE2 `pcmpeqb`, `pminub`; NEON `cmeq`, `cmhi`) only
// when both operands are spelled `SIMD16<UInt8>` and the mask's type is written out:
// with `SIMD16(repeating:)` left to inference the comparison resolves to the generic
// `SIMD` operator, lowered lane by lane through memory (30 times slower), and a mask
// reduced with `any` calls a generic `min`. `x >= 0x80` is the high bit of `x`.

/// All bits set in each lane of `x` equal to `b`, none in the others.
@inlinable @inline(__always)
package func lanes(_ x: SIMD16<UInt8>, equalTo b: UInt8) -> SIMD16<UInt8> {
    let m: SIMDMask<SIMD16<Int8>> = x .== SIMD16<UInt8>(repeating: b)
    return unsafeBitCast(m, to: SIMD16<UInt8>.self)
}

/// All bits set in each lane of `x` below `b`, none in the others.
@inlinable @inline(__always)
package func lanes(_ x: SIMD16<UInt8>, below b: UInt8) -> SIMD16<UInt8> {
    let m: SIMDMask<SIMD16<Int8>> = x .< SIMD16<UInt8>(repeating: b)
    return unsafeBitCast(m, to: SIMD16<UInt8>.self)
}

/// All bits set in each lane of `x` below `b` (at most 0x80) or at 0x80 and above (the
/// lanes read as signed bytes: one compare, SSE2 `pcmpgtb`), none in the others.
@inlinable @inline(__always)
package func lanes(_ x: SIMD16<UInt8>, belowOrNonASCII b: UInt8) -> SIMD16<UInt8> {
    let m: SIMDMask<SIMD16<Int8>> = unsafeBitCast(x, to: SIMD16<Int8>.self) .< SIMD16<Int8>(repeating: Int8(bitPattern: b))
    return unsafeBitCast(m, to: SIMD16<UInt8>.self)
}

/// The index of the first byte of `p[0..<16]` that is a control character (< 0x20),
/// non-ASCII (>= 0x80), or equal to `a`, `b` or `c` (pass one twice for two); 16 when
/// there is none.
@inlinable @inline(__always)
package func firstSpecialByte16(_ p: UnsafeRawPointer, _ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int {
    firstFlagged(specialLanes16(p.loadUnaligned(as: SIMD16<UInt8>.self), a, b, c))
}

/// All bits set in each lane of `x` that ``firstSpecialByte16(_:_:_:_:)`` stops
/// at, none in the others.
@inline(__always)
@inlinable package func specialLanes16(_ x: SIMD16<UInt8>, _ a: UInt8, _ b: UInt8, _ c: UInt8) -> SIMD16<UInt8> {
    lanes(x, equalTo: a) | lanes(x, equalTo: b) | lanes(x, equalTo: c) | lanes(x, belowOrNonASCII: 0x20)
}

/// All bits set in each lane of `x` that is a control character (< 0x20) or equal to
/// `a`, `b` or `c` (bytes >= 0x80 are not looked at).
@inline(__always)
@inlinable package func asciiLanes16(_ x: SIMD16<UInt8>, _ a: UInt8, _ b: UInt8, _ c: UInt8) -> SIMD16<UInt8> {
    lanes(x, equalTo: a) | lanes(x, equalTo: b) | lanes(x, equalTo: c) | lanes(x, below: 0x20)
}

/// Advances `i` over the plain bytes of character data or CDATA in `p[i..<n]`, 16 at a
/// time while 16 are left: the bytes ``firstSpecialByte16(_:_:_:_:)`` does not stop at,
/// and also tabs and line feeds, and bytes >= 0x80 in a step whose other bytes are
/// plain when they are well-formed UTF-8 by `steps` (``UTF8Steps/Rules/xml``), so that
/// text in any script is not stopped at each character. A character the step cuts is
/// read again whole by the next step, which starts at its first byte (every step starts
/// at a character's first byte: the common step, plain ASCII, is one test). True when
/// stopped at a byte to handle (the first other than a tab or line feed that
/// ``firstSpecialByte16(_:_:_:_:)`` flags in the step); false when fewer than 16 bytes
/// are left, with `i` at a character's first byte. Either way the byte-by-byte reading
/// takes over there.
@inlinable @inline(__always)
package func skipTextBytes16(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, _ a: UInt8, _ b: UInt8, _ c: UInt8,
                     _ steps: UnsafePointer<UInt64>) -> Bool {
    while i &+ 16 <= n {
        let x = UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self)
        // The common step, printable ASCII without `a`, `b` or `c`: one test (the controls
        // and the bytes >= 0x80 flagged by one signed compare).
        let plain = unsafeBitCast(specialLanes16(x, a, b, c), to: SIMD2<UInt64>.self)
        if plain[0] | plain[1] == 0 { i &+= 16; continue }
        // Tabs and line feeds are text like any other (carriage returns are not: they
        // are normalized).
        let tabsAndLineFeeds = lanes(x, equalTo: 0x09) | lanes(x, equalTo: 0x0A)
        let stops = asciiLanes16(x, a, b, c) & ~tabsAndLineFeeds
        let flagged = unsafeBitCast((stops | x) & SIMD16(repeating: 0x80), to: SIMD2<UInt64>.self)
        if flagged[0] | flagged[1] == 0 { i &+= 16; continue }   // tabs or line feeds
        let w = unsafeBitCast(stops, to: SIMD2<UInt64>.self)
        if w[0] | w[1] == 0 {
            var s = UTF8Steps.accept
            for k in 0..<16 { s = steps[Int(p[i &+ k])] &>> s }
            s &= 63
            if s == UTF8Steps.accept { i &+= 16; continue }
            // Well-formed so far, a character cut at the step's end: the next step starts
            // at its first byte (1-3 bytes back).
            if s != UTF8Steps.reject { i = UTF8Steps.sequenceStart(p, i &+ 16); continue }
        }
        i &+= firstFlagged((stops | x) & SIMD16(repeating: 0x80))
        return true
    }
    return false
}

/// How many of the bytes of `x`, from the first, are ASCII name characters other than
/// `:` (letters, digits, `-`, `.`, `_`): 16 when all are.
@inlinable @inline(__always)
package func asciiNameRun16(_ x: SIMD16<UInt8>) -> Int {
    let folded = (x | SIMD16<UInt8>(repeating: 0x20)) &- SIMD16<UInt8>(repeating: 0x61)
    let letters = lanes(folded, below: 26)
    let digits = lanes(x &- SIMD16<UInt8>(repeating: 0x30), below: 10)
    let dashOrDot = lanes(x &- SIMD16<UInt8>(repeating: 0x2D), below: 2)
    return firstFlagged(~(letters | digits | dashOrDot | lanes(x, equalTo: 0x5F)))
}

/// The index of the first lane of `m` that is not 0 (lanes are 0, or 0x80 or 0xFF), 16
/// when none: the two 64-bit halves, byte 0 lowest (little-endian).
@inlinable @inline(__always)
package func firstFlagged(_ m: SIMD16<UInt8>) -> Int {
    let w = unsafeBitCast(m, to: SIMD2<UInt64>.self)
    #if _endian(little)
    if w[0] != 0 { return w[0].trailingZeroBitCount &>> 3 }
    if w[1] != 0 { return 8 &+ (w[1].trailingZeroBitCount &>> 3) }
    #else
    if w[0] != 0 { return w[0].leadingZeroBitCount &>> 3 }
    if w[1] != 0 { return 8 &+ (w[1].leadingZeroBitCount &>> 3) }
    #endif
    return 16
}

/// Copies `n` bytes as `memmove` does: up to 64 with four loads of 16 (the first two and
/// the last two, overlapping), up to 32 with two overlapping loads of 16, 8 or 4 bytes
/// (three of 1 below 4), all made before the stores (no call), more with `memmove`.
@inlinable @inline(__always)
package func copyBytes(to d: UnsafeMutableRawPointer, from s: UnsafeRawPointer, _ n: Int) {
    if n >= 16 {
        if n > 32 {
            guard n <= 64 else { d.copyMemory(from: s, byteCount: n); return }
            let a = s.loadUnaligned(as: SIMD16<UInt8>.self)
            let b = (s + 16).loadUnaligned(as: SIMD16<UInt8>.self)
            let c = (s + (n &- 32)).loadUnaligned(as: SIMD16<UInt8>.self)
            let e = (s + (n &- 16)).loadUnaligned(as: SIMD16<UInt8>.self)
            d.storeBytes(of: a, as: SIMD16<UInt8>.self)
            (d + 16).storeBytes(of: b, as: SIMD16<UInt8>.self)
            (d + (n &- 32)).storeBytes(of: c, as: SIMD16<UInt8>.self)
            (d + (n &- 16)).storeBytes(of: e, as: SIMD16<UInt8>.self)
            return
        }
        let a = s.loadUnaligned(as: SIMD16<UInt8>.self)
        let b = (s + (n &- 16)).loadUnaligned(as: SIMD16<UInt8>.self)
        d.storeBytes(of: a, as: SIMD16<UInt8>.self)
        (d + (n &- 16)).storeBytes(of: b, as: SIMD16<UInt8>.self)
    } else if n >= 8 {
        let a = s.loadUnaligned(as: UInt64.self), b = (s + (n &- 8)).loadUnaligned(as: UInt64.self)
        d.storeBytes(of: a, as: UInt64.self)
        (d + (n &- 8)).storeBytes(of: b, as: UInt64.self)
    } else if n >= 4 {
        let a = s.loadUnaligned(as: UInt32.self), b = (s + (n &- 4)).loadUnaligned(as: UInt32.self)
        d.storeBytes(of: a, as: UInt32.self)
        (d + (n &- 4)).storeBytes(of: b, as: UInt32.self)
    } else if n > 0 {
        let s = s.assumingMemoryBound(to: UInt8.self), d = d.assumingMemoryBound(to: UInt8.self)
        let a = s[0], b = s[n &>> 1], c = s[n &- 1]
        d[0] = a; d[n &>> 1] = b; d[n &- 1] = c
    }
}

/// The number of line feeds (0x0A) in `p[0..<n]` and the index of the last one (-1 when
/// there is none): the tokenizer's line count, 16 bytes a compare with no stop at each
/// line (a `memchr` per line cost 3% of converting a dump whose lines are short), the
/// last one looked for from the end afterwards.
@inlinable package func lineFeeds(_ p: UnsafePointer<UInt8>, _ n: Int) -> (count: Int, last: Int) {
    @inline(__always) func matches(_ i: Int) -> SIMD16<UInt8> {
        lanes(UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self), equalTo: 0x0A)
    }
    var count = 0
    var i = 0
    while i &+ 16 <= n {
        // Up to 255 steps counted in byte lanes (each match subtracts 0xFF: adds 1),
        // then summed.
        var lanes = SIMD16<UInt8>()
        for _ in 0..<min((n &- i) &>> 4, 255) {
            lanes &-= matches(i)
            i &+= 16
        }
        let w = unsafeBitCast(lanes, to: SIMD2<UInt64>.self)
        count &+= sumOfBytes(w[0]) &+ sumOfBytes(w[1])
    }
    while i < n {
        if p[i] == 0x0A { count &+= 1 }
        i &+= 1
    }
    guard count > 0 else { return (0, -1) }
    // The last one: back 16 bytes at a time to the step holding it, then byte by byte.
    var j = n
    while j >= 16 {
        let w = unsafeBitCast(matches(j &- 16), to: SIMD2<UInt64>.self)
        if w[0] | w[1] != 0 { break }
        j &-= 16
    }
    while j > 0 {
        j &-= 1
        if p[j] == 0x0A { break }
    }
    return (count, j)
}

/// The sum of the eight bytes of `w`.
@inline(__always)
@inlinable package func sumOfBytes(_ w: UInt64) -> Int {
    // Pairs, then the four 16-bit sums (each at most 2 × 255) added in the top 16 bits.
    let pairs = (w & 0x00FF_00FF_00FF_00FF) &+ ((w &>> 8) & 0x00FF_00FF_00FF_00FF)
    return Int(truncatingIfNeeded: (pairs &* 0x0001_0001_0001_0001) &>> 48)
}

/// True when the `n` bytes at `a` and at `b` are the same: `memcmp(a, b, n) == 0`
/// without the call, for the short names and namespace URIs the tokenizer and the
/// machine compare at each element (16 bytes a step, the last ones by overlapping
/// loads, as ``copyBytes(to:from:_:)`` moves them); also ``FeedBytes/equals(_:)``'s.
@inlinable @inline(__always)
package func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
    if n >= 16 {
        var i = 0
        while i &+ 16 < n {
            if !equal16(a + i, b + i) { return false }
            i &+= 16
        }
        return equal16(a + (n &- 16), b + (n &- 16))
    }
    if n >= 8 {
        return (a.loadUnaligned(as: UInt64.self) ^ b.loadUnaligned(as: UInt64.self))
            | ((a + (n &- 8)).loadUnaligned(as: UInt64.self) ^ (b + (n &- 8)).loadUnaligned(as: UInt64.self)) == 0
    }
    if n >= 4 {
        return (a.loadUnaligned(as: UInt32.self) ^ b.loadUnaligned(as: UInt32.self))
            | ((a + (n &- 4)).loadUnaligned(as: UInt32.self) ^ (b + (n &- 4)).loadUnaligned(as: UInt32.self)) == 0
    }
    if n > 0 {
        let a = a.assumingMemoryBound(to: UInt8.self), b = b.assumingMemoryBound(to: UInt8.self)
        return a[0] == b[0] && a[n &>> 1] == b[n &>> 1] && a[n &- 1] == b[n &- 1]
    }
    return true
}

/// The 16 bytes at `a` and at `b` are the same.
@inline(__always)
@inlinable package func equal16(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Bool {
    let d = unsafeBitCast(a.loadUnaligned(as: SIMD16<UInt8>.self) ^ b.loadUnaligned(as: SIMD16<UInt8>.self),
                          to: SIMD2<UInt64>.self)
    return d[0] | d[1] == 0
}

/// A UTF-8 automaton in shifts (one table word per byte; a state is a bit offset in it,
/// the next state the 6 bits found there): `state = table[byte] &>> state` per byte, one
/// dependent shift, no branch. The one statement of well-formed UTF-8 (no overlong form,
/// no surrogate, nothing past U+10FFFF) for the vector scans of the JSON writer and the
/// Swift tokenizer, each of which leaves a few characters to its byte-by-byte path
/// (``Rules``).
@usableFromInline package enum UTF8Steps {
    /// What each reader leaves to its byte-by-byte path, besides malformed sequences.
    @usableFromInline package enum Rules {
        /// JSON escaping: C1 controls (C2 80–9F), mapped to windows-1252 there.
        case json
        /// The XML tokenizer: U+FFC0–U+FFFF (EF BF ..), among which U+FFFE and U+FFFF
        /// are not XML characters.
        case xml
    }

    @usableFromInline package static let accept: UInt64 = 0
    @usableFromInline package static let reject: UInt64 = 6
    // Expecting: the second byte of C2 (JSON: A0–BF) or of EF (XML: 80–BE); 1, 2 or 3
    // continuation bytes; the second byte of E0 (A0–BF), ED (80–9F), F0 (90–BF), F4
    // (80–8F). Ten states of 6 bits fill the 64-bit word, so the two rules share one.
    @usableFromInline package static let afterC2orEF: UInt64 = 12, one: UInt64 = 18, two: UInt64 = 24, three: UInt64 = 30
    @usableFromInline package static let afterE0: UInt64 = 36, afterED: UInt64 = 42, afterF0: UInt64 = 48, afterF4: UInt64 = 54

    @inlinable package static func next(_ state: UInt64, _ b: Int, _ rules: Rules) -> UInt64 {
        let continuation = (0x80...0xBF).contains(b)
        switch state {
        case accept:
            switch b {
            case 0x00...0x7F: return accept
            case 0xC2: return rules == .json ? afterC2orEF : one
            case 0xC3...0xDF: return one
            case 0xE0: return afterE0
            case 0xED: return afterED
            case 0xEF: return rules == .xml ? afterC2orEF : two
            case 0xE1...0xEF: return two
            case 0xF0: return afterF0
            case 0xF1...0xF3: return three
            case 0xF4: return afterF4
            default: return reject
            }
        case afterC2orEF:
            return rules == .json ? ((0xA0...0xBF).contains(b) ? accept : reject) : ((0x80...0xBE).contains(b) ? one : reject)
        case one: return continuation ? accept : reject
        case two: return continuation ? one : reject
        case three: return continuation ? two : reject
        case afterE0: return (0xA0...0xBF).contains(b) ? one : reject
        case afterED: return (0x80...0x9F).contains(b) ? one : reject
        case afterF0: return (0x90...0xBF).contains(b) ? two : reject
        case afterF4: return (0x80...0x8F).contains(b) ? two : reject
        default: return reject
        }
    }

    /// The automaton's table for `rules`, allocated and never freed (the readers keep
    /// one each, for the process).
    @inlinable package static func table(_ rules: Rules) -> UnsafePointer<UInt64> {
        let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 256)
        let states: [UInt64] = [accept, reject, afterC2orEF, one, two, three, afterE0, afterED, afterF0, afterF4]
        for b in 0..<256 {
            var row: UInt64 = 0
            for s in states { row |= next(s, b, rules) << s }
            table[b] = row
        }
        return UnsafePointer(table)
    }

    /// The first byte of the sequence that ends unfinished before `i` (a well-formed
    /// prefix: its first byte is the last byte >= 0xC0 among the 3 before `i`).
    @inlinable @inline(__always)
    package static func sequenceStart(_ src: UnsafePointer<UInt8>, _ i: Int) -> Int {
        var j = i &- 1
        while src[j] < 0xC0 { j &-= 1 }
        return j
    }
}

/// Writes code point `v` (at most U+10FFFF: callers check their values) as 1 to 4 bytes
/// of UTF-8 at `p`; returns how many. The one encoder of the Swift side: the
/// transcoder, the tokenizer's references, the JSON writer's and the JSON Feed reader's
/// characters, the repairs.
@inlinable @inline(__always)
package func encodeUTF8(_ v: UInt32, to p: UnsafeMutablePointer<UInt8>) -> Int {
    switch v {
    case ..<0x80:
        p[0] = UInt8(truncatingIfNeeded: v)
        return 1
    case ..<0x800:
        p[0] = UInt8(truncatingIfNeeded: 0xC0 | v >> 6)
        p[1] = UInt8(truncatingIfNeeded: 0x80 | v & 0x3F)
        return 2
    case ..<0x10000:
        p[0] = UInt8(truncatingIfNeeded: 0xE0 | v >> 12)
        p[1] = UInt8(truncatingIfNeeded: 0x80 | v >> 6 & 0x3F)
        p[2] = UInt8(truncatingIfNeeded: 0x80 | v & 0x3F)
        return 3
    default:
        p[0] = UInt8(truncatingIfNeeded: 0xF0 | v >> 18)
        p[1] = UInt8(truncatingIfNeeded: 0x80 | v >> 12 & 0x3F)
        p[2] = UInt8(truncatingIfNeeded: 0x80 | v >> 6 & 0x3F)
        p[3] = UInt8(truncatingIfNeeded: 0x80 | v & 0x3F)
        return 4
    }
}

/// Appends `v` as UTF-8 (``encodeUTF8(_:to:)``).
@inlinable @inline(__always)
package func appendUTF8(_ v: UInt32, to o: inout [UInt8]) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { b in
        o.append(contentsOf: UnsafeBufferPointer(rebasing: b[0..<encodeUTF8(v, to: b.baseAddress!)]))
    }
}
