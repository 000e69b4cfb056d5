// JSON string encoding straight from borrowed bytes: escapes what JSON requires and
// guarantees valid UTF-8 out (each byte that does not start a well-formed UTF-8
// sequence becomes U+FFFD), in one pass with runs of plain bytes copied at once.

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
/// them, so the writers map them back (docs/SCHEMA.md, "Encodings").
let windows1252: [UInt32?] = [
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
        // UTF-8 as it is.
        if !name.utf8.contains(0xF4) {
            var name = name
            return name.withUTF8 { appendJSONString(UnsafeRawBufferPointer($0)) }
        }
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
        let cls = jsonClasses
        var i = 0
        var run = 0
        while i < n {
            // Skip plain ASCII bytes (no control, quote, backslash or byte >= 0x80
            // among them), 32 or 16 at a time (the last ones too, of a string of 16 or
            // more), then 8.
            var found = skipPlainBytesToEnd32(src, &i, n, 0x22, 0x5C, 0x5C)
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
            if k >= 2 && k <= 4 {
                let len = Int(k)
                if i &+ len <= n && validSequence(src + i, len) {
                    if c == 0xC2 && src[i &+ 1] < 0xA0, let w = windows1252[Int(src[i &+ 1] & 0x1F)] {
                        // A C1 control: the windows-1252 character it stands for (3
                        // bytes for 2: room for the rest reserved again).
                        putReserved(src + run, i &- run)
                        reserve(n &- i &+ escapeSlack)
                        appendScalar(w)
                        i &+= 2
                        run = i
                        continue
                    }
                    i &+= len
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

    mutating func appendScalar(_ v: UInt32) {
        if v < 0x800 {
            append(UInt8(0xC0 | v >> 6)); append(UInt8(0x80 | v & 0x3F))
        } else {
            append(UInt8(0xE0 | v >> 12)); append(UInt8(0x80 | (v >> 6) & 0x3F)); append(UInt8(0x80 | v & 0x3F))
        }
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

/// Checks continuation bytes, overlongs, surrogates and the U+10FFFF limit.
@inline(__always)
private func validSequence(_ p: UnsafePointer<UInt8>, _ len: Int) -> Bool {
    let b0 = p[0], b1 = p[1]
    guard b1 & 0xC0 == 0x80 else { return false }
    switch len {
    case 2:
        return true
    case 3:
        guard p[2] & 0xC0 == 0x80 else { return false }
        if b0 == 0xE0 && b1 < 0xA0 { return false }   // overlong
        if b0 == 0xED && b1 > 0x9F { return false }   // surrogate
        return true
    default:
        guard p[2] & 0xC0 == 0x80, p[3] & 0xC0 == 0x80 else { return false }
        if b0 == 0xF0 && b1 < 0x90 { return false }   // overlong
        if b0 == 0xF4 && b1 > 0x8F { return false }   // > U+10FFFF
        return true
    }
}
