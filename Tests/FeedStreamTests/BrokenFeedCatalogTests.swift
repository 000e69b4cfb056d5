// SPDX-License-Identifier: Apache-2.0
import FeedStream
import XCTest

/// The breakage archived feeds carry, beyond the single faults of RecoveryTests: every
/// item a lenient reader (feedparser) keeps is kept here too, on every backend, whole and
/// in 7-byte chunks. (feedparser 6.0.14 keeps the same item count on each of these;
/// the titles and values below are this parser's own.)
final class BrokenFeedCatalogTests: XCTestCase {
    private static let items = (0..<5).map {
        "<item><title>T\($0)</title><link>http://e.example/\($0)</link><description>D\($0)</description></item>\n"
    }.joined()
    private static let rss = "<rss version=\"2.0\"><channel><title>t</title>" + items + "</channel></rss>"
    private static let titles = (0..<5).map { "T\($0)" }

    /// (what, document bytes, every item's title in document order)
    private static let catalog: [(String, [UInt8], [String])] = [
        ("a PHP warning before the declaration",
         Array(("<br />\n<b>Warning</b>: Undefined index in <b>/var/www/feed.php</b> on line <b>3</b><br />\n"
                + "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" + rss).utf8), titles),
        ("a feed inside an HTML page", Array(("<html><body><pre>" + rss + "</pre></body></html>").utf8), titles),
        ("items after the channel's end",
         Array(("<rss version=\"2.0\"><channel><title>t</title></channel>" + items + "</rss>").utf8), titles),
        ("no end tag for the channel", Array(("<rss version=\"2.0\"><channel><title>t</title>" + items + "</rss>").utf8), titles),
        ("two feeds in one file", Array((rss + "\n" + rss).utf8), titles + titles),
        ("a NUL byte in a description", Array(rss.replacingOccurrences(of: "D3", with: "x\u{0}y").utf8), titles),
        ("windows-1252 bytes in a document declared UTF-8",
         Array(("<?xml version=\"1.0\" encoding=\"utf-8\"?>" + rss).utf8).replacing(Array("D1".utf8), with: [0x93, 0x71, 0x94]),
         titles),
        ("a comment holding --", Array(rss.replacingOccurrences(of: "<title>t</title>", with: "<title>t</title><!-- a -- b -->").utf8),
         titles),
        ("< in an attribute value", Array(rss.replacingOccurrences(of: "<item>", with: "<item note=\"a<b\">").utf8), titles),
        ("an rdf: prefix never declared",
         Array(("<rdf:RDF xmlns=\"http://purl.org/rss/1.0/\"><channel><title>t</title></channel>"
                + (0..<3).map { "<item rdf:about=\"http://e.example/\($0)\"><title>R\($0)</title></item>" }.joined()
                + "</rdf:RDF>").utf8), ["R0", "R1", "R2"]),
        ("Atom entries never closed",
         Array(("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>"
                + (0..<4).map { "<entry><title>E\($0)</title><id>urn:\($0)</id>" }.joined() + "</feed>").utf8),
         ["E0", "E1", "E2", "E3"]),
        ("a file cut short inside an item", Array(rss.utf8.prefix(rss.utf8.count - 60)), titles),
    ]

    func testEveryItemALenientReaderKeepsIsKept() throws {
        for (what, data, expected) in Self.catalog {
            for backend in FeedBackend.allCases {
                let whole = try backend.makeParser().documents(from: .bytes(data))
                XCTAssertEqual(whole.flatMap { $0.items.map { $0.title?.value ?? "-" } }, expected, "\(what), \(backend)")
                XCTAssertEqual(whole.first { !$0.items.isEmpty }?.feed.title?.value, "t", "\(what), \(backend)")
                let chunked = try backend.makeParser().documents(from: chunkedInput(data, 7))
                XCTAssertEqual(chunked.map(\.self.outcome), whole.map(\.self.outcome), "\(what), \(backend), chunks of 7")
            }
        }
    }

    func testWhatTheRepairReadsIsMarked() throws {
        func items(_ what: String) throws -> [FeedItem] {
            let data = try XCTUnwrap(Self.catalog.first { $0.0 == what }?.1)
            return try FeedBackend.swift.makeParser().documents(from: .bytes(data)).flatMap(\.items)
        }
        let nul = try items("a NUL byte in a description")
        XCTAssertEqual(nul[3].summary?.value, "x\u{FFFD}y", "a character XML forbids: U+FFFD")
        XCTAssertTrue(nul[3].isRecovered)
        XCTAssertFalse(nul[2].isRecovered, "written before the failure, by the strict reading")
        let quotes = try items("windows-1252 bytes in a document declared UTF-8")
        XCTAssertEqual(quotes[1].summary?.value, "\u{201C}q\u{201D}", "a byte UTF-8 cannot read: windows-1252's")
        let php = try FeedBackend.swift.makeParser().documents(from: .bytes(Self.catalog[0].1))
        XCTAssertEqual(php.map { $0.error?.code }, [.notAFeed, .notAFeed, .malformedXML, nil],
                       "each range of the warning is reported, then the feed")
    }
}

private extension Array where Element == UInt8 {
    func replacing(_ old: [UInt8], with new: [UInt8]) -> [UInt8] {
        guard let r = firstRange(of: old) else { return self }
        var copy = self
        copy.replaceSubrange(r, with: new)
        return copy
    }
}
