// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// Errors are records: every error reaches `--errors` (or a record says how many did
/// not), and standard error has one line per error, whatever a file name or a
/// tokenizer's message holds.
final class LosslessCLITests: CLITestCase {
    private let bad = #"<?xml version="1.0"?><rss version="2.0"><channel><title>x</titel></channel></rss>"#

    func testAFileNameWithControlCharactersIsOneEscapedLine() throws {
        let dir = try tempDir()
        let name = "a\nb\u{1B}[31mc\\d.xml"
        try Data(bad.utf8).write(to: dir.appendingPathComponent(name))
        let errors = dir.appendingPathComponent("errors.jsonl").path
        let r = try run(["convert", "-q", "-o", "/dev/null", "--errors", errors, dir.path])
        XCTAssertEqual(r.status, 0, "recovered")
        let lines = r.err.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        XCTAssertEqual(lines, ["feedstream: \(dir.path)/a\\nb\\u{1B}[31mc\\\\d.xml: document 1, line 1, column 60: mismatched tag (recovered)"])
        // The JSON record keeps the name as it is.
        let records = try self.lines(try String(contentsOfFile: errors, encoding: .utf8))
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(records.first?["file"] as? String, "\(dir.path)/\(name)")
    }

    func testLibxml2TwoLineMessagesAreOneLine() throws {
        // Invalid UTF-8: libxml2 says "Input is not proper UTF-8, indicate encoding !"
        // and the bytes on a second line.
        let dir = try tempDir()
        let file = dir.appendingPathComponent("bad-utf8.xml")
        try Data(#"<?xml version="1.0"?><rss version="2.0"><channel><title>"#.utf8 + [0xC3, 0x28] + "</title></channel></rss>".utf8)
            .write(to: file)
        let errors = dir.appendingPathComponent("errors.jsonl").path
        let r = try run(["convert", "-q", "--backend", "libxml2", "-o", "/dev/null", "--errors", errors, file.path])
        XCTAssertEqual(r.status, 0, "recovered")
        XCTAssertEqual(r.err.filter { $0 == "\n" }.count, 1, r.err)
        XCTAssertTrue(r.err.hasPrefix("feedstream: \(file.path): document 1, line 1, column "), r.err)
        let record = try XCTUnwrap(try lines(try String(contentsOfFile: errors, encoding: .utf8)).first)
        let reason = try XCTUnwrap(record["reason"] as? String)
        XCTAssertFalse(reason.contains("\n"), reason)
        XCTAssertFalse(reason.isEmpty)
    }

    func testErrorsPastTheCapEndWithARecordOfHowMany() throws {
        // 10,003 failed documents in one input: 10,000 error records, then one that says
        // 3 more were not listed.
        let dir = try tempDir()
        let dump = dir.appendingPathComponent("dump.xml")
        try Data(String(repeating: bad + "\n", count: 10_003).utf8).write(to: dump)
        let errors = dir.appendingPathComponent("errors.jsonl").path
        let r = try run(["convert", "-q", "-o", "/dev/null", "--errors", errors, dump.path])
        XCTAssertEqual(r.status, 0, "every document recovered")
        let records = try lines(try String(contentsOfFile: errors, encoding: .utf8))
        XCTAssertEqual(records.count, 10_001)
        XCTAssertEqual(records[9_999]["document"] as? Int, 10_000)
        XCTAssertEqual(records[9_999]["code"] as? String, "xml")
        let last = try XCTUnwrap(records.last)
        XCTAssertEqual(last["code"] as? String, "errors_dropped")
        XCTAssertEqual(last["dropped"] as? Int, 3)
        XCTAssertEqual(last["file"] as? String, dump.path)
        XCTAssertTrue(r.err.hasSuffix("feedstream: \(dump.path): 3 more errors not listed\n"), String(r.err.suffix(200)))
    }

    private let feed = #"<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>i</title></item></channel></rss>"#

    func testSymbolicLinksAreFollowedOnceAndDanglingOnesReported() throws {
        // a/f.xml; b -> a (a linked folder: walked); a/up -> .. (a cycle: not walked
        // again); gone.xml -> nowhere (dangling: reported).
        let dir = try tempDir()
        let a = dir.appendingPathComponent("a")
        try FileManager.default.createDirectory(at: a, withIntermediateDirectories: true)
        try Data(feed.utf8).write(to: a.appendingPathComponent("f.xml"))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("b").path, withDestinationPath: "a")
        try FileManager.default.createSymbolicLink(atPath: a.appendingPathComponent("up").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("gone.xml").path,
                                                   withDestinationPath: "nowhere.xml")
        let stats = try tempDir().appendingPathComponent("stats.json").path
        let r = try run(["convert", "-o", "-", "--stats", stats, dir.path])
        XCTAssertEqual(r.status, 1, r.err)
        let sources = try lines(r.out).filter { $0["kind"] as? String == "feed" }.compactMap { $0["source"] as? String }
        XCTAssertEqual(sources, ["\(dir.path)/a/f.xml", "\(dir.path)/b/f.xml"])
        XCTAssertTrue(r.err.contains("feedstream: \(dir.path)/gone.xml: No such file or directory"), r.err)
        let s = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any])
        let found = try XCTUnwrap(s["files_found"] as? Int), ok = try XCTUnwrap(s["files_ok"] as? Int)
        let failed = try XCTUnwrap(s["files_failed"] as? Int), skipped = try XCTUnwrap(s["files_skipped"] as? Int)
        XCTAssertEqual([found, ok, failed, skipped], [3, 2, 1, 0])
        XCTAssertEqual(found, ok + failed + skipped)
    }

    func testANonUTF8FileNameIsReadAndWrittenLosslessly() throws {
        // café.xml in Latin-1 (63 61 66 E9): it opens, and its source is "caf\udce9.xml"
        // in JSON (Python: os.fsencode(json.loads(...)) gives the bytes back).
        let dir = try tempDir()
        try sh("printf '%s' '\(feed)' > '\(dir.path)/'\"$(printf 'caf\\351.xml')\"")
        try sh("printf '<rss>' > '\(dir.path)/'\"$(printf 'bad\\377.xml')\"")
        let errors = dir.appendingPathComponent("errors.jsonl").path
        let r = try run(["convert", "-q", "-o", "-", "--errors", errors, dir.path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains(#""source":"\#(dir.path)/caf\udce9.xml""#), r.out)
        XCTAssertEqual(r.out.components(separatedBy: #""kind":"item""#).count - 1, 1)
        // The failed one: \xFF on standard error, \udcff in the errors file.
        XCTAssertTrue(r.err.contains("\(dir.path)/bad\\xFF.xml: "), r.err)
        let record = try String(contentsOfFile: errors, encoding: .utf8)
        XCTAssertTrue(record.contains(#""file":"\#(dir.path)/bad\udcff.xml""#), record)
        // Named in a --files-from list, as bytes too.
        let list = try tempDir().appendingPathComponent("list")
        try Data(Array("\(dir.path)/caf".utf8) + [0xE9] + Array(".xml\n".utf8)).write(to: list)
        let listed = try run(["convert", "-q", "-o", "-", "--files-from", list.path])
        XCTAssertEqual(listed.status, 0, listed.err)
        XCTAssertTrue(listed.out.contains(#""source":"\#(dir.path)/caf\udce9.xml""#), listed.out)
    }

    func testAFIFONobodyWritesToDoesNotHoldASignal() throws {
        // The first SIGTERM stops the run even while it waits for a FIFO's writer (a
        // blocking open would be restarted after the signal and wait for a second one).
        let dir = try tempDir()
        let fifo = dir.appendingPathComponent("in.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let out = dir.appendingPathComponent("out.jsonl")
        let p = Process()
        p.executableURL = binary
        p.arguments = ["convert", "-q", "-o", out.path, fifo]
        p.standardError = FileHandle.nullDevice
        try p.run()
        try terminate(p, writing: out, after: 200_000, "while waiting for the FIFO")   // in the open by then
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    /// A signal after the conversion is honoured too: with `--stats` naming a FIFO no one
    /// reads, the run blocks opening it once the output is in place; SIGTERM ends it
    /// within the grace second with 143.
    func testASignalWhileStatsWaitForAReaderEndsTheRun() throws {
        let dir = try tempDir()
        let fifo = dir.appendingPathComponent("stats.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let input = dir.appendingPathComponent("in.xml")
        try Data(bad.utf8).write(to: input)
        let out = dir.appendingPathComponent("out.jsonl")
        let p = Process()
        p.executableURL = binary
        p.arguments = ["convert", "-q", "-o", out.path, "--stats", fifo, input.path]
        let err = Pipe()
        p.standardError = err
        try p.run()
        // The output is in place once the conversion is done; then the FIFO's open waits.
        let appeared = DispatchTime.now() + .seconds(20)
        while !FileManager.default.fileExists(atPath: out.path) && p.isRunning && DispatchTime.now() < appeared {
            usleep(10_000)
        }
        usleep(200_000)
        XCTAssertTrue(p.isRunning, "the run waits for the FIFO's reader")
        kill(p.processIdentifier, SIGTERM)
        let deadline = DispatchTime.now() + .seconds(20)
        while p.isRunning && DispatchTime.now() < deadline { usleep(10_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            XCTFail("SIGTERM was not honoured while --stats waited for a reader")
        }
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 128 + SIGTERM)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(message.contains("interrupted"), message)
    }

    /// A FIFO, a regular file and a character device named side by side: each is opened
    /// without waiting and told by its descriptor, and the FIFO is then read with
    /// blocking reads: its writer sends the feed in two parts 300 ms apart, and every
    /// item of both parts arrives (a read left non-blocking would see no data between
    /// the parts and end the input early). The device (`/dev/null`) is reported as an
    /// empty input.
    func testAFIFOAFileAndADeviceAreEachReadWhole() throws {
        let dir = try tempDir()
        let fifo = dir.appendingPathComponent("in.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let file = dir.appendingPathComponent("plain.xml")
        try Data(#"<rss version="2.0"><channel><title>f</title><item><title>file</title></item></channel></rss>"#.utf8)
            .write(to: file)
        let first = #"<rss version="2.0"><channel><title>p</title><item><title>one</title></item>"#
        let second = #"<item><title>two</title></item></channel></rss>"#
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)   // waits for the reader
            guard fd >= 0 else { return }
            _ = first.withCString { write(fd, $0, strlen($0)) }
            usleep(300_000)
            _ = second.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        writer.start()
        let r = try run(["convert", "-q", "-j", "1", "-o", "-", file.path, fifo, "/dev/null"])
        let titles = r.out.split(separator: "\n").filter { $0.contains(#""kind":"item""#) }
            .compactMap { line in ["file", "one", "two"].first { line.contains(#""title":"\#($0)""#) } }
        XCTAssertEqual(titles, ["file", "one", "two"], r.out)
        // The device is reported as what it is, an empty input (so the run's status is 1).
        XCTAssertTrue(r.err.contains("/dev/null: empty input"), r.err)
        XCTAssertEqual(r.status, 1, r.err)
    }

    /// SIGTERM is honoured within a second whatever a parser is doing: here it reads a
    /// long stretch of input with nothing in it (a sparse file of 200 GB of zero bytes:
    /// no item, no document, so no place where the parser looks at the signal), which
    /// would take minutes to read to its end. The run is ended after
    /// the grace second: status 143, no output file and no temporary left, no `--stats`.
    func testASignalEndsTheRunWithinASecondWhateverTheParserIsDoing() throws {
        let dir = try tempDir()
        let input = dir.appendingPathComponent("zeros.xml")
        XCTAssertTrue(FileManager.default.createFile(atPath: input.path, contents: nil))
        XCTAssertEqual(truncate(input.path, 200 << 30), 0, "a sparse file")
        let out = dir.appendingPathComponent("out.jsonl"), stats = dir.appendingPathComponent("stats.json")
        let p = Process()
        p.executableURL = binary
        p.arguments = ["convert", "-q", "-j", "1", "-o", out.path, "--stats", stats.path, input.path]
        let err = Pipe()
        p.standardError = err
        try p.run()
        // Reading the whole file takes minutes.
        try terminate(p, writing: out, after: 500_000, "while the parser read input with nothing in it")
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(message.contains("not ended within a second"), message)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["zeros.xml"])
    }

    /// Sends SIGTERM to a run writing `-o out`, `microseconds` after its temporary output
    /// appeared, and checks that it ends with 143. A watchdog, not a measure: a run that
    /// ignores the signal for 20 s is killed and fails.
    private func terminate(_ p: Process, writing out: URL, after microseconds: useconds_t, _ what: String,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        waitForTemporary(of: out, by: p, file: file, line: line)
        usleep(microseconds)
        kill(p.processIdentifier, SIGTERM)
        let deadline = DispatchTime.now() + .seconds(20)
        while p.isRunning && DispatchTime.now() < deadline { usleep(10_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            XCTFail("SIGTERM was not honoured " + what, file: file, line: line)
        }
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 128 + SIGTERM, file: file, line: line)
    }
}
