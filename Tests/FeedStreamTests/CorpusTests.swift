// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Every fixture in corpus/feeds and corpus/bad converts to exactly the JSON Lines in
/// corpus/expected (the schema's examples), from plain and from gzip input alike.
final class CorpusTests: XCTestCase {
    private func check(_ dir: String) throws {
        let files = Paths.files(in: Paths.corpus.appendingPathComponent(dir))
        XCTAssertFalse(files.isEmpty, "no fixtures in corpus/\(dir)")
        for file in files {
            let name = file.deletingPathExtension().lastPathComponent
            let expectedURL = Paths.corpus.appendingPathComponent("expected/\(name).jsonl")
            let expected = try String(contentsOf: expectedURL, encoding: .utf8)
            let source = "\(dir)/\(file.lastPathComponent)"
            let plain = try jsonLines(.file(path: file.path), source: source)
            XCTAssertEqual(plain.text, expected, "\(source) differs from expected/\(name).jsonl")
            let gz = try jsonLines(.bytes(gzip(Array(try Data(contentsOf: file)))), source: source)
            XCTAssertEqual(gz.text, expected, "gzipped \(source) differs")
            // Every line is a JSON object carrying the schema version.
            for line in plain.text.split(separator: "\n") {
                let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                XCTAssertEqual(obj?["schema"] as? Int, JSONLinesWriter.schemaVersion)
            }
        }
    }

    func testFeedsConvertToExpectedJSON() throws { try check("feeds") }
    func testBadInputsKeepItemsAndReportErrors() throws { try check("bad") }
    func testEncodingsDecodeToTheSameText() throws { try check("encodings") }

    func testValueModelMatchesFixture() throws {
        let docs = try ExpatFeedParser().documents(from: .file(path: Paths.corpus.appendingPathComponent("feeds/atom-basic.xml").path))
        XCTAssertEqual(docs.count, 1)
        let feed = docs[0].feed
        XCTAssertEqual(feed.format, .atom10)
        XCTAssertEqual(feed.title, FeedText(value: "Dev Diary", type: "text"))
        XCTAssertEqual(feed.language, "en")
        let items = docs[0].items
        XCTAssertEqual(items.count, 3)
        XCTAssertEqual(items[1].title, FeedText(value: "Week 9: <em>live</em> demo recording", type: "html"))
        XCTAssertEqual(items[1].enclosures, [FeedEnclosure(url: "https://media.example.org/diary/week-9-demo.mp4",
                                                           type: "video/mp4", length: "73400320")])
        XCTAssertEqual(items[1].published?.date?.description, "2025-02-28T00:00:00Z")
        XCTAssertEqual(items[1].published?.raw, "2025-02-27T16:00:00-08:00")
        // xhtml content: serialized markup without the wrapping div.
        let content = try XCTUnwrap(items[2].content)
        XCTAssertEqual(content.type, "xhtml")
        XCTAssertTrue(content.value.hasPrefix("<p>Good names are <em>boring</em>"), content.value)
        XCTAssertFalse(content.value.contains("<div"))
        XCTAssertTrue(content.value.contains("<abbr title=\"Request for Comments\">RFC</abbr>"))
        // Codable round trip.
        let data = try JSONEncoder().encode(items)
        XCTAssertEqual(try JSONDecoder().decode([FeedItem].self, from: data), items)
    }
}
