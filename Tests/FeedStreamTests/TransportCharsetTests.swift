// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

/// The charset a transport names (HTTP's `Content-Type` charset, given to
/// `parse(_:contentType:handler:)`) is applied in RFC 7303's order — a byte order mark
/// or a wide charset found by the first bytes, then the transport's charset, then the
/// XML declaration — by every backend, strict or recovering, whole or in chunks. Each
/// case states the text it expects.
final class TransportCharsetTests: XCTestCase {
    /// The lines every backend writes for `data` given `contentType` (whole, in 1-byte
    /// and 7-byte chunks; strict and recovering), checked to agree, parsed.
    private func lines(_ data: [UInt8], contentType: String?, strict: Bool = true,
                       file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        var first: String?
        for backend in FeedBackend.allCases {
            for (how, input) in [("whole", FeedInput.bytes(data)), ("1-byte chunks", chunkedInput(data, 1)),
                                 ("7-byte chunks", chunkedInput(data, 7))] {
                let out = MemoryOutput()
                let writer = JSONLinesWriter(output: out)
                writer.source = "t"
                try backend.makeParser(limits: .default, strict: strict).parse(input, contentType: contentType,
                                                                                handler: writer)
                try writer.flush()
                // Error messages are each backend's own (docs/SCHEMA.md); the rest must agree.
                let text = out.string.replacingOccurrences(of: #""message":"[^"]*""#, with: "\"message\":\"\"",
                                                           options: .regularExpression)
                if let first {
                    XCTAssertEqual(text, first, "\(backend.rawValue), \(how)", file: file, line: line)
                } else {
                    first = text
                }
            }
        }
        return try (first ?? "").split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// An RSS document whose item titles are `titles` (bytes as given), after `prolog`.
    private func rssBytes(prolog: [UInt8], titles: [[UInt8]]) -> [UInt8] {
        var b = prolog + Array("<rss version=\"2.0\"><channel><title>c</title>".utf8)
        for t in titles { b += Array("<item><title>".utf8) + t + Array("</title></item>".utf8) }
        return b + Array("</channel></rss>".utf8)
    }

    private func titles(_ lines: [[String: Any]]) -> [String] {
        lines.filter { $0["kind"] as? String == "item" }.map { $0["title"] as? String ?? "<none>" }
    }

    private func failures(_ lines: [[String: Any]]) -> Int {
        lines.filter { $0["kind"] as? String == "feed" && $0["error"] != nil }.count
    }

    private func encoding(_ lines: [[String: Any]]) -> String? {
        lines.first { $0["kind"] as? String == "feed" }?["encoding"] as? String
    }

    private let utf8Declaration = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>".utf8)

    func testTheHTTPCharsetWinsOverTheDeclaration() throws {
        // Latin-1 bytes, declared UTF-8: as declared they are not UTF-8 (an error).
        let doc = rssBytes(prolog: utf8Declaration, titles: [[0x63, 0x61, 0x66, 0xE9]])
        let lines = try lines(doc, contentType: "application/rss+xml; charset=ISO-8859-1")
        XCTAssertEqual(titles(lines), ["café"])
        XCTAssertEqual(encoding(lines), "iso-8859-1")
        XCTAssertEqual(failures(lines), 0)
        let without = try self.lines(doc, contentType: nil)
        XCTAssertEqual(failures(without), 1, "declared UTF-8, not UTF-8")
        // The same, the name quoted and in another case, after other parameters.
        let quoted = try self.lines(doc, contentType: "text/xml;format=x; Charset=\"iso-8859-1\"")
        XCTAssertEqual(titles(quoted), ["café"])
    }

    func testWithoutADeclarationAndThroughIconv() throws {
        // windows-1252's curly quotes (0x93, 0x94): no declaration at all.
        let doc = rssBytes(prolog: [], titles: [[0x93, 0x78, 0x94]])
        let lines = try lines(doc, contentType: "text/xml; charset=windows-1252")
        XCTAssertEqual(titles(lines), ["\u{201C}x\u{201D}"])
        XCTAssertEqual(encoding(lines), "windows-1252")
    }

    func testAUTF8HeaderRescuesAWrongWideDeclaration() throws {
        // An 8-bit document declared UTF-16 is an error by itself; the header says UTF-8.
        let doc = rssBytes(prolog: Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?>".utf8),
                           titles: [Array("é".utf8)])
        XCTAssertEqual(failures(try lines(doc, contentType: nil)), 1)
        let lines = try lines(doc, contentType: "application/xml; charset=utf-8")
        XCTAssertEqual(titles(lines), ["é"])
        XCTAssertNil(encoding(lines), "UTF-8 is not written (the default)")
    }

    func testAByteOrderMarkWinsOverTheHeader() throws {
        // UTF-8 with its mark: the header's Latin-1 would make "Ã©" of "é".
        let utf8 = rssBytes(prolog: [0xEF, 0xBB, 0xBF], titles: [Array("é".utf8)])
        XCTAssertEqual(titles(try lines(utf8, contentType: "text/xml; charset=iso-8859-1")), ["é"])
        // UTF-16LE with its mark, the header naming Latin-1.
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss version=\"2.0\"><channel><title>c</title>"
            + "<item><title>é</title></item></channel></rss>"
        let utf16: [UInt8] = [0xFF, 0xFE] + Array(text.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let lines = try lines(utf16, contentType: "text/xml; charset=iso-8859-1")
        XCTAssertEqual(titles(lines), ["é"])
        XCTAssertEqual(encoding(lines), "utf-16le")
    }

    func testAHeaderCharsetThatCannotBeIsIgnored() throws {
        let latin1 = rssBytes(prolog: Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>".utf8), titles: [[0xE9]])
        // Unknown, or wide for an 8-bit document: the declaration decides.
        for header in ["text/xml; charset=x-no-such-charset", "text/xml; charset=utf-16", "text/xml; charset=UTF-32LE",
                       "text/xml; charset=", "text/xml", "text/xml; charset=\"\""] {
            let lines = try lines(latin1, contentType: header)
            XCTAssertEqual(titles(lines), ["é"], header)
            XCTAssertEqual(encoding(lines), "iso-8859-1", header)
        }
    }

    func testEveryDocumentOfAStreamAndTheRecoveryPath() throws {
        // Two documents, Latin-1, no declaration; the first has a bare '&' (it fails as
        // XML and the recovery path re-reads it: in the header's charset too).
        let broken = rssBytes(prolog: [], titles: [[0xE9, 0x31], [0x61, 0x26, 0x62], [0xE9, 0x32]])
        let good = rssBytes(prolog: [], titles: [[0xE0]])
        let lines = try lines(broken + Array("\n".utf8) + good, contentType: "application/rss+xml; charset=latin1",
                              strict: false)
        XCTAssertEqual(titles(lines), ["é1", "a&b", "é2", "à"])
        let feeds = lines.filter { $0["kind"] as? String == "feed" }
        XCTAssertEqual(feeds.map { $0["encoding"] as? String }, ["iso-8859-1", "iso-8859-1"])
    }

    func testTheParsersOwnParseIgnoresNoHeader() throws {
        // parse(_:handler:) is parse(_:contentType: nil, handler:): a parser reused after a
        // call with a header does not keep it.
        let doc = rssBytes(prolog: utf8Declaration, titles: [[0xE9]])
        for backend in FeedBackend.allCases {
            let parser = backend.makeParser(limits: .default, strict: true)
            let with = try parser.parse(.bytes(doc), contentType: "text/xml; charset=iso-8859-1", handler: FeedCollector())
            XCTAssertTrue(with.succeeded, backend.rawValue)
            try parser.parse(.bytes(doc), contentType: "text/xml; charset=iso-8859-1", handler: FeedCollector())
            let after = try jsonLines(.bytes(doc), source: "t", parser: parser)
            XCTAssertFalse(after.summary.succeeded, "\(backend.rawValue): the header of the last call was kept")
        }
    }

    func testContentTypeValues() {
        XCTAssertEqual(ContentType("Application/RSS+XML ; charset=UTF-8").mediaType, "application/rss+xml")
        XCTAssertEqual(ContentType("Application/RSS+XML ; charset=UTF-8").charset, "UTF-8")
        XCTAssertEqual(ContentType("text/xml; q=1; charset=\"koi8-r\"").charset, "koi8-r")
        XCTAssertNil(ContentType("text/xml").charset)
        XCTAssertNil(ContentType("text/xml; charset=").charset)
        XCTAssertEqual(ContentType("").mediaType, "")
    }
    func testErrorPositionsAreTheDocumentsOwn() throws {
        // An ASCII document read in the header's charset: the error where it is (the
        // '<' after "a&b", offset 38), on every backend.
        let doc = rssBytes(prolog: [], titles: [Array("a&b".utf8)])
        for header in ["text/xml; charset=iso-8859-1", "text/xml; charset=windows-1252", "text/xml; charset=utf-8"] {
            let lines = try lines(doc, contentType: header)
            let error = try XCTUnwrap(lines.first { $0["error"] != nil }?["error"] as? [String: Any], header)
            XCTAssertEqual(error["offset"] as? Int, 60, header)
            XCTAssertEqual(error["column"] as? Int, 61, header)
        }
        // After a character of two UTF-8 bytes (one Latin-1 byte): offsets and columns
        // count input characters (the '<' at 89), not UTF-8 bytes.
        let latin = rssBytes(prolog: [], titles: [[0xE9], Array("a&b".utf8)])
        let error = try XCTUnwrap(try lines(latin, contentType: "text/xml; charset=latin1").first { $0["error"] != nil }?["error"]
                                  as? [String: Any])
        XCTAssertEqual(error["offset"] as? Int, 89)
        XCTAssertEqual(error["column"] as? Int, 90)
    }
}
