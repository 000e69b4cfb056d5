import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A document's encoding -> UTF-8, streaming, decoding exactly as the expat backend does.
//
// What expat does, and so what this file does (expat 2.x, lib/xmltok.c):
//
// - Built-in encodings, chosen by ASCII-case-insensitive exact match (`getEncodingIndex`,
//   `streqci`): ISO-8859-1 (each byte is its code point), US-ASCII (bytes >= 0x80 are
//   BT_NONXML: invalid), UTF-8, UTF-16, UTF-16BE, UTF-16LE.
//   UTF-16 (`unicode_byte_type`, `DEFINE_UTF16_TO_UTF8`): a high surrogate D800-DBFF is
//   BT_LEAD4 and expat takes the next 16-bit unit *whatever it is* (`IS_INVALID_CHAR` is
//   0 for UTF-16), silently making another character of the pair. Not followed: a high
//   surrogate not followed by a low one is invalid here, and the expat adapter makes
//   expat reject it too (CSources/CFeedStream/expat.c, `utf16_units`). A lone low
//   surrogate DC00-DFFF is BT_TRAIL: invalid; U+FFFE and U+FFFF are BT_NONXML: invalid.
// - Every other name: the C core's unknown-encoding handler (CSources/CFeedStream/expat.c,
//   `unknown_encoding`/`build_map`/`iconv_scalar`/`convert_sequence`) builds a 256-entry
//   byte map with iconv (`iconv_open("UTF-32LE", name)`), then expat's
//   `XmlInitUnknownEncoding` accepts or rejects it and classifies each byte;
//   `unknown_isInvalid` decides multi-byte sequences (`(c & ~0xFFFF) || checkCharRefNumber(c) < 0`).
//
// Invalid characters. Wherever expat's byte type for a character is BT_NONXML, BT_MALFORM
// or BT_TRAIL, or a multi-byte sequence is invalid, expat's tokenizer says "not well-formed
// (invalid token)" in every context. The transcoder reports the same characters as
// invalid (`invalidAt`), so what it writes is always well-formed UTF-8 made only of XML
// characters (Char production), except in the passthrough UTF-8 case, which the tokenizer
// validates itself.

/// A growable byte buffer the transcoder writes UTF-8 into (one allocation, reused).
final class TranscodeBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// Bytes in use, from `base`. May be lowered (e.g. to 0 once the bytes are consumed).
    var count: Int = 0 {
        didSet { precondition(count >= 0 && count <= capacity) }
    }

    init(capacity: Int = 64 << 10) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes in use.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    func removeAll() { count = 0 }

    /// Drops the first `n` bytes, moving the rest to the front.
    func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count)
        if n == count { count = 0; return }
        memmove(base, base + n, count - n)
        count -= n
    }

    /// Makes room for at least `n` more bytes after `count`; returns where they go.
    @discardableResult
    func reserveFree(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < n {
            var newCapacity = capacity * 2
            while newCapacity - count < n { newCapacity *= 2 }
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            p.update(from: base, count: count)
            base.deallocate()
            base = p
            capacity = newCapacity
        }
        return base + count
    }
}

/// Decodes a document's bytes to UTF-8, chunk by chunk, exactly as the expat backend
/// decodes them (see the comment at the top of this file).
///
/// Usage: get one with ``named(_:)`` (from the declared encoding name), ``utf8``,
/// ``utf16(bigEndian:)``, ``latin1`` or ``usASCII`` (from a byte order mark or the
/// auto-detection); then call ``decode(_:final:into:)`` with the bytes as they come.
/// Chunks may be split anywhere: an incomplete character at the end of a chunk is left
/// unconsumed, to be supplied again, followed by more bytes, in the next call.
///
/// Not thread-safe: one instance per parser (copies of one instance share an iconv
/// handle). Creating instances is thread-safe (byte maps are cached process-wide).
///
/// Caller's duties that mirror expat (not done here):
/// - byte order marks are not skipped: strip them first (expat's `initScan`);
/// - "UTF-16" as a declared name in a document already read as UTF-16 means "keep the
///   detected byte order" (expat's `findEncoding`); ``named(_:)`` returns big-endian for it
///   (expat's table entry). A declared 1-byte encoding in a UTF-16 document, or a
///   built-in UTF-16 or UTF-32 name (``builtinKind(_:)``: exactly "UTF-16", "UTF-16BE",
///   ...) in an 8-bit one, is expat's "encoding specified in XML declaration is
///   incorrect" — except names expat does not know, which it switches to without that
///   check.
struct XMLTranscoder {
    enum Kind: Equatable {
        /// UTF-8: bytes pass through (``isPassthrough``).
        case utf8
        case latin1
        case usASCII
        case utf16LE
        case utf16BE
        /// Not expat's: decoded here as by the C core's charset stage (transcode.c).
        case utf32LE
        case utf32BE
        /// A declared encoding expat does not know, decoded through iconv.
        case iconv
    }

    let kind: Kind
    /// The charset's name as the feed record reports it (`encoding`): the alias table's
    /// (CharsetAliases, from charset_aliases.def), else as declared, in lower case.
    let name: String
    /// Byte tables: for `.latin1`, `.usASCII` and `.iconv`.
    private let tables: ByteTables?
    /// Multi-byte sequences (only for `.iconv` encodings that have them).
    private let converter: SequenceConverter?
    /// Set by the last ``decode(_:final:into:)``: it stopped at a character cut off by the
    /// end of the input with `final` (expat: "partial character"), not at a malformed one.
    private(set) var stoppedAtPartialCharacter = false

    private init(kind: Kind, name: String, tables: ByteTables? = nil, converter: SequenceConverter? = nil) {
        self.kind = kind
        self.name = name
        self.tables = tables
        self.converter = converter
    }

    static var utf8: XMLTranscoder { XMLTranscoder(kind: .utf8, name: "utf-8") }
    static var latin1: XMLTranscoder { XMLTranscoder(kind: .latin1, name: "iso-8859-1", tables: ByteTables.latin1) }
    static var usASCII: XMLTranscoder { XMLTranscoder(kind: .usASCII, name: "us-ascii", tables: ByteTables.usASCII) }
    static func utf16(bigEndian: Bool) -> XMLTranscoder {
        XMLTranscoder(kind: bigEndian ? .utf16BE : .utf16LE, name: bigEndian ? "utf-16be" : "utf-16le")
    }
    static func utf32(bigEndian: Bool) -> XMLTranscoder {
        XMLTranscoder(kind: bigEndian ? .utf32BE : .utf32LE, name: bigEndian ? "utf-32be" : "utf-32le")
    }

    /// The charset name a declared name stands for, from the one alias table
    /// (charset_aliases.def): the key is the name in lower case without `-`, `_`, `.`.
    static func alias(_ name: UnsafeRawBufferPointer) -> String? {
        var key = ""
        for c in name where c != 0x2D && c != 0x5F && c != 0x2E {
            guard c < 0x80 else { return nil }
            key.unicodeScalars.append(Unicode.Scalar(c >= 0x41 && c <= 0x5A ? c + 0x20 : c))
        }
        return CharsetAliases.table[key]
    }

    /// What a document's first bytes (at least 4 of them, or all there are) say of its
    /// charset, as expat and the C core's cfs_charset_detect find it: a byte order mark
    /// (`mark` its length; UTF-32's before UTF-16's, whose little-endian mark starts
    /// UTF-32's), or UTF-32 or UTF-16 without one, found by where the zero bytes are (a
    /// `<` in four bytes for UTF-32, a zero in the first two for UTF-16). `transcoder` nil: 8-bit, UTF-8 unless the declaration says
    /// otherwise (a UTF-8 mark is `mark` 3). The tokenizer and the recovery path both
    /// start a document with it.
    static func sniff(_ s: UnsafePointer<UInt8>, _ n: Int) -> (transcoder: XMLTranscoder?, mark: Int) {
        if n >= 4 && ((s[0] == 0 && s[1] == 0 && s[2] == 0xFE && s[3] == 0xFF)
                      || (s[0] == 0xFF && s[1] == 0xFE && s[2] == 0 && s[3] == 0)) {
            return (.utf32(bigEndian: s[0] == 0), 4)
        }
        if n >= 4 && ((s[0] == 0 && s[1] == 0 && s[2] == 0 && s[3] == 0x3C)
                      || (s[0] == 0x3C && s[1] == 0 && s[2] == 0 && s[3] == 0)) {
            return (.utf32(bigEndian: s[0] == 0), 0)
        }
        if n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF { return (nil, 3) }
        if n >= 2 && ((s[0] == 0xFE && s[1] == 0xFF) || (s[0] == 0xFF && s[1] == 0xFE)) {
            return (.utf16(bigEndian: s[0] == 0xFE), 2)
        }
        // UTF-16 without a mark, as expat's initScan finds it (and cfs_charset_detect): a
        // document starts with ASCII, so a zero first byte is UTF-16BE, a zero second
        // byte UTF-16LE.
        if n >= 2 && (s[0] == 0 || s[1] == 0) { return (.utf16(bigEndian: s[0] == 0), 0) }
        return (nil, 0)
    }

    /// UTF-16 or UTF-32: the declaration is read in it (2 or 4 bytes per character).
    var isWide: Bool { isUTF16 || kind == .utf32LE || kind == .utf32BE }

    /// UTF-8: the caller skips transcoding (the tokenizer validates UTF-8 itself).
    var isPassthrough: Bool { kind == .utf8 }
    /// UTF-16 (expat's `minBytesPerChar == 2`).
    var isUTF16: Bool { kind == .utf16LE || kind == .utf16BE }

    /// The transcoder for a declared encoding name (the bytes of the XML declaration's
    /// `encoding` value), or nil when expat would say "unknown encoding": iconv does not
    /// know the name, or expat's `XmlInitUnknownEncoding` rejects its byte map (an ASCII
    /// byte significant to XML that is not itself, a 1-byte character above U+FFFF).
    static func named(_ declared: UnsafeRawBufferPointer) -> XMLTranscoder? {
        if let alias = alias(declared) {
            var alias = alias
            return alias.withUTF8 { resolved(UnsafeRawBufferPointer($0)) }
        }
        return resolved(declared)
    }

    /// ``named(_:)`` once the alias table was looked at.
    private static func resolved(_ name: UnsafeRawBufferPointer) -> XMLTranscoder? {
        if let builtin = builtinKind(name) {
            switch builtin {
            case .utf8: return .utf8
            case .latin1: return .latin1
            case .usASCII: return .usASCII
            case .utf16BE: return .utf16(bigEndian: true)
            case .utf16LE: return .utf16(bigEndian: false)
            case .utf32BE: return .utf32(bigEndian: true)
            case .utf32LE: return .utf32(bigEndian: false)
            case .iconv: break
            }
        }
        guard name.count > 0, !name.contains(0) else { return nil }
        let key = Array(name)
        let reported = String(decoding: key.prefix(63).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        let cached = EncodingCache.shared.lookup(key)
        let tables: ByteTables
        var cd: iconv_t?
        switch cached {
        case .some(.rejected):
            return nil
        case .some(.accepted(let t)):
            tables = t
        case .none:
            guard let opened = openIconv(key) else { return nil }   // unknown to iconv: not cached
            cd = opened
            let built = ByteTables.fromIconv(opened, c1: CharsetAliases.c1.contains(String(decoding: key, as: UTF8.self)))
            EncodingCache.shared.store(key, built.map { .accepted($0) } ?? .rejected)
            guard let t = built else {
                iconv_close(opened)
                return nil
            }
            tables = t
        }
        guard tables.multibyte else {
            if let cd { iconv_close(cd) }
            return XMLTranscoder(kind: .iconv, name: reported, tables: tables)
        }
        // An idle converter of this charset, with the sequences it has converted.
        if let (idle, memo) = SequenceConverterPool.shared.take(key) {
            if let cd { iconv_close(cd) }
            return XMLTranscoder(kind: .iconv, name: reported, tables: tables,
                                 converter: SequenceConverter(key: key, cd: idle, memo: memo))
        }
        if cd == nil { cd = openIconv(key) }
        guard let cd else { return nil }
        return XMLTranscoder(kind: .iconv, name: reported, tables: tables, converter: SequenceConverter(key: key, cd: cd))
    }

    /// The transcoder for a charset the transport named (HTTP's `Content-Type`
    /// charset), when it is one an 8-bit document can be in: nil for a name we do not
    /// read and for UTF-16 and UTF-32 (the C core's `transport_charset`, transcode.c).
    static func transport(_ name: String) -> XMLTranscoder? {
        guard let t = named(name), !t.isWide else { return nil }
        return t
    }

    static func named(_ name: String) -> XMLTranscoder? {
        var name = name
        return name.withUTF8 { named(UnsafeRawBufferPointer($0)) }
    }

    /// expat's built-in encodings (``CharsetAliases/builtin``, from the C core's table):
    /// ASCII-case-insensitive exact match (`streqci`).
    static func builtinKind(_ name: UnsafeRawBufferPointer) -> Kind? {
        func matches(_ keyword: StaticString) -> Bool {
            guard name.count == keyword.utf8CodeUnitCount else { return false }
            let k = keyword.utf8Start
            for i in 0..<name.count {
                var c = name[i]
                if c >= 0x61 && c <= 0x7A { c -= 0x20 }
                if c != k[i] { return false }
            }
            return true
        }
        for entry in CharsetAliases.builtin where matches(entry.name) { return entry.kind }
        return nil
    }

    private static func openIconv(_ name: [UInt8]) -> iconv_t? {
        let cd = (name + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { iconv_open("UTF-32LE", $0.baseAddress!) }
        }
        guard let cd, Int(bitPattern: cd) != -1 else { return nil }
        return cd
    }

    // MARK: Decoding

    /// The most bytes ``decode(_:final:to:)`` may write for `inputCount` input bytes (3
    /// per input byte, plus slack for its 4- and 8-byte stores).
    static func maxOutput(forInput inputCount: Int) -> Int { 3 * inputCount + 8 }

    /// Decodes the complete characters at the start of `input`, appending their UTF-8 to
    /// `out`. Stops at the first invalid character (`invalidAt`, its offset in `input`, ==
    /// `consumed`: everything before it was written). An incomplete character at the end is
    /// left unconsumed (`consumed` stops before it; supply it again with more bytes); with
    /// `final` it is reported as invalid, and ``stoppedAtPartialCharacter`` is set.
    mutating func decode(_ input: UnsafeRawBufferPointer, final: Bool, into out: TranscodeBuffer)
        -> (consumed: Int, invalidAt: Int?)
    {
        let dest = out.reserveFree(Self.maxOutput(forInput: input.count))
        let r = decode(input, final: final, to: dest)
        out.count += r.written
        return (r.consumed, r.invalidAt)
    }

    /// ``decode(_:final:into:)`` into caller memory: `dest` must have room for
    /// ``maxOutput(forInput:)`` bytes. Returns the bytes consumed and written.
    mutating func decode(_ input: UnsafeRawBufferPointer, final: Bool, to dest: UnsafeMutablePointer<UInt8>)
        -> (consumed: Int, written: Int, invalidAt: Int?)
    {
        stoppedAtPartialCharacter = false
        guard let src = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else {
            return (0, 0, nil)
        }
        let r: Result
        switch kind {
        case .utf8: r = Self.passUTF8(src, input.count, final, dest)
        case .latin1, .usASCII, .iconv: r = decodeTable(src, input.count, final, dest)
        case .utf16LE: r = Self.decodeUTF16(src, input.count, final, dest, bigEndian: false)
        case .utf16BE: r = Self.decodeUTF16(src, input.count, final, dest, bigEndian: true)
        case .utf32LE: r = Self.decodeUTF32(src, input.count, final, dest, bigEndian: false)
        case .utf32BE: r = Self.decodeUTF32(src, input.count, final, dest, bigEndian: true)
        }
        stoppedAtPartialCharacter = r.partial
        return (r.consumed, r.written, r.invalid ? r.consumed : nil)
    }

    private struct Result {
        var consumed: Int
        var written: Int
        var invalid = false
        var partial = false
    }

    /// UTF-8: copies, holding back a trailing incomplete sequence unless `final` (as
    /// expat's `utf8_toUtf8`); no validation.
    private static func passUTF8(_ p: UnsafePointer<UInt8>, _ n: Int, _ final: Bool,
                                 _ dest: UnsafeMutablePointer<UInt8>) -> Result {
        var end = n
        if !final {
            // Trim an incomplete last sequence (expat's _INTERNAL_trim_to_complete_utf8_characters).
            var walked = 0
            var lim = n
            while lim > 0 {
                let prev = p[lim - 1]
                var need = 0
                if prev & 0xF8 == 0xF0 { need = 4 } else if prev & 0xF0 == 0xE0 { need = 3 }
                else if prev & 0xE0 == 0xC0 { need = 2 } else if prev & 0x80 == 0 { break }
                if need > 0 {
                    if walked + 1 >= need { lim += need - 1; break }
                    walked = 0
                }
                lim -= 1
                walked += 1
            }
            end = min(lim, n)
        }
        dest.update(from: p, count: end)
        return Result(consumed: end, written: end)
    }

    /// The table path: 1-byte characters from a precomputed UTF-8 table, multi-byte
    /// sequences through iconv (memoized).
    private mutating func decodeTable(_ p: UnsafePointer<UInt8>, _ n: Int, _ final: Bool,
                                      _ dest: UnsafeMutablePointer<UInt8>) -> Result {
        let tables = self.tables!
        let entries = tables.entries
        let fastASCII = tables.printableASCIIIsIdentity
        let raw = UnsafeMutableRawPointer(dest)
        var i = 0, o = 0
        while i < n {
            if fastASCII && n - i >= 8 {
                // Eight printable ASCII bytes (0x20-0x7F) at once.
                let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                let high: UInt64 = 0x8080_8080_8080_8080
                if w & high == 0 && (w &- 0x2020_2020_2020_2020) & ~w & high == 0 {
                    raw.storeBytes(of: w, toByteOffset: o, as: UInt64.self)
                    i += 8
                    o += 8
                    continue
                }
            }
            // Then up to eight bytes one at a time, before trying a word again.
            let stop = min(n, i + 8)
            var e: UInt32 = 0
            while i < stop {
                e = entries[Int(p[i])]
                guard e >> 24 &- 1 < 3 else { break }   // 1...3: a character (0 wraps around)
                raw.storeBytes(of: e.littleEndian, toByteOffset: o, as: UInt32.self)
                o += Int(e >> 24)
                i += 1
            }
            if i == stop { continue }
            let len = e >> 24
            if len == 0 { return Result(consumed: i, written: o, invalid: true) }
            // Lead byte of a `need`-byte sequence.
            let need = Int(len & 0x7F)
            if n - i < need {
                if final { return Result(consumed: i, written: o, invalid: true, partial: true) }
                return Result(consumed: i, written: o)
            }
            let u = converter!.utf8(p + i, need)
            if u == SequenceConverter.invalid { return Result(consumed: i, written: o, invalid: true) }
            raw.storeBytes(of: u.littleEndian, toByteOffset: o, as: UInt32.self)
            o += Int(u >> 24)
            i += need
        }
        return Result(consumed: i, written: o)
    }

    /// UTF-32 (not expat's; the C core's transcode.c decodes it the same): each 4 bytes a
    /// scalar value that is an XML character, else invalid.
    private static func decodeUTF32(_ p: UnsafePointer<UInt8>, _ n: Int, _ final: Bool,
                                    _ dest: UnsafeMutablePointer<UInt8>, bigEndian: Bool) -> Result {
        var i = 0, o = 0
        while n - i >= 4 {
            let c = bigEndian
                ? UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | UInt32(p[i + 3])
                : UInt32(p[i + 3]) << 24 | UInt32(p[i + 2]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i])
            guard c <= 0x10FFFF, isXMLCharacter(Int(c)) else { return Result(consumed: i, written: o, invalid: true) }
            o += encodeUTF8(c, to: dest + o)
            i += 4
        }
        if i < n && final { return Result(consumed: i, written: o, invalid: true, partial: true) }
        return Result(consumed: i, written: o)
    }

    /// UTF-16 as expat decodes it (see the top of this file).
    private static func decodeUTF16(_ p: UnsafePointer<UInt8>, _ n: Int, _ final: Bool,
                                    _ dest: UnsafeMutablePointer<UInt8>, bigEndian: Bool) -> Result {
        @inline(__always) func unit(_ at: Int) -> UInt32 {
            bigEndian ? UInt32(p[at]) << 8 | UInt32(p[at + 1]) : UInt32(p[at + 1]) << 8 | UInt32(p[at])
        }
        var i = 0, o = 0
        while n - i >= 2 {
            let u = unit(i)
            var c = u, width = 2
            if u < 0x80 {
                if !isXMLASCII(u) { return Result(consumed: i, written: o, invalid: true) }
            } else if u & 0xFC00 == 0xD800 {
                if n - i < 4 {
                    if final { return Result(consumed: i, written: o, invalid: true, partial: true) }
                    return Result(consumed: i, written: o)
                }
                // A high surrogate must be followed by a low one (expat itself would take
                // any next unit's low 10 bits): an unpaired one is an invalid character,
                // in every backend (CSources/CFeedStream/transcode.c, expat.c).
                let lo = unit(i + 2)
                if lo & 0xFC00 != 0xDC00 { return Result(consumed: i, written: o, invalid: true) }
                c = 0x10000 + ((u & 0x3FF) << 10) + (lo & 0x3FF)
                width = 4
            } else if u & 0xFC00 == 0xDC00 || u >= 0xFFFE {
                return Result(consumed: i, written: o, invalid: true)
            }
            o += encodeUTF8(c, to: dest + o)
            i += width
        }
        if i < n && final { return Result(consumed: i, written: o, invalid: true, partial: true) }
        return Result(consumed: i, written: o)
    }
}

// MARK: - expat's character classes

/// expat's asciitab.h: the ASCII bytes whose type is BT_OTHER (`$ @ \ ^ ` { } ~ DEL`).
@inline(__always)
private func isASCIIOther(_ c: Int) -> Bool {
    switch c {
    case 0x24, 0x40, 0x5C, 0x5E, 0x60, 0x7B, 0x7D, 0x7E, 0x7F: return true
    default: return false
    }
}

/// expat's asciitab.h BT_NONXML: 0x00-0x1F except tab, LF, CR.
@inline(__always)
private func isASCIINonXML(_ c: Int) -> Bool { c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D }

@inline(__always)
private func isXMLASCII(_ u: UInt32) -> Bool { u >= 0x20 || u == 0x09 || u == 0x0A || u == 0x0D }

/// expat's `checkCharRefNumber`: false for surrogates, U+FFFE, U+FFFF and the ASCII
/// controls that are not XML characters.
@inline(__always)
private func isXMLCharacter(_ c: Int) -> Bool {
    switch c >> 8 {
    case 0xD8...0xDF: return false
    case 0: return !isASCIINonXML(c)   // latin1tab has no BT_NONXML in 0x80-0xFF
    case 0xFF: return c != 0xFFFE && c != 0xFFFF
    default: return true
    }
}

/// A UTF-8 table entry: bytes in the low 24 bits (first byte lowest), length in the top
/// byte (1...3); 0 invalid; 0x80 | n the lead byte of an n-byte sequence.
@inline(__always)
private func utf8Entry(_ c: Int) -> UInt32 {
    var bytes: UInt32 = 0
    let n = withUnsafeMutableBytes(of: &bytes) { encodeUTF8(UInt32(c), to: $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    return UInt32(n) << 24 | UInt32(littleEndian: bytes)
}

// MARK: - Byte tables

/// The per-byte decoding of a single-byte-table encoding (immutable, shared).
private final class ByteTables: @unchecked Sendable {   // immutable after init
    /// 256 entries (see `utf8Entry`).
    let entries: UnsafePointer<UInt32>
    /// Some byte leads a multi-byte sequence.
    let multibyte: Bool
    /// Bytes 0x20-0x7F all decode to themselves (the 8-bytes-at-once path).
    let printableASCIIIsIdentity: Bool

    init(entries e: [UInt32]) {
        precondition(e.count == 256)
        let p = UnsafeMutablePointer<UInt32>.allocate(capacity: 256)
        p.initialize(from: e, count: 256)
        entries = UnsafePointer(p)
        multibyte = e.contains { $0 >> 24 >= 0x80 }
        printableASCIIIsIdentity = (0x20..<0x80).allSatisfy { e[$0] == utf8Entry($0) }
    }

    deinit { entries.deallocate() }

    static let latin1 = ByteTables(entries: (0..<256).map { isASCIINonXML($0) ? 0 : utf8Entry($0) })
    static let usASCII = ByteTables(entries: (0..<256).map { $0 >= 0x80 || isASCIINonXML($0) ? 0 : utf8Entry($0) })

    /// The tables of an encoding expat does not know: the C core's `build_map` (with the
    /// bytes 0x80-0x9F it leaves undefined as the C1 controls when `c1`: the C core's
    /// `c1_charset`, CharsetAliases.c1), then expat's `XmlInitUnknownEncoding`. Nil when
    /// expat rejects the map.
    static func fromIconv(_ cd: iconv_t, c1: Bool) -> ByteTables? {
        var map = buildMap(cd)
        if c1 { for b in 0x80..<0xA0 where map[b] == -1 { map[b] = b } }
        // XmlInitUnknownEncoding: ASCII bytes significant to XML must be themselves.
        for i in 0..<128 where !isASCIIOther(i) && !isASCIINonXML(i) && map[i] != i { return nil }
        var entries = [UInt32](repeating: 0, count: 256)
        for i in 0..<256 {
            let c = map[i]
            if c == -1 {
                entries[i] = 0                                  // BT_MALFORM
            } else if c < 0 {
                if c < -4 { return nil }
                entries[i] = UInt32(0x80 | -c) << 24            // BT_LEAD2..4
            } else if c < 0x80 {
                if !isASCIIOther(c) && !isASCIINonXML(c) && c != i { return nil }
                entries[i] = isASCIINonXML(c) ? 0 : utf8Entry(c)   // BT_NONXML: invalid
            } else if !isXMLCharacter(c) {
                entries[i] = 0                                  // BT_NONXML
            } else {
                if c > 0xFFFF { return nil }
                entries[i] = utf8Entry(c)
            }
        }
        return ByteTables(entries: entries)
    }

    /// The C core's `build_map`: a character, or the lead byte of a 2- or 3-byte sequence
    /// (found by trying trail bytes), or invalid (-1).
    private static func buildMap(_ cd: iconv_t) -> [Int] {
        var map = [Int](repeating: -1, count: 256)
        for b in 0..<256 {
            let v = iconvScalar(cd, [UInt8(b)])
            map[b] = v >= 0 ? v : -1
            if v >= 0 { continue }
            var t = 0x40
            while t <= 0xFE && map[b] == -1 {
                if iconvScalar(cd, [UInt8(b), UInt8(t)]) >= 0 { map[b] = -2 }
                t += 1
            }
            t = 0xA1
            while t <= 0xFE && map[b] == -1 {
                if iconvScalar(cd, [UInt8(b), UInt8(t), UInt8(t)]) >= 0 { map[b] = -3 }
                t += 1
            }
        }
        return map
    }
}

/// The C core's `iconv_scalar`: `bytes` as exactly one Unicode scalar, else -1.
private func iconvScalar(_ cd: iconv_t, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    var buf: (UInt32, UInt32) = (0, 0)
    return withUnsafeMutableBytes(of: &buf) { out -> Int in
        let ob = out.baseAddress!.assumingMemoryBound(to: CChar.self)
        var ip: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: UnsafeRawPointer(bytes)
            .assumingMemoryBound(to: CChar.self))
        var il = count
        var op: UnsafeMutablePointer<CChar>? = ob
        var ol = 8
        _ = iconv(cd, nil, nil, nil, nil)
        if iconv(cd, &ip, &il, &op, &ol) == -1 || il != 0 { return -1 }
        // Stateful decoders (e.g. CP1255, which composes) may hold the character back.
        if iconv(cd, nil, nil, &op, &ol) == -1 { return -1 }
        if ol != 8 - 4 { return -1 }   // UTF-32 out: exactly one character
        let v = UInt32(littleEndian: out.load(as: UInt32.self))
        return v > 0x10FFFF ? -1 : Int(v)
    }
}

private func iconvScalar(_ cd: iconv_t, _ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBufferPointer { iconvScalar(cd, $0.baseAddress!, $0.count) }
}

// MARK: - Multi-byte sequences

/// Converts multi-byte sequences with the instance's own iconv handle (the C core's
/// `convert_sequence`), validated as expat's `unknown_isInvalid`; 2-byte results are
/// memoized. A document's converter goes back to ``SequenceConverterPool`` when the
/// document is done, memo included, for the next document in the charset.
private final class SequenceConverter {
    static let invalid: UInt32 = 0xFFFF_FFFF
    /// The charset's name as declared (the pool's key).
    private let key: [UInt8]
    private let cd: iconv_t
    /// 65536 entries for 2-byte sequences: 0 not computed yet, else a UTF-8 entry or `invalid`.
    private var memo: UnsafeMutablePointer<UInt32>?

    init(key: [UInt8], cd: iconv_t, memo: UnsafeMutablePointer<UInt32>? = nil) {
        self.key = key
        self.cd = cd
        self.memo = memo
    }

    deinit { SequenceConverterPool.shared.give(key, cd, memo) }

    /// The UTF-8 entry (see `utf8Entry`) of the `count`-byte sequence at `p`, or `invalid`.
    @inline(__always)
    func utf8(_ p: UnsafePointer<UInt8>, _ count: Int) -> UInt32 {
        guard count == 2 else { return convert(p, count) }
        let memo = self.memo ?? makeMemo()
        let key = Int(p[0]) << 8 | Int(p[1])
        let m = memo[key]
        if m != 0 { return m }
        let e = convert(p, 2)
        memo[key] = e
        return e
    }

    private func makeMemo() -> UnsafeMutablePointer<UInt32> {
        let m = UnsafeMutablePointer<UInt32>.allocate(capacity: 65536)
        m.initialize(repeating: 0, count: 65536)
        memo = m
        return m
    }

    private func convert(_ p: UnsafePointer<UInt8>, _ count: Int) -> UInt32 {
        let c = iconvScalar(cd, p, count)
        // unknown_isInvalid: (c & ~0xFFFF) || checkCharRefNumber(c) < 0
        if c < 0 || c > 0xFFFF || !isXMLCharacter(c) { return Self.invalid }
        return utf8Entry(c)
    }
}

/// Idle iconv handles of multi-byte charsets and their memos, by declared name, shared
/// by the process's documents one at a time: without it each document opened its own
/// handle, zeroed a 256 KB memo and converted every sequence it met through iconv again
/// (most of the time of a short feed in GB2312, Big5 or Shift_JIS). A few are kept;
/// beyond them the oldest is closed.
private final class SequenceConverterPool: @unchecked Sendable {
    static let shared = SequenceConverterPool()
    private static let limit = 8
    private let lock = ConditionLock()
    private var idle: [(key: [UInt8], cd: iconv_t, memo: UnsafeMutablePointer<UInt32>?)] = []

    func take(_ key: [UInt8]) -> (iconv_t, UnsafeMutablePointer<UInt32>?)? {
        lock.withLock {
            guard let i = idle.lastIndex(where: { $0.key == key }) else { return nil }
            let e = idle.remove(at: i)
            return (e.cd, e.memo)
        }
    }

    func give(_ key: [UInt8], _ cd: iconv_t, _ memo: UnsafeMutablePointer<UInt32>?) {
        let dropped: (cd: iconv_t, memo: UnsafeMutablePointer<UInt32>?)? = lock.withLock {
            idle.append((key, cd, memo))
            guard idle.count > Self.limit else { return nil }
            let e = idle.removeFirst()
            return (e.cd, e.memo)
        }
        if let dropped {
            iconv_close(dropped.cd)
            dropped.memo?.deallocate()
        }
    }
}

// MARK: - Process-wide cache

/// Byte tables by exact declared name (case-sensitive, as the C core's `map_cache`):
/// building one costs thousands of iconv calls, and documents of one encoding come in runs.
private final class EncodingCache: @unchecked Sendable {
    enum Entry {
        case accepted(ByteTables)
        case rejected
    }

    static let shared = EncodingCache()
    private static let limit = 64
    private let lock = ConditionLock()
    private var entries: [[UInt8]: Entry] = [:]

    func lookup(_ name: [UInt8]) -> Entry? { lock.withLock { entries[name] } }

    func store(_ name: [UInt8], _ entry: Entry) {
        lock.withLock {
            if entries.count >= Self.limit { entries.removeAll() }
            entries[name] = entry
        }
    }
}
