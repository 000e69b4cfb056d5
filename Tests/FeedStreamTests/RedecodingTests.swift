import FeedStream
import Foundation
@testable import FeedStreamSwift
import XCTest

/// Text that is UTF-8 read as ISO-8859-1 is read again as UTF-8, as feedparser reads it,
/// and the members it changed are named in `redecoded` (docs/SCHEMA.md, "Encodings").
final class RedecodingTests: XCTestCase {
    private func redecoded(_ s: String) -> String? {
        Array(s.utf8).withUnsafeBytes { TextRedecoding.redecoded($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    func testTheRule() {
        XCTAssertEqual(redecoded("BrÃ¸ndby"), "Brøndby")
        XCTAssertEqual(redecoded("Ã©"), "é")
        XCTAssertEqual(redecoded("VidÃ©o Figaro"), "Vidéo Figaro")
        XCTAssertEqual(redecoded("Â\u{A0}AC Horsens"), "\u{A0}AC Horsens")          // a no-break space
        XCTAssertEqual(redecoded("â\u{80}\u{99}"), "\u{2019}")                       // ’ read as ISO-8859-1
        XCTAssertEqual(redecoded("ð\u{9F}\u{98}\u{80} ok"), "\u{1F600} ok")          // four bytes
        // Stays as it is.
        XCTAssertNil(redecoded("plain ASCII"))
        XCTAssertNil(redecoded("café"))                    // E9 alone is no UTF-8
        XCTAssertNil(redecoded("Ã"))                       // C3 with nothing after it
        XCTAssertNil(redecoded("Ã© €"))                    // a character past U+00FF
        XCTAssertNil(redecoded("â€™"))                     // windows-1252's reading: € and ™ are past U+00FF
        XCTAssertNil(redecoded("À\u{80}"))                 // C0 80: overlong
        XCTAssertEqual(redecoded("Ã\u{80}"), "À")            // C3 80
        XCTAssertNil(redecoded("í\u{A0}\u{80}"))           // ED A0 80: a surrogate
        XCTAssertNil(redecoded("ô\u{90}\u{80}\u{80}"))     // F4 90 80 80: past U+10FFFF
        XCTAssertNil(redecoded("Ã©\u{A9}"))                // a continuation byte on its own
    }

    /// Against the rule spelled with the standard library's UTF-8 validation, over every
    /// string of up to three characters from an alphabet that reaches every case.
    func testTheRuleAgainstTheStandardLibrary() {
        let alphabet: [Unicode.Scalar] = ["a", "\u{80}", "\u{9F}", "\u{A0}", "\u{A9}", "\u{BF}", "\u{C0}", "\u{C2}",
                                          "\u{C3}", "\u{DF}", "\u{E0}", "\u{E2}", "\u{ED}", "\u{EF}", "\u{F0}",
                                          "\u{F4}", "\u{F5}", "\u{FF}", "\u{100}", "\u{20AC}"]
        func oracle(_ s: String) -> String? {
            guard s.unicodeScalars.allSatisfy({ $0.value <= 0xFF }), s.unicodeScalars.contains(where: { $0.value >= 0x80 })
            else { return nil }
            return String(validating: s.unicodeScalars.map { UInt8($0.value) }, as: UTF8.self)
        }
        var count = 0, changed = 0
        func check(_ scalars: [Unicode.Scalar]) {
            var s = ""
            s.unicodeScalars.append(contentsOf: scalars)
            XCTAssertEqual(redecoded(s), oracle(s), "\(scalars.map { String($0.value, radix: 16) })")
            count += 1
            if oracle(s) != nil { changed += 1 }
        }
        for a in alphabet {
            check([a])
            for b in alphabet {
                check([a, b])
                for c in alphabet { check([a, b, c]) }
            }
        }
        XCTAssertEqual(count, 20 + 400 + 8000)
        XCTAssertGreaterThan(changed, 50)   // the alphabet reaches the sequences that read again
    }

    /// A document in UTF-8 that declares ISO-8859-1, with text encoded twice as well.
    private static let feed: [UInt8] = Array("""
        <?xml version="1.0" encoding="ISO-8859-1"?>
        <rss version="2.0"><channel><title>Brøndby IF</title><link>http://e.example/</link>
        <item><title>Horsens ændrer i angrebet</title><description>Både Randers og AC Horsens</description>
        <author>Mikkel Nøhr</author><category>Vidéo</category><category>plain</category><guid>g1</guid></item>
        <item><title>Plain</title><guid>g2</guid></item>
        </channel></rss>
        """.utf8)

    /// The same text written as ISO-8859-1 means (Latin-1 bytes): nothing to read again.
    private static let latin1: [UInt8] = Array("""
        <?xml version="1.0" encoding="ISO-8859-1"?>
        <rss version="2.0"><channel><title>Br\u{F8}ndby</title><item><title>caf\u{E9} \u{A0}</title><guid>g</guid></item></channel></rss>
        """.unicodeScalars.map { UInt8($0.value) })

    func testEveryBackendWritesTheTextReadAgainAndNamesTheMembers() throws {
        let expected = """
            {"schema":1,"kind":"item","source":"t","document":1,"index":0,"feed":{"format":"rss20","title":"Brøndby IF","link":"http://e.example/"},\
            "id":"g1","guid_is_permalink":true,"title":"Horsens ændrer i angrebet","title_type":"text","authors":[{"name":"Mikkel Nøhr"}],\
            "summary":"Både Randers og AC Horsens","summary_type":"html","categories":[{"term":"Vidéo"},{"term":"plain"}],\
            "redecoded":["feed","title","authors","summary","categories"]}
            {"schema":1,"kind":"item","source":"t","document":1,"index":1,"feed":{"format":"rss20","title":"Brøndby IF","link":"http://e.example/"},\
            "id":"g2","guid_is_permalink":true,"title":"Plain","title_type":"text","redecoded":["feed"]}
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"iso-8859-1","title":"Brøndby IF",\
            "title_type":"text","link":"http://e.example/","links":[{"href":"http://e.example/","rel":"alternate"}],"items":2,"redecoded":["title"]}

            """
        for backend in FeedBackend.allCases {
            for input in [FeedInput.bytes(Self.feed), chunkedInput(Self.feed, 7), chunkedInput(Self.feed, 1)] {
                let text = try jsonLines(input, source: "t", parser: backend.makeParser()).text
                XCTAssertEqual(text, expected, "\(backend)")
            }
            // Latin-1 text as it is meant: written as it reads, nothing named.
            let latin1 = try jsonLines(.bytes(Self.latin1), source: "t", parser: backend.makeParser()).text
            XCTAssertTrue(latin1.contains("\"title\":\"Brøndby\""), latin1)
            XCTAssertTrue(latin1.contains("\"title\":\"café \u{A0}\""), latin1)
            XCTAssertFalse(latin1.contains("redecoded"), latin1)
        }
    }

    func testLinesPerDocumentNameTheMembersToo() throws {
        let out = MemoryOutput()
        let writer = DocumentLinesWriter(output: out)
        writer.source = "t"
        try SwiftFeedParser().parse(.bytes(Self.feed), handler: writer)
        try writer.flush()
        let line = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.string.utf8)) as? [String: Any])
        XCTAssertEqual(line["redecoded"] as? [String], ["title"])
        let items = try XCTUnwrap(line["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["redecoded"] as? [String] }, [["feed", "title", "authors", "summary", "categories"], ["feed"]])
    }

    func testTheModelReadsTheTextAgainAndSaysWhere() throws {
        for backend in FeedBackend.allCases {
            let document = try XCTUnwrap(FeedStream.documents(from: .bytes(Self.feed), backend: backend).first)
            XCTAssertEqual(document.feed.title?.value, "Brøndby IF")
            XCTAssertEqual(document.feed.redecoded, ["title"])
            let item = try XCTUnwrap(document.items.first)
            XCTAssertEqual(item.title?.value, "Horsens ændrer i angrebet")
            XCTAssertEqual(item.summary?.value, "Både Randers og AC Horsens")
            XCTAssertEqual(item.authors.first?.name, "Mikkel Nøhr")
            XCTAssertEqual(item.categories.map(\.term), ["Vidéo", "plain"])
            XCTAssertEqual(item.redecoded, ["title", "authors", "summary", "categories"])
            XCTAssertNil(document.items[1].redecoded)
        }
        // The view keeps the bytes as the document gave them, and says they are read again.
        final class Views: FeedHandler {
            var titles: [(String, Bool)] = []
            func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) {
                titles.append((String(decoding: item.title.value.buffer, as: UTF8.self), item.title.value.isRedecoded))
            }
        }
        let views = Views()
        try SwiftFeedParser().parse(.bytes(Self.feed), handler: views)
        XCTAssertEqual(views.titles.map(\.0), ["Horsens Ã¦ndrer i angrebet", "Plain"])
        XCTAssertEqual(views.titles.map(\.1), [true, false])
    }
}
