// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// Nothing is lost silently: every byte range no reader read is an error record of its
/// own, and the same records come out on every backend and every read path (a file,
/// standard input, gzip, `-j 1`, `-j 2`, `--no-pipeline`).
final class NothingLostCLITests: CLITestCase {
    private static let backends = ["swift", "expat", "libxml2"]

    private struct Outcome: Equatable {
        var status: Int32
        var out: String
        var errors: [String]
    }

    /// Converts `data` with `options` on every backend and read path; asserts they agree
    /// and returns the first outcome (sources and file names as `NAME`).
    private func everyWay(_ data: Data, _ options: [String] = [], file: StaticString = #filePath,
                          line: UInt = #line) throws -> Outcome {
        let dir = try tempDir()
        let plain = dir.appendingPathComponent("dump.xml")
        try data.write(to: plain)
        try sh("gzip -c '\(plain.path)' > '\(dir.path)/dump.xml.gz'")
        var first: Outcome?
        for backend in Self.backends {
            let ways: [(args: [String], stdin: Data?, name: String)] = [
                (["-j", "1", plain.path], nil, plain.path),
                (["-j", "2", plain.path], nil, plain.path),
                (["-j", "2", "--no-pipeline", plain.path], nil, plain.path),
                (["-j", "2", plain.path + ".gz"], nil, plain.path + ".gz"),
                (["-j", "1", "-"], data, "-"),
            ]
            for way in ways {
                let errors = dir.appendingPathComponent("errors.jsonl")
                try? FileManager.default.removeItem(at: errors)
                let r = try run(["convert", "-q", "--backend", backend, "--errors", errors.path] + options + way.args,
                                stdin: way.stdin)
                let named = { (s: String) in
                    s.replacingOccurrences(of: "\"source\":" + self.json(way.name), with: "\"source\":\"NAME\"")
                        .replacingOccurrences(of: "\"file\":" + self.json(way.name), with: "\"file\":\"NAME\"")
                }
                let o = Outcome(status: r.status, out: named(r.out),
                                errors: named((try? String(contentsOf: errors, encoding: .utf8)) ?? "")
                                    .split(separator: "\n").map(String.init))
                if let first {
                    let how = "\(backend) \(way.args.dropLast())"
                    XCTAssertEqual(o.status, first.status, how, file: file, line: line)
                    XCTAssertEqual(o.errors, first.errors, how, file: file, line: line)
                    XCTAssertTrue(o.out == first.out, "\(how): the lines differ", file: file, line: line)
                } else {
                    first = o
                }
            }
        }
        return first!
    }

    private func json(_ s: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes]),
               as: UTF8.self).dropFirst().dropLast().description
    }

    private func feed(_ title: String) -> String {
        #"<?xml version="1.0"?><rss version="2.0"><channel><title>\#(title)</title><item><title>\#(title)1</title></item></channel></rss>"#
            + "\n"
    }

    func testTheBytesAFailedDocumentLeftUnreadAreARecordOfTheirOwn() throws {
        // Strict: document 2 fails at its "<b>" end-tag mismatch; from the error to the
        // next "<?xml" nothing is read, and that range is its own record.
        let broken = #"<?xml version="1.0"?><rss version="2.0"><channel><title>B</title><item><title>b <i>x</b></item></channel></rss>"#
            + "\nnoise\n"
        let a = feed("A"), c = feed("C")
        let dump = a + broken + c
        let r = try everyWay(Data(dump.utf8), ["--strict"])
        XCTAssertEqual(r.status, 1)
        let errorAt = a.utf8.count + broken.utf8.distance(from: broken.utf8.startIndex,
                                                          to: broken.range(of: "</b>")!.lowerBound) + 2
        let unread = a.utf8.count + broken.utf8.count - errorAt
        XCTAssertEqual(r.errors.count, 2, "\(r.errors)")
        XCTAssertTrue(r.errors[0].contains(#""code":"xml","offset":\#(errorAt),"skipped":\#(unread)"#), r.errors[0])
        XCTAssertEqual(r.errors[1], #"{"file":"NAME","document":2,"line":0,"column":0,"reason":"\#(unread) bytes not read after the error","code":"skipped","offset":\#(errorAt),"length":\#(unread)}"#)
        // Documents 1 and 3 are whole.
        let titles = try lines(r.out).filter { $0["kind"] as? String == "item" }.compactMap { $0["title"] as? String }
        XCTAssertEqual(titles, ["A1", "C1"])
    }

    func testARecoveredDocumentLeavesNoUnreadRange() throws {
        let broken = #"<?xml version="1.0"?><rss version="2.0"><channel><title>B</title><item><title>b <i>x</b></item></channel></rss>"#
        let r = try everyWay(Data((feed("A") + broken + "\n" + feed("C")).utf8))
        XCTAssertEqual(r.errors.count, 1, "\(r.errors)")
        XCTAssertTrue(r.errors[0].hasSuffix(#""recovered":true}"#), r.errors[0])
        let titles = try lines(r.out).filter { $0["kind"] as? String == "item" }.compactMap { $0["title"] as? String }
        XCTAssertEqual(titles, ["A1", "b <i>x</i>", "C1"])
    }

    func testEveryBackendRejectsTheSameDocumentsWithTheSameRecords() throws {
        // Each document fails at a byte expat, libxml2 and swift see differently on their
        // own; every backend and read path gives expat's code, words and place.
        let docs: [(text: [UInt8], code: String, reason: String, line: Int, column: Int)] = [
            // An end tag that does not match: at its name.
            (Array(#"<rss version="2.0"><channel><title>t <i>x</b></title></channel></rss>"#.utf8),
             "xml", "mismatched tag", 1, 44),
            // A byte that is not UTF-8 in CDATA, twenty lines in.
            (Array(("<rss version=\"2.0\"><channel><title>t</title>\n"
                    + String(repeating: "<item><title>i</title></item>\n", count: 19)
                    + "<item><description><![CDATA[ab ").utf8) + [0xE9] + Array(" cd]]></description></item></channel></rss>".utf8),
             "xml", "not well-formed (invalid token)", 21, 32),
            // An entity a standalone document does not declare.
            (Array(#"<?xml version="1.0" standalone="yes"?><rss version="0.91"><channel><title>A&nbsp;B</title></channel></rss>"#.utf8),
             "xml", "undefined entity", 1, 76),
            // A reference to an unparsed entity in content.
            (Array(#"<?xml version="1.0"?><!DOCTYPE rss [<!NOTATION n SYSTEM "n"><!ENTITY e SYSTEM "e" NDATA n>]><rss version="2.0"><channel><title>&e;</title></channel></rss>"#.utf8),
             "xml", "reference to binary entity", 1, 128),
        ]
        var dump: [UInt8] = []
        var starts: [Int] = []
        for d in docs {
            starts.append(dump.count)
            dump += d.text + Array("\n".utf8)
        }
        dump += Array(feed("Z").utf8)
        let r = try everyWay(Data(dump), ["--strict"])
        let records = try lines(r.errors.joined(separator: "\n")).filter { $0["code"] as? String != "skipped" }
        XCTAssertEqual(records.count, docs.count, "\(r.errors)")
        for (k, (record, d)) in zip(records, docs).enumerated() {
            XCTAssertEqual(record["document"] as? Int, k + 1)
            XCTAssertEqual(record["code"] as? String, d.code, "document \(k + 1)")
            XCTAssertEqual(record["reason"] as? String, d.reason, "document \(k + 1)")
            XCTAssertEqual(record["line"] as? Int, d.line, "document \(k + 1)")
            XCTAssertEqual(record["column"] as? Int, d.column, "document \(k + 1)")
            let offset = try XCTUnwrap(record["offset"] as? Int)
            XCTAssertGreaterThan(offset, starts[k])
            XCTAssertLessThan(offset, starts[k] + d.text.count)
        }
        let titles = try lines(r.out).filter { $0["kind"] as? String == "item" }.compactMap { $0["title"] as? String }
        XCTAssertEqual(titles.last, "Z1")
    }
}
