// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Output is a function of the input and the output options only: for every backend,
/// whether the bytes come from a path, a file descriptor, memory, or chunks of any size,
/// the JSON Lines are the same bytes and the errors the same errors. (The command
/// line's half of the matrix, -j, the pipeline and standard input, is
/// feedstreamCLITests' DeterminismCLITests.)
final class DeterminismTests: XCTestCase {
    /// The inputs every run of the matrix covers: the project's corpus, its hostile
    /// inputs (the small ones; the big ones are built by HostileCorpusTests) and, when
    /// present, the real corpus.
    private func inputs(includeReal: Bool) throws -> [URL] {
        var files: [URL] = []
        for dir in ["feeds", "bad", "encodings", "fuzz-regressions", "hostile"] {
            files += Paths.files(in: Paths.corpus.appendingPathComponent(dir))
                .filter { $0.pathExtension != "md" && $0.pathExtension != "py" }
        }
        if includeReal { files += try RealCorpus.require(self) }
        return files
    }

    /// The output and the errors of one parse.
    private func convert(_ input: FeedInput, _ backend: FeedBackend) throws -> String {
        let out = MemoryOutput()
        let writer = JSONLinesWriter(output: out)
        writer.source = "x"
        final class Errors: FeedHandler {
            var lines: [String] = []
            func parser(_ parser: any FeedParser, didFail e: FeedError) {
                lines.append("\(e.document) \(e.code.rawValue) \(e.line):\(e.column) \(e.message)")
            }
        }
        let errors = Errors()
        let summary = try backend.makeParser().parse(input, handler: FeedHandlerGroup([writer, errors]))
        try writer.flush()
        return out.string + errors.lines.joined(separator: "\n") + "\n\(summary.documents) \(summary.items)"
    }

    /// The lines before the first line that carries an error (libxml2's message and
    /// position for an error found late are its own).
    private func beforeFirstError(_ output: String) -> String {
        var kept: [Substring] = []
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.contains("\"error\":") { break }
            kept.append(line)
        }
        return kept.joined(separator: "\n")
    }

    private func check(_ files: [URL], chunkSizes: [Int], oneByteUpTo: Int) throws {
        var compared = 0
        var resumedElsewhere: [String] = []
        defer {
            if !resumedElsewhere.isEmpty {
                print("DeterminismTests: libxml2 resumed elsewhere after an error with fine chunks: "
                      + resumedElsewhere.joined(separator: ", "))
            }
        }
        for file in files {
            let data = try [UInt8](Data(contentsOf: file))
            for backend in FeedBackend.allCases {
                let reference = try convert(.file(path: file.path), backend)
                let fd = open(file.path, O_RDONLY)
                XCTAssertGreaterThanOrEqual(fd, 0)
                let viaFD = try convert(.fileDescriptor(fd), backend)
                close(fd)
                XCTAssertEqual(viaFD, reference, "\(backend) \(file.lastPathComponent): file descriptor")
                XCTAssertEqual(try convert(.bytes(data), backend), reference, "\(backend) \(file.lastPathComponent): memory")
                for size in chunkSizes + (data.count <= oneByteUpTo ? [1] : []) {
                    let cut = try convert(chunkedInput(data, size), backend)
                    if backend == .libxml2 && size < 4096 && reference.contains("\"error\":") {
                        // The known limit (docs/CLI.md, "The same output however it runs"): libxml2's
                        // push parser finds an error later when it is fed finer pieces,
                        // and the search for the next document resumes from there. What
                        // comes before the first error must still be the same bytes.
                        XCTAssertEqual(beforeFirstError(cut), beforeFirstError(reference),
                                       "libxml2 \(file.lastPathComponent): chunks of \(size), before the error")
                        if cut != reference { resumedElsewhere.append("\(file.lastPathComponent) (\(size))") }
                        continue
                    }
                    XCTAssertEqual(cut, reference, "\(backend) \(file.lastPathComponent): chunks of \(size)")
                }
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 0)
    }

    func testOurCorpusWhateverTheInputPath() throws {
        try check(try inputs(includeReal: false), chunkSizes: [4096, 997], oneByteUpTo: 64 << 10)
    }

    func testRealCorpusWhateverTheInputPath() throws {
        let ours = Set(try inputs(includeReal: false))
        try check(try inputs(includeReal: true).filter { !ours.contains($0) }, chunkSizes: [4096], oneByteUpTo: 4096)
    }
}
