import Foundation
import XCTest

/// What the README and `--help` promise about the command line (issue 18): exit
/// statuses, missing inputs, outputs that would overwrite inputs, temporary files,
/// non-XML files in folders.
final class CommandLinePromiseTests: CLITestCase {
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
        XCTAssertTrue(r.err.contains("1/2 files ok, 1 failed"), r.err)
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
            (["convert", "-j", "-1", "corpus/feeds"], "-j takes a number of at least 1"),
            (["convert", "-j", "0", "corpus/feeds"], "-j takes a number of at least 1"),
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
    }
}
