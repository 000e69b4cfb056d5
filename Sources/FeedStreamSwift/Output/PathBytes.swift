// File names are bytes; a String holds them losslessly (docs/SCHEMA.md, "source").
//
// A name's valid UTF-8 is its characters; every byte that is not part of a valid UTF-8
// character is carried by the scalar U+10FF00 + byte (Supplementary Private Use Area-B,
// which file names do not use; a name that does use U+10FF00...U+10FFFF has those
// characters' bytes carried too, so the mapping is one-to-one). The file is opened with
// the bytes back (`PathBytes.bytes`), and JSON writes a carried byte as a lone low
// surrogate escape, `\udcXX` — Python's "surrogateescape": `os.fsencode(json.loads(s))`
// gives the name's bytes back.

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
        if let s = String(validating: a, as: UTF8.self), !s.unicodeScalars.contains(where: { carried($0) != nil }) {
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
        bytes(s).map { CChar(bitPattern: $0) } + [0]
    }

    /// The name's bytes.
    package static func bytes(_ s: String) -> [UInt8] {
        if !s.unicodeScalars.contains(where: { carried($0) != nil }) { return Array(s.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            if let b = carried(u) { out.append(b) } else { out.append(contentsOf: String(u).utf8) }
        }
        return out
    }
}
