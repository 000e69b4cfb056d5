// SPDX-License-Identifier: Apache-2.0
import CFeedStream
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

/// Broken feeds are recovered (docs/SCHEMA.md, "Recovered documents"): for each kind of
/// fault, at each place a fault can be (before the first item, between items, inside an
/// item, in the channel header, in a dump of several documents), every backend keeps the
/// items a lenient reader finds, marks the document recovered, and writes the same bytes
/// whatever the input's chunking. Strict parsers keep today's behaviour.
final class RecoveryTests: XCTestCase {
    /// A fault: the bytes that break the document, and what the text they sit in reads
    /// as once recovered (`fault` replaces `{F}` inside a title).
    struct Fault {
        var name: String
        var fault: String
        var reads: String
    }

    static let textFaults: [Fault] = [
        Fault(name: "bare ampersand", fault: "Q&A", reads: "Q&A"),
        Fault(name: "unterminated reference", fault: "AT&T &amp c", reads: "AT&T &amp c"),
        Fault(name: "uppercase hex reference", fault: "&#X41;&#x42;", reads: "AB"),
        Fault(name: "out-of-range reference", fault: "a&#1114112;b&#0;", reads: "a&#1114112;b&#0;"),
        Fault(name: "bare less-than", fault: "1 < 2", reads: "1 < 2"),
        Fault(name: "CDATA end in text", fault: "a]]>b", reads: "a]]>b"),
    ]

    /// A feed whose item titles are `titles`; `header` goes in the channel before them.
    private func feed(_ titles: [String], header: String = "<title>T</title>", declaration: String? = nil) -> String {
        (declaration ?? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") + "<rss version=\"2.0\"><channel>" + header
            + titles.map { "<item><title>\($0)</title><link>http://example.com/\($0.utf8.count)</link></item>" }.joined()
            + "</channel></rss>\n"
    }

    /// Parses `data` with `backend` (whole, and in chunks of 1 and 7 bytes: the same
    /// documents every time) and returns the documents.
    private func documents(_ data: [UInt8], _ backend: FeedBackend, strict: Bool = false,
                           file: StaticString = #filePath, line: UInt = #line) throws -> [FeedDocument] {
        let whole = try backend.makeParser(strict: strict).documents(from: .bytes(data))
        for size in [1, 7] {
            let chunked = try backend.makeParser(strict: strict).documents(from: chunkedInput(data, size))
            XCTAssertEqual(chunked.map(\.self.outcome), whole.map(\.self.outcome), "\(backend), chunks of \(size)",
                           file: file, line: line)
        }
        return whole
    }

    private func titles(_ d: FeedDocument) -> [String] { d.items.map { $0.title?.value ?? "-" } }

    func testTextFaultsEverywhereOnEveryBackend() throws {
        for f in Self.textFaults {
            let places: [(String, [String], String, [String])] = [
                // (where, titles written, header, titles expected)
                ("first item", [f.fault, "b", "c"], "<title>T</title>", [f.reads, "b", "c"]),
                ("between items", ["a", f.fault, "c"], "<title>T</title>", ["a", f.reads, "c"]),
                ("last item", ["a", "b", f.fault], "<title>T</title>", ["a", "b", f.reads]),
            ]
            for (place, written, header, expected) in places {
                let data = Array(feed(written, header: header).utf8)
                for backend in FeedBackend.allCases {
                    let docs = try documents(data, backend)
                    XCTAssertEqual(docs.count, 1, "\(f.name), \(place), \(backend)")
                    XCTAssertEqual(titles(docs[0]), expected, "\(f.name), \(place), \(backend)")
                    XCTAssertEqual(docs[0].error?.code, .malformedXML, "\(f.name), \(place), \(backend)")
                    XCTAssertEqual(docs[0].error?.recovered, true, "\(f.name), \(place), \(backend)")
                }
            }
            // In the channel header: the feed title reads the same, the items are kept.
            let data = Array(feed(["a", "b"], header: "<title>\(f.fault)</title>").utf8)
            for backend in FeedBackend.allCases {
                let docs = try documents(data, backend)
                XCTAssertEqual(docs[0].feed.title?.value, f.reads, "\(f.name), header, \(backend)")
                XCTAssertEqual(titles(docs[0]), ["a", "b"], "\(f.name), header, \(backend)")
            }
        }
    }

    func testBareAmpersandInALinkKeepsTheLink() throws {
        let data = Array(feed(["a"]).replacingOccurrences(of: "http://example.com/1", with: "http://example.com/?a=1&b=2").utf8)
        for backend in FeedBackend.allCases {
            let docs = try documents(data, backend)
            XCTAssertEqual(docs[0].items.first?.link, "http://example.com/?a=1&b=2", "\(backend)")
        }
    }

    /// An element with the `xmlns` prefix, which no declaration can bind, fails the
    /// document on every backend ("unbound prefix"); the repair writes its prefix as one
    /// it can bind, so the element is skipped and the items around it are kept, its
    /// children too (a field inside it is not taken for the item's).
    func testAnElementWithTheXMLNSPrefixKeepsItsItem() throws {
        let xml = #"<rss version="2.0"><channel><title>T</title>"#
            + #"<item><title>a</title><xmlns:note>n</xmlns:note><link>https://example.com/a</link></item>"#
            + #"<item><xmlns:x><title>not the title</title></xmlns:x><title>b</title></item>"#
            + #"<item><title>c</title><xmlns:empty/></item></channel></rss>"#
        for backend in FeedBackend.allCases {
            let docs = try documents(Array(xml.utf8), backend)
            XCTAssertEqual(titles(docs[0]), ["a", "b", "c"], "\(backend)")
            XCTAssertEqual(docs[0].items.first?.link, "https://example.com/a", "\(backend)")
            XCTAssertEqual(docs[0].error?.message.contains("prefix"), true, "\(backend)")
        }
    }

    func testStructuralFaults() throws {
        let cases: [(String, String, [String])] = [
            ("mismatched end tag in the first item",
             "<item><title>a</titel></item><item><title>b</title></item>", ["a", "b"]),
            ("end tag in another case (the start tag's name is read in any case)",
             "<item><Title>a</title></item><item><title>b</title></item>", ["a", "b"]),
            ("stray end tag between items",
             "<item><title>a</title></item></foo><item><title>b</title></item>", ["a", "b"]),
            ("an item left open",
             "<item><title>a</title><item><title>b</title></item>", ["a", "b"]),
            ("a header element left open",
             "<image><url>http://x/i.png</url><item><title>a</title></item><item><title>b</title></item>", ["a", "b"]),
            ("unquoted and valueless attributes",
             "<item><title>a</title><enclosure url=http://x/a.mp3 length=3 type=audio/mpeg hidden /></item>", ["a"]),
            ("duplicate attribute",
             "<item><title>a</title><enclosure url=\"http://x/1\" url=\"http://x/2\" /></item>", ["a"]),
            ("an undeclared prefix",
             "<item><title>a</title><dc:creator>Ann</dc:creator></item><item><title>b</title></item>", ["a", "b"]),
        ]
        for (name, body, expected) in cases {
            let data = Array(("<rss version=\"2.0\"><channel><title>T</title>" + body + "</channel></rss>").utf8)
            for backend in FeedBackend.allCases {
                let docs = try documents(data, backend)
                XCTAssertEqual(titles(docs[0]), expected, "\(name), \(backend)")
                XCTAssertEqual(docs[0].error?.recovered, true, "\(name), \(backend)")
                XCTAssertEqual(docs[0].feed.title?.value, "T", "\(name), \(backend)")
            }
        }
        // The repaired attributes and prefixes carry their values.
        let enclosure = Array(("<rss version=\"2.0\"><channel><item><title>a</title>"
            + "<enclosure url=http://x/a.mp3 length=3 type=audio/mpeg hidden /><dc:creator>Ann</dc:creator>"
            + "</item></channel></rss>").utf8)
        for backend in FeedBackend.allCases {
            let item = try documents(enclosure, backend)[0].items[0]
            XCTAssertEqual(item.enclosures.first?.url, "http://x/a.mp3", "\(backend)")
            XCTAssertEqual(item.enclosures.first?.type, "audio/mpeg", "\(backend)")
            XCTAssertEqual(item.authors.first?.name, "Ann", "dc bound to Dublin Core, \(backend)")
        }
    }

    /// HTML left unescaped in a field: its void elements (`<br>`, `<hr>`, `<img>`,
    /// `<wbr>`) are empty, so the field's text is not nested in them (`a<br>b</br>`).
    func testUnescapedHTMLVoidElementsAreEmpty() throws {
        let data = Array(("<rss version=\"2.0\"><channel><title>T</title><item><title>a</title>"
            + "<description>Hello<br>World<IMG src=\"x.png\">after<hr>end<wbr>.</br></description>"
            + "<link>http://x/a</link></item><item><title>b</title><description>p<p>q</description></item>"
            + "</channel></rss>").utf8)
        for backend in FeedBackend.allCases {
            let docs = try documents(data, backend)
            XCTAssertEqual(titles(docs[0]), ["a", "b"], "\(backend)")
            XCTAssertEqual(docs[0].items[0].summary?.value, "Hello<br/>World<IMG src=\"x.png\"/>after<hr/>end<wbr/>.",
                           "\(backend)")
            XCTAssertEqual(docs[0].items[0].link, "http://x/a", "an RSS link is not HTML's void link, \(backend)")
            XCTAssertEqual(docs[0].items[1].summary?.value, "p<p>q</p>", "other elements close at their parent's end")
            XCTAssertEqual(docs[0].error?.recovered, true, "\(backend)")
        }
    }

    func testEncodingFaults() throws {
        // One Latin-1 byte in a document that says UTF-8 (and UTF-8 around it).
        var stray = Array(feed(["caf\u{1}", "naïve"]).utf8)
        stray[stray.firstIndex(of: 0x01)!] = 0xE9
        // A windows-1252 document that declares nothing.
        var cp1252 = Array(feed(["price \u{1} 5", "b"], declaration: "").utf8)
        cp1252[cp1252.firstIndex(of: 0x01)!] = 0x80
        for backend in FeedBackend.allCases {
            XCTAssertEqual(titles(try documents(stray, backend)[0]), ["café", "naïve"], "\(backend)")
            let d = try documents(cp1252, backend)[0]
            XCTAssertEqual(titles(d), ["price € 5", "b"], "\(backend)")
            XCTAssertEqual(d.error?.recovered, true, "\(backend)")
        }
    }

    func testDocumentCutShortKeepsItsItems() throws {
        let full = feed(["a", "b", "c"])
        let cut = String(full[..<full.range(of: "<item><title>c")!.upperBound])
        for backend in FeedBackend.allCases {
            let d = try documents(Array(cut.utf8), backend)[0]
            XCTAssertEqual(titles(d), ["a", "b", "c"], "the partial item keeps what it has, \(backend)")
            XCTAssertEqual(d.error?.recovered, true, "\(backend)")
            XCTAssertEqual(d.feed.title?.value, "T", "\(backend)")
        }
    }

    /// The reproduction of the "Nothing lost" issue: documents without declarations after
    /// a failed one are kept, with and without recovery.
    func testDumpWithoutDeclarationsResynchronizes() throws {
        func d(_ n: String, _ extra: String = "") -> String {
            "<rss version=\"2.0\"><channel><title>\(n)</title><item><title>\(n)-i</title></item>\(extra)</channel></rss>"
        }
        let dump = Array((d("A", "<item><title>x</titel></item>") + d("B") + d("C") + "\n" + d("D")).utf8)
        for backend in FeedBackend.allCases {
            let docs = try documents(dump, backend)
            XCTAssertEqual(docs.map { $0.feed.title?.value ?? "" }, ["A", "B", "C", "D"], "\(backend)")
            XCTAssertEqual(docs.map(titles), [["A-i", "x"], ["B-i"], ["C-i"], ["D-i"]], "\(backend)")
            XCTAssertEqual(docs.map { $0.error?.recovered ?? false }, [true, false, false, false], "\(backend)")
            let strict = try documents(dump, backend, strict: true)
            XCTAssertEqual(strict.map(titles), [["A-i"], ["B-i"], ["C-i"], ["D-i"]], "strict, \(backend)")
            XCTAssertEqual(strict[0].error?.recovered, false, "strict, \(backend)")
        }
    }

    func testFaultsInADumpCostOnlyTheirDocument() throws {
        var dump = ""
        for (i, f) in Self.textFaults.enumerated() {
            dump += feed(["d\(i)a", f.fault, "d\(i)c"])
        }
        let data = Array(dump.utf8)
        for backend in [FeedBackend.expat, .swift] {   // libxml2: see testRandomCutsOfMixedDumps
            let docs = try documents(data, backend)
            XCTAssertEqual(docs.count, Self.textFaults.count, "\(backend)")
            for (i, f) in Self.textFaults.enumerated() {
                XCTAssertEqual(titles(docs[i]), ["d\(i)a", f.reads, "d\(i)c"], "\(f.name), \(backend)")
            }
        }
    }

    /// A failure in the prolog (a bad declaration) is the document's own: its root is not
    /// taken for a second document.
    func testFailureBeforeTheRootIsOneDocument() throws {
        let data = Array("<?xml version=\"1.0\" encoding=\"no-such-charset\"?>\n<rss version=\"2.0\"><channel><title>T</title><item><title>a</title></item></channel></rss>".utf8)
        for backend in FeedBackend.allCases {
            let docs = try documents(data, backend)
            XCTAssertEqual(docs.count, 1, "\(backend)")
            XCTAssertEqual(titles(docs[0]), ["a"], "\(backend)")
            XCTAssertEqual(try documents(data, backend, strict: true).count, 1, "strict, \(backend)")
        }
    }

    /// A DOCTYPE whose external identifier is not well-formed (a public identifier
    /// without its system literal, as Netscape's RSS 0.91 DTD line and HTML 4's are often
    /// written; a stray word) fails strict parsing before the root; the recovery path
    /// reads the feed after it, and keeps a DOCTYPE's internal subset.
    func testAMalformedDoctypeBeforeTheRootIsRecovered() throws {
        let channel = "<rss version=\"0.91\"><channel><title>T</title><item><title>a</title></item>"
            + "<item><title>b &amp; c</title></item></channel></rss>\n"
        let doctypes = [
            "<!DOCTYPE rss PUBLIC \"-//Netscape Communications//DTD RSS 0.91//EN\">",
            "<!DOCTYPE rss PUBLIC '-//Netscape Communications//DTD RSS 0.91//EN' >",
            "<!DOCTYPE rss junk>",
            "<!DOCTYPE rss SYSTEM>",
        ]
        for doctype in doctypes {
            let data = Array((doctype + "\n" + channel).utf8)
            for backend in FeedBackend.allCases {
                let docs = try documents(data, backend)
                XCTAssertEqual(docs.count, 1, "\(backend): \(doctype)")
                XCTAssertEqual(titles(docs[0]), ["a", "b & c"], "\(backend): \(doctype)")
                XCTAssertEqual(docs[0].error?.recovered, true, "\(backend): \(doctype)")
                XCTAssertEqual(docs[0].feed.title?.value, "T", "\(backend): \(doctype)")
            }
        }
        // The internal subset stays: its entity is declared for the re-read.
        let subset = Array(("<!DOCTYPE rss PUBLIC \"x\" [<!ENTITY who \"Ann\">]>\n"
                            + "<rss version=\"2.0\"><channel><title>&who;</title><item><title>a</title></item></channel></rss>").utf8)
        for backend in FeedBackend.allCases {
            let d = try documents(subset, backend)[0]
            XCTAssertEqual(d.feed.title?.value, "Ann", "\(backend)")
            XCTAssertEqual(titles(d), ["a"], "\(backend)")
        }
    }

    /// A comment before an XML declaration is a document of its own that fails at the
    /// declaration (the declaration starts the next one); the recovery path reads it
    /// whole, and there is nothing in it to keep: recovered, nothing lost. Bytes that are
    /// not markup at all stay a failure.
    func testADocumentOfOnlyCommentsIsReadWhole() throws {
        let data = Array(("<!-- generated -->\n<?pi x?><?xml version=\"1.0\"?>\n"
                          + "<rss version=\"2.0\"><channel><title>T</title><item><title>a</title></item></channel></rss>\n").utf8)
        for backend in FeedBackend.allCases {
            let docs = try documents(data, backend)
            XCTAssertEqual(docs.count, 2, "\(backend)")
            XCTAssertEqual(docs[0].error?.message, "XML or text declaration not at start of entity", "\(backend)")
            XCTAssertEqual(docs[0].error?.recovered, true, "\(backend)")
            XCTAssertEqual(docs[0].items.count, 0, "\(backend)")
            XCTAssertNil(docs[1].error, "\(backend)")
            XCTAssertEqual(titles(docs[1]), ["a"], "\(backend)")
            XCTAssertEqual(try documents(data, backend, strict: true)[0].error?.recovered, false, "strict, \(backend)")
            let text = try documents(Array("<!-- c --> plain words, no markup".utf8), backend)
            XCTAssertEqual(text.first?.error?.recovered, false, "\(backend)")
        }
    }

    /// Undeclared entities are not faults: HTML 4 names decode, other names stay as written.
    func testUndeclaredEntitiesAreKept() throws {
        let data = Array(feed(["a&nbsp;b&eacute; &bogus; c"]).utf8)
        for backend in FeedBackend.allCases {
            for strict in [false, true] {
                let d = try documents(data, backend, strict: strict)[0]
                XCTAssertEqual(titles(d), ["a\u{A0}bé &bogus; c"], "\(backend)")
                XCTAssertNil(d.error, "\(backend)")
            }
        }
    }

    /// Strict parsers keep the items before the failure and nothing after.
    func testStrictKeepsOnlyTheItemsBeforeTheFailure() throws {
        let data = Array(feed(["a", "b & c", "d"]).utf8)
        for backend in FeedBackend.allCases {
            let d = try documents(data, backend, strict: true)[0]
            XCTAssertEqual(titles(d), ["a"], "\(backend)")
            XCTAssertEqual(d.error?.recovered, false, "\(backend)")
        }
    }

    /// The JSON Lines say "recovered" after the error, and the summary counts it apart.
    func testJSONLinesAndSummary() throws {
        let data = Array(feed(["a & b"]).utf8)
        for backend in FeedBackend.allCases {
            let out = try jsonLines(.bytes(data), source: "t", parser: backend.makeParser()).text
            let lines = out.split(separator: "\n")
            XCTAssertEqual(lines.count, 2)
            XCTAssertTrue(lines[0].contains("\"title\":\"a & b\""), "\(backend): \(lines[0])")
            XCTAssertTrue(lines[0].hasSuffix(",\"recovered\":true}"), "\(backend): \(lines[0])")
            XCTAssertTrue(lines[1].hasSuffix("},\"recovered\":true}"), "\(backend): \(lines[1])")
            let summary = try backend.makeParser().parse(.bytes(data), handler: FeedCollector())
            XCTAssertEqual(summary.recoveredDocuments, 1, "\(backend)")
            XCTAssertEqual(summary.failedDocuments, 0, "\(backend)")
            XCTAssertEqual(summary.items, 1, "\(backend)")
            XCTAssertEqual(summary.firstError?.recovered, true, "\(backend)")
        }
    }

    /// Text is never changed without a mark: the item lines the recovery path
    /// wrote carry `"recovered": true`, the items read strictly before the failure do
    /// not. Here a lone UTF-16 surrogate (no character: the strict parse fails there)
    /// becomes U+FFFD in the recovered item, on every backend.
    func testItemsTheRecoveryPathWroteAreMarked() throws {
        let s = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss version=\"2.0\"><channel><title>T</title>"
            + "<item><title>a</title></item><item><title>AB\u{FFFF}XCD</title></item><item><title>c</title></item></channel></rss>"
        let units = s.utf16.map { $0 == 0xFFFF ? 0xD83D : $0 }
        let data = [UInt8]([0xFF, 0xFE]) + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        for backend in FeedBackend.allCases {
            let docs = try documents(data, backend)
            XCTAssertEqual(docs.count, 1, "\(backend)")
            XCTAssertEqual(docs.first.map(titles), ["a", "AB\u{FFFD}XCD", "c"], "\(backend)")
            XCTAssertEqual(docs.first?.items.map(\.isRecovered), [false, true, true], "\(backend)")
            let lines = try jsonLines(.bytes(data), source: "t", parser: backend.makeParser()).text.split(separator: "\n")
            XCTAssertEqual(lines.map { $0.hasSuffix(",\"recovered\":true}") }, [false, true, true, true], "\(backend)")
            // Strict: the item before the failure only, unmarked.
            let strict = try jsonLines(.bytes(data), source: "t", parser: backend.makeParser(strict: true)).text
            XCTAssertFalse(strict.contains("\"recovered\""), "\(backend)")
        }
    }

    /// Property: concatenations of good and broken documents, cut into chunks anywhere,
    /// give the same documents on every backend — but libxml2, whose push parser may
    /// report an error only after reading on, past the next document (the known limit,
    /// docs/CLI.md "The same output however it runs"): there the documents before it are checked.
    func testRandomCutsOfMixedDumps() throws {
        // Reproducible: a fixed sequence of picks (a small LCG), so a failure reruns alike.
        var state: UInt64 = 42
        func pick() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % pieces.count
        }
        let pieces = [feed(["g1", "g2"]), feed(["b1", "x & y", "b3"]),
                      "<rss version=\"2.0\"><channel><title>N</title><item><title>n1</title></itme></channel></rss>",
                      feed(["c1"], declaration: ""), feed(["u1", "1 < 2"])]
        for _ in 0..<6 {
            let dump = Array((0..<5).map { _ in pieces[pick()] }.joined(separator: "\n").utf8)
            let reference = try SwiftFeedParser().documents(from: .bytes(dump))
            for backend in FeedBackend.allCases {
                for size in [1, 2, 3, 5, 64, 4096] {
                    let docs = try backend.makeParser().documents(from: chunkedInput(dump, size))
                    if backend == .libxml2 {
                        let firstError = reference.firstIndex { $0.error != nil } ?? reference.count
                        XCTAssertEqual(Array(docs.prefix(firstError).map(\.outcome)),
                                       Array(reference.prefix(firstError).map(\.outcome)), "libxml2, chunks of \(size)")
                        continue
                    }
                    XCTAssertEqual(docs.map(\.outcome), reference.map(\.outcome), "\(backend), chunks of \(size)")
                }
            }
        }
    }

    /// C: without a hook, a failed document ends as before; with one, the hook gets every
    /// byte of it (to the next document's start) instead of on_document_end.
    func testCRecoverHookGetsTheFailedDocumentsBytes() throws {
        final class Box {
            var ends: [String] = []
            var hooked: [(bytes: String, delivered: Int, message: String)] = []
        }
        let bad = "<rss version=\"2.0\"><channel><title>A</title><item><title>a</title></item><item><title>x</titel></item></channel></rss>"
        let good = "<rss version=\"2.0\"><channel><title>B</title><item><title>b</title></item></channel></rss>"
        let data = Array((bad + good).utf8)
        for backend in [CFS_BACKEND_EXPAT, CFS_BACKEND_LIBXML2] {
            for hook in [false, true] {
                let box = Box()
                var cb = cfs_callbacks()
                cb.on_document_end = { ctx, feed, error in
                    let box = Unmanaged<Box>.fromOpaque(ctx!).takeUnretainedValue()
                    box.ends.append("\(feed!.pointee.document) items=\(feed!.pointee.items_count) \(error == nil ? "ok" : "error")")
                    return 0
                }
                var options = cfs_options()
                cfs_options_init(&options)
                options.backend = backend
                let p = try XCTUnwrap(cfs_parser_create(&options, &cb, Unmanaged.passUnretained(box).toOpaque()))
                defer { cfs_parser_destroy(p) }
                if hook {
                    cfs_parser_set_recover(p, { ctx, bytes, len, delivered, error in
                        let box = Unmanaged<Box>.fromOpaque(ctx!).takeUnretainedValue()
                        box.hooked.append((String(decoding: UnsafeRawBufferPointer(start: bytes, count: len), as: UTF8.self),
                                           delivered, String(cString: error!.pointee.message)))
                        return 0
                    }, 1 << 20)
                }
                _ = data.withUnsafeBytes { cfs_parser_feed(p, $0.baseAddress, $0.count) }
                XCTAssertEqual(cfs_parser_finish(p), CFS_ERR_XML, "\(backend), hook \(hook)")
                if hook {
                    XCTAssertEqual(box.ends, ["2 items=1 ok"], "\(backend)")
                    XCTAssertEqual(box.hooked.count, 1, "\(backend)")
                    XCTAssertEqual(box.hooked.first?.bytes, bad, "\(backend): the whole failed document")
                    XCTAssertEqual(box.hooked.first?.delivered, 1, "\(backend)")
                } else {
                    XCTAssertEqual(box.ends, ["1 items=1 error", "2 items=1 ok"], "\(backend)")
                    XCTAssertTrue(box.hooked.isEmpty)
                }
                XCTAssertEqual(cfs_parser_error(p)?.pointee.document, 1, "\(backend), hook \(hook)")
            }
        }
    }

    /// A broken document that is also hostile costs the recovery path no more than the
    /// limits allow: 100,000 unclosed elements end at the depth limit, marked recovered.
    func testHostileBrokenDocumentsStayWithinTheLimits() throws {
        let deep = "<rss><channel><title>T</title><item><title>a & b</title></item>"
            + String(repeating: "<a x=1>", count: 100_000)
        for backend in FeedBackend.allCases {
            let d = try backend.makeParser().documents(from: .bytes(Array(deep.utf8)))
            XCTAssertEqual(d.count, 1, "\(backend)")
            XCTAssertEqual(titles(d[0]), ["a & b"], "\(backend)")
            XCTAssertEqual(d[0].error?.code, .limitExceeded, "\(backend)")
            XCTAssertEqual(d[0].error?.message, "limit exceeded: element depth 1025 > 1024", "\(backend)")
            XCTAssertEqual(d[0].error?.recovered, true, "\(backend)")
        }
    }

    /// The repair on its own: well-formed XML is left as it is (so the items delivered
    /// before a failure are the re-read's first items).
    func testRepairLeavesWellFormedMarkupAsItIs() throws {
        let good = "<rss xmlns:dc=\"http://purl.org/dc/elements/1.1/\" version=\"2.0\"><channel><title>a &amp; b &#x41; &lt;</title>"
            + "<!-- c --><?pi x?><item><title><![CDATA[<b>x</b>]]></title><dc:creator>A</dc:creator><e a=\"1\" b=\"2\"/></item></channel></rss>"
        let repaired = Array(good.utf8).withUnsafeBytes { XMLRepair.repair($0).xml }
        XCTAssertEqual(String(decoding: repaired, as: UTF8.self), good)
    }
}

extension FeedDocument {
    /// What must not depend on the input's chunking: the records, and the error's code
    /// and recovered mark (libxml2's messages and positions depend on how it was fed).
    struct Outcome: Equatable {
        var feed: Feed
        var items: [FeedItem]
        var code: FeedError.Code?
        var recovered: Bool?
    }

    var outcome: Outcome { Outcome(feed: feed, items: items, code: error?.code, recovered: error?.recovered) }
}
