#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A growable byte buffer that keeps its capacity across `removeAll()`: the Swift
/// backend's carry, name stack and scratch space. Pointers into it are valid until the
/// next append that grows it.
struct ScratchBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    func free() { base.deallocate() }

    @inline(__always)
    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func removeLast(_ n: Int) { count -= n }

    /// Keeps bytes `from..<count`, moved to the front.
    mutating func removeFirst(_ n: Int) {
        guard n > 0 else { return }
        if n < count { memmove(base, base + n, count - n) }
        count = max(count - n, 0)
    }

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private mutating func grow(_ needed: Int) {
        var cap = capacity * 2
        while cap < needed { cap *= 2 }
        let nb = UnsafeMutablePointer<UInt8>.allocate(capacity: cap)
        nb.update(from: base, count: count)
        base.deallocate()
        base = nb
        capacity = cap
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        guard n > 0 else { return }
        reserve(n)
        copyBytes(to: base + count, from: p, n)
        count += n
    }

    mutating func append(_ b: UnsafeRawBufferPointer) {
        guard let p = b.baseAddress, b.count > 0 else { return }
        append(p.assumingMemoryBound(to: UInt8.self), b.count)
    }

    /// Appends the UTF-8 encoding of a scalar value.
    mutating func appendScalar(_ v: UInt32) {
        reserve(4)
        let p = base + count
        switch v {
        case ..<0x80:
            p[0] = UInt8(v); count += 1
        case ..<0x800:
            p[0] = UInt8(0xC0 | (v >> 6)); p[1] = UInt8(0x80 | (v & 0x3F)); count += 2
        case ..<0x10000:
            p[0] = UInt8(0xE0 | (v >> 12)); p[1] = UInt8(0x80 | ((v >> 6) & 0x3F))
            p[2] = UInt8(0x80 | (v & 0x3F)); count += 3
        default:
            p[0] = UInt8(0xF0 | (v >> 18)); p[1] = UInt8(0x80 | ((v >> 12) & 0x3F))
            p[2] = UInt8(0x80 | ((v >> 6) & 0x3F)); p[3] = UInt8(0x80 | (v & 0x3F)); count += 4
        }
    }

    @inline(__always)
    func bytes(_ from: Int, _ n: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + from, count: n)
    }
}
