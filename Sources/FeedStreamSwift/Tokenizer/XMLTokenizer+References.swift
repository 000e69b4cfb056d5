// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// References: character and entity references.
extension SwiftXMLTokenizer {
    /// A reference at `i` (`&`): replaced and delivered (in text) or appended to
    /// `values` (in attribute values).
    func reference(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, final: Bool, inAttribute: Bool) throws -> Step {
        guard i + 1 < n else { return needMore(i, final) }
        if s[i + 1] == 0x23 {
            // A character reference.
            var j = i + 2
            var hex = false
            if j < n && s[j] == 0x78 { hex = true; j += 1 }
            var v: UInt32 = 0
            let digits = j
            while j < n {
                let c = s[j]
                var d: UInt32
                if c >= 0x30 && c <= 0x39 { d = UInt32(c - 0x30) }
                else if hex && c >= 0x61 && c <= 0x66 { d = UInt32(c - 0x61 + 10) }
                else if hex && c >= 0x41 && c <= 0x46 { d = UInt32(c - 0x41 + 10) }
                else { break }
                v = v > 0x10FFFF ? v : v * (hex ? 16 : 10) + d
                j += 1
            }
            guard j < n else { return needMore(i, final) }
            // expat's scanCharRef: the error is at the first byte that is not a digit (or ';').
            guard s[j] == 0x3B, j > digits else { return .stop(.error(j, "not well-formed (invalid token)")) }
            guard isXMLChar(v) else { return .stop(.error(i, "reference to invalid character number")) }
            if inAttribute {
                if v == 0x20 { attributeSpace() } else { values.appendScalar(v) }
            } else if machine.wantsText {
                text.removeAll()
                text.appendScalar(v)
                machine.text(text.bytes(0, text.count))
            }
            return .next(j + 1)
        }
        // The predefined entities, most references, without the name scan: what the
        // scan and predefinedEntity would find for these bytes.
        if let (c, end) = predefinedReference(s, i + 1, n) {
            if inAttribute {
                values.append(c)
            } else if machine.wantsText {
                machine.text(UnsafeRawBufferPointer(start: byteText + Int(c), count: 1))
            }
            return .next(end)
        }
        let ne = name(s, i + 1, n, colons: .none)
        if ne == -1 { return needMore(i, final) }
        // expat's scanRef: at the byte that cannot start a name, or the one after the name.
        if ne == -2 { return .stop(.error(badNameByte, "not well-formed (invalid token)")) }
        if s[ne] != 0x3B { return .stop(.error(ne, "not well-formed (invalid token)")) }
        // (A predefined entity's name and `;` were taken above, by predefinedReference.)
        let nm = UnsafeRawBufferPointer(start: s + i + 1, count: ne - i - 1)
        if !entities.isEmpty, let entity = entities[Array(nm)] {
            if let stop = try expand(entity, s, i, inAttribute: inAttribute) { return .stop(stop) }
            return .next(ne + 1)
        }
        // Not declared: the document may have an external DTD we never read. (In an
        // attribute value expat places the error at the start tag.)
        if standalone { return .stop(.error(inAttribute ? Self.atTag : i, "undefined entity")) }
        if !inAttribute && machine.wantsText {
            if let t = HTMLEntities.utf8(named: nm) {
                machine.text(t)
            } else {
                // Not HTML either: kept as the literal text "&name;", never dropped.
                machine.text(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(start: s + i, count: ne + 1 - i)[...]))
            }
        }
        return .next(ne + 1)
    }

    /// Counts `bytes` of replacement text expanded at `at` (in the current buffer) and
    /// says whether the expansions passed expat's amplification limit: past 8 MiB of
    /// input read and text expanded, more than 100 times the input read
    /// (XML_SetBillionLaughsAttackProtection's defaults).
    func amplified(by bytes: Int, at: Int) -> Bool {
        expandedBytes += bytes
        let direct = processed + at + 1
        return direct + expandedBytes > 8 << 20 && direct + expandedBytes > 100 * direct
    }

    static let amplificationMessage = "limit on input amplification factor (from DTD and entities) breached"

    /// An entity declared in the internal subset. An unparsed one may not be referred
    /// to; an external one is not read in content and not allowed in an attribute value.
    /// An error in a replacement text is placed at the reference in content, at the start
    /// tag (``atTag``) in an attribute value, as expat places them.
    func expand(_ entity: Entity, _ s: UnsafePointer<UInt8>, _ at: Int, inAttribute: Bool) throws -> Stop? {
        let here = inAttribute && entityDepth > 0 ? Self.atTag : at
        if entity.binary { return .error(here, "reference to binary entity") }
        guard let value = entity.value else {   // external: not read
            return inAttribute ? .error(here, "reference to external entity in attribute") : nil
        }
        entityDepth += 1
        defer { entityDepth -= 1 }
        if entityDepth > 40 { return .error(inAttribute ? Self.atTag : at, "recursive entity reference") }
        if amplified(by: value.count, at: at) { return .error(here, Self.amplificationMessage) }
        return try value.withUnsafeBufferPointer { b -> Stop? in
            guard let p = b.baseAddress, b.count > 0 else { return nil }
            if inAttribute {
                if memchr(p, 0x3C, b.count) != nil { return .error(Self.atTag, "not well-formed (invalid token)") }
                // A reference the replacement text ends inside is a bad token there
                // (expat's XML_TOK_PARTIAL in appendAttributeValue).
                if case .error(_, let message)? = try attributeValue(p, 0, b.count) {
                    return .error(Self.atTag, message == "unclosed token" ? "not well-formed (invalid token)" : message)
                }
                return nil
            }
            let depthBefore = depth, phaseBefore = phase
            let stop = try scan(p, b.count, final: true)
            switch stop {
            case .more(let q) where q == b.count:
                if depth != depthBefore || phase != phaseBefore { return .error(at, "asynchronous entity") }
                return nil
            case .error(_, let message):
                return .error(at, message)
            default:
                return .error(at, "asynchronous entity")
            }
        }
    }

}
