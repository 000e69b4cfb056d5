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

/// An offset+length into an arena; `off == SFM.absentOff` means absent. Offsets, not
/// pointers, because the arena may move while a record is being built.
struct SFMRef {
    var off: UInt32
    var len: UInt32

    @inline(__always) static var absent: SFMRef { SFMRef(off: SFM.absentOff, len: 0) }
    @inline(__always) var isAbsent: Bool { off == SFM.absentOff }
}

/// A growable byte arena. `cap` grows by doubling, capped at `limit`; bytes past the
/// limit are dropped (and `truncated` set), as cfs_arena does.
struct SFMArena {
    var buf: UnsafeMutablePointer<UInt8>
    var len: Int
    var cap: Int
    var limit: Int
    var truncated: Bool

    init(initial: Int, limit: Int) {
        buf = malloc(initial)!.assumingMemoryBound(to: UInt8.self)
        len = 0
        // cap never exceeds the limit, as in arena.c: appends within cap skip the
        // limit check.
        cap = min(initial, limit)
        self.limit = limit
        truncated = false
    }

    func free() { sfmFree(buf) }

    @inline(__always)
    mutating func reset() {
        len = 0
        truncated = false
    }

    /// Makes room for `extra` more bytes past `len`; false at the limit.
    @inline(__always)
    mutating func reserve(_ extra: Int) -> Bool {
        if len + extra <= cap { return true }
        return grow(extra)
    }

    @inline(never)
    mutating func grow(_ extra: Int) -> Bool {
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
    @inline(__always)
    mutating func append(_ data: UnsafeRawPointer?, _ n: Int) {
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
    mutating func appendSlow(_ data: UnsafeRawPointer, _ n: Int) {
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

    @inline(__always)
    mutating func append(_ s: StaticString) {
        append(UnsafeRawPointer(s.utf8Start), s.utf8CodeUnitCount)
    }

    @inline(__always)
    mutating func appendByte(_ b: UInt8) {
        if len < cap {
            buf[len] = b
            len += 1
            return
        }
        withUnsafePointer(to: b) { appendSlow(UnsafeRawPointer($0), 1) }
    }

    /// Appends `n` bytes found in this arena at `off` (the source is located after any
    /// growth, so it never dangles).
    mutating func appendSelf(_ off: Int, _ n: Int) {
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
    @inline(__always)
    mutating func copy(_ data: UnsafeRawPointer?, _ n: Int) -> SFMRef {
        let off = len
        append(data, n)
        return SFMRef(off: UInt32(truncatingIfNeeded: off), len: UInt32(truncatingIfNeeded: len - off))
    }
}

/// free(3), under a name that the `free()` methods below do not shadow.
@inline(__always)
func sfmFree(_ p: UnsafeMutableRawPointer?) { free(p) }

/// A vector of fixed-stride records of refs (a link is 7 refs, a person 4, ...).
struct SFMRefVec {
    var v: UnsafeMutablePointer<SFMRef>?
    var count: Int
    var cap: Int
    var stride: Int

    /// Appends a record with every ref absent and returns it (valid until the next push).
    @inline(__always)
    mutating func push() -> UnsafeMutablePointer<SFMRef> {
        if count == cap { growVec() }
        let rec = v! + count * stride
        for i in 0..<stride { rec[i] = .absent }
        count += 1
        return rec
    }

    @inline(never)
    mutating func growVec() {
        let c = cap != 0 ? cap * 2 : 8
        v = realloc(v, c * stride * MemoryLayout<SFMRef>.stride)!.assumingMemoryBound(to: SFMRef.self)
        cap = c
    }
}

/// An item or feed under construction: an arena, refs into it per field, priorities,
/// the bits of fields written since the last reset, and lists of rows of refs.
struct SFMRecord {
    var arena: SFMArena
    let field: UnsafeMutablePointer<SFMRef>
    let prio: UnsafeMutablePointer<UInt8>
    let set: UnsafeMutablePointer<UInt64>
    let lists: UnsafeMutablePointer<SFMRefVec>
    /// Bit l: list l has rows (every push marks it), so that resets and publishing touch
    /// only the lists a record uses.
    var listsUsed: UInt64 = 0

    init(limit: Int, columns: UnsafePointer<Int>) {
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
    static func limit(maxItemBytes: Int) -> Int {
        let limit = maxItemBytes == 0 ? SFM.defaultMaxItemBytes : maxItemBytes
        return limit < 0 || limit > Int(UInt32.max) - 1 ? Int(UInt32.max) - 1 : limit
    }

    /// A record under construction, allocated with the rules' list columns; release it
    /// with ``destroy(_:)``.
    static func make(limit: Int) -> UnsafeMutablePointer<SFMRecord> {
        let r = UnsafeMutablePointer<SFMRecord>.allocate(capacity: 1)
        r.initialize(to: SFMRecord(limit: limit, columns: SwiftRules.shared.listColumns))
        return r
    }

    /// Frees a record ``make(limit:)`` made.
    static func destroy(_ r: UnsafeMutablePointer<SFMRecord>) {
        r.pointee.free()
        r.deinitialize(count: 1)
        r.deallocate()
    }

    func free() {
        arena.free()
        field.deallocate()
        prio.deallocate()
        set.deallocate()
        for l in 0..<SFM.listCount { sfmFree(lists[l].v) }
        lists.deallocate()
    }

    /// Every write to a field goes through put(), which marks it in `set`, so that resets
    /// and publishing touch only the few fields a record uses.
    @inline(__always)
    func put(_ f: Int, _ ref: SFMRef) {
        field[f] = ref
        set[f &>> 6] |= 1 &<< UInt64(f & 63)
    }

    mutating func reset() {
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

    @inline(__always)
    mutating func copy(_ data: UnsafeRawPointer?, _ n: Int) -> SFMRef { arena.copy(data, n) }

    @inline(__always)
    mutating func copy(_ b: UnsafeRawBufferPointer) -> SFMRef { arena.copy(b.baseAddress, b.count) }

    /// True when the bytes of `ref` are XML white space only (or none).
    func isBlank(_ ref: SFMRef) -> Bool {
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
    func taken(_ f: Int, _ p: UInt8) -> Bool {
        let q = prio[f]
        return q != 0 && q < p
    }

    @inline(__always)
    func setField(_ f: Int, _ p: UInt8, _ ref: SFMRef) {
        if taken(f, p) { return }
        put(f, ref)
        prio[f] = p
    }

    @inline(__always)
    mutating func setFieldAttr(_ f: Int, _ p: UInt8, _ a: UnsafePointer<XMLAttribute>?) {
        guard let a, !taken(f, p) else { return }
        setField(f, p, copy(a.pointee.value))
    }

    @inline(__always)
    func span(_ ref: SFMRef) -> CoreSpan {
        ref.isAbsent ? CoreSpan(ptr: nil, len: 0) : CoreSpan(ptr: UnsafePointer(arena.buf + Int(ref.off)), len: Int(ref.len))
    }
}

/// The public form of a record: spans into the record's arena, in storage allocated once
/// and reused, which ``RawRecord`` points at.
struct SFMPub {
    let fields: UnsafeMutablePointer<CoreSpan>
    let present: UnsafeMutablePointer<UInt64>
    let rows: UnsafeMutablePointer<UnsafePointer<CoreSpan>?>
    let rowBufs: UnsafeMutablePointer<UnsafeMutablePointer<CoreSpan>?>
    let caps: UnsafeMutablePointer<Int>
    let counts: UnsafeMutablePointer<Int>
    let shown: UnsafeMutablePointer<UInt64>   // fields set at the last publish
    let listsShown: UnsafeMutablePointer<UInt64>   // lists with rows at the last publish

    init() {
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

    func free() {
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

    var raw: RawRecord {
        RawRecord(fields: UnsafePointer(fields), present: UnsafePointer(present), rows: UnsafePointer(rows),
                  counts: UnsafePointer(counts))
    }

    /// Converts a record under construction to its public form.
    func publish(_ r: UnsafePointer<SFMRecord>) {
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

/// An element on the frame stack: what to do when it ends.
struct SFMFrame {
    var row: UInt32       // row for list captures (itunes categories: the outer row + 1)
    var scope: UInt32     // scope to restore when this element ends
    var item: Bool        // the record in scope before was the item
    var action: UInt8
    var target: UInt16    // field or list
    var col: UInt8        // column, or priority for fields
}

/// xml:lang and xml:base in scope: pushed by elements that carry them.
struct SFMScopeAttrs {
    var depth: Int
    var lang: SFMRef      // into the machine's scope arena
    var base: SFMRef      // the chain, outermost first, 0x01-separated
}
