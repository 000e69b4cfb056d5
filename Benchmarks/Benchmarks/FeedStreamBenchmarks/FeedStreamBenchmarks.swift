// SPDX-License-Identifier: Apache-2.0
// FeedStream's benchmark suite. Run from Benchmarks/:
//
//     swift package --allow-writing-to-directory .benchmarkBaselines benchmark
//
// Inputs: the standard generated dump (FEEDSTREAM_DUMP, default
// /tmp/feedstream-dump.xml.gz, with its plain twin beside it without ".gz"), made by
// `python3 corpus/generate.py dump --size-mb 500 --seed 42 -o /tmp/feedstream-dump.xml.gz`
// (Benchmarks/results.sh makes it when missing), and the real-feed corpus
// (FEEDSTREAM_REAL_CORPUS, default ../shared/corpus/real beside the repository). A
// benchmark whose input is missing is skipped, with a note on standard error.
//
// Metrics: wall clock, throughput (iterations/s) and the malloc count of the
// ordo-one/benchmark malloc interposer, plus custom metrics in readable units:
// "MB/s" of uncompressed XML for the parsers, "mallocs/1k items" (allocations per 1,000
// items, from the same interposer, measured inside the benchmark so that per-document
// and per-parse allocations are separated out) and "mallocs/document", "ns/item" (one
// write of the JSON Lines writer) and "ns/date".
import Benchmark
import FeedStream
import Foundation
import MallocInterposerSwift

let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let environment = ProcessInfo.processInfo.environment
let dumpGz = environment["FEEDSTREAM_DUMP"] ?? "/tmp/feedstream-dump.xml.gz"
let dumpPlain = dumpGz.hasSuffix(".gz") ? String(dumpGz.dropLast(3)) : dumpGz
let realCorpus = environment["FEEDSTREAM_REAL_CORPUS"]
    ?? repository.deletingLastPathComponent().appendingPathComponent("shared/corpus/real").path

let megabytesPerSecond = BenchmarkMetric.custom("MB/s", polarity: .prefersLarger, useScalingFactor: false)
let mallocsPerThousandItems = BenchmarkMetric.custom("mallocs/1k items", polarity: .prefersSmaller, useScalingFactor: false)
let mallocsPerDocument = BenchmarkMetric.custom("mallocs/document", polarity: .prefersSmaller, useScalingFactor: false)
let nanosecondsPerItem = BenchmarkMetric.custom("ns/item", polarity: .prefersSmaller, useScalingFactor: false)
let nanosecondsPerDate = BenchmarkMetric.custom("ns/date", polarity: .prefersSmaller, useScalingFactor: false)

let standardMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

/// Discards output (the writer's cost without a write system call).
final class NullOutput: ByteOutput {
    func write(_ bytes: UnsafeRawBufferPointer) throws {}
}

/// Counts items, touching nothing else: the parser alone.
final class ItemCounter: FeedHandler {
    var items = 0
    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) { items += 1 }
}

/// Whether a benchmark's input is there; when it is not, prints a note naming the
/// benchmark and the missing path on standard error (the benchmark is then skipped).
func inputPresent(_ path: String, for benchmark: String) -> Bool {
    if FileManager.default.fileExists(atPath: path) { return true }
    FileHandle.standardError.write(Data("FeedStreamBenchmarks: skipping \"\(benchmark)\": \(path) is missing\n".utf8))
    return false
}

func files(under folder: String) -> [String] {
    guard let names = try? FileManager.default.subpathsOfDirectory(atPath: folder) else { return [] }
    return names.sorted().map { folder + "/" + $0 }.filter {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: $0, isDirectory: &isDir) && !isDir.boolValue
    }
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// The documents of the first `limit` bytes of the plain dump, cut at a document start.
func dumpSlice(_ limit: Int) -> [UInt8] {
    guard let handle = FileHandle(forReadingAtPath: dumpPlain), let data = try? handle.read(upToCount: limit) else {
        return []
    }
    let bytes = [UInt8](data)
    let decl = Array("<?xml".utf8)
    var cut = bytes.count
    var i = bytes.count - decl.count
    while i > 0 {
        if bytes[i] == 0x3C && Array(bytes[i..<i + decl.count]) == decl { cut = i; break }
        i -= 1
    }
    return Array(bytes[0..<cut])
}

/// `bytes` with every item (RSS `<item>…</item>`, Atom `<entry>…</entry>`) written
/// twice in a row: the same documents with the same element names and the same largest
/// item, so the allocation difference from `bytes` is exactly what the added items cost.
func withItemsTwice(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    let opens = [Array("<item".utf8), Array("<entry".utf8)]
    let closes = [Array("</item>".utf8), Array("</entry>".utf8)]
    func matches(_ p: [UInt8], at i: Int) -> Bool {
        i + p.count <= bytes.count && bytes[i..<i + p.count].elementsEqual(p)
    }
    var i = 0
    outer: while i < bytes.count {
        if bytes[i] == 0x3C {
            for (k, o) in opens.enumerated() where matches(o, at: i) {
                let next = i + o.count < bytes.count ? bytes[i + o.count] : 0
                guard next == 0x3E || next == 0x20 || next == 0x0A || next == 0x09 || next == 0x0D else { continue }
                var j = i + o.count
                while j < bytes.count && !matches(closes[k], at: j) { j += 1 }
                let item = bytes[i..<min(j + closes[k].count, bytes.count)]
                out.append(contentsOf: item)
                out.append(0x0A)
                out.append(contentsOf: item)
                i = j + closes[k].count
                continue outer
            }
        }
        out.append(bytes[i])
        i += 1
    }
    return out
}

/// Parses `input` with `parser` into `handler`, counting mallocs from inside the
/// measured region (the interposer counts only while the benchmark measures).
func mallocs(_ parser: any FeedParser, _ input: FeedInput, _ handler: some FeedHandler) -> (count: Int, summary: ParseSummary) {
    let before = MallocInterposerSwift.getStatistics().mallocCount
    let summary = try! parser.parse(input, handler: handler)
    return (MallocInterposerSwift.getStatistics().mallocCount - before, summary)
}

let benchmarks: @Sendable () -> Void = {
    // MARK: Each backend end to end (file → JSON Lines → /dev/null), as `feedstream convert`.

    let longRun = Benchmark.Configuration(
        metrics: standardMetrics + [megabytesPerSecond], warmupIterations: 1, maxDuration: .seconds(30), maxIterations: 5)
    let devNull = open("/dev/null", O_WRONLY)   // kept open for the process's life

    for backend in FeedBackend.allCases {
        for (label, path) in [("dump .xml", dumpPlain), ("dump .xml.gz", dumpGz)] {
            var config = longRun
            config.skip = !inputPresent(path, for: "\(backend) → JSON Lines, \(label)")
            Benchmark("\(backend) → JSON Lines, \(label)", configuration: config) { benchmark, state in
                let (parser, writer) = state
                benchmark.startMeasurement()
                let clock = ContinuousClock()
                let start = clock.now
                writer.source = path
                let summary = try! parser.parse(.file(path: path), handler: writer)
                try! writer.flush()
                let elapsed = seconds(clock.now - start)
                benchmark.stopMeasurement()
                benchmark.measurement(megabytesPerSecond, Int((Double(summary.bytesXML) / 1e6 / elapsed).rounded()))
            } setup: {
                (backend.makeParser(), JSONLinesWriter(output: FileDescriptorOutput(fd: devNull)))
            }
        }

        var config = longRun
        config.skip = !inputPresent(realCorpus, for: "\(backend) → JSON Lines, real corpus")
        config.maxIterations = 20
        Benchmark("\(backend) → JSON Lines, real corpus", configuration: config) { benchmark, state in
            let (parser, writer, files) = state
            benchmark.startMeasurement()
            let clock = ContinuousClock()
            let start = clock.now
            var bytes: UInt64 = 0
            for file in files {
                writer.source = file
                bytes += try! parser.parse(.file(path: file), handler: writer).bytesXML
            }
            try! writer.flush()
            let elapsed = seconds(clock.now - start)
            benchmark.stopMeasurement()
            benchmark.measurement(megabytesPerSecond, Int((Double(bytes) / 1e6 / elapsed).rounded()))
        } setup: {
            (backend.makeParser(), JSONLinesWriter(output: FileDescriptorOutput(fd: devNull)), files(under: realCorpus))
        }
    }

    // MARK: Allocations per item on the fast path (views → JSON Lines, no FeedItem).
    //
    // The same 20 MB of the dump, in memory, parsed twice per iteration: as is, and with
    // every item written twice. The difference in mallocs over the added items is what an
    // item costs; what a document or a parse costs (expat rebuilds its name tables after
    // each reset) cancels out, and is reported apart as mallocs/document.

    for backend in FeedBackend.allCases {
        for (name, makeHandler) in [
            ("JSON Lines writer", { JSONLinesWriter(output: NullOutput()) as any FeedHandler }),
            ("parser alone (item counter)", { ItemCounter() as any FeedHandler }),
        ] {
            var config = Benchmark.Configuration(metrics: standardMetrics + [mallocsPerThousandItems, mallocsPerDocument],
                                                 warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 5)
            config.skip = !inputPresent(dumpPlain, for: "allocations per item, \(backend) + \(name)")
            Benchmark("allocations per item, \(backend) + \(name)", configuration: config) {
                (benchmark: Benchmark, state: (any FeedParser, any FeedHandler, FeedInput, FeedInput)) in
                let (parser, handler, once, twice) = state
                benchmark.startMeasurement()
                let a = mallocs(parser, once, handler)
                let b = mallocs(parser, twice, handler)
                benchmark.stopMeasurement()
                let added = b.summary.items - a.summary.items
                let perThousandItems = added > 0 ? Double(b.count - a.count) * 1000 / Double(added) : 0
                benchmark.measurement(mallocsPerThousandItems, Int(perThousandItems.rounded()))
                let perDocument = (Double(a.count) - perThousandItems * Double(a.summary.items) / 1000)
                    / Double(max(a.summary.documents, 1))
                benchmark.measurement(mallocsPerDocument, Int(perDocument.rounded()))
            } setup: { () -> (any FeedParser, any FeedHandler, FeedInput, FeedInput) in
                let once = dumpSlice(20_000_000)
                return (backend.makeParser(), makeHandler(), FeedInput.bytes(once), FeedInput.bytes(withItemsTwice(once)))
            }
        }
    }

    // MARK: The JSON Lines writer alone.
    //
    // Each item the parser delivers is written 50 times, so the writer's share of the
    // time is over 95% (the parse alone is measured above); ns/item is per write.

    var writerConfig = Benchmark.Configuration(metrics: standardMetrics + [nanosecondsPerItem], warmupIterations: 1,
                                               maxDuration: .seconds(10), maxIterations: 20)
    writerConfig.skip = !inputPresent(dumpPlain, for: "JSON Lines writer alone (each item written 50×)")
    Benchmark("JSON Lines writer alone (each item written 50×)", configuration: writerConfig) { benchmark, state in
        let (parser, repeater, input) = state
        benchmark.startMeasurement()
        let clock = ContinuousClock()
        let start = clock.now
        repeater.writes = 0
        try! parser.parse(input, handler: repeater)
        try! repeater.writer.flush()
        let elapsed = seconds(clock.now - start)
        benchmark.stopMeasurement()
        benchmark.measurement(nanosecondsPerItem, Int((elapsed * 1e9 / Double(max(repeater.writes, 1))).rounded()))
    } setup: {
        (ExpatFeedParser(), RepeatWriter(times: 50), FeedInput.bytes(dumpSlice(5_000_000)))
    }

    // MARK: The date parser alone.

    Benchmark("FeedDate.parse alone (RFC 822 and ISO 8601 mix)",
              configuration: .init(metrics: standardMetrics + [nanosecondsPerDate], warmupIterations: 10,
                                   scalingFactor: .kilo, maxDuration: .seconds(5))) { benchmark, dates in
        benchmark.startMeasurement()
        let clock = ContinuousClock()
        let start = clock.now
        var parsed = 0
        for _ in benchmark.scaledIterations {
            for d in dates {
                if d.withUnsafeBytes({ FeedDate.parse($0) }) != nil { parsed += 1 }
            }
        }
        let elapsed = seconds(clock.now - start)
        benchmark.stopMeasurement()
        blackHole(parsed)
        let count = benchmark.scaledIterations.count * dates.count
        benchmark.measurement(nanosecondsPerDate, Int((elapsed * 1e9 / Double(count)).rounded()))
    } setup: {
        [
            "Tue, 04 Mar 2025 17:30:00 GMT", "Tue, 4 Mar 25 17:30 EST", "Wed, 05 Mar 2025 08:12:00 +0100",
            "Sunday, 20-Jul-2024 02:57:24 PDT", "2025-03-05T09:12:00+01:00", "2024-07-20T02:57:24.123Z",
            "2024-07-20 02:57:24", "2024-07-20", "Mon, 6 Jan 2025 10:00:00 -0500", "2023-11-02T18:45:00-08:00",
        ].map { Array($0.utf8) }
    }
}

/// Writes every item it receives `times` times.
final class RepeatWriter: FeedHandler {
    let writer = JSONLinesWriter(output: NullOutput())
    let times: Int
    var writes = 0
    init(times: Int) { self.times = times }
    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        for _ in 0..<times { try writer.parser(parser, didParseItem: item) }
        writes += times
    }
}
