// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Relative URIs inside HTML and XHTML content, resolved against the content's
/// `xml:base` chain (RFC 3986 §5.2 through ``FeedURL``), as feedparser does by default.
///
/// The markup is scanned as written (it is not reserialized): in every start tag, the
/// value of each URI-bearing attribute (``attributes``) that is a relative reference is
/// replaced by its resolution; everything else — other attributes, text, comments,
/// spacing, quoting, entity references — is kept byte for byte. Values with a scheme
/// (`http:`, `mailto:`, `data:`, …) and empty values are left alone; white space around a
/// value is not part of its URL (HTML strips it) and stays as written. One implementation
/// for every backend: the writer applies it (Output/RecordLayout.swift).
enum MarkupURLs {
    /// The attributes whose value is one URI (HTML 4.01 and HTML5), matched in any case on
    /// any element.
    static let attributes: [[UInt8]] = [
        "href", "src", "cite", "action", "background", "longdesc", "poster", "data", "usemap",
        "codebase", "profile", "classid", "formaction", "icon", "manifest",
    ].map { Array($0.utf8) }

    /// `markup` with its relative URIs resolved against `base` (what an xml:base chain
    /// comes to: FeedURL.base(ofChain:document:)), or nil when nothing changes (no base,
    /// no tag, or only absolute URIs). In XHTML (`xhtml`), an `xml:base` attribute on an
    /// element changes the base of that element and everything inside it (XML Base §4.2),
    /// as in the rest of the document. `srcset` candidates are resolved one by one.
    static func resolve(_ markup: UnsafeRawBufferPointer, base: [UInt8], xhtml: Bool = false) -> [UInt8]? {
        guard !base.isEmpty, markup.contains(0x3C) else { return nil }
        let s = markup.bindMemory(to: UInt8.self)
        let n = s.count
        var out: [UInt8] = []
        var copied = 0          // s[..<copied] is in out (once out is in use)
        var changed = false
        var bases: [[UInt8]] = []   // XHTML: the base inside each open element
        var attrs: [(name: Range<Int>, value: Range<Int>)] = []
        var i = 0
        func replace(_ range: Range<Int>, with bytes: [UInt8]) {
            if !changed { out.reserveCapacity(n + 64); changed = true }
            out.append(contentsOf: s[copied..<range.lowerBound])
            out.append(contentsOf: bytes)
            copied = range.upperBound
        }
        while i < n {
            guard s[i] == 0x3C else {   // text: on to the next '<'
                guard let lt = memchr(s.baseAddress! + i, 0x3C, n - i) else { break }
                i = s.baseAddress!.distance(to: lt.assumingMemoryBound(to: UInt8.self))
                continue
            }
            // Comments and declarations are skipped whole.
            if i + 3 < n && s[i + 1] == 0x21 && s[i + 2] == 0x2D && s[i + 3] == 0x2D {
                i = find(s, "-->", from: i + 4).map { $0 + 3 } ?? n
                continue
            }
            i += 1
            if i < n && s[i] == 0x2F {   // an end tag
                if xhtml && !bases.isEmpty { bases.removeLast() }
                while i < n && s[i] != 0x3E { i += 1 }
                continue
            }
            guard i < n, isAlpha(s[i]) else { continue }
            while i < n && !isSpace(s[i]) && s[i] != 0x3E && s[i] != 0x2F { i += 1 }   // the tag name
            // Attributes until '>'.
            attrs.removeAll(keepingCapacity: true)
            var selfClosing = false
            while i < n && s[i] != 0x3E {
                if isSpace(s[i]) { i += 1; continue }
                if s[i] == 0x2F { selfClosing = i + 1 < n && s[i + 1] == 0x3E; i += 1; continue }
                let nameStart = i
                while i < n && !isSpace(s[i]) && s[i] != 0x3D && s[i] != 0x3E && s[i] != 0x2F { i += 1 }
                let name = nameStart..<i
                while i < n && isSpace(s[i]) { i += 1 }
                guard i < n, s[i] == 0x3D else { continue }   // an attribute without a value
                i += 1
                while i < n && isSpace(s[i]) { i += 1 }
                guard i < n else { break }
                var valueStart = i, valueEnd: Int
                if s[i] == 0x22 || s[i] == 0x27 {
                    let q = s[i]
                    valueStart = i + 1
                    valueEnd = valueStart
                    while valueEnd < n && s[valueEnd] != q { valueEnd += 1 }
                    i = min(valueEnd + 1, n)
                } else {
                    valueEnd = i
                    while valueEnd < n && !isSpace(s[valueEnd]) && s[valueEnd] != 0x3E { valueEnd += 1 }
                    i = valueEnd
                }
                attrs.append((name, valueStart..<valueEnd))
            }
            var elementBase = bases.last ?? base
            if xhtml, let xb = attrs.first(where: { equals(s, $0.name, "xml:base") }) {
                if let b = FeedURL.rebased(Array(s[xb.value]).trimmingXMLSpace(), from: elementBase) { elementBase = b }
            }
            if xhtml && !selfClosing { bases.append(elementBase) }
            for a in attrs where !a.value.isEmpty {
                if equals(s, a.name, "srcset") {
                    if let r = resolveSrcset(s[a.value], against: elementBase) { replace(a.value, with: r) }
                    continue
                }
                guard isURIAttribute(UnsafeBufferPointer(rebasing: s[a.name])) else { continue }
                // White space around the URL is none of it (HTML strips it before parsing
                // a URL): it stays as written, around the resolved URL.
                var url = a.value
                while !url.isEmpty && isSpace(s[url.lowerBound]) { url = url.dropFirst() }
                while !url.isEmpty && isSpace(s[url.upperBound - 1]) { url = url.dropLast() }
                guard !url.isEmpty else { continue }
                let value = Array(s[url])
                guard !hasScheme(value) else { continue }
                let resolved = FeedURL.resolve(value, against: elementBase)
                if resolved != value { replace(url, with: resolved) }
            }
        }
        guard changed else { return nil }
        out.append(contentsOf: s[copied..<n])
        return out
    }

    /// A `srcset` (HTML: image candidates, each a URL and optional descriptors, separated
    /// by commas) with each relative URL resolved; nil when nothing changes.
    private static func resolveSrcset(_ v: Slice<UnsafeBufferPointer<UInt8>>, against base: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var changed = false
        var i = v.startIndex
        var copied = i
        while i < v.endIndex {
            while i < v.endIndex && (isSpace(v[i]) || v[i] == 0x2C) { i += 1 }
            let urlStart = i
            while i < v.endIndex && !isSpace(v[i]) { i += 1 }
            var urlEnd = i
            while urlEnd > urlStart && v[urlEnd - 1] == 0x2C { urlEnd -= 1 }   // "a.png," ends a candidate
            if urlEnd < i { i = urlEnd }
            else { while i < v.endIndex && v[i] != 0x2C { i += 1 } }            // its descriptors
            guard urlEnd > urlStart else { continue }
            let url = Array(v[urlStart..<urlEnd])
            guard !hasScheme(url) else { continue }
            let resolved = FeedURL.resolve(url, against: base)
            guard resolved != url else { continue }
            out.append(contentsOf: v[copied..<urlStart])
            out.append(contentsOf: resolved)
            copied = urlEnd
            changed = true
        }
        guard changed else { return nil }
        out.append(contentsOf: v[copied..<v.endIndex])
        return out
    }

    /// True when s[range] is `name`, in any case.
    private static func equals(_ s: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        let p = name.utf8Start
        for (k, j) in range.enumerated() where s[j] | 0x20 != p[k] | 0x20 { return false }
        return true
    }

    private static func find(_ s: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from: Int) -> Int? {
        let m = needle.utf8CodeUnitCount, p = needle.utf8Start
        var i = from
        while i + m <= s.count {
            var k = 0
            while k < m && s[i + k] == p[k] { k += 1 }
            if k == m { return i }
            i += 1
        }
        return nil
    }

    private static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C }

    private static func isURIAttribute(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        attributes.contains { a in a.count == name.count && zip(a, name).allSatisfy { $0 == $1 | 0x20 } }
    }

    /// True when `v` starts with a scheme (RFC 3986 §3.1) followed by ':'.
    private static func hasScheme(_ v: [UInt8]) -> Bool {
        guard let c = v.first, isAlpha(c) else { return false }
        for b in v.dropFirst() {
            if b == 0x3A { return true }
            if !(isAlpha(b) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E) { return false }
        }
        return false
    }
}
