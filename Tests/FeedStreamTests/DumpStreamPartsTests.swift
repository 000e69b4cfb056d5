// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamBatch
@testable import FeedStreamTools
import Foundation
import XCTest

/// One dump on several threads (``DumpStreamParts``, one `.gz` dump on every core):
/// read and inflated on one thread, cut at `<?xml` declarations, parsed in
/// parts by the run's idle workers, the lines, errors and summary are those of one
/// parser going through the file, whatever the jobs and the part size — also where a
/// `<?xml` is no document start, where the gzip stream is truncated, corrupt or followed
/// by garbage, where a gzip bomb stops the stream, and where no cut comes for long (the
/// rest is then read straight out).
final class DumpStreamPartsTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("dump-parts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private static func rss(_ n: Int, items: Int = 3, declaration: Bool = true) -> String {
        var s = declaration ? "<?xml version=\"1.0\"?>\n" : ""
        s += "<rss version=\"2.0\"><channel><title>Feed \(n)</title><link>https://site\(n).example.org/</link>"
        for i in 0..<items { s += "<item><title>Post \(n).\(i)</title><link>posts/\(i).html</link></item>" }
        return s + "</channel></rss>\n"
    }

    /// A dump of `count` documents, with every fourth something that tests a cut: a
    /// broken document, a `<?xml` in CDATA, in a comment and in a processing
    /// instruction, a document left open, an Atom feed, a document without declaration.
    private static func dump(_ count: Int) -> [UInt8] {
        var s = ""
        for n in 1...count {
            switch n % 16 {
            case 3: s += "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Broken \(n)</title><item><title>x</titel></item></channel></rss>\n"
            case 7: s += "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>C \(n)</title><item><description><![CDATA[ <?xml version=\"1.0\"?><x/> ]]></description></item></channel></rss>\n"
            case 8: s += "<!-- <?xml version=\"1.0\"?> in a comment -->\n<?pi <?xml version=\"1.0\"?> ?>\n"
            case 11: s += "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Open \(n)</title><item><title>o</title></item>\n"
            case 12: s += "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>A \(n)</title><entry><title>e</title><id>urn:\(n)</id></entry></feed>\n"
            case 15: s += rss(n, declaration: false)
            default: s += rss(n, items: n % 5 + 1)
            }
        }
        return Array(s.utf8)
    }

    struct Run: Equatable {
        var text: String
        var summary: BatchSummary
        var errors: [FeedError]
    }

    private func convert(_ path: String, jobs: Int, partBytes: Int?, layout: BatchConverter.Options.Layout = .items,
                         limits: FeedLimits = .default, backend: FeedBackend = .expat) throws -> Run {
        var options = BatchConverter.Options(jobs: jobs, layout: layout, pipelineMinimumBytes: 0,
                                             makeParser: { backend.makeParser(limits: limits) })
        options.dumpPartBytes = partBytes
        options.gzipDumpPartsMinimumJobs = 2   // in parts from 2 jobs, gzip too
        let out = MemoryOutput()
        let recorder = ResultRecorder()
        let summary = try BatchConverter(options: options).run([BatchInput.file(path)], to: out, observer: recorder)
        let result = try XCTUnwrap(recorder.results.first)
        return Run(text: out.string, summary: summary, errors: result.errors)
    }

    /// Runs on 2 and 3 jobs, parts of several sizes, each the same as one parser of the
    /// whole file (one job: never in parts).
    @discardableResult
    private func assertSameInParts(_ bytes: [UInt8], name: String, partBytes: [Int] = [100, 700, 4096],
                                   limits: FeedLimits = .default, backend: FeedBackend = .expat,
                                   file: StaticString = #filePath, line: UInt = #line) throws -> Run {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reference = try convert(path, jobs: 1, partBytes: 100, limits: limits, backend: backend)
        XCTAssertEqual(reference, try convert(path, jobs: 2, partBytes: nil, limits: limits, backend: backend), "\(name): no parts",
                       file: file, line: line)
        for jobs in [2, 3] {
            for size in partBytes {
                let run = try convert(path, jobs: jobs, partBytes: size, limits: limits, backend: backend)
                let label = "\(name) \(backend) -j \(jobs), parts of \(size)"
                if run.text != reference.text {
                    let a = run.text.split(separator: "\n"), b = reference.text.split(separator: "\n")
                    let k = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                    XCTFail("\(label): line \(k + 1) differs:\n  parts: \(k < a.count ? a[k] : "(none)")\n"
                            + "  whole: \(k < b.count ? b[k] : "(none)")", file: file, line: line)
                }
                XCTAssertEqual(run.summary, reference.summary, label, file: file, line: line)
                XCTAssertEqual(run.errors, reference.errors, label, file: file, line: line)
            }
        }
        let documents = try convert(path, jobs: 1, partBytes: nil, layout: .documents, limits: limits, backend: backend)
        XCTAssertEqual(try convert(path, jobs: 2, partBytes: 300, layout: .documents, limits: limits, backend: backend), documents,
                       "\(name): a line per document", file: file, line: line)
        return reference
    }

    // MARK: Tests

    func testAGzipDumpInPartsIsTheWholeDump() throws {
        let bytes = Self.dump(120)
        let run = try assertSameInParts(gzip(bytes), name: "dump.xml.gz")
        // Its own figures: 120 entries, each a document (the comment and PI that begin
        // the stream's 8th, 24th, ... are no Misc after a document that ended well: they
        // fail as one); a line per item of the last.
        XCTAssertEqual(run.summary.documents, 120)
        XCTAssertEqual(run.errors.count, run.summary.failedDocuments + run.summary.recoveredDocuments)
        XCTAssertTrue(run.text.contains("\"title\":\"Post 118.3\""))
        // Two gzip members, padding between them: one stream.
        let half = bytes.count / 2
        try assertSameInParts(gzip(Array(bytes[..<half])) + [0, 0, 0] + gzip(Array(bytes[half...])), name: "two.xml.gz")
    }

    func testAPlainDumpInPartsIsTheWholeDump() throws {
        let run = try assertSameInParts(Self.dump(120), name: "dump.xml")
        XCTAssertEqual(run.summary.documents, 120)
        // Past the first ratio checkpoints (256 KiB), which a plain stream has none of.
        let big = Self.dump(2600)
        XCTAssertGreaterThan(big.count, 2 * InputStage.chunkSize)
        XCTAssertEqual(try assertSameInParts(big, name: "big.xml", partBytes: [4096, 100_000]).summary.documents, 2600)
        try assertSameInParts(gzip(big), name: "big.xml.gz", partBytes: [4096, 100_000])
    }

    func testAGzipDumpThatEndsBadlyEndsTheSameWayInParts() throws {
        let gz = gzip(Self.dump(120))
        var corrupt = gz
        for i in stride(from: gz.count / 2, to: gz.count / 2 + 64, by: 3) { corrupt[i] ^= 0x5A }
        for backend in FeedBackend.allCases {
            let truncated = try assertSameInParts(Array(gz.dropLast(gz.count / 3)), name: "truncated.xml.gz",
                                                  partBytes: [100, 4096], backend: backend)
            XCTAssertEqual(truncated.errors.last?.message, "truncated gzip data", "\(backend)")
            // Corrupt inside a declaration that failed before the data did (its report
            // waits for the recovery path): the gzip error is one of its own, as the
            // C core says when it inflates, whichever thread inflates.
            let broken = try assertSameInParts(corrupt, name: "corrupt.xml.gz", partBytes: [100, 4096], backend: backend)
            XCTAssertEqual(broken.errors.last.map { "\($0.document) \($0.message)" }, "0 corrupt gzip data", "\(backend)")
            let garbage = try assertSameInParts(gz + Array("trailing".utf8), name: "garbage.xml.gz",
                                                partBytes: [100, 4096], backend: backend)
            XCTAssertTrue(garbage.errors.contains { $0.message.contains("trailing garbage") }, "\(garbage.errors)")
            XCTAssertEqual(garbage.summary.documents, 120)
        }
    }

    func testADumpWithoutCutsIsReadStraightOutPastTheHeldBytes() throws {
        // 300 documents without declarations, then some with: no cut for far more than
        // 2 parts' worth, so the rest of the stream is parsed as it is read.
        var s = ""
        for n in 1...300 { s += Self.rss(n, declaration: false) }
        let bytes = Array(s.utf8) + Self.dump(40)
        let run = try assertSameInParts(gzip(bytes), name: "undeclared.xml.gz", partBytes: [100, 4096])
        XCTAssertEqual(run.summary.documents, 300 + 40)
        try assertSameInParts(bytes, name: "undeclared.xml", partBytes: [100])
    }

    /// A document with a `<?xml` in the CDATA of each of its 60 items: 60 cuts in a row
    /// that do not hold, so one part joined with more parts than the reader holds ahead.
    /// The reader waited for the join to end, the join for the reader's next part: the
    /// run never ended (`convert -j 2` on such a file, with 0 CPU). Then ordinary
    /// documents, cut again.
    func testCutsThatDoNotHoldForMorePartsThanTheWindowDoNotStopTheRun() throws {
        var s = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Long</title>\n"
        for i in 0..<60 {
            s += "<item><title>L\(i)</title><description><![CDATA[<?xml version=\"1.0\"?><p>\(i)</p> "
                + String(repeating: "text ", count: 30) + "]]></description></item>\n"
        }
        s += "</channel></rss>\n"
        let bytes = Array(s.utf8) + Self.dump(30)
        for backend in FeedBackend.allCases {
            let run = try assertSameInParts(bytes, name: "cdata.xml", partBytes: [100, 700], backend: backend)
            XCTAssertEqual(run.summary.documents, 1 + 30, "\(backend)")
            XCTAssertTrue(run.text.contains(#""title":"L59","#), "\(backend)")
            XCTAssertTrue(run.text.contains(#""title":"Post 30.0""#) || run.text.contains(#""title":"Post 29.0""#),
                          "\(backend)")
            try assertSameInParts(gzip(bytes), name: "cdata.xml.gz", partBytes: [100], backend: backend)
        }
    }

    func testCancellingADumpInPartsStopsItWithWholeLines() throws {
        let path = folder.appendingPathComponent("big.xml.gz").path
        let bytes = Self.dump(3000)
        try Data(gzip(bytes)).write(to: URL(fileURLWithPath: path))
        var options = BatchConverter.Options(jobs: 2, pipelineMinimumBytes: 0)
        options.dumpPartBytes = 2000
        options.gzipDumpPartsMinimumJobs = 2
        let converter = BatchConverter(options: options)
        let out = WatchedOutput { converter.cancel() }   // at the first lines out
        let summary = try converter.run([BatchInput.file(path)], to: out)
        XCTAssertTrue(summary.interrupted)
        let text = String(decoding: out.bytes, as: UTF8.self)
        XCTAssertTrue(text.isEmpty || text.hasSuffix("\n"))
        XCTAssertLessThan(text.split(separator: "\n").count, 3000, "stopped early")
        for line in text.split(separator: "\n") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)))
        }
        // The converter runs again, to the end.
        XCTAssertFalse(try converter.run([BatchInput.file(path)], to: MemoryOutput()).interrupted)

        // Stopped while a run of cuts that do not hold is read straight out (the reader
        // fills the rest's queue, the parser stops taking from it): the run ends.
        var s = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Long</title>\n"
        for i in 0..<3000 {
            s += "<item><title>L\(i)</title><description><![CDATA[<?xml version=\"1.0\"?> "
                + String(repeating: "text ", count: 40) + "]]></description></item>\n"
        }
        let long = folder.appendingPathComponent("long.xml").path
        try Data((s + "</channel></rss>\n").utf8).write(to: URL(fileURLWithPath: long))
        let again = BatchConverter(options: options)
        let watched = WatchedOutput { again.cancel() }
        XCTAssertTrue(try again.run([BatchInput.file(long)], to: watched).interrupted)
        XCTAssertLessThan(String(decoding: watched.bytes, as: UTF8.self).split(separator: "\n").count, 3000)
    }

    func testAGzipBombStopsThePartsWhereItStopsOneParser() throws {
        // The ratio is checked past 16 MiB of a document: a bomb in the middle.
        var xml = Self.dump(30)
        xml += Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>bomb</title>".utf8)
        let filler = [UInt8](repeating: 0x20, count: 10_000)
        for i in 0..<1_800 { xml += Array("<item><title>b</title><guid>\(i)</guid></item>".utf8) + filler }
        xml += Array("</channel></rss>\n".utf8) + Self.dump(30)
        var limits = FeedLimits()
        limits.maxRatio = 50
        let run = try assertSameInParts(gzip(xml), name: "bomb.xml.gz", partBytes: [100, 1 << 20], limits: limits)
        XCTAssertEqual(run.errors.last?.message, "limit exceeded: decompression ratio > 50")
        XCTAssertEqual(run.summary.documents, 30 + 1, "nothing after the bomb")

        // The bomb with a `<?xml` in each item's CDATA: its cuts do not hold, its parts
        // are joined until the rest is read straight out (``PartsRest``), where the
        // ratio stops it.
        xml = Self.dump(30)
        xml += Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>bomb</title>".utf8)
        for i in 0..<1_800 {
            xml += Array("<item><title>b</title><description><![CDATA[<?xml version=\"1.0\"?>]]></description><guid>\(i)</guid></item>".utf8)
                + filler
        }
        xml += Array("</channel></rss>\n".utf8) + Self.dump(30)
        let cdata = try assertSameInParts(gzip(xml), name: "cdata-bomb.xml.gz", partBytes: [100, 1 << 20], limits: limits)
        XCTAssertEqual(cdata.errors.last?.message, "limit exceeded: decompression ratio > 50")
        XCTAssertEqual(cdata.summary.documents, 30 + 1, "nothing after the bomb")
    }
}

/// Keeps what is written, and calls `didWrite` after each write.
private final class WatchedOutput: ByteOutput, @unchecked Sendable {
    private(set) var bytes: [UInt8] = []
    let didWrite: () -> Void
    init(_ didWrite: @escaping () -> Void) { self.didWrite = didWrite }
    func write(_ data: UnsafeRawBufferPointer) throws {
        bytes += data
        didWrite()
    }
}

/// Records each input's result (calls are serialized by the converter).
private final class ResultRecorder: BatchObserver, @unchecked Sendable {
    private(set) var results: [BatchInputResult] = []
    func didFinishInput(_ result: BatchInputResult) { results.append(result) }
}
