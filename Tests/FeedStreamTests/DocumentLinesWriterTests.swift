// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// `--per feed`: each document line is its feed line with `kind` "document" and the
/// item lines (less the common members) as `items`, for every fixture, good or bad.
final class DocumentLinesWriterTests: XCTestCase {
    private func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func testDocumentLinesAreTheFeedLinesHoldingTheirItems() throws {
        let files = Paths.files(in: Paths.corpus.appendingPathComponent("feeds"))
            + Paths.files(in: Paths.corpus.appendingPathComponent("bad"))
        XCTAssertGreaterThan(files.count, 8)
        for file in files {
            let source = "dir/\(file.lastPathComponent) \"quoted\""   // a source that needs escaping
            let lines = try objects(try jsonLines(.file(path: file.path), source: source).text)
            let out = MemoryOutput()
            let writer = DocumentLinesWriter(output: out, bufferSize: 100)
            writer.source = source
            try ExpatFeedParser().parse(.file(path: file.path), handler: writer)
            try writer.flush()
            XCTAssertTrue(out.bytes.isEmpty || out.bytes.last == 0x0A, file.lastPathComponent)
            let documents = try objects(out.string)

            let feeds = lines.filter { $0["kind"] as? String == "feed" }
            XCTAssertEqual(documents.count, feeds.count, file.lastPathComponent)
            XCTAssertEqual(writer.documentLines, feeds.count)
            XCTAssertEqual(writer.bytesWritten, UInt64(out.bytes.count))
            for (document, feed) in zip(documents, feeds) {
                XCTAssertEqual(document["kind"] as? String, "document")
                let items = try XCTUnwrap(document["items"] as? [[String: Any]], file.lastPathComponent)
                XCTAssertEqual(items.count, feed["items"] as? Int)
                var d = document, f = feed
                for key in ["kind", "items"] { d[key] = nil; f[key] = nil }
                XCTAssertEqual(d as NSDictionary, f as NSDictionary, file.lastPathComponent)
                let expected = lines.filter {
                    $0["kind"] as? String == "item" && $0["document"] as? Int == feed["document"] as? Int
                }.map { line -> [String: Any] in
                    var l = line
                    for common in ["schema", "kind", "source", "document"] { l[common] = nil }
                    return l
                }
                XCTAssertEqual(items.map { $0 as NSDictionary }, expected.map { $0 as NSDictionary }, file.lastPathComponent)
            }
        }
    }

    func testMembersKeepTheFeedLinesOrder() throws {
        let out = MemoryOutput()
        let writer = DocumentLinesWriter(output: out)
        writer.source = "x"
        try ExpatFeedParser().parse(.bytes(bytes(rss("a", items: 2))), handler: writer)
        try ExpatFeedParser().parse(.file(path: Paths.corpus.appendingPathComponent("bad/mismatched.xml").path),
                                    handler: writer)
        try writer.flush()
        let lines = out.string.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasPrefix("{\"schema\":1,\"kind\":\"document\",\"source\":\"x\",\"document\":1,\"format\":\"rss20\""))
        XCTAssertTrue(lines[0].contains(",\"items\":[{\"index\":0,\"feed\":{"), String(lines[0]))
        XCTAssertTrue(lines[0].hasSuffix("}]}"), String(lines[0]))
        // An error comes after the items, as on the feed line.
        XCTAssertTrue(lines[1].contains("}],\"error\":{\"code\":\"xml\""), String(lines[1]))
    }
}
