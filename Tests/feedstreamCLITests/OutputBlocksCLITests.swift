// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// Output to a regular file goes out in blocks of up to 64 KiB (many small inputs, one
/// `write` per block, not per input); to a pipe, each input's lines as they are ready.
/// Either way the bytes are the same, and an interrupted run's standard output holds
/// every line of the inputs it finished.
final class OutputBlocksCLITests: CLITestCase {
    /// `count` one-item feeds, each a file of its own (the name orders them).
    private func smallFeeds(_ count: Int, in dir: URL) throws -> URL {
        let folder = dir.appendingPathComponent("feeds")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<count {
            let feed = #"<?xml version="1.0"?><rss version="2.0"><channel><title>feed \#(i)</title>"#
                + #"<item><title>item \#(i) "quoted"</title><link>http://example.com/\#(i)</link></item></channel></rss>"#
            try Data(feed.utf8).write(to: folder.appendingPathComponent(String(format: "f%04d.xml", i)))
        }
        return folder
    }

    /// Runs `feedstream ARGS` with standard output written to `file` (a redirection).
    private func run(_ args: [String], standardOutputTo file: URL) throws -> Int32 {
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        p.currentDirectoryURL = Self.repo
        p.standardOutput = try FileHandle(forWritingTo: file)
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    func testAFileAStandardOutputRedirectedToAFileAndAPipeGetTheSameBytes() throws {
        let dir = try tempDir()
        let feeds = try smallFeeds(600, in: dir)   // ~250 KB of lines: several blocks
        let piped = try run(["convert", "-q", "-j", "1", feeds.path])
        XCTAssertEqual(piped.status, 0, piped.err)
        let records = try lines(piped.out)
        XCTAssertEqual(records.count, 1_200, "a feed line and an item line per input")
        XCTAssertEqual(records.filter { $0["kind"] as? String == "item" }.compactMap { $0["title"] as? String }.last,
                       #"item 599 "quoted""#)
        XCTAssertGreaterThan(piped.out.utf8.count, 3 * (64 << 10))

        for jobs in ["1", "2"] {
            let file = dir.appendingPathComponent("out-\(jobs).jsonl")
            let r = try run(["convert", "-q", "-j", jobs, "-o", file.path, feeds.path])
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertTrue(try Data(contentsOf: file) == Data(piped.out.utf8), "-o FILE, -j \(jobs)")

            let redirected = dir.appendingPathComponent("redirected-\(jobs).jsonl")
            XCTAssertEqual(try run(["convert", "-q", "-j", jobs, feeds.path], standardOutputTo: redirected), 0)
            XCTAssertTrue(try Data(contentsOf: redirected) == Data(piped.out.utf8), "> FILE, -j \(jobs)")
        }
    }

    /// Standard output redirected to a file, the run interrupted while it waits for a
    /// FIFO nobody writes to, after 40 small inputs whose lines (under one block) are
    /// still held: they are written before the run ends, all of them.
    func testAnInterruptedRunToAFileOnStandardOutputKeepsTheLinesOfEveryInputItFinished() throws {
        let dir = try tempDir()
        let feeds = try smallFeeds(40, in: dir)
        let fifo = dir.appendingPathComponent("z.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let alone = try run(["convert", "-q", "-j", "1", feeds.path])
        XCTAssertEqual(alone.status, 0, alone.err)
        XCTAssertLessThan(alone.out.utf8.count, 64 << 10, "under one block")

        let out = dir.appendingPathComponent("out.jsonl")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        let p = Process()
        p.executableURL = binary
        p.arguments = ["convert", "-q", "-j", "1", feeds.path, fifo]
        p.currentDirectoryURL = Self.repo
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = FileHandle.nullDevice
        try p.run()
        usleep(700_000)   // the 40 files are converted by then; the FIFO is waited for
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130)
        XCTAssertEqual(String(decoding: try Data(contentsOf: out), as: UTF8.self), alone.out)
    }
}
