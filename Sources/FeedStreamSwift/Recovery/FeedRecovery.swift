// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore

/// The recovery path, shared by every backend: a document that failed as XML is re-read
/// from its first byte by ``XMLRepair`` (the lenient reader) and then by the strict Swift
/// tokenizer and machine, so its items after the failure are kept (docs/SCHEMA.md,
/// "Recovered documents"). The items delivered before the failure are not delivered
/// again: the repair leaves well-formed XML as it is, so they are the recovered
/// document's first items.
///
/// One per parser, reused; its machine and tokenizer are made on first use.
package final class FeedRecovery {
    // Documents up to `window` bytes (uncompressed, 16 MiB; limits.def's
    // CFS_RESYNC_WINDOW, generated into LimitsTable.swift) are kept while they are parsed,
    // so that they can be re-read when they fail; a longer one that fails keeps the
    // items before its failure only (as with `strict`). Bounds the memory recovery takes.

    private let maxItemBytes: Int
    private let limits: FeedLimits
    private lazy var machine: SwiftFeedMachine = {
        let m = SwiftFeedMachine(maxItemBytes: maxItemBytes, limits: limits)
        m.recovering = true   // every item it delivers was read by the recovery path
        return m
    }()
    private lazy var tokenizer = SwiftXMLTokenizer(machine: machine, limits: limits)

    /// The charset the transport named for the stream being parsed (set per parse by
    /// the backend, as its tokenizer's).
    package var transportCharset: String?

    package init(maxItemBytes: Int, limits: FeedLimits) {
        self.maxItemBytes = maxItemBytes
        self.limits = limits
    }

    /// Re-reads document number `number`, which failed with `error` after `delivered`
    /// items had been delivered: delivers to `handler` (naming `parser`) every item after
    /// those, the feed-level fields, then `error` marked ``FeedError/recovered`` (or the
    /// limit the re-read passed, if it passed one). When the re-read finds no root element
    /// (the bytes are not XML at all), the error is delivered as it was, not marked.
    /// - Returns: the items the document has in all, and whether it was recovered.
    package func recover(_ document: UnsafeRawBufferPointer, number: Int, delivered: Int, error: FeedError,
                         parser: any FeedParser, handler: any FeedHandler) throws -> (items: Int, recovered: Bool) {
        let (repaired, charset) = XMLRepair.repair(document, limits: limits, transportCharset: transportCharset)
        machine.begin(document: number)
        machine.skipItems = delivered
        machine.deliver(to: handler, as: parser)
        defer { machine.stopDelivering() }
        tokenizer.begin()
        var outcome = try repaired.withUnsafeBytes { try tokenizer.parse($0, final: false) }
        if case .ok = outcome { outcome = try tokenizer.parse(UnsafeRawBufferPointer(start: nil, count: 0), final: true) }
        machine.encoding(charset)   // the document's, not the repaired copy's UTF-8
        var e = error
        if case .error(let t, _) = outcome, t.isLimit {
            // At the failure's position (the repaired copy's positions are not the input's).
            e = FeedError(code: .limitExceeded, message: t.message, document: number,
                          line: error.line, column: error.column, offset: error.offset)
            e.skipped = error.skipped
        }
        // Bytes that hold no element, only comments, processing instructions, a DOCTYPE
        // and white space (junk before the next document's declaration, say), are read
        // whole: there was nothing else to keep.
        let recovered = machine.core.pointee.rootSeen || Self.holdsOnlyMisc(document)
        e.recovered = recovered
        try machine.finish(error: e)
        return (max(machine.items, delivered), recovered)
    }

    /// True when `bytes` (ASCII-compatible, after an optional UTF-8 byte order mark) are
    /// one or more complete comments, processing instructions and DOCTYPE declarations
    /// with white space (and NULs, as between documents) around them: the XML spec's
    /// Misc, and nothing else.
    static func holdsOnlyMisc(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let s = bytes.bindMemory(to: UInt8.self)
        var i = s.count >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF ? 3 : 0
        var constructs = 0
        func find(_ from: Int, _ end: [UInt8]) -> Int? {
            var k = from
            while k + end.count <= s.count {
                if s[k] == end[0] && (1..<end.count).allSatisfy({ s[k + $0] == end[$0] }) { return k + end.count }
                k += 1
            }
            return nil
        }
        func starts(_ p: [UInt8]) -> Bool { i + p.count <= s.count && (0..<p.count).allSatisfy { s[i + $0] == p[$0] } }
        while i < s.count {
            switch s[i] {
            case 0x20, 0x09, 0x0A, 0x0D, 0x00:
                i += 1
                continue
            default:
                break
            }
            let next: Int?
            if starts(Array("<!--".utf8)) {
                next = find(i + 4, Array("-->".utf8))
            } else if starts(Array("<?".utf8)) {
                next = find(i + 2, Array("?>".utf8))
            } else if starts(Array("<!DOCTYPE".utf8)) {
                next = find(i + 9, [0x3E])
            } else {
                return false
            }
            guard let next else { return false }
            i = next
            constructs += 1
        }
        return constructs > 0
    }
}

/// The bytes of the open document, kept for the recovery path up to
/// ``InputStage/resyncWindow`` (one per parser, reused from document to document).
package struct DocumentBytes {
    package private(set) var bytes: [UInt8] = []
    /// The document passed the window: it cannot be re-read.
    package private(set) var overflowed = false

    package init() {}

    package mutating func reset() {
        if bytes.capacity > 8 << 20 { bytes = [] } else { bytes.removeAll(keepingCapacity: true) }
        overflowed = false
    }

    @inline(__always)
    package mutating func append(_ p: UnsafeRawPointer?, _ n: Int) {
        guard n > 0, !overflowed, let p else { return }
        if bytes.count + n > InputStage.resyncWindow {
            overflowed = true
            bytes = []
            return
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n))
    }

    /// Drops the last `n` bytes (bytes of the next document's start, seen first as
    /// part of the failed one).
    package mutating func removeLast(_ n: Int) {
        guard !overflowed else { return }
        bytes.removeLast(min(n, bytes.count))
    }
}
