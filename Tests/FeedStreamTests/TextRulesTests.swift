// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
@testable import FeedStreamCore
@testable import FeedStreamSwift
import XCTest

/// The writers' text rules, as feedparser applies them to an element's text: white space
/// trimmed as Python's `str.strip()` trims it; text that is UTF-8 read as ISO-8859-1 read
/// again as UTF-8, the members it changed named in `redecoded` (docs/SCHEMA.md, "General
/// rules", "Encodings").
final class TextRulesTests: XCTestCase {
    private func redecoded(_ s: String) -> String? {
        Array(s.utf8).withUnsafeBytes { TextRules.redecoded($0) }.map { String(decoding: $0, as: UTF8.self) }
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
        <rss version="2.0"><channel><title>Br\u{F8}ndby</title><item><title>caf\u{E9} \u{A0}x</title><guid>g</guid></item></channel></rss>
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
            XCTAssertTrue(latin1.contains("\"title\":\"café \u{A0}x\""), latin1)
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

    // MARK: trimming

    /// Python's `str.isspace()` characters, listed from Python 3.11
    /// (`[c for c in range(0x110000) if chr(c).isspace()]`).
    private static let pythonSpaces: [UInt32] = [
        0x9, 0xA, 0xB, 0xC, 0xD, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
        0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
    ]

    private func trimmed(_ s: String) -> String {
        Array(s.utf8).withUnsafeBytes { String(decoding: TextRules.trimmed($0), as: UTF8.self) }
    }

    func testTrimmingTakesPythonsWhiteSpaceAtBothEndsAndNothingElse() {
        for v in Self.pythonSpaces {
            let c = String(Character(Unicode.Scalar(v)!))
            XCTAssertEqual(trimmed(c + "a" + c + "b" + c + c), "a" + c + "b", String(v, radix: 16))
            XCTAssertEqual(trimmed(c), "", String(v, radix: 16))
        }
        // Not white space to Python: kept, at either end.
        for v: UInt32 in [0x200B, 0x180E, 0xFEFF, 0x2060, 0x21, 0x7F, 0xA1, 0x3001, 0x1681, 0x2030, 0x205E] {
            let c = String(Character(Unicode.Scalar(v)!))
            XCTAssertEqual(trimmed(c + "a" + c), c + "a" + c, String(v, radix: 16))
        }
        XCTAssertEqual(trimmed(""), "")
        XCTAssertEqual(trimmed("\u{3000}\u{3000}雖然 \u{A0}"), "雖然")
    }

    func testEveryBackendTrimsWhiteSpaceAsFeedparserDoes() throws {
        let l = try linesFromEveryBackend("""
            <rss version="2.0"><channel><title>&#160;Feed&#x3000;</title>
            <item><title>Title&#xA0;</title><description>&#x2009;a&#160;b&#xA0;&#x85;</description>
            <category>&#160;</category><guid>x</guid></item></channel></rss>
            """)
        XCTAssertEqual(l[0]["title"] as? String, "Title")
        XCTAssertEqual(l[0]["summary"] as? String, "a\u{A0}b")   // inside: kept
        XCTAssertNil(l[0]["categories"], "a category of white space names nothing: left out")
        XCTAssertEqual((l[0]["feed"] as? [String: Any])?["title"] as? String, "Feed")
        XCTAssertEqual(l[1]["title"] as? String, "Feed")
        // The model's strings likewise.
        let document = try XCTUnwrap(FeedStream.documents(from: .bytes(bytes("""
            <rss version="2.0"><channel><title>&#160;Feed&#x3000;</title><item><title>Title&#xA0;</title></item></channel></rss>
            """))).first)
        XCTAssertEqual(document.feed.title?.value, "Feed")
        XCTAssertEqual(document.items.first?.title?.value, "Title")
    }

    /// feedparser strips before it reads again: a value whose last character is a
    /// no-break space encoded twice (C3 82 C2 A0: "Â" and U+00A0) loses the U+00A0, and the
    /// "Â" left is no UTF-8 on its own; a value read again whose U+00A0 is its own (not
    /// part of a character encoded twice) is read again once that is trimmed.
    func testTrimmingComesBeforeReadingAgain() throws {
        let l = try linesFromEveryBackend("""
            <rss version="2.0"><channel><title>t</title><item><title>airport\u{C2}\u{A0}</title>\
            <description>RER\u{C3}\u{A9}\u{A0}</description><guid>x</guid></item></channel></rss>
            """)
        XCTAssertEqual(l[0]["title"] as? String, "airport\u{C2}")
        XCTAssertEqual(l[0]["summary"] as? String, "RER\u{E9}")
        XCTAssertEqual(l[0]["redecoded"] as? [String], ["summary"])
    }
}
