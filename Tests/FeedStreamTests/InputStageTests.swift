// SPDX-License-Identifier: Apache-2.0
import CFeedStream
import FeedStream
import Foundation
import XCTest

/// The input stage: gzip by content, multi-member gzip, concatenated documents, chunk
/// boundaries anywhere, recovery after a broken document, and stream-level errors.
final class InputStageTests: XCTestCase {
    private func events(_ input: FeedInput) throws -> (EventLog, ParseSummary) {
        let log = EventLog()
        let summary = try ExpatFeedParser().parse(input, handler: log)
        return (log, summary)
    }

    func testGzipIsDetectedByContentAndGivesTheSameEvents() throws {
        let doc = bytes(rss("a", items: 3))
        let (plain, _) = try events(.bytes(doc))
        let (gz, summary) = try events(.bytes(gzip(doc)))
        XCTAssertEqual(gz.events, plain.events)
        XCTAssertEqual(summary.bytesXML, UInt64(doc.count))
        XCTAssertTrue(summary.succeeded)
    }

    func testMultiMemberGzipAndConcatenatedDocuments() throws {
        // Three documents: two in one member, one in a second member; the last has
        // no XML declaration.
        let input = gzip(bytes(rss("a", items: 2) + rss("b", items: 1))) + gzip(bytes(rss("c", items: 2, declaration: false)))
        let (log, summary) = try events(.bytes(input))
        XCTAssertEqual(summary.documents, 3)
        XCTAssertEqual(summary.items, 5)
        XCTAssertTrue(summary.succeeded)
        XCTAssertEqual(log.events.filter { $0.hasPrefix("feed") }, [
            "feed 1 rss20 title=a items=2", "feed 2 rss20 title=b items=1", "feed 3 rss20 title=c items=2",
        ])
    }

    func testBrokenDocumentInADumpCostsOnlyItself() throws {
        let broken = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>bad</title>"
            + "<item><title>kept</title><guid>bad-0</guid></item><item><title>lost</wrong></item></channel></rss>\n"
        let dump = rss("a", items: 2) + broken + rss("c", items: 1)
        for input in [FeedInput.bytes(bytes(dump)), .bytes(gzip(bytes(dump)))] {
            let (log, summary) = try events(input)
            XCTAssertEqual(summary.documents, 3)
            XCTAssertEqual(summary.failedDocuments, 0)
            XCTAssertEqual(summary.recoveredDocuments, 1)
            // 2 + the one completed before the error + the one after it (recovered) + 1.
            XCTAssertEqual(summary.items, 5)
            XCTAssertEqual(log.errors.count, 1)
            let e = try XCTUnwrap(log.errors.first)
            XCTAssertEqual(e.code, .malformedXML)
            XCTAssertEqual(e.document, 2)
            XCTAssertEqual(e.line, 1)
            XCTAssertEqual(e.message, "mismatched tag")
            XCTAssertTrue(log.events.contains("item 2.0 id=bad-0 title=kept"))
            XCTAssertTrue(log.events.contains("item 2.1 id=- title=lost"), "\(log.events)")
            XCTAssertTrue(log.events.contains("feed 3 rss20 title=c items=1"))
            // The feed info of the broken document arrives before its failure.
            let feedIndex = try XCTUnwrap(log.events.firstIndex(of: "feed 2 rss20 title=bad items=2"))
            XCTAssertEqual(log.events[feedIndex + 1], "fail 2 xml")
        }
    }

    func testMiscAfterTheRootBelongsToTheDocumentThatEnded() throws {
        // Comments and processing instructions after a root element (a cache's
        // "generated in" note, a stray PHP tag) are not another document; an XML
        // declaration is, even right after a comment.
        let dump = rss("a", items: 1) + "\n<!-- generated in 0.2 s -- cached -->\n<?php echo 1 ?><?xml-stylesheet href=\"s\"?>"
            + rss("b", items: 2) + "<!--x-->" + rss("c", items: 1, declaration: false) + "\n<!-- end -->\n"
        for backend in FeedBackend.allCases {
            for input in [FeedInput.bytes(bytes(dump)), .bytes(gzip(bytes(dump)))] {
                let log = EventLog()
                let summary = try backend.makeParser().parse(input, handler: log)
                XCTAssertEqual(summary.documents, 3, "\(backend)")
                XCTAssertEqual(summary.items, 4, "\(backend)")
                XCTAssertTrue(summary.succeeded, "\(backend): \(String(describing: summary.firstError))")
            }
            // What is not Misc still starts a document, and its error is reported.
            let log = EventLog()
            let summary = try backend.makeParser().parse(.bytes(bytes(rss("a", items: 1) + "\n<")), handler: log)
            XCTAssertEqual(summary.documents, 2, "\(backend)")
            XCTAssertEqual(log.errors.map(\.document), [2], "\(backend)")
        }
    }

    func testTruncatedGzipKeepsWhatWasParsed() throws {
        let gz = gzip(bytes(rss("a", items: 50)))
        let (log, summary) = try events(.bytes(Array(gz[0..<(gz.count * 2 / 3)])))
        XCTAssertGreaterThan(summary.items, 0)
        XCTAssertEqual(summary.firstError?.code, .gzip)
        XCTAssertEqual(log.errors.map(\.code), [.gzip])
        XCTAssertEqual(log.errors.first?.message, "truncated gzip data")
        XCTAssertGreaterThan(log.errors.first?.line ?? 0, 0)
    }

    func testCorruptGzipIsReported() throws {
        var gz = gzip(bytes(rss("a", items: 50)))
        for i in 20..<60 { gz[i] ^= 0x5A }
        let (log, summary) = try events(.bytes(gz))
        XCTAssertFalse(summary.succeeded)
        XCTAssertEqual(log.errors.last?.code, .gzip)
    }

    func testEmptyAndWhitespaceInputs() throws {
        for input in ["", "  \n\t "] {
            let (log, summary) = try events(.bytes(bytes(input)))
            XCTAssertEqual(summary.documents, 0)
            XCTAssertEqual(log.errors.map(\.code), [.empty])
        }
    }

    func testNotAFeed() throws {
        let (log, summary) = try events(.bytes(bytes("<html><body><p>hi</p></body></html>")))
        XCTAssertEqual(summary.documents, 1)
        XCTAssertEqual(log.errors.map(\.code), [.notAFeed])
    }

    func testUnreadableFile() throws {
        let (log, summary) = try events(.file(path: "/nonexistent/feed.xml"))
        XCTAssertEqual(summary.firstError?.code, .io)
        XCTAssertEqual(log.errors.map(\.code), [.io])
    }

    func testHandlerErrorStopsTheParseAndIsRethrown() throws {
        struct Stop: Error {}
        final class Stopper: FeedHandler {
            var seen = 0
            func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
                seen += 1
                if seen == 2 { throw Stop() }
            }
        }
        let stopper = Stopper()
        let parser = ExpatFeedParser()
        XCTAssertThrowsError(try parser.parse(.bytes(bytes(rss("a", items: 5))), handler: stopper)) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(stopper.seen, 2)
        // The parser is reusable afterwards.
        let (log, _) = (EventLog(), ())
        try parser.parse(.bytes(bytes(rss("b", items: 1))), handler: log)
        XCTAssertEqual(log.events.last, "finish 1")
    }

    func testSeveralHandlersListenAtOnce() throws {
        let a = EventLog(), b = EventLog()
        try ExpatFeedParser().parse(.bytes(bytes(rss("a", items: 2))), handler: FeedHandlerGroup(a, b))
        XCTAssertEqual(a.events, b.events)
        XCTAssertEqual(a.events.count, 5)
    }

    func testCompletionAPI() throws {
        var result: Result<[FeedDocument], FeedError>?
        ExpatFeedParser().parse(.bytes(bytes(rss("a", items: 2)))) { result = $0 }
        XCTAssertEqual(try result?.get().first?.items.count, 2)
        ExpatFeedParser().parse(.bytes([])) { result = $0 }
        if case .failure(let error) = result { XCTAssertEqual(error.code, .empty) } else { XCTFail("no failure") }
    }

    // MARK: The C API, chunk by chunk

    /// Feeds `data` to the C parser in chunks of `size` and returns a transcript.
    private func transcript(_ data: [UInt8], chunk size: Int, stopAfterItems: Int = .max,
                            backend: cfs_backend = CFS_BACKEND_EXPAT) -> [String] {
        final class Box {
            var lines: [String] = []
            var stopAfter = Int.max
        }
        let box = Box()
        box.stopAfter = stopAfterItems
        func s(_ span: cfs_span) -> String {
            span.ptr == nil ? "-" : String(decoding: UnsafeRawBufferPointer(start: span.ptr, count: span.len), as: UTF8.self)
        }
        var cb = cfs_callbacks()
        cb.on_item = { ctx, item, feed in
            let box = Unmanaged<Box>.fromOpaque(ctx!).takeUnretainedValue()
            let it = item!.pointee
            func s(_ span: cfs_span) -> String {
                span.ptr == nil ? "-" : String(decoding: UnsafeRawBufferPointer(start: span.ptr, count: span.len), as: UTF8.self)
            }
            let fields = withUnsafeBytes(of: it.record.fields) { Array($0.bindMemory(to: cfs_span.self)) }
            func f(_ x: cfs_field) -> String { s(fields[Int(x.rawValue)]) }
            box.lines.append("item \(feed!.pointee.document).\(it.index) \(f(CFS_FIELD_ID)) \(f(CFS_FIELD_TITLE)) \(f(CFS_FIELD_SUMMARY)) \(f(CFS_FIELD_CONTENT))")
            return box.lines.count >= box.stopAfter ? 1 : 0
        }
        cb.on_document_end = { ctx, feed, error in
            let box = Unmanaged<Box>.fromOpaque(ctx!).takeUnretainedValue()
            let f = feed!.pointee
            let e = error.map { "\(String(cString: $0.pointee.message)) @\($0.pointee.line):\($0.pointee.column)" } ?? "ok"
            box.lines.append("doc \(f.document) \(String(cString: cfs_format_name(f.format))) items=\(f.items_count) \(e)")
            return 0
        }
        var options = cfs_options()
        cfs_options_init(&options)
        options.backend = backend
        let p = cfs_parser_create(&options, &cb, Unmanaged.passUnretained(box).toOpaque())!
        defer { cfs_parser_destroy(p) }
        var status = CFS_OK
        data.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count && status == CFS_OK {
                let n = min(size, buf.count - off)
                status = cfs_parser_feed(p, buf.baseAddress! + off, n)
                off += n
            }
        }
        let fin = cfs_parser_finish(p)
        box.lines.append("status feed=\(status.rawValue) finish=\(fin.rawValue)")
        return box.lines
    }

    func testChunkBoundariesAnywhereGiveTheSameResult() throws {
        // Multi-byte UTF-8, entities, CDATA and tags all get split by small chunks.
        let doc = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Ch</title>
            <item><title>Caf&#233; &amp; 日本語 😀</title><guid>g1</guid><description><![CDATA[<p>cdata</p>]]></description>
            <content:encoded>&lt;b&gt;x&lt;/b&gt;</content:encoded></item>
            <item><title>second</title><guid isPermaLink="false">g2</guid></item></channel></rss>
            """
        let broken = "<?xml version=\"1.0\"?><rss><channel><item><title>t</title></item><item></oops></channel></rss>"
        let input = bytes(doc + "\n" + broken + "\n" + rss("z", items: 1))
        let gz = gzip(input)
        for backend in [CFS_BACKEND_EXPAT, CFS_BACKEND_LIBXML2] {
            let reference = transcript(input, chunk: input.count, backend: backend)
            XCTAssertEqual(reference.filter { $0.hasPrefix("doc") }.count, 3, reference.joined(separator: "\n"))
            XCTAssertTrue(reference.contains("item 1.0 g1 Caf\u{e9} & 日本語 😀 <p>cdata</p> <b>x</b>"),
                          reference.joined(separator: "\n"))
            // Items, and which documents failed, agree across backends (error wording is each tokenizer's).
            let shape = { (t: [String]) in t.map { $0.hasPrefix("doc") ? String($0.prefix(while: { $0 != "@" }).split(separator: " ").prefix(4).joined(separator: " ")) : $0 } }
            XCTAssertEqual(shape(reference), shape(transcript(input, chunk: input.count)), "backend \(backend.rawValue)")
            for size in [1, 2, 3, 7, 64, 65536] {
                XCTAssertEqual(transcript(input, chunk: size, backend: backend), reference, "plain, chunk \(size), backend \(backend.rawValue)")
                XCTAssertEqual(transcript(gz, chunk: size, backend: backend), reference, "gzip, chunk \(size), backend \(backend.rawValue)")
            }
        }
    }

    func testStoppingInsideACallback() throws {
        let input = bytes(rss("a", items: 10))
        for size in [1, 5, 1 << 20] {
            for backend in [CFS_BACKEND_EXPAT, CFS_BACKEND_LIBXML2] {
            let t = transcript(input, chunk: size, stopAfterItems: 3, backend: backend)
            XCTAssertEqual(t.filter { $0.hasPrefix("item") }.count, 3)
            XCTAssertEqual(t.last, "status feed=\(CFS_ERR_ABORTED.rawValue) finish=\(CFS_ERR_ABORTED.rawValue)")
            }
        }
    }

    /// A callback stops the parser at an item that lies before a corruption of the gzip
    /// stream: the stop is what the caller gets, whether the corrupt bytes came in the
    /// same call or later (fuzzing found the one-call feed returning the gzip error).
    func testAStopBeforeCorruptGzipIsTheStatusWhateverTheChunks() throws {
        var gz = gzip(bytes(rss("a", items: 40)))
        gz[gz.count / 2] ^= 0xFF   // deflate data corrupted after the first items' bytes
        gz[gz.count / 2 + 1] ^= 0x5A
        for backend in [CFS_BACKEND_EXPAT, CFS_BACKEND_LIBXML2] {
            for size in [7, 64, 1 << 20] {
                let t = transcript(gz, chunk: size, stopAfterItems: 1, backend: backend)
                XCTAssertEqual(t.filter { $0.hasPrefix("item") }.count, 1, "chunk \(size): \(t)")
                XCTAssertEqual(t.last, "status feed=\(CFS_ERR_ABORTED.rawValue) finish=\(CFS_ERR_ABORTED.rawValue)",
                               "chunk \(size), backend \(backend.rawValue)")
            }
        }
    }

    // MARK: Hostile input

    func testExternalEntitiesAreNeverLoaded() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("feedstream-secret-\(getpid()).txt")
        try "TOP-SECRET-CONTENT".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let doc = """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY xxe SYSTEM "file://\(secret.path)">]>
            <rss version="2.0"><channel><title>t</title><item><title>a &xxe; b</title><guid>1</guid></item></channel></rss>
            """
        for backend in FeedBackend.allCases {
            let (text, summary) = try jsonLines(.bytes(bytes(doc)), source: "xxe", parser: backend.makeParser())
            XCTAssertFalse(text.contains("TOP-SECRET"), "\(backend): \(text)")
            XCTAssertEqual(summary.items, 1, "\(backend)")
        }
        // An external DTD is not fetched either.
        let dtd = "<?xml version=\"1.0\"?><!DOCTYPE rss SYSTEM \"file://\(secret.path)\"><rss version=\"2.0\"><channel><title>t</title></channel></rss>"
        for backend in FeedBackend.allCases {
            let (text, summary) = try jsonLines(.bytes(bytes(dtd)), source: "dtd", parser: backend.makeParser())
            XCTAssertFalse(text.contains("TOP-SECRET"), "\(backend): \(text)")
            XCTAssertTrue(summary.succeeded, "\(backend)")
        }
    }

    func testBillionLaughsIsRefusedWithBoundedMemory() throws {
        var dtd = "<!ENTITY l0 \"haha\">"
        for i in 1...12 { dtd += "<!ENTITY l\(i) \"" + String(repeating: "&l\(i - 1);", count: 10) + "\">" }
        let doc = "<?xml version=\"1.0\"?><!DOCTYPE rss [\(dtd)]><rss version=\"2.0\"><channel><title>&l12;</title></channel></rss>"
        for backend in FeedBackend.allCases {
            let log = EventLog()
            let summary = try backend.makeParser().parse(.bytes(bytes(doc)), handler: log)
            XCTAssertFalse(summary.succeeded, "\(backend)")
            XCTAssertEqual(log.errors.first?.code, .malformedXML, "\(backend)")
            XCTAssertFalse(log.errors.first?.message.isEmpty ?? true, "\(backend)")
            print("billion laughs, \(backend): \(log.errors.first.map(String.init(describing:)) ?? "-")")
        }
    }
}
