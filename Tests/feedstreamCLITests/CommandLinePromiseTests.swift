// SPDX-License-Identifier: Apache-2.0
import Foundation
import FeedStreamTestSupport
import XCTest

/// What docs/CLI.md and `--help` promise about the command line: exit statuses, missing
/// inputs, outputs that would overwrite inputs, temporary files, signals, non-XML files
/// in folders.
final class CommandLinePromiseTests: CLITestCase {
    var feeds: URL { Self.repo.appendingPathComponent("corpus/feeds") }

    /// Starts `feedstream ARGS -` on a pipe, writes `feed` (bigger than a pipe holds, so
    /// when the write returns the run has read all but the last 64 KiB) and keeps the
    /// pipe open, then sends `signal`.
    private func signalled(_ args: [String], feed: Data, signal: Int32) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = binary
        p.arguments = args + ["-"]
        p.currentDirectoryURL = Self.repo
        let inp = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = inp
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let outData = Box(), errData = Box()
        let group = DispatchGroup()
        for (handle, box) in [(out.fileHandleForReading, outData), (err.fileHandleForReading, errData)] {
            group.enter()
            Thread { box.set(handle.readDataToEndOfFile()); group.leave() }.start()
        }
        inp.fileHandleForWriting.write(feed)   // returns once all but a pipe's worth is read
        usleep(200_000)
        kill(p.processIdentifier, signal)
        group.wait()
        p.waitUntilExit()
        try? inp.fileHandleForWriting.close()
        return (p.terminationStatus, String(decoding: outData.get(), as: UTF8.self),
                String(decoding: errData.get(), as: UTF8.self))
    }

    /// After an interrupt, the summary and --stats count what was written: the item and
    /// feed lines out, and the bytes read.
    func testTheSummaryAfterAnInterruptCountsWhatWasDone() throws {
        let dir = try tempDir()
        let one = try Data(contentsOf: feeds.appendingPathComponent("rss2-basic.xml"))
        let feed = (0..<200).reduce(into: Data()) { d, _ in d += one }   // 600 KB, 200 documents
        for (signal, status, output) in [(SIGINT, Int32(130), true), (SIGTERM, Int32(143), false)] {
            let stats = dir.appendingPathComponent("stats.json")
            let r = try signalled(["convert", "-j", "1", "--stats", stats.path]
                                  + (output ? ["-o", dir.appendingPathComponent("out.jsonl").path] : []),
                                  feed: feed, signal: signal)
            XCTAssertEqual(r.status, status, r.err)
            let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
            XCTAssertEqual(s["interrupted"] as? Bool, true)
            // At least the first 600 KB - 64 KiB - one 256 KiB read were read.
            let feedLines = try XCTUnwrap(s["feeds"] as? Int)
            let items = try XCTUnwrap(s["items"] as? Int)
            XCTAssertGreaterThan(try XCTUnwrap(s["bytes_in"] as? Int), 200_000, "\(s)")
            XCTAssertTrue(r.err.contains("\(feedLines) feeds"), r.err)
            XCTAssertTrue(r.err.contains("\(items) items"), r.err)
            if !output {
                let written = try lines(r.out)
                XCTAssertEqual(written.filter { $0["kind"] as? String == "item" }.count, items, "\(s)")
                XCTAssertEqual(written.filter { $0["kind"] as? String == "feed" }.count, feedLines, "\(s)")
            }
            try FileManager.default.removeItem(at: stats)
        }
    }

    /// A missing path is one failed input: reported (on standard error and in --errors),
    /// the other inputs converted, exit 1 — as a missing path of --files-from.
    func testMissingInputIsAFailedInputAndTheRunGoesOn() throws {
        let dir = try tempDir()
        let errors = dir.appendingPathComponent("errors.jsonl")
        let r = try run(["convert", "corpus/feeds/atom-basic.xml", "/nonexistent/feed.xml", "--errors", errors.path])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertEqual(try lines(r.out).count, 4)   // atom-basic.xml: its document and 3 items
        let reported = r.err.split(separator: "\n").filter { $0.contains("/nonexistent/feed.xml") }
        XCTAssertEqual(reported, ["feedstream: /nonexistent/feed.xml: No such file or directory"], r.err)
        XCTAssertTrue(r.err.contains("2 files (1 clean, 0 recovered, 1 failed)"), r.err)
        let records = try lines(String(contentsOf: errors, encoding: .utf8))
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(records.first?["file"] as? String, "/nonexistent/feed.xml")
        XCTAssertEqual(records.first?["code"] as? String, "io")
    }

    /// Every usage error exits 2 (ArgumentParser's own ones too, 64 before), and a
    /// negative number is said to be one.
    func testEveryUsageErrorExitsWith2() throws {
        let cases: [([String], String)] = [
            (["convert", "--bogus", "corpus/feeds"], "--bogus"),
            (["convert", "--backend", "nope", "corpus/feeds"], "nope"),
            (["convert", "--per", "items", "corpus/feeds"], "items"),
            (["convert", "-j", "abc", "corpus/feeds"], "abc"),
            (["convert", "-j", "-1", "corpus/feeds"], "-j takes 1 to 1024"),
            (["convert", "-j", "0", "corpus/feeds"], "-j takes 1 to 1024"),
            (["convert", "--max-depth", "-5", "corpus/feeds"], "--max-depth takes 0 (no limit) or more"),
            (["convert", "--shard", "9/8", "corpus/feeds"], "--shard"),
            (["convert"], "give inputs"),
            (["diff", "--bogus", "corpus/feeds"], "--bogus"),
            (["bench", "--bogus", "corpus/feeds"], "--bogus"),
        ]
        for (args, said) in cases {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains(said), "\(args): \(r.err)")
            XCTAssertFalse(r.err.contains("Missing value"), "\(args): \(r.err)")
            XCTAssertEqual(r.out, "", "\(args)")
        }
        let help = try run(["convert", "--help"])   // not an error
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.out.contains("--max-depth"), help.out)
        // The default backend, as the help says it (FeedBackend.default).
        XCTAssertTrue(help.out.contains("default: swift)"), help.out)
    }

    /// Every numeric option is bounded: a value out of its range, at its extremes too, is
    /// a usage error naming the range (exit 2, nothing written, nothing allocated for it);
    /// the largest values a range takes run as any other.
    func testEveryNumericOptionIsBounded() throws {
        let feed = "corpus/feeds/atom-basic.xml"
        let huge = ["1025", "4294967296", "4611686018427387904", "9223372036854775807"]
        var refused: [([String], String)] = []
        for v in ["0", "-1"] + huge { refused.append((["convert", "-j", v, feed], "-j takes 1 to 1024")) }
        for v in ["0", "-1", "1001"] + huge.dropFirst() { refused.append((["bench", "--runs", v, feed], "--runs takes 1 to 1000")) }
        for v in ["-1", "1000001"] + huge.dropFirst() {
            refused.append((["diff", "--limit", v, feed], "--limit takes 0 to 1000000"))
        }
        let limits = ["--max-depth", "--max-field-bytes", "--max-attributes", "--max-items", "--max-document-bytes",
                      "--max-ratio", "--max-markup-bytes"]
        for flag in limits {
            refused.append((["convert", flag, "-1", feed], "\(flag) takes 0 (no limit) or more"))
            refused.append((["convert", flag, "9223372036854775808", feed], "9223372036854775808"))   // past Int
        }
        for (args, said) in refused {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains(said), "\(args): \(r.err)")
            XCTAssertEqual(r.out, "", "\(args)")
        }
        let largest = try run(["convert", "-q", "-j", "1024"] + limits.flatMap { [$0, "9223372036854775807"] } + [feed])
        XCTAssertEqual(largest.status, 0, largest.err)
        XCTAssertEqual(try lines(largest.out).count, 4)   // atom-basic.xml: its document and 3 items
    }

    /// `-o` (and `--errors`, `--stats`) never replaces an input: the same file however it
    /// is named, or a file inside a folder being walked, is refused with exit 2.
    func testOutputThatWouldReplaceAnInputIsRefused() throws {
        let dir = try tempDir()
        let feed = dir.appendingPathComponent("same.xml")
        let original = try Data(contentsOf: Self.repo.appendingPathComponent("corpus/feeds/atom-basic.xml"))
        try original.write(to: feed)
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("link.xml"), withDestinationURL: feed)
        let refused: [[String]] = [
            [feed.path, "-o", feed.path],
            [feed.path, "-o", dir.path + "/./same.xml"],
            [dir.appendingPathComponent("link.xml").path, "-o", feed.path],
            [feed.path, "--errors", feed.path],
            [feed.path, "--stats", feed.path],
            [dir.path, "-o", dir.appendingPathComponent("out.jsonl").path],
        ]
        for args in refused {
            let r = try run(["convert"] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains("refusing to"), "\(args): \(r.err)")
            XCTAssertEqual(try Data(contentsOf: feed), original, "\(args)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["link.xml", "same.xml"])
        let elsewhere = try tempDir().appendingPathComponent("out.jsonl")
        let ok = try run(["convert", "-q", dir.path, "-o", elsewhere.path])
        XCTAssertEqual(ok.status, 0, ok.err)
        XCTAssertEqual(try lines(String(contentsOf: elsewhere, encoding: .utf8)).count, 8)   // same.xml and link.xml
        XCTAssertEqual(try run(["convert", "-q", feed.path, "-o", "/dev/null"]).status, 0)   // a device replaces nothing
    }

    /// No output replaces an input however the input was named (a path of `--files-from`,
    /// the list itself, the file on standard input) nor another output (`-o X --errors X`,
    /// `-o X --stats ./X`): the run is refused with exit 2 and every file is left as it was,
    /// no temporary file behind. Devices take several outputs.
    func testNoOutputReplacesAnInputOrAnotherOutput() throws {
        let dir = try tempDir()
        let feed = dir.appendingPathComponent("in.xml")
        let original = try Data(contentsOf: Self.repo.appendingPathComponent("corpus/feeds/atom-basic.xml"))
        try original.write(to: feed)
        let list = dir.appendingPathComponent("list")
        try Data((feed.path + "\n").utf8).write(to: list)
        let out = dir.appendingPathComponent("out.jsonl")
        let refused: [([String], String)] = [
            (["--files-from", list.path, "-o", feed.path], "is the input"),
            (["--files-from", list.path, "--errors", feed.path], "is the input"),
            (["--files-from", list.path, "-o", list.path], "is the input"),
            ([feed.path, "-o", out.path, "--errors", out.path], "name the same file"),
            ([feed.path, "-o", out.path, "--stats", dir.path + "/./out.jsonl"], "name the same file"),
            ([feed.path, "--errors", "-"], "name the same file"),
        ]
        for (args, said) in refused {
            let r = try run(["convert", "-q"] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains(said), "\(args): \(r.err)")
            XCTAssertEqual(try Data(contentsOf: feed), original, "\(args)")
            XCTAssertEqual(try String(contentsOf: list, encoding: .utf8), feed.path + "\n", "\(args)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["in.xml", "list"], "\(args)")
        }
        // The file on standard input.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exec \"$0\" convert -q - -o \"$1\" < \"$1\"", binary.path, feed.path]
        let err = Pipe()
        p.standardError = err
        try p.run()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 2, said)
        XCTAssertTrue(said.contains("is the standard input"), said)
        XCTAssertEqual(try Data(contentsOf: feed), original)
        // A device takes both outputs; the same list to a file of its own converts.
        XCTAssertEqual(try run(["convert", "-q", "--files-from", list.path, "-o", "/dev/null", "--errors", "/dev/null"]).status, 0)
        let ok = try run(["convert", "-q", "--files-from", list.path, "-o", out.path])
        XCTAssertEqual(ok.status, 0, ok.err)
        XCTAssertEqual(try lines(String(contentsOf: out, encoding: .utf8)).count, 4)
    }

    /// Every signal that ends a process and can be caught removes the temporary output
    /// files; SIGPIPE too (exit 141, as its default action). Before, SIGPIPE, SIGHUP and
    /// the others killed the process and left `.NAME.partial-PID` behind.
    func testEveryCatchableSignalRemovesTheTemporaryFiles() throws {
        let dir = try tempDir()
        let half = try Data(contentsOf: Self.repo.appendingPathComponent("corpus/feeds/rss2-basic.xml")).prefix(900)
        for sig in [SIGPIPE, SIGHUP, SIGQUIT, SIGUSR1, SIGTERM] {
            let r = try interrupt(["-o", dir.appendingPathComponent("out.jsonl").path,
                                   "--errors", dir.appendingPathComponent("errors.jsonl").path],
                                  temporary: "errors.jsonl", in: dir, feed: half, signal: sig)
            XCTAssertEqual(r.status, 128 + sig, "signal \(sig)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "signal \(sig)")
        }
    }

    /// A signal ignored when feedstream starts stays ignored: `nohup` ignores SIGHUP so
    /// that a run outlives its terminal, and a shell script's `cmd &` job ignores SIGINT.
    /// Before, convert caught them anyway, and a `nohup` run stopped (exit 129, no output)
    /// when the terminal closed. The run below gets each while it waits for input, goes
    /// on, and converts the whole feed.
    func testSignalsIgnoredAtStartStayIgnored() throws {
        let dir = try tempDir()
        let feed = try Data(contentsOf: Self.repo.appendingPathComponent("corpus/feeds/rss2-basic.xml"))
        let out = dir.appendingPathComponent("out.jsonl")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "trap '' HUP INT; exec \"$0\" convert -q -o \"$1\" -", binary.path, out.path]
        p.currentDirectoryURL = Self.repo
        let inp = Pipe()
        p.standardInput = inp
        try p.run()
        inp.fileHandleForWriting.write(feed.prefix(900))
        waitForTemporary(of: out, by: p)
        kill(p.processIdentifier, SIGHUP)
        kill(p.processIdentifier, SIGINT)
        usleep(300_000)
        guard p.isRunning else {   // (and no write to its closed pipe: SIGPIPE here)
            return XCTFail("SIGHUP or SIGINT, ignored at start, stopped the run: status \(p.terminationStatus)")
        }
        inp.fileHandleForWriting.write(feed.dropFirst(900))
        try inp.fileHandleForWriting.close()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let written = try lines(String(contentsOf: out, encoding: .utf8))
        XCTAssertEqual(written.count, 4, "the feed's 3 items and its feed line")
    }

    /// SIGKILL cannot be caught: the next run to the same output removes the temporaries
    /// of processes that no longer run, and only those.
    func testTheNextRunRemovesTheTemporariesOfDeadProcesses() throws {
        let dir = try tempDir()
        let dead = Process()   // a pid that has run and ended
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let names = [".out.jsonl.partial-\(dead.processIdentifier)",            // removed
                     ".out.jsonl.partial-\(ProcessInfo.processInfo.processIdentifier)",   // alive: kept
                     ".other.jsonl.partial-\(dead.processIdentifier)",          // another output's: kept
                     ".out.jsonl.partial-x"]                                     // not a pid: kept
        for name in names { try Data("{\"partial\n".utf8).write(to: dir.appendingPathComponent(name)) }
        let r = try run(["convert", "-q", "corpus/feeds/atom-basic.xml", "-o", dir.appendingPathComponent("out.jsonl").path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
                       (names.dropFirst() + ["out.jsonl"]).sorted())
    }

    /// A failed write names the file written (before: `output error: write failed: …`).
    func testAFailedWriteNamesTheFile() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw skip("no /dev/full") }
        let out = try run(["convert", "-q", "corpus/feeds", "-o", "/dev/full"])
        XCTAssertEqual(out.status, 2)
        XCTAssertEqual(out.err, "feedstream: /dev/full: write failed: No space left on device\n")
        let errors = try run(["convert", "-q", "corpus/bad/mismatched.xml", "--errors", "/dev/full"])
        XCTAssertEqual(errors.status, 2)
        XCTAssertTrue(errors.err.hasSuffix("feedstream: /dev/full: write failed: No space left on device\n"), errors.err)
    }

    /// Files found in folders that are neither XML nor gzip (by their first bytes, after a
    /// byte order mark and white space) are skipped and counted, not failed; a file
    /// given by name, or asked for by --include, is parsed whatever it holds.
    func testNonXMLFilesInFoldersAreSkippedAndCounted() throws {
        let dir = try tempDir()
        let rss = #"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>i</title></item></channel></rss>"#
        func put(_ name: String, _ data: Data) throws { try data.write(to: dir.appendingPathComponent(name)) }
        try put("a-plain.xml", Data(rss.utf8))
        try put("b-blank-first.xml", Data(("\n\t  " + rss).utf8))
        try put("c-bom.xml", Data([0xEF, 0xBB, 0xBF] + Array(rss.utf8)))
        try put("d-utf16.xml", Data([0xFF, 0xFE]) + rss.replacingOccurrences(of: "?>", with: " encoding=\"UTF-16\"?>")
                    .data(using: .utf16LittleEndian)!)
        try sh("gzip -c '\(dir.path)/a-plain.xml' > '\(dir.path)/e-packed.xml.gz'")
        try put("README.md", Data("# notes\n<b>not</b> a feed\n".utf8))
        try put("generate.py", Data("import sys\n".utf8))
        try put("expected.jsonl", Data("{\"schema\":1}\n".utf8))
        let stats = try tempDir().appendingPathComponent("stats.json")
        let r = try run(["convert", dir.path, "--stats", stats.path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(try lines(r.out).filter { $0["kind"] as? String == "item" }.count, 5)
        XCTAssertTrue(r.err.hasPrefix("feedstream: 5 files (5 clean, 0 recovered, 0 failed); skipped 3 non-XML files; 5 feeds"), r.err)
        let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
        XCTAssertEqual(s["files"] as? Int, 5)
        XCTAssertEqual(s["files_failed"] as? Int, 0)
        XCTAssertEqual(s["files_skipped"] as? Int, 3)

        let named = try run(["convert", "-q", dir.appendingPathComponent("README.md").path])
        XCTAssertEqual(named.status, 0, "read by the recovery path: nothing lost")
        XCTAssertTrue(named.err.contains("README.md: document 1, line 1"), named.err)
        let included = try run(["convert", "--include", "*.md", dir.path])
        XCTAssertEqual(included.status, 0)
        XCTAssertTrue(included.err.contains("feedstream: 1 file (0 clean, 1 recovered, 0 failed); "), included.err)
        XCTAssertFalse(included.err.contains("skipped"), included.err)

        // diff walks folders as convert does: the same files skipped, none reported.
        let diff = try run(["diff", dir.path])
        XCTAssertEqual(diff.status, 0, diff.out + diff.err)
        XCTAssertTrue(diff.out.contains("5 inputs"), diff.out)
        XCTAssertTrue(diff.out.hasSuffix("0 differences (skipped 3 non-XML files)\n"), diff.out)
    }
}

/// Exit statuses a pipeline can act on: 1 for data errors, 0 for them under
/// --data-errors-ok (the errors still reported), 2 for usage and output errors whatever
/// the option.
final class DataErrorsOKTests: CLITestCase {
    func testDataErrorsOKExitsZeroAndStillReports() throws {
        let dir = try tempDir()
        let errors = dir.appendingPathComponent("errors.jsonl")
        let inputs = ["corpus/feeds/atom-basic.xml", "corpus/bad/mismatched.xml", "/nonexistent/feed.xml"]
        let strict = try run(["convert", "-q"] + inputs)
        XCTAssertEqual(strict.status, 1, strict.err)
        let lenient = try run(["convert", "-q", "--data-errors-ok", "--errors", errors.path] + inputs)
        XCTAssertEqual(lenient.status, 0, lenient.err)
        XCTAssertEqual(lenient.out, strict.out)   // the same lines, good items of the bad feed included
        XCTAssertTrue(lenient.err.contains("mismatched.xml: document 1, line 22"), lenient.err)
        let records = try lines(String(contentsOf: errors, encoding: .utf8))
        XCTAssertEqual(records.compactMap { $0["file"] as? String }.sorted(),
                       ["/nonexistent/feed.xml", "corpus/bad/mismatched.xml"])
        for usage in [["--data-errors-ok", "--bogus"], ["--data-errors-ok", "--per", "bogus"],
                      ["--data-errors-ok", "-j", "0"], ["--data-errors-ok", "-o", "/nonexistent/dir/out.jsonl"]] {
            let r = try run(["convert", "-q"] + usage + ["corpus/feeds/atom-basic.xml"])
            XCTAssertEqual(r.status, 2, "\(usage): \(r.err)")
        }
    }
}

private final class Box: @unchecked Sendable {   // set once, read after the group's wait
    private var data = Data()
    func set(_ d: Data) { data = d }
    func get() -> Data { data }
}
