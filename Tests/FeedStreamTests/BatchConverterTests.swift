// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation
import XCTest

/// The parallel converter: its output is the sequential output whatever the number of
/// jobs, buffering budget or pipelining; results arrive in order; errors are reported
/// and the run goes on; cancelling and output failures stop it.
final class BatchConverterTests: XCTestCase {
    private var folder: URL!
    private var inputs: [BatchInput] = []

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Fixtures good and bad, every third one gzipped, a dump of 60 documents
        // (gzipped: pipelined with a low threshold) and a file that does not exist.
        var files: [URL] = []
        for dir in ["feeds", "bad"] { files += Paths.files(in: Paths.corpus.appendingPathComponent(dir)) }
        var names: [String] = []
        for (i, f) in files.enumerated() {
            let data = try [UInt8](Data(contentsOf: f))
            let name = String(format: "%02d-%@", i, f.lastPathComponent)
            try Data(i % 3 == 0 ? gzip(data) : data).write(to: folder.appendingPathComponent(name))
            names.append(name)
        }
        var big: [UInt8] = []
        for i in 0..<60 { big += bytes(rss("big\(i)", items: 5)) }
        try Data(gzip(big)).write(to: folder.appendingPathComponent("50-big.xml.gz"))
        try Data(big).write(to: folder.appendingPathComponent("51-big.xml"))
        names += ["50-big.xml.gz", "51-big.xml"]
        inputs = names.map { .file(folder.appendingPathComponent($0).path) }
        inputs.insert(.file(folder.appendingPathComponent("missing.xml").path), at: 5)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// One writer, one input after the other: what every run must reproduce.
    private func sequential(_ layout: BatchConverter.Options.Layout = .items) throws -> String {
        let out = MemoryOutput()
        let parser = ExpatFeedParser()
        switch layout {
        case .items:
            let writer = JSONLinesWriter(output: out)
            for input in inputs {
                writer.source = input.name
                try parser.parse(.file(path: input.name), handler: writer)
            }
            try writer.flush()
        case .documents:
            let writer = DocumentLinesWriter(output: out)
            for input in inputs {
                writer.source = input.name
                try parser.parse(.file(path: input.name), handler: writer)
            }
            try writer.flush()
        }
        return out.string
    }

    private func convert(_ options: BatchConverter.Options, observer: (any BatchObserver)? = nil) throws
        -> (text: String, summary: BatchSummary)
    {
        let out = MemoryOutput()
        let summary = try BatchConverter(options: options).run(inputs, to: out, observer: observer)
        return (out.string, summary)
    }

    /// The default backend is the pure-Swift parser, written once
    /// (`FeedBackend.default`): the converter's options use it when given no parser.
    func testTheDefaultBackendIsTheSwiftParser() {
        XCTAssertEqual(FeedBackend.default, .swift)
        XCTAssertTrue(BatchConverter.Options().makeParser() is SwiftFeedParser)
    }

    func testOrderedOutputIsTheSequentialOutputForAnyJobsBudgetAndPipeline() throws {
        let expected = try sequential()
        for jobs in [1, 2, 5] {
            // Small blocks: inputs ahead of the head hold several, and the head's
            // worker finds some held when it takes over.
            for (budget, block) in [(0, 1 << 10), (20 << 10, 1 << 10), (32 << 20, 1 << 10), (32 << 20, 256 << 10)] {
                let options = BatchConverter.Options(jobs: jobs, pipelineMinimumBytes: 500, maxBufferedBytes: budget,
                                                     blockBytes: block)
                XCTAssertEqual(try convert(options).text, expected, "jobs \(jobs), budget \(budget), block \(block)")
            }
            var noPipeline = BatchConverter.Options(jobs: jobs)
            noPipeline.pipeline = false
            XCTAssertEqual(try convert(noPipeline).text, expected, "jobs \(jobs), no pipeline")
        }
    }

    func testUnorderedOutputHasTheSameLinesAndKeepsEachInputsOrder() throws {
        let expected = try sequential().split(separator: "\n")
        let got = try convert(.init(jobs: 4, ordered: false, blockBytes: 1 << 10)).text.split(separator: "\n")
        XCTAssertEqual(got.sorted(), expected.sorted())
        func bySource(_ lines: [Substring]) -> [Substring: [Substring]] {
            Dictionary(grouping: lines) { $0.split(separator: ",", maxSplits: 3)[2] }   // "source":"…"
        }
        XCTAssertEqual(bySource(got), bySource(expected))
    }

    func testDocumentLayoutIsTheSequentialDocumentOutput() throws {
        let expected = try sequential(.documents)
        XCTAssertEqual(try convert(.init(jobs: 3, layout: .documents, maxBufferedBytes: 1000, blockBytes: 1000)).text,
                       expected)
    }

    func testResultsComeInInputOrderWithTheirErrorsAndTotalsAddUp() throws {
        let recorder = Recorder()
        let (_, summary) = try convert(.init(jobs: 4, maxBufferedBytes: 0), observer: recorder)
        let results = recorder.results
        XCTAssertEqual(results.map(\.index), Array(inputs.indices))
        XCTAssertEqual(results.map(\.input), inputs)
        XCTAssertEqual(summary.inputs, inputs.count)
        XCTAssertEqual(summary.items, results.reduce(0) { $0 + $1.summary.items })
        XCTAssertEqual(summary.bytesOut, results.reduce(0) { $0 + $1.bytesOut })
        XCTAssertFalse(summary.interrupted)

        let missing = results[5]
        XCTAssertFalse(missing.succeeded)
        XCTAssertEqual(missing.errors.map(\.code), [.io])
        let mismatched = try XCTUnwrap(results.first { $0.input.name.hasSuffix("mismatched.xml") })
        XCTAssertEqual(mismatched.errors.first?.description, "document 1, line 22, column 68: mismatched tag (recovered)")
        XCTAssertEqual(mismatched.summary.items, 3)   // 2 before the error, 1 after (recovered)
        XCTAssertEqual(mismatched.summary.recoveredDocuments, 1)
        let empty = try XCTUnwrap(results.first { $0.input.name.hasSuffix("empty.xml") })
        XCTAssertEqual(empty.errors.map(\.code), [.empty])
        // 4 broken fixtures and the missing file had errors; 2 of the fixtures were
        // recovered, so the missing file, the empty one and not-xml.txt lost something.
        XCTAssertEqual(results.filter { !$0.succeeded }.count, 5)
        XCTAssertEqual(summary.failedInputs, 3)
        XCTAssertEqual(summary.recoveredInputs, 2)
        XCTAssertEqual(results.filter { !$0.convertedWhole }.map { ($0.input.name as NSString).lastPathComponent },
                       ["missing.xml", "26-empty.xml", "28-not-xml.txt"])
    }

    func testCancellingStopsTheRunWithWholeLines() throws {
        let converter = BatchConverter(options: .init(jobs: 2, maxBufferedBytes: 0))
        let out = MemoryOutput()
        let stopper = Recorder { _ in converter.cancel() }
        let summary = try converter.run(inputs, to: out, observer: stopper)
        XCTAssertTrue(summary.interrupted)
        XCTAssertLessThan(summary.inputs, inputs.count)
        XCTAssertTrue(out.bytes.isEmpty || out.bytes.last == 0x0A)
        for line in out.string.split(separator: "\n") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)))
        }
        // A converter can run again after a cancelled run.
        XCTAssertFalse(try converter.run(inputs.prefix(2), to: MemoryOutput()).interrupted)
    }

    /// A signal can come while the CLI is still setting up, before `run` starts: that
    /// cancel stops the run at its start (it was cleared by the run's start, and the run
    /// then waited on a silent pipe until the CLI's grace period killed it, without its
    /// `--stats`).
    func testACancelBeforeTheRunStopsItAtItsStart() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let writer = fds[1]
        Thread {   // so that a lost cancel fails the test instead of hanging it
            sleep(5)
            close(writer)
        }.start()
        let converter = BatchConverter(options: .init(jobs: 1))
        converter.cancel()
        let out = MemoryOutput()
        let summary = try converter.run([BatchInput.file("/dev/fd/\(fds[0])")] + inputs, to: out)
        XCTAssertTrue(summary.interrupted)
        XCTAssertEqual(summary.inputs, 0)
        XCTAssertEqual(out.string, "")
        // The cancel is spent: the next run converts.
        XCTAssertFalse(try converter.run(inputs.prefix(2), to: MemoryOutput()).interrupted)
        close(fds[0])
    }

    func testAnOutputErrorStopsTheRunAndIsThrown() throws {
        for ordered in [true, false] {
            XCTAssertThrowsError(try BatchConverter(options: .init(jobs: 3, ordered: ordered))
                .run(inputs, to: FailingOutput(after: 5000))) { error in
                XCTAssertEqual((error as? OutputError)?.errno, ENOSPC, "\(error)")
            }
        }
    }

    func testStandardInputIsAnInputLikeAFile() throws {
        // A pipe as a file input: read with cancellable reads, through the pipeline.
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let doc = gzip(bytes(rss("piped", items: 4)))
        let writer = fds[1]
        Thread {   // a thread of its own: Dispatch's pool may be busy with blocked readers
            _ = doc.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            close(writer)
        }.start()
        let out = MemoryOutput()
        let summary = try BatchConverter(options: .init(jobs: 2))
            .run([BatchInput.file("/dev/fd/\(fds[0])")], to: out)
        close(fds[0])
        XCTAssertEqual(summary.items, 4)
        XCTAssertEqual(summary.bytesIn, UInt64(doc.count))
        XCTAssertEqual(out.string.split(separator: "\n").count, 5)
    }
}

/// Records results; optionally acts on each.
private final class Recorder: BatchObserver, @unchecked Sendable {   // calls are serialized
    private(set) var results: [BatchInputResult] = []
    private let action: (@Sendable (BatchInputResult) -> Void)?

    init(_ action: (@Sendable (BatchInputResult) -> Void)? = nil) { self.action = action }

    func didFinishInput(_ result: BatchInputResult) {
        results.append(result)
        action?(result)
    }
}

/// Fails like a full disk after `after` bytes.
private final class FailingOutput: ByteOutput {
    private var left: Int
    init(after: Int) { left = after }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        left -= bytes.count
        if left < 0 { throw OutputError(errno: ENOSPC) }
    }
}
