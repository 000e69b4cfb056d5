// SPDX-License-Identifier: Apache-2.0
// File names are bytes; a String holds them losslessly (docs/SCHEMA.md, "source").
//
// A name's valid UTF-8 is its characters; every byte that is not part of a valid UTF-8
// character is carried by the scalar U+10FF00 + byte (Supplementary Private Use Area-B,
// which file names do not use; a name that does use U+10FF00...U+10FFFF has those
// characters' bytes carried too, so the mapping is one-to-one). The file is opened with
// the bytes back (`PathBytes.bytes`), and JSON writes a carried byte as a lone low
// surrogate escape, `\udcXX` — Python's "surrogateescape": `os.fsencode(json.loads(s))`
// gives the name's bytes back.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Lossless file names in Strings: see the top of this file.
package enum PathBytes {
    private static let carrierBase: UInt32 = 0x10FF00

    /// The byte a scalar carries, if it is a carrier.
    @inline(__always)
    package static func carried(_ u: Unicode.Scalar) -> UInt8? {
        u.value & ~0xFF == carrierBase ? UInt8(u.value & 0xFF) : nil
    }

    /// A name's bytes as a String (bytes that are not valid UTF-8 carried).
    package static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let a = Array(bytes)
        // A carrier's UTF-8 starts with F4: valid UTF-8 without that byte (most names)
        // is the name as it is.
        if let s = String(validating: a, as: UTF8.self),
           !a.withUnsafeBytes(hasF4) || !s.unicodeScalars.contains(where: { carried($0) != nil }) {
            return s
        }
        var out = String.UnicodeScalarView()
        var i = 0
        next: while i < a.count {
            let lead = a[i]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            if i + length <= a.count, let piece = String(validating: a[i..<(i + length)], as: UTF8.self),
               let u = piece.unicodeScalars.first, piece.unicodeScalars.count == 1, carried(u) == nil {
                out.append(u)
                i += length
                continue next
            }
            out.append(Unicode.Scalar(carrierBase + UInt32(lead))!)
            i += 1
        }
        return String(out)
    }

    /// The name's bytes (what ``string(_:)`` was given), NUL-terminated for the system
    /// calls that take a path.
    package static func cString(_ s: String) -> [CChar] {
        // No carrier (no F4 byte in its UTF-8, most names): its UTF-8 as it is, copied once.
        var s = s
        let plain = s.withUTF8 { u -> [CChar]? in
            let raw = UnsafeRawBufferPointer(u)
            guard !hasF4(raw) else { return nil }
            return [CChar](unsafeUninitializedCapacity: raw.count + 1) { buffer, count in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
                buffer[raw.count] = 0
                count = raw.count + 1
            }
        }
        return plain ?? bytes(s).map { CChar(bitPattern: $0) } + [0]
    }

    /// Whether `b` holds the byte F4, the first byte of every carrier's UTF-8.
    private static func hasF4(_ b: UnsafeRawBufferPointer) -> Bool {
        guard let base = b.baseAddress, b.count > 0 else { return false }
        return memchr(base, 0xF4, b.count) != nil
    }

    /// The name's bytes.
    package static func bytes(_ s: String) -> [UInt8] {
        var s = s
        if !s.withUTF8({ hasF4(UnsafeRawBufferPointer($0)) }) || !s.unicodeScalars.contains(where: { carried($0) != nil }) {
            return Array(s.utf8)
        }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            if let b = carried(u) { out.append(b) } else { out.append(contentsOf: String(u).utf8) }
        }
        return out
    }
}
