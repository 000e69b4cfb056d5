// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// The same failure is reported with the same code, line, column and offset by every
/// backend (the message text is each tokenizer's own; docs/SCHEMA.md, "Backends").
final class ErrorPositionTests: XCTestCase {
    /// The error member of the document's feed record, on each backend.
    private func errors(_ data: [UInt8]) throws -> [FeedBackend: (code: String, line: Int, column: Int, offset: Int)] {
        var found: [FeedBackend: (String, Int, Int, Int)] = [:]
        for backend in FeedBackend.allCases {
            let (text, _) = try jsonLines(.bytes(data), source: "t", parser: backend.makeParser(limits: .default))
            // The failed document's (a document that follows it is read on its own).
            let feed = try XCTUnwrap(text.split(separator: "\n").first(where: { $0.contains(#""kind":"feed""#) }))
            let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(feed.utf8)) as? [String: Any])
            let e = try XCTUnwrap(record["error"] as? [String: Any], "\(backend.rawValue): \(feed)")
            found[backend] = (try XCTUnwrap(e["code"] as? String), try XCTUnwrap(e["line"] as? Int),
                              try XCTUnwrap(e["column"] as? Int), try XCTUnwrap(e["offset"] as? Int))
        }
        return found
    }

    private func assertEveryBackend(_ document: [UInt8], line: Int, column: Int, offset: Int, _ name: String,
                                    file: StaticString = #filePath, fileLine: UInt = #line) throws {
        for (backend, e) in try errors(document) {
            XCTAssertEqual(e.code, "xml", "\(name): \(backend.rawValue)", file: file, line: fileLine)
            XCTAssertEqual([e.line, e.column, e.offset], [line, column, offset], "\(name): \(backend.rawValue)",
                           file: file, line: fileLine)
        }
    }

    func testUnboundPrefixIsReportedAtTheStartTagEverywhere() throws {
        // Every backend places the error where expat does: at the tag's '<' (column 51),
        // not at the tag's end or the character after '<'.
        let element = #"<rss version="2.0"><channel><title>T</title><item><a:b>x</a:b></item></channel></rss>"#
        try assertEveryBackend(bytes(element), line: 1, column: 51, offset: 50, "element")
        let attribute = "<rss version=\"2.0\">\n<channel><title a:b=\"1\">T</title></channel></rss>"
        try assertEveryBackend(bytes(attribute), line: 2, column: 10, offset: 29, "attribute")
        // A tag over two lines: the position of its '<'.
        let twoLines = "<rss version=\"2.0\">\n<channel><x:title\n a:b=\"1\">T</x:title></channel></rss>"
        try assertEveryBackend(bytes(twoLines), line: 2, column: 10, offset: 29, "two lines")
    }

    func testADuplicateAttributeIsReportedWhereExpatReportsIt() throws {
        // Given twice by name: at its second name (not the tag's end, where libxml2
        // itself places it).
        let twice = "<rss version=\"2.0\">\n<channel><title>T</title><item><title>i</title><enclosure a0=\"v\" \n url=\"x\" p=\"a b=\" b=\"1\" b=\"2\"/></item></channel></rss>"
        try assertEveryBackend(bytes(twice), line: 3, column: 25, offset: 110, "by name")
        // The same namespace and local name under two prefixes: at the tag's '<'.
        let expanded = #"<rss version="2.0" xmlns:q="urn:p"><channel><title>T</title><item><enclosure xmlns:p="urn:p" p:b="1" q:b="2"/></item></channel></rss>"#
        try assertEveryBackend(bytes(expanded), line: 1, column: 67, offset: 66, "by namespace")
    }

    /// A UTF-16 document whose bytes end inside a character (an odd byte; a high
    /// surrogate with nothing after it): expat's tokenizers see the input end there, so
    /// a token still open fails at its start ("unclosed token", or "partial character"
    /// for the surrogate), text where the bytes end, and a CDATA section as unclosed; the
    /// Swift backend gives the same, not "not well-formed (invalid token)" at the last bytes.
    func testAUTF16DocumentEndingInsideACharacterFailsAsExpatSays() throws {
        let head = "<rss version=\"2.0\"><channel><title>"
        let cases: [(String, String, [UInt8], String, Int)] = [
            // (name, text, last bytes (little-endian), message, character index of the error)
            ("text, odd byte", head + "hello", [0x78], "unclosed token", 40),
            ("text, high surrogate", head + "hello", [0x00, 0xD8], "partial character", 40),
            ("text, high surrogate and odd byte", head + "ab", [0x00, 0xD8, 0x78], "partial character", 37),
            ("tag, odd byte", "<rss version=\"2.0\"><channel><title", [0x78], "unclosed token", 28),
            ("tag, high surrogate", "<rss version=\"2.0\"><channel><title", [0x00, 0xD8], "partial character", 28),
            ("comment, odd byte", "<rss version=\"2.0\"><channel><!-- c", [0x78], "unclosed token", 28),
            ("declaration, odd byte", "<?xml version=\"1.0\" encoding", [0x78], "unclosed token", 0),
            ("CDATA, odd byte", head + "<![CDATA[ab", [0x78], "unclosed CDATA section", 46),
            ("CDATA, high surrogate", head + "<![CDATA[ab", [0x00, 0xD8], "partial character", 46),
            // Not at the end: a character that is none.
            ("low surrogate", head + "ab", [0x00, 0xDC], "not well-formed (invalid token)", 37),
        ]
        for (name, text, last, message, index) in cases {
            for bigEndian in [false, true] {
                var data: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
                for u in text.utf16 { data += bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)] }
                var tail = last
                if bigEndian && tail.count >= 2 { tail.swapAt(0, 1) }
                data += tail
                let context = "\(name), \(bigEndian ? "BE" : "LE")"
                for backend in [FeedBackend.expat, .swift] {
                    for input in [FeedInput.bytes(data), chunkedInput(data, 1), chunkedInput(data, 3), .bytes(gzip(data))] {
                        let docs = try backend.makeParser().documents(from: input)
                        let e = docs.first?.error
                        XCTAssertEqual(e?.message, message, "\(context), \(backend)")
                        // The byte order mark is one column; each character one.
                        XCTAssertEqual([e?.line, e?.column, e.map { Int($0.offset) }], [1, index + 2, 2 + 2 * index],
                                       "\(context), \(backend)")
                    }
                }
            }
        }
    }

    func testAMisplacedDeclarationIsReportedAtItsLessThan() throws {
        // In content (a template's include, or the next document of a dump after one cut
        // short) or in text: at its '<' (libxml2 itself names the byte after `<?xml`).
        let inContent = "<rss version=\"2.0\"><channel><title>T</title>\n<?xml version=\"1.0\"?><item><title>i</title></item></channel></rss>"
        try assertEveryBackend(bytes(inContent), line: 2, column: 1, offset: 45, "in content")
        let inText = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><item><title>cut<?xml version=\"1.0\"?></title></item></channel></rss>"
        try assertEveryBackend(bytes(inText), line: 2, column: 45, offset: 66, "in text")
        // Before the root, after a comment.
        try assertEveryBackend(bytes("<!-- c --><?xml version=\"1.0\"?><rss version=\"2.0\"><channel/></rss>"),
                               line: 1, column: 11, offset: 10, "after a comment")
    }

    func testAByteOrderMarkIsOneColumn() throws {
        // After a UTF-8 mark (3 bytes) the '<' of the tag is character 29 of line 1: column 30.
        let marked = [0xEF, 0xBB, 0xBF] + bytes(#"<rss version="2.0"><channel><title a:b="1">T</title></channel></rss>"#)
        try assertEveryBackend(marked, line: 1, column: 30, offset: 31, "UTF-8 mark, unbound prefix")
        // A control character in text, after the mark.
        let control = [0xEF, 0xBB, 0xBF] + bytes("<rss version=\"2.0\"><channel><title>ab\u{1}</title></channel></rss>")
        try assertEveryBackend(control, line: 1, column: 39, offset: 40, "UTF-8 mark, invalid character")
    }

    /// In UTF-16 and UTF-32 the column counts characters too, not the UTF-8 bytes the
    /// Swift tokenizer scans (which would give 47 and 48 here): three `é` and an emoji (a surrogate pair in UTF-16, one
    /// character) before the control character, on line 2 after a declaration, or on
    /// line 1 after a byte order mark (one column).
    func testUTF16AndUTF32ColumnsCountCharacters() throws {
        let body = "<rss version=\"2.0\"><channel><title>\u{E9}\u{E9}\u{E9}\u{1F600}x\u{1}</title></channel></rss>\n"
        func utf16(_ s: String, bigEndian: Bool) -> [UInt8] {
            s.utf16.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        }
        func utf32(_ s: String, bigEndian: Bool) -> [UInt8] {
            s.unicodeScalars.flatMap { u -> [UInt8] in
                let b = [UInt8(u.value >> 24), UInt8((u.value >> 16) & 0xFF), UInt8((u.value >> 8) & 0xFF), UInt8(u.value & 0xFF)]
                return bigEndian ? b : b.reversed()
            }
        }
        let declared = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n" + body
        // Line 2: 35 characters of markup, then 5 before the control character.
        try assertEveryBackend([0xFF, 0xFE] + utf16(declared, bigEndian: false), line: 2, column: 41, offset: 164, "UTF-16LE, line 2")
        try assertEveryBackend(utf16(declared, bigEndian: true), line: 2, column: 41, offset: 162, "UTF-16BE, line 2")
        // Line 1 after a mark: the mark is a column.
        try assertEveryBackend([0xFF, 0xFE] + utf16(body, bigEndian: false), line: 1, column: 42, offset: 84, "UTF-16LE mark, line 1")
        try assertEveryBackend([0xFF, 0xFE, 0, 0] + utf32(body, bigEndian: false), line: 1, column: 42, offset: 164, "UTF-32LE mark, line 1")
        try assertEveryBackend(utf32(body, bigEndian: true), line: 1, column: 41, offset: 160, "UTF-32BE, line 1")
    }

    /// An attribute's default value in the internal subset is read as expat reads it
    /// (storeAttributeValue): a `<` in it is an invalid token there, and a reference must
    /// be one. The Swift backend took `"audio<…"` as a default (the differential fuzzer;
    /// corpus/fuzz-regressions/attribute-default-values.xml has more cases). A good
    /// default is applied, its references replaced.
    func testAttributeDefaultValuesAreCheckedAsExpatChecksThem() throws {
        func doc(_ declaration: String) -> [UInt8] {
            bytes("<?xml version=\"1.0\"?>\n<!DOCTYPE rss [\n  <!ATTLIST enclosure type CDATA \(declaration)>\n]>\n"
                  + "<rss version=\"2.0\"><channel><title>T</title><item><title>i</title><enclosure url=\"http://example.com/i.mp3\"/></item></channel></rss>\n")
        }
        try assertEveryBackend(doc("\"audio<mpeg\""), line: 3, column: 40, offset: 77, "a < in a default")
        try assertEveryBackend(doc("#FIXED \"x<y\""), line: 3, column: 43, offset: 80, "a < in a #FIXED default")
        try assertEveryBackend(doc("\"a&b c;\""), line: 3, column: 38, offset: 75, "a broken entity reference")
        for backend in FeedBackend.allCases {
            let docs = try backend.makeParser(strict: true).documents(from: .bytes(doc("\"a&amp;b&#65;\"")))
            XCTAssertNil(docs.first?.error, "\(backend)")
            XCTAssertEqual(docs.first?.items.first?.enclosures.map(\.type), ["a&bA"], "\(backend)")
        }
    }

    func testABrokenReferenceIsReportedAtTheByteThatBreaksIt() throws {
        // expat's scanRef/scanCharRef: the first byte that is not part of the reference
        // (not the '&' or the name's first byte).
        let head = #"<rss version="2.0"><channel><title>a"#   // the '&' is at offset 36
        for (text, offset) in [("&b<", 38), ("&bc d", 39), ("&;", 37), ("& b", 37),
                               ("&#12x;", 40), ("&#x;", 39), ("&#;", 38), ("&#xZ;", 39)] {
            let doc = bytes(head + text + "</title></channel></rss>")
            for (backend, e) in try errors(doc) {
                XCTAssertEqual([e.line, e.column, e.offset], [1, offset + 1, offset], "\(text): \(backend.rawValue)")
            }
        }
    }

    func testABareAmpersandWithNoSemicolonAfterItLosesNothingAfter() throws {
        // libxml2's push parser waits for a ';' anywhere further on before failing at a
        // bare '&'; every backend fails the document where expat does instead, so the
        // documents after it are kept.
        let broken = #"<rss version="2.0"><channel><title>c</title><item><title>a&b</title></item></channel></rss>"#
        let good = #"<rss version="2.0"><channel><title>d</title><item><title>y</title></item></channel></rss>"#
        for strict in [true, false] {
            for backend in FeedBackend.allCases {
                for input in [FeedInput.bytes(bytes(broken + "\n" + good + good)), chunkedInput(bytes(broken + "\n" + good + good), 5)] {
                    let collector = FeedCollector()
                    let summary = try backend.makeParser(limits: .default, strict: strict).parse(input, handler: collector)
                    XCTAssertEqual(summary.documents, 3, "\(backend.rawValue), strict \(strict)")
                    XCTAssertEqual(collector.documents.map { $0.feed.title?.value ?? "" }, ["c", "d", "d"], backend.rawValue)
                    XCTAssertEqual(summary.firstError?.offset, 60, backend.rawValue)
                }
            }
        }
    }
    func testAnUndecodableCharacterAfterAHeldTokenIsWhereItIs() throws {
        // UTF-32LE by its first bytes, "<" then four bytes that are no character: the
        // error is at offset 4, where expat places it, not at the held "<" (offset 0).
        let data: [UInt8] = [0x3C, 0, 0, 0] + bytes(#"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>"#)
        try assertEveryBackend(data, line: 1, column: 2, offset: 4, "UTF-32LE, then 8-bit bytes")
    }

    func testABadCharacterInACommentThatNeverEndsIsWhereItIs() throws {
        // expat reports it as it scans the comment, before its end, and so does the Swift
        // backend: "unclosed token" at the comment's start, at the end of the input, would
        // come too late for the search for the next document (a differential fuzzer finding).
        let data = bytes("<?xml version=\"1.0\"?><!-- c ") + [0xCB] + bytes("p <?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>b</title></channel></rss>")
        // libxml2 reports it only at the end of the input (where nothing after it is
        // searched again: docs/CLI.md, "same output"), so the document after it is expat's and swift's.
        for backend in FeedBackend.allCases {
            for input in [FeedInput.bytes(data), chunkedInput(data, 7)] {
                let collector = FeedCollector()
                try backend.makeParser(limits: .default, strict: true).parse(input, handler: collector)
                let error = try XCTUnwrap(collector.documents.first?.error, backend.rawValue)
                XCTAssertEqual([error.line, error.column, Int(error.offset)], [1, 29, 28], backend.rawValue)
                if backend != .libxml2 {
                    XCTAssertEqual(collector.documents.map { $0.feed.title?.value }, [nil, "b"], backend.rawValue)
                }
            }
        }
    }
    func testADocumentThatFailsInItsFirstWideCharactersNamesItsCharset() throws {
        // UTF-32BE by its first bytes, then four bytes that are no character: the feed
        // line names the charset on every backend (the Swift backend named none; found
        // by the differential fuzzer).
        let data: [UInt8] = [0, 0, 0, 0x3C, 0x3C, 0x3F, 0x78, 0x6D] + bytes("l version=\"1.0\"?>")
        for backend in FeedBackend.allCases {
            let (text, _) = try jsonLines(.bytes(data), source: "t", parser: backend.makeParser(limits: .default))
            XCTAssertTrue(text.contains(#""encoding":"utf-32be""#), "\(backend.rawValue): \(text)")
        }
    }
    func testAnUnclosedCommentAfterTheLastDocumentIsReported() throws {
        // The rest of the input (here a whole document) is not read silently: it is a
        // failed document at the comment's '<', on every backend, however cut.
        let first = #"<rss version="2.0"><channel><title>a</title></channel></rss>"#   // 60 bytes
        for (tail, message) in [("<!-- never closed\n<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>b</title></channel></rss>",
                                 "unclosed comment after the last document"),
                                ("\n<?pi never closed", "unclosed processing instruction after the last document")] {
            let data = bytes(first + tail)
            let at = first.utf8.count + (tail.hasPrefix("\n") ? 1 : 0)
            for backend in FeedBackend.allCases {
                for input in [FeedInput.bytes(data), chunkedInput(data, 1), chunkedInput(data, 7)] {
                    let collector = FeedCollector()
                    let summary = try backend.makeParser(limits: .default).parse(input, handler: collector)
                    XCTAssertEqual(summary.documents, 2, backend.rawValue)
                    XCTAssertEqual(summary.failedDocuments, 1, backend.rawValue)
                    let e = try XCTUnwrap(collector.documents.last?.error, backend.rawValue)
                    XCTAssertEqual(e.message, message, backend.rawValue)
                    XCTAssertEqual(e.offset, UInt64(at), backend.rawValue)
                }
            }
        }
        // A comment that ends is still nothing.
        let closed = bytes(first + "<!-- fine -->\n")
        for backend in FeedBackend.allCases {
            XCTAssertTrue(try backend.makeParser().parse(.bytes(closed), handler: FeedCollector()).succeeded, backend.rawValue)
        }
    }
    func testAProcessingInstructionIsCheckedRightAfterItsTarget() throws {
        // expat's scanPi: "?>" or white space must follow the target, the error is there
        // whatever comes after (the Swift backend waited for the "?>"; found by the swift fuzzer).
        let cases: [(String, Int)] = [("<?xmle.org/blog/\">\n<feed>x", 10), ("<?xmle.org/b ?><rss/>", 10), ("<?pi?x?><rss/>", 5)]
        for (text, offset) in cases {
            for backend in [FeedBackend.expat, .swift] {
                for input in [FeedInput.bytes(bytes(text)), chunkedInput(bytes(text), 3)] {
                    let collector = FeedCollector()
                    try backend.makeParser(limits: .default, strict: true).parse(input, handler: collector)
                    XCTAssertEqual(collector.documents.first?.error.map { Int($0.offset) }, offset, "\(text): \(backend.rawValue)")
                }
            }
        }
        // A processing instruction as it should be, and an empty one, are nothing.
        for ok in ["<?pi some text?><rss version=\"2.0\"><channel><title>t</title></channel></rss>",
                   "<?pi?><rss version=\"2.0\"><channel><title>t</title></channel></rss>"] {
            for backend in FeedBackend.allCases {
                XCTAssertTrue(try backend.makeParser().parse(.bytes(bytes(ok)), handler: FeedCollector()).succeeded, backend.rawValue)
            }
        }
    }

    /// The expat and Swift backends' error (libxml2 words and places prolog errors its
    /// own way: docs/SCHEMA.md, "Backends").
    private func assertExpatAndSwift(_ document: String, column: Int, message: String,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        for backend in [FeedBackend.expat, .swift] {
            let (text, _) = try jsonLines(.bytes(bytes(document)), source: "t", parser: backend.makeParser(limits: .default))
            let feed = try XCTUnwrap(text.split(separator: "\n").first(where: { $0.contains(#""kind":"feed""#) }))
            let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(feed.utf8)) as? [String: Any])
            let e = try XCTUnwrap(record["error"] as? [String: Any], "\(backend.rawValue): \(feed)", file: file, line: line)
            XCTAssertEqual(e["column"] as? Int, column, "\(document): \(backend.rawValue)", file: file, line: line)
            XCTAssertEqual(e["offset"] as? Int, column - 1, "\(document): \(backend.rawValue)", file: file, line: line)
            XCTAssertEqual(e["message"] as? String, message, "\(document): \(backend.rawValue)", file: file, line: line)
        }
    }

    func testThePrologIsReadAsExpatReadsIt() throws {
        // Prolog errors the differential fuzzer checks: the Swift tokenizer fails at the
        // bad byte expat reads on to, not at a token's start or the DOCTYPE's.
        let invalid = "not well-formed (invalid token)"
        // Text before the root: a name, then '<' where a name may not be followed by one.
        try assertExpatAndSwift(#"V<?xml version="1.0"?><rss/>"#, column: 2, message: invalid)
        // A literal: followed by what may not follow one; or a token out of place.
        try assertExpatAndSwift("'x'y<rss/>", column: 4, message: invalid)
        try assertExpatAndSwift("'x' <rss/>", column: 1, message: "syntax error")
        // A markup declaration's keyword ended by a quote.
        try assertExpatAndSwift(#"<!DOCTYPE rss [<!E"x">]><rss/>"#, column: 19, message: invalid)
        // A start tag in the internal subset.
        try assertExpatAndSwift(#"<!DOCTYPE rss [ <!ENTITY e "v"> <x> ]><rss/>"#, column: 33, message: "syntax error")
        // A DOCTYPE the input ends in: no element, at the end (it was "unclosed" at its start).
        try assertExpatAndSwift(#"<!DOCTYPE rss [ <!ENTITY e "v">"#, column: 32, message: "no element found")
        // "<?xml" followed by neither space nor "?": the target's end.
        try assertExpatAndSwift(#"<?xml<?xml version="1.0"?><rss/>"#, column: 6, message: invalid)
        // A parameter entity reference in an entity's value, a tab in a public identifier.
        try assertExpatAndSwift(#"<!DOCTYPE rss [<!ENTITY a "x%b;y">]><rss/>"#, column: 29,
                                message: "illegal parameter entity reference")
        try assertExpatAndSwift("<!DOCTYPE rss PUBLIC \"a\tb\" \"c\"><rss/>", column: 24,
                                message: "illegal character(s) in public id")
        try assertExpatAndSwift(#"<!DOCTYPE rss [<!ENTITY a "x&#0;">]><rss/>"#, column: 29,
                                message: "reference to invalid character number")
    }

    func testMarkupInContentIsReadAsExpatReadsIt() throws {
        let invalid = "not well-formed (invalid token)"
        // "--" in a comment: the byte after it (was the first '-').
        try assertExpatAndSwift("<rss><!-- x -- y --></rss>", column: 15, message: invalid)
        // "<![" not followed by "CDATA[": the first byte that differs (was the '<').
        try assertExpatAndSwift("<rss><![CDAXA[x]]></rss>", column: 12, message: invalid)
        // A reserved target in another case: the target's end.
        try assertExpatAndSwift("<rss><?XmL a?></rss>", column: 11, message: invalid)
        // A reference's syntax in an attribute value, checked as the tag is read (the
        // '<' further on in the value was reported first).
        try assertExpatAndSwift(#"<rss a="x&#to <"/>"#, column: 12, message: invalid)
        // Two colons in a name, or a colon followed by what cannot begin a name.
        try assertExpatAndSwift(#"<rss a:b:c="1"/>"#, column: 9, message: invalid)
        try assertExpatAndSwift("<rss><l:1/></rss>", column: 9, message: invalid)
        // A byte that is no character in a name: that byte (was the name's start).
        try assertExpatAndSwift("<rss vers\u{FFFF}=\"1\"/>", column: 10, message: invalid)
    }

    func testDeclarationsAfterAParameterEntityReferenceAreIgnored() throws {
        // expat's keepProcessing: the reference is never read, so a document that is not
        // standalone has the declarations after it ignored; the entity stays a reference.
        let doc = #"<!DOCTYPE rss [ %p; <!ENTITY e "v"> ]><rss version="2.0"><channel><title>a&e;b</title></channel></rss>"#
        for backend in FeedBackend.allCases {
            let (text, _) = try jsonLines(.bytes(bytes(doc)), source: "t", parser: backend.makeParser(limits: .default))
            XCTAssertTrue(text.contains(#""title":"a&e;b""#), "\(backend.rawValue): \(text)")
        }
        // An internal parameter entity is read as declarations: an error in its text is
        // reported at the reference; one referring to itself is an error.
        try assertExpatAndSwift(#"<!DOCTYPE rss [ <!ENTITY % d "<!ENTIT e 'x'>"> %d; ]><rss/>"#, column: 48,
                                message: "syntax error")
        try assertExpatAndSwift(#"<!DOCTYPE rss [ <!ENTITY % d '&#37;d;'> %d; ]><rss/>"#, column: 41,
                                message: "recursive entity reference")
        let declared = #"<!DOCTYPE rss [ <!ENTITY % a "<!ENTITY e 'x'>"> <!ENTITY % d '&#37;a;'> %d; ]><rss version="2.0"><channel><title>&e;</title></channel></rss>"#
        for backend in FeedBackend.allCases {
            let (text, _) = try jsonLines(.bytes(bytes(declared)), source: "t", parser: backend.makeParser(limits: .default))
            XCTAssertTrue(text.contains(#""title":"x""#), "\(backend.rawValue): \(text)")
        }
        let standalone = #"<?xml version="1.0" standalone="yes"?>"# + doc
        for backend in [FeedBackend.expat, .swift] {
            let (text, _) = try jsonLines(.bytes(bytes(standalone)), source: "t", parser: backend.makeParser(limits: .default))
            XCTAssertTrue(text.contains(#""title":"avb""#), "\(backend.rawValue): \(text)")
        }
    }
}

/// A document the input ends in is reported in expat's words on the Swift backend too,
/// whole or in one-byte chunks: "partial character" when its last bytes begin a
/// character, "unclosed CDATA section" inside CDATA — not "not well-formed (invalid
/// token)", "unclosed token", or "no element found" when the section's bytes all came in
/// an earlier chunk (the default backend's messages are what most users see; SCHEMA.md,
/// "Backends").
final class EndOfInputMessageTests: XCTestCase {
    func testATruncatedDocumentIsReportedInExpatsWords() throws {
        let head = #"<rss version="2.0"><channel><title>T</title><item><description>"#
        let cases: [(String, [UInt8], String, Int)] = [
            ("text ends inside a character", bytes(head + "caf") + [0xC3], "partial character", 66),
            ("CDATA ends inside a character", bytes(head + "<![CDATA[abc") + [0xE2, 0x82], "partial character", 75),
            ("CDATA not closed", bytes(head + "<![CDATA[abc def"), "unclosed CDATA section", 79),
            ("CDATA ends in ]]", bytes(head + "<![CDATA[abc]]"), "unclosed CDATA section", 75),
            ("an attribute value ends inside a character", bytes(head + #"<a href="x"#) + [0xC3], "partial character", 63),
            ("a tag ends inside a character", bytes(head + "<ab") + [0xF0, 0x9F], "partial character", 63),
            ("a tag not closed", bytes(head + #"<a href="x" "#), "unclosed token", 63),
            ("text not closed", bytes(head + "abc"), "no element found", 66),
        ]
        for (name, data, message, offset) in cases {
            for backend in [FeedBackend.expat, .swift] {
                for input in [FeedInput.bytes(data), chunkedInput(data, 1)] {
                    let (text, _) = try jsonLines(input, source: "t", parser: backend.makeParser(strict: true))
                    let feed = try XCTUnwrap(text.split(separator: "\n").last(where: { $0.contains(#""kind":"feed""#) }))
                    let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(feed.utf8)) as? [String: Any])
                    let e = try XCTUnwrap(record["error"] as? [String: Any], "\(name), \(backend.rawValue)")
                    XCTAssertEqual(e["message"] as? String, message, "\(name), \(backend.rawValue)")
                    XCTAssertEqual(e["offset"] as? Int, offset, "\(name), \(backend.rawValue)")
                }
            }
        }
    }
}
