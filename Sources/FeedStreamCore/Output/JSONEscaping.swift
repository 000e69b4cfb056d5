// SPDX-License-Identifier: Apache-2.0
// JSON string encoding straight from borrowed bytes: escapes what JSON requires and
// guarantees valid UTF-8 out (each byte that does not start a well-formed UTF-8
// sequence becomes U+FFFD), in one pass with runs of plain bytes copied at once.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Byte classes: 0 plain, 1 escape, 2/3/4 lead byte of a sequence of that length,
/// 5 never valid (a stray continuation byte, C0, C1, F5–FF).
/// (A table allocated once and never freed: read through a pointer, with no array
/// access or closure per string; each ``ByteBuffer`` holds the pointer, so that no
/// string pays the global's lazy-initialization check.)
nonisolated(unsafe) let jsonByteClass: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for b in 0..<256 {
        switch b {
        case 0x00..<0x20, 0x22, 0x5C: table[b] = 1
        case 0x20..<0x80: table[b] = 0
        case 0xC2...0xDF: table[b] = 2
        case 0xE0...0xEF: table[b] = 3
        case 0xF0...0xF4: table[b] = 4
        default: table[b] = 5
        }
    }
    return UnsafePointer(table)
}()

private let hex: StaticString = "0123456789abcdef"

/// U+0080–U+009F (C1 controls) as windows-1252 reads bytes 0x80–0x9F; nil where
/// windows-1252 leaves the byte undefined. Feeds that declare ISO-8859-1 but are
/// written in windows-1252 (most of them) decode to C1 controls; text never means
/// them, so the writers map them back (docs/SCHEMA.md, "Encodings"). The one table of
/// these bytes: the recovery path reads a stray byte 0x80–0x9F by it too.
package let windows1252: [UInt32?] = [
    0x20AC, nil, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, nil, 0x017D, nil,
    nil, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, nil, 0x017E, 0x0178,
]

extension ByteBuffer {
    /// Appends `"…"` with the bytes JSON-escaped and made valid UTF-8.
    mutating func appendJSONString(_ bytes: UnsafeRawBufferPointer) {
        append(0x22)
        appendJSONEscaped(bytes, closing: 0x22)
    }

    /// Appends a file name (``PathBytes``) as `"…"`: its characters as
    /// ``appendJSONString(_:)`` writes them, each carried byte as `\udcXX`.
    mutating func appendJSONPath(_ name: String) {
        // No carried byte (each is U+10FFxx, whose UTF-8 starts with F4): the name's
        // UTF-8 as it is (looked at in place: a name is set once per input).
        var name = name
        let written = name.withUTF8 { u -> Bool in
            let bytes = UnsafeRawBufferPointer(u)
            if let base = bytes.baseAddress, memchr(base, 0xF4, bytes.count) != nil { return false }
            appendJSONString(bytes)
            return true
        }
        if written { return }
        append(0x22)
        var run = ""
        func flush() {
            guard !run.isEmpty else { return }
            run.withUTF8 { appendJSONEscaped(UnsafeRawBufferPointer($0)) }
            run = ""
        }
        for u in name.unicodeScalars {
            if let b = PathBytes.carried(u) {
                flush()
                for c in Array("\\udc".utf8) { append(c) }
                append(hex.utf8Start[Int(b >> 4)])
                append(hex.utf8Start[Int(b & 0xF)])
            } else {
                run.unicodeScalars.append(u)
            }
        }
        flush()
        append(0x22)
    }

    /// Appends the bytes JSON-escaped and made valid UTF-8, and `closing` after them when
    /// given (the string's closing quote, written with no capacity check of its own).
    ///
    /// Capacity is reserved once for the bytes as they are (output never exceeds input
    /// except at an escape, a replacement or a windows-1252 character, each of which
    /// reserves room for the rest again), so runs of plain bytes are copied with no
    /// check per append, short ones without a `memcpy` call.
    @inline(__always)
    mutating func appendJSONEscaped(_ bytes: UnsafeRawBufferPointer, closing: UInt8? = nil) {
        let n = bytes.count
        reserve(n &+ escapeSlack)
        guard let src = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            if let closing { putReserved(closing) }
            return
        }
        let cls = jsonClasses, steps = utf8StepTable
        var i = 0
        var run = 0
        while i < n {
            // Skip the bytes copied as they are: plain ASCII (no control, quote or
            // backslash) and well-formed UTF-8, 16 at a time (the last ones too, of a
            // string of 16 or more, when they are ASCII), then ASCII 8 at a time.
            var found = skipJSONPlainBytes(src, &i, n, cls, steps)
            if !found && i < n {
                // A string of under 16 bytes (or the rest after a special byte):
                // 8 at a time, the last fewer than 8 as the tail of its last 8
                // (lanes before `i` masked off), then byte by byte.
                while i &+ 8 <= n {
                    let w = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
                    if hasSpecialByte(w) { found = true; break }
                    i &+= 8
                }
                #if _endian(little)
                if !found && i < n && n >= 8 {
                    let start = n &- 8
                    let w = UnsafeRawPointer(src + start).loadUnaligned(as: UInt64.self)
                    if specialBytes(w) & (~0 &<< UInt64((i &- start) &* 8)) == 0 { i = n }
                }
                #endif
                while i < n && cls[Int(src[i])] == 0 { i &+= 1 }
            }
            if i >= n { break }
            let c = src[i]
            let k = cls[Int(c)]
            if k == 0 { i &+= 1; continue }
            if k >= 2 && k <= 4 && i &+ Int(k) <= n {
                if c == 0xC2 && src[i &+ 1] & 0xE0 == 0x80 {
                    // A C1 control (C2 80–9F, which the automaton leaves to this path):
                    // the windows-1252 character it stands for (3 bytes for 2: room for
                    // the rest reserved again), or as written where windows-1252
                    // defines none.
                    if let w = windows1252[Int(src[i &+ 1] & 0x1F)] {
                        putReserved(src + run, i &- run)
                        reserve(n &- i &+ escapeSlack)
                        appendScalar(w)
                        i &+= 2
                        run = i
                    } else {
                        i &+= 2
                    }
                    continue
                }
                if wellFormed(src + i, Int(k), steps) {
                    i &+= Int(k)
                    continue
                }
            }
            // Copy the plain run, then write the escape or replacement (up to 6 bytes
            // for 1: room for the rest reserved again).
            putReserved(src + run, i &- run)
            reserve(n &- i &+ escapeSlack)
            if k == 1 {
                appendEscape(c)
            } else {
                append(0xEF); append(0xBF); append(0xBD)
            }
            i &+= 1
            run = i
        }
        putReserved(src + run, n &- run)
        if let closing { putReserved(closing) }
    }

    /// ``appendTrustedJSONEscaped(_:closing:redecoding:)``, with a string of up to 64
    /// bytes that holds no byte to escape or look at (most values but text: a type, a
    /// rel, a language, a category, a date, a name, a title, most URLs) copied here with
    /// its closing quote, without the call. `key` is the member's, noted as
    /// ``currentKey`` for the call (a string read again is counted under it).
    @inline(__always)
    mutating func appendTrustedJSONString(_ bytes: UnsafeRawBufferPointer, closing: UInt8, redecoding: Bool,
                                          key: StaticString) {
        let n = bytes.count
        if n <= 64, let src = bytes.baseAddress, !mayHoldTrustedSpecial(src, n) {
            reserve(n &+ 1)
            putReserved(src, n)
            putReserved(closing)
            return
        }
        currentKey = key
        appendTrustedJSONEscaped(bytes, closing: closing, redecoding: redecoding)
    }

    /// ``appendJSONEscaped(_:closing:)`` for bytes known to be well-formed UTF-8, whole
    /// characters (an item's fields from the strict Swift tokenizer,
    /// ``FeedItemView/textIsUTF8``): the same output, without checking the UTF-8 again.
    /// Only the bytes JSON escapes and the C1 controls (C2 80–9F, mapped to windows-1252)
    /// are looked for, 16 bytes a step (``nextTrustedSpecial(_:_:_:)``, with no byte-by-byte
    /// loop for the last bytes). Out of line: the checked path's loop stays small enough to
    /// be inlined where it is called.
    ///
    /// With `redecoding`, a string that ``TextRules`` reads again is written as it
    /// reads (looked at from its first C2, which the rule needs: most strings have none)
    /// and noted (``noteRedecoded()``).
    @inline(never)
    mutating func appendTrustedJSONEscaped(_ bytes: UnsafeRawBufferPointer, closing: UInt8?, redecoding: Bool = false) {
        let n = bytes.count
        reserve(n &+ escapeSlack)
        guard let src = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            if let closing { putReserved(closing) }
            return
        }
        let start = count
        var redecoding = redecoding
        var i = 0
        var run = 0
        while true {
            // To the next byte to escape or C2 (a C1 control's first byte, or another
            // character's): 16 at a time; the last fewer than 16 of a string of 16 or
            // more as the tail of its last 16 (the lanes before `i` masked off); a
            // shorter string 8 at a time, its last fewer than 8 as the tail of its last 8
            // (or of two overlapping 4s).
            i = nextTrustedSpecial(src, i, n)
            if i >= n { break }
            let c = src[i]
            // (The last 8 of a short string are tested in one word: a byte handled before
            // `i` can flag one after it by a borrow. Looked at again.)
            if !isTrustedSpecial(c) { i &+= 1; continue }
            if c == 0xC2 {
                if redecoding {
                    redecoding = false
                    if let k = redecode(src, n) {
                        truncate(to: start)
                        noteRedecoded()
                        return appendTrustedJSONEscaped(UnsafeRawBufferPointer(start: redecodeScratch, count: k),
                                                        closing: closing)
                    }
                }
                // (Well-formed: a byte follows.) A C1 control: its windows-1252 character
                // (3 bytes for 2: room for the rest reserved again), or as written.
                if i &+ 1 < n && src[i &+ 1] & 0xE0 == 0x80, let w = windows1252[Int(src[i &+ 1] & 0x1F)] {
                    putReserved(src + run, i &- run)
                    reserve(n &- i &+ escapeSlack)
                    appendScalar(w)
                    run = i &+ 2
                }
                i &+= 2
                continue
            }
            putReserved(src + run, i &- run)
            reserve(n &- i &+ escapeSlack)
            appendEscape(c)
            i &+= 1
            run = i
        }
        putReserved(src + run, n &- run)
        if let closing { putReserved(closing) }
    }

    /// Document text (a member's value, an array's element) JSON-escaped as
    /// ``appendJSONEscaped(_:closing:)`` writes it, or as ``TextRules`` reads it
    /// again (noted: ``noteRedecoded()``).
    mutating func appendDocumentText(_ bytes: UnsafeRawBufferPointer, closing: UInt8) {
        if let src = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count >= 4,
           memchr(src, 0xC2, bytes.count) != nil, let k = redecode(src, bytes.count) {
            noteRedecoded()
            return appendJSONEscaped(UnsafeRawBufferPointer(start: redecodeScratch, count: k), closing: closing)
        }
        appendJSONEscaped(bytes, closing: closing)
    }

    /// `src[0..<n]` read again (``TextRules``) into ``redecodeScratch``: its length;
    /// nil when the rule does not apply.
    private mutating func redecode(_ src: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        guard TextRules.readsAgain(src, n) else { return nil }
        if redecodeCapacity < n {
            redecodeScratch.deallocate()
            redecodeCapacity = max(n, 2 &* redecodeCapacity)
            redecodeScratch = .allocate(capacity: redecodeCapacity)
        }
        return TextRules.write(src, n, into: redecodeScratch)
    }

    /// Notes that the member being written (at the top level, or the one it is inside:
    /// ``topKey``) had text read again, once per line.
    mutating func noteRedecoded() { noteRedecoded(depth == 0 ? currentKey : topKey) }

    /// Notes that member `key` had text read again, once per line.
    mutating func noteRedecoded(_ key: StaticString) {
        if redecodedCount > 0 {
            let last = redecodedKeys[redecodedCount &- 1]
            if last.utf8CodeUnitCount == key.utf8CodeUnitCount
                && memcmp(last.utf8Start, key.utf8Start, key.utf8CodeUnitCount) == 0 { return }
        }
        guard redecodedCount < ByteBuffer.redecodedCapacity else { return }
        redecodedKeys[redecodedCount] = key
        redecodedCount &+= 1
    }

    /// Appends the UTF-8 encoding of a scalar value (``encodeUTF8(_:to:)``).
    mutating func appendScalar(_ v: UInt32) {
        write(upTo: 4) { encodeUTF8(v, to: $0) }
    }

    @inline(__always)
    private mutating func appendEscape(_ c: UInt8) {
        switch c {
        case 0x22: append("\\\"")
        case 0x5C: append("\\\\")
        case 0x0A: append("\\n")
        case 0x0D: append("\\r")
        case 0x09: append("\\t")
        case 0x08: append("\\b")
        case 0x0C: append("\\f")
        default:
            append("\\u00")
            let h = UnsafeRawPointer(hex.utf8Start).assumingMemoryBound(to: UInt8.self)
            append(h[Int(c >> 4)])
            append(h[Int(c & 15)])
        }
    }
}

/// Advances `i` over the bytes of `src[i..<n]` that JSON string escaping copies as they
/// are: printable ASCII other than `"` and `\`, and well-formed UTF-8 sequences other than
/// C1 controls (U+0080–U+009F, mapped to windows-1252 by the caller). 16 bytes a step
/// while 16 are left: a step of plain ASCII is one vector test; a step with bytes >=
/// 0x80 and nothing to escape runs them through ``utf8Steps`` (a sequence may span
/// steps); a step with a byte to handle is walked byte by byte to the first one, or to
/// the first byte of the sequence that failed. True when stopped at a byte for the
/// caller (always at a character's first byte); false when fewer than 16 bytes are
/// left, with `i` at a character's first byte (the caller's shorter steps take over).
@inline(__always)
private func skipJSONPlainBytes(_ src: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int,
                                _ cls: UnsafePointer<UInt8>, _ utf8Steps: UnsafePointer<UInt64>) -> Bool {
    var state = UTF8Steps.accept
    while i &+ 16 <= n {
        let x = UnsafeRawPointer(src + i).loadUnaligned(as: SIMD16<UInt8>.self)
        let plain = unsafeBitCast(escapeOrNonASCIILanes16(x), to: SIMD2<UInt64>.self)
        if plain[0] | plain[1] == 0 && state == UTF8Steps.accept { i &+= 16; continue }
        let e = unsafeBitCast(escapeLanes16(x), to: SIMD2<UInt64>.self)
        if e[0] | e[1] == 0 {
            // Bytes >= 0x80 (or a sequence from the last step going on), nothing to
            // escape: through the UTF-8 automaton, on when all is well-formed.
            var s = state
            for k in 0..<16 { s = utf8Steps[Int(src[i &+ k])] &>> s }
            s &= 63
            if s != UTF8Steps.reject { state = s; i &+= 16; continue }
        }
        // Something to handle in this step (a byte to escape, or a sequence the
        // automaton rejects, both within these 16 bytes): byte by byte to it. `lead` is
        // where the character being read began (before `i` when it began in an
        // earlier step).
        var lead = state == UTF8Steps.accept ? i : UTF8Steps.sequenceStart(src, i)
        var s = state
        var j = i
        while j < n {   // always stops within the step (see above); bounded all the same
            if s == UTF8Steps.accept {
                lead = j
                if cls[Int(src[j])] == 1 { break }
            }
            s = (utf8Steps[Int(src[j])] &>> s) & 63
            if s == UTF8Steps.reject { j = lead; break }
            j &+= 1
        }
        i = j
        return true
    }
    if state != UTF8Steps.accept {
        i = UTF8Steps.sequenceStart(src, i)
        return false
    }
    // Fewer than 16 left of a string of 16 or more: looked at in one step too, as the
    // tail of its last 16 (the lanes before `i` masked off); plain ASCII ends the scan.
    guard i < n, n >= 16 else { return false }
    #if _endian(little)
    let start = n &- 16
    let x = UnsafeRawPointer(src + start).loadUnaligned(as: SIMD16<UInt8>.self)
    let w = unsafeBitCast(escapeOrNonASCIILanes16(x), to: SIMD2<UInt64>.self)
    let seen = i &- start   // 1...15 lanes already looked at
    var lo = w[0], hi = w[1]
    if seen >= 8 { lo = 0; hi &= ~0 &<< UInt64((seen &- 8) &* 8) } else { lo &= ~0 &<< UInt64(seen &* 8) }
    if lo | hi == 0 { i = n }
    #endif
    return false
}

/// The index of the first byte of `src[i..<n]` that ``ByteBuffer/appendTrustedJSONEscaped(_:closing:)``
/// handles (one JSON escapes, or C2), `n` when there is none; or, in a short string's
/// last 8 bytes, a byte after such a byte before `from` (``trustedSpecial8(_:)``: the
/// caller looks at the byte again). Only whole loads within
/// `src[0..<n]`: 16 bytes a step, then the tail of the last 16 (lanes already looked at
/// masked off); under 16 bytes, 8 a step and the tail of the last 8; under 8, two
/// overlapping loads of 4; under 4, byte by byte.
@inline(__always)
private func nextTrustedSpecial(_ src: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> Int {
    var i = from
    #if _endian(little)
    // Long runs 32 bytes a step, two vectors under one test (the step that finds a byte
    // goes on 16 at a time).
    while i &+ 32 <= n {
        let a = UnsafeRawPointer(src + i).loadUnaligned(as: SIMD16<UInt8>.self)
        let b = UnsafeRawPointer(src + i + 16).loadUnaligned(as: SIMD16<UInt8>.self)
        let w = unsafeBitCast(trustedLanes16(a) | trustedLanes16(b), to: SIMD2<UInt64>.self)
        if w[0] | w[1] != 0 { break }
        i &+= 32
    }
    while i &+ 16 <= n {
        let w = unsafeBitCast(trustedLanes16(UnsafeRawPointer(src + i).loadUnaligned(as: SIMD16<UInt8>.self)),
                              to: SIMD2<UInt64>.self)
        if w[0] | w[1] == 0 { i &+= 16; continue }
        return i &+ (w[0] != 0 ? w[0].trailingZeroBitCount &>> 3 : 8 &+ w[1].trailingZeroBitCount &>> 3)
    }
    guard i < n else { return n }
    if n >= 16 {
        let start = n &- 16, seen = i &- start   // 1...15 lanes already looked at
        let w = unsafeBitCast(trustedLanes16(UnsafeRawPointer(src + start).loadUnaligned(as: SIMD16<UInt8>.self)),
                              to: SIMD2<UInt64>.self)
        var lo = w[0], hi = w[1]
        if seen >= 8 { lo = 0; hi &= ~0 &<< UInt64((seen &- 8) &* 8) } else { lo &= ~0 &<< UInt64(seen &* 8) }
        if lo != 0 { return start &+ lo.trailingZeroBitCount &>> 3 }
        if hi != 0 { return start &+ 8 &+ hi.trailingZeroBitCount &>> 3 }
        return n
    }
    while i &+ 8 <= n {
        let m = trustedSpecial8(UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self))
        if m != 0 { return i &+ m.trailingZeroBitCount &>> 3 }
        i &+= 8
    }
    guard i < n else { return n }
    if n >= 8 {
        let start = n &- 8
        let m = trustedSpecial8(UnsafeRawPointer(src + start).loadUnaligned(as: UInt64.self))
            & (~0 &<< UInt64((i &- start) &* 8))
        return m != 0 ? start &+ m.trailingZeroBitCount &>> 3 : n
    }
    if n >= 4 {
        // Bytes 0-3 in lanes 0-3, bytes n-4..<n in lanes 4-7 (overlapping when n < 8).
        let lo = UInt64(UnsafeRawPointer(src).loadUnaligned(as: UInt32.self))
        let hi = UInt64(UnsafeRawPointer(src + (n &- 4)).loadUnaligned(as: UInt32.self))
        var m = trustedSpecial8(lo | hi &<< 32)
        // Lanes before `i`: bytes 0..<i in the low half; in the high half, lane 4 + k
        // holds byte n - 4 + k.
        let seenHigh = max(0, i &- (n &- 4))
        m &= (~0 &<< UInt64(min(i, 4) &* 8)) & ~(((1 &<< UInt64(seenHigh &* 8)) &- 1) &<< 32)
        if m == 0 { return n }
        let lane = m.trailingZeroBitCount &>> 3
        return lane < 4 ? lane : n &- 8 &+ lane
    }
    #endif
    while i < n && !isTrustedSpecial(src[i]) { i &+= 1 }
    return i
}

/// False when none of the `n` (at most 64) bytes at `src` is one ``nextTrustedSpecial(_:_:_:)``
/// stops at (true may be a false alarm: the full path looks again): four loads of 16
/// (the first two and the last two, overlapping), two overlapping loads of 16, 8 or 4
/// bytes, or byte by byte under 4.
@inline(__always)
private func mayHoldTrustedSpecial(_ src: UnsafeRawPointer, _ n: Int) -> Bool {
    if n > 32 {
        let a = trustedLanes16(src.loadUnaligned(as: SIMD16<UInt8>.self))
        let b = trustedLanes16((src + 16).loadUnaligned(as: SIMD16<UInt8>.self))
        let c = trustedLanes16((src + (n &- 32)).loadUnaligned(as: SIMD16<UInt8>.self))
        let d = trustedLanes16((src + (n &- 16)).loadUnaligned(as: SIMD16<UInt8>.self))
        let w = unsafeBitCast(a | b | c | d, to: SIMD2<UInt64>.self)
        return w[0] | w[1] != 0
    }
    if n > 16 {
        let a = trustedLanes16(src.loadUnaligned(as: SIMD16<UInt8>.self))
        let b = trustedLanes16((src + (n &- 16)).loadUnaligned(as: SIMD16<UInt8>.self))
        let w = unsafeBitCast(a | b, to: SIMD2<UInt64>.self)
        return w[0] | w[1] != 0
    }
    if n >= 8 {
        return trustedSpecial8(src.loadUnaligned(as: UInt64.self))
            | trustedSpecial8((src + (n &- 8)).loadUnaligned(as: UInt64.self)) != 0
    }
    if n >= 4 {
        let w = UInt64(src.loadUnaligned(as: UInt32.self)) | UInt64((src + (n &- 4)).loadUnaligned(as: UInt32.self)) &<< 32
        return trustedSpecial8(w) != 0
    }
    let p = src.assumingMemoryBound(to: UInt8.self)
    for k in 0..<n where isTrustedSpecial(p[k]) { return true }
    return false
}

/// True for the bytes ``nextTrustedSpecial(_:_:_:)`` stops at.
@inline(__always)
private func isTrustedSpecial(_ c: UInt8) -> Bool { c < 0x20 || c == 0x22 || c == 0x5C || c == 0xC2 }

/// 0x80 in the lanes of `x` that JSON escapes or that hold C2, 0 in the others.
@inline(__always)
private func trustedLanes16(_ x: SIMD16<UInt8>) -> SIMD16<UInt8> {
    (escapeLanes16(x) | lanes(x, equalTo: 0xC2)) & SIMD16(repeating: 0x80)
}

/// All bits set in the lanes of `x` that JSON escapes or that are >= 0x80, none in the
/// others: a step of plain ASCII in one signed compare and two equalities.
@inline(__always)
private func escapeOrNonASCIILanes16(_ x: SIMD16<UInt8>) -> SIMD16<UInt8> {
    lanes(x, equalTo: 0x22) | lanes(x, equalTo: 0x5C) | lanes(x, belowOrNonASCII: 0x20)
}

/// 0x80 in the bytes of `w` that JSON escapes or that are C2, and possibly in bytes
/// above such a byte (a borrow carried up): the lowest one flagged is exact, unless
/// lanes below it were masked off after the test (the caller looks again).
@inline(__always)
private func trustedSpecial8(_ w: UInt64) -> UInt64 {
    let control = (w &- ones &* 0x20) & ~w
    let q = w ^ (ones &* 0x22), b = w ^ (ones &* 0x5C), c = w ^ (ones &* 0xC2)
    return (control | ((q &- ones) & ~q) | ((b &- ones) & ~b) | ((c &- ones) & ~c)) & highs
}

/// All bits set in the lanes of `x` that JSON escapes (< 0x20, `"`, `\`), none in the
/// others (bytes >= 0x80 included).
@inline(__always)
private func escapeLanes16(_ x: SIMD16<UInt8>) -> SIMD16<UInt8> {
    lanes(x, equalTo: 0x22) | lanes(x, equalTo: 0x5C) | lanes(x, below: 0x20)
}

/// The JSON writer's UTF-8 automaton (``UTF8Steps``, ``UTF8Steps/Rules/json``), allocated
/// once and never freed (read through a pointer, as ``jsonByteClass``).
nonisolated(unsafe) let utf8Steps: UnsafePointer<UInt64> = UTF8Steps.table(.json)

/// Room reserved beyond a string's own length: its closing quote and a 6-byte escape.
private let escapeSlack = 8

private let ones: UInt64 = 0x0101_0101_0101_0101
private let highs: UInt64 = 0x8080_8080_8080_8080

/// True when a byte of `w` is < 0x20, == '"', == '\\' or >= 0x80.
@inline(__always)
private func hasSpecialByte(_ w: UInt64) -> Bool { specialBytes(w) != 0 }

/// 0x80 in the bytes of `w` that are < 0x20, == '"', == '\\' or >= 0x80, and possibly
/// in bytes above such a byte (a borrow carried up: the callers look at the byte found
/// again); 0 when there is none.
@inline(__always)
private func specialBytes(_ w: UInt64) -> UInt64 {
    let control = (w &- ones &* 0x20) & ~w
    let quote = (w ^ (ones &* 0x22)) &- ones & ~(w ^ (ones &* 0x22))
    let backslash = (w ^ (ones &* 0x5C)) &- ones & ~(w ^ (ones &* 0x5C))
    return (control | quote | backslash | w) & highs
}

/// True when the `len` bytes at `p`, a lead byte of that length first, are one
/// well-formed UTF-8 sequence (``UTF8Steps``, ending where it began).
@inline(__always)
private func wellFormed(_ p: UnsafePointer<UInt8>, _ len: Int, _ utf8Steps: UnsafePointer<UInt64>) -> Bool {
    var s = UTF8Steps.accept
    for k in 0..<len { s = utf8Steps[Int(p[k])] &>> s }
    return s & 63 == UTF8Steps.accept
}
