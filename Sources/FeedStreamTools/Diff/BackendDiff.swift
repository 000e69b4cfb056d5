// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The interchangeability check: converts inputs with several backends and reports
/// every record that differs, member by member.
///
/// The rule it enforces (docs/SCHEMA.md, "Backends"): every line is byte-identical, a
/// rejected document's too (its items, and its feed line with the error's code,
/// message, position and skipped bytes).
///
/// Lines and members are compared as bytes: two canonically equivalent strings in
/// different forms (a precomposed character and its decomposition) differ.
///
/// ``compare(_:into:)-(BatchInput,_)`` reads an input exactly as `feedstream convert` does
/// (a ``BatchConverter``: the same reading stage, chunking, threads and writer), which is
/// what `feedstream diff` runs; ``compare(_:source:into:)`` parses a ``FeedInput`` with
/// each backend's ``FeedParser`` directly.
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
        /// Documents compared (those the first backend found).
        public var documents = 0
        /// Records (item and feed lines) of the first backend compared with every other
        /// backend's: each counted once, however many backends.
        public var records = 0
        /// Documents rejected by one backend or more.
        public var rejectedDocuments = 0
        /// Every difference found, in input order.
        public var differences: [Difference] = []
        /// An empty report.
        public init() {}
    }

    /// The backends compared, the first being the reference.
    public let backends: [FeedBackend]
    private let parsers: [any FeedParser]
    private let limits: FeedLimits
    private let jobs: Int
    private let inflater: GzipInflater

    /// A comparison of `backends`, each with a parser of its own.
    ///
    /// - Parameters:
    ///   - backends: two or more backends; the first is the reference.
    ///   - limits: the limits every backend parses with (``FeedLimits``).
    ///   - jobs: the worker threads of the ``BatchConverter`` that reads a ``BatchInput``
    ///     (as `convert -j`; more than one reads standard input on a second thread).
    ///   - inflater: what inflates gzip (`diff --inflate`).
    package init(backends: [FeedBackend], limits: FeedLimits = .default, jobs: Int = 1,
                 inflater: GzipInflater = .default) {
        precondition(backends.count >= 2, "compare at least two backends")
        precondition(jobs >= 1, "at least one job")
        self.backends = backends
        self.limits = limits
        self.jobs = jobs
        self.inflater = inflater
        parsers = backends.map {
            let parser = $0.makeParser(limits: limits)
            (parser as? InflaterChoosing)?.inflater = inflater
            return parser
        }
    }

    /// Compares the backends on one input, parsed with each backend's parser, and adds
    /// to `report`.
    public func compare(_ input: FeedInput, source: String, into report: inout Report) throws {
        let outputs = try parsers.map { parser -> [UInt8] in
            let out = MemoryOutput()
            let writer = JSONLinesWriter(output: out)
            writer.source = source
            try parser.parse(input, handler: writer)
            try writer.flush()
            return out.bytes
        }
        compare(outputs: outputs, source: source, into: &report)
    }

    /// Compares the backends on one input read as `feedstream convert` reads it, and
    /// adds to `report`: each backend converts it with a ``BatchConverter`` of its own.
    /// Standard input is read once, into an unlinked temporary file that each backend
    /// then reads as its standard input.
    ///
    /// - Throws: ``CopyError`` when standard input cannot be copied.
    public func compare(_ input: BatchInput, into report: inout Report) throws {
        var copy: Int32 = -1
        if input == .standardInput { copy = try Self.copyStandardInput() }
        defer { if copy >= 0 { close(copy) } }
        let outputs = try backends.map { backend -> [UInt8] in
            let limits = self.limits
            var options = BatchConverter.Options(jobs: jobs, makeParser: { backend.makeParser(limits: limits) })
            options.inflater = inflater
            if copy >= 0 {
                lseek(copy, 0, SEEK_SET)
                options.standardInputDescriptor = copy
            }
            let out = MemoryOutput()
            _ = try BatchConverter(options: options).run([input], to: out)
            return out.bytes
        }
        compare(outputs: outputs, source: input.name, into: &report)
    }

    /// Standard input could not be copied for the backends to read.
    public struct CopyError: Error, Sendable, CustomStringConvertible {
        /// The `errno` of the failed call.
        public var errno: Int32
        /// What failed ("read standard input", ...).
        public var operation: String
        /// "cannot ", the operation, and the system's message.
        public var description: String { "cannot \(operation): " + String(cString: strerror(errno)) }
    }

    /// Standard input, copied to an unlinked temporary file (its descriptor).
    private static func copyStandardInput() throws -> Int32 {
        let dir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((dir + "/feedstream-diff-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CopyError(errno: errno, operation: "create a temporary file in \(dir)") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buf.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                let e = errno
                close(fd)
                throw CopyError(errno: e, operation: "read standard input")
            }
            if n == 0 { return fd }
            var off = 0
            while off < n {
                let w = buf.withUnsafeBytes { write(fd, $0.baseAddress! + off, n - off) }
                if w < 0 && errno == EINTR { continue }
                if w <= 0 {
                    let e = errno
                    close(fd)
                    throw CopyError(errno: e, operation: "write a temporary file in \(dir)")
                }
                off += w
            }
        }
    }

    /// Compares the JSON Lines each backend wrote for one input, and adds to `report`.
    private func compare(outputs: [[UInt8]], source: String, into report: inout Report) {
        let outputs = outputs.map(Document.split)
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
        // Counted once per document of the reference, however many backends.
        for (i, d) in reference.enumerated() {
            let others = outputs.dropFirst().compactMap { i < $0.count ? $0[i] : nil }
            if d.failed || others.contains(where: \.failed) { report.rejectedDocuments += 1 }
            report.records += d.items.count + 1
        }
    }

    private func compare(_ d1: Document, _ d2: Document, _ a: String, _ b: String, _ source: String,
                         _ report: inout Report) {
        let failed1 = d1.failed, failed2 = d2.failed
        func differ(_ record: String, _ member: String, _ x: String, _ y: String) {
            report.differences.append(Difference(source: source, document: d1.number, record: record,
                                                 member: member, first: "\(a): \(x)", second: "\(b): \(y)"))
        }
        if failed1 != failed2 {
            differ("feed", "error", failed1 ? "rejected" : "accepted", failed2 ? "rejected" : "accepted")
        }
        if d1.items.count != d2.items.count {
            differ("feed", "items", "\(d1.items.count)", "\(d2.items.count)")
        }
        for i in 0..<min(d1.items.count, d2.items.count) { Self.compareLines(d1.items[i], d2.items[i], "item \(i)", differ) }
        Self.compareLines(d1.feed, d2.feed, "feed", differ)
    }

    /// Reports each member whose bytes differ (never `String` equality, which holds
    /// for canonically equivalent text in different bytes); a line that differs with no
    /// member found to differ is reported whole.
    static func compareLines(_ x: [UInt8], _ y: [UInt8], _ record: String,
                             _ differ: (String, String, String, String) -> Void) {
        guard x != y else { return }
        let mx = JSONMembers.parse(x), my = JSONMembers.parse(y)
        let keys = mx.map(\.key) + my.map(\.key).filter { k in !mx.contains { $0.key == k } }
        var found = false
        for key in keys {
            let vx = mx.first { $0.key == key }?.value, vy = my.first { $0.key == key }?.value
            if vx != vy {
                found = true
                differ(record, key, vx.map(Self.display) ?? "(absent)", vy.map(Self.display) ?? "(absent)")
            }
        }
        if !found { differ(record, "", Self.display(x), Self.display(y)) }
    }

    /// Bytes as text for a report: UTF-8, with the bytes in hex when the text would hide
    /// how they differ (non-ASCII, whose forms may look alike).
    private static func display(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard bytes.contains(where: { $0 >= 0x80 }), bytes.count <= 256 else { return text }
        let hex = bytes.map { b in String(b, radix: 16, uppercase: true) }.map { $0.count < 2 ? "0" + $0 : $0 }
        return text + " [" + hex.joined(separator: " ") + "]"
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

/// The top-level members of a JSON object line, as (key, raw JSON value bytes) pairs.
enum JSONMembers {
    static func parse(_ line: [UInt8]) -> [(key: String, value: [UInt8])] {
        var out: [(String, [UInt8])] = []
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
            out.append((key, Array(line[vs..<min(i, n)])))
            i += 1
        }
        return out
    }
}

@available(*, unavailable, message: "it holds a parser per backend: make one per task")
extension BackendDiff: Sendable {}
