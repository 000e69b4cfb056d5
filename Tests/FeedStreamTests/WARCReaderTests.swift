// SPDX-License-Identifier: Apache-2.0
@testable import FeedStreamCore
@testable import FeedStreamSwift
import FeedStream
import XCTest

/// The header fields of WARC records and HTTP responses, as the archive reader parses
/// them (WARC 1.1 section 4; RFC 9112 section 5).
final class WARCReaderTests: XCTestCase {
    private func header(_ lines: [String]) -> (HeaderFields, [Bool]) {
        var h = HeaderFields()
        let added = lines.map { h.add(line: Array($0.utf8)) }
        return (h, added)
    }

    func testFieldsAreFoundByNameInAnyCaseTrimmedAndFirstWins() {
        let (h, added) = header(["WARC-Type: response", "Content-Length:  42 \r", "warc-type: request",
                                 "WARC-Target-URI:<https://example.org/a b>", "Empty:"])
        XCTAssertEqual(added, [true, true, true, true, true])
        XCTAssertEqual(h.value("warc-type"), "response")
        XCTAssertEqual(h.value("WARC-TYPE"), "response")
        XCTAssertEqual(h.value("content-length"), "42")
        XCTAssertEqual(h.value("WARC-Target-URI"), "<https://example.org/a b>")
        XCTAssertEqual(h.value("Empty"), "")
        XCTAssertNil(h.value("WARC-Date"))
        XCTAssertNil(h.value("WARC-Typ"))
        // Not a letter: "_" does not match "-".
        XCTAssertNil(h.value("WARC_Type"))
        XCTAssertEqual(h.fields.map(\.name), ["WARC-Type", "Content-Length", "warc-type", "WARC-Target-URI", "Empty"])
    }

    func testContinuationLinesAndLinesThatAreNoField() {
        let (h, added) = header(["Content-Type: text/xml;", "\t charset=utf-8", "no colon here", " orphan? no: it continues"])
        XCTAssertEqual(added, [true, true, false, true])
        XCTAssertEqual(h.value("Content-Type"), "text/xml; charset=utf-8 orphan? no: it continues")
        let (empty, first) = header([" starts with a space"])
        XCTAssertEqual(first, [false])
        XCTAssertTrue(empty.fields.isEmpty)
    }

    func testAnHTTPResponseHead() throws {
        let block = Array("HTTP/1.1 200 OK\r\nContent-Type: Application/RSS+XML; charset=\"ISO-8859-1\"\r\nX: 1\r\n\r\n<rss/>".utf8)
        let head = try XCTUnwrap(HTTPResponseHead(block))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.mediaType, "application/rss+xml")
        XCTAssertEqual(head.charset, "ISO-8859-1")
        XCTAssertEqual(Array(block[head.bodyStart...]), Array("<rss/>".utf8))
        XCTAssertNil(HTTPResponseHead(Array("HTTP/1.1 200 OK\r\nX: 1\r\n".utf8)), "the head does not end")
        XCTAssertNil(HTTPResponseHead(Array("GET / HTTP/1.1\r\n\r\n".utf8)), "a request")
    }
}

/// Which WARC payloads are parsed: every root the feed machines read as a feed is taken
/// (so no archived feed is skipped as "xml, not a feed"), whatever its media type says.
final class FeedSnifferTests: XCTestCase {
    func testEveryRootTheMachinesReadIsTaken() throws {
        let feeds: [(String, FeedFormat)] = [
            (#"<rss version="2.0"><channel><title>t</title></channel></rss>"#, .rss20),
            (#"<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>"#, .atom10),
            (#"<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title></entry>"#, .atom10),
            (#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>t</title></channel></rdf:RDF>"#, .rss10),
            (#"<Channel xmlns="http://purl.org/net/rss1.1#"><title>t</title><items/></Channel>"#, .rss11),
            (#"<channel><title>t</title></channel>"#, .rss),
            (#"<CHANNEL HREF="https://e.example/"><TITLE>t</TITLE></CHANNEL>"#, .cdf),
        ]
        for (xml, format) in feeds {
            let document = "<?xml version=\"1.0\"?>\n<!-- archived -->\n" + xml
            XCTAssertNil(FeedSniffer.reasonToSkip(mediaType: "text/xml", head: Array(document.utf8)), xml)
            for backend in FeedBackend.allCases {
                XCTAssertEqual(try FeedStream.document(from: Array(document.utf8), backend: backend).feed.format,
                               format, "\(backend): \(xml)")
            }
        }
    }

    func testOtherPayloadsAreSkippedWithTheirReason() {
        XCTAssertEqual(FeedSniffer.reasonToSkip(mediaType: "text/xml", head: Array("<sample><item/></sample>".utf8)),
                       "xml, not a feed")
        XCTAssertEqual(FeedSniffer.reasonToSkip(mediaType: "text/html", head: Array("<!DOCTYPE html><html>".utf8)), "html")
        XCTAssertEqual(FeedSniffer.reasonToSkip(mediaType: "application/rss+xml", head: Array("<html><body>".utf8)), "html")
        XCTAssertNil(FeedSniffer.reasonToSkip(mediaType: "application/rss+xml", head: Array("<urlset/>".utf8)))
        XCTAssertEqual(FeedSniffer.reasonToSkip(mediaType: "image/png", head: [0x89, 0x50, 0x4E, 0x47]), "not a feed")
    }
}
