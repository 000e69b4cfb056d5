// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The big hostile inputs (corpus/hostile/README.md, "--big") through `feedstream
/// convert`, each run in a child process whose peak resident memory is measured
/// (`RUSAGE_CHILDREN` of a small parent): a million-deep nesting, a 200 MB text node and a 1 GiB gzip bomb must
/// fail with their limit error, and cost no more memory than converting a small feed
/// does, give or take a few buffers.
final class HostileCLITests: CLITestCase {
    private struct Measured {
        var status: Int32
        var err: String
        var peakKB: Int
    }

    /// Runs the binary with standard output to /dev/null; returns its exit status,
    /// standard error and peak resident set size.
    ///
    /// The binary is started by a small Python process, not by this one: Linux carries
    /// the resident high-water mark of the process that spawned a child over its exec
    /// (`posix_spawn` shares the parent's memory until then), so a child of this test
    /// process would report at least the test process's own peak.
    private func measure(_ args: [String]) throws -> Measured {
        let errPath = FileManager.default.temporaryDirectory.appendingPathComponent("feedstream-err-\(UUID().uuidString)").path
        defer { unlink(errPath) }
        let script = """
            import resource, subprocess, sys
            with open(sys.argv[1], "wb") as err:
                status = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err).returncode
            print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let r = try run(["--version"])   // the binary exists and runs
        XCTAssertEqual(r.status, 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, errPath, binary.path] + args
        p.currentDirectoryURL = Self.repo
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ").map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        guard fields.count == 2, let status = fields[0], let peak = fields[1] else {
            XCTFail("measuring \(args): \(String(decoding: data, as: UTF8.self))")
            return Measured(status: -1, err: err, peakKB: 0)
        }
        return Measured(status: Int32(status), err: err, peakKB: peak)   // kilobytes on Linux
    }

    func testBigHostileInputsFailWithTheirLimitInFlatMemory() throws {
        let dir = try tempDir()
        try sh("python3 corpus/generate.py hostile --big -o '\(dir.path)'")
        let backends = ["expat", "libxml2", "swift"]
        var baseline: [String: Int] = [:]
        for backend in backends {
            let m = try measure(["convert", "-q", "--backend", backend, "corpus/feeds/rss2-basic.xml"])
            XCTAssertEqual(m.status, 0, m.err)
            baseline[backend] = m.peakKB
        }
        let cases: [(file: String, extra: [String], message: String, allowanceMB: Int)] = [
            ("million-deep.xml", [], "limit exceeded: element depth 1025 > 1024", 32),
            ("text-200mb.xml", [], "limit exceeded: field text > 8388608 bytes", 48),
            ("gzip-bomb-1gib.xml.gz", ["-j", "1"], "limit exceeded: decompression ratio > 200", 32),
            ("gzip-bomb-1gib.xml.gz", ["-j", "2"], "limit exceeded: decompression ratio > 200", 32),   // read-ahead pipeline
        ]
        // The recovery path keeps a document's bytes, up to 16 MiB, while it is read; under
        // AddressSanitizer the buffers it outgrew wait in the quarantine too.
        let sanitizedCases = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        for c in cases {
            for backend in backends {
                let allowanceMB = c.allowanceMB + (sanitizedCases ? 48 : 0)
                let m = try measure(["convert", "-q", "--backend", backend] + c.extra + [dir.appendingPathComponent(c.file).path])
                let what = "\(c.file) \(c.extra), \(backend): \(m.err)"
                print("hostile CLI: \(c.file) \(c.extra.joined(separator: " ")) \(backend): peak \(m.peakKB / 1024) MB "
                      + "(small feed: \(baseline[backend]! / 1024) MB)")
                XCTAssertEqual(m.status, 1, what)
                XCTAssertTrue(m.err.contains(c.message), what)
                XCTAssertTrue(m.err.contains("document 1, line "), "\(what): a position")
                XCTAssertLessThan(m.peakKB, baseline[backend]! + allowanceMB * 1024, "\(what): peak memory")
            }
        }
        // Without the field limit, the 200 MB text is held only up to the item limit
        // (64 MiB, then truncated): memory stays bounded, and the document is fine.
        // Under AddressSanitizer (the CI's sanitized pass; the child is built the same
        // way) freed buffers wait in ASan's quarantine: a wider bound, still far below
        // what holding the whole text would cost.
        let sanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        let textAllowanceMB = sanitized ? 400 : 200
        for backend in backends {
            let m = try measure(["convert", "-q", "--backend", backend, "--max-field-bytes", "0",
                                 dir.appendingPathComponent("text-200mb.xml").path])
            print("hostile CLI: text-200mb.xml --max-field-bytes 0 \(backend): peak \(m.peakKB / 1024) MB")
            XCTAssertEqual(m.status, 0, "\(backend): \(m.err)")
            XCTAssertLessThan(m.peakKB, baseline[backend]! + textAllowanceMB * 1024, "\(backend): peak memory")
        }
    }

    func testLimitFlags() throws {
        let dir = try tempDir()
        let doc = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>"
            + "<item><title>one</title></item><item><title>two</title></item><item><title>three</title></item></channel></rss>\n"
        let file = dir.appendingPathComponent("three.xml")
        try doc.write(to: file, atomically: true, encoding: .utf8)
        for (flags, message) in [(["--max-items", "2"], "limit exceeded: items 3 > 2"),
                                 (["--max-depth", "3"], "limit exceeded: element depth 4 > 3"),
                                 (["--max-field-bytes", "4"], "limit exceeded: field text > 4 bytes"),
                                 (["--max-document-bytes", "100"], "limit exceeded: document size > 100 bytes")] {
            let r = try run(["convert", "-q"] + flags + [file.path])
            XCTAssertEqual(r.status, 1, "\(flags)")
            XCTAssertTrue(r.err.contains(message), "\(flags): \(r.err)")
            let feed = try XCTUnwrap(try lines(r.out).last)
            let error = try XCTUnwrap(feed["error"] as? [String: Any], "\(flags)")
            XCTAssertEqual(error["code"] as? String, "limit")
            XCTAssertEqual(error["message"] as? String, message)
        }
        // A comment of 400 KB past a 100 KB markup limit (checked every 256 KiB parsed).
        let comment = dir.appendingPathComponent("comment.xml")
        try ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><item><title>one</title></item><!--"
             + String(repeating: "x", count: 400_000) + "--></channel></rss>\n").write(to: comment, atomically: true, encoding: .utf8)
        let m = try run(["convert", "-q", "--max-markup-bytes", "100000", comment.path])
        XCTAssertEqual(m.status, 1)
        XCTAssertTrue(m.err.contains("limit exceeded: markup construct > 100000 bytes"), m.err)
        XCTAssertEqual(try lines(m.out).filter { $0["kind"] as? String == "item" }.count, 1)
        XCTAssertEqual(try run(["convert", "-q", comment.path]).status, 0)
        // 0 is no limit; a negative value is a usage error.
        XCTAssertEqual(try run(["convert", "-q", "--max-items", "0", "--max-depth", "0", file.path]).status, 0)
        XCTAssertEqual(try run(["convert", "-q", "--max-items=-1", file.path]).status, 2)
        // diff takes them too, and the backends agree past them.
        let d = try run(["diff", "--max-items", "2", file.path])
        XCTAssertEqual(d.status, 0, d.out + d.err)
    }
}
