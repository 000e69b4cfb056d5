// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A growable byte buffer written through raw pointers (no per-byte bounds checks) that
/// keeps its capacity across `removeAll()`: the Swift backend's carry, name stack and
/// scratch space, and the storage of the JSON writer's ``ByteBuffer``. Pointers into it
/// are valid until the next append that grows it. Its owner calls `free()`.
@usableFromInline package struct ScratchBytes {
    @usableFromInline package var base: UnsafeMutablePointer<UInt8>
    @usableFromInline package var count = 0
    @usableFromInline package var capacity: Int

    @inlinable package init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    @inlinable package func free() { base.deallocate() }

    @inlinable @inline(__always)
    package mutating func removeAll() { count = 0 }

    @inlinable @inline(__always)
    package mutating func removeLast(_ n: Int) { count -= n }

    /// Keeps the first `n` bytes.
    @inlinable @inline(__always)
    package mutating func truncate(to n: Int) { count = n }

    /// Keeps bytes `from..<count`, moved to the front.
    @inlinable package mutating func removeFirst(_ n: Int) {
        guard n > 0 else { return }
        if n < count { memmove(base, base + n, count - n) }
        count = max(count - n, 0)
    }

    /// Makes room for `extra` more bytes (capacity doubled until they fit).
    @inlinable @inline(__always)
    package mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    @inlinable package mutating func grow(_ needed: Int) {
        var cap = capacity * 2
        while cap < needed { cap *= 2 }
        let nb = UnsafeMutablePointer<UInt8>.allocate(capacity: cap)
        nb.update(from: base, count: count)
        base.deallocate()
        base = nb
        capacity = cap
    }

    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(count + 1) }
        base[count] = byte
        count += 1
    }

    @inlinable @inline(__always)
    package mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        guard n > 0 else { return }
        reserve(n)
        putReserved(p, n)
    }

    @inlinable package mutating func append(_ b: UnsafeRawBufferPointer) {
        guard let p = b.baseAddress, b.count > 0 else { return }
        append(p.assumingMemoryBound(to: UInt8.self), b.count)
    }

    /// Appends `n` bytes for which room was reserved (``copyBytes(to:from:_:)``).
    @inlinable @inline(__always)
    package mutating func putReserved(_ p: UnsafeRawPointer, _ n: Int) {
        copyBytes(to: UnsafeMutableRawPointer(base + count), from: p, n)
        count &+= n
    }

    /// Appends one byte for which room was reserved.
    @inlinable @inline(__always)
    package mutating func putReserved(_ c: UInt8) {
        base[count] = c
        count &+= 1
    }

    /// Reserves `n` bytes and lets `body` write into them; `body` returns how many it used.
    @inlinable @inline(__always)
    package mutating func write(upTo n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(n)
        count += body(base + count)
    }

    /// Appends the UTF-8 encoding of a scalar value (``encodeUTF8(_:to:)``).
    @inlinable package mutating func appendScalar(_ v: UInt32) {
        write(upTo: 4) { encodeUTF8(v, to: $0) }
    }

    @inlinable @inline(__always)
    package func bytes(_ from: Int, _ n: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + from, count: n)
    }
}
