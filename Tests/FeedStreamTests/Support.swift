// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest
import FeedStreamTestSupport

/// Paths of the repository and the shared corpus, found from this file.
enum Paths {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let corpus = repo.appendingPathComponent("corpus")
    static let sharedReal = repo.deletingLastPathComponent().appendingPathComponent("shared/corpus/real")

    static func files(in dir: URL, extensions: Set<String>? = nil) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().map { dir.appendingPathComponent($0) }.filter { url in
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir)
            return !isDir.boolValue && (extensions == nil || extensions!.contains(url.pathExtension))
        }
    }
}

/// Converts an input to JSON Lines bytes, as written, with the given source name.
func jsonLineBytes(_ input: FeedInput, source: String, parser: any FeedParser = ExpatFeedParser()) throws
    -> (bytes: [UInt8], summary: ParseSummary)
{
    let out = MemoryOutput()
    let writer = JSONLinesWriter(output: out)
    writer.source = source
    let summary = try parser.parse(input, handler: writer)
    try writer.flush()
    return (out.bytes, summary)
}

/// Converts an input to JSON Lines text with the given source name.
func jsonLines(_ input: FeedInput, source: String, parser: any FeedParser = ExpatFeedParser()) throws
    -> (text: String, summary: ParseSummary)
{
    let (bytes, summary) = try jsonLineBytes(input, source: source, parser: parser)
    return (String(decoding: bytes, as: UTF8.self), summary)
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// `input` converted to JSON Lines by `parser`, as bytes.
func convert(_ parser: any FeedParser, _ input: FeedInput) throws -> [UInt8] {
    try jsonLineBytes(input, source: "t", parser: parser).bytes
}

/// `bytes` as chunks cut at the given offsets (each a fresh allocation).
func pieces(_ bytes: [UInt8], cuts: [Int]) -> FeedInput {
    let bounds = [0] + cuts + [bytes.count]
    let feeder = PieceFeeder(zip(bounds, bounds.dropFirst()).map { Array(bytes[$0..<$1]) })
    return .chunks(FeedChunks { feeder.next() })
}

/// The first line where two outputs differ, for a failure message.
func firstDifference(_ a: [String], _ b: [String]) -> String {
    for i in 0..<max(a.count, b.count) {
        let x = i < a.count ? a[i] : "(none)"
        let y = i < b.count ? b[i] : "(none)"
        if x != y { return "line \(i + 1):\n  - \(x.prefix(400))\n  + \(y.prefix(400))" }
    }
    return "(same lines)"
}

/// The first line where two JSON Lines outputs differ, for a failure message.
func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
    func lines(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
    return firstDifference(lines(a), lines(b))
}

/// The JSON lines of `xml`, parsed, from every backend (which must agree byte for byte).
/// The bytes are compared as written, and must be UTF-8: read as a `String` first,
/// invalid bytes would become U+FFFD and hide both a difference and invalid output.
func linesFromEveryBackend(_ xml: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
    var outputs: [[UInt8]] = []
    for backend in FeedBackend.allCases {
        let out = try jsonLineBytes(.bytes(Array(xml.utf8)), source: "t", parser: backend.makeParser()).bytes
        XCTAssertNotNil(String(validating: out, as: UTF8.self), "\(backend): not UTF-8", file: file, line: line)
        outputs.append(out)
    }
    for (o, backend) in zip(outputs, FeedBackend.allCases).dropFirst() {
        XCTAssertTrue(o == outputs[0], "backends differ: \(backend) wrote\n\(String(decoding: o, as: UTF8.self))\n"
                      + "\(FeedBackend.allCases[0]) wrote\n\(String(decoding: outputs[0], as: UTF8.self))", file: file, line: line)
    }
    return try outputs[0].split(separator: 0x0A).map {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
    }
}

/// The JSON lines of `xml`, parsed: the same bytes from every backend, whole and in
/// 1-byte chunks (what a rule reads must not depend on how the input was cut).
func linesFromEveryBackendAndCut(_ xml: String, file: StaticString = #filePath, line: UInt = #line) throws
    -> [[String: Any]] {
    var outputs: [[UInt8]] = []
    for backend in FeedBackend.allCases {
        for input in [FeedInput.bytes(bytes(xml)), chunkedInput(bytes(xml), 1)] {
            outputs.append(try convert(backend.makeParser(), input))
        }
    }
    for (k, o) in outputs.enumerated() { XCTAssertEqual(o, outputs[0], "output \(k)", file: file, line: line) }
    return try outputs[0].split(separator: 0x0A).map {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any], file: file, line: line)
    }
}

extension XCTestCase {
    /// The JSON lines of `xml` from every backend (``linesFromEveryBackend(_:file:line:)``).
    func lines(_ xml: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try linesFromEveryBackend(xml, file: file, line: line)
    }
}

/// Records every event as a line of text, for comparing event streams.
final class EventLog: FeedHandler {
    var events: [String] = []
    var errors: [FeedError] = []
    func parser(_ parser: any FeedParser, didStartDocument document: Int) { events.append("start \(document)") }
    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) {
        events.append("item \(item.feed.document).\(item.index) id=\(item.id.string ?? "-") title=\(item.title.value.string ?? "-")")
    }
    func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) {
        events.append("feed \(feed.document) \(feed.format.rawValue) title=\(feed.title.value.string ?? "-") items=\(feed.itemCount)")
    }
    func parser(_ parser: any FeedParser, didFinishDocument document: Int) { events.append("finish \(document)") }
    func parser(_ parser: any FeedParser, didFail error: FeedError) {
        errors.append(error)
        events.append("fail \(error.document) \(error.code)")
    }
}

/// A minimal RSS 2.0 document with `items` items, titled `name`.
func rss(_ name: String, items: Int, declaration: Bool = true) -> String {
    var s = declaration ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : ""
    s += "<rss version=\"2.0\"><channel><title>\(name)</title><link>https://example.com/\(name)</link>"
    for i in 0..<items {
        s += "<item><title>\(name) \(i)</title><guid>\(name)-\(i)</guid><description>Text &amp; more \(i)</description></item>"
    }
    return s + "</channel></rss>\n"
}

/// The sanitizer pass of .ci/run (AddressSanitizer on a debug build, several times slower)
/// sets `FEEDSTREAM_TEST_SAMPLE=N`: the slowest loops over corpora and cut offsets then
/// take every Nth element, a different Nth for each `offset` (so that, say, each backend
/// sees its own share and together they see all). The release pass takes them all.
enum TestSample {
    static let stride = max(1, ProcessInfo.processInfo.environment["FEEDSTREAM_TEST_SAMPLE"].flatMap(Int.init) ?? 1)

    static func take<C: Collection>(_ elements: C, offset: Int = 0) -> [C.Element] {
        elements.enumerated().filter { ($0.offset + offset) % stride == 0 }.map(\.element)
    }
}

/// The real-world corpus, ../shared/corpus/real beside the repository (1,314 feeds from
/// public test suites, with SOURCES.tsv naming their licences). Tests read it in place
/// when it is there; without it they skip, and the run ends with a line naming each
/// skipped test and the folder it looked for. CI has the folder, and `.ci/run` fails
/// when a test skipped for want of it.
enum RealCorpus {
    static var isPresent: Bool { !files.isEmpty }

    static var files: [URL] { Paths.files(in: Paths.sharedReal).filter { $0.lastPathComponent != "SOURCES.tsv" } }

    /// The corpus files, or a skip that says which folder is missing.
    static func require(_ test: XCTestCase) throws -> [URL] {
        let found = files
        if found.isEmpty {
            throw test.skip("real corpus: \(Paths.sharedReal.standardizedFileURL.path) is not present "
                            + "(../shared/corpus/real beside the repository; CI has it)")
        }
        return found
    }
}

/// `data` as an input that arrives in chunks of `size` bytes (no copy per chunk).
func chunkedInput(_ data: [UInt8], _ size: Int) -> FeedInput {
    final class Cursor: @unchecked Sendable {
        let data: UnsafeMutableRawBufferPointer
        var offset = 0
        init(_ bytes: [UInt8]) {
            data = .allocate(byteCount: max(bytes.count, 1), alignment: 1)
            data.copyBytes(from: bytes)
        }
        deinit { data.deallocate() }
    }
    let cursor = Cursor(data)
    let count = data.count
    return .chunks(FeedChunks {
        guard cursor.offset < count else { return nil }
        let n = min(size, count - cursor.offset)
        defer { cursor.offset += n }
        return UnsafeRawBufferPointer(rebasing: cursor.data[cursor.offset..<(cursor.offset + n)])
    })
}

/// Runs a generator script of the repository with `--check` (or `arguments`): it fails
/// (and says what differs) when a file it writes was edited by hand or its source
/// changed without regenerating.
func assertGeneratorIsCurrent(_ script: String, arguments: [String] = ["--check"],
                              file: StaticString = #filePath, line: UInt = #line) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", Paths.repo.appendingPathComponent(script).path] + arguments
    let err = Pipe()
    p.standardError = err
    try p.run()
    let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    XCTAssertEqual(p.terminationStatus, 0, message, file: file, line: line)
}

/// Hands out chunks one by one for `FeedInput.chunks`, each in a fresh allocation freed
/// at the next call (so a parser that keeps a borrowed chunk too long reads freed memory
/// under ASan).
final class PieceFeeder: @unchecked Sendable {
    private let chunks: [[UInt8]]
    private var index = 0
    private var current: UnsafeMutableRawBufferPointer?

    init(_ chunks: [[UInt8]]) { self.chunks = chunks }
    deinit { current?.deallocate() }

    func next() -> UnsafeRawBufferPointer? {
        current?.deallocate()
        current = nil
        guard index < chunks.count else { return nil }
        let chunk = chunks[index]
        index += 1
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chunk.count), alignment: 1)
        buffer.copyBytes(from: chunk)
        current = buffer
        return UnsafeRawBufferPointer(rebasing: buffer[0..<chunk.count])
    }
}

/// Writes `data` to a temporary file and returns a descriptor open on it (the file is
/// already unlinked: it goes when the descriptor is closed).
func temporaryDescriptor(_ data: [UInt8]) throws -> Int32 {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("feedstream-\(UUID().uuidString)")
    try Data(data).write(to: url)
    let fd = open(url.path, O_RDONLY)
    unlink(url.path)
    XCTAssertGreaterThanOrEqual(fd, 0)
    return fd
}
