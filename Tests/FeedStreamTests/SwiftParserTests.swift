// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// The pure-Swift backend: the same output as the C core on every corpus file, however
/// the input is cut into chunks, and the same verdict on ill-formed documents.
final class SwiftParserTests: XCTestCase {
    private func chunked(_ data: [UInt8], _ size: Int) -> FeedInput { chunkedInput(data, size) }

    private var corpusFiles: [URL] {
        ["feeds", "bad", "encodings"].flatMap { Paths.files(in: Paths.corpus.appendingPathComponent($0)) }
    }

    func testSameOutputAsExpatOnEveryCorpusFile() throws {
        for file in corpusFiles {
            let data = try [UInt8](Data(contentsOf: file))
            let name = file.lastPathComponent
            let expat = try jsonLines(.bytes(data), source: name, parser: ExpatFeedParser())
            let swift = try jsonLines(.bytes(data), source: name, parser: SwiftFeedParser())
            if expat.summary.failedDocuments == 0 {
                XCTAssertEqual(swift.text, expat.text, name)
            } else {
                // Ill-formed: rejected too, with the same items before the error.
                XCTAssertEqual(swift.summary.failedDocuments, expat.summary.failedDocuments, name)
                XCTAssertEqual(swift.summary.items, expat.summary.items, name)
            }
            XCTAssertEqual(swift.summary.documents, expat.summary.documents, name)
        }
    }

    /// End tags naming the open element and the predefined entity references are read
    /// by shortcuts (no name scan): what they give, and that every other end tag still
    /// takes the full path (a longer or shorter name, a space before `>`).
    /// The `xml` prefix is bound by definition (Namespaces in XML, 3) on element names
    /// as on attributes: `<xml:note>` in an item is an element like any other, on every
    /// backend; another undeclared prefix still fails the document there (found by the
    /// differential fuzzer: the Swift tokenizer failed the first).
    func testTheXMLPrefixIsBoundOnElementNames() throws {
        let doc = """
            <rss version="2.0"><channel><title>t</title><item><title>one</title><xml:note>n</xml:note>
            <link>https://example.com/1</link></item><item><xml:space/><title>two</title></item></channel></rss>
            <rss version="2.0"><channel><item><title>three</title><other:note/></item></channel></rss>
            """
        for backend in FeedBackend.allCases {
            let (text, summary) = try jsonLines(.bytes(bytes(doc)), source: "s", parser: backend.makeParser())
            let lines = try text.split(separator: "\n").map {
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            XCTAssertEqual(summary.documents, 2, "\(backend)")
            let items = lines.filter { $0["kind"] as? String == "item" }
            XCTAssertEqual(items.map { $0["title"] as? String }, ["one", "two", "three"], "\(backend)")
            XCTAssertEqual(items[0]["link"] as? String, "https://example.com/1", "\(backend)")
            let feeds = lines.filter { $0["kind"] as? String == "feed" }
            XCTAssertNil(feeds[0]["error"], "\(backend)")
            let error = try XCTUnwrap(feeds[1]["error"] as? [String: Any], "\(backend)")
            XCTAssertEqual(error["line"] as? Int, 1, "\(backend)")   // the document's own lines
            XCTAssertEqual(error["column"] as? Int, 55, "\(backend)")   // at the tag
        }
    }

    /// The predefined entities by name (a DTD's attribute default, a reference read by the
    /// general path near the end of the input) give the characters the shortcut gives, and
    /// names one letter off are no predefined entity: an undefined entity, kept as written
    /// (docs/SCHEMA.md, "Entities"), as expat's backend keeps it.
    func testPredefinedEntitiesByNameAndNamesOneLetterOff() throws {
        let dtd = """
            <?xml version="1.0"?><!DOCTYPE feed [<!ATTLIST link href CDATA "a&lt;b&gt;c&amp;d&quot;e&apos;f">]>
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><title>x</title><link/></entry></feed>
            """
        for backend in FeedBackend.allCases {
            let (text, _) = try jsonLines(.bytes(bytes(dtd)), source: "d", parser: backend.makeParser())
            XCTAssertTrue(text.contains(#""links":[{"href":"a<b>c&d\"e'f","rel":"alternate"}]"#), "\(backend): \(text)")
        }
        // The last reference of the input, fewer than 8 bytes before its end: the general path.
        for (name, character) in [("lt", "<"), ("gt", ">"), ("amp", "&"), ("quot", #"\""#), ("apos", "'")] {
            let doc = bytes(#"<rss version="2.0"><channel><item><title>x&"# + name + ";</title></item></channel></rss>")
            for size in [doc.count, 1, 7] {
                let (text, _) = try jsonLines(chunked(doc, size), source: "p", parser: SwiftFeedParser())
                XCTAssertTrue(text.contains(#""title":"x"# + character + #"""#), "\(name) in chunks of \(size): \(text)")
            }
        }
        for name in ["l", "ltt", "g", "am", "ampp", "quo", "quott", "apo", "aposs", "LT", "Amp"] {
            let doc = bytes(#"<rss version="2.0"><channel><item><title>x&"# + name + ";</title></item></channel></rss>")
            let expat = try jsonLines(.bytes(doc), source: "p", parser: ExpatFeedParser())
            XCTAssertTrue(expat.text.contains(#""title":"x&"# + name + #";""#), "\(name): \(expat.text)")
            XCTAssertFalse(expat.text.contains(#""error""#), "\(name): \(expat.text)")
            for size in [doc.count, 1, 7] {
                XCTAssertEqual(try jsonLines(chunked(doc, size), source: "p", parser: SwiftFeedParser()).text, expat.text,
                               "\(name) in chunks of \(size)")
            }
        }
    }

    /// Text runs are copied into the record's arena in steps that depend on their length
    /// (`copyBytes`'s overlapping loads): every length 1-100, as text and as CDATA, split
    /// by a reference or not, in a document read whole and cut in chunks (a run then
    /// ends at a chunk's end), is the text written.
    func testTextRunsOfEveryLengthAreCopiedWhole() throws {
        var items = ""
        var expected: [String] = []
        for n in 1...100 {
            let t = String((0..<n).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })
            let split = t.prefix(n / 2) + "&amp;" + t.dropFirst(n / 2)
            items += "<item><title>\(t)</title><description><![CDATA[\(t)]]></description><author>\(split)</author></item>"
            expected.append(#""title":"\#(t)","title_type""#)
            expected.append(#""summary":"\#(t)","summary_type""#)
            expected.append(#"{"name":""# + t.prefix(n / 2) + "&" + t.dropFirst(n / 2) + #""}"#)
        }
        let doc = bytes(#"<rss version="2.0"><channel><title>c</title>"# + items + "</channel></rss>")
        let whole = try jsonLines(.bytes(doc), source: "r", parser: SwiftFeedParser()).text
        for e in expected { XCTAssertTrue(whole.contains(e), e) }
        for size in [1, 7, 63, 64, 65, 1000] {
            XCTAssertEqual(try jsonLines(chunked(doc, size), source: "r", parser: SwiftFeedParser()).text, whole, "chunks of \(size)")
        }
    }

    /// An end tag checked against its start tag's name in words (the quick path for
    /// ASCII names): names of every length 1-20 closed as opened are read, and one byte
    /// off at any place (first, middle, last, in either word) is expat's "mismatched tag"
    /// at the same place; a name with a byte >= 0x80 takes the general path.
    func testEveryNameLengthIsClosedOnlyByItsOwnName() throws {
        for n in 1...20 {
            let name = String((0..<n).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) })
            let ok = bytes(#"<rss version="2.0"><channel><item><x"# + name + ">v</x" + name + "><title>t</title></item></channel></rss>")
            let (text, summary) = try jsonLines(.bytes(ok), source: "n", parser: SwiftFeedParser())
            XCTAssertNil(summary.firstError, "\(n): \(text)")
            XCTAssertTrue(text.contains(#""title":"t""#), "\(n): \(text)")
            for k in Set([0, n / 2, n - 1]) {
                var off = Array(name.utf8)
                off[k] = k % 2 == 0 ? 0x5A : 0x41   // an upper-case letter: still a name
                let bad = bytes(#"<rss version="2.0"><channel><item><x"# + name + ">v</x" + String(decoding: off, as: UTF8.self)
                    + "><title>t</title></item></channel></rss>")
                let swift = try jsonLines(.bytes(bad), source: "n", parser: SwiftFeedParser()).1.firstError
                let expat = try jsonLines(.bytes(bad), source: "n", parser: ExpatFeedParser()).1.firstError
                XCTAssertEqual(swift?.message, "mismatched tag", "\(n), byte \(k)")
                XCTAssertEqual(swift.map { "\($0.line):\($0.column)" }, expat.map { "\($0.line):\($0.column)" }, "\(n), byte \(k)")
            }
        }
        let accented = bytes(#"<rss version="2.0"><channel><item><café>v</café><title>t</title></item></channel></rss>"#)
        XCTAssertNil(try jsonLines(.bytes(accented), source: "n", parser: SwiftFeedParser()).1.firstError)
        let wrong = bytes(#"<rss version="2.0"><channel><item><café>v</cafè><title>t</title></item></channel></rss>"#)
        XCTAssertEqual(try jsonLines(.bytes(wrong), source: "n", parser: SwiftFeedParser()).1.firstError?.message, "mismatched tag")
    }

    func testEndTagsAndPredefinedReferencesReadAlikeByEveryPath() throws {
        let doc = bytes(#"<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>"#
            + #"<title>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#38;&amp</title>"#
            + #"<item><title>t&amp;</title ><dc:creator>Ann</dc:creator><tïtle>x</tïtle></item></channel></rss>"#)
        let whole = try jsonLines(.bytes(doc), source: "t", parser: SwiftFeedParser())
        XCTAssertTrue(whole.text.contains(#""message":"not well-formed (invalid token)""#), whole.text)   // `&amp` without its `;`
        let good = bytes(String(decoding: doc, as: UTF8.self).replacingOccurrences(of: "&#38;&amp<", with: "&#38;<"))
        let lines = try jsonLines(.bytes(good), source: "t", parser: SwiftFeedParser())
        XCTAssertFalse(lines.text.contains(#""error""#), lines.text)
        XCTAssertTrue(lines.text.contains(#""title":"a <b> & \"c\" 'd' &""#), lines.text)
        XCTAssertTrue(lines.text.contains(#""title":"t&""#), lines.text)
        XCTAssertTrue(lines.text.contains(#""Ann""#), lines.text)
        for d in [doc, good] {
            let expat = try jsonLines(.bytes(d), source: "t", parser: ExpatFeedParser())
            let swift = try jsonLines(.bytes(d), source: "t", parser: SwiftFeedParser())
            XCTAssertEqual(swift.text, expat.text)
            for size in [1, 2, 3, 5] {
                XCTAssertEqual(try jsonLines(chunked(d, size), source: "t", parser: SwiftFeedParser()).text, swift.text)
            }
        }
        // Names that are not the open element's: the error expat gives, where it gives it.
        for end in ["</titlf>", "</titlex>", "</titl>", "</title\u{301}>", "</Title>"] {
            let bad = bytes(#"<rss version="2.0"><channel><title>x"# + end + "</channel></rss>")
            let expat = try jsonLines(.bytes(bad), source: "t", parser: ExpatFeedParser())
            let swift = try jsonLines(.bytes(bad), source: "t", parser: SwiftFeedParser())
            XCTAssertEqual(swift.text, expat.text, end)
            // At the end tag's name: `</` at offset 36.
            XCTAssertTrue(swift.text.contains(#""message":"mismatched tag","line":1,"column":39,"offset":38"#), swift.text)
        }
    }

    func testEndTagsOfEveryNameLengthCloseOnlyTheirElement() throws {
        // Names of 1 to 20 bytes (the end tag's fast path compares them in 8-byte words,
        // the last ones byte by byte), as an extension element's name, so that the text
        // comes out under it.
        for length in 1...20 {
            let name = String((0..<length).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) })
            let ok = bytes(#"<rss version="2.0"><channel><item><title>t</title><\#(name)>v\#(length)</\#(name)>"#
                           + "</item></channel></rss>")
            for size in [ok.count, 1, 7] {
                let lines = try jsonLines(chunked(ok, size), source: "t", parser: SwiftFeedParser()).text
                XCTAssertFalse(lines.contains(#""error""#), "\(length): \(lines)")
                XCTAssertTrue(lines.contains(#""name":"\#(name)","value":"v\#(length)""#), "\(length): \(lines)")
            }
            // The last byte different, one byte more, one less: mismatched, at the end
            // tag's name: after `<name>` (from offset 50), the text and `</`.
            let text = "v\(length)"
            let at = 51 + length + 1 + text.utf8.count + 2
            let last = String(name.dropLast()) + "Z"
            for end in [last, name + "a", String(name.dropLast())] where !end.isEmpty {
                let bad = bytes(#"<rss version="2.0"><channel><item><title>t</title><\#(name)>\#(text)</\#(end)>"#
                                + "</item></channel></rss>")
                let swift = try jsonLines(.bytes(bad), source: "t", parser: SwiftFeedParser()).text
                XCTAssertTrue(swift.contains(#""message":"mismatched tag","line":1,"column":\#(at + 1),"offset":\#(at)"#),
                              "\(name) / \(end): \(swift)")
            }
        }
        // A name with a non-ASCII letter, ended by itself: closed (the byte-by-byte path).
        let accented = bytes(#"<rss version="2.0"><channel><item><title>t</title><é>v</é></item></channel></rss>"#)
        let lines = try jsonLines(.bytes(accented), source: "t", parser: SwiftFeedParser()).text
        XCTAssertTrue(lines.contains(#""name":"é","value":"v""#), lines)
    }

    func testChunkBoundariesAnywhereGiveTheSameOutput() throws {
        // Splits fall inside tags, references, CDATA sections, comments, the XML
        // declaration and multi-byte characters (of every encoding in the corpus).
        for file in corpusFiles {
            let data = try [UInt8](Data(contentsOf: file))
            let name = file.lastPathComponent
            let whole = try jsonLines(.bytes(data), source: name, parser: SwiftFeedParser())
            for size in [1, 2, 3, 7, 64, 64 << 10] {
                let cut = try jsonLines(chunked(data, size), source: name, parser: SwiftFeedParser())
                XCTAssertEqual(cut.text, whole.text, "\(name), chunks of \(size)")
                XCTAssertEqual(cut.summary.items, whole.summary.items, "\(name), chunks of \(size)")
            }
        }
    }

    private func verdicts(_ xml: String, strict: Bool = false) throws
        -> (expat: ParseSummary, swift: ParseSummary, swiftText: String, expatText: String)
    {
        let data = bytes(xml)
        let e = try jsonLines(.bytes(data), source: "t", parser: ExpatFeedParser(strict: strict))
        let s = try jsonLines(.bytes(data), source: "t", parser: SwiftFeedParser(strict: strict))
        return (e.summary, s.summary, s.text, e.text)
    }

    func testIllFormedDocumentsAreRejectedLikeExpatDoes() throws {
        let item = "<item><title>kept</title></item>"
        let cases: [(String, String)] = [
            ("mismatched tag", "<rss><channel>\(item)<item><title>x</wrong></item></channel></rss>"),
            ("unbound prefix", "<rss><channel>\(item)<item><a:title>x</a:title></item></channel></rss>"),
            ("unbound attribute prefix", "<rss><channel>\(item)<item a:b=\"1\"/></channel></rss>"),
            ("duplicate attribute", "<rss><channel>\(item)<item a=\"1\" a=\"2\"/></channel></rss>"),
            ("duplicate expanded attribute",
             "<rss xmlns:x=\"u\" xmlns:y=\"u\"><channel>\(item)<item x:a=\"1\" y:a=\"2\"/></channel></rss>"),
            ("invalid UTF-8", "<rss><channel>\(item)<item><title>\u{00}</title></item></channel></rss>"),
            ("control character", "<rss><channel>\(item)<item><title>a\u{01}b</title></item></channel></rss>"),
            ("]]> in text", "<rss><channel>\(item)<item><title>a]]>b</title></item></channel></rss>"),
            ("< in attribute", "<rss><channel>\(item)<item a=\"<\"/></channel></rss>"),
            ("bare &", "<rss><channel>\(item)<item><title>a & b</title></item></channel></rss>"),
            ("bad character reference", "<rss><channel>\(item)<item><title>&#0;</title></item></channel></rss>"),
            ("undefined entity when standalone",
             "<?xml version=\"1.0\" standalone=\"yes\"?><rss><channel>\(item)<item><title>&nbsp;</title></item></channel></rss>"),
            ("-- in comment", "<rss><channel>\(item)<!-- a -- b --><item/></channel></rss>"),
            ("misplaced declaration", "<rss><channel>\(item)<?xml version=\"1.0\"?></channel></rss>"),
            ("text before the root", "hello<rss/>"),
            ("unclosed CDATA", "<rss><channel>\(item)<item><title><![CDATA[x</title></item></channel></rss>"),
            ("unknown encoding", "<?xml version=\"1.0\" encoding=\"x-no-such-charset\"?><rss/>"),
            ("UTF-16 declared, 8-bit found", "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss/>"),
            ("truncated", "<rss><channel>\(item)<item><title>x</title>"),
            ("attribute without value", "<rss><channel>\(item)<item a/></channel></rss>"),
            ("attributes without space", "<rss><channel>\(item)<item a=\"1\"b=\"2\"/></channel></rss>"),
        ]
        for (name, xml) in cases {
            // Strict: the tokenizers' verdicts.
            let v = try verdicts(xml, strict: true)
            XCTAssertEqual(v.expat.failedDocuments, 1, "\(name): expat accepted it")
            XCTAssertEqual(v.swift.failedDocuments, 1, "\(name): swift accepted it\n\(v.swiftText)")
            XCTAssertEqual(v.swift.items, v.expat.items, "\(name): items before the error")
            // With the recovery path: the same document, at least the same items.
            let r = try verdicts(xml)
            XCTAssertEqual(r.expat.failedDocuments + r.expat.recoveredDocuments, 1, "\(name): expat, recovering")
            XCTAssertEqual(r.swift.items, r.expat.items, "\(name): items, recovering")
            XCTAssertGreaterThanOrEqual(r.expat.items, v.expat.items, "\(name): recovering lost items")
        }
    }

    func testWellFormedCornersGiveExpatsOutput() throws {
        let cases: [(String, String)] = [
            ("HTML entities", "<rss><channel><item><title>a&nbsp;b&mdash;c&eacute;&unknown;</title></item></channel></rss>"),
            ("internal entities",
             "<!DOCTYPE rss [<!ENTITY me \"Me &amp; &#233;\"><!ENTITY b \"<b>bold</b>\">]><rss><channel><item><title>&me;</title><description>x&b;y</description></item></channel></rss>"),
            ("line ends", "<rss><channel><item><title>a\r\nb\rc\n</title><description><![CDATA[x\r\ny\rz]]></description></item></channel></rss>"),
            ("attribute white space", "<rss><channel><item><category domain=\"a\tb\r\nc\nd&#10;e\">x</category></item></channel></rss>"),
            ("references", "<rss><channel><item><title>&#x1F600;&#233;&lt;&gt;&amp;&quot;&apos;</title></item></channel></rss>"),
            ("BOM", "\u{FEFF}<?xml version=\"1.0\"?><rss><channel><title>t</title></channel></rss>"),
            ("comments and PIs", "<?xml version='1.0' encoding='utf-8' ?><!--c--><?pi x?><rss><!--c--><channel><?p?><title>t<!--x-->u</title></channel></rss>"),
            ("namespaces", "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:a=\"http://www.w3.org/2005/Atom\"><a:title type=\"html\">T</a:title><entry xml:lang=\"fr\" xml:base=\"http://x/\"><title>e</title><link href=\"p\"/></entry></feed>"),
            ("default namespace undeclared", "<rss><channel xmlns=\"http://example.com/\"><title xmlns=\"\">t</title></channel></rss>"),
            ("empty root", "<rss version=\"2.0\"/>"),
            ("xhtml content", "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><content type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\"><p class=\"a\">x &amp; <b>y</b><br/></p></div></content></entry></feed>"),
            ("attribute defaults",
             "<!DOCTYPE rss [<!ATTLIST guid isPermaLink CDATA \"false\"><!ATTLIST rss xmlns:dc CDATA #FIXED \"http://purl.org/dc/elements/1.1/\" version CDATA \"2.0\">]><rss><channel><item><guid>g</guid><dc:creator>me</dc:creator></item><item><guid isPermaLink=\"true\">h</guid></item></channel></rss>"),
            ("latin-1", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>caf\u{E9}</title></channel></rss>"),
        ]
        for (name, xml) in cases {
            var data = bytes(xml)
            if name == "latin-1" { data = Array(xml.unicodeScalars.map { UInt8($0.value) }) }
            let e = try jsonLines(.bytes(data), source: "t", parser: ExpatFeedParser())
            let s = try jsonLines(.bytes(data), source: "t", parser: SwiftFeedParser())
            XCTAssertEqual(e.summary.failedDocuments, 0, "\(name): \(e.text)")
            XCTAssertEqual(s.text, e.text, name)
        }
    }

    func testUTF16DocumentsWithAndWithoutByteOrderMark() throws {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss><channel><title>日本 😀</title></channel></rss>"
        let le = Array(xml.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let be = Array(xml.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        for data in [[0xFF, 0xFE] + le, [0xFE, 0xFF] + be, le, be] {
            let e = try jsonLines(.bytes(data), source: "t", parser: ExpatFeedParser())
            let s = try jsonLines(.bytes(data), source: "t", parser: SwiftFeedParser())
            XCTAssertEqual(e.summary.failedDocuments, 0)
            XCTAssertEqual(s.text, e.text)
        }
    }
}
