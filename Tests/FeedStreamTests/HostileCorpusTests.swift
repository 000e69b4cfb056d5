// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// corpus/hostile: every file on every backend gives its documented outcome
/// (corpus/hostile/README.md), the backends agree, and nothing a document points at is
/// read or fetched. The big inputs (a million-deep nesting, a 200 MB text node) are made
/// here, streamed; their memory is measured by the CLI tests (HostileCLITests).
final class HostileCorpusTests: XCTestCase {
    private static let dir = Paths.corpus.appendingPathComponent("hostile")

    private struct Expected {
        var code: FeedError.Code?          // nil: every document is fine
        var message: String? = nil         // when every backend words it the same
        var items: Int
        var line: Int? = nil               // when every backend places it the same
        var column: Int? = nil
    }

    // Items: with the recovery path (docs/SCHEMA.md, "Recovered documents"); a bad byte or a
    // declaration that contradicts the byte order mark does not cost the items after it.
    private static let expected: [String: Expected] = [
        "billion-laughs.xml": Expected(code: .malformedXML, items: 1),
        "quadratic-blowup.xml": Expected(code: .malformedXML,
                                         message: "limit on input amplification factor (from DTD and entities) breached",
                                         items: 1, line: 4),
        "external-entity-file.xml": Expected(code: nil, items: 2),
        "external-entity-url.xml": Expected(code: nil, items: 2),
        "external-dtd-url.xml": Expected(code: nil, items: 2),
        "parameter-entities.xml": Expected(code: nil, items: 2),
        "deep-nesting.xml": Expected(code: .limitExceeded, message: "limit exceeded: element depth 1025 > 1024",
                                     items: 1, line: 3),
        "many-attributes.xml": Expected(code: .limitExceeded, message: "limit exceeded: attributes 1000 > 256",
                                        items: 1, line: 3),
        "invalid-utf8.xml": Expected(code: .malformedXML, items: 2, line: 3, column: 17),
        "overlong-utf8.xml": Expected(code: .malformedXML, items: 2, line: 3, column: 20),
        "nul-bytes.xml": Expected(code: .malformedXML, items: 2, line: 3, column: 17),
        "utf16le-no-bom.xml": Expected(code: nil, items: 1),
        "utf16be-no-bom.xml": Expected(code: nil, items: 1),
        "bom-utf8-declares-utf16.xml": Expected(code: .malformedXML, items: 1, line: 1),
        "bom-utf16le-declares-latin1.xml": Expected(code: .malformedXML, items: 1),
        "html-page.html": Expected(code: .malformedXML, items: 0, line: 2),
        "empty.xml": Expected(code: .empty, message: "empty input: no XML document", items: 0),
        "binary.bin": Expected(code: .malformedXML, items: 0, line: 1, column: 1),
        "gzip-truncated.xml.gz": Expected(code: .gzip, message: "truncated gzip data", items: 127, line: 3),
        "gzip-bad-crc.xml.gz": Expected(code: .gzip, message: "corrupt gzip data", items: 201),
        "gzip-bad-header.xml.gz": Expected(code: .gzip, message: "corrupt gzip data", items: 0),
        "gzip-trailing-garbage.xml.gz": Expected(code: .gzip, message: "trailing garbage after gzip data", items: 201),
    ]

    func testEveryFileIsListedAndDocumented() throws {
        let files = Set(Paths.files(in: Self.dir).map(\.lastPathComponent)).subtracting(["README.md"])
        XCTAssertEqual(files, Set(Self.expected.keys), "corpus/hostile and this test list the same files")
        let readme = try String(contentsOf: Self.dir.appendingPathComponent("README.md"), encoding: .utf8)
        for name in files { XCTAssertTrue(readme.contains("`\(name)`"), "README.md documents \(name)") }
    }

    func testEachFileOnEveryBackend() throws {
        for (name, want) in Self.expected.sorted(by: { $0.key < $1.key }) {
            let path = Self.dir.appendingPathComponent(name).path
            for backend in FeedBackend.allCases {
                let log = EventLog()
                let summary = try backend.makeParser().parse(.file(path: path), handler: log)
                let what = "\(name), \(backend): \(log.errors)"
                XCTAssertEqual(summary.items, want.items, what)
                XCTAssertEqual(log.events.filter { $0.hasPrefix("item") }.count, want.items, what)
                guard let code = want.code else {
                    XCTAssertTrue(summary.succeeded, what)
                    XCTAssertEqual(log.errors, [], what)
                    continue
                }
                XCTAssertEqual(log.errors.count, 1, what)
                let e = try XCTUnwrap(log.errors.first, what)
                XCTAssertEqual(e.code, code, what)
                XCTAssertFalse(e.message.isEmpty, what)
                if let message = want.message { XCTAssertEqual(e.message, message, what) }
                if let line = want.line { XCTAssertEqual(e.line, line, what) }
                if let column = want.column { XCTAssertEqual(e.column, column, what) }
                if code == .malformedXML || code == .limitExceeded {
                    XCTAssertEqual(e.document, 1, what)
                    XCTAssertGreaterThan(e.line, 0, "\(what): a position")
                }
            }
        }
    }

    func testBackendsAgreeOnEveryFile() throws {
        let diff = BackendDiff(backends: FeedBackend.allCases)
        var report = BackendDiff.Report()
        for name in Self.expected.keys.sorted() {
            try diff.compare(.file(path: Self.dir.appendingPathComponent(name).path), source: name, into: &report)
        }
        for d in report.differences.prefix(10) { print(d) }
        XCTAssertEqual(report.differences.count, 0)
    }

    func testEntitiesThatAreNotReadLeaveNothingBehind() throws {
        for name in ["external-entity-file.xml", "external-entity-url.xml", "parameter-entities.xml"] {
            for backend in FeedBackend.allCases {
                let docs = try backend.makeParser().documents(from: .file(path: Self.dir.appendingPathComponent(name).path))
                let title = docs.first?.items.last?.title?.value
                XCTAssertEqual(title, name == "parameter-entities.xml" ? "a from a parameter entity b" : "a  b", "\(name), \(backend)")
                let json = try jsonLines(.file(path: Self.dir.appendingPathComponent(name).path), source: name,
                                         parser: backend.makeParser()).text
                XCTAssertFalse(json.contains("root:"), "\(name), \(backend): /etc/passwd must never be read")
            }
        }
    }

    func testUTF16WithoutAByteOrderMarkIsDecoded() throws {
        for name in ["utf16le-no-bom.xml", "utf16be-no-bom.xml"] {
            for backend in FeedBackend.allCases {
                let docs = try backend.makeParser().documents(from: .file(path: Self.dir.appendingPathComponent(name).path))
                XCTAssertEqual(docs.first?.feed.title?.value, "utf16", "\(name), \(backend)")
                XCTAssertEqual(docs.first?.items.first?.title?.value, "caf\u{e9}", "\(name), \(backend)")
            }
        }
    }

    /// A local file an external entity, external DTD or external parameter entity names
    /// is never read (libxml2 2.9 loads external parameter entities unless told not to).
    func testLocalFilesNamedByTheDocumentAreNeverRead() throws {
        let dtd = FileManager.default.temporaryDirectory.appendingPathComponent("feedstream-hostile-\(getpid()).dtd")
        try "<!ENTITY leak \"LOCAL-FILE-CONTENT\">".write(to: dtd, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: dtd) }
        let body = "<rss version=\"2.0\"><channel><title>t</title><item><title>a &leak; b</title></item></channel></rss>"
        let docs = [
            "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY % ext SYSTEM \"file://\(dtd.path)\"> %ext;]>" + body,
            "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY % ext SYSTEM \"\(dtd.path)\"> %ext;]>" + body,
            "<?xml version=\"1.0\"?><!DOCTYPE rss SYSTEM \"file://\(dtd.path)\">" + body,
            "<?xml version=\"1.0\"?><!DOCTYPE rss PUBLIC \"-//X//Y//EN\" \"\(dtd.path)\">" + body,
        ]
        for doc in docs {
            for backend in FeedBackend.allCases {
                let (text, summary) = try jsonLines(.bytes(bytes(doc)), source: "x", parser: backend.makeParser())
                XCTAssertFalse(text.contains("LOCAL-FILE-CONTENT"), "\(backend): \(doc)")
                XCTAssertTrue(summary.succeeded, "\(backend): \(doc): \(String(describing: summary.firstError))")
                // Never declared as far as the parser knows: kept as written.
                XCTAssertTrue(text.contains("\"title\":\"a &leak; b\""), "\(backend): \(text)")
            }
        }
    }

    /// Nothing is fetched: a listening socket named by every kind of external reference
    /// sees no connection.
    func testNothingIsFetched() throws {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(server, 0)
        defer { close(server) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, len) == 0 && getsockname(server, $0, &len) == 0 }
        }
        XCTAssertTrue(bound)
        XCTAssertEqual(listen(server, 16), 0)
        let url = "http://127.0.0.1:\(UInt16(bigEndian: addr.sin_port))"
        let body = "<rss version=\"2.0\"><channel><title>t</title><item><title>a &e; b</title></item></channel></rss>"
        let docs = [
            "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY e SYSTEM \"\(url)/entity\">]>" + body,
            "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY % p SYSTEM \"\(url)/pe\"> %p; <!ENTITY e \"x\">]>" + body,
            "<?xml version=\"1.0\"?><!DOCTYPE rss SYSTEM \"\(url)/dtd\">" + body,
            "<?xml version=\"1.0\"?><?xml-stylesheet href=\"\(url)/xsl\"?><rss version=\"2.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">"
                + "<channel><title>t</title><xi:include href=\"\(url)/xinclude\"/></channel></rss>",
        ]
        for doc in docs {
            for backend in FeedBackend.allCases {
                _ = try jsonLines(.bytes(bytes(doc)), source: "x", parser: backend.makeParser())
            }
        }
        var pfd = pollfd(fd: server, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pfd, 1, 200), 0, "a backend connected to \(url)")
    }

    func testNamespaceDeclarations() throws {
        // Declared twice on one element: not well-formed, in every backend.
        for dup in ["xmlns:a=\"u1\" xmlns:a=\"u2\"", "xmlns=\"u1\" xmlns=\"u2\""] {
            let doc = "<rss version=\"2.0\" \(dup)><channel><title>t</title></channel></rss>"
            for backend in FeedBackend.allCases {
                let log = EventLog()
                try backend.makeParser().parse(.bytes(bytes(doc)), handler: log)
                XCTAssertEqual(log.errors.map(\.code), [.malformedXML], "\(dup), \(backend)")
            }
        }
        // 20,000 on one element (each prefixed name after it would search them all):
        // the attribute limit, where they are declared.
        var doc = "<rss version=\"2.0\""
        for i in 0..<20_000 { doc += " xmlns:p\(i)=\"urn:\(i)\"" }
        doc += "><channel><title>t</title>" + String(repeating: "<p19999:x/>", count: 20_000) + "</channel></rss>"
        for backend in FeedBackend.allCases {
            let log = EventLog()
            try backend.makeParser().parse(.bytes(bytes(doc)), handler: log)
            XCTAssertEqual(log.errors.map(\.message), ["limit exceeded: attributes 20001 > 256"], "\(backend)")
        }
    }

    func testAMillionDeepStopsAtTheDepthLimit() throws {
        var doc = bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><item><title>kept</title></item>")
        doc.reserveCapacity(7_100_000)
        for _ in 0..<1_000_000 { doc += [0x3C, 0x61, 0x3E] }
        for _ in 0..<1_000_000 { doc += [0x3C, 0x2F, 0x61, 0x3E] }
        doc += bytes("</channel></rss>\n") + bytes(rss("after", items: 1))
        for backend in FeedBackend.allCases {
            let log = EventLog()
            let summary = try backend.makeParser().parse(.bytes(doc), handler: log)
            XCTAssertEqual(log.errors.map(\.message), ["limit exceeded: element depth 1025 > 1024"], "\(backend)")
            XCTAssertEqual(summary.items, 2, "\(backend): the item before, and the next document's")
            XCTAssertEqual(summary.documents, 2, "\(backend)")
        }
    }

    func testHugeCommentsTagsAndCDATAStopAtTheMarkupLimit() throws {
        // Held whole, they would cost their size in memory and (expat rescanning an
        // unfinished token at every chunk) quadratic time: 7 minutes for 300 MB.
        let head = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><item><title>kept</title></item>"
        for (n, (open, close)) in [("<!--", "-->"), ("<x a=\"", "\"/>"), ("<x><![CDATA[", "]]></x>")].enumerated() {
            for backend in TestSample.take(FeedBackend.allCases, offset: n) {
                let source = TextNode(head: bytes(head + open), size: 300_000_000, tail: bytes(close + "</channel></rss>\n"))
                let log = EventLog()
                let summary = try backend.makeParser().parse(.chunks(FeedChunks { source.next() }), handler: log)
                XCTAssertEqual(log.errors.map(\.message), ["limit exceeded: markup construct > 8388608 bytes"], "\(open) \(backend)")
                XCTAssertEqual(summary.items, 1, "\(open) \(backend)")
            }
        }
    }

    func testA200MBTextNodeIsStreamedOrRefused() throws {
        // In a kept field: refused at the field limit. In an extension element (one no
        // rule reads): kept up to the field limit, then skipped, streamed, never held, and
        // the document is fine. 200 MB pass through each backend.
        for kept in [true, false] {
            for backend in TestSample.take(FeedBackend.allCases, offset: kept ? 0 : 1) {
                let open = kept ? "<item><title>big</title><description>" : "<item><title>big</title><x>"
                let close = kept ? "</description></item>" : "</x></item>"
                let source = TextNode(head: bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>" + open),
                                      size: 200_000_000, tail: bytes(close + "</channel></rss>\n"))
                let log = EventLog()
                let summary = try backend.makeParser().parse(.chunks(FeedChunks { source.next() }), handler: log)
                if kept {
                    XCTAssertEqual(log.errors.map(\.message), ["limit exceeded: field text > 8388608 bytes"], "\(backend)")
                    XCTAssertEqual(summary.items, 0)
                } else {
                    XCTAssertEqual(log.errors, [], "\(backend)")
                    XCTAssertEqual(summary.items, 1)
                    XCTAssertEqual(summary.bytesXML, UInt64(source.total), "\(backend)")
                }
            }
        }
    }
}

/// A document with one text node of `size` bytes, handed out in 256 KiB pieces.
private final class TextNode: @unchecked Sendable {
    private let head: UnsafeMutableRawBufferPointer, tail: UnsafeMutableRawBufferPointer
    private let size: Int
    private var sent = 0
    private let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
    var total: Int { head.count + size + tail.count }

    init(head: [UInt8], size: Int, tail: [UInt8]) {
        self.head = .allocate(byteCount: head.count, alignment: 1)
        self.head.copyBytes(from: head)
        self.tail = .allocate(byteCount: tail.count, alignment: 1)
        self.tail.copyBytes(from: tail)
        self.size = size
        let pattern = Array("0123456789abcdef ".utf8)
        for i in 0..<block.count { block[i] = pattern[i % pattern.count] }
    }

    deinit {
        block.deallocate()
        head.deallocate()
        tail.deallocate()
    }

    func next() -> UnsafeRawBufferPointer? {
        defer { sent += 1 }
        let textChunks = (size + block.count - 1) / block.count
        switch sent {
        case 0: return UnsafeRawBufferPointer(head)
        case 1...textChunks:
            let n = sent == textChunks ? size - (textChunks - 1) * block.count : block.count
            return UnsafeRawBufferPointer(start: block.baseAddress, count: n)
        case textChunks + 1: return UnsafeRawBufferPointer(tail)
        default: return nil
        }
    }
}
