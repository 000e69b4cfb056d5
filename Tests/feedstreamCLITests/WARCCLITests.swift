// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// Web archives: `feedstream convert crawl.warc[.gz]` converts the feeds among
/// the records, with their origin, and accounts for every other record. The archives
/// are built here, record by record, from the WARC 1.1 format (ISO 28500).
final class WARCCLITests: CLITestCase {
    private struct Record {
        var type: String
        var uri: String?
        var id: String
        var date = "2026-03-04T05:06:07Z"
        var contentType: String?
        var extra: [String] = []
        var block: [UInt8]

        var bytes: [UInt8] {
            var head = ["WARC/1.1", "WARC-Type: \(type)", "WARC-Record-ID: <urn:uuid:\(id)>", "WARC-Date: \(date)"]
            if let uri { head.append("WARC-Target-URI: \(uri)") }
            if let contentType { head.append("Content-Type: \(contentType)") }
            head += extra
            head.append("Content-Length: \(block.count)")
            return Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8) + block + Array("\r\n\r\n".utf8)
        }
    }

    private static func http(_ body: [UInt8], type: String, headers: [String] = [], status: String = "200 OK") -> [UInt8] {
        var head = ["HTTP/1.1 \(status)", "Content-Type: \(type)"] + headers
        if !headers.contains(where: { $0.hasPrefix("Transfer-Encoding") }) { head.append("Content-Length: \(body.count)") }
        return Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
    }

    private static func response(_ uri: String, _ id: String, _ body: [UInt8], type: String, headers: [String] = [],
                                 status: String = "200 OK") -> Record {
        Record(type: "response", uri: uri, id: id, contentType: "application/http; msgtype=response",
               block: http(body, type: type, headers: headers, status: status))
    }

    private static let feed = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Blog</title><link>/</link>
        <item><title>First</title><link>posts/1.html</link><guid isPermaLink="false">p1</guid></item>
        <item><title>Second</title><link>/posts/2.html</link><guid isPermaLink="false">p2</guid></item>
        </channel></rss>
        """.utf8)

    private static let atom = Array("""
        <feed xmlns="http://www.w3.org/2005/Atom"><title>News</title><id>urn:n</id><updated>2026-01-01T00:00:00Z</updated>
        <entry><title>Only</title><id>urn:n:1</id><updated>2026-01-01T00:00:00Z</updated><link href="a/1"/></entry></feed>
        """.utf8)

    /// warcinfo, a request, a feed response, an HTML page, an image, an Atom resource.
    private static var mixed: [Record] {
        [
            Record(type: "warcinfo", id: "00000000-0000-4000-8000-000000000000", contentType: "application/warc-fields",
                   block: Array("software: test\r\n".utf8)),
            Record(type: "request", uri: "https://blog.example.org/feed/rss.xml", id: "00000000-0000-4000-8000-000000000001",
                   contentType: "application/http; msgtype=request",
                   block: Array("GET /feed/rss.xml HTTP/1.1\r\nHost: blog.example.org\r\n\r\n".utf8)),
            response("https://blog.example.org/feed/rss.xml", "00000000-0000-4000-8000-000000000002", feed,
                     type: "application/rss+xml; charset=utf-8"),
            response("https://blog.example.org/", "00000000-0000-4000-8000-000000000003",
                     Array("<!DOCTYPE html><html><body>home</body></html>".utf8), type: "text/html"),
            response("https://blog.example.org/logo.png", "00000000-0000-4000-8000-000000000004",
                     [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], type: "image/png"),
            Record(type: "resource", uri: "https://news.example.net/feeds/atom", id: "00000000-0000-4000-8000-000000000005",
                   contentType: "application/atom+xml", block: atom),
        ]
    }

    private func write(_ records: [Record], gzip: Bool, to url: URL) throws -> [UInt64] {
        var file: [UInt8] = []
        var offsets: [UInt64] = []
        for r in records {
            offsets.append(UInt64(file.count))
            file += gzip ? try Self.gzip(r.bytes) : r.bytes
        }
        try Data(file).write(to: url)
        return offsets
    }

    private static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["gzip", "-c", "-n"]
        let inp = Pipe(), out = Pipe()
        p.standardInput = inp
        p.standardOutput = out
        try p.run()
        inp.fileHandleForWriting.write(Data(bytes))
        try inp.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Array(data)
    }

    func testFeedsInAWebArchiveAreConvertedWithWhereTheyCameFrom() throws {
        let dir = try tempDir()
        for gzip in [false, true] {
            let file = dir.appendingPathComponent(gzip ? "crawl.warc.gz" : "crawl.warc")
            let offsets = try write(Self.mixed, gzip: gzip, to: file)
            let stats = dir.appendingPathComponent("stats.json")
            let r = try run(["convert", "-q", "--stats", stats.path, file.path])
            XCTAssertEqual(r.status, 0, r.err)
            let lines = try self.lines(r.out)
            XCTAssertEqual(lines.map { $0["kind"] as? String }, ["item", "item", "feed", "item", "feed"])
            // The RSS response: links resolved against the target URI, its record on every line.
            let first = lines[0]
            XCTAssertEqual(first["link"] as? String, "https://blog.example.org/feed/posts/1.html")
            XCTAssertEqual(lines[1]["link"] as? String, "https://blog.example.org/posts/2.html")
            XCTAssertEqual(lines[2]["link"] as? String, "https://blog.example.org/")
            let warc = try XCTUnwrap(first["warc"] as? [String: Any])
            XCTAssertEqual(warc["record_id"] as? String, "<urn:uuid:00000000-0000-4000-8000-000000000002>")
            XCTAssertEqual(warc["target_uri"] as? String, "https://blog.example.org/feed/rss.xml")
            XCTAssertEqual(warc["date"] as? String, "2026-03-04T05:06:07Z")
            XCTAssertEqual(warc["offset"] as? Int, Int(offsets[2]), "gzip \(gzip): the record's (member's) offset")
            XCTAssertEqual(first["source"] as? String, file.path)
            // The Atom resource: document 2, its own record and base.
            XCTAssertEqual(lines[3]["document"] as? Int, 2)
            XCTAssertEqual(lines[3]["link"] as? String, "https://news.example.net/feeds/a/1")
            XCTAssertEqual((lines[4]["warc"] as? [String: Any])?["offset"] as? Int, Int(offsets[5]))
            // Every record accounted for.
            let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
            XCTAssertEqual(s["warc_records"] as? Int, 6)
            XCTAssertEqual(s["warc_feed_records"] as? Int, 2)
            XCTAssertEqual(s["warc_skipped"] as? [String: Int],
                           ["warcinfo": 1, "request": 1, "html": 1, "not a feed": 1])
            XCTAssertEqual(s["items"] as? Int, 3)
        }
    }

    /// The HTTP charset is the payload's (RFC 7303): over a declaration that names
    /// another, or none; a byte order mark still wins; chunked and gzip-coded payloads
    /// alike; the same on every backend.
    func testTheHTTPCharsetIsTheDocumentsCharset() throws {
        func rss(_ declaration: String, _ title: [UInt8]) -> [UInt8] {
            Array((declaration + "<rss version=\"2.0\"><channel><title>c</title><item><title>").utf8) + title
                + Array("</title></item></channel></rss>".utf8)
        }
        let quoted: [UInt8] = [0x93, 0x63, 0x61, 0x66, 0xE9, 0x94]   // windows-1252: \u{201C}caf\u{E9}\u{201D}
        // In two chunks (chunked transfer coding).
        let latin: [UInt8] = rss("", [0xE9])
        var chunked: [UInt8] = Array("e\r\n".utf8) + Array(latin.prefix(14)) + Array("\r\n".utf8)
        chunked += Array((String(latin.count - 14, radix: 16) + "\r\n").utf8)
        chunked += Array(latin.dropFirst(14)) + Array("\r\n0\r\n\r\n".utf8)
        let gzipped = try Self.gzip(rss("<?xml version=\"1.0\"?>", quoted))
        let records = [
            // Declared UTF-8, served (rightly) as windows-1252.
            Self.response("https://a.example/1", "00000000-0000-4000-8000-000000000011",
                          rss("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", quoted),
                          type: "application/rss+xml; charset=windows-1252"),
            // No declaration; Latin-1 in the header only; chunked.
            Self.response("https://a.example/2", "00000000-0000-4000-8000-000000000012", chunked,
                          type: "text/xml; charset=\"ISO-8859-1\"", headers: ["Transfer-Encoding: chunked"]),
            // A UTF-8 byte order mark wins over the header's Latin-1.
            Self.response("https://a.example/3", "00000000-0000-4000-8000-000000000013",
                          [0xEF, 0xBB, 0xBF] + rss("", Array("\u{E9}".utf8)),
                          type: "application/xml; charset=iso-8859-1"),
            // gzip content coding, the charset in the header only.
            Self.response("https://a.example/4", "00000000-0000-4000-8000-000000000014",
                          gzipped, type: "application/rss+xml; charset=cp1252", headers: ["Content-Encoding: gzip"]),
        ]
        let file = try tempDir().appendingPathComponent("charsets.warc.gz")
        _ = try write(records, gzip: true, to: file)
        var outputs: [String] = []
        for backend in ["expat", "libxml2", "swift"] {
            let r = try run(["convert", "-q", "--backend", backend, file.path])
            XCTAssertEqual(r.status, 0, r.err)
            let lines = try self.lines(r.out)
            XCTAssertEqual(lines.filter { $0["kind"] as? String == "item" }.map { $0["title"] as? String },
                           ["\u{201C}caf\u{E9}\u{201D}", "\u{E9}", "\u{E9}", "\u{201C}caf\u{E9}\u{201D}"], backend)
            XCTAssertEqual(lines.filter { $0["kind"] as? String == "feed" }.map { $0["encoding"] as? String },
                           ["windows-1252", "iso-8859-1", nil, "windows-1252"], backend)
            outputs.append(r.out)
        }
        XCTAssertEqual(Set(outputs).count, 1, "backends differ")
        // The payload alone, served the same way: `--content-type`.
        let alone = try tempDir().appendingPathComponent("alone.xml")
        try Data(rss("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", quoted)).write(to: alone)
        let r = try run(["convert", "-q", "--content-type", "application/rss+xml; charset=windows-1252", alone.path])
        XCTAssertEqual(try lines(r.out).first?["title"] as? String, "\u{201C}caf\u{E9}\u{201D}")
    }

    /// Chunked transfer coding and gzip content coding are undone; a feed sent as
    /// `text/plain` or `application/octet-stream` is still found by its root element.
    func testPayloadCodingsAreUndoneAndFeedsAreFoundByContent() throws {   // and pages skipped through them
        let dir = try tempDir()
        var chunkedBody: [UInt8] = []
        var rest = Self.feed[...]
        var size = 7
        while !rest.isEmpty {
            let piece = rest.prefix(size)
            chunkedBody += Array((String(piece.count, radix: 16) + ";ext=1\r\n").utf8) + piece + Array("\r\n".utf8)
            rest = rest.dropFirst(piece.count)
            size = size * 2 + 1
        }
        chunkedBody += Array("0\r\n\r\n".utf8)
        let gzipped = try Self.gzip(Self.atom)
        // The record's first read is 4 KiB of its block: the HTTP head, then the body.
        let httpHead = Self.http([], type: "text/xml").count - "Content-Length: 0\r\n".utf8.count
            + "Content-Length: 9999\r\n".utf8.count
        let comment = "<!--" + String(repeating: "x", count: 4096 - httpHead - 4 - 3 - 2) + "-->"
        let longProlog = Array((comment + "<rss version=\"2.0\"><channel><title>Late</title></channel></rss>").utf8)
        XCTAssertEqual(httpHead + comment.utf8.count + 2, 4096, "the first read ends after `<r`")
        let records = [
            Self.response("https://a.example/rss", "00000000-0000-4000-8000-00000000000a", chunkedBody,
                          type: "application/octet-stream", headers: ["Transfer-Encoding: chunked"]),
            Self.response("https://b.example/x/atom", "00000000-0000-4000-8000-00000000000b", gzipped,
                          type: "text/plain", headers: ["Content-Encoding: gzip"]),
            Self.response("https://c.example/gone", "00000000-0000-4000-8000-00000000000c", Self.feed,
                          type: "application/rss+xml", status: "404 Not Found"),
            // A gzip coding is looked through: a page and a script are no feeds, whatever
            // bytes their coding begins with.
            Self.response("https://d.example/", "00000000-0000-4000-8000-00000000000d",
                          try Self.gzip(Array("<!DOCTYPE html><html><body>home</body></html>".utf8)),
                          type: "text/html", headers: ["Content-Encoding: gzip"]),
            Self.response("https://d.example/app.js", "00000000-0000-4000-8000-00000000000e",
                          try Self.gzip(Array("function f() { return 1 }".utf8)),
                          type: "application/javascript", headers: ["Content-Encoding: gzip"]),
            // A feed served as text/xml whose root tag the first 4 KiB read end inside
            // (a long comment first): its name is read whole before it decides.
            Self.response("https://e.example/feed", "00000000-0000-4000-8000-00000000000f", longProlog,
                          type: "text/xml"),
        ]
        let file = dir.appendingPathComponent("codings.warc.gz")
        _ = try write(records, gzip: true, to: file)
        let stats = dir.appendingPathComponent("stats.json")
        let r = try run(["convert", "-q", "--stats", stats.path, file.path])
        XCTAssertEqual(r.status, 0, r.err)
        let lines = try self.lines(r.out)
        XCTAssertEqual(lines.compactMap { $0["title"] as? String }, ["First", "Second", "Blog", "Only", "News", "Late"])
        XCTAssertEqual(lines[3]["link"] as? String, "https://b.example/x/a/1")
        let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
        XCTAssertEqual(s["warc_skipped"] as? [String: Int], ["http status 404": 1, "html": 1, "not a feed": 1])
        XCTAssertEqual(s["not_feeds"] as? Int, 0)
    }

    /// A JSON Feed in an archive is converted like any feed (by its version key, also
    /// when served as `application/json`), its links resolved against the target URI.
    func testJSONFeedsInAnArchive() throws {
        let dir = try tempDir()
        let body = Array(#"{"version":"https://jsonfeed.org/version/1.1","title":"J","home_page_url":"/","items":[{"id":"1","url":"posts/1","content_text":"hi"}]}"#.utf8)
        let file = dir.appendingPathComponent("json.warc")
        _ = try write([Self.response("https://j.example/feeds/feed.json", "00000000-0000-4000-8000-000000000020", body,
                                     type: "application/json")], gzip: false, to: file)
        let r = try run(["convert", "-q", file.path])
        XCTAssertEqual(r.status, 0, r.err)
        let lines = try self.lines(r.out)
        XCTAssertEqual(lines.map { $0["kind"] as? String }, ["item", "feed"])
        XCTAssertEqual(lines[0]["link"] as? String, "https://j.example/feeds/posts/1")
        XCTAssertEqual(lines[1]["format"] as? String, "json11")
        XCTAssertEqual((lines[1]["warc"] as? [String: Any])?["target_uri"] as? String, "https://j.example/feeds/feed.json")
    }

    /// Nothing lost without a word: a revisit of a feed (its payload is elsewhere), a
    /// payload the crawler truncated, and bytes that are no record are reported, and the
    /// records after them still converted.
    func testRevisitsTruncationsAndGarbageAreReported() throws {
        let dir = try tempDir()
        let revisit = Record(type: "revisit", uri: "https://blog.example.org/feed/rss.xml",
                             id: "00000000-0000-4000-8000-000000000010", contentType: "application/http; msgtype=response",
                             extra: ["WARC-Refers-To-Target-URI: https://blog.example.org/feed/rss.xml",
                                     "WARC-Profile: http://netpreserve.org/warc/1.1/revisit/server-not-modified"],
                             block: Array("HTTP/1.1 304 Not Modified\r\nContent-Type: application/rss+xml\r\n\r\n".utf8))
        var truncated = Self.response("https://t.example/feed", "00000000-0000-4000-8000-000000000011",
                                      Array(Self.feed.prefix(Self.feed.count - 60)), type: "application/rss+xml")
        truncated.extra = ["WARC-Truncated: length"]
        let good = Self.response("https://g.example/feed", "00000000-0000-4000-8000-000000000012", Self.feed,
                                 type: "application/rss+xml")
        let file = dir.appendingPathComponent("faults.warc")
        var bytes = revisit.bytes + truncated.bytes + Array("this is not a record\r\n".utf8) + good.bytes
        try Data(bytes).write(to: file)
        bytes = []
        let errors = dir.appendingPathComponent("errors.jsonl")
        let r = try run(["convert", "-q", "--errors", errors.path, file.path])
        XCTAssertEqual(r.status, 1, "data errors: exit 1 (\(r.err))")
        let lines = try self.lines(r.out)
        // The truncated feed's items (recovered: the second one cut short), then the good feed's.
        XCTAssertEqual(lines.filter { $0["kind"] as? String == "item" }.compactMap { $0["title"] as? String },
                       ["First", "Second", "First", "Second"])
        XCTAssertEqual(lines.filter { $0["kind"] as? String == "feed" }.map { $0["document"] as? Int }, [1, 2])
        let errs = try self.lines(String(decoding: Data(contentsOf: errors), as: UTF8.self))
        let messages = errs.compactMap { $0["reason"] as? String }
        XCTAssertTrue(messages.contains { $0.hasPrefix("revisit record of a feed") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.contains("WARC-Truncated: length") }, "\(messages)")
        XCTAssertTrue(messages.contains("not a WARC record header"), "\(messages)")
        XCTAssertTrue(messages.contains("22 bytes skipped to the next WARC record"), "\(messages)")
        XCTAssertEqual(errs.compactMap { $0["code"] as? String }, ["revisit", "xml", "warc", "warc", "warc"])
    }

    /// A revisit of a feed is reported and counted, not a loss: an archive holding one
    /// beside a good feed converts with exit 0.
    func testARevisitIsCountedNotLost() throws {
        let dir = try tempDir()
        let revisit = Record(type: "revisit", uri: "https://blog.example.org/feed/rss.xml",
                             id: "00000000-0000-4000-8000-000000000020", contentType: "application/http; msgtype=response",
                             extra: ["WARC-Refers-To-Target-URI: https://blog.example.org/feed/rss.xml"],
                             block: Array("HTTP/1.1 304 Not Modified\r\nContent-Type: application/rss+xml\r\n\r\n".utf8))
        let good = Self.response("https://g.example/feed", "00000000-0000-4000-8000-000000000021", Self.feed,
                                 type: "application/rss+xml")
        let file = dir.appendingPathComponent("revisit.warc")
        try Data(revisit.bytes + good.bytes).write(to: file)
        let r = try run(["convert", file.path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.err.contains("revisit record of a feed: the payload is not in this record"), r.err)
        XCTAssertTrue(r.err.contains("feedstream: 1 file (1 clean, 0 recovered, 0 failed); 1 feed (1 clean, 0 recovered, 0 failed), "), r.err)
        XCTAssertTrue(r.err.contains("2 WARC records (1 feed, 1 skipped)"), r.err)
    }

    /// A folder's `.warc` files are converted (a WARC starts with its version line, not
    /// `<`), and the output is the same on one thread or several.
    func testArchivesInFoldersOnAnyNumberOfThreads() throws {
        let dir = try tempDir()
        let folder = dir.appendingPathComponent("crawl")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<4 {
            _ = try write(Self.mixed, gzip: i % 2 == 1, to: folder.appendingPathComponent("part-\(i).warc" + (i % 2 == 1 ? ".gz" : "")))
        }
        let one = try run(["convert", "-q", "-j", "1", folder.path])
        let two = try run(["convert", "-q", "-j", "2", folder.path])
        XCTAssertEqual(one.status, 0, one.err)
        XCTAssertEqual(try lines(one.out).filter { $0["kind"] as? String == "item" }.count, 12)
        XCTAssertEqual(one.out, two.out)
    }

    /// A web archive on standard input (or any pipe) is found by its first bytes, as a
    /// file is: the same lines (but `source`), the same counts, plain or gzip, on one
    /// thread or two; a feed on standard input is still read as one.
    func testAWebArchiveOnStandardInput() throws {
        let dir = try tempDir()
        for gzip in [false, true] {
            let file = dir.appendingPathComponent(gzip ? "crawl.warc.gz" : "crawl.warc")
            _ = try write(Self.mixed, gzip: gzip, to: file)
            let fromFile = try run(["convert", "-q", file.path])
            XCTAssertEqual(fromFile.status, 0, fromFile.err)
            let expected = fromFile.out.replacingOccurrences(of: #""source":"\#(file.path)""#, with: #""source":"-""#)
            for jobs in ["1", "2"] {
                let stats = dir.appendingPathComponent("stats.json")
                let r = try run(["convert", "-q", "-j", jobs, "--stats", stats.path, "-"], stdin: try Data(contentsOf: file))
                XCTAssertEqual(r.status, 0, r.err)
                XCTAssertEqual(r.out, expected, "gzip \(gzip), -j \(jobs)")
                XCTAssertEqual(try lines(r.out).filter { $0["kind"] as? String == "item" }.count, 3)
                let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
                XCTAssertEqual(s["warc_records"] as? Int, 6)
                XCTAssertEqual(s["warc_feed_records"] as? Int, 2)
            }
        }
        let feed = try run(["convert", "-q", "-"], stdin: Data(Self.feed))
        XCTAssertEqual(feed.status, 0, feed.err)
        XCTAssertEqual(try lines(feed.out).map { $0["kind"] as? String }, ["item", "item", "feed"])
    }

    /// The reader agrees with warcio, an independent one, on a generated crawl (records,
    /// offsets of gzip members, target URIs, dates), and the items are those of the
    /// payloads warcio extracts, converted one by one against their target URI.
    func testTheReaderAgreesWithWarcio() throws {
        let dir = try tempDir()
        for name in ["crawl.warc.gz", "crawl.warc"] {
            let file = dir.appendingPathComponent(name)
            try sh("python3 corpus/generate.py warc --size-mb 1 --seed 7 -o '\(file.path)' 2>/dev/null")
            try pythonCheck("Tests/consumers/warc_check.py", [binary.path, file.path])
        }
    }
    /// With `-j` above 1 a large archive is read and inflated on a second thread; the
    /// lines (offsets of records included), errors and counts are those of `-j 1`.
    func testReadingAheadChangesNothing() throws {
        let dir = try tempDir()
        let file = dir.appendingPathComponent("big.warc.gz")
        try sh("python3 corpus/generate.py warc --size-mb 4 --seed 5 -o '\(file.path)' 2>/dev/null")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        XCTAssertGreaterThan(size, 1 << 20, "over the read-ahead threshold (1 MiB)")
        var outs: [String] = [], stats: [String] = []
        for jobs in ["1", "2"] {
            let s = dir.appendingPathComponent("stats-\(jobs).json")
            let e = dir.appendingPathComponent("errors-\(jobs).jsonl")
            let r = try run(["convert", "-q", "--data-errors-ok", "-j", jobs, "--stats", s.path, "--errors", e.path, file.path])
            XCTAssertEqual(r.status, 0, r.err)
            outs.append(r.out)
            var counted = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: s)) as? [String: Any])
            for k in ["seconds", "mb_per_s", "jobs"] { counted[k] = nil }
            stats.append(String(decoding: try JSONSerialization.data(withJSONObject: counted, options: .sortedKeys), as: UTF8.self))
            stats.append(try String(contentsOf: e, encoding: .utf8))
        }
        XCTAssertGreaterThan(try lines(outs[0]).count, 1000)
        XCTAssertEqual(outs[0], outs[1])
        XCTAssertEqual(stats[0], stats[2])
        XCTAssertEqual(stats[1], stats[3])
        try pythonCheck("Tests/consumers/warc_check.py", [binary.path, file.path])
    }

    /// With `-j` above 1, an archive of at least 2 MiB is split at record boundaries and
    /// read on every job: plain or gzip, on 2 or 3 jobs, the lines, the
    /// `--errors` records and the `--stats` counts are those of `-j 1` and of
    /// `--no-pipeline` (one thread per input).
    func testABigArchiveOnEveryJobIsTheArchiveOnOne() throws {
        let dir = try tempDir()
        for (name, mb) in [("big.warc.gz", "7"), ("big.warc", "3")] {
            let file = dir.appendingPathComponent(name)
            try sh("python3 corpus/generate.py warc --size-mb \(mb) --seed 11 -o '\(file.path)' 2>/dev/null")
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
            XCTAssertGreaterThan(size, 2 << 20, "\(name): split into parts of 1 MiB")
            var runs: [[String]] = []
            for options in [["-j", "1"], ["-j", "2"], ["-j", "3"], ["-j", "2", "--no-pipeline"]] {
                let s = dir.appendingPathComponent("stats.json"), e = dir.appendingPathComponent("errors.jsonl")
                let r = try run(["convert", "-q", "--data-errors-ok", "--stats", s.path, "--errors", e.path] + options + [file.path])
                XCTAssertEqual(r.status, 0, r.err)
                var counted = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: s)) as? [String: Any])
                for k in ["seconds", "mb_per_s", "jobs"] { counted[k] = nil }
                runs.append([r.out, String(decoding: try JSONSerialization.data(withJSONObject: counted, options: .sortedKeys), as: UTF8.self),
                             try String(contentsOf: e, encoding: .utf8)])
            }
            XCTAssertGreaterThan(try lines(runs[0][0]).count, 1000)
            XCTAssertTrue(runs[0][2].contains("revisit record of a feed"))
            for r in runs.dropFirst() {
                XCTAssertEqual(r[0], runs[0][0], name)
                XCTAssertEqual(r[1], runs[0][1], name)
                XCTAssertEqual(r[2], runs[0][2], name)
            }
        }
    }
}
