import Foundation
import XCTest

/// The promises the README makes about the command line (issue 18), each checked as a
/// user meets it.
final class PromisesCLITests: CLITestCase {
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

    /// Item 7: after an interrupt, the summary and --stats count what was done.
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
            // At least the documents of the first 600 KB - 64 KiB - one 256 KiB read were parsed.
            let feedsParsed = try XCTUnwrap(s["feeds"] as? Int)
            let items = try XCTUnwrap(s["items"] as? Int)
            XCTAssertGreaterThanOrEqual(feedsParsed, 60, "\(s)")
            XCTAssertGreaterThan(items, 0, "\(s)")
            XCTAssertGreaterThan(try XCTUnwrap(s["bytes_in"] as? Int), 200_000, "\(s)")
            XCTAssertTrue(r.err.contains("\(feedsParsed) feeds"), r.err)
            XCTAssertTrue(r.err.contains("\(items) items"), r.err)
            if !output {
                let written = try lines(r.out).filter { $0["kind"] as? String == "item" }.count
                XCTAssertLessThanOrEqual(written, items, "items counted include every item written")
            }
            try FileManager.default.removeItem(at: stats)
        }
    }
}

private final class Box: @unchecked Sendable {   // set once, read after the group's wait
    private var data = Data()
    func set(_ d: Data) { data = d }
    func get() -> Data { data }
}
