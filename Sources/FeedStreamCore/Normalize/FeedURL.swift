// SPDX-License-Identifier: Apache-2.0
/// Reference resolution (RFC 3986 §5.2) for `xml:base`: links, enclosures, person
/// URIs and content `src` are resolved against the chain of `xml:base` attributes in
/// scope, each of which may itself be relative to the one outside it.
package enum FeedURL: Sendable {
    /// Resolves `reference` against an `xml:base` chain (outermost first, 0x01-separated,
    /// as in ``FeedTextView/baseChain``). With no chain the reference is returned as is.
    package static func resolve(_ reference: FeedBytes, baseChain: FeedBytes) -> [UInt8] {
        let ref = Array(reference.buffer)
        guard baseChain.isPresent, !baseChain.isEmpty else { return ref }
        return resolve(ref, against: base(ofChain: baseChain))
    }

    /// The base an `xml:base` chain comes to: each base resolved against the one outside
    /// it, the outermost against `document` (the document's location, when known). Only a
    /// safe base is applied (``rebased(_:from:)``): an unsafe one leaves the base outside
    /// it in force.
    static func base(ofChain baseChain: FeedBytes, document: [UInt8] = []) -> [UInt8] {
        var base: [UInt8]? = rebased(document, from: nil)
        guard baseChain.isPresent, !baseChain.isEmpty else { return base ?? [] }
        for part in baseChain.buffer.split(separator: 0x01, omittingEmptySubsequences: false) {
            if let b = rebased(Array(part).trimmingXMLSpace(), from: base) { base = b }
        }
        return base ?? []
    }

    /// The base `candidate` (an `xml:base`, the document's location) makes, resolved
    /// against the enclosing `base`, when it is safe to resolve links against: an
    /// absolute `http`, `https` or `ftp` URL with a host, or a relative reference (no
    /// scheme: with no absolute base outside it, references resolved against it stay
    /// relative). Nil otherwise — a `javascript:`, `data:`, `vbscript:` or `file:` base,
    /// or a malformed one (`http:///example.com/`, no host) — and the enclosing base
    /// stays, as feedparser and browsers keep a page's base when an element's is not
    /// usable: a relative link never becomes a script URL.
    static func rebased(_ candidate: [UInt8], from base: [UInt8]?) -> [UInt8]? {
        guard !candidate.isEmpty else { return nil }
        let b = base.map { resolve(candidate, against: $0) } ?? candidate
        return Parts(b).scheme == nil || isSafeBase(b) ? b : nil
    }

    /// True for an absolute `http`, `https` or `ftp` URL whose authority names a host.
    package static func isSafeBase(_ url: [UInt8]) -> Bool {
        let p = Parts(url)
        guard let scheme = p.scheme?.map({ $0 | 0x20 }),
              scheme == Array("http".utf8) || scheme == Array("https".utf8) || scheme == Array("ftp".utf8),
              let authority = p.authority else { return false }
        var host = authority[...]
        if let at = host.lastIndex(of: 0x40) { host = host[(at + 1)...] }
        if host.first == 0x5B {   // an IPv6 literal: [..]
            return host.contains(0x5D) && host.count > 2
        }
        if let colon = host.firstIndex(of: 0x3A) {
            guard host[(colon + 1)...].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
            host = host[..<colon]
        }
        return !host.isEmpty && !host.contains(where: { $0 <= 0x20 || $0 == 0x5C || $0 == 0x3C || $0 == 0x3E })
    }

    /// Resolves `reference` against `base` (RFC 3986 §5.2.2, strict).
    package static func resolve(_ reference: String, against base: String) -> String {
        String(decoding: resolve(Array(reference.utf8), against: Array(base.utf8)), as: UTF8.self)
    }

    static func resolve(_ r: [UInt8], against b: [UInt8]) -> [UInt8] {
        let R = Parts(r), B = Parts(b)
        var T = Parts()
        if R.scheme != nil {
            T = R
            T.path = removeDotSegments(R.path)
        } else {
            if R.authority != nil {
                T.authority = R.authority
                T.path = removeDotSegments(R.path)
                T.query = R.query
            } else {
                if R.path.isEmpty {
                    T.path = B.path
                    T.query = R.query ?? B.query
                } else {
                    T.path = R.path.first == 0x2F ? removeDotSegments(R.path) : removeDotSegments(merge(B, R.path))
                    T.query = R.query
                }
                T.authority = B.authority
            }
            T.scheme = B.scheme
        }
        T.fragment = R.fragment
        return T.recomposed
    }

    private static func merge(_ base: Parts, _ path: [UInt8]) -> [UInt8] {
        if base.authority != nil && base.path.isEmpty { return [0x2F] + path }
        guard let slash = base.path.lastIndex(of: 0x2F) else { return path }
        return Array(base.path[...slash]) + path
    }

    /// RFC 3986 §5.2.4.
    static func removeDotSegments(_ path: [UInt8]) -> [UInt8] {
        // Most paths have no dot segment (a '.' at a segment's start): nothing to do.
        var dotSegment = false
        for (i, c) in path.enumerated() where c == 0x2E && (i == 0 || path[i - 1] == 0x2F) {
            dotSegment = true
            break
        }
        if !dotSegment { return path }
        var input = path[...]
        var output: [UInt8] = []
        func starts(_ s: String) -> Bool { input.starts(with: s.utf8) }
        func dropLastSegment() {
            if let i = output.lastIndex(of: 0x2F) { output.removeSubrange(i...) } else { output.removeAll() }
        }
        while !input.isEmpty {
            if starts("../") { input = input.dropFirst(3) }
            else if starts("./") { input = input.dropFirst(2) }
            else if starts("/./") { input = input.dropFirst(2) }
            else if input.elementsEqual("/.".utf8) { input = [0x2F][...] }
            else if starts("/../") { input = input.dropFirst(3); dropLastSegment() }
            else if input.elementsEqual("/..".utf8) { input = [0x2F][...]; dropLastSegment() }
            else if input.elementsEqual(".".utf8) || input.elementsEqual("..".utf8) { input = [][...] }
            else {
                var end = input.startIndex
                if input[end] == 0x2F { end += 1 }
                while end < input.endIndex && input[end] != 0x2F { end += 1 }
                output.append(contentsOf: input[input.startIndex..<end])
                input = input[end...]
            }
        }
        return output
    }

    /// The five components of a URI reference (RFC 3986 appendix B).
    struct Parts {
        var scheme: [UInt8]?
        var authority: [UInt8]?
        var path: [UInt8] = []
        var query: [UInt8]?
        var fragment: [UInt8]?

        init() {}

        init(_ s: [UInt8]) {
            var rest = s[...]
            if let hash = rest.firstIndex(of: 0x23) {
                fragment = Array(rest[(hash + 1)...])
                rest = rest[..<hash]
            }
            if let q = rest.firstIndex(of: 0x3F) {
                query = Array(rest[(q + 1)...])
                rest = rest[..<q]
            }
            if let colon = rest.firstIndex(of: 0x3A), colon > rest.startIndex,
               rest[..<colon].allSatisfy({ Parts.isSchemeChar($0) }), Parts.isAlpha(rest[rest.startIndex]),
               !rest[..<colon].contains(0x2F) {
                scheme = Array(rest[..<colon])
                rest = rest[(colon + 1)...]
            }
            if rest.starts(with: [0x2F, 0x2F]) {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(of: 0x2F) ?? rest.endIndex
                authority = Array(rest[..<end])
                rest = rest[end...]
            }
            path = Array(rest)
        }

        static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
        static func isSchemeChar(_ c: UInt8) -> Bool {
            isAlpha(c) || (c >= 0x30 && c <= 0x39) || c == 0x2B || c == 0x2D || c == 0x2E
        }

        var recomposed: [UInt8] {
            var out: [UInt8] = []
            if let scheme { out += scheme; out.append(0x3A) }
            if let authority { out += [0x2F, 0x2F]; out += authority }
            out += path
            if let query { out.append(0x3F); out += query }
            if let fragment { out.append(0x23); out += fragment }
            return out
        }
    }
}

extension Array where Element == UInt8 {
    func trimmingXMLSpace() -> [UInt8] {
        var lo = startIndex, hi = endIndex
        while lo < hi, isXMLSpace(self[lo]) { lo += 1 }
        while hi > lo, isXMLSpace(self[hi - 1]) { hi -= 1 }
        return Array(self[lo..<hi])
    }
}
