// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// The command line's half of the determinism matrix (the library's half, every input
/// path and chunk size, is FeedStreamTests' DeterminismTests): for every backend, `-j 1`,
/// `-j 2`, `-j 8`, `--no-pipeline`, a file or standard input, plain or gzip, give the
/// same JSON Lines bytes, the same error records, the same stderr lines and the same
/// exit status.
final class DeterminismCLITests: CLITestCase {
    private static let backends = ["expat", "libxml2", "swift"]

    /// Our corpus folders, and the real corpus when it is beside the repository.
    private var folders: [String] {
        var dirs = ["corpus/feeds", "corpus/bad", "corpus/encodings", "corpus/hostile", "corpus/fuzz-regressions"]
        let real = Self.repo.deletingLastPathComponent().appendingPathComponent("shared/corpus/real")
        if FileManager.default.fileExists(atPath: real.path) { dirs.append(real.path) }
        return dirs
    }

    private struct Result: Equatable {
        var status: Int32, out: String, err: String, errors: String
    }

    private func convert(_ args: [String], stdin: Data? = nil, in dir: URL) throws -> Result {
        let errors = dir.appendingPathComponent("errors-\(UUID().uuidString).jsonl")
        // -q: the summary line carries timings; every error line is still written.
        let r = try run(["convert", "-q", "--errors", errors.path] + args, stdin: stdin)
        let e = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        return Result(status: r.status, out: r.out, err: r.err, errors: e)
    }

    func testJobsAndPipelineDoNotChangeTheOutput() throws {
        let dir = try tempDir()
        for backend in Self.backends {
            let reference = try convert(["--backend", backend, "-j", "1"] + folders, in: dir)
            XCTAssertFalse(reference.out.isEmpty)
            XCTAssertFalse(reference.errors.isEmpty, "the corpus has bad inputs: their errors are compared too")
            for flags in [["-j", "2"], ["-j", "8"], ["-j", "1", "--no-pipeline"], ["-j", "2", "--no-pipeline"]] {
                let r = try convert(["--backend", backend] + flags + folders, in: dir)
                XCTAssertEqual(r.status, reference.status, "\(backend) \(flags): exit status")
                XCTAssertTrue(r.out == reference.out, "\(backend) \(flags): JSON Lines differ")
                XCTAssertEqual(r.errors, reference.errors, "\(backend) \(flags): error records")
                XCTAssertEqual(r.err, reference.err, "\(backend) \(flags): stderr")
            }
        }
    }

    func testStandardInputEqualsTheFile() throws {
        let dir = try tempDir()
        let names = ["feeds", "bad", "encodings"].flatMap { sub -> [URL] in
            let d = Self.repo.appendingPathComponent("corpus/\(sub)")
            return ((try? FileManager.default.contentsOfDirectory(atPath: d.path)) ?? []).sorted()
                .filter { $0.hasSuffix(".xml") }.map { d.appendingPathComponent($0) }
        }
        var dump = Data()
        for n in names { dump.append(try Data(contentsOf: n)) }
        let plain = dir.appendingPathComponent("dump.xml")
        try dump.write(to: plain)
        try sh("gzip -c '\(plain.path)' > '\(plain.path).gz'")
        for file in [plain.path, plain.path + ".gz"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            // Also with a field-text limit many documents pass: its error records too.
            for (backend, limit) in Self.backends.flatMap({ b in [(b, [String]()), (b, ["--max-field-bytes", "200"])] }) {
                for jobs in ["1", "2"] {
                    let f = try convert(["--backend", backend, "-j", jobs] + limit + [file], in: dir)
                    let s = try convert(["--backend", backend, "-j", jobs] + limit + ["-"], stdin: bytes, in: dir)
                    if !limit.isEmpty {
                        XCTAssertTrue(f.errors.contains("limit exceeded: field text > 200 bytes"), "\(backend) \(file)")
                    }
                    let named = { (t: String) in
                        t.replacingOccurrences(of: "\"source\":\"-\"", with: "\"source\":\"\(file)\"")
                            .replacingOccurrences(of: "\"file\":\"-\"", with: "\"file\":\"\(file)\"")
                    }
                    XCTAssertEqual(s.status, f.status, "\(backend) -j \(jobs) \(limit) \(file)")
                    XCTAssertTrue(named(s.out) == f.out, "\(backend) -j \(jobs) \(limit) \(file): stdin and file differ")
                    XCTAssertEqual(named(s.errors), f.errors, "\(backend) -j \(jobs) \(limit) \(file)")
                    XCTAssertGreaterThan(f.out.count, 1000)
                }
            }
        }
    }

    /// The markup-construct limit is checked every 256 KiB of a document's bytes, counted
    /// from its first: a file (read into the tokenizer's buffer), its `.gz`, a pipe, `-j 1`
    /// and `-j 2` (parts cut at documents) give the same records, on every backend. Two
    /// documents hold a comment over the limit across a checkpoint (they fail at its `<`),
    /// one a comment as long that ends before one (it passes), each at its own place in
    /// the stream.
    func testTheMarkupLimitIsTheSameFromAFileAPipeAndEveryJobCount() throws {
        let dir = try tempDir()
        let head = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>a</title>\n"
        let item = "<item><title>t</title><description>" + String(repeating: "x", count: 200) + "</description></item>\n"
        let comment = "<!--" + String(repeating: "c", count: 10_000) + "-->"
        let tail = "<item><title>after</title></item></channel></rss>\n"
        let before = head + String(repeating: item, count: 800)
        let pad = (256 << 10) - 5_000 - before.utf8.count - "<x></x>".utf8.count
        let across = before + "<x>" + String(repeating: "y", count: pad) + "</x>" + comment + tail
        let within = head + comment + String(repeating: item, count: 800) + tail
        let small = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>s</title>"
            + String(repeating: "<item><title>p</title></item>", count: 300) + "</channel></rss>\n"
        let plain = dir.appendingPathComponent("markup.xml")
        try (small + across + small + within + small + small + across).write(to: plain, atomically: true, encoding: .utf8)
        try sh("gzip -c '\(plain.path)' > '\(plain.path).gz'")
        let limit = ["--max-markup-bytes", "4096"]
        var reference: Result?
        for file in [plain.path, plain.path + ".gz"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            for backend in Self.backends {
                for jobs in ["1", "2"] {
                    let f = try convert(["--backend", backend, "-j", jobs] + limit + [file], in: dir)
                    let s = try convert(["--backend", backend, "-j", jobs] + limit + ["-"], stdin: bytes, in: dir)
                    let named = { (t: String) in
                        t.replacingOccurrences(of: "\"source\":\"-\"", with: "\"source\":\"\(plain.path)\"")
                            .replacingOccurrences(of: "\"file\":\"-\"", with: "\"file\":\"\(plain.path)\"")
                            .replacingOccurrences(of: plain.path + ".gz", with: plain.path)
                    }
                    for (name, r) in [("file", f), ("stdin", s)] {
                        let here = Result(status: r.status, out: named(r.out), err: "", errors: named(r.errors))
                        if let reference {
                            XCTAssertEqual(here.status, reference.status, "\(backend) -j \(jobs) \(file) \(name)")
                            XCTAssertTrue(here.out == reference.out, "\(backend) -j \(jobs) \(file) \(name): JSON Lines differ")
                            XCTAssertEqual(here.errors, reference.errors, "\(backend) -j \(jobs) \(file) \(name)")
                        } else {
                            reference = here
                            XCTAssertEqual(here.status, 1)
                            XCTAssertEqual(here.errors.components(separatedBy: "limit exceeded: markup construct > 4096 bytes").count - 1, 2,
                                           here.errors)
                            // Every item but the two documents' last ones after their comments.
                            XCTAssertEqual(here.out.components(separatedBy: "\"kind\":\"item\"").count - 1,
                                           4 * 300 + 800 + 801 + 800)
                        }
                    }
                }
            }
        }
    }
}
