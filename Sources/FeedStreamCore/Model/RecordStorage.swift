// SPDX-License-Identifier: Apache-2.0
// Storage of the pure-Swift feed state machine: a growable byte arena (capacity kept
// across resets), vectors of refs, records under construction and their published
// form. Semantics follow the C core's arena.c exactly, limits included, because what is
// kept of an oversized item must come out byte for byte the same.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The record storage's constants, and the namespace of the Swift machine's (extended by
/// FeedStreamSwift; fieldCount and listCount are generated, RecordCounts.swift).
@usableFromInline package enum SFM {
    /// No bytes: a ref's offset when the field is absent.
    @usableFromInline package static let absentOff = UInt32.max
    /// Words of presence bits in a record, one bit per field (C: CFS_PRESENT_WORDS).
    @usableFromInline package static let presenceWords = (fieldCount + 63) >> 6
}

/// An offset+length into an arena; `off == SFM.absentOff` means absent. Offsets, not
/// pointers, because the arena may move while a record is being built.
@usableFromInline package struct SFMRef {
    @usableFromInline package var off: UInt32
    @usableFromInline package var len: UInt32

    @inlinable @inline(__always) package init(off: UInt32, len: UInt32) {
        self.off = off
        self.len = len
    }

    @inlinable @inline(__always) package static var absent: SFMRef { SFMRef(off: SFM.absentOff, len: 0) }
    @inlinable @inline(__always) package var isAbsent: Bool { off == SFM.absentOff }
}

/// A growable byte arena. `cap` grows by doubling, capped at `limit`; bytes past the
/// limit are dropped (and `truncated` set), as cfs_arena does.
@usableFromInline package struct SFMArena {
    @usableFromInline package var buf: UnsafeMutablePointer<UInt8>
    @usableFromInline package var len: Int
    @usableFromInline package var cap: Int
    @usableFromInline package var limit: Int
    @usableFromInline package var truncated: Bool

    package init(initial: Int, limit: Int) {
        buf = malloc(initial)!.assumingMemoryBound(to: UInt8.self)
        len = 0
        // cap never exceeds the limit, as in arena.c: appends within cap skip the
        // limit check.
        cap = min(initial, limit)
        self.limit = limit
        truncated = false
    }

    package func free() { sfmFree(buf) }

    @inlinable @inline(__always)
    package mutating func reset() {
        len = 0
        truncated = false
    }

    /// Makes room for `extra` more bytes past `len`; false at the limit.
    @inlinable @inline(__always)
    package mutating func reserve(_ extra: Int) -> Bool {
        if len + extra <= cap { return true }
        return grow(extra)
    }

    @inline(never)
    @usableFromInline package mutating func grow(_ extra: Int) -> Bool {
        if len + extra > limit {
            truncated = true
            return false
        }
        var c = cap != 0 ? cap : 4096
        while c < len + extra { c *= 2 }
        if c > limit { c = limit }
        buf = realloc(buf, c)!.assumingMemoryBound(to: UInt8.self)
        cap = c
        return true
    }

    /// Appends bytes; keeps what fits under the limit.
    @inlinable @inline(__always)
    package mutating func append(_ data: UnsafeRawPointer?, _ n: Int) {
        if n == 0 { return }
        if len + n <= cap {
            // Up to 32 bytes (a reference's character, most text between references)
            // without a memcpy call.
            copyBytes(to: buf + len, from: data!, n)
            len += n
            return
        }
        appendSlow(data!, n)
    }

    @inline(never)
    @usableFromInline package mutating func appendSlow(_ data: UnsafeRawPointer, _ n: Int) {
        if !reserve(n) {
            var room = limit > len ? limit - len : 0
            if room > n { room = n }
            if room != 0 && reserve(room) {
                memcpy(buf + len, data, room)
                len += room
            }
            truncated = true
            return
        }
        memcpy(buf + len, data, n)
        len += n
    }

    @inlinable @inline(__always)
    package mutating func append(_ s: StaticString) {
        append(UnsafeRawPointer(s.utf8Start), s.utf8CodeUnitCount)
    }

    @inlinable @inline(__always)
    package mutating func appendByte(_ b: UInt8) {
        if len < cap {
            buf[len] = b
            len += 1
            return
        }
        withUnsafePointer(to: b) { appendSlow(UnsafeRawPointer($0), 1) }
    }

    /// Appends `n` bytes found in this arena at `off` (the source is located after any
    /// growth, so it never dangles).
    @inlinable package mutating func appendSelf(_ off: Int, _ n: Int) {
        if n == 0 { return }
        if reserve(n) {
            memcpy(buf + len, buf + off, n)
            len += n
            return
        }
        var room = limit > len ? limit - len : 0
        if room > n { room = n }
        if room != 0 && reserve(room) {
            memcpy(buf + len, buf + off, room)
            len += room
        }
        truncated = true
    }

    /// Copies bytes in and returns their ref.
    @inlinable @inline(__always)
    package mutating func copy(_ data: UnsafeRawPointer?, _ n: Int) -> SFMRef {
        let off = len
        append(data, n)
        return SFMRef(off: UInt32(truncatingIfNeeded: off), len: UInt32(truncatingIfNeeded: len - off))
    }
}

/// free(3), under a name that the `free()` methods below do not shadow.
@inlinable @inline(__always)
package func sfmFree(_ p: UnsafeMutableRawPointer?) { free(p) }

/// A vector of fixed-stride records of refs (a link is 7 refs, a person 4, ...).
@usableFromInline package struct SFMRefVec {
    @usableFromInline package var v: UnsafeMutablePointer<SFMRef>?
    @usableFromInline package var count: Int
    @usableFromInline package var cap: Int
    @usableFromInline package var stride: Int

    /// Appends a record with every ref absent and returns it (valid until the next push).
    @inlinable @inline(__always)
    package mutating func push() -> UnsafeMutablePointer<SFMRef> {
        if count == cap { growVec() }
        let rec = v! + count * stride
        for i in 0..<stride { rec[i] = .absent }
        count += 1
        return rec
    }

    @inline(never)
    @usableFromInline package mutating func growVec() {
        let c = cap != 0 ? cap * 2 : 8
        v = realloc(v, c * stride * MemoryLayout<SFMRef>.stride)!.assumingMemoryBound(to: SFMRef.self)
        cap = c
    }
}

/// An item or feed under construction: an arena, refs into it per field, priorities,
/// the bits of fields written since the last reset, and lists of rows of refs.
@usableFromInline package struct SFMRecord {
    @usableFromInline package var arena: SFMArena
    @usableFromInline package let field: UnsafeMutablePointer<SFMRef>
    @usableFromInline package let prio: UnsafeMutablePointer<UInt8>
    @usableFromInline package let set: UnsafeMutablePointer<UInt64>
    @usableFromInline package let lists: UnsafeMutablePointer<SFMRefVec>
    /// Bit l: list l has rows (every push marks it), so that resets and publishing touch
    /// only the lists a record uses.
    @usableFromInline package var listsUsed: UInt64 = 0

    package init(limit: Int, columns: UnsafePointer<Int>) {
        arena = SFMArena(initial: 16384, limit: limit)
        field = .allocate(capacity: SFM.fieldCount)
        field.initialize(repeating: .absent, count: SFM.fieldCount)
        prio = .allocate(capacity: SFM.fieldCount)
        prio.initialize(repeating: 0, count: SFM.fieldCount)
        set = .allocate(capacity: SFM.presenceWords)
        set.initialize(repeating: 0, count: SFM.presenceWords)
        lists = .allocate(capacity: SFM.listCount)
        for l in 0..<SFM.listCount {
            (lists + l).initialize(to: SFMRefVec(v: nil, count: 0, cap: 0, stride: columns[l]))
        }
    }

    /// A record's byte limit from a parser's `maxItemBytes` (0: the default, 64 MiB;
    /// offsets are 32 bits): the one rule for every record builder (the XML machine
    /// and the JSON Feed reader).
    package static func limit(maxItemBytes: Int) -> Int {
        let limit = maxItemBytes == 0 ? SFM.defaultMaxItemBytes : maxItemBytes
        return limit < 0 || limit > Int(UInt32.max) - 1 ? Int(UInt32.max) - 1 : limit
    }

    /// Columns per list (``FeedList/columnCounts``), in memory that lives for the process.
    private nonisolated(unsafe) static let listColumns: UnsafePointer<Int> = {
        let columns = UnsafeMutablePointer<Int>.allocate(capacity: SFM.listCount)
        for l in 0..<SFM.listCount { columns[l] = FeedList.columnCounts[l] }
        return UnsafePointer(columns)
    }()

    /// A record under construction, allocated with the rules' list columns; release it
    /// with ``destroy(_:)``.
    package static func make(limit: Int) -> UnsafeMutablePointer<SFMRecord> {
        let r = UnsafeMutablePointer<SFMRecord>.allocate(capacity: 1)
        r.initialize(to: SFMRecord(limit: limit, columns: listColumns))
        return r
    }

    /// Frees a record ``make(limit:)`` made.
    package static func destroy(_ r: UnsafeMutablePointer<SFMRecord>) {
        r.pointee.free()
        r.deinitialize(count: 1)
        r.deallocate()
    }

    package func free() {
        arena.free()
        field.deallocate()
        prio.deallocate()
        set.deallocate()
        for l in 0..<SFM.listCount { sfmFree(lists[l].v) }
        lists.deallocate()
    }

    /// Every write to a field goes through put(), which marks it in `set`, so that resets
    /// and publishing touch only the few fields a record uses.
    @inlinable @inline(__always)
    package func put(_ f: Int, _ ref: SFMRef) {
        field[f] = ref
        set[f &>> 6] |= 1 &<< UInt64(f & 63)
    }

    @inlinable package mutating func reset() {
        arena.reset()
        for w in 0..<SFM.presenceWords {
            var bits = set[w]
            while bits != 0 {
                let i = w &* 64 &+ bits.trailingZeroBitCount
                field[i] = .absent
                prio[i] = 0
                bits &= bits &- 1
            }
            set[w] = 0
        }
        var used = listsUsed
        while used != 0 {
            lists[used.trailingZeroBitCount].count = 0
            used &= used &- 1
        }
        listsUsed = 0
    }

    @inlinable @inline(__always)
    package mutating func copy(_ data: UnsafeRawPointer?, _ n: Int) -> SFMRef { arena.copy(data, n) }

    @inlinable @inline(__always)
    package mutating func copy(_ b: UnsafeRawBufferPointer) -> SFMRef { arena.copy(b.baseAddress, b.count) }

    /// True when the bytes of `ref` are XML white space only (or none).
    @inlinable package func isBlank(_ ref: SFMRef) -> Bool {
        var i = Int(ref.off)
        let end = i + Int(ref.len)
        while i < end {
            let c = arena.buf[i]
            guard c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { return false }
            i += 1
        }
        return true
    }

    /// True when a field already holds a value of priority `prio` or better.
    @inline(__always)
    /// True when field `f` holds a value of a higher priority than `p`: an equal one is
    /// replaced (the last one wins, docs/SCHEMA.md), as machine.c's taken().
    @inlinable package func taken(_ f: Int, _ p: UInt8) -> Bool {
        let q = prio[f]
        return q != 0 && q < p
    }

    @inlinable @inline(__always)
    package func setField(_ f: Int, _ p: UInt8, _ ref: SFMRef) {
        if taken(f, p) { return }
        put(f, ref)
        prio[f] = p
    }


    @inlinable @inline(__always)
    package func span(_ ref: SFMRef) -> CoreSpan {
        ref.isAbsent ? CoreSpan(ptr: nil, len: 0) : CoreSpan(ptr: UnsafePointer(arena.buf + Int(ref.off)), len: Int(ref.len))
    }
}

/// The public form of a record: spans into the record's arena, in storage allocated once
/// and reused, which ``RawRecord`` points at.
@usableFromInline package struct SFMPub {
    @usableFromInline package let fields: UnsafeMutablePointer<CoreSpan>
    @usableFromInline package let present: UnsafeMutablePointer<UInt64>
    @usableFromInline package let rows: UnsafeMutablePointer<UnsafePointer<CoreSpan>?>
    @usableFromInline package let rowBufs: UnsafeMutablePointer<UnsafeMutablePointer<CoreSpan>?>
    @usableFromInline package let caps: UnsafeMutablePointer<Int>
    @usableFromInline package let counts: UnsafeMutablePointer<Int>
    @usableFromInline package let shown: UnsafeMutablePointer<UInt64>   // fields set at the last publish
    @usableFromInline package let listsShown: UnsafeMutablePointer<UInt64>   // lists with rows at the last publish

    package init() {
        fields = .allocate(capacity: SFM.fieldCount)
        fields.initialize(repeating: CoreSpan(ptr: nil, len: 0), count: SFM.fieldCount)
        present = .allocate(capacity: SFM.presenceWords)
        present.initialize(repeating: 0, count: SFM.presenceWords)
        rows = .allocate(capacity: SFM.listCount)
        rows.initialize(repeating: nil, count: SFM.listCount)
        rowBufs = .allocate(capacity: SFM.listCount)
        rowBufs.initialize(repeating: nil, count: SFM.listCount)
        caps = .allocate(capacity: SFM.listCount)
        caps.initialize(repeating: 0, count: SFM.listCount)
        counts = .allocate(capacity: SFM.listCount)
        counts.initialize(repeating: 0, count: SFM.listCount)
        shown = .allocate(capacity: SFM.presenceWords)
        shown.initialize(repeating: 0, count: SFM.presenceWords)
        listsShown = .allocate(capacity: 1)
        listsShown.initialize(to: 0)
    }

    package func free() {
        for l in 0..<SFM.listCount { sfmFree(rowBufs[l]) }
        fields.deallocate()
        present.deallocate()
        rows.deallocate()
        rowBufs.deallocate()
        caps.deallocate()
        counts.deallocate()
        shown.deallocate()
        listsShown.deallocate()
    }

    @inlinable package var raw: RawRecord {
        RawRecord(fields: UnsafePointer(fields), present: UnsafePointer(present), rows: UnsafePointer(rows),
                  counts: UnsafePointer(counts))
    }

    /// Converts a record under construction to its public form.
    package func publish(_ r: UnsafePointer<SFMRecord>) {
        let rec = r.pointee
        // Fields set now or at the last publish (those must be cleared).
        for w in 0..<SFM.presenceWords {
            var bits = rec.set[w] | shown[w]
            while bits != 0 {
                let i = w &* 64 &+ bits.trailingZeroBitCount
                fields[i] = rec.span(rec.field[i])
                bits &= bits &- 1
            }
            shown[w] = rec.set[w]
            present[w] = rec.set[w]
        }
        // Lists with rows now or at the last publish (those must be emptied).
        var lists = rec.listsUsed | listsShown.pointee
        listsShown.pointee = rec.listsUsed
        while lists != 0 {
            let l = lists.trailingZeroBitCount
            lists &= lists &- 1
            let v = rec.lists[l]
            let cells = v.count &* v.stride
            counts[l] = v.count
            if cells == 0 { continue }
            if cells > caps[l] {
                var c = caps[l] != 0 ? caps[l] : 16
                while c < cells { c *= 2 }
                let nb = realloc(rowBufs[l], c * MemoryLayout<CoreSpan>.stride)!.assumingMemoryBound(to: CoreSpan.self)
                rowBufs[l] = nb
                rows[l] = UnsafePointer(nb)
                caps[l] = c
            }
            let out = rowBufs[l]!
            let src = v.v!
            for k in 0..<cells { out[k] = rec.span(src[k]) }
        }
    }
}


