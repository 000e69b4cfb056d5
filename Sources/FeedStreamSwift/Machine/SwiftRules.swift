// SPDX-License-Identifier: Apache-2.0
// The pure-Swift feed state machine's static tables, built from SwiftRulesTable.swift,
// which scripts/generate-rules.py writes from CSources/CFeedStream/feed_rules.def, the
// same file the C core's machine.c expands: the two machines share no code, but their
// rules have one source.
//
// Everything is built once into unsafe memory that lives for the whole process, so the
// machine's hot paths read plain pointers (no String, no Dictionary, no lazy globals).

import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Constants of the machine (literal, so that they fold). The families, namespace kinds,
/// scopes, actions, fields and lists are generated (SwiftRulesTable.swift); the record's
/// own constants are in FeedStreamCore (RecordStorage.swift).
extension SFM {
    // defaultMaxItemBytes: LimitsTable.swift (limits.def).
    // The limit that stopped a document (SwiftFeedMachineCore.limit).
    static let limitItems: UInt8 = 1
    static let limitField: UInt8 = 2

    /// No attribute map (a rule's `map`).
    static let none: UInt8 = 0xFF
    /// No field or list (a rule's `target`).
    static let noTarget: UInt16 = 0xFFFF

    // Priorities: lower wins; ties: the first wins.
    static let p1: UInt8 = 1
    static let p2: UInt8 = 2
    static let p3: UInt8 = 3

    static let hashSize = 512
}

/// One rule: (family, local name, scopes) -> action on a field or list.
struct SFMRule {
    var name: UnsafePointer<UInt8>
    var nameLen: Int
    var fam: UInt8
    var action: UInt8
    var target: UInt16     // field or list (SFM.noTarget: none)
    var col: UInt8         // column for rLText; priority for fields
    var scopes: UInt32
    var enter: UInt32      // scope entered (rScope, rLAttr, rPerson)
    var map: UInt8         // attribute map (SFM.none: none)
    var deftype: UInt8     // rTextC: 0 none, else 1 + its index in SwiftRulesTable.defaultTypes
}

/// One entry of an attribute map: attribute (no namespace) -> column or field.
struct SFMAttrEntry {
    var name: UnsafePointer<UInt8>
    var len: Int
    var index: UInt16
}

struct SFMNamespace {
    var uri: UnsafePointer<UInt8>
    var len: Int
    var ns: UInt8
    var fam: UInt8
}

/// The tables, built once per process.
final class SwiftRules: @unchecked Sendable {
    static let shared = SwiftRules()

    let rules: UnsafeMutablePointer<SFMRule>
    let ruleCount: Int
    let head: UnsafeMutablePointer<UInt16>
    let next: UnsafeMutablePointer<UInt16>
    /// The rules by their names in lower case (``findAnyCase(_:_:_:_:)``).
    let headAnyCase: UnsafeMutablePointer<UInt16>
    let nextAnyCase: UnsafeMutablePointer<UInt16>
    let mapEntries: UnsafeMutablePointer<SFMAttrEntry>
    let mapStart: UnsafeMutablePointer<Int>
    let mapCount: UnsafeMutablePointer<Int>
    let namespaces: UnsafeMutablePointer<SFMNamespace>
    let namespaceCount: Int

    /// The rule table's bucket for a family and a name: the name's first and last 8
    /// bytes (fewer: overlapping loads, as ``bytesEqual(_:_:_:)`` reads), its length and
    /// the family, mixed by multiplies, the top bits taken. Any hash would do (a chain is
    /// compared name by name); this one reads a name in at most two loads where a
    /// byte-by-byte hash (FNV-1a, which the C core keeps) took 1.4% of converting a dump.
    @inline(__always)
    static func hash(_ fam: UInt8, _ s: UnsafePointer<UInt8>, _ len: Int) -> Int {
        let p = UnsafeRawPointer(s)
        var a: UInt64 = 0, b: UInt64 = 0
        if len >= 8 {
            a = p.loadUnaligned(as: UInt64.self)
            b = (p + (len &- 8)).loadUnaligned(as: UInt64.self)
        } else if len >= 4 {
            a = UInt64(p.loadUnaligned(as: UInt32.self))
            b = UInt64((p + (len &- 4)).loadUnaligned(as: UInt32.self))
        } else if len > 0 {
            a = UInt64(s[0]) | UInt64(s[len &>> 1]) &<< 8 | UInt64(s[len &- 1]) &<< 16
        }
        let h = ((a &* 0x9E37_79B9_7F4A_7C15) ^ b ^ (UInt64(len) &<< 8 | UInt64(fam))) &* 0xFF51_AFD7_ED55_8CCD
        return Int(truncatingIfNeeded: h &>> 32) & (SFM.hashSize - 1)
    }

    /// An element no rule names as written: the first rule in table order for the family
    /// whose name differs from it only in ASCII case, that applies in `scope`. feedparser
    /// reads element names in any case (`pubdate`, `Title`, `LINK`); machine.c's
    /// `find_rule_any_case` is the same lookup.
    @inline(never)
    func findAnyCase(_ fam: UInt8, _ p: UnsafePointer<UInt8>, _ len: Int, _ scope: UInt32) -> UnsafePointer<SFMRule>? {
        SwiftRules.walk(headAnyCase[SwiftRules.hashLower(fam, p, len)], nextAnyCase, rules, fam, p, len, scope,
                        bytesEqualIgnoringCase)
    }

    /// The first rule of a chain (from `first`, through `next`; 0xFFFF ends it) of the
    /// family, named `p` as `equal` compares, that applies in `scope`: the walk of both
    /// lookups (``SwiftFeedMachineCore/findRule(_:_:_:)`` and ``findAnyCase(_:_:_:_:)``).
    @inline(__always)
    static func walk(_ first: UInt16, _ next: UnsafePointer<UInt16>, _ rules: UnsafePointer<SFMRule>,
                     _ fam: UInt8, _ p: UnsafePointer<UInt8>, _ len: Int, _ scope: UInt32,
                     _ equal: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int) -> Bool) -> UnsafePointer<SFMRule>? {
        var i = first
        while i != 0xFFFF {
            let r = rules + Int(i)
            if r.pointee.fam == fam && r.pointee.nameLen == len && (r.pointee.scopes & scope) != 0
                && equal(r.pointee.name, p, len)
            {
                return r
            }
            i = next[Int(i)]
        }
        return nil
    }

    private static func hashLower(_ fam: UInt8, _ s: UnsafePointer<UInt8>, _ len: Int) -> Int {
        var h: UInt32 = 2_166_136_261 ^ UInt32(fam)
        for k in 0..<len { h = (h ^ UInt32(asciiLower(s[k]))) &* 16_777_619 }
        return Int(h) & (SFM.hashSize - 1)
    }

    private init() {

        // Every string lives in one buffer.
        func intern(_ s: String) -> (UnsafePointer<UInt8>, Int) {
            let bytes = Array(s.utf8)
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            p.initialize(from: bytes, count: bytes.count)
            return (UnsafePointer(p), bytes.count)
        }

        let specs = SwiftRulesTable.rules
        ruleCount = specs.count
        rules = .allocate(capacity: specs.count)
        for (i, s) in specs.enumerated() {
            let (p, n) = intern(s.1)
            rules[i] = SFMRule(name: p, nameLen: n, fam: s.0, action: s.3, target: s.4, col: s.5, scopes: s.2,
                               enter: s.7, map: s.6, deftype: s.8)
        }
        // Chains built backwards so that each chain runs in table order: by name as
        // written, and by name in lower case.
        let table = rules
        let chains = [SwiftRules.hash, SwiftRules.hashLower].map { hash in
            let head = UnsafeMutablePointer<UInt16>.allocate(capacity: SFM.hashSize)
            head.initialize(repeating: 0xFFFF, count: SFM.hashSize)
            let next = UnsafeMutablePointer<UInt16>.allocate(capacity: specs.count)
            for i in stride(from: specs.count - 1, through: 0, by: -1) {
                let h = hash(table[i].fam, table[i].name, table[i].nameLen)
                next[i] = head[h]
                head[h] = UInt16(i)
            }
            return (head, next)
        }
        (head, next) = chains[0]
        (headAnyCase, nextAnyCase) = chains[1]

        let maps = SwiftRulesTable.maps
        let total = maps.reduce(0) { $0 + $1.count }
        mapEntries = .allocate(capacity: total)
        mapStart = .allocate(capacity: maps.count)
        mapCount = .allocate(capacity: maps.count)
        var k = 0
        for (m, entries) in maps.enumerated() {
            mapStart[m] = k
            mapCount[m] = entries.count
            for (name, index) in entries {
                let (p, n) = intern(name)
                mapEntries[k] = SFMAttrEntry(name: p, len: n, index: UInt16(index))
                k += 1
            }
        }

        let nss = SwiftRulesTable.namespaces
        namespaceCount = nss.count
        namespaces = .allocate(capacity: nss.count)
        for (i, e) in nss.enumerated() {
            let (p, n) = intern(e.0)
            namespaces[i] = SFMNamespace(uri: p, len: n, ns: e.1, fam: e.2)
        }

    }
}

extension SFMRecord {
    @inline(__always)
    mutating func setFieldAttr(_ f: Int, _ p: UInt8, _ a: UnsafePointer<XMLAttribute>?) {
        guard let a, !taken(f, p) else { return }
        setField(f, p, copy(a.pointee.value))
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
