// SPDX-License-Identifier: Apache-2.0
/// Base64 (RFC 4648), tolerant of whitespace and missing padding: Atom 0.3
/// `mode="base64"` content, and Atom 1.0 content of a MIME type that is not text
/// (RFC 4287 §4.1.3.3). Returns nil when the text is not base64.
enum Base64 {
    /// True when Atom content of `type` is base64 (RFC 4287 §4.1.3.3): a MIME type that
    /// is neither `text`, `html`, `xhtml`, `text/*` nor an XML media type (`*/xml`,
    /// `*+xml`). `type` is as FeedRecordView.text normalizes it.
    static func isEncodedType(_ type: FeedBytes) -> Bool {
        guard type.isPresent, type.buffer.contains(0x2F) else { return false }   // "text", "html", "xhtml"
        let t = type.buffer
        func hasPrefix(_ s: StaticString) -> Bool {
            t.count >= s.utf8CodeUnitCount
                && zip(t, UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)).allSatisfy { $0 | 0x20 == $1 }
        }
        func hasSuffix(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            return t.count >= n
                && zip(t[(t.count - n)...], UnsafeBufferPointer(start: s.utf8Start, count: n)).allSatisfy { $0 | 0x20 == $1 }
        }
        return !(hasPrefix("text/") || hasSuffix("/xml") || hasSuffix("+xml"))
    }

    /// The decoded bytes when `text` is base64 of text: valid UTF-8 without control
    /// characters other than tab, line feed and carriage return. Nil otherwise (binary
    /// content is then kept as written, in base64).
    static func decodeText(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let bytes = decode(text), !bytes.isEmpty,
              !bytes.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D || $0 == 0x7F }),
              String(validating: bytes, as: UTF8.self) != nil else { return nil }
        return bytes
    }

    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var acc: UInt32 = 0, bits = 0
        for c in text {
            let v: UInt32
            switch c {
            case 0x41...0x5A: v = UInt32(c - 0x41)
            case 0x61...0x7A: v = UInt32(c - 0x61 + 26)
            case 0x30...0x39: v = UInt32(c - 0x30 + 52)
            case 0x2B, 0x2D: v = 62
            case 0x2F, 0x5F: v = 63
            case 0x3D, 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((acc >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}
