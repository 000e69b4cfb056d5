// SPDX-License-Identifier: Apache-2.0
import Foundation
import FeedStreamTestSupport
import XCTest

/// `feedstream convert`'s batch flags, each as a user would run it.
final class ConvertTests: CLITestCase {
    private var feeds: URL { Self.repo.appendingPathComponent("corpus/feeds") }

    /// A folder of `count` feeds (every third gzipped), named 00.xml, 01.xml.gz, ...
    private func folder(count: Int) throws -> (dir: URL, names: [String]) {
        let dir = try tempDir()
        let sources = ["rss2-basic.xml", "atom-basic.xml", "rss1-rdf.xml", "dump-three.xml"]
        var names: [String] = []
        for i in 0..<count {
            let src = feeds.appendingPathComponent(sources[i % sources.count]).path
            let name = String(format: "%02d.xml", i) + (i % 3 == 2 ? ".gz" : "")
            try sh(i % 3 == 2 ? "gzip -c '\(src)' > '\(dir.path)/\(name)'" : "cp '\(src)' '\(dir.path)/\(name)'")
            names.append(name)
        }
        return (dir, names)
    }

    private func sources(_ out: String) throws -> [String] {
        var seen: [String] = []
        for r in try lines(out) {
            if let s = r["source"] as? String, seen.last != s { seen.append(s) }
        }
        return seen
    }

    func testJobsKeepInputOrderAndUnorderedKeepsTheLines() throws {
        let one = try run(["convert", "-q", "-j", "1", "corpus/feeds", "corpus/bad"])
        XCTAssertEqual(one.status, 1)
        for j in ["2", "4"] {
            let r = try run(["convert", "-q", "-j", j, "corpus/feeds", "corpus/bad"])
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.out, one.out, "-j \(j)")
            XCTAssertEqual(r.err, one.err, "-j \(j): errors in input order too")
        }
        let unordered = try run(["convert", "-q", "-j", "4", "--unordered", "corpus/feeds", "corpus/bad"])
        XCTAssertEqual(unordered.out.split(separator: "\n").sorted(), one.out.split(separator: "\n").sorted())
    }

    func testACorruptFileInTheMiddleOfAFolderFailsAloneAndIsReported() throws {
        let (dir, names) = try folder(count: 9)
        // 04: gzip cut in half; the others are fine.
        try sh("gzip -c corpus/feeds/rss2-basic.xml | head -c 300 > '\(dir.path)/04.xml'")
        let errors = dir.appendingPathComponent("errors.jsonl").path
        let r = try run(["convert", "-j", "2", "--errors", errors, dir.path])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("\(dir.path)/04.xml: document 1, "), r.err)
        XCTAssertTrue(r.err.contains("truncated gzip data"), r.err)
        XCTAssertTrue(r.err.contains("9 files (8 clean, 0 recovered, 1 failed)"), r.err)
        // Every file has its lines, in order; the broken one keeps what came before the cut.
        XCTAssertEqual(try sources(r.out), names.map { "\(dir.path)/\($0)" }.filter { !$0.hasSuffix("04.xml") || r.out.contains($0) })
        let feedsBySource = Dictionary(grouping: try lines(r.out).filter { $0["kind"] as? String == "feed" }) { $0["source"] as! String }
        for name in names where name != "04.xml" {
            XCTAssertNotNil(feedsBySource["\(dir.path)/\(name)"], name)
        }
        let records = try lines(String(contentsOfFile: errors, encoding: .utf8))
        XCTAssertEqual(records.count, 1)
        let rec = try XCTUnwrap(records.first)
        XCTAssertEqual(rec["file"] as? String, "\(dir.path)/04.xml")
        XCTAssertEqual(rec["document"] as? Int, 1)
        XCTAssertEqual(rec["code"] as? String, "gzip")
        XCTAssertEqual(rec["reason"] as? String, "truncated gzip data")
        XCTAssertGreaterThan(rec["line"] as? Int ?? 0, 0)
        XCTAssertGreaterThan(rec["column"] as? Int ?? 0, 0)
        XCTAssertNotNil(rec["offset"] as? Int)
    }

    /// A folder holding copies of the given corpus files (paths relative to corpus/).
    private func copies(_ files: [String]) throws -> URL {
        let dir = try tempDir()
        for f in files {
            try FileManager.default.copyItem(at: Self.repo.appendingPathComponent("corpus/" + f),
                                             to: dir.appendingPathComponent((f as NSString).lastPathComponent))
        }
        return dir
    }

    func testErrorsFileRecordsEveryKindOfError() throws {
        let bad = try copies(["bad/empty.xml", "bad/mismatched.xml", "bad/not-xml.txt", "bad/truncated.xml",
                              "feeds/rss1-rdf.xml"])
        let dir = try tempDir()
        let errors = dir.appendingPathComponent("errors.jsonl").path
        // not-xml.txt is skipped in the folder (not XML) but parsed when named.
        let r = try run(["convert", "-q", "--errors", errors, bad.path, bad.path + "/not-xml.txt"])
        XCTAssertEqual(r.status, 1)
        let records = try lines(String(contentsOfFile: errors, encoding: .utf8))
        XCTAssertEqual(records.map { $0["file"] as? String },
                       ["empty.xml", "mismatched.xml", "truncated.xml", "not-xml.txt", "not-xml.txt"]
                        .map { bad.path + "/" + $0 })
        // Text that is not XML fails at its first byte, and the recovery path finds no
        // feed in it: the bytes after the error were read by no one, a record of their own.
        XCTAssertEqual(records.map { $0["code"] as? String }, ["empty", "xml", "xml", "xml", "skipped"])
        XCTAssertEqual(records[4]["offset"] as? Int, 0)
        XCTAssertEqual(records[4]["length"] as? Int,
                       try FileManager.default.attributesOfItem(atPath: bad.path + "/not-xml.txt")[.size] as? Int)
        XCTAssertEqual(records[0]["document"] as? Int, 0)
        XCTAssertEqual(records[1]["line"] as? Int, 22)
        XCTAssertEqual(records[1]["column"] as? Int, 68)
        XCTAssertEqual(records[1]["reason"] as? String, "mismatched tag")
        XCTAssertEqual(r.err.split(separator: "\n").count, 5, "one stderr line per error, no summary with -q")
    }

    func testStatsFileHasTheRunsTotals() throws {
        let inputs = try copies(["feeds/rss2-basic.xml", "feeds/dump-three.xml", "bad/mismatched.xml", "bad/empty.xml"])
        let dir = try tempDir()
        let stats = dir.appendingPathComponent("stats.json")
        let out = dir.appendingPathComponent("out.jsonl")
        let r = try run(["convert", "-q", "-j", "2", "--stats", stats.path, "-o", out.path, inputs.path])
        XCTAssertEqual(r.status, 1)
        let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
        XCTAssertEqual(s["files"] as? Int, 4)
        XCTAssertEqual(s["files_ok"] as? Int, 3)        // mismatched.xml is recovered: nothing lost
        XCTAssertEqual(s["files_failed"] as? Int, 1)    // empty.xml
        XCTAssertEqual(s["files_clean"] as? Int, 2)
        XCTAssertEqual(s["files_recovered"] as? Int, 1)
        XCTAssertEqual(s["feeds"] as? Int, 5)
        XCTAssertEqual(s["feeds_failed"] as? Int, 0)
        XCTAssertEqual(s["feeds_recovered"] as? Int, 1)   // mismatched.xml, by the recovery path
        let recs = try lines(String(contentsOf: out, encoding: .utf8))
        XCTAssertEqual(s["items"] as? Int, recs.filter { $0["kind"] as? String == "item" }.count)
        XCTAssertEqual(s["bytes_out"] as? Int, try FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int)
        XCTAssertGreaterThan(s["bytes_in"] as? Int ?? 0, 0)
        XCTAssertEqual(s["bytes_in"] as? Int, s["bytes_xml"] as? Int, "plain inputs: read = parsed")
        for key in ["mb_in", "mb_xml", "mb_out", "seconds", "mb_per_s"] { XCTAssertNotNil(s[key] as? Double, key) }
        XCTAssertEqual(s["jobs"] as? Int, 2)
        XCTAssertEqual(s["ordered"] as? Bool, true)
        XCTAssertEqual(s["per"] as? String, "item")
        XCTAssertTrue(s["shard"] is NSNull)
        XCTAssertEqual(s["interrupted"] as? Bool, false)
    }

    func testPerFeedWritesOneLinePerDocumentWithItsItems() throws {
        let items = try run(["convert", "-q", "corpus/feeds/dump-three.xml"])
        let docs = try run(["convert", "-q", "--per", "feed", "corpus/feeds/dump-three.xml"])
        XCTAssertEqual(docs.status, 0, docs.err)
        let recs = try lines(docs.out)
        XCTAssertEqual(recs.map { $0["kind"] as? String }, ["document", "document", "document"])
        XCTAssertEqual(recs.map { ($0["items"] as? [Any])?.count }, [2, 1, 1])
        let feedLines = try lines(items.out).filter { $0["kind"] as? String == "feed" }
        let itemLines = try lines(items.out).filter { $0["kind"] as? String == "item" }
        for (doc, feed) in zip(recs, feedLines) {
            var d = doc, f = feed
            d["kind"] = nil; f["kind"] = nil; d["items"] = nil; f["items"] = nil
            XCTAssertEqual(d as NSDictionary, f as NSDictionary)
        }
        let first = try XCTUnwrap((recs[0]["items"] as? [[String: Any]])?.first)
        var expected = itemLines[0]
        for common in ["schema", "kind", "source", "document"] { expected[common] = nil }
        XCTAssertEqual(first as NSDictionary, expected as NSDictionary)
        XCTAssertEqual(try run(["convert", "--per", "entry", "corpus/feeds"]).status, 2)
    }

    func testGzipOutputByExtension() throws {
        let dir = try tempDir()
        let plain = try run(["convert", "-q", "corpus/feeds"])
        let gz = dir.appendingPathComponent("out.jsonl.gz")
        let r = try run(["convert", "-q", "-o", gz.path, "corpus/feeds"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(try Data(contentsOf: gz).prefix(2), Data([0x1F, 0x8B]))
        try sh("gzip -t '\(gz.path)' && gzip -dc '\(gz.path)' > '\(dir.path)/back.jsonl'")
        XCTAssertEqual(try String(contentsOfFile: dir.path + "/back.jsonl", encoding: .utf8), plain.out)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["back.jsonl", "out.jsonl.gz"])
    }

    /// `-o FILE.gz` and `-o FILE.zst` hold the plain output's lines, and their bytes are
    /// the same whatever `-j` (the blocks and jobs they are compressed in are cut by size,
    /// never by thread).
    func testCompressedOutputIsTheSameForAnyJobs() throws {
        let dir = try tempDir()
        // A dump of about 3 MB (parsed in parts from -j 2 on) and the corpus's feeds.
        let dump = dir.appendingPathComponent("dump.xml").path
        try sh("python3 corpus/generate.py dump --size-mb 3 --seed 7 -o '\(dump)' 2>/dev/null")
        let inputs = [dump, "corpus/feeds", "corpus/bad"]
        let plain = try run(["convert", "-q", "--data-errors-ok"] + inputs)
        XCTAssertEqual(plain.status, 0, plain.err)
        XCTAssertGreaterThan(plain.out.utf8.count, 8 * (128 << 10))   // several of GzipOutput's 128 KiB blocks
        for suffix in ["gz", "zst"] {
            var outputs: [Data] = []
            for jobs in ["1", "2", "4"] {
                let file = dir.appendingPathComponent("out-\(jobs).jsonl.\(suffix)")
                let r = try run(["convert", "-q", "--data-errors-ok", "-j", jobs, "-o", file.path] + inputs)
                XCTAssertEqual(r.status, 0, r.err)
                outputs.append(try Data(contentsOf: file))
            }
            XCTAssertEqual(outputs[1], outputs[0], "\(suffix): -j 2")
            XCTAssertEqual(outputs[2], outputs[0], "\(suffix): -j 4")
            let back: [UInt8]?
            if suffix == "gz" {
                try sh("gzip -t '\(dir.path)/out-1.jsonl.gz' && gzip -dc '\(dir.path)/out-1.jsonl.gz' > '\(dir.path)/back.jsonl'")
                back = try [UInt8](Data(contentsOf: dir.appendingPathComponent("back.jsonl")))
            } else {
                back = unzstd([UInt8](outputs[0]))
            }
            XCTAssertEqual(back.map { String(decoding: $0, as: UTF8.self) }, plain.out, suffix)
        }
    }

    /// `--compress-level` takes the format's levels, and needs a compressed output;
    /// refused, it writes nothing.
    func testCompressLevelIsBoundedByTheFormat() throws {
        let dir = try tempDir()
        for (args, message) in [(["-o", "\(dir.path)/a.jsonl.gz", "--compress-level", "10"], "1 to 9 for gzip"),
                                (["-o", "\(dir.path)/a.jsonl.gz", "--compress-level", "0"], "1 to 9 for gzip"),
                                (["-o", "\(dir.path)/a.jsonl.zst", "--compress-level", "20"], "1 to 19 for zstd"),
                                (["-o", "\(dir.path)/a.jsonl.zst", "--compress-level", "-1"], "1 to 19 for zstd"),
                                (["-o", "\(dir.path)/a.jsonl", "--compress-level", "3"], "needs -o FILE.gz"),
                                (["--compress-level", "3"], "needs -o FILE.gz")] {
            let r = try run(["convert", "-q"] + args + ["corpus/feeds"])
            XCTAssertEqual(r.status, 2, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains(message), "\(args): \(r.err)")
            XCTAssertEqual(r.out, "")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
        let fast = try run(["convert", "-q", "-o", "\(dir.path)/fast.jsonl.zst", "--compress-level", "1", "corpus/feeds"])
        let small = try run(["convert", "-q", "-o", "\(dir.path)/small.jsonl.zst", "--compress-level", "19", "corpus/feeds"])
        XCTAssertEqual(fast.status, 0, fast.err)
        XCTAssertEqual(small.status, 0, small.err)
        let sizes = try ["fast", "small"].map { try Data(contentsOf: dir.appendingPathComponent("\($0).jsonl.zst")) }
        XCTAssertLessThan(sizes[1].count, sizes[0].count)
        XCTAssertEqual(unzstd([UInt8](sizes[0])), unzstd([UInt8](sizes[1])))
    }

    func testAnOutputDeviceIsWrittenInPlace() throws {
        let r = try run(["convert", "-q", "-o", "/dev/null", "--stats", "/dev/null", "corpus/feeds"])
        XCTAssertEqual(r.status, 0, r.err)
        var st = stat()
        XCTAssertEqual(stat("/dev/null", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")
    }

    func testIncludeAndExcludeGlobsFilterFolders() throws {
        let dir = try tempDir()
        try sh("""
            cd '\(dir.path)' && mkdir -p a b/skip .hidden && cp '\(feeds.path)/rss2-basic.xml' a/x.xml \
            && gzip -c '\(feeds.path)/atom-basic.xml' > a/y.xml.gz && cp '\(feeds.path)/rss1-rdf.xml' b/skip/z.xml \
            && cp '\(feeds.path)/rss1-rdf.xml' b/w.rss && cp '\(feeds.path)/rss1-rdf.xml' .hidden/h.xml && echo notes > c.txt
            """)
        func converted(_ args: [String]) throws -> [String] {
            let r = try run(["convert", "-q"] + args + [dir.path])
            XCTAssertEqual(r.status, 0, r.err)
            return try sources(r.out).map { String($0.dropFirst(dir.path.count + 1)) }
        }
        XCTAssertEqual(try converted(["--include", "*.xml", "--include", "*.gz"]), ["a/x.xml", "a/y.xml.gz", "b/skip/z.xml"])
        XCTAssertEqual(try converted(["--exclude", "b/skip/*", "--exclude", "*.txt"]), ["a/x.xml", "a/y.xml.gz", "b/w.rss"])
        XCTAssertEqual(try converted(["--include", "a/*"]), ["a/x.xml", "a/y.xml.gz"])
        XCTAssertEqual(try converted(["--include", "?.xml*", "--exclude", "y.*"]), ["a/x.xml", "b/skip/z.xml"])
        // A file named on the command line is converted whatever the globs say.
        let r = try run(["convert", "-q", "--include", "*.gz", dir.path + "/a/x.xml"])
        XCTAssertEqual(try sources(r.out), [dir.path + "/a/x.xml"])
    }

    func testFilesFromAListOrStandardInput() throws {
        let dir = try tempDir()
        let list = dir.appendingPathComponent("list.txt")
        try "corpus/feeds/rss1-rdf.xml\r\n\ncorpus/bad\ncorpus/feeds/atom-basic.xml\n".write(to: list, atomically: true, encoding: .utf8)
        let expected = try run(["convert", "-q", "corpus/feeds/rss1-rdf.xml", "corpus/bad", "corpus/feeds/atom-basic.xml"])
        let fromFile = try run(["convert", "-q", "--files-from", list.path])
        XCTAssertEqual(fromFile.status, 1)
        XCTAssertEqual(fromFile.out, expected.out)
        let fromStdin = try run(["convert", "-q", "--files-from", "-"], stdin: try Data(contentsOf: list))
        XCTAssertEqual(fromStdin.out, expected.out)
        // Arguments come first; a listed path that does not exist fails as an input.
        let mixed = try run(["convert", "-q", "--files-from", "-", "corpus/feeds/rss2-basic.xml"],
                            stdin: Data("corpus/feeds/rss1-rdf.xml\nno/such.xml\n".utf8))
        XCTAssertEqual(mixed.status, 1)
        XCTAssertEqual(try sources(mixed.out), ["corpus/feeds/rss2-basic.xml", "corpus/feeds/rss1-rdf.xml"])
        XCTAssertTrue(mixed.err.contains("no/such.xml: No such file or directory"), mixed.err)
    }

    /// Thousands of paths as arguments (a shell glob, `xargs`): every one converted, in
    /// the order given, options and an option's value among them, after `--` too, with
    /// or without the subcommand's name. (ArgumentParser alone took 8 s to parse 16,000
    /// paths: the command keeps long runs of paths out of its parsing, ArgumentRuns.)
    func testThousandsOfPathArgumentsAreEachConvertedInTheirOrder() throws {
        let dir = try tempDir()
        // A file name that starts with "-", reachable only after "--".
        try sh("cp corpus/feeds/atom-basic.xml '\(dir.path)/-dash.xml'")
        let cycle = ["corpus/feeds/rss2-basic.xml", "corpus/feeds/atom-basic.xml", "corpus/feeds/rss1-rdf.xml"]
        func paths(_ n: Int, from k: Int) -> [String] { (k..<(k + n)).map { cycle[$0 % cycle.count] } }
        let first = paths(2_500, from: 0), second = paths(2_500, from: 1), third = paths(40, from: 2)
        let args = ["convert"] + first + ["-q", "-j", "2"] + second + ["--", dir.path + "/-dash.xml"] + third
        let r = try run(args)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(try sources(r.out), first + second + [dir.path + "/-dash.xml"] + third)
        // The default subcommand; a run of paths that starts the command line.
        let bare = try run(paths(100, from: 0) + ["-q"])
        XCTAssertEqual(bare.status, 0, bare.err)
        XCTAssertEqual(try sources(bare.out), paths(100, from: 0))
        // A short run (given to ArgumentParser as it is) and a missing path among many.
        let mixed = try run(["convert", "-q", "corpus/feeds/rss2-basic.xml", "no/such.xml"] + paths(30, from: 1))
        XCTAssertEqual(mixed.status, 1)
        XCTAssertEqual(try sources(mixed.out), ["corpus/feeds/rss2-basic.xml"] + paths(30, from: 1))
        XCTAssertTrue(mixed.err.contains("no/such.xml: No such file or directory"), mixed.err)
    }

    func testShardsCoverEveryInputExactlyOnce() throws {
        let (dir, names) = try folder(count: 30)
        let all = Set(names.map { "\(dir.path)/\($0)" })
        for n in [1, 3, 7] {
            var covered: [String] = []
            var files = 0
            for k in 1...n {
                let stats = dir.appendingPathComponent("stats-\(k).json").path
                let r = try run(["convert", "-q", "--shard", "\(k)/\(n)", "--stats", stats, "--include", "??.xml*", dir.path])
                XCTAssertEqual(r.status, 0, r.err)
                covered += try sources(r.out)
                let s = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any]
                files += s?["files"] as? Int ?? 0
                XCTAssertEqual(s?["shard"] as? String, "\(k)/\(n)")
            }
            XCTAssertEqual(covered.count, all.count, "\(n) shards: each input once")
            XCTAssertEqual(Set(covered), all, "\(n) shards: every input")
            XCTAssertEqual(files, all.count)
        }
    }

    func testPipelineStandardInputAndOneJobGiveTheSameOutput() throws {
        let dir = try tempDir()
        let dump = dir.appendingPathComponent("dump.xml.gz")
        // Over the 1 MiB pipelining threshold once compressed.
        try sh("python3 corpus/generate.py dump --size-mb 4 --seed 7 -o '\(dump.path)' > /dev/null")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dump.path)[.size] as? Int)
        XCTAssertGreaterThan(size, 1 << 20)
        let piped = try run(["convert", "-q", "-j", "2", dump.path])
        XCTAssertEqual(piped.status, 0, piped.err)
        XCTAssertEqual(try run(["convert", "-q", "-j", "2", "--no-pipeline", dump.path]).out, piped.out)
        XCTAssertEqual(try run(["convert", "-q", "-j", "1", dump.path]).out, piped.out)
        let stdin = try run(["convert", "-q", "-"], stdin: try Data(contentsOf: dump))
        XCTAssertEqual(stdin.out, piped.out.replacingOccurrences(of: "\"source\":\"\(dump.path)\"", with: "\"source\":\"-\""))
    }

    /// The decompression ratio is measured from the last document begun, whichever
    /// thread inflates: a gzip file holding a document of incompressible text (1.1 MB
    /// compressed, over the pipelining threshold) and then one that inflates 20 MB from
    /// little. Measured over the whole stream the ratio stays near 19; over the second
    /// document it passes 50 once 16 MiB have come out. `-j 2` (the read-ahead pipeline)
    /// and `-j 1` must stop at the same item of document 2; a pipeline measuring the
    /// whole stream would let all 2,001 items through.
    func testTheRatioLimitGivesTheSameOutputWithOrWithoutThePipeline() throws {
        let dir = try tempDir()
        let mix = dir.appendingPathComponent("mix.xml.gz")
        let script = """
            import base64, gzip, random, sys
            rnd = random.Random(7)
            noise = base64.b64encode(bytes(rnd.getrandbits(8) for _ in range(1_100_000))).decode()
            first = ('<?xml version="1.0"?><rss version="2.0"><channel><title>noise</title>'
                     '<item><title>%s</title><guid>n</guid></item></channel></rss>\\n' % noise)
            filler = ' ' * 10_000
            second = ('<?xml version="1.0"?><rss version="2.0"><channel><title>bomb</title>'
                      + ''.join('<item><title>b</title><guid>%d</guid></item>%s' % (i, filler) for i in range(2_000))
                      + '</channel></rss>\\n')
            sys.stdout.buffer.write(gzip.compress((first + second).encode(), 6))
            """
        try script.write(to: dir.appendingPathComponent("mix.py"), atomically: true, encoding: .utf8)
        try sh("python3 '\(dir.path)/mix.py' > '\(mix.path)'")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: mix.path)[.size] as? Int)
        XCTAssertGreaterThan(size, 1 << 20, "over the pipelining threshold")
        let error = "feedstream: \(mix.path): document 2, line 1, column 16883285: limit exceeded: decompression ratio > 50\n"
        var reference: String?
        for flags in [["-j", "1"], ["-j", "2"], ["-j", "2", "--no-pipeline"], ["-j", "2", "--backend", "swift"]] {
            let r = try run(["convert", "-q", "--max-ratio", "50"] + flags + [mix.path])
            XCTAssertEqual(r.status, 1, "\(flags)")
            XCTAssertEqual(r.err, error, "\(flags)")
            let records = try lines(r.out)
            XCTAssertEqual(records.filter { $0["kind"] as? String == "item" }.count, 1 + 1_681, "\(flags)")
            if let reference { XCTAssertTrue(r.out == reference, "\(flags): the same bytes") } else { reference = r.out }
        }
        // Without the limit every item comes out, on every path.
        for flags in [["-j", "1"], ["-j", "2"]] {
            let r = try run(["convert", "-q", "--max-ratio", "0"] + flags + [mix.path])
            XCTAssertEqual(r.status, 0, "\(flags): \(r.err)")
            XCTAssertEqual(try lines(r.out).filter { $0["kind"] as? String == "item" }.count, 2_001, "\(flags)")
        }
    }

    func testAnInterruptedRunLeavesNoOutputFile() throws {
        let dir = try tempDir()
        let out = dir.appendingPathComponent("out.jsonl")
        let stats = dir.appendingPathComponent("stats.json")
        let half = try Data(contentsOf: feeds.appendingPathComponent("rss2-basic.xml")).prefix(900)
        for jobs in ["1", "2"] {
            let errors = dir.appendingPathComponent("errors.jsonl")
            let r = try interrupt(["-j", jobs, "-o", out.path, "--errors", errors.path, "--stats", stats.path],
                                  temporary: "errors.jsonl", in: dir, feed: half)
            XCTAssertEqual(r.status, 130, "-j \(jobs)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["stats.json"],
                           "-j \(jobs): no output, no errors file, no temporary")
            let s = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any]
            XCTAssertEqual(s?["interrupted"] as? Bool, true)
            try FileManager.default.removeItem(at: stats)
        }
    }

    /// After an interrupt, `--stats` counts what was written: its items and feeds are the
    /// item and feed lines on standard output, not what parsers had read beyond them.
    func testAnInterruptedRunCountsWhatItWrote() throws {
        let dir = try tempDir()
        let stats = dir.appendingPathComponent("stats.json")
        let feed = try Data(contentsOf: feeds.appendingPathComponent("rss2-basic.xml"))
        let p = Process()
        p.executableURL = binary
        p.arguments = ["convert", "-q", "-j", "2", "--stats", stats.path, "-"]
        let inp = Pipe(), out = Pipe()
        p.standardInput = inp
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Documents keep coming until the signal; some of their lines are out by then.
        // (The writer's last write fails once the run is gone: EPIPE, not SIGPIPE.)
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let writerDone = DispatchSemaphore(value: 0)
        let writer = Thread {
            var chunk = Data()
            for _ in 0..<200 { chunk += feed }
            while (try? inp.fileHandleForWriting.write(contentsOf: chunk)) != nil {}
            writerDone.signal()
        }
        writer.start()
        var got = Data()
        while got.count < 200_000, let more = try out.fileHandleForReading.read(upToCount: 65_536), !more.isEmpty {
            got += more
        }
        kill(p.processIdentifier, SIGTERM)
        got += out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        writerDone.wait()   // its last write failed (the run is gone): before SIGPIPE is restored
        try? inp.fileHandleForWriting.close()
        XCTAssertEqual(p.terminationStatus, 143)
        let text = String(decoding: got, as: UTF8.self)
        let items = text.split(separator: "\n").filter { $0.contains(#""kind":"item""#) }.count
        let feedLines = text.split(separator: "\n").filter { $0.hasPrefix(#"{"schema":1,"kind":"feed""#) }.count
        let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
        XCTAssertEqual(s["interrupted"] as? Bool, true)
        XCTAssertGreaterThan(items, 0)
        XCTAssertEqual(s["items"] as? Int, items)
        XCTAssertEqual(s["feeds"] as? Int, feedLines)
    }

    func testAnInterruptedRunToStandardOutputEndsAtALineBoundary() throws {
        let dir = try tempDir()
        let errors = dir.appendingPathComponent("errors.jsonl")
        var feed = try Data(contentsOf: feeds.appendingPathComponent("rss2-basic.xml"))
        feed += try Data(contentsOf: feeds.appendingPathComponent("atom-basic.xml")).prefix(700)
        let r = try interrupt(["--errors", errors.path], temporary: "errors.jsonl", in: dir, feed: feed)
        XCTAssertEqual(r.status, 130)
        XCTAssertTrue(r.out.isEmpty || r.out.hasSuffix("\n"))
        XCTAssertNoThrow(try lines(r.out))
    }

    func testNoProgressBarWhenStandardErrorIsNotATerminal() throws {
        let r = try run(["convert", "corpus/feeds"])
        XCTAssertFalse(r.err.contains("\r"), r.err)
        XCTAssertEqual(r.err.split(separator: "\n").count, 1, "the summary only")
        XCTAssertEqual(try run(["convert", "-q", "corpus/feeds"]).err, "")
    }

    func testUsageErrorsExitWith2() throws {
        for args in [["--shard", "0/3"], ["--shard", "4/3"], ["--shard", "x"], ["-j", "0"], ["-", "-"],
                     ["--files-from", "-", "-"], ["--files-from", "no/such/list"], []] {
            let r = try run(["convert"] + args + (args.contains("-") || args.first == "--files-from" || args.isEmpty
                                                  ? [] : ["corpus/feeds"]))
            XCTAssertEqual(r.status, 2, "\(args): \(r.err)")
            XCTAssertFalse(r.err.isEmpty, "\(args)")
        }
    }
}
