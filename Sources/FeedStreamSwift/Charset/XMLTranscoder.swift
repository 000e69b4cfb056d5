// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
internal import CFeedStreamCharset
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// A document's encoding -> UTF-8, streaming, decoding exactly as the expat backend does:
// the C charset stage (CSources/CFeedStreamCharset: transcode.c, charset_aliases.def),
// which every backend runs, wrapped for the Swift tokenizer and the recovery path.
//
// Invalid characters. Wherever expat's byte type for a character is BT_NONXML, BT_MALFORM
// or BT_TRAIL, or a multi-byte sequence is invalid, expat's tokenizer says "not well-formed
// (invalid token)" in every context. The stage reports the same characters as invalid
// (`invalidAt`), so what it writes is always well-formed UTF-8 made only of XML
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

/// A charset of the C stage (`cfs_charset`), owned: its iconv converter and memo are
/// released with it. Shared by the copies of a transcoder (decoding only reads it, but
/// for the memo of the sequences it has converted).
private final class CharsetState {
    let cs = UnsafeMutablePointer<cfs_charset>.allocate(capacity: 1)

    init(kind: cfs_charset_kind) { cfs_charset_init(cs, kind) }

    /// The charset a declared name stands for, or nil when expat would say "unknown
    /// encoding" (`cfs_charset_named`).
    static func named(_ name: UnsafeRawBufferPointer) -> CharsetState? {
        let state = CharsetState(kind: CFS_CHARSET_UTF8)
        let base = name.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return cfs_charset_named(state.cs, base, name.count) != 0 ? state : nil
    }

    deinit {
        cfs_charset_release(cs)
        cs.deallocate()
    }

    /// The name the feed record reports (`cs->name`).
    var name: String {
        withUnsafeBytes(of: &cs.pointee.name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// Decodes a document's bytes to UTF-8, chunk by chunk, exactly as the expat backend
/// decodes them (the C charset stage, see the comment at the top of this file).
///
/// Usage: get one with ``named(_:)`` (from the declared encoding name), ``utf8``,
/// ``utf16(bigEndian:)``, ``latin1`` or ``usASCII`` (from a byte order mark or the
/// auto-detection); then call ``decode(_:final:into:)`` with the bytes as they come.
/// Chunks may be split anywhere: an incomplete character at the end of a chunk is left
/// unconsumed, to be supplied again, followed by more bytes, in the next call.
///
/// Not thread-safe: one instance per parser (copies of one instance share the C state).
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
        /// Not expat's: decoded by the charset stage for every backend.
        case utf32LE
        case utf32BE
        /// A declared encoding expat does not know, decoded through iconv.
        case iconv

        init(_ kind: cfs_charset_kind) {
            switch kind {
            case CFS_CHARSET_LATIN1: self = .latin1
            case CFS_CHARSET_ASCII: self = .usASCII
            case CFS_CHARSET_UTF16LE: self = .utf16LE
            case CFS_CHARSET_UTF16BE: self = .utf16BE
            case CFS_CHARSET_UTF32LE: self = .utf32LE
            case CFS_CHARSET_UTF32BE: self = .utf32BE
            case CFS_CHARSET_MAP: self = .iconv
            default: self = .utf8
            }
        }
    }

    let kind: Kind
    /// The charset's name as the feed record reports it (`encoding`): the alias table's
    /// (charset_aliases.def), else as declared, in lower case.
    let name: String
    /// The C stage's charset; nil for UTF-8, which is not decoded.
    private let state: CharsetState?
    /// Set by the last ``decode(_:final:into:)``: it stopped at a character cut off by the
    /// end of the input with `final` (expat: "partial character"), not at a malformed one.
    private(set) var stoppedAtPartialCharacter = false

    private init(_ state: CharsetState) {
        kind = Kind(state.cs.pointee.kind)
        name = state.name
        self.state = kind == .utf8 ? nil : state
    }

    private init(kind: cfs_charset_kind) { self.init(CharsetState(kind: kind)) }

    /// UTF-8 is not decoded: no charset state to make.
    static var utf8: XMLTranscoder { XMLTranscoder(utf8: ()) }

    private init(utf8: Void) {
        kind = .utf8
        name = "utf-8"
        state = nil
    }
    static var latin1: XMLTranscoder { XMLTranscoder(kind: CFS_CHARSET_LATIN1) }
    static var usASCII: XMLTranscoder { XMLTranscoder(kind: CFS_CHARSET_ASCII) }
    static func utf16(bigEndian: Bool) -> XMLTranscoder {
        XMLTranscoder(kind: bigEndian ? CFS_CHARSET_UTF16BE : CFS_CHARSET_UTF16LE)
    }
    static func utf32(bigEndian: Bool) -> XMLTranscoder {
        XMLTranscoder(kind: bigEndian ? CFS_CHARSET_UTF32BE : CFS_CHARSET_UTF32LE)
    }

    /// The charset name a declared name stands for, from the one alias table
    /// (charset_aliases.def): the key is the name in lower case without `-`, `_`, `.`.
    static func alias(_ name: UnsafeRawBufferPointer) -> String? {
        guard let alias = cfs_charset_alias(name.baseAddress?.assumingMemoryBound(to: UInt8.self), name.count) else {
            return nil
        }
        return String(cString: alias)
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
        CharsetState.named(declared).map(XMLTranscoder.init)
    }

    /// The transcoder for a charset the transport named (HTTP's `Content-Type`
    /// charset), when it is one an 8-bit document can be in: nil for a name we do not
    /// read and for UTF-16 and UTF-32 (the charset stage's `transport_charset`).
    static func transport(_ name: String) -> XMLTranscoder? {
        guard let t = named(name), !t.isWide else { return nil }
        return t
    }

    static func named(_ name: String) -> XMLTranscoder? {
        var name = name
        return name.withUTF8 { named(UnsafeRawBufferPointer($0)) }
    }

    /// expat's built-in encodings (BUILTIN_CHARSET in charset_aliases.def):
    /// ASCII-case-insensitive exact match (`streqci`).
    static func builtinKind(_ name: UnsafeRawBufferPointer) -> Kind? {
        var kind = CFS_CHARSET_UTF8
        guard cfs_charset_builtin(name.baseAddress?.assumingMemoryBound(to: UInt8.self), name.count, &kind) != 0 else {
            return nil
        }
        return Kind(kind)
    }

    // MARK: Decoding

    /// The most bytes ``decode(_:final:to:)`` may write for `inputCount` input bytes
    /// (`cfs_transcode_max`).
    static func maxOutput(forInput inputCount: Int) -> Int { cfs_transcode_max(inputCount) }

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
    /// ``maxOutput(forInput:)`` bytes. Returns the bytes consumed and written
    /// (`cfs_transcode`).
    mutating func decode(_ input: UnsafeRawBufferPointer, final: Bool, to dest: UnsafeMutablePointer<UInt8>)
        -> (consumed: Int, written: Int, invalidAt: Int?)
    {
        stoppedAtPartialCharacter = false
        guard let src = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else {
            return (0, 0, nil)
        }
        guard let state else {
            let end = Self.passUTF8(src, input.count, final)
            dest.update(from: src, count: end)
            return (end, end, nil)
        }
        var consumed = 0, written = 0
        let status = cfs_transcode(state.cs, src, input.count, final ? 1 : 0, dest, &consumed, &written)
        stoppedAtPartialCharacter = status == CFS_TRANSCODE_PARTIAL
        return (consumed, written, status == CFS_TRANSCODE_OK ? nil : consumed)
    }

    /// UTF-8: the bytes to copy, holding back a trailing incomplete sequence unless `final` (as
    /// expat's `utf8_toUtf8`); no validation.
    private static func passUTF8(_ p: UnsafePointer<UInt8>, _ n: Int, _ final: Bool) -> Int {
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
        return end
    }
}
