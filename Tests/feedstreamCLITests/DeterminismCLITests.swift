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
}
