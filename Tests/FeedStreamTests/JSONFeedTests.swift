// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// JSON Feed 1.0 and 1.1 (https://www.jsonfeed.org/version/1.1/), read by the one shared
/// reader whatever the backend: every member of the specification on the record, per
/// member, from documents written here after the specification's text.
final class JSONFeedTests: XCTestCase {
    private func items(_ lines: [[String: Any]]) -> [[String: Any]] { lines.filter { $0["kind"] as? String == "item" } }
    private func feedLine(_ lines: [[String: Any]]) throws -> [String: Any] {
        try XCTUnwrap(lines.last { $0["kind"] as? String == "feed" })
    }
    private func object(_ v: Any?, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(v as? [String: Any], file: file, line: line)
    }
    private func rows(_ v: Any?, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try XCTUnwrap(v as? [[String: Any]], file: file, line: line)
    }

    /// The shape of the specification's first example: a 1.1 feed, two items, one with
    /// text content and one with HTML.
    func testTheSpecificationsSimpleExample() throws {
        let lines = try linesFromEveryBackend("""
            {
                "version": "https://jsonfeed.org/version/1.1",
                "title": "Harbour Log",
                "home_page_url": "https://harbour.example/",
                "feed_url": "https://harbour.example/feed.json",
                "items": [
                    {
                        "id": "2",
                        "content_text": "The ferry is late again.",
                        "url": "https://harbour.example/ferry"
                    },
                    {
                        "id": "1",
                        "content_html": "<p>Gulls, mostly.</p>",
                        "url": "https://harbour.example/first"
                    }
                ]
            }
            """)
        let its = items(lines)
        XCTAssertEqual(its.count, 2)
        XCTAssertEqual(its[0]["id"] as? String, "2")
        XCTAssertEqual(its[0]["content"] as? String, "The ferry is late again.")
        XCTAssertEqual(its[0]["content_type"] as? String, "text")
        XCTAssertEqual(its[0]["link"] as? String, "https://harbour.example/ferry")
        XCTAssertEqual(its[1]["id"] as? String, "1")
        XCTAssertEqual(its[1]["content"] as? String, "<p>Gulls, mostly.</p>")
        XCTAssertEqual(its[1]["content_type"] as? String, "html")
        XCTAssertEqual(its[1]["link"] as? String, "https://harbour.example/first")
        let feedOfItem = try object(its[0]["feed"])
        XCTAssertEqual(feedOfItem["format"] as? String, "json11")
        XCTAssertEqual(feedOfItem["link"] as? String, "https://harbour.example/")
        let feed = try feedLine(lines)
        XCTAssertEqual(feed["format"] as? String, "json11")
        XCTAssertEqual(feed["version"] as? String, "https://jsonfeed.org/version/1.1")
        XCTAssertEqual(feed["title"] as? String, "Harbour Log")
        XCTAssertEqual(feed["title_type"] as? String, "text")
        XCTAssertEqual(feed["link"] as? String, "https://harbour.example/")
        let links = try rows(feed["links"])
        XCTAssertEqual(links.count, 2)
        XCTAssertEqual(links[1]["href"] as? String, "https://harbour.example/feed.json")
        XCTAssertEqual(links[1]["rel"] as? String, "self")
        XCTAssertEqual(feed["items"] as? Int, 2)
        XCTAssertNil(feed["error"])
    }

    /// Every top-level member of 1.1.
    func testFeedMembers() throws {
        let lines = try linesFromEveryBackend("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "Tide Tables",
             "home_page_url": "https://tides.example/", "feed_url": "https://tides.example/f.json",
             "description": "High and low water", "user_comment": "For feed readers only.",
             "next_url": "https://tides.example/f.json?before=99",
             "icon": "https://tides.example/big.png", "favicon": "https://tides.example/small.png",
             "authors": [{"name": "Marin", "url": "https://tides.example/marin", "avatar": "https://tides.example/m.png"},
                         {"name": "Ebb"}],
             "language": "nl-NL", "expired": true,
             "hubs": [{"type": "WebSub", "url": "https://hub.tides.example/"}, {"type": "rssCloud", "url": "https://cloud.example/"}],
             "items": []}
            """)
        XCTAssertTrue(items(lines).isEmpty)
        let feed = try feedLine(lines)
        XCTAssertEqual(feed["subtitle"] as? String, "High and low water")
        XCTAssertEqual(feed["subtitle_type"] as? String, "text")
        XCTAssertEqual(feed["logo"] as? String, "https://tides.example/big.png")
        XCTAssertEqual(feed["icon"] as? String, "https://tides.example/small.png")
        XCTAssertEqual(feed["language"] as? String, "nl-NL")
        let authors = try rows(feed["authors"])
        XCTAssertEqual(authors.count, 2)
        XCTAssertEqual(authors[0]["name"] as? String, "Marin")
        XCTAssertEqual(authors[0]["uri"] as? String, "https://tides.example/marin")
        XCTAssertEqual(authors[1]["name"] as? String, "Ebb")
        let json = try object(feed["json_feed"])
        XCTAssertEqual(json["user_comment"] as? String, "For feed readers only.")
        XCTAssertEqual(json["next_url"] as? String, "https://tides.example/f.json?before=99")
        XCTAssertEqual(json["expired"] as? Bool, true)
        let jsonAuthors = try rows(json["authors"])
        XCTAssertEqual(jsonAuthors[0]["avatar"] as? String, "https://tides.example/m.png")
        XCTAssertEqual(jsonAuthors[0]["url"] as? String, "https://tides.example/marin")
        XCTAssertNil(jsonAuthors[1]["avatar"])
        let hubs = try rows(json["hubs"])
        XCTAssertEqual(hubs.count, 2)
        XCTAssertEqual(hubs[0]["type"] as? String, "WebSub")
        XCTAssertEqual(hubs[0]["url"] as? String, "https://hub.tides.example/")
        XCTAssertEqual(hubs[1]["type"] as? String, "rssCloud")
        XCTAssertEqual(feed["items"] as? Int, 0)
    }

    /// Every item member of 1.1.
    func testItemMembers() throws {
        let lines = try linesFromEveryBackend("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "Lighthouses",
             "items": [{
                "id": "urn:lh:7", "url": "https://lh.example/7", "external_url": "https://maps.example/lh7",
                "title": "The red one", "content_html": "<p>It is <em>red</em>.</p>",
                "content_text": "It is red.", "summary": "Red lighthouse",
                "image": "https://lh.example/7.jpg", "banner_image": "https://lh.example/7-wide.jpg",
                "date_published": "2021-03-04T05:06:07-08:00", "date_modified": "2021-03-05T00:00:00Z",
                "authors": [{"name": "Keeper", "url": "https://lh.example/keeper"}],
                "tags": ["red", "coast", "1890s"], "language": "de"
             }]}
            """)
        let it = try XCTUnwrap(items(lines).first)
        XCTAssertEqual(it["id"] as? String, "urn:lh:7")
        XCTAssertEqual(it["link"] as? String, "https://lh.example/7")
        let links = try rows(it["links"])
        XCTAssertEqual(links.map { $0["rel"] as? String }, ["alternate", "related"])
        XCTAssertEqual(links[1]["href"] as? String, "https://maps.example/lh7")
        XCTAssertEqual(it["title"] as? String, "The red one")
        XCTAssertEqual(it["title_type"] as? String, "text")
        XCTAssertEqual(it["content"] as? String, "<p>It is <em>red</em>.</p>")
        XCTAssertEqual(it["content_type"] as? String, "html")
        XCTAssertEqual(it["summary"] as? String, "Red lighthouse")
        XCTAssertEqual(it["summary_type"] as? String, "text")
        XCTAssertEqual(it["published"] as? String, "2021-03-04T13:06:07Z")
        XCTAssertEqual(it["published_raw"] as? String, "2021-03-04T05:06:07-08:00")
        XCTAssertEqual(it["updated"] as? String, "2021-03-05T00:00:00Z")
        XCTAssertEqual(it["updated_raw"] as? String, "2021-03-05T00:00:00Z")
        let authors = try rows(it["authors"])
        XCTAssertEqual(authors.count, 1)
        XCTAssertEqual(authors[0]["name"] as? String, "Keeper")
        XCTAssertEqual(authors[0]["uri"] as? String, "https://lh.example/keeper")
        XCTAssertEqual(try rows(it["categories"]).map { $0["term"] as? String }, ["red", "coast", "1890s"])
        XCTAssertEqual(it["language"] as? String, "de")
        let json = try object(it["json_feed"])
        XCTAssertEqual(json["content_text"] as? String, "It is red.")
        XCTAssertEqual(json["image"] as? String, "https://lh.example/7.jpg")
        XCTAssertEqual(json["banner_image"] as? String, "https://lh.example/7-wide.jpg")
    }

    /// content_html is the content when both are there, whatever their order; content_text
    /// alone is text content.
    func testContentHTMLAndTextInEitherOrder() throws {
        let lines = try linesFromEveryBackend("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "C", "items": [
              {"id": "a", "content_text": "plain first", "content_html": "<b>html second</b>"},
              {"id": "b", "content_html": "<b>html first</b>", "content_text": "plain second"},
              {"id": "c", "content_text": "alone"}]}
            """)
        let its = items(lines)
        XCTAssertEqual(its[0]["content"] as? String, "<b>html second</b>")
        XCTAssertEqual(its[0]["content_type"] as? String, "html")
        XCTAssertEqual(try object(its[0]["json_feed"])["content_text"] as? String, "plain first")
        XCTAssertEqual(its[1]["content"] as? String, "<b>html first</b>")
        XCTAssertEqual(try object(its[1]["json_feed"])["content_text"] as? String, "plain second")
        XCTAssertEqual(its[2]["content"] as? String, "alone")
        XCTAssertEqual(its[2]["content_type"] as? String, "text")
        XCTAssertNil(its[2]["json_feed"])
    }

    /// Attachments: enclosures (url, type, length) and every member in json_feed.
    func testAttachments() throws {
        let lines = try linesFromEveryBackend("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "Pod", "items": [{"id": "e1",
              "attachments": [
                {"url": "https://pod.example/e1.m4a", "mime_type": "audio/x-m4a", "size_in_bytes": 89970236, "duration_in_seconds": 6629},
                {"url": "https://pod.example/e1.mp3", "mime_type": "audio/mpeg", "title": "MP3 version", "size_in_bytes": 1.5e3}
              ]}]}
            """)
        let it = try XCTUnwrap(items(lines).first)
        let enclosures = try rows(it["enclosures"])
        XCTAssertEqual(enclosures.count, 2)
        XCTAssertEqual(enclosures[0]["url"] as? String, "https://pod.example/e1.m4a")
        XCTAssertEqual(enclosures[0]["type"] as? String, "audio/x-m4a")
        XCTAssertEqual(enclosures[0]["length"] as? String, "89970236")
        XCTAssertEqual(enclosures[1]["length"] as? String, "1.5e3")   // as written
        let attachments = try rows(try object(it["json_feed"])["attachments"])
        XCTAssertEqual(attachments[0]["duration_in_seconds"] as? String, "6629")
        XCTAssertNil(attachments[0]["title"])
        XCTAssertEqual(attachments[1]["title"] as? String, "MP3 version")
        XCTAssertEqual(attachments[1]["mime_type"] as? String, "audio/mpeg")
        XCTAssertEqual(attachments[1]["size_in_bytes"] as? String, "1.5e3")
    }

    /// 1.0: the singular author (feed and item), format json10, no language member
    /// needed; 1.1's authors win over author when both are written, in either order.
    func testVersion10AuthorAndVersion11Authors() throws {
        let lines10 = try linesFromEveryBackend("""
            {"version": "https://jsonfeed.org/version/1", "title": "Old",
             "author": {"name": "Solo", "url": "https://solo.example/", "avatar": "https://solo.example/a.png"},
             "items": [{"id": "1", "content_text": "x", "author": {"name": "Item Solo"}}]}
            """)
        let feed10 = try feedLine(lines10)
        XCTAssertEqual(feed10["format"] as? String, "json10")
        XCTAssertEqual(try rows(feed10["authors"]).first?["name"] as? String, "Solo")
        XCTAssertEqual(try rows(try object(feed10["json_feed"])["authors"]).first?["avatar"] as? String,
                       "https://solo.example/a.png")
        XCTAssertEqual(try rows(items(lines10)[0]["authors"]).first?["name"] as? String, "Item Solo")

        let lines11 = try linesFromEveryBackend("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "Both",
             "author": {"name": "Legacy"}, "authors": [{"name": "New A"}, {"name": "New B"}],
             "items": [{"id": "1", "content_text": "x", "authors": [{"name": "Array"}], "author": {"name": "Singular"}}]}
            """)
        let feed11 = try feedLine(lines11)
        XCTAssertEqual(try rows(feed11["authors"]).map { $0["name"] as? String }, ["New A", "New B"])
        XCTAssertEqual(try rows(try object(feed11["json_feed"])["authors"]).count, 2)
        XCTAssertEqual(try rows(items(lines11)[0]["authors"]).map { $0["name"] as? String }, ["Array"])
    }

    /// The version member decides the format; a JSON object that is neither versioned nor
    /// has items is not a feed.
    func testVersions() throws {
        func format(_ version: String) throws -> String? {
            try feedLine(try linesFromEveryBackend("{\"version\": \(version), \"title\": \"v\", \"items\": []}"))["format"] as? String
        }
        XCTAssertEqual(try format("\"https://jsonfeed.org/version/1\""), "json10")
        XCTAssertEqual(try format("\"https://jsonfeed.org/version/1.1\""), "json11")
        XCTAssertEqual(try format("\"http://jsonfeed.org/version/1.1/\""), "json11")
        XCTAssertEqual(try format("\"https://jsonfeed.org/version/2\""), "json")
        XCTAssertEqual(try format("null"), "json")
        let notFeed = try feedLine(try linesFromEveryBackend("{\"name\": \"package.json, say\"}"))
        XCTAssertEqual(notFeed["format"] as? String, "json")
        XCTAssertEqual(try object(notFeed["error"])["code"] as? String, "not_feed")
    }

    /// Ids are coerced to strings (the specification: a number id is read as a string).
    func testIdsAndStringEscapes() throws {
        let lines = try linesFromEveryBackend(#"""
            {"version": "https://jsonfeed.org/version/1.1", "title": "Esc\u00e9 \"q\" \\ \/ \ud83d\ude00 \t.",
             "items": [{"id": 42, "title": "\u0041\u00df\u6771"}, {"id": 1.50, "title": "tab\tnew\nline"}]}
            """#)
        let feed = try feedLine(lines)
        XCTAssertEqual(feed["title"] as? String, "Escé \"q\" \\ / 😀 \t.")
        let its = items(lines)
        XCTAssertEqual(its[0]["id"] as? String, "42")
        XCTAssertEqual(its[0]["title"] as? String, "Aß東")
        XCTAssertEqual(its[1]["id"] as? String, "1.50")
        XCTAssertEqual(its[1]["title"] as? String, "tab\tnew\nline")
    }

    /// A lone surrogate escape becomes U+FFFD where it stood (SCHEMA.md, "JSON Feed"): before
    /// the plain characters, escapes or end that follow it, not at the next `\u` escape.
    func testALoneSurrogateIsReplacedWhereItStands() throws {
        let lines = try linesFromEveryBackend(#"""
            {"version": "https://jsonfeed.org/version/1.1", "title": "a\ud800 b\u00e9",
             "items": [{"id": "1", "title": "\ud800"}, {"id": "2", "title": "x\udc00y"},
                       {"id": "3", "title": "\ud800\ud83d\ude00!"}, {"id": "4", "title": "\ud83d\ttab"}]}
            """#)
        XCTAssertEqual(try feedLine(lines)["title"] as? String, "a\u{FFFD} bé")
        let its = items(lines)
        XCTAssertEqual(its.map { $0["title"] as? String }, ["\u{FFFD}", "x\u{FFFD}y", "\u{FFFD}😀!", "\u{FFFD}\ttab"])
    }

    /// `_` members of the feed and of items are kept as their raw JSON text; unknown
    /// members without `_` are ignored, as the specification asks of readers.
    func testExtensionsKeptAsRawJSON() throws {
        let lines = try linesFromEveryBackend("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "X",
             "_blue_shed": {"about": "https://blueshed.example/", "explicit": false, "n": [1, 2.5e-3, null]},
             "unknown": {"ignored": true},
             "items": [{"id": "1", "content_text": "t", "_geo": [52.1, 4.3], "_note": "plain \\"string\\"",
                        "attachments": [{"url": "https://x.example/a", "mime_type": "a/b", "_ignored": 1}]}]}
            """)
        let feed = try feedLine(lines)
        let ext = try rows(try object(feed["json_feed"])["extensions"])
        XCTAssertEqual(ext.count, 1)
        XCTAssertEqual(ext[0]["key"] as? String, "_blue_shed")
        XCTAssertEqual(ext[0]["json"] as? String, #"{"about": "https://blueshed.example/", "explicit": false, "n": [1, 2.5e-3, null]}"#)
        let it = try XCTUnwrap(items(lines).first)
        let itemExt = try rows(try object(it["json_feed"])["extensions"])
        XCTAssertEqual(itemExt.map { $0["key"] as? String }, ["_geo", "_note"])
        XCTAssertEqual(itemExt[0]["json"] as? String, "[52.1, 4.3]")
        XCTAssertEqual(itemExt[1]["json"] as? String, #""plain \"string\"""#)
        XCTAssertNil(feed["unknown"])
        // The value model keeps them too.
        let docs = try SwiftFeedParser().documents(from: .bytes(bytes("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "X", "_a": {"b": 1}, "items": [{"id": "i", "_c": 2}]}
            """)))
        XCTAssertEqual(docs[0].feed.format, .json11)
        XCTAssertEqual(docs[0].feed.extensionLists["json_feed.extensions"]?.first?["json"], #"{"b": 1}"#)
        XCTAssertEqual(docs[0].items[0].extensionLists["json_feed.extensions"]?.first?["key"], "_c")
    }

    /// Not well-formed JSON: an error record with line, column and offset; the items
    /// before it are delivered; every backend the same.
    func testInvalidJSONIsAnErrorRecord() throws {
        let lines = try linesFromEveryBackend("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "Broken",
             "items": [{"id": "ok", "content_text": "fine"},
                       {"id": "bad", "content_text": "x",}]}
            """)
        XCTAssertEqual(items(lines).count, 1)
        XCTAssertEqual(items(lines)[0]["id"] as? String, "ok")
        let feed = try feedLine(lines)
        XCTAssertEqual(feed["title"] as? String, "Broken")
        let error = try object(feed["error"])
        XCTAssertEqual(error["code"] as? String, "json")
        XCTAssertEqual(error["message"] as? String, "expected a string (a key)")
        XCTAssertEqual(error["line"] as? Int, 3)
        XCTAssertEqual(error["column"] as? Int, 46)
        XCTAssertEqual(error["offset"] as? Int, 161)

        for (text, message) in [
            ("{\"title\": \"t\" \"items\": []}", "expected ',' or '}'"),
            ("{\"title\": 01}", "invalid number"),
            ("{\"title\": -}", "invalid number"),
            ("{\"title\": \"a\u{1}b\"}", "control character in a string"),
            ("{\"title\": \"\\x\"}", "invalid escape in a string"),
            ("{\"items\": [nul]}", "invalid literal (true, false or null)"),
            ("{\"items\": [", "unexpected end of input"),
        ] {
            let e = try object(try feedLine(try linesFromEveryBackend(text))["error"])
            XCTAssertEqual(e["code"] as? String, "json", text)
            XCTAssertEqual(e["message"] as? String, message, text)
        }
    }

    /// A line feed inside a string is the error, at its place: the last character of the
    /// line it ends (the column was computed from the next line's start and overflowed:
    /// the process crashed; found by the swift fuzzer).
    func testALineFeedInAStringIsAnErrorWhereItIs() throws {
        for (text, line, column, offset) in [
            ("{\"version\": \"https://jsonfeed.org/version/1.1\", \"title\": \"a\nb\"}", 1, 60, 59),
            ("{\"version\": \"https://jsonfeed.org/version/1.1\",\n\"title\": \"a\nb\"}", 2, 12, 59),
        ] {
            let e = try object(try feedLine(try linesFromEveryBackend(text))["error"])
            XCTAssertEqual(e["message"] as? String, "control character in a string", text)
            XCTAssertEqual([e["line"] as? Int, e["column"] as? Int, e["offset"] as? Int], [line, column, offset], text)
        }
    }

    /// Chunked, gzip and whole inputs give the same lines; white space and a byte order
    /// mark may come before the object; documents may follow one another.
    func testChunksGzipAndConcatenatedDocuments() throws {
        let doc = """
            {"version": "https://jsonfeed.org/version/1.1", "title": "Chunks", "_e": {"deep": [[{"x": "y"}]]},
             "items": [{"id": "1", "title": "one", "tags": ["a"]}, {"id": "2", "title": "two \\u00e9"}]}
            """
        let whole = Array("\u{FEFF}\n  \(doc)\n\(doc)".utf8)
        for backend in FeedBackend.allCases {
            let expected = try jsonLines(.bytes(whole), source: "s", parser: backend.makeParser())
            XCTAssertEqual(expected.summary.documents, 2)
            XCTAssertEqual(expected.summary.items, 4)
            XCTAssertNil(expected.summary.firstError)
            for size in [1, 2, 7, 64] {
                XCTAssertEqual(try jsonLines(chunkedInput(whole, size), source: "s", parser: backend.makeParser()).text,
                               expected.text, "\(backend) chunks of \(size)")
            }
            XCTAssertEqual(try jsonLines(.bytes(gzip(whole)), source: "s", parser: backend.makeParser()).text,
                           expected.text, "\(backend) gzip")
            XCTAssertEqual(try jsonLines(chunkedInput(gzip(whole), 5), source: "s", parser: backend.makeParser()).text,
                           expected.text, "\(backend) gzip in chunks")
        }
        let lines = try linesFromEveryBackend(String(decoding: whole, as: UTF8.self))
        XCTAssertEqual(lines.filter { $0["kind"] as? String == "feed" }.map { $0["document"] as? Int }, [1, 2])
    }

    /// Files and descriptors: read from the file, the bytes sniffed are not lost.
    func testFilesAndDescriptors() throws {
        let doc = bytes(#"{"version": "https://jsonfeed.org/version/1", "title": "F", "items": [{"id": "z"}]}"#)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jsonfeed-\(UUID().uuidString).json")
        try Data(doc).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        for backend in FeedBackend.allCases {
            let expected = try jsonLines(.bytes(doc), source: "s", parser: backend.makeParser()).text
            XCTAssertEqual(try jsonLines(.file(path: url.path), source: "s", parser: backend.makeParser()).text, expected)
            let fd = open(url.path, O_RDONLY)
            defer { close(fd) }
            XCTAssertEqual(try jsonLines(.fileDescriptor(fd), source: "s", parser: backend.makeParser()).text, expected)
        }
        // White space past the first 4 KiB read to tell: read on until the `{`.
        let spaced = Array(repeating: UInt8(ascii: " "), count: 10_000) + doc
        try Data(spaced).write(to: url)
        for backend in FeedBackend.allCases {
            let r = try jsonLines(.file(path: url.path), source: "s", parser: backend.makeParser())
            XCTAssertEqual(r.summary.items, 1, "\(backend)")
            XCTAssertNil(r.summary.firstError, "\(backend)")
        }
    }

    /// One parser reading many files in turn (as a batch does) routes each by its own
    /// content: the gzip sniff's inflate stage, kept across inputs, starts afresh for
    /// each; a path is opened once and its first bytes are not lost; a missing path is
    /// the backend's open failure; a descriptor is read from where it stands.
    func testOneParserRoutesEachFileByItsOwnContent() throws {
        let json = bytes(#"{"version": "https://jsonfeed.org/version/1.1", "title": "J", "items": [{"id": "j1"}, {"id": "j2"}]}"#)
        let xml = bytes(#"<rss version="2.0"><channel><title>X</title><item><guid>x1</guid></item></channel></rss>"#)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("route-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let files: [(name: String, data: [UInt8], format: String?, ids: [String])] = [
            ("a.json.gz", gzip(json), "json11", ["j1", "j2"]),
            ("b.xml.gz", gzip(xml), "rss20", ["x1"]),
            ("c.json", json, "json11", ["j1", "j2"]),
            ("d.xml", xml, "rss20", ["x1"]),
            ("e.json.gz", gzip(Array(repeating: UInt8(ascii: "\n"), count: 3000) + json), "json11", ["j1", "j2"]),
            ("f.xml.gz", gzip(xml), "rss20", ["x1"]),
        ]
        for f in files { try Data(f.data).write(to: dir.appendingPathComponent(f.name)) }
        for backend in FeedBackend.allCases {
            let parser = backend.makeParser()
            for f in files {
                let (text, summary) = try jsonLines(.file(path: dir.appendingPathComponent(f.name).path), source: f.name,
                                                    parser: parser)
                let lines = try text.split(separator: "\n").map {
                    try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
                XCTAssertNil(summary.firstError, "\(backend) \(f.name)")
                XCTAssertEqual(try feedLine(lines)["format"] as? String, f.format, "\(backend) \(f.name)")
                XCTAssertEqual(items(lines).map { $0["id"] as? String }, f.ids, "\(backend) \(f.name)")
            }
            // A missing path: reported as the backend reports an open failure, and the
            // parser goes on with the next input.
            let missing = try jsonLines(.file(path: dir.appendingPathComponent("missing.xml").path), source: "m",
                                        parser: parser)
            XCTAssertEqual(missing.summary.firstError?.code, .io, "\(backend)")
            XCTAssertTrue(missing.summary.firstError?.message.contains("No such file") ?? false, "\(backend)")
            XCTAssertEqual(try jsonLines(.file(path: dir.appendingPathComponent("c.json").path), source: "c",
                                         parser: parser).summary.items, 2, "\(backend)")
            // A descriptor moved past a first document: the sniff and the read start there.
            let both = dir.appendingPathComponent("both")
            try Data(xml + json).write(to: both)
            let fd = open(both.path, O_RDONLY)
            defer { close(fd) }
            XCTAssertEqual(lseek(fd, off_t(xml.count), SEEK_SET), off_t(xml.count))
            let rest = try jsonLines(.fileDescriptor(fd), source: "b", parser: parser)
            XCTAssertEqual(rest.summary.items, 2, "\(backend)")
            XCTAssertTrue(rest.text.contains(#""format":"json11""#), "\(backend)")
        }
    }

    /// The limits apply as to XML: items, depth, field text, document size.
    func testLimits() throws {
        func run(_ limits: FeedLimits, _ text: String) throws -> (String, [[String: Any]]) {
            var outputs: [String] = []
            let parsers: [any FeedParser] = [ExpatFeedParser(limits: limits), LibXML2FeedParser(limits: limits),
                                             SwiftFeedParser(limits: limits)]
            for p in parsers { outputs.append(try jsonLines(.bytes(bytes(text)), source: "l", parser: p).text) }
            for o in outputs.dropFirst() { XCTAssertEqual(o, outputs[0]) }
            let lines = try outputs[0].split(separator: "\n").map {
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let error = try object(try feedLine(lines)["error"])
            return (error["message"] as? String ?? "", lines)
        }
        let three = #"{"version": "https://jsonfeed.org/version/1.1", "title": "L", "items": [{"id": "1"}, {"id": "2"}, {"id": "3"}]}"#
        let (m1, l1) = try run(FeedLimits(maxItems: 2), three)
        XCTAssertEqual(m1, "limit exceeded: items 3 > 2")
        XCTAssertEqual(items(l1).count, 2)
        let (m2, _) = try run(FeedLimits(maxDepth: 3), #"{"title": "d", "_x": {"a": {"b": [1]}}, "items": []}"#)
        XCTAssertEqual(m2, "limit exceeded: nesting depth 4 > 3")
        let (m3, _) = try run(FeedLimits(maxFieldBytes: 10), #"{"title": "0123456789ABC", "items": []}"#)
        XCTAssertEqual(m3, "limit exceeded: field text > 10 bytes")
        let (m4, _) = try run(FeedLimits(maxDocumentBytes: 40), three)
        XCTAssertEqual(m4, "limit exceeded: document size > 40 bytes")
    }

    /// A string or an extension's JSON text over the field-text limit fails the document
    /// at its first byte (the string's opening quote, the extension value's first byte),
    /// however the input was cut and on every backend; an extension is never cut short
    /// (it was written truncated, with no mark, and held whole until its end).
    func testFieldTextLimitIsWhereTheValueBeganHoweverTheInputIsCut() throws {
        let limits = FeedLimits(maxFieldBytes: 100)
        let head = "{\"version\": \"https://jsonfeed.org/version/1.1\",\n \"title\": \"T\",\n "
        let cases: [(member: String, value: String)] = [
            ("\"description\": ", "\"" + String(repeating: "plain text ", count: 12) + "\""),
            ("\"description\": ", "\"" + String(repeating: "\\n\\u00e9", count: 40) + "\""),   // escapes only
            ("\"_ext\": ", "{\"a\": \"" + String(repeating: "x", count: 40) + "\",\n  \"b\": [" + String(repeating: "1, ", count: 30) + "2]}"),
        ]
        for c in cases {
            let text = head + c.member + c.value + ",\n \"items\": [{\"id\": \"1\", \"title\": \"a\"}]}\n"
            let data = bytes(text)
            let at = (head + c.member).utf8.count
            let line = (head + c.member).filter { $0 == "\n" }.count + 1
            let column = at - ((head + c.member).utf8.lastIndex(of: 0x0A).map { (head + c.member).utf8.distance(from: (head + c.member).utf8.startIndex, to: $0) + 1 } ?? 0) + 1
            let expected = #"{"code":"limit","message":"limit exceeded: field text > 100 bytes","line":\#(line),"column":\#(column),"offset":\#(at)"#
            for parser in [ExpatFeedParser(limits: limits), LibXML2FeedParser(limits: limits), SwiftFeedParser(limits: limits)] as [any FeedParser] {
                var inputs: [(String, FeedInput)] = [("whole", .bytes(data)), ("gzip", .bytes(gzip(data)))]
                for size in [1, 7, 64] { inputs.append(("chunks of \(size)", chunkedInput(data, size))) }
                for (how, input) in inputs {
                    let out = try jsonLines(input, source: "j", parser: parser).text
                    let context = "\(type(of: parser)), \(how), \(c.value.prefix(16))"
                    XCTAssertTrue(out.contains(expected), "\(context):\n\(out)")
                    XCTAssertFalse(out.contains("\"kind\":\"item\""), context)
                    XCTAssertFalse(out.contains("extensions"), "\(context): no extension cut short")
                }
            }
        }
    }

    /// What does not start with `{` is still XML.
    func testXMLIsUntouched() throws {
        let lines = try linesFromEveryBackend("  <rss version=\"2.0\"><channel><title>{not json}</title></channel></rss>")
        XCTAssertEqual(try feedLine(lines)["format"] as? String, "rss20")
    }
}
