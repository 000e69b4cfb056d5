// SPDX-License-Identifier: Apache-2.0
/// A borrowed run of UTF-8 bytes from a parser's memory: the zero-copy form of a field.
///
/// Valid only during the handler call that received it. `isPresent` tells an absent
/// field from a present but empty one. Creating a `String` is explicit (``string``),
/// so the fast path (e.g. the JSON Lines writer) never builds one.
public struct FeedBytes {
    /// The bytes; `baseAddress == nil` when the field is absent.
    public let buffer: UnsafeRawBufferPointer

    /// Borrows `buffer`; a nil base address means absent.
    @inlinable
    package init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    /// An absent field.
    public static var absent: FeedBytes { FeedBytes(UnsafeRawBufferPointer(start: nil, count: 0)) }

    /// Bytes of a static string (no allocation); used for defaults such as "text".
    @inlinable
    package init(_ literal: StaticString) {
        buffer = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    }

    /// True when the field was in the document (possibly empty).
    @inlinable public var isPresent: Bool { buffer.baseAddress != nil }
    /// The number of bytes.
    @inlinable public var count: Int { buffer.count }
    /// True when absent, or present and empty.
    @inlinable public var isEmpty: Bool { buffer.isEmpty }

    /// The bytes as a `String` (allocates), or nil when absent. Applies the writers'
    /// text rules: white space at the ends trimmed (Unicode's, as feedparser strips it),
    /// invalid UTF-8 becomes U+FFFD, UTF-8 read as ISO-8859-1 is read again
    /// (``isRedecoded``), C1 controls become their windows-1252 characters.
    public var string: String? {
        guard isPresent else { return nil }
        return Self.string(buffer)
    }

    /// True when ``string`` reads the bytes again as UTF-8: text that is UTF-8 read as
    /// ISO-8859-1 (`BrÃ¸ndby` for `Brøndby`), as feedparser reads it and the writers write
    /// it, marking the member (`redecoded`, docs/SCHEMA.md, "Encodings"). The bytes
    /// themselves (``buffer``) are the text as the document gave it.
    public var isRedecoded: Bool { TextRules.applies(to: TextRules.trimmed(buffer)) }

    /// `bytes` as a `String` by the writers' text rules (``string``); without the trim
    /// for text decoded from the document's (base64, RecordSink.decodedString).
    static func string(_ bytes: UnsafeRawBufferPointer, trimming: Bool = true) -> String {
        let bytes = trimming ? TextRules.trimmed(bytes) : bytes
        guard bytes.contains(0xC2) else { return String(decoding: bytes, as: UTF8.self) }
        if let again = TextRules.redecoded(bytes) {
            return again.withUnsafeBytes { mappingC1Controls(String(decoding: $0, as: UTF8.self), $0) }
        }
        return mappingC1Controls(String(decoding: bytes, as: UTF8.self), bytes)
    }

    /// `bytes` as a `String` by the writers' text rules (``string``).
    static func string(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { string($0) } }

    /// `s` (decoded from `bytes`) with its C1 controls as their windows-1252 characters.
    private static func mappingC1Controls(_ s: String, _ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.contains(0xC2) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if u.value >= 0x80 && u.value < 0xA0, let w = windows1252[Int(u.value & 0x1F)], let scalar = Unicode.Scalar(w) {
                out.append(scalar)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// Byte-wise comparison with an ASCII literal.
    @inlinable
    public func equals(_ literal: StaticString) -> Bool {
        guard isPresent, buffer.count == literal.utf8CodeUnitCount else { return false }
        return bytesEqual(buffer.baseAddress!, UnsafeRawPointer(literal.utf8Start), buffer.count)
    }

    /// ASCII case-insensitive comparison with a lowercase ASCII literal.
    @inlinable
    public func equalsIgnoringCase(_ literal: StaticString) -> Bool {
        guard isPresent, buffer.count == literal.utf8CodeUnitCount else { return false }
        let l = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for i in 0..<buffer.count {
            var c = buffer[i]
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            if c != l[i] { return false }
        }
        return true
    }

    /// True when absent, or nothing but white space as the writers trim it
    /// (``TextRules``: Python's `str.strip()`): a value that says nothing.
    var isBlank: Bool { !isPresent || TextRules.trimmed(buffer).isEmpty }

    /// The bytes without leading and trailing XML whitespace (space, tab, CR, LF).
    @inlinable
    public var trimmed: FeedBytes {
        guard let base = buffer.baseAddress else { return self }
        var lo = 0, hi = buffer.count
        while lo < hi, isXMLSpace(buffer[lo]) { lo += 1 }
        while hi > lo, isXMLSpace(buffer[hi - 1]) { hi -= 1 }
        return FeedBytes(UnsafeRawBufferPointer(start: base + lo, count: hi - lo))
    }
}

@inlinable
func isXMLSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

extension FeedBytes: CustomStringConvertible {
    public var description: String { string ?? "<absent>" }
}
