// SPDX-License-Identifier: Apache-2.0
import Foundation
import FeedStreamTestSupport
import XCTest

/// The exit status says whether something was lost: 0 when every document was converted
/// (recovered ones included, documents that are not feeds counted apart), 1 when a
/// document, a record or bytes of an input were lost, `--strict` making recovered
/// documents failures; the summary and `--stats` count files and feeds three ways.
final class ExitStatusTests: CLITestCase {
    private func stats(_ url: URL) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    private let good = "<rss version=\"2.0\"><channel><title>G</title><item><title>g</title></item></channel></rss>\n"
    private let broken = "<rss version=\"2.0\"><channel><title>B</title><item><title>Q&A</title></item>"
        + "<item><title>b</title></item></channel></rss>\n"

    func testARecoveredDocumentLosesNothingAndStrictMakesItAFailure() throws {
        let dir = try tempDir()
        let file = dir.appendingPathComponent("dump.xml")
        try Data((good + broken + good).utf8).write(to: file)
        let statsFile = dir.appendingPathComponent("stats.json")
        let r = try run(["convert", "--stats", statsFile.path, file.path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.err.contains("document 2, line 1, column 61: not well-formed (invalid token) (recovered)"), r.err)
        XCTAssertTrue(r.err.contains("feedstream: 1 file (0 clean, 1 recovered, 0 failed); 3 feeds (2 clean, 1 recovered, 0 failed), 4 items; "), r.err)
        let s = try stats(statsFile)
        XCTAssertEqual(s["files_ok"] as? Int, 1)
        XCTAssertEqual(s["files_failed"] as? Int, 0)
        XCTAssertEqual(s["files_clean"] as? Int, 0)
        XCTAssertEqual(s["files_recovered"] as? Int, 1)
        XCTAssertEqual(s["feeds_clean"] as? Int, 2)
        XCTAssertEqual(s["feeds_recovered"] as? Int, 1)
        XCTAssertEqual(s["feeds_failed"] as? Int, 0)

        let strict = try run(["convert", "--strict", "--stats", statsFile.path, file.path])
        XCTAssertEqual(strict.status, 1, strict.err)
        XCTAssertTrue(strict.err.contains("feedstream: 1 file (0 clean, 0 recovered, 1 failed); 3 feeds (2 clean, 0 recovered, 1 failed), 2 items; "), strict.err)
        XCTAssertEqual(try stats(statsFile)["files_failed"] as? Int, 1)
        // --data-errors-ok keeps its meaning: a loss is reported, and the status is 0.
        XCTAssertEqual(try run(["convert", "-q", "--strict", "--data-errors-ok", file.path]).status, 0)
    }

    func testALostDocumentInADumpFailsTheRun() throws {
        let dir = try tempDir()
        let file = dir.appendingPathComponent("dump.xml")
        let deep = "<rss version=\"2.0\"><channel><title>D</title><item><title>d</title>"
            + String(repeating: "<x>", count: 10) + String(repeating: "</x>", count: 10) + "</item></channel></rss>\n"
        try Data((good + deep + good).utf8).write(to: file)
        let r = try run(["convert", "--max-depth", "8", file.path])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("limit exceeded: element depth 9 > 8"), r.err)
        XCTAssertTrue(r.err.contains("feedstream: 1 file (0 clean, 0 recovered, 1 failed); 3 feeds (2 clean, 0 recovered, 1 failed), 2 items; "), r.err)
    }

    func testAPageThatIsNotAFeedIsCountedNotLost() throws {
        let dir = try tempDir()
        let page = dir.appendingPathComponent("page.html")
        try Data("<html><body>hi</body></html>".utf8).write(to: page)
        let r = try run(["convert", "corpus/feeds/rss2-basic.xml", page.path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.err.contains("page.html: document 1, line 1, column 1: root element is not rss, rdf:RDF or feed"), r.err)
        XCTAssertTrue(r.err.contains("feedstream: 2 files (2 clean, 0 recovered, 0 failed); 1 feed (1 clean, 0 recovered, 0 failed), 1 not a feed, 3 items; "), r.err)
    }

    /// A comment before the XML declaration: the feed after it is converted, and the
    /// comment, a document of its own that fails, is read whole by the recovery path.
    func testACommentBeforeTheDeclarationLosesNothing() throws {
        let dir = try tempDir()
        let file = dir.appendingPathComponent("commented.xml")
        try Data(("\n<!-- cleaned --><?xml version=\"1.0\"?>\n" + good).utf8).write(to: file)
        let r = try run(["convert", file.path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.err.contains("document 1, line 1, column 17: XML or text declaration not at start of entity (recovered)"), r.err)
        XCTAssertEqual(try lines(r.out).filter { $0["kind"] as? String == "item" }.count, 1)
    }

    /// The real-world corpus, damaged feeds and pages that are not feeds among its files,
    /// loses nothing: exit 0, the damaged ones recovered.
    func testTheRealCorpusConvertsWithNothingLost() throws {
        let real = Self.repo.appendingPathComponent("../shared/corpus/real").standardizedFileURL
        if !(FileManager.default.fileExists(atPath: real.path)) { throw skip("real corpus: \(real.path) is not present") }
        let r = try run(["convert", "-o", "/dev/null", real.path])
        XCTAssertEqual(r.status, 0, r.err)
        let summary = try XCTUnwrap(r.err.split(separator: "\n").last.map(String.init))
        XCTAssertNotNil(summary.range(of: #"^feedstream: \d+ files \(\d+ clean, [1-9]\d* recovered, 0 failed\); "#,
                                      options: .regularExpression), summary)
        XCTAssertTrue(summary.contains(" recovered, 0 failed), "), summary)
    }

    /// --base-url is a base links are resolved against: only a safe one is taken.
    func testAnUnsafeBaseURLIsAUsageError() throws {
        for url in ["javascript:alert(1)", "file:///home/feeds/", "http:///example.com/", "feeds/"] {
            let r = try run(["convert", "--base-url", url, "corpus/feeds/rss2-basic.xml"])
            XCTAssertEqual(r.status, 2, url)
            XCTAssertEqual(r.out, "", url)
            XCTAssertTrue(r.err.contains("--base-url takes an absolute http, https or ftp URL with a host"), r.err)
        }
        XCTAssertEqual(try run(["convert", "-q", "--base-url", "https://example.org/", "corpus/feeds/rss2-basic.xml"]).status, 0)
    }

    func testAnUnreadableOrEmptyInputFailsTheRun() throws {
        let dir = try tempDir()
        let empty = dir.appendingPathComponent("empty.xml")
        try Data().write(to: empty)
        for input in [empty.path, dir.appendingPathComponent("missing.xml").path] {
            let r = try run(["convert", "corpus/feeds/rss2-basic.xml", input])
            XCTAssertEqual(r.status, 1, r.err)
            XCTAssertTrue(r.err.contains("feedstream: 2 files (1 clean, 0 recovered, 1 failed); "), r.err)
        }
    }
}
