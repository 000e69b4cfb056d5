// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// `feedstream convert` as a user runs it: the built binary, real files, exit status.
final class CLITests: CLITestCase {
    func testConvertsTheBundledCorpusFolder() throws {
        let r = try run(["convert", "corpus/feeds"])
        XCTAssertEqual(r.status, 0, r.err)
        let recs = try lines(r.out)
        // As many feed lines as the fixtures' expected outputs hold (dump-three.xml holds three).
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: Self.repo.appendingPathComponent("corpus/feeds").path)
        var expectedFeeds = 0
        for f in fixtures {
            let name = (f as NSString).deletingPathExtension
            let expected = try String(contentsOf: Self.repo.appendingPathComponent("corpus/expected/\(name).jsonl"), encoding: .utf8)
            expectedFeeds += expected.components(separatedBy: "\"kind\":\"feed\"").count - 1
        }
        XCTAssertEqual(recs.filter { $0["kind"] as? String == "feed" }.count, expectedFeeds)
        XCTAssertEqual(Set(recs.compactMap { $0["source"] as? String }).count, fixtures.count)
        XCTAssertTrue(r.err.contains("\(fixtures.count) files (\(fixtures.count) clean, 0 recovered, 0 failed)"), r.err)
    }

    func testABadFileInTheMiddleIsRecoveredAlone() throws {
        let dir = try tempDir()
        let feeds = Self.repo.appendingPathComponent("corpus/feeds")
        try FileManager.default.copyItem(at: feeds.appendingPathComponent("rss2-basic.xml"), to: dir.appendingPathComponent("a.xml"))
        try FileManager.default.copyItem(at: Self.repo.appendingPathComponent("corpus/bad/mismatched.xml"), to: dir.appendingPathComponent("b.xml"))
        try FileManager.default.copyItem(at: feeds.appendingPathComponent("atom-basic.xml"), to: dir.appendingPathComponent("c.xml"))
        let r = try run(["convert", dir.path])
        XCTAssertEqual(r.status, 0, "recovered: nothing lost")
        XCTAssertTrue(r.err.contains("\(dir.path)/b.xml: document 1, line 22, column 68: mismatched tag (recovered)"), r.err)
        XCTAssertEqual(try run(["convert", "-q", "--strict", dir.path]).status, 1, "strict: b.xml loses its last item")
        let recs = try lines(r.out)
        // a: 3 items, b: 2 items before the error and 1 after it (recovered), c: 3 items;
        // one feed line each.
        XCTAssertEqual(recs.filter { $0["kind"] as? String == "item" }.count, 9)
        // b's feed line, and its item the recovery path read (marked: its text may be repaired).
        XCTAssertEqual(recs.filter { $0["kind"] as? String == "feed" && $0["recovered"] as? Bool == true }.count, 1)
        XCTAssertEqual(recs.filter { $0["kind"] as? String == "item" && $0["recovered"] as? Bool == true }
                           .map { $0["title"] as? String }, ["Broken item three"])
        XCTAssertEqual(recs.filter { $0["kind"] as? String == "feed" }.count, 3)
        XCTAssertEqual(recs.last?["source"] as? String, "\(dir.path)/c.xml")
    }

    func testStandardInputAndGzip() throws {
        let xml = try Data(contentsOf: Self.repo.appendingPathComponent("corpus/feeds/rss1-rdf.xml"))
        let plain = try run(["convert", "-q", "-"], stdin: xml)
        XCTAssertEqual(plain.status, 0, plain.err)
        XCTAssertEqual(plain.err, "")
        let recs = try lines(plain.out)
        XCTAssertEqual(recs.count, 3)
        XCTAssertEqual(recs.first?["source"] as? String, "-")

        let dir = try tempDir()
        let gz = dir.appendingPathComponent("feed.data")   // gzip detected by content, not name
        try sh("gzip -c corpus/feeds/rss1-rdf.xml > '\(gz.path)'")
        let fromGz = try run(["convert", "-q", gz.path])
        XCTAssertEqual(fromGz.status, 0, fromGz.err)
        XCTAssertEqual(fromGz.out.replacingOccurrences(of: gz.path, with: "-"), plain.out)
    }

    /// `--inflate zlib|isa-l`: the same lines from a file and from standard input with
    /// either (ISA-L where installed: CI requires it), a clear usage error otherwise.
    func testInflateOptionGivesTheSameLines() throws {
        let dir = try tempDir()
        let gz = dir.appendingPathComponent("dump.gz")
        try sh("cat corpus/feeds/*.xml | gzip -1 > '\(gz.path)'")
        let zlib = try run(["convert", "-q", "--inflate", "zlib", gz.path])
        XCTAssertEqual(zlib.status, 0, zlib.err)
        XCTAssertGreaterThan(try lines(zlib.out).filter { $0["kind"] as? String == "item" }.count, 20)
        let isal = try run(["convert", "-q", "--inflate", "isa-l", gz.path])
        if isal.status == 2 && ProcessInfo.processInfo.environment["FEEDSTREAM_REQUIRE_ISAL"] != "1" {
            XCTAssertTrue(isal.err.contains("--inflate isa-l: ISA-L is not available"), isal.err)
        } else {
            XCTAssertEqual(isal.status, 0, isal.err)
            XCTAssertEqual(isal.out, zlib.out)
            let piped = try run(["convert", "-q", "--inflate", "isa-l", "-"], stdin: try Data(contentsOf: gz))
            XCTAssertEqual(piped.status, 0, piped.err)
            XCTAssertEqual(piped.out, zlib.out.replacingOccurrences(of: gz.path, with: "-"))
        }
        let bad = try run(["convert", "--inflate", "gzip", gz.path])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("--inflate"), bad.err)
    }

    func testOutputFileIsWrittenWholeOrNotAtAll() throws {
        let dir = try tempDir()
        let out = dir.appendingPathComponent("out.jsonl")
        let r = try run(["convert", "-q", "corpus/feeds/atom-basic.xml", "-o", out.path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.out, "")
        XCTAssertEqual(try lines(String(contentsOf: out, encoding: .utf8)).count, 4)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["out.jsonl"])   // no temporary left

        let bad = try run(["convert", "corpus/feeds/atom-basic.xml", "-o", "/nonexistent-dir/out.jsonl"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("cannot write"), bad.err)
    }


    func testDiffComparesBackendsAndLibxml2ConvertsTheSame() throws {
        let r = try run(["diff", "--backends", "expat,libxml2", "corpus/feeds", "corpus/bad"])
        XCTAssertEqual(r.status, 0, r.out + r.err)
        XCTAssertTrue(r.out.contains("0 differences"), r.out)
        let expat = try run(["convert", "-q", "--backend", "expat", "corpus/feeds"])
        let libxml2 = try run(["convert", "-q", "--backend", "libxml2", "corpus/feeds"])
        XCTAssertEqual(expat.status, 0)
        XCTAssertEqual(libxml2.out, expat.out)
        XCTAssertEqual(try run(["diff", "--backends", "expat", "corpus/feeds"]).status, 2)
    }
}
