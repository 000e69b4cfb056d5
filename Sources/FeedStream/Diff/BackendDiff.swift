/// The interchangeability check: converts inputs with several backends and reports
/// every record that differs, member by member.
///
/// The rule it enforces (docs/SCHEMA.md, "Backends"): on a well-formed document every
/// line is byte-identical; on a document some backend rejects, every backend must
/// reject it too, and they must agree on every item completed before the first error
/// (the error's wording and position are the tokenizer's own and may differ).
public struct BackendDiff {
    /// One difference between two backends.
    public struct Difference: Sendable, Equatable, CustomStringConvertible {
        /// The input, as named in the output's `source`.
        public var source: String
        /// 1-based index of the document in the input.
        public var document: Int
        /// "item 3", "feed", or "documents" for a stream-level mismatch.
        public var record: String
        /// The member that differs ("" when a whole record is missing on one side).
        public var member: String
        /// The member's value with the first backend (the whole line when missing on
        /// the other side).
        public var first: String
        /// The member's value with the second backend.
        public var second: String

        /// The difference as a small unified diff: where, then `-` first, `+` second.
        public var description: String {
            let m = member.isEmpty ? "" : " \(member)"
            return "\(source): document \(document), \(record)\(m):\n  - \(first)\n  + \(second)"
        }
    }

    /// Counts and differences of a run.
    public struct Report: Sendable {
        /// Inputs compared.
        public var inputs = 0
        /// Documents compared.
        public var documents = 0
        /// Records (item and feed lines) compared.
        public var records = 0
        /// Documents rejected by the backends (compared up to their first error).
        public var rejectedDocuments = 0
        /// Every difference found, in input order.
        public var differences: [Difference] = []
        /// An empty report.
        public init() {}
    }

    /// The backends compared, the first being the reference.
    public let backends: [FeedBackend]
    private let parsers: [any FeedParser]

    /// A comparison of `backends`, each with a parser of its own.
    ///
    /// - Parameters:
    ///   - backends: two or more backends; the first is the reference.
    ///   - limits: the limits every backend parses with (``FeedLimits``).
    public init(backends: [FeedBackend], limits: FeedLimits = .default) {
        precondition(backends.count >= 2, "compare at least two backends")
        self.backends = backends
        parsers = backends.map { $0.makeParser(limits: limits) }
    }

    /// Compares the backends on one input and adds to `report`.
    public func compare(_ input: FeedInput, source: String, into report: inout Report) throws {
        let outputs = try parsers.map { parser -> [Document] in
            let out = MemoryOutput()
            let writer = JSONLinesWriter(output: out)
            writer.source = source
            try parser.parse(input, handler: writer)
            try writer.flush()
            return Document.split(out.bytes)
        }
        report.inputs += 1
        let reference = outputs[0]
        report.documents += reference.count
        for (k, other) in outputs.enumerated().dropFirst() {
            let a = backends[0].rawValue, b = backends[k].rawValue
            if reference.count != other.count {
                report.differences.append(Difference(
                    source: source, document: 0, record: "documents", member: "",
                    first: "\(a): \(reference.count) documents", second: "\(b): \(other.count) documents"))
            }
            for (d1, d2) in zip(reference, other) {
                compare(d1, d2, a, b, source, &report)
            }
        }
    }

    private func compare(_ d1: Document, _ d2: Document, _ a: String, _ b: String, _ source: String,
                         _ report: inout Report) {
        let failed1 = d1.failed, failed2 = d2.failed
        func differ(_ record: String, _ member: String, _ x: String, _ y: String) {
            report.differences.append(Difference(source: source, document: d1.number, record: record,
                                                 member: member, first: "\(a): \(x)", second: "\(b): \(y)"))
        }
        if failed1 || failed2 {
            report.rejectedDocuments += 1
            if failed1 != failed2 {
                differ("feed", "error", failed1 ? "rejected" : "accepted", failed2 ? "rejected" : "accepted")
            }
            // Items completed before the first error must agree.
            let n = min(d1.items.count, d2.items.count)
            for i in 0..<n { compareLines(d1.items[i], d2.items[i], "item \(i)", differ) }
            report.records += n
            return
        }
        if d1.items.count != d2.items.count {
            differ("feed", "items", "\(d1.items.count)", "\(d2.items.count)")
        }
        for i in 0..<min(d1.items.count, d2.items.count) { compareLines(d1.items[i], d2.items[i], "item \(i)", differ) }
        compareLines(d1.feed, d2.feed, "feed", differ)
        report.records += d1.items.count + 1
    }

    private func compareLines(_ x: [UInt8], _ y: [UInt8], _ record: String,
                              _ differ: (String, String, String, String) -> Void) {
        guard x != y else { return }
        let mx = JSONMembers.parse(x), my = JSONMembers.parse(y)
        let keys = mx.map(\.key) + my.map(\.key).filter { k in !mx.contains { $0.key == k } }
        for key in keys {
            let vx = mx.first { $0.key == key }?.value, vy = my.first { $0.key == key }?.value
            if vx != vy { differ(record, key, vx ?? "(absent)", vy ?? "(absent)") }
        }
    }

    /// One document's lines.
    struct Document {
        var number: Int
        var items: [[UInt8]] = []
        var feed: [UInt8] = []
        var failed: Bool { feed.isEmpty || JSONMembers.parse(feed).contains { $0.key == "error" } }

        /// Splits JSON Lines into documents: item lines, then the feed line.
        static func split(_ bytes: [UInt8]) -> [Document] {
            var docs: [Document] = []
            var current = Document(number: 1)
            for line in bytes.split(separator: 0x0A) {
                let l = Array(line)
                if l.starts(with: Array(#"{"schema":1,"kind":"feed""#.utf8)) {
                    current.feed = l
                    current.number = docs.count + 1
                    docs.append(current)
                    current = Document(number: docs.count + 1)
                } else {
                    current.items.append(l)
                }
            }
            if !current.items.isEmpty { docs.append(current) }
            return docs
        }
    }
}

/// The top-level members of a JSON object line, as (key, raw JSON value) pairs.
enum JSONMembers {
    static func parse(_ line: [UInt8]) -> [(key: String, value: String)] {
        var out: [(String, String)] = []
        var i = 1   // after "{"
        let n = line.count
        func skipString() {
            i += 1
            while i < n && line[i] != 0x22 { i += line[i] == 0x5C ? 2 : 1 }
            i += 1
        }
        while i < n {
            guard line[i] == 0x22 else { i += 1; continue }
            let ks = i
            skipString()
            let key = String(decoding: line[(ks + 1)..<(i - 1)], as: UTF8.self)
            i += 1   // ":"
            let vs = i
            var depth = 0
            while i < n {
                let c = line[i]
                if c == 0x22 { skipString(); continue }
                if c == 0x7B || c == 0x5B { depth += 1 } else if c == 0x7D || c == 0x5D {
                    if depth == 0 { break }
                    depth -= 1
                } else if c == 0x2C && depth == 0 { break }
                i += 1
            }
            out.append((key, String(decoding: line[vs..<min(i, n)], as: UTF8.self)))
            i += 1
        }
        return out
    }
}
