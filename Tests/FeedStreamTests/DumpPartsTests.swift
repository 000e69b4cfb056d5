// SPDX-License-Identifier: Apache-2.0
@testable import FeedStreamCore
@testable import FeedStreamSwift
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation
import FeedStreamTestSupport
import XCTest

/// A dump cut at `<?xml` declarations (DocumentSplitter) and parsed part by part
/// (DumpParts) gives, byte for byte, the JSON Lines and the summary of one parse of the
/// whole dump: every backend, strict or not, any part size, dumps with and without
/// declarations, with broken documents and with `<?xml` where no document starts.
final class DumpPartsTests: XCTestCase {
    // MARK: The splitter

    private func cuts(_ s: String, minimum: UInt64 = 1, chunk: Int? = nil) -> [UInt64] {
        let bytes = Array(s.utf8)
        var splitter = DocumentSplitter(minimumPartBytes: minimum)
        var out: [UInt64] = []
        let size = chunk ?? max(1, bytes.count)
        var i = 0
        while i < bytes.count {
            let piece = Array(bytes[i..<min(bytes.count, i + size)])
            out += piece.withUnsafeBytes { splitter.scan($0) }
            i += size
        }
        XCTAssertEqual(splitter.offset, UInt64(bytes.count))
        return out
    }

    func testCutsAtDeclarationsWithTheirDelimitersOnly() {
        let s = "<?xml version=\"1.0\"?><a/>\n<?xml\tv?><b/><?xml-stylesheet x?><?xmlx?><?xml?><?xm <<?xml\n<?XML "
        // Offsets of "<?xml" followed by space, tab, LF, CR or '?'; never at 0.
        let expected: [UInt64] = [26, 67, 80]
        XCTAssertEqual(cuts(s), expected)
        for size in 1...9 { XCTAssertEqual(cuts(s, chunk: size), expected, "chunks of \(size)") }
        XCTAssertEqual(cuts(s, minimum: 40), [67])
        XCTAssertEqual(cuts(s, minimum: 27), [67], "at least the minimum after the start, then after each cut")
        XCTAssertEqual(cuts(s, minimum: 26), [26, 67])
        XCTAssertEqual(cuts("<rss/><rss/><feed/>"), [], "no declarations, no cut")
        XCTAssertEqual(cuts("<?xml"), [], "no delimiter yet")
        // Right after a UTF-8 byte order mark, at the mark: the document begins there
        // (found by fuzz_parts: its columns counted from the '<' in a part).
        let marked = "<a/>\n\u{FEFF}<?xml v?><b/>\u{FEFF} <?xml v?>\u{FEFF}"
        for size in 1...9 { XCTAssertEqual(cuts(marked, chunk: size), [5, 25], "chunks of \(size)") }
        XCTAssertEqual(cuts("\u{FEFF}<?xml v?><b/>"), [], "never at 0")
        // In gzip, no cut with a ratio checkpoint within its probe's bytes.
        let grid = UInt64(InputStage.chunkSize)
        XCTAssertTrue(DumpParts.cutKeepsTheRatioWindow(0))
        XCTAssertTrue(DumpParts.cutKeepsTheRatioWindow(grid), "a checkpoint at the cut: before either parser begins")
        XCTAssertFalse(DumpParts.cutKeepsTheRatioWindow(grid - 3))
        XCTAssertTrue(DumpParts.cutKeepsTheRatioWindow(grid - UInt64(DocumentSplitter.probeBytes) - 1))
    }

    // MARK: Parts equal the whole

    /// Documents with declarations, written as dumps are.
    private static let corpusDocuments: [String] = {
        Paths.files(in: Paths.corpus.appendingPathComponent("feeds"), extensions: ["xml"])
            .filter { $0.lastPathComponent != "dump-three.xml" }
            .compactMap { try? String(contentsOf: $0, encoding: .utf8) }
            .filter { $0.hasPrefix("<?xml") }
    }()

    /// The same documents without their declarations.
    private static var undeclared: [String] {
        corpusDocuments.map { d in
            guard let end = d.range(of: "?>") else { return d }
            return String(d[end.upperBound...])
        }
    }

    private static let rss = "<rss version=\"2.0\"><channel><title>T</title><item><title>i</title></item>"

    /// Where `<?xml` is no document start, and broken documents around declarations.
    private static let tricky: [String] = [
        "<?xml version=\"1.0\"?>\(rss)<item><title>cdata</title><description><![CDATA[ <?xml version=\"1.0\"?><x/> ]]>"
            + "</description></item></channel></rss>\n",
        "<!-- <?xml version=\"1.0\"?> in a comment between documents -->\n",
        "<?pi <?xml version=\"1.0\"?> in a processing instruction ?>\n",
        "<?xml-stylesheet type=\"text/xsl\" href=\"s.xsl\"?>\n",
        "<?xml version=\"1.0\"?>\(rss)<item><title>broken</title></itm></channel></rss>\n",
        "<?xml version=\"1.0\"?>\(rss)<item><title>left open</title></item>\n",
        "<?xml version=\"1.0\"?>\(rss)<?xml version=\"1.0\"?><item><title>misplaced</title></item></channel></rss>\n",
        "junk text between documents\n",
        "<?xml version=\"1.0\"?><html><body><p>not a feed</p></body></html>\n",
        "<rss version=\"2.0\"><channel><title>undeclared</title><item><title>u</title></item></channel></rss>\n",
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\(rss)<item><title>caf\u{E9}</title></item></channel></rss>\n",
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>bare & amp</title></channel></rss>\n",
        "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>A</title><entry><title>e</title>",
        "<?xml version=\"1.0\"?><rss><channel><title>after the cut-short entry</title></channel></rss>",
        "\u{FEFF}<?xml version=\"1.0\"?>\(rss)<item><title>after a byte order mark</title></item></channel></rss>\n",
        "\u{FEFF}<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>marked & broken</title></channel></rss>\n",
        // libxml2 places this error at the end of the end tag, the declaration's first
        // byte, where the search resumes after it: the cut there does not hold (found by
        // fuzz_parts: the part's parser began a document at the declaration).
        "<?xml version=\"1.0\"?>\(rss)<subtitle>mismatched</guid>",
    ]

    private func dump(_ documents: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for d in documents {
            // The ISO-8859-1 document in its own encoding.
            if d.contains("ISO-8859-1") { bytes += d.unicodeScalars.map { UInt8($0.value) } } else { bytes += Array(d.utf8) }
        }
        return bytes
    }

    private func whole(_ stream: [UInt8], _ parser: any FeedParser) throws -> (lines: [UInt8], summary: ParseSummary) {
        let out = MemoryOutput()
        let writer = JSONLinesWriter(output: out)
        writer.source = "dump.xml"
        let summary = try parser.parse(.bytes(stream), handler: writer)
        try writer.flush()
        return (out.bytes, summary)
    }

    private func assertPartsEqualWhole(_ name: String, _ stream: [UInt8], expectParts: ClosedRange<Int>? = nil,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        for backend in FeedBackend.allCases {
            for strict in [false, true] {
                let parser = backend.makeParser(strict: strict)
                let expected = try whole(stream, parser)
                XCTAssertGreaterThan(expected.summary.documents, 0, file: file, line: line)
                for minimum: UInt64 in [1, 100, 2_000, 1 << 30] {
                    let got = try stream.withUnsafeBytes {
                        try DumpParts.convertSequentially($0, minimumPartBytes: minimum, parser: parser, source: "dump.xml")
                    }
                    let label = "\(name), \(backend)\(strict ? " strict" : ""), parts of at least \(minimum) bytes"
                    if got.lines != expected.lines {
                        let a = String(decoding: got.lines, as: UTF8.self).split(separator: "\n")
                        let b = String(decoding: expected.lines, as: UTF8.self).split(separator: "\n")
                        let k = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                        XCTFail("\(label): line \(k + 1) differs:\n  parts: \(k < a.count ? a[k] : "(none)")\n"
                                + "  whole: \(k < b.count ? b[k] : "(none)")", file: file, line: line)
                    }
                    XCTAssertEqual(got.summary, expected.summary, label, file: file, line: line)
                    if minimum == 1 << 30 { XCTAssertEqual(got.parts, 1, label, file: file, line: line) }
                    if minimum <= 100 {
                        for jobs in [2, 4] {
                            let parallel = try stream.withUnsafeBytes {
                                try DumpParts.convertParallel($0, minimumPartBytes: minimum, jobs: jobs,
                                                              makeParser: { backend.makeParser(strict: strict) },
                                                              source: "dump.xml")
                            }
                            XCTAssertTrue(parallel.lines == expected.lines, "\(label), \(jobs) threads", file: file, line: line)
                            XCTAssertEqual(parallel.summary, expected.summary, "\(label), \(jobs) threads", file: file, line: line)
                            XCTAssertEqual(parallel.parts, got.parts, "\(label), \(jobs) threads", file: file, line: line)
                        }
                    }
                    if minimum == 1, let expectParts {
                        XCTAssertTrue(expectParts.contains(got.parts), "\(label): \(got.parts) parts", file: file, line: line)
                    }
                }
            }
        }
    }

    /// A `.gz` dump's stream inflated on one thread (``ChunkReader``, as `convert`
    /// reads a big `.gz`): the stream, and the compressed counts at its ratio checkpoints.
    private func inflate(_ gz: [UInt8]) throws -> (stream: [UInt8], checkpoints: DumpParts.Checkpoints) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString).gz").path
        try Data(gz).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let reader = ChunkReader(fd: fd, inflate: true)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: InputStage.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var stream: [UInt8] = []
        var counts: [UInt64] = [0]
        while case let n = reader.read(into: buffer), n > 0 {
            stream += buffer[0..<n]
            if stream.count % InputStage.chunkSize == 0 { counts.append(try XCTUnwrap(reader.compressed)) }
        }
        XCTAssertNil(reader.failure)
        return (stream, DumpParts.Checkpoints(counts: counts))
    }

    /// The decompression ratio in parts (one `.gz` dump on every core): each
    /// part's parser checks it at the whole stream's checkpoints with the whole stream's
    /// counts (``InflatedOrigin``), so a bomb among the documents stops the parts where
    /// one parser of the `.gz` stops, on every backend, and nothing after it comes out.
    func testGzipPartsStopAtTheRatioWhereTheWholeStreamStops() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise(_ n: Int) -> String {
            Data((0..<n).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            }).base64EncodedString()
        }
        func document(_ title: String, _ items: [String]) -> String {
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title>"
                + items.map { "<item><title>\($0)</title></item>" }.joined() + "</channel></rss>\n"
        }
        var xml = Array(document("noise", [noise(400_000), noise(300_000)]).utf8)
        for k in 1...3 { xml += Array(document("before \(k)", ["a", noise(100_000)]).utf8) }
        xml += Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>bomb</title>".utf8)
        let filler = String(repeating: " ", count: 10_000)
        for i in 0..<1_800 { xml += Array("<item><title>b</title><guid>\(i)</guid></item>\(filler)".utf8) }
        xml += Array("</channel></rss>\n".utf8)
        for k in 1...2 { xml += Array(document("after \(k)", ["z"]).utf8) }
        let gz = gzip(xml)
        let (stream, checkpoints) = try inflate(gz)
        XCTAssertEqual(stream, xml)
        let limits = { var l = FeedLimits(); l.maxRatio = 50; return l }()
        for backend in FeedBackend.allCases {
            let expected = try whole(gz, backend.makeParser(limits: limits))
            let text = String(decoding: expected.lines, as: UTF8.self)
            // The whole stream's own figures: the bomb, document 5, stopped past the
            // activation (16 MiB of it); the documents after it never read.
            XCTAssertEqual(expected.summary.firstError?.message, "limit exceeded: decompression ratio > 50", "\(backend)")
            XCTAssertEqual(expected.summary.firstError?.document, 5, "\(backend)")
            XCTAssertFalse(text.contains("after 1"), "\(backend)")
            let bombItems = text.split(separator: "\n").filter { $0.contains("\"document\":5,\"index\"") }.count
            XCTAssertTrue((1_500...1_800).contains(bombItems), "\(backend): \(bombItems) items of the bomb")
            for minimum: UInt64 in [1, 500_000] {
                let label = "\(backend), parts of at least \(minimum) bytes"
                let parser = backend.makeParser(limits: limits)
                let got = try stream.withUnsafeBytes {
                    try DumpParts.convertSequentially($0, minimumPartBytes: minimum, gzip: checkpoints, parser: parser,
                                                      source: "dump.xml")
                }
                XCTAssertGreaterThan(got.parts, 1, label)
                XCTAssertTrue(got.lines == expected.lines, "\(label):\n\(String(decoding: got.lines.suffix(400), as: UTF8.self))")
                var summary = got.summary
                summary.bytesIn = expected.summary.bytesIn   // the parts count uncompressed bytes
                XCTAssertEqual(summary, expected.summary, label)
                let parallel = try stream.withUnsafeBytes {
                    try DumpParts.convertParallel($0, minimumPartBytes: minimum, jobs: 3, gzip: checkpoints,
                                                  makeParser: { backend.makeParser(limits: limits) }, source: "dump.xml")
                }
                XCTAssertTrue(parallel.lines == expected.lines, "\(label), 3 threads")
            }
            // Without the checkpoints the parts are plain XML: no ratio, every document out
            // (what the origin is for).
            let plain = try stream.withUnsafeBytes {
                try DumpParts.convertSequentially($0, minimumPartBytes: 1, parser: backend.makeParser(limits: limits),
                                                  source: "dump.xml")
            }
            XCTAssertTrue(String(decoding: plain.lines, as: UTF8.self).contains("after 2"), "\(backend)")
        }
    }

    func testDumpWithDeclarations() throws {
        let docs = Self.corpusDocuments
        XCTAssertGreaterThan(docs.count, 10)
        // Every cut holds: one part per document.
        try assertPartsEqualWhole("declared", dump(docs.map { $0 + "\n" }), expectParts: docs.count...docs.count)
    }

    func testDumpWithoutDeclarationsIsOnePart() throws {
        try assertPartsEqualWhole("undeclared", dump(Self.undeclared.map { $0 + "\n" }), expectParts: 1...1)
    }

    func testBrokenDocumentsAndDeclarationsWhereNoDocumentStarts() throws {
        let docs = Self.corpusDocuments
        var mixed: [String] = []
        for (i, t) in Self.tricky.enumerated() {
            mixed.append(docs[i % docs.count] + "\n")
            mixed.append(t)
        }
        try assertPartsEqualWhole("tricky", dump(mixed))
        // Each tricky piece alone between two good documents, so that a wrong cut next
        // to it is not hidden by another.
        for (i, t) in Self.tricky.enumerated() {
            try assertPartsEqualWhole("tricky \(i)", dump([docs[0] + "\n", t, docs[1] + "\n"]))
        }
        // A `<?xml` in CDATA, in a comment and in a processing instruction is proposed
        // as a cut and does not hold; the declarations of real documents do.
        for (i, declarations) in [(0, 2), (1, 1), (2, 1)] {   // declarations after the first document
            let stream = dump([docs[0] + "\n", Self.tricky[i], docs[1] + "\n"])
            let got = try stream.withUnsafeBytes {
                try DumpParts.convertSequentially($0, minimumPartBytes: 1, parser: SwiftFeedParser(), source: "d")
            }
            XCTAssertEqual(got.cuts, declarations + 1, "tricky \(i)")
            XCTAssertEqual(got.parts, declarations + 1, "tricky \(i): one part per document, the cut inside dropped")
        }
    }

    /// Documents that a document cut short inside a CDATA section had taken in: the
    /// search goes back to them (ResyncTests), and the cut before each holds only where
    /// the whole stream begins a document there: the parts give the whole stream's lines.
    func testDocumentsACutShortOneHadTakenIn() throws {
        let docs = Self.corpusDocuments
        let cut = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">"
            + "<channel><title>A</title><item><title>a1</title></item><item><content:encoded><![CDATA[<p>cut"
        let closing = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>B</title><item><title>b1</title>"
            + "<description><![CDATA[x]]></description></item><item><title>b2</title></item></channel></rss>\n"
        try assertPartsEqualWhole("cut, then documents", dump([docs[0] + "\n", cut, docs[1] + "\n", docs[2] + "\n"]))
        try assertPartsEqualWhole("cut, then a closing section", dump([docs[0] + "\n", cut, closing, docs[1] + "\n"]))
        try assertPartsEqualWhole("cut at the end", dump([docs[0] + "\n", docs[1] + "\n", cut]))
        // Documents that each take the next ones in, to the input's end: the first is cut
        // short at the second, whose own look back the whole stream's parser does not
        // make (its bytes were read again once already). A part that begins at the
        // second's declaration must not (rereadEnd).
        let takesTheNextIn = "<?xml version=\"1.0\"?><rss><![CDATA["
        try assertPartsEqualWhole("each takes the next in", dump([docs[0] + "\n"] + Array(repeating: takesTheNextIn, count: 12)))
        try assertPartsEqualWhole("cut one after another", dump([docs[0] + "\n", cut, cut, cut, docs[1] + "\n"]))
        // The first takes in a whole document and one that takes in the last: the whole
        // stream's parser looks for no document in the third's bytes (they were read again
        // once, from the second), so neither may a part that begins at the third.
        let short = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>S</title></channel></rss>\n"
        try assertPartsEqualWhole("a look back past a cut", dump([docs[0] + "\n", takesTheNextIn, short, takesTheNextIn, short]))
        // Cut short in text and in a tag: the next document is found at its declaration.
        let latin = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<rss version=\"2.0\"><channel><title>L\u{E9}</title>"
            + "<item><title>l1</title></item></channel></rss>\n"
        let inText = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>T</title><item><title>cut"
        try assertPartsEqualWhole("cut in text", dump([docs[0] + "\n", inText, latin, docs[1] + "\n"]))
        try assertPartsEqualWhole("cut in a tag", dump([docs[0] + "\n", inText + "</tit", latin, docs[1] + "\n"]))
        // An error in a document whose root had started (a byte that is no UTF-8), then
        // a document whose declaration runs on over lines, then another: the search from
        // the error's byte must hand the bytes on in the pieces they came in (libxml2
        // reports the broken declaration by its pieces: the parts fuzzer's finding).
        let bad = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>U</title><description>walkin\u{91} routes</description>"
        let runOn = "<?xml version=\"1.0\" en" + String(repeating: "\n", count: 9) + "ns<guid>x</guid>\n"
        for backend in FeedBackend.allCases {
            for strict in [false, true] {
                let stream = Array(bad.utf8).map { $0 == 0xC2 ? 0x20 : $0 } + Array((runOn + docs[1] + "\n" + docs[2] + "\n").utf8)
                let parser = backend.makeParser(strict: strict)
                let expected = try whole(stream, parser)
                for minimum: UInt64 in [1, 100] {
                    let got = try stream.withUnsafeBytes {
                        try DumpParts.convertSequentially($0, minimumPartBytes: minimum, parser: parser, source: "dump.xml")
                    }
                    XCTAssertTrue(got.lines == expected.lines, "\(backend) strict \(strict), parts of \(minimum)")
                }
                XCTAssertGreaterThanOrEqual(expected.summary.documents, 3, "\(backend) strict \(strict)")
            }
        }
    }

    /// A first part shorter than what the input stage reads before it begins a document
    /// (a byte order mark, gzip's magic and UTF-16 are told from XML by the first bytes):
    /// its document is announced only while the probe is read and could be taken for the
    /// one at the cut, losing the byte's error record (one junk byte, 0x1F, before a
    /// dump: a parts fuzzer finding). Such a part is joined with the next.
    func testAFirstPartTooShortToTellItsCharsetKeepsItsRecord() throws {
        let docs = Self.corpusDocuments
        // (A NUL is read as the start of UTF-16BE: the two documents are one then.)
        try assertPartsEqualWhole("NUL before a dump", [0x00] + dump([docs[0] + "\n", docs[1] + "\n"]))
        for junk: [UInt8] in [[0x1F], [0xEF, 0xBB], [0xFE]] {
            let stream = junk + dump([docs[0] + "\n", docs[1] + "\n"])
            try assertPartsEqualWhole("\(junk) before a dump", stream)
            let got = try stream.withUnsafeBytes {
                try DumpParts.convertSequentially($0, minimumPartBytes: 1, parser: SwiftFeedParser(), source: "d")
            }
            let first = String(decoding: got.lines.prefix { $0 != 0x0A }, as: UTF8.self)
            XCTAssertTrue(first.contains(#""document":1,"#) && first.contains(#""error":{"code":"xml""#)
                          && first.contains(#""offset":0,"#), "\(junk): \(first)")
            XCTAssertEqual(got.summary.documents, 3, "\(junk): the junk's document and the two")
        }
    }

    /// Where each document starts, as the parsers tell it while announcing it (what a
    /// part's cut is judged by): after a declaration, a byte order mark, a root start
    /// tag after a closed root, the next root found after a failed document, and the
    /// report of a comment left open at the end; the input whole and byte by byte.
    func testEveryParserTellsWhereTheDocumentItAnnouncesStarts() throws {
        final class Starts: FeedHandler {
            var offsets: [UInt64?] = []
            func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
                offsets.append((parser as? DocumentStateReporting)?.lastDocumentOffset)
            }
        }
        let pieces: [[UInt8]] = [
            Array("<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>A</title></channel></rss>\n".utf8),
            [0xEF, 0xBB, 0xBF] + Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel/></rss>\n<!-- between -->\n".utf8),
            Array("<rss version=\"2.0\"><channel><title>C</title></chanel></rss>\n junk \n".utf8),
            Array("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>D</title></feed>\n".utf8),
            Array("<!-- left open".utf8),
        ]
        var expected: [UInt64?] = []
        var stream: [UInt8] = []
        for piece in pieces {
            expected.append(UInt64(stream.count))
            stream += piece
        }
        for backend in FeedBackend.allCases {
            for (how, input) in [("whole", FeedInput.bytes(stream)), ("byte by byte", chunkedInput(stream, 1))] {
                let starts = Starts()
                _ = try backend.makeParser().parse(input, handler: starts)
                XCTAssertEqual(starts.offsets, expected, "\(backend), \(how)")
            }
        }
    }

    /// A part whose parser holds its last bytes until the probe comes: a document read as
    /// UTF-16 (it begins 00 3C) and broken, whose part ends at an odd byte. libxml2's
    /// UTF-16 decoder waits for the byte that completes the last character, so the
    /// document's error, and the Atom feed found after it in the part's own bytes, are
    /// announced while the probe is read; the feed must not be taken for the document at
    /// the cut, or its line and the junk byte's record would be lost (a parts fuzzer
    /// finding). The cut's document is told by where it starts.
    func testADocumentBegunInBytesTheParserHeldUntilTheProbeStaysThePartsOwn() throws {
        let head: [UInt8] = [0x00] + Array("<\"?<feed>\n".utf8) + Array(#"<feed xmlns="http://www.w3.org/2005/Atom">"#.utf8)
            + Array("<title>A</title></feed>".utf8) + [0xD9]
        let stream = head + Array(#"<?xml version="1.0"?><rss version="2.0"><channel><title>U</title></channel></rss>"#.utf8)
            + [0x0A]
        try assertPartsEqualWhole("a broken UTF-16 head held by the parser", stream)
        for backend in FeedBackend.allCases {
            let got = try stream.withUnsafeBytes {
                try DumpParts.convertSequentially($0, minimumPartBytes: 1, parser: backend.makeParser(), source: "d")
            }
            XCTAssertEqual(got.cuts, 1, "\(backend)")
            let lines = String(decoding: got.lines, as: UTF8.self).split(separator: "\n")
            guard lines.count == 4 else {
                XCTFail("\(backend): \(lines.count) lines: \(lines)")
                continue
            }
            // The broken head, the Atom feed found after it, the junk byte, the RSS feed.
            XCTAssertTrue(lines[0].contains(#""document":1,"#) && lines[0].contains(#""error":{"code":"xml""#)
                          && lines[0].contains(#""offset":2,"#), "\(backend): \(lines[0])")
            XCTAssertTrue(lines[1].contains(#""document":2,"format":"atom10""#) && lines[1].contains(#""title":"A""#)
                          && !lines[1].contains(#""error""#), "\(backend): \(lines[1])")
            XCTAssertTrue(lines[2].contains(#""document":3,"#) && lines[2].contains(#""offset":\#(head.count - 1),"#),
                          "\(backend): \(lines[2])")
            XCTAssertTrue(lines[3].contains(#""document":4,"format":"rss20""#) && lines[3].contains(#""title":"U""#),
                          "\(backend): \(lines[3])")
        }
    }

    /// A byte that is not UTF-8 a few bytes before a cut: libxml2 words it by what it
    /// was given in one call; a part's last bytes and the probe go in one call, as in
    /// the whole stream, and the error is expat's wording and place either way.
    func testAnErrorJustBeforeACutIsWordedAsInTheWholeStream() throws {
        let broken = Array("<rss version=\"2.0\"><channel><title>T</title></channel></rs".utf8) + [0x98] + Array(">\n".utf8)
        let next = Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>U</title></channel></rss>\n".utf8)
        let stream = Array("<?xml version=\"1.0\"?>".utf8) + broken + next
        try assertPartsEqualWhole("a byte that is not UTF-8 three bytes before a cut", stream)
        let got = try stream.withUnsafeBytes {
            try DumpParts.convertSequentially($0, minimumPartBytes: 1, parser: FeedBackend.libxml2.makeParser(), source: "d")
        }
        XCTAssertEqual(got.parts, 2)
        let first = String(decoding: got.lines.prefix { $0 != 0x0A }, as: UTF8.self)
        // Placed and worded as expat has it, whatever libxml2 was given at once.
        XCTAssertTrue(first.contains(#""message":"not well-formed (invalid token)","line":1,"column":80"#), first)
    }

    func testRenumberShiftsEachLinesDocumentOnly() {
        let lines = "{\"schema\":1,\"kind\":\"item\",\"source\":\"a,\\\"document\\\":7\",\"document\":1,\"index\":0,"
            + "\"title\":\",\\\"document\\\":3\"}\n{\"schema\":1,\"kind\":\"feed\",\"source\":\"s\",\"document\":12,\"items\":0}\n"
        let expected = "{\"schema\":1,\"kind\":\"item\",\"source\":\"a,\\\"document\\\":7\",\"document\":41,\"index\":0,"
            + "\"title\":\",\\\"document\\\":3\"}\n{\"schema\":1,\"kind\":\"feed\",\"source\":\"s\",\"document\":52,\"items\":0}\n"
        XCTAssertEqual(String(decoding: DumpParts.renumber(Array(lines.utf8), by: 40), as: UTF8.self), expected)
        XCTAssertEqual(DumpParts.renumber(Array(lines.utf8), by: 0), Array(lines.utf8))
    }

    /// Lines per document (`--per feed`): parts, in order or on threads, equal the whole.
    func testDocumentLayout() throws {
        let docs = Self.corpusDocuments
        var mixed: [String] = []
        for (i, t) in Self.tricky.enumerated() { mixed += [docs[i % docs.count] + "\n", t] }
        let stream = dump(mixed)
        for backend in FeedBackend.allCases {
            let out = MemoryOutput()
            let writer = DocumentLinesWriter(output: out)
            writer.source = "dump.xml"
            let summary = try backend.makeParser().parse(.bytes(stream), handler: writer)
            try writer.flush()
            XCTAssertTrue(out.string.contains("\"document\":20,"), "\(backend): numbers past the first parts")
            let sequential = try stream.withUnsafeBytes {
                try DumpParts.convertSequentially($0, minimumPartBytes: 1, parser: backend.makeParser(), source: "dump.xml",
                                                  layout: .documents)
            }
            let parallel = try stream.withUnsafeBytes {
                try DumpParts.convertParallel($0, minimumPartBytes: 1, jobs: 3, makeParser: { backend.makeParser() },
                                              source: "dump.xml", layout: .documents)
            }
            XCTAssertGreaterThan(sequential.parts, 10)
            for (name, got) in [("sequential", sequential), ("parallel", parallel)] {
                XCTAssertTrue(got.lines == out.bytes, "\(backend), \(name)")
                XCTAssertEqual(got.summary, summary, "\(backend), \(name)")
            }
        }
    }

    /// Found by the tests above: the C backends' summary kept the first error's
    /// position but a later error's message (the tokenizer's message buffer is reused).
    func testFirstErrorKeepsItsOwnMessage() throws {
        let stream = Array(("<?xml version=\"1.0\"?>\(Self.rss)</itm></channel></rss>\n"
                            + "<?xml version=\"1.0\"?>\(Self.rss)<!-- cut short").utf8)
        for backend in FeedBackend.allCases {
            for strict in [false, true] {
                final class Errors: FeedHandler {
                    var errors: [FeedError] = []
                    func parser(_ parser: any FeedParser, didFail error: FeedError) { errors.append(error) }
                }
                let errors = Errors()
                let summary = try backend.makeParser(strict: strict).parse(.bytes(stream), handler: errors)
                let label = "\(backend)\(strict ? " strict" : "")"
                XCTAssertEqual(errors.errors.count, 2, label)
                XCTAssertNotEqual(errors.errors.first?.message, errors.errors.last?.message, label)
                XCTAssertEqual(summary.firstError, errors.errors.first, label)
                XCTAssertEqual(summary.firstError?.document, 1, label)
                if backend != .libxml2 { XCTAssertEqual(summary.firstError?.message, "mismatched tag", label) }
            }
        }
    }

    /// The last part's handler (and the output it writes to) goes when the parse
    /// returns: the stream-failure relay held it in a cycle (found by CI's LeakCheckTests,
    /// every last part of a dump kept).
    func testTheLastPartReleasesItsHandler() throws {
        final class Counting: FeedHandler {
            var items = 0
            func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) { items += 1 }
        }
        let stream = Array(("<?xml version=\"1.0\"?>\(Self.rss)</channel></rss>\n").utf8)
        for backend in FeedBackend.allCases {
            weak var released: Counting?
            try {
                let handler = Counting()
                released = handler
                let outcome = try stream.withUnsafeBytes {
                    try DumpParts.parse($0, probe: nil, start: 0, documentBase: 0,
                                        end: { DumpParts.End(failure: nil, bytesIn: UInt64(stream.count)) },
                                        parser: backend.makeParser(), handler: handler)
                }
                XCTAssertEqual(outcome.summary.documents, 1, "\(backend)")
                XCTAssertGreaterThan(handler.items, 0, "\(backend)")
            }()
            XCTAssertNil(released, "\(backend): the handler outlived the parse")
        }
    }

    func testRealCorpusAsOneDump() throws {
        let files = TestSample.take(Paths.files(in: Paths.sharedReal).prefix(300))
        guard !files.isEmpty else { throw skip("real corpus: \(Paths.sharedReal.path) is not present") }
        var stream: [UInt8] = []
        for f in files {
            guard let d = try? Data(contentsOf: f), d.count < 2 << 20, d.first != 0x1F else { continue }
            stream += d
            stream.append(0x0A)
        }
        let parser = SwiftFeedParser()
        let expected = try whole(stream, parser)
        for minimum: UInt64 in [1, 64 << 10] {
            let got = try stream.withUnsafeBytes {
                try DumpParts.convertSequentially($0, minimumPartBytes: minimum, parser: parser, source: "dump.xml")
            }
            XCTAssertTrue(got.lines == expected.lines, "real corpus, parts of at least \(minimum) bytes")
            XCTAssertEqual(got.summary, expected.summary)
            XCTAssertGreaterThan(got.parts, 1)
            let parallel = try stream.withUnsafeBytes {
                try DumpParts.convertParallel($0, minimumPartBytes: minimum, jobs: 2, makeParser: { SwiftFeedParser() },
                                              source: "dump.xml")
            }
            XCTAssertTrue(parallel.lines == expected.lines, "real corpus, 2 threads, parts of at least \(minimum) bytes")
            XCTAssertEqual(parallel.summary, expected.summary)
        }
    }
}
