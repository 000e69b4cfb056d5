// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Attribute-list declarations (`<!ATTLIST>`) and general entities in attribute values,
/// as XML 1.0 §3.3 and expat read them: a default is expanded and normalized when
/// declared, a value of a type other than CDATA has its spaces collapsed and trimmed
/// (also one given in a start tag), and references an attribute value may not make are
/// errors, on every backend alike (cases the differential fuzzer found, Fuzz/README.md).
final class AttributeDeclarationTests: XCTestCase {
    private func document(_ subset: String, _ element: String, standalone: Bool = false) -> [UInt8] {
        bytes("<?xml version=\"1.0\"\(standalone ? " standalone=\"yes\"" : "")?>\n<!DOCTYPE rss [\n\(subset)\n]>\n"
              + "<rss version=\"2.0\"><channel><title>T</title><item><title>i</title>\(element)</item></channel></rss>")
    }

    /// The enclosure's `type` on each backend, strictly parsed (nil: none).
    private func enclosureType(_ data: [UInt8], _ backends: [FeedBackend], _ name: String,
                               file: StaticString = #filePath, line: UInt = #line) throws -> [FeedBackend: String?] {
        var found: [FeedBackend: String?] = [:]
        for backend in backends {
            let (text, summary) = try jsonLines(.bytes(data), source: "t",
                                                parser: backend.makeParser(strict: true))
            XCTAssertEqual(summary.failedDocuments, 0, "\(name), \(backend.rawValue): \(text)", file: file, line: line)
            let item = try XCTUnwrap(text.split(separator: "\n").first(where: { $0.contains(#""kind":"item""#) }),
                                     "\(name), \(backend.rawValue): \(text)", file: file, line: line)
            let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(item.utf8)) as? [String: Any])
            let enclosure = (record["enclosures"] as? [[String: Any]])?.first
            found[backend] = enclosure?["type"] as? String
        }
        return found
    }

    func testDefaultsAndDeclaredTypesGiveTheValuesXMLDefines() throws {
        let cases: [(name: String, subset: String, element: String, type: String?)] = [
            ("entity in a default", #"<!ENTITY e "x&amp;y"><!ATTLIST enclosure type CDATA "a&e;">"#,
             #"<enclosure url="u"/>"#, "ax&y"),
            ("nested entities, a character reference kept as text",
             #"<!ENTITY f "q"><!ENTITY e "x&f;&amp;&#38;#60;y"><!ATTLIST enclosure type CDATA "a&e;">"#,
             #"<enclosure url="u"/>"#, "axq&<y"),
            ("#FIXED", #"<!ENTITY e "v"><!ATTLIST enclosure type CDATA #FIXED "a&e;">"#, #"<enclosure url="u"/>"#, "av"),
            ("enumeration", #"<!ENTITY e "v"><!ATTLIST enclosure type (a|v) "&e;">"#, #"<enclosure url="u"/>"#, "v"),
            // Literal white space is a space; a character reference's is kept.
            ("CDATA white space", "<!ATTLIST enclosure type CDATA \"x\r\ny\tz &#9;&#10;.\">", #"<enclosure url="u"/>"#,
             "x y z \t\n."),
            ("NMTOKENS default collapsed", #"<!ATTLIST enclosure type NMTOKENS " &#32; a&#9;  b &#32;">"#,
             #"<enclosure url="u"/>"#, "a\t b"),
            ("white space from an entity, collapsed", "<!ENTITY e \"x&#9;y  z\"><!ATTLIST enclosure type NMTOKENS \" a&e; \">",
             #"<enclosure url="u"/>"#, "ax y z"),
            // An undeclared entity is dropped once an external declaration could declare it.
            ("undeclared after a parameter entity", #"<!ENTITY % p ""> %p; <!ATTLIST enclosure type CDATA "a&undef;b">"#,
             #"<enclosure url="u"/>"#, "ab"),
            // Declared with a type other than CDATA: a start tag's value is normalized too.
            ("NMTOKENS in a start tag", "<!ATTLIST enclosure type NMTOKENS #IMPLIED>",
             "<enclosure url=\"u\" type=\"\r\n a  &#32;b&#9; c \"/>", "a b\t c"),
            ("an ID in a start tag", "<!ATTLIST enclosure type ID #IMPLIED>", #"<enclosure url="u" type="  x  "/>"#, "x"),
            ("another element's declaration", "<!ATTLIST item type NMTOKENS #IMPLIED>",
             #"<enclosure url="u" type="a  b"/>"#, "a  b"),
            // The first declaration of an attribute wins, also one without a default.
            ("first declaration wins", #"<!ATTLIST enclosure type CDATA #IMPLIED><!ATTLIST enclosure type NMTOKEN "d">"#,
             #"<enclosure url="u" type="a  b"/>"#, "a  b"),
            ("an implied declaration keeps a later default out",
             #"<!ATTLIST enclosure type CDATA #IMPLIED><!ATTLIST enclosure type CDATA "d">"#, #"<enclosure url="u"/>"#, nil),
        ]
        for c in cases {
            let found = try enclosureType(document(c.subset, c.element), FeedBackend.allCases, c.name)
            for (backend, type) in found { XCTAssertEqual(type, c.type, "\(c.name): \(backend.rawValue)") }
        }
        // libxml2 does not collapse the spaces an entity brings into a start tag's value.
        let entityInTag = document(#"<!ENTITY e " p &#38;#9; q "><!ATTLIST enclosure type NMTOKENS #IMPLIED>"#,
                                   #"<enclosure url="u" type=" &e; &#9; z "/>"#)
        for (backend, type) in try enclosureType(entityInTag, [.expat, .swift], "entity in a start tag") {
            XCTAssertEqual(type, "p \t q \t z", backend.rawValue)
        }
    }

    /// The error of the document's feed record, strictly parsed.
    private func error(_ data: [UInt8], _ backend: FeedBackend) throws -> (message: String, line: Int, column: Int) {
        let (text, _) = try jsonLines(.bytes(data), source: "t", parser: backend.makeParser(strict: true))
        let feed = try XCTUnwrap(text.split(separator: "\n").last(where: { $0.contains(#""kind":"feed""#) }))
        let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(feed.utf8)) as? [String: Any])
        let e = try XCTUnwrap(record["error"] as? [String: Any], "\(backend.rawValue): \(feed)")
        return (try XCTUnwrap(e["message"] as? String), try XCTUnwrap(e["line"] as? Int), try XCTUnwrap(e["column"] as? Int))
    }

    private typealias ErrorCase = (name: String, standalone: Bool, subset: String, element: String, message: String,
                                   column: Int)

    private func assertErrors(_ cases: [ErrorCase], line: Int, file: StaticString = #filePath, fileLine: UInt = #line) throws {
        for c in cases {
            let data = document(c.subset, c.element, standalone: c.standalone)
            for backend in [FeedBackend.expat, .swift] {
                let e = try error(data, backend)
                XCTAssertEqual(e.message, c.message, "\(c.name): \(backend.rawValue)", file: file, line: fileLine)
                XCTAssertEqual([e.line, e.column], [line, c.column], "\(c.name): \(backend.rawValue)", file: file, line: fileLine)
            }
        }
    }

    func testReferencesAnAttributeValueMayNotMakeAreErrorsWhereExpatPlacesThem() throws {
        let tag = #"<enclosure url="u"/>"#
        // Line 3 is the subset's; line 5 the root's, where the enclosure's '<' is column 67.
        let cases: [ErrorCase] = [
            // In a default: at the literal's quote, or in the literal at the reference's '&'.
            ("undeclared", false, #"<!ATTLIST enclosure type CDATA "a&foo;b">"#, tag, "undefined entity", 32),
            ("undeclared, standalone after a parameter entity", true,
             #"<!ENTITY % p ""> %p; <!ATTLIST enclosure type CDATA "a&undef;">"#, tag, "undefined entity", 53),
            ("declared after the default", false, #"<!ATTLIST enclosure type CDATA "a&e;"><!ENTITY e "x">"#, tag,
             "undefined entity", 32),
            ("undeclared in a second declaration", false,
             #"<!ATTLIST enclosure type CDATA "first"><!ATTLIST enclosure type CDATA "a&nope;">"#, tag,
             "undefined entity", 71),
            ("'<' in a replacement text", false, #"<!ENTITY e "x&#60;y"><!ATTLIST enclosure type CDATA "a&e;">"#, tag,
             "not well-formed (invalid token)", 53),
            ("external", false, #"<!ENTITY ext SYSTEM "x"><!ATTLIST enclosure type CDATA "a&ext;">"#, tag,
             "reference to external entity in attribute", 58),
            ("external, nested", false,
             #"<!ENTITY x SYSTEM "x"><!ENTITY e "1&x;2"><!ATTLIST enclosure type CDATA "a&e;">"#, tag,
             "reference to external entity in attribute", 73),
            ("unparsed", false,
             #"<!NOTATION n SYSTEM "n"><!ENTITY b SYSTEM "x" NDATA n><!ATTLIST enclosure type CDATA "a&b;">"#, tag,
             "reference to binary entity", 88),
            ("recursive", false, #"<!ENTITY r "&r;"><!ATTLIST enclosure type CDATA "a&r;">"#, tag,
             "recursive entity reference", 49),
        ]
        try assertErrors(cases, line: 3)
        // In a start tag: an external or unparsed entity at the '&', anything in a
        // replacement text at the tag's '<'.
        let inTags: [ErrorCase] = [
            ("external", false, #"<!ENTITY x SYSTEM "x">"#, #"<enclosure url="u&x;"/>"#,
             "reference to external entity in attribute", 84),
            ("unparsed", false, #"<!NOTATION n SYSTEM "n"><!ENTITY b SYSTEM "x" NDATA n>"#, #"<enclosure url="u&b;"/>"#,
             "reference to binary entity", 84),
            ("external, nested", false, #"<!ENTITY x SYSTEM "x"><!ENTITY e "1&x;2">"#, #"<enclosure url="u&e;"/>"#,
             "reference to external entity in attribute", 67),
            ("'<' nested twice", false, #"<!ENTITY f "1&#60;2"><!ENTITY e "a&f;">"#, #"<enclosure url="u&e;"/>"#,
             "not well-formed (invalid token)", 67),
            ("a reference the replacement text ends inside", false, #"<!ENTITY e "a&#38;b">"#,
             #"<enclosure url="u&e;"/>"#, "not well-formed (invalid token)", 67),
            ("recursive", false, #"<!ENTITY e "1&f;2"><!ENTITY f "&e;">"#, #"<enclosure url="u&e;"/>"#,
             "recursive entity reference", 67),
            ("undeclared, standalone", true, #"<!ENTITY e "1">"#, #"<enclosure url="u&nope;"/>"#, "undefined entity", 67),
        ]
        try assertErrors(inTags, line: 5)
        // In content, an unparsed entity too (an external one is skipped there).
        let content = document(#"<!NOTATION n SYSTEM "n"><!ENTITY b SYSTEM "x" NDATA n>"#, "<description>a&b;c</description>")
        for backend in [FeedBackend.expat, .swift] {
            let e = try error(content, backend)
            XCTAssertEqual(e.message, "reference to binary entity", backend.rawValue)
            XCTAssertEqual([e.line, e.column], [5, 81], backend.rawValue)
        }
    }
}
