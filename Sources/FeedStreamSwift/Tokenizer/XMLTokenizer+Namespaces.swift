// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// Namespaces: prefixes bound and resolved.
extension SwiftXMLTokenizer {
    func bind(_ prefix: UnsafeRawBufferPointer, _ uri: UnsafeRawBufferPointer) {
        if bindingsCount == bindingsCapacity {
            let nb = UnsafeMutablePointer<Binding>.allocate(capacity: bindingsCapacity * 2)
            nb.moveInitialize(from: bindings, count: bindingsCapacity)
            bindings.deallocate()
            bindings = nb
            bindingsCapacity *= 2
        }
        let po = nsBytes.count
        nsBytes.append(prefix)
        let uo = nsBytes.count
        nsBytes.append(uri)
        bindings[bindingsCount] = Binding(prefixOffset: Int32(po), prefixLength: Int32(prefix.count),
                                          uriOffset: Int32(uo), uriLength: Int32(uri.count))
        bindingsCount += 1
        defaultNamespaceKnown = false   // (and nsBytes may have moved)
    }

    /// True when the element being started already declared `prefix` (bindings from
    /// `first` on are its own): `xmlns:a` twice is a duplicate attribute.
    func declaresAgain(_ prefix: UnsafeRawBufferPointer, since first: Int) -> Bool {
        for k in first..<bindingsCount {
            let b = bindings[k]
            if Int(b.prefixLength) == prefix.count
                && (prefix.count == 0 || bytesEqual(nsBytes.base + Int(b.prefixOffset), prefix.baseAddress!, prefix.count)) {
                return true
            }
        }
        return false
    }

    /// The namespace bound to `prefix` (empty prefix: the default namespace), nil if none.
    @inline(__always)
    /// The namespace `prefix` names on an element or an attribute: its binding in
    /// scope; `xml`, bound by definition (Namespaces in XML, 3: expat binds it before
    /// reading; a declaration may bind it to that namespace only), also when undeclared.
    func namespace(ofPrefix prefix: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        lookup(prefix) ?? (prefix.equals("xml") ? xmlNamespaceBytes : nil)
    }

    func lookup(_ prefix: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var k = bindingsCount - 1
        while k >= 0 {
            let b = bindings[k]
            if Int(b.prefixLength) == prefix.count
                && (prefix.count == 0 || bytesEqual(nsBytes.base + Int(b.prefixOffset), prefix.baseAddress!, prefix.count)) {
                return b.uriLength == 0 ? nil : nsBytes.bytes(Int(b.uriOffset), Int(b.uriLength))
            }
            k -= 1
        }
        return nil
    }

}
