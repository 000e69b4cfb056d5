import CFeedStream
import CFeedStreamBaseline
import FeedStream
import FeedStreamTools
import Foundation
import XCTest

/// The bench runner on tiny inputs, one run: the report's shape, never its timings.
final class BenchTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws {
        tmp = FileManager.default.temporaryDirectory.appendingPathComponent("feedstream-bench-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: tmp)
    }

    /// The corpus's multi-document dump, plain and gzipped (two gzip members).
    private func dumpFiles() throws -> (plain: String, gz: String) {
        let dump = try Data(contentsOf: Paths.corpus.appendingPathComponent("feeds/dump-three.xml"))
        let plain = tmp.appendingPathComponent("dump.xml")
        try dump.write(to: plain)
        let half = dump.count / 2
        let gz = tmp.appendingPathComponent("dump.xml.gz")
        try Data(gzip(Array(dump.prefix(half))) + gzip(Array(dump.dropFirst(half)))).write(to: gz)
        return (plain.path, gz.path)
    }

    func testReportShapeForPlainAndGzipWorkloads() throws {
        let (plain, gz) = try dumpFiles()
        var options = FeedBench.Options()
        options.runs = 1
        options.warmUp = false
        options.peakMemory = { id, _ in id == FeedBench.idleID ? 1 : 2 }
        options.peakMemoryMethod = "test"
        let report = try FeedBench.run([.init(name: "plain", files: [plain]), .init(name: "gz", files: [gz])],
                                       options: options)
        XCTAssertEqual(report.runs, 1)
        XCTAssertEqual(report.idleMemoryBytes, 1)
        XCTAssertGreaterThan(report.machine.cores, 0)
        XCTAssertEqual(report.workloads.map(\.name), ["plain", "gz"])

        let backends = FeedBackend.allCases.map(\.rawValue)
        let p = report.workloads[0]
        XCTAssertEqual(p.results.map(\.id), ["inflate-only", "tokenize-only"] + backends)
        XCTAssertEqual(p.gzipFiles, 0)
        XCTAssertEqual(p.documents, 3)
        let g = report.workloads[1]
        XCTAssertEqual(g.results.map(\.id),
                       ["inflate-only", "tokenize-only"] + backends + backends.map { $0 + "+inflate-thread" })
        XCTAssertEqual(g.gzipFiles, 1)
        XCTAssertEqual(g.bytesXML, p.bytesXML, "MB/s counts uncompressed bytes")
        XCTAssertLessThan(g.bytesIn, g.bytesXML)
        XCTAssertEqual(g.items, p.items)
        XCTAssertGreaterThan(p.items ?? 0, 0)

        for w in report.workloads {
            for r in w.results {
                XCTAssertNil(r.error, "\(w.name) \(r.id)")
                XCTAssertEqual(r.runsMBps.count, 1)
                XCTAssertGreaterThan(r.medianMBps, 0)
                XCTAssertEqual(r.peakMemoryBytes, 2)
                XCTAssertEqual(r.ratioToTokenizeOnly.map { $0 > 0 }, true)
                XCTAssertEqual(r.kind == "backend", r.backend != nil)
                XCTAssertEqual(r.itemsPerSecond != nil, r.kind == "backend")
            }
            XCTAssertEqual(w["tokenize-only"]?.ratioToTokenizeOnly, 1)
        }
        XCTAssertEqual(g["tokenize-only"]?.threads, 2)
        XCTAssertEqual(g["expat"]?.threads, 1)
        XCTAssertEqual(g["expat+inflate-thread"]?.threads, 2)
    }

    func testTableAndJSON() throws {
        let (plain, _) = try dumpFiles()
        var options = FeedBench.Options()
        options.runs = 1
        options.backends = [.expat]
        let report = try FeedBench.run([.init(name: "tiny", files: [plain])], options: options)
        let table = report.table
        XCTAssertTrue(table.contains("tiny: 1 file"), table)
        XCTAssertTrue(table.contains("tokenize only (expat, empty callbacks)"), table)
        XCTAssertTrue(table.contains("expat → JSON Lines"), table)
        XCTAssertFalse(table.contains("libxml2"), table)
        let decoded = try JSONDecoder().decode(BenchReport.self, from: JSONEncoder().encode(report))
        XCTAssertEqual(decoded, report)
    }

    func testContenderIDsFollowTheBackends() {
        var options = FeedBench.Options()
        options.inflateThread = false
        let ids = FeedBench.contenderIDs(for: .init(name: "x", files: []), options: options)
        XCTAssertEqual(ids, ["inflate-only", "tokenize-only"] + FeedBackend.allCases.map(\.rawValue))
    }

    func testRunOnceAndIdle() throws {
        let (_, gz) = try dumpFiles()
        let w = FeedBench.Workload(name: "gz", files: [gz])
        let m = try FeedBench.runOnce(contenderID: "expat+inflate-thread", workload: w)
        XCTAssertEqual(m.documents, 3)
        XCTAssertEqual(try FeedBench.runOnce(contenderID: FeedBench.idleID, workload: w).bytesXML, 0)
        XCTAssertThrowsError(try FeedBench.runOnce(contenderID: "nonesuch", workload: w))
    }

    /// The peak-memory column counts each contender's own pages. This process first
    /// holds 200 MB (its high-water mark, which a spawned child's `ru_maxrss` would
    /// carry over its exec); then, measured in child processes of it, the idle
    /// contender peaks far below that and the 100 MB ballast at 100 MB or more.
    func testChildPeakIsTheContendersOwn() throws {
        var dir = Bundle(for: BenchTests.self).bundleURL
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("feedstream").path) && dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        let binary = dir.appendingPathComponent("feedstream").path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "the built feedstream next to the tests")
        let (plain, _) = try dumpFiles()

        let held = 200 << 20
        let p = try XCTUnwrap(malloc(held))
        defer { free(p) }
        memset(p, 1, held)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(FeedBench.ownPeakMemory()), UInt64(held))

        func peak(_ id: String) throws -> UInt64 {
            try XCTUnwrap(FeedBench.childPeakMemory(executable: binary, arguments: ["bench", "--peak-child", id, plain]), id)
        }
        let idle = try peak(FeedBench.idleID)
        XCTAssertGreaterThan(idle, 0)
        XCTAssertLessThan(idle, 100 << 20, "the idle child's own peak, not this process's 200 MB")
        let ballast = try peak(FeedBench.ballastID(megabytes: 100))
        XCTAssertGreaterThanOrEqual(ballast, 100 << 20)
        XCTAssertLessThan(ballast, 200 << 20)
        let expat = try peak("expat")
        XCTAssertLessThan(expat, 100 << 20, "three tiny documents")
        XCTAssertNil(FeedBench.childPeakMemory(executable: binary, arguments: ["bench", "--peak-child", "nonesuch", plain]),
                     "a failing child has no peak")
    }

    // The C baselines directly: concatenated documents, multi-member gzip, refusals.
    func testBaselinesCountEveryDocumentAndByte() throws {
        let (plain, gz) = try dumpFiles()
        let size = UInt64(try FileManager.default.attributesOfItem(atPath: plain)[.size] as! Int)
        var st = cfs_baseline_stats()
        var fd = open(plain, O_RDONLY)
        XCTAssertEqual(cfs_baseline_tokenize_fd(fd, &st), 0)
        close(fd)
        XCTAssertEqual(st.documents, 3)
        XCTAssertEqual(st.bytes_xml, size)

        fd = open(gz, O_RDONLY)
        XCTAssertEqual(cfs_baseline_inflate_fd(fd, -1, &st), 0)
        close(fd)
        XCTAssertEqual(st.bytes_xml, size)

        fd = open(gz, O_RDONLY)
        XCTAssertEqual(cfs_baseline_tokenize_fd(fd, &st), -1, "tokenize-only takes plain XML")
        close(fd)
        XCTAssertNotNil(st.error)

        let bad = tmp.appendingPathComponent("bad.xml")
        try Data("<rss><channel></rss>".utf8).write(to: bad)
        fd = open(bad.path, O_RDONLY)
        XCTAssertEqual(cfs_baseline_tokenize_fd(fd, &st), -1)
        close(fd)
        XCTAssertEqual(st.error.map { String(cString: $0) }, "mismatched tag")
    }
}
