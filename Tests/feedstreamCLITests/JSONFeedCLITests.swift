// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// `feedstream convert` on JSON Feed files: every backend writes the same lines, a
/// broken JSON file fails alone, standard input is sniffed too.
final class JSONFeedCLITests: CLITestCase {
    private let feed = """
        {"version": "https://jsonfeed.org/version/1.1", "title": "Allotment",
         "home_page_url": "https://allot.example/",
         "items": [{"id": "beans", "title": "Beans", "content_text": "Up at last.",
                    "date_published": "2025-06-01T08:00:00Z",
                    "attachments": [{"url": "https://allot.example/beans.jpg", "mime_type": "image/jpeg"}]}]}
        """

    func testConvertsAJSONFeedFileTheSameOnEveryBackend() throws {
        let dir = try tempDir()
        try Data(feed.utf8).write(to: dir.appendingPathComponent("a.json"))
        try Data("{\"version\": \"https://jsonfeed.org/version/1.1\", \"title\": \"B\", \"items\": [}".utf8)
            .write(to: dir.appendingPathComponent("b.json"))
        try Data(feed.utf8).write(to: dir.appendingPathComponent("c.json"))
        var outputs: [String] = []
        for backend in ["expat", "libxml2", "swift"] {
            let r = try run(["convert", "--backend", backend, dir.path])
            XCTAssertEqual(r.status, 1, r.err)
            XCTAssertTrue(r.err.contains("\(dir.path)/b.json: document 1, line 1, column 73: expected a value"), r.err)
            XCTAssertTrue(r.err.contains("3 files (2 clean, 0 recovered, 1 failed)"), r.err)
            outputs.append(r.out)
        }
        XCTAssertEqual(outputs[1], outputs[0])
        XCTAssertEqual(outputs[2], outputs[0])
        let recs = try lines(outputs[0])
        XCTAssertEqual(recs.count, 5)
        XCTAssertEqual(recs[0]["kind"] as? String, "item")
        XCTAssertEqual(recs[0]["title"] as? String, "Beans")
        XCTAssertEqual(recs[0]["published"] as? String, "2025-06-01T08:00:00Z")
        XCTAssertEqual((recs[0]["enclosures"] as? [[String: Any]])?.first?["type"] as? String, "image/jpeg")
        XCTAssertEqual(recs[1]["format"] as? String, "json11")
        XCTAssertEqual((recs[2]["error"] as? [String: Any])?["code"] as? String, "json")
        XCTAssertEqual(recs[4]["source"] as? String, "\(dir.path)/c.json")
    }

    func testStandardInput() throws {
        let r = try run(["convert", "-q", "-"], stdin: Data(feed.utf8))
        XCTAssertEqual(r.status, 0, r.err)
        let recs = try lines(r.out)
        XCTAssertEqual(recs.map { $0["kind"] as? String }, ["item", "feed"])
        XCTAssertEqual(recs[1]["link"] as? String, "https://allot.example/")
    }
}
