// SPDX-License-Identifier: Apache-2.0
// The seam inside the pure-Swift backend: what its XML tokenizer reports to its feed
// state machine. Everything here is bytes borrowed for the duration of one call
// (UTF-8, already decoded from the document's encoding, entities replaced, line ends
// normalized); nothing is a `String`.
//
// This backend shares nothing with the C core (it does not import CFeedStream): it is
// an independent implementation of docs/SCHEMA.md, which is what makes the
// differential check between the two a strong test of both.

import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// One attribute of a start tag, namespace-resolved. `uri` is empty for attributes
/// without a prefix. `xmlns` declarations are not reported as attributes.
struct XMLAttribute {
    var uri: UnsafeRawBufferPointer
    var local: UnsafeRawBufferPointer
    var value: UnsafeRawBufferPointer
}

extension UnsafeRawBufferPointer {
    /// An empty buffer (never nil-based, so comparisons need no special case).
    nonisolated(unsafe) static let emptyBytes = UnsafeRawBufferPointer(start: XMLEmpty.byte, count: 0)

    /// Byte-wise equality with a static ASCII string.
    @inline(__always)
    func equals(_ s: StaticString) -> Bool {
        guard count == s.utf8CodeUnitCount else { return false }
        if count == 0 { return true }
        return bytesEqual(baseAddress!, s.utf8Start, count)
    }

    /// Equality with a static lower-case ASCII string, ASCII letters in any case (the
    /// bytes as written compared first: names are almost always written so).
    @inline(__always)
    func equalsIgnoringCase(_ s: StaticString) -> Bool {
        count == s.utf8CodeUnitCount
            && (equals(s) || bytesEqualIgnoringCase(baseAddress!.assumingMemoryBound(to: UInt8.self), s.utf8Start, count))
    }

    /// Byte-wise equality.
    @inline(__always)
    func equals(_ other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        return bytesEqual(baseAddress!, other.baseAddress!, count)
    }
}

enum XMLEmpty {
    nonisolated(unsafe) static let byte: UnsafeMutableRawPointer = {
        let p = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        p.storeBytes(of: 0, as: UInt8.self)
        return p
    }()
}

/// An ASCII letter in lower case; any other byte as it is.
@inline(__always)
func asciiLower(_ c: UInt8) -> UInt8 { c &- 0x41 < 26 ? c | 0x20 : c }

/// `n` bytes at `a` and at `b` are the same with ASCII letters in any case (names no
/// rule or attribute lookup found as written: machine.c's `equal_ignoring_case`).
@inline(never)
func bytesEqualIgnoringCase(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    for k in 0..<n where asciiLower(a[k]) != asciiLower(b[k]) { return false }
    return true
}
