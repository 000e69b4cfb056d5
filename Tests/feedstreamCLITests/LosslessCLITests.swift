import Foundation
import XCTest

/// Errors are records: every error reaches `--errors` (or a record says how many did
/// not), and standard error has one line per error, whatever a file name or a
/// tokenizer's message holds (issue 17, item 4).
final class LosslessCLITests: CLITestCase {
    private let bad = #"<?xml version="1.0"?><rss version="2.0"><channel><title>x</titel></channel></rss>"#

    func testAFileNameWithControlCharactersIsOneEscapedLine() throws {
        let dir = try tempDir()
        let name = "a\nb\u{1B}[31mc\\d.xml"
        try Data(bad.utf8).write(to: dir.appendingPathComponent(name))
        let errors = dir.appendingPathComponent("errors.jsonl").path
        let r = try run(["convert", "-q", "-o", "/dev/null", "--errors", errors, dir.path])
        XCTAssertEqual(r.status, 1)
        let lines = r.err.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        XCTAssertEqual(lines, ["feedstream: \(dir.path)/a\\nb\\u{1B}[31mc\\\\d.xml: document 1, line 1, column 60: mismatched tag"])
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
        XCTAssertEqual(r.status, 1)
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
        XCTAssertEqual(r.status, 1)
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
}
