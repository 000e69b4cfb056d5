// SPDX-License-Identifier: Apache-2.0
import CFeedStream
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation
import XCTest

/// Resynchronization after a document error does not depend on how the input was cut:
/// the search for the next document resumes right after the error's byte,
/// even when the tokenizer reports the error only once later chunks came (it held the
/// bytes: an unfinished declaration, comment or tag), so every chunking of a dump gives
/// the lines of the whole input — items, feed lines and error records — on every
/// backend, strict or recovering (libxml2 up to its first error: its push parser places
/// some errors by how much input it had, Fuzz/README.md).
final class ResyncTests: XCTestCase {
    private static let known = Paths.corpus.appendingPathComponent("fuzz-regressions")

    // MARK: the fuzzers' findings

    /// corpus/fuzz-regressions/resume-after-error-in-earlier-chunk.xml: a broken declaration whose end
    /// comes much later. The first document fails in its declaration; its own root
    /// (`<rss`, the root had not started) is not a new document; the `<?xml` further on is
    /// the second document, which fails in its declaration too.
    func testBrokenDeclarationThatRunsOn() throws {
        let data = try read("resume-after-error-in-earlier-chunk.xml")
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.map { $0.error?.message }, ["XML declaration not well-formed", "XML declaration not well-formed"], context)
            XCTAssertEqual(docs.map { $0.error?.offset }, [29, 398], context)
            XCTAssertEqual(docs.map(\.items.count), [0, 0], context)
        }
        try assertCutsDoNotMatter(data, "resume-after-error-in-earlier-chunk.xml", every: 1)
    }

    /// corpus/fuzz-regressions/expat-own-root-after-held-declaration-error.xml: an XML declaration
    /// error expat reports only once more input came. Four documents: the failed one
    /// (whose own `<rss` is skipped), a second with one item before its error, and two
    /// that fail at once.
    func testHeldDeclarationErrorKeepsTheOwnRoot() throws {
        let data = try read("expat-own-root-after-held-declaration-error.xml")
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.count, 4, context)
            XCTAssertEqual(docs.map { $0.error?.offset }, [33, 3147, 5089, 6780], context)
            XCTAssertEqual(docs.first?.error?.message, "XML declaration not well-formed", context)
            // Strict: the items before each error; recovering: the second document's item too.
            XCTAssertEqual(docs.map(\.items.count), strict ? [0, 0, 0, 0] : [0, 1, 0, 0], context)
            if !strict { XCTAssertEqual(docs[1].items.first?.title?.value, "Shake Shake Shake Your Spices", context) }
        }
        try assertCutsDoNotMatter(data, "expat-own-root-after-held-declaration-error.xml", every: 16)
    }

    /// corpus/fuzz-regressions/swift-gzip-chunks-junk-before-declaration.xml: a comma before the
    /// declaration. The comma is a document that fails at its first byte; the search
    /// resumes at the next byte, the `<?xml` of the feed (4 items when recovered).
    func testJunkBeforeTheDeclaration() throws {
        let data = try read("swift-gzip-chunks-junk-before-declaration.xml")
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.count, 2, context)
            XCTAssertEqual(docs.map { $0.error?.offset }, [0, 1507], context)
            XCTAssertEqual(docs[1].feed.title?.value, "Top Stories", context)
            XCTAssertEqual(docs.map(\.items.count), strict ? [0, 0] : [0, 4], context)
        }
        try assertCutsDoNotMatter(data, "swift-gzip-chunks-junk-before-declaration.xml", every: 16)
    }

    /// corpus/fuzz-regressions/declaration-start-followed-by-nul.xml: after a document,
    /// `<?xml` followed by a NUL byte is a processing instruction (the Misc after a root),
    /// not a new document: the rule of a document start (`<?xml` and white space or `?`)
    /// decides between documents too. The C core took NUL for white space there and began
    /// a document that failed at once, and what came behind it was skipped as that
    /// document's rest: document B vanished on expat and libxml2 (the differential fuzzer's
    /// three `document-count` findings). Five feeds, one error (D's), on every backend.
    func testDeclarationStartFollowedByNulBetweenDocuments() throws {
        let data = try read("declaration-start-followed-by-nul.xml")
        for backend in FeedBackend.allCases {
            for strict in [false, true] {
                let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
                let context = "\(backend), strict \(strict)"
                // D fails inside its title: only the recovery path reads it.
                XCTAssertEqual(docs.map { $0.feed.title?.value }, ["A", "B", "C", strict ? nil : "D", "E"], context)
                XCTAssertEqual(docs.map { $0.error == nil }, [true, true, true, false, true], context)
                XCTAssertEqual(docs[3].error?.line, 1, context)
                XCTAssertEqual(docs.map { $0.items.map { $0.title?.value } }, [["a"], ["b"], [], [], ["e"]], context)
            }
        }
        try assertCutsDoNotMatter(data, "declaration-start-followed-by-nul.xml", every: 1)
    }

    /// Every skipped byte is accounted for: a failed document's error carries
    /// `skipped`, the bytes from its offset to the next document's start or the input's
    /// end, so `offset + skipped` is where the next document begins. Documents written
    /// with and without declarations; a junk document whose search passes over a whole
    /// feed (its `<rss` taken for the junk's own root: lost, but inside the range); an
    /// input that ends at the error (nothing skipped: no member).
    func testTheSkippedBytesOfAFailedDocumentRunToTheNextDocument() throws {
        let a = rss("A", ["a1"], declaration: "").replacingOccurrences(of: "</title></item>", with: "</titel></item>")
        let b = rss("B", ["b1"], declaration: "")
        let junk = "<\u{0}\u{0}\u{0} x>\n"   // read as UTF-32: fails at its second character, byte 4
        let c = rss("C", ["c1", "c2"])
        let d = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>D</title><item>"   // ends in an item
        let parts = [a, b, junk, b, c, d]
        let starts = parts.indices.map { i in parts[..<i].reduce(0) { $0 + $1.utf8.count } }
        let data = Array(parts.joined().utf8)
        for backend in FeedBackend.allCases {
            for strict in [false, true] {
                let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
                let context = "\(backend), strict \(strict)"
                XCTAssertEqual(docs.count, 5, context)
                guard docs.count == 5 else { continue }
                // A: the error at the `</titel>`'s end, skipped up to B.
                let e0 = try XCTUnwrap(docs[0].error, context)
                XCTAssertEqual(UInt64(starts[0]) + UInt64(a.utf8.count) - e0.offset, e0.skipped, context)
                XCTAssertNil(docs[1].error, context)
                XCTAssertEqual(docs[1].feed.title?.value, "B", context)
                // The junk: the UTF-32 reading fails at byte 4; the second B is in its range.
                let e2 = try XCTUnwrap(docs[2].error, context)
                XCTAssertEqual(e2.offset, UInt64(starts[2] + 4), context)
                XCTAssertEqual(e2.offset + e2.skipped, UInt64(starts[4]), context)
                XCTAssertEqual(docs[3].feed.title?.value, "C", context)
                XCTAssertEqual(docs[3].items.count, 2, context)
                // D: the input ends in it; its error is at the end, nothing skipped.
                let e4 = try XCTUnwrap(docs[4].error, context)
                XCTAssertEqual(e4.offset, UInt64(data.count), context)
                XCTAssertEqual(e4.skipped, 0, context)
                // The summary's first error is the one delivered.
                final class Ignore: FeedHandler {}
                XCTAssertEqual(try backend.makeParser(strict: strict).parse(.bytes(data), handler: Ignore()).firstError, e0, context)
            }
        }
        // In the JSON: the member where something was skipped, none where nothing was.
        let lines = String(decoding: try convert(FeedBackend.swift.makeParser(strict: true), .bytes(data)), as: UTF8.self)
            .split(separator: "\n").filter { $0.contains("\"error\"") }
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[1].contains("\"offset\":\(starts[2] + 4),\"skipped\":\(starts[4] - starts[2] - 4)}"), String(lines[1]))
        XCTAssertFalse(lines[2].contains("skipped"), String(lines[2]))
        try assertCutsDoNotMatter(data, "skipped ranges", every: 7)
    }

    /// A byte order mark followed by `<` is a document start: a UTF-16 document after a
    /// failed one has no byte sequence the ASCII starts match, and without this it would
    /// be skipped as the failed document's rest (all of it, its items too). UTF-16LE with a
    /// declaration, UTF-16BE without, UTF-8 with a mark, each behind a failed document.
    func testADocumentAfterAFailedOneMayStartWithAByteOrderMark() throws {
        let bad = Array("<rss version=\"2.0\"><channel><title>A</titel></channel></rss>\n".utf8)
        let le = [UInt8]([0xFF, 0xFE]) + rss("LE", ["le1", "le2"], declaration: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>")
            .utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be = [UInt8]([0xFE, 0xFF]) + rss("BE", ["be1"], declaration: "").utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let u8 = [UInt8]([0xEF, 0xBB, 0xBF]) + Array(rss("U8", ["u1"], declaration: "").utf8)
        let data = bad + le + bad + be + bad + u8
        for backend in FeedBackend.allCases {
            for strict in [false, true] {
                let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
                let context = "\(backend), strict \(strict)"
                XCTAssertEqual(docs.map { $0.feed.title?.value }, ["A", "LE", "A", "BE", "A", "U8"].map { strict && $0 == "A" ? nil : $0 }, context)
                XCTAssertEqual(docs.map { $0.error == nil }, [false, true, false, true, false, true], context)
                XCTAssertEqual(docs.map(\.items.count), [0, 2, 0, 1, 0, 1], context)
                // Each failed document's range ends where the next one's mark begins.
                let starts = [0, bad.count + le.count, 2 * bad.count + le.count + be.count]
                for (k, start) in starts.enumerated() {
                    let e = try XCTUnwrap(docs[2 * k].error, context)
                    XCTAssertEqual(e.offset + e.skipped, UInt64(start + bad.count), "\(context), document \(2 * k + 1)")
                }
            }
        }
        let feedLines = String(decoding: try convert(FeedBackend.swift.makeParser(), .bytes(data)), as: UTF8.self)
            .split(separator: "\n").filter { $0.contains("\"kind\":\"feed\"") }
        XCTAssertEqual(feedLines.map { $0.contains("\"encoding\":\"utf-16le\"") }, [false, true, false, false, false, false])
        XCTAssertEqual(feedLines.map { $0.contains("\"encoding\":\"utf-16be\"") }, [false, false, false, true, false, false])
        try assertCutsDoNotMatter(data, "byte order marks", every: 5)
    }

    /// RSS written all in upper case (`<RSS><CHANNEL><ITEM>`, read as RSS since names are
    /// read in any case) is a document start after a failed document too: it was taken
    /// as the failed one's rest, its items lost. With a declaration and without.
    func testADocumentInUpperCaseAfterAFailedOneIsFound() throws {
        let bad = "<rss version=\"2.0\"><channel><title>A</titel></channel></rss>\n"
        let upper = { (title: String, item: String) in
            "<RSS VERSION=\"0.91\"><CHANNEL><TITLE>\(title)</TITLE><ITEM><TITLE>\(item)</TITLE></ITEM></CHANNEL></RSS>\n"
        }
        let data = Array((bad + upper("U1", "u1") + bad + "<?xml version=\"1.0\"?>\n" + upper("U2", "u2")).utf8)
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.map { $0.feed.title?.value }, strict ? [nil, "U1", nil, "U2"] : ["A", "U1", "A", "U2"], context)
            XCTAssertEqual(docs.map { $0.error == nil }, [false, true, false, true], context)
            XCTAssertEqual(docs.map { $0.items.first?.title?.value }, [nil, "u1", nil, "u2"], context)
            let e = try XCTUnwrap(docs.first?.error, context)
            XCTAssertEqual(e.offset + e.skipped, UInt64(bad.utf8.count), context)
        }
        try assertCutsDoNotMatter(data, "upper case", every: 3)
    }

    // MARK: well-formed documents beside a damaged one

    /// Well-formed documents after a damaged one: a document cut
    /// in its root start tag (the next one's declaration is the error's own byte), a UTF-8
    /// document cut in a title followed by a UTF-16 one with its mark (the mark is the
    /// error's byte), a UTF-16 document followed by a UTF-16 comment and a UTF-8 document.
    /// Every well-formed document keeps its items, on every backend, however the input
    /// was cut.
    func testWellFormedDocumentsBesideADamagedOneAreKept() throws {
        let feed = { (n: String) in
            "<rss version=\"2.0\"><channel><title>T\(n)</title><item><title>i\(n)</title></item></channel></rss>\n"
        }
        let utf8 = { (n: String) in Array(("<?xml version=\"1.0\"?>\n" + feed(n)).utf8) }
        let utf16 = { (n: String) -> [UInt8] in
            [0xFF, 0xFE] + Array(("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n" + feed(n)).utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        }
        let comment16 = Array("<!-- between -->\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let cases: [(String, [UInt8], [String?])] = [
            ("cut in its root start tag", Array("<?xml version=\"1.0\"?>\n<feed xmlns=\"http://".utf8) + utf8("a") + utf8("b"),
             [nil, "ia", "ib"]),
            ("cut in a title, then UTF-16", Array("<?xml version=\"1.0\"?>\n<rss><channel><title>cut".utf8) + utf16("w") + utf8("a"),
             [nil, "iw", "ia"]),
            ("UTF-16, a UTF-16 comment, UTF-8", utf16("w") + comment16 + utf8("a"), ["iw", "ia"]),
        ]
        for (name, data, items) in cases {
            for (backend, strict) in configurations {
                let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
                XCTAssertEqual(docs.map { $0.items.first?.title?.value }, items, "\(name), \(backend), strict \(strict)")
            }
            try assertCutsDoNotMatter(data, name, every: 5)
        }
    }

    /// The document starts are written once (document_starts.def), read by the input
    /// stage every backend runs; the table's form is checked.
    func testTheDocumentStartsAreWellFormed() throws {
        try assertGeneratorIsCurrent("scripts/check-document-starts.py", arguments: [])
    }

    // MARK: held errors with a document start behind them

    private func rss(_ title: String, _ items: [String], declaration: String = "<?xml version=\"1.0\"?>\n") -> String {
        declaration + "<rss version=\"2.0\"><channel><title>\(title)</title>"
            + items.map { "<item><title>\($0)</title></item>" }.joined() + "</channel></rss>\n"
    }

    /// A comment with a control character in it: the tokenizer may report the error
    /// once it has the whole comment, which may be chunks later; the root start tag right after the error is
    /// a new document (the failed one's root had started), and it must be found
    /// whatever the cuts. Also in windows-1252 (transcoded by the Swift tokenizer,
    /// whose error offsets count UTF-8: the resume point is mapped back to input bytes).
    func testErrorInAHeldCommentWithADocumentBehindIt() throws {
        for (declaration, body) in [("<?xml version=\"1.0\"?>", "d1"),
                                    ("<?xml version=\"1.0\" encoding=\"windows-1252\"?>", "caf\u{E9} d1")] {
            var data = Array((declaration + "\n<rss version=\"2.0\"><channel><title>D</title>").utf8)
            data += declaration.contains("1252") ? Array("<item><title>caf".utf8) + [0xE9] + Array(" d1</title></item>".utf8)
                                                 : Array("<item><title>d1</title></item>".utf8)
            // A control character in a comment that ends inside E (its own empty
            // comment): the Swift tokenizer finds the comment's `--` first and checks the
            // characters before it then, so it reports the error chunks later.
            data += Array("<!-- a \u{1} b <rss version=\"2.0\"><channel><title>E</title><!-- --><item><title>e1</title></item></channel></rss>\n".utf8)
            data += Array(rss("F", ["f1", "f2"], declaration: "").utf8)
            for (backend, strict) in configurations {
                let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
                let context = "\(declaration), \(backend), strict \(strict)"
                XCTAssertEqual(docs.map { $0.feed.title?.value }, ["D", "E", "F"], context)
                XCTAssertEqual(docs.map { $0.error == nil }, [false, true, true], context)
                XCTAssertEqual(docs[0].items.map { $0.title?.value }, [body], context)
                XCTAssertEqual(docs[1].items.map { $0.title?.value }, ["e1"], context)
                XCTAssertEqual(docs[2].items.map { $0.title?.value }, ["f1", "f2"], context)
            }
            try assertCutsDoNotMatter(data, "held comment, \(declaration)", every: 1)
        }
    }

    /// A broken declaration and a document without one right behind it: the failed
    /// document's root is its own `<rss` (skipped), the next one is new.
    func testBrokenDeclarationThenDocumentsWithoutDeclarations() throws {
        let data = Array(("<?xml version=\"1.0\" encodin  -->\n" + rss("B", ["b1"], declaration: "")
                          + rss("C", ["c1"], declaration: "") + rss("G", ["g1", "g2"])).utf8)
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.count, 3, context)
            XCTAssertEqual(docs[0].error?.message, "XML declaration not well-formed", context)
            XCTAssertEqual(docs[0].error?.offset, 29, context)
            XCTAssertEqual(docs.dropFirst().map { $0.feed.title?.value }, ["C", "G"], context)
            XCTAssertEqual(docs.dropFirst().map { $0.error == nil }, [true, true], context)
            XCTAssertEqual(docs[2].items.map { $0.title?.value }, ["g1", "g2"], context)
        }
        try assertCutsDoNotMatter(data, "broken declaration", every: 1)
    }

    // MARK: documents a failed one had taken in

    private let cutInCDATA = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>A</title><item><title>a1</title></item>"
        + "<item><description><![CDATA[<p>cut"

    /// A document of a dump cut short inside a CDATA section (a fetcher's truncation of a
    /// content-heavy feed) with no `]]>` after it: the documents after it were text in the
    /// section, and the input's end its error. The search for the next document now looks
    /// back into it: the first declaration followed by a feed's root, past the last item
    /// delivered, is the next document, and the cut one ends there (its error there, line
    /// and column 0; its bytes up to there recovered).
    func testADocumentCutShortInCDATAGivesBackTheDocumentsAfterIt() throws {
        let first = Array(cutInCDATA.utf8)
        let data = first + Array((rss("B", ["b1"]) + rss("C", ["c1", "c2"])).utf8)
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.map { $0.feed.title?.value }, ["A", "B", "C"], context)
            guard docs.count == 3 else { continue }
            let e = docs[0].error
            XCTAssertEqual(e?.message, "document cut short: the next document starts here", context)
            XCTAssertEqual([e?.line, e?.column], [0, 0], context)
            XCTAssertEqual(e?.offset, UInt64(first.count), context)
            XCTAssertEqual(e?.skipped, 0, context)
            XCTAssertEqual(docs[0].items.map { $0.title?.value ?? $0.summary?.value }, strict ? ["a1"] : ["a1", "<p>cut"], context)
            XCTAssertEqual(docs[0].error?.recovered, !strict, context)
            XCTAssertEqual(docs.dropFirst().map { $0.error == nil }, [true, true], context)
            XCTAssertEqual(docs[1].items.map { $0.title?.value }, ["b1"], context)
            XCTAssertEqual(docs[2].items.map { $0.title?.value }, ["c1", "c2"], context)
        }
        try assertCutsDoNotMatter(data, "cut in CDATA", every: 3)
    }

    /// The section ends at the next document's own `]]>`, and the error comes after it
    /// (an end tag that does not match the cut document's open element): the next
    /// document still begins at its declaration, and keeps its first item.
    func testADocumentCutShortInCDATAWithAnErrorLaterKeepsTheNextWhole() throws {
        let first = Array(("<?xml version=\"1.0\"?>\n<rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">"
                           + "<channel><title>A</title><item><title>a1</title><content:encoded><![CDATA[<p>cut").utf8)
        let b = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>B</title>"
            + "<item><title>b1</title><description><![CDATA[x]]></description></item><item><title>b2</title></item></channel></rss>\n"
        let data = first + Array((b + rss("C", ["c1"])).utf8)
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.map { $0.feed.title?.value }, ["A", "B", "C"], context)
            guard docs.count == 3 else { continue }
            XCTAssertEqual(docs[0].error?.message, "document cut short: the next document starts here", context)
            XCTAssertEqual(docs[0].error?.offset, UInt64(first.count), context)
            XCTAssertEqual(docs[1].items.map { $0.title?.value }, ["b1", "b2"], context)
            XCTAssertNil(docs[1].error, context)
            XCTAssertEqual(docs[2].items.map { $0.title?.value }, ["c1"], context)
        }
        try assertCutsDoNotMatter(data, "cut in CDATA, error later", every: 3)
    }

    /// Documents that each take the next ones in, to the same error: each byte is read
    /// again at most once. The first is cut short at the second, whose error (the input's
    /// end, where the first's was) is its own: the documents after it are not looked for
    /// in bytes already read again. Without the bound, every one of them read the rest of
    /// the input again (`n` documents in `n²/2` bytes: 8,000 of them took 5 s).
    func testBytesAreReadAgainAtMostOnce() throws {
        let one = "<?xml version=\"1.0\"?><rss><![CDATA["
        let data = Array(String(repeating: one, count: 300).utf8)
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.count, 2, context)
            guard docs.count == 2 else { continue }
            XCTAssertEqual(docs[0].error?.message, "document cut short: the next document starts here", context)
            XCTAssertEqual(docs[0].error?.offset, UInt64(one.utf8.count), context)
            XCTAssertEqual(docs[1].error?.message, "unclosed CDATA section", context)
            XCTAssertEqual(docs[1].error?.offset, UInt64(data.count), context)
        }
        try assertCutsDoNotMatter(data, "each takes the next in", every: 29)
    }

    /// Several documents of a dump cut short one after another (a fetcher that truncates
    /// every big feed), each in its last item's `content:encoded`: each section ends at
    /// the next document's first `]]>` and fails at the `</description>` after it, each
    /// error later than the one before, so every document is found, each cut short at the
    /// next one.
    func testDocumentsCutShortOneAfterAnotherAreEachFound() throws {
        func cut(_ title: String) -> String {
            "<?xml version=\"1.0\"?>\n<rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">"
                + "<channel><title>\(title)</title>"
                + "<item><title>\(title)1</title><description><![CDATA[<b>x</b>]]></description></item>"
                + "<item><title>\(title)2</title><content:encoded><![CDATA[<p>cut"
        }
        let data = Array((cut("A") + cut("B") + cut("C") + rss("D", ["d1"])).utf8)
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.map { $0.feed.title?.value }, ["A", "B", "C", "D"], context)
            XCTAssertEqual(docs.prefix(3).map { $0.error?.message },
                           Array(repeating: "document cut short: the next document starts here", count: 3), context)
            XCTAssertEqual(docs.prefix(3).map { $0.items.first?.title?.value }, ["A1", "B1", "C1"], context)
            XCTAssertEqual(docs.last?.items.map { $0.title?.value }, ["d1"], context)
            XCTAssertNil(docs.last?.error, context)
        }
        try assertCutsDoNotMatter(data, "cut one after another", every: 7)
    }

    /// When items were delivered after the next document's declaration (its first `]]>`
    /// closed the section, and its next item was read as the cut document's), the search
    /// does not go back before them: nothing is delivered twice. The item stays the cut
    /// document's; the search resumes after the error, as it always did.
    func testNoItemIsDeliveredTwice() throws {
        let b = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>B</title>"
            + "<item><title>b1</title><description><![CDATA[x]]></description></item><item><title>b2</title></item><broken</channel></rss>\n"
        let data = Array((cutInCDATA + b + rss("C", ["c1"])).utf8)
        for (backend, strict) in configurations {
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
            let context = "\(backend), strict \(strict)"
            XCTAssertEqual(docs.map { $0.feed.title?.value }, ["A", "C"], context)
            let titles = docs.flatMap { $0.items.compactMap { $0.title?.value } }
            XCTAssertEqual(titles.filter { $0 == "b2" }.count, 1, "\(context): \(titles)")
            XCTAssertEqual(docs.first?.error?.message, "not well-formed (invalid token)", context)
        }
        try assertCutsDoNotMatter(data, "items after the declaration", every: 3)
    }

    /// A document cut short in text or inside a tag, the next one's declaration right
    /// after it: the error is at that `<`, and the search resumes there when a feed's root
    /// follows the declaration, so the next document keeps its declaration and with it
    /// its encoding (ISO-8859-1 here: read from its root on, it was taken for UTF-8 and
    /// recovered, its text mis-decoded).
    func testADocumentCutShortKeepsTheNextOnesDeclaration() throws {
        let next = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<!-- c -->\n<rss version=\"2.0\"><channel><title>C".utf8)
            + [0xE9] + Array("</title><item><title>c1</title></item></channel></rss>\n".utf8)
        let head = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>A</title><item><title>a1</title></item>"
        for (cut, message) in [("<item><title>cut", "XML or text declaration not at start of entity"),
                               ("<item><tit", "not well-formed (invalid token)")] {
            let first = Array((head + cut).utf8)
            let data = first + next
            for (backend, strict) in configurations {
                let docs = try backend.makeParser(strict: strict).documents(from: .bytes(data))
                let context = "\(cut), \(backend), strict \(strict)"
                XCTAssertEqual(docs.count, 2, context)
                guard docs.count == 2 else { continue }
                XCTAssertEqual(docs[0].error?.message, message, context)
                XCTAssertEqual(docs[0].error?.offset, UInt64(first.count), context)
                XCTAssertEqual(docs[0].error?.skipped, 0, context)
                XCTAssertEqual(docs[0].items.first?.title?.value, "a1", context)
                XCTAssertNil(docs[1].error, context)
                XCTAssertEqual(docs[1].feed.title?.value, "C\u{E9}", context)
                XCTAssertEqual(docs[1].items.map { $0.title?.value }, ["c1"], context)
            }
            try assertCutsDoNotMatter(data, "cut short: \(cut)", every: 1)
        }
    }

    /// A declaration inside a feed that no feed's root follows (a template's include) is
    /// not a document: the search passes over it, as before, and the feed is recovered
    /// whole. Nor is one whose root comes more than 4 KiB after it (the bytes held to
    /// tell): the next document is then found at its root.
    func testADeclarationThatNoRootFollowsIsPassedOver() throws {
        let stray = Array(("<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>S</title><item><title>s1</title></item>\n"
                           + "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<item><title>s2</title></item></channel></rss>\n").utf8)
        let far = Array(("<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>A</title><item><title>cut"
                         + "<?xml version=\"1.0\"?><!-- " + String(repeating: "x", count: 4100) + " -->"
                         + "<rss version=\"2.0\"><channel><title>F</title></channel></rss>\n").utf8)
        for (backend, strict) in configurations {
            let context = "\(backend), strict \(strict)"
            let docs = try backend.makeParser(strict: strict).documents(from: .bytes(stray))
            XCTAssertEqual(docs.count, 1, context)
            XCTAssertEqual(docs.first?.items.map { $0.title?.value }, strict ? ["s1"] : ["s1", "s2"], context)
            let farDocs = try backend.makeParser(strict: strict).documents(from: .bytes(far))
            XCTAssertEqual(farDocs.map { $0.feed.title?.value }, ["A", "F"], context)
            XCTAssertGreaterThan(farDocs.first?.error?.skipped ?? 0, 4100, context)
        }
        try assertCutsDoNotMatter(stray, "stray declaration", every: 1)
        try assertCutsDoNotMatter(far, "root past the bytes held", every: 97)
    }

    /// A UTF-16 document cut short, and bytes after it that read as an XML declaration
    /// and a feed's root in ASCII: the bytes of a UTF-16 document are no markup, and each
    /// tokenizer places its error in them its own way, so nothing is looked for in them
    /// (the differential fuzzer's finding: expat found 5 documents, swift 7).
    func testNothingIsLookedForInAUTF16Document() throws {
        var data: [UInt8] = [0xFF, 0xFE]
        for u in "<?xml version=\"1.0\" encoding".utf16 { data += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        data += Array("gscript <?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>N</title></channel></rss>\nxy".utf8)
        var counts: [FeedBackend: Int] = [:]
        for backend in [FeedBackend.expat, .swift] {
            let docs = try backend.makeParser().documents(from: .bytes(data))
            counts[backend] = docs.count
            XCTAssertNotEqual(docs.first?.error?.message, "document cut short: the next document starts here", "\(backend)")
        }
        XCTAssertEqual(counts[.expat], counts[.swift])
    }

    /// A well-formed document that quotes a whole feed in a CDATA section: no error, so
    /// nothing is looked for, and the quote is text.
    func testAFeedQuotedInCDATAIsText() throws {
        let quoted = rss("Q", ["q1"])
        let data = Array((rss("P", []).replacingOccurrences(of: "</channel>", with:
            "<item><title>p1</title><description><![CDATA[\(quoted)]]></description></item></channel>")).utf8)
        for backend in FeedBackend.allCases {
            let docs = try backend.makeParser().documents(from: .bytes(data))
            XCTAssertEqual(docs.count, 1, "\(backend)")
            XCTAssertNil(docs.first?.error, "\(backend)")
            XCTAssertEqual(docs.first?.items.first?.summary?.value, quoted.trimmingCharacters(in: .whitespacesAndNewlines), "\(backend)")
        }
    }

    // MARK: property

    /// Random (fixed-seed) concatenations of good and broken documents — with and
    /// without declarations, broken declarations, junk, errors in held comments and
    /// tags, a transcoded one — cut at random places, or gzip-compressed as one member
    /// or two: the lines of the whole input every time.
    func testRandomCutsOfDumpsGiveTheWholeInputsLines() throws {
        let latin = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><title>L</title><item><title>".utf8)
            + [0xE0] + Array("</title></item><!-- x \u{1} <feed xmlns=\"http://www.w3.org/2005/Atom\"><title>A</title><!-- --></feed>".utf8)
        let parts: [[UInt8]] = [
            Array(rss("G", ["g1", "g2"]).utf8),
            Array(rss("N", ["n1"], declaration: "").utf8),
            Array("<?xml version=\"1.0\" encodin  <rss version=\"2.0\"><channel><title>H</title></channel></rss>\n".utf8),
            Array("<?xml version=\"1.0\" encoding=\"UTF\u{1}\"?><rss><channel><title>U</title></channel></rss>".utf8),
            Array(",".utf8),
            Array(rss("B", ["b1", "x & y", "b3"]).utf8),
            Array("<rss version=\"2.0\"><channel><title>M</title><item><title>m1</title></itme></channel></rss>".utf8),
            Array("<rss version=\"2.0\"><channel><title>C</title><!-- -- <rss version=\"2.0\"><channel><title>R</title></channel></rss>".utf8),
            Array("<rss version=\"2.0\"><channel><title>K</title><!-- \u{1} <rss version=\"2.0\"><channel><title>S</title><!-- --></channel></rss>".utf8),
            Array("<rss version=\"2.0\"><channel><title>T</title><item a=\"1\" b=\"<rss>\"></item></channel></rss>".utf8),
            Array("<?pi <?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>P</title></feed>".utf8),
            latin,
        ]
        var state: UInt64 = 17
        func random(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % n
        }
        for round in 0..<24 {
            let count = 2 + random(5)
            let dump = (0..<count).map { _ in parts[random(parts.count)] }.joined(separator: Array("\n".utf8)).map { $0 }
            for (backend, strict) in configurations + [(.libxml2, false), (.libxml2, true)] {
                let parser = backend.makeParser(strict: strict)
                let whole = try convert(parser, .bytes(dump))
                let context = "round \(round), \(backend), strict \(strict)"
                var variants: [(String, FeedInput)] = []
                for _ in 0..<12 {
                    let cuts = Set((0..<(1 + random(4))).map { _ in 1 + random(max(1, dump.count - 1)) }).sorted()
                    variants.append(("cuts \(cuts)", pieces(dump, cuts: cuts)))
                }
                for size in [1, 3, 17] { variants.append(("chunks of \(size)", chunkedInput(dump, size))) }
                variants.append(("gzip", .bytes(gzip(dump))))
                let split = 1 + random(max(1, dump.count - 1))
                variants.append(("two gzip members split at \(split)", .bytes(gzip(Array(dump[..<split])) + gzip(Array(dump[split...])))))
                for (name, input) in variants {
                    let got = try convert(parser, input)
                    if backend == .libxml2 {
                        XCTAssertEqual(upToFirstError(got), upToFirstError(whole), "\(context), \(name)")
                    } else if got != whole {
                        XCTFail("\(context), \(name): differs from the whole input\n\(firstDifference(whole, got))")
                    }
                }
            }
        }
    }

    /// C core: a callback stops the parser at the first item, and the gzip data turns
    /// corrupt after it (corpus/fuzz-regressions/gzip-corrupt-after-stop.gz, found by the
    /// smoke run of fuzz_expat after the resync fix): the status is the stop, whether the
    /// item came in an earlier call or in the one whose inflate then failed.
    func testCStopBeforeCorruptGzipIsTheStatusHoweverCut() throws {
        let data = try [UInt8](Data(contentsOf: Paths.corpus.appendingPathComponent("fuzz-regressions/gzip-corrupt-after-stop.gz")))
        for size in [data.count, 1, 64, 300] {
            var cb = cfs_callbacks()
            cb.on_item = { _, _, _ in 1 }
            var options = cfs_options()
            cfs_options_init(&options)
            let p = try XCTUnwrap(cfs_parser_create(&options, &cb, nil))
            defer { cfs_parser_destroy(p) }
            var statuses: Set<UInt32> = []
            for start in Swift.stride(from: 0, to: data.count, by: size) {
                let st = data[start..<min(start + size, data.count)].withUnsafeBytes { cfs_parser_feed(p, $0.baseAddress, $0.count) }
                if st != CFS_OK { statuses.insert(st.rawValue) }
            }
            XCTAssertEqual(statuses, [CFS_ERR_ABORTED.rawValue], "chunks of \(size)")
            XCTAssertEqual(cfs_parser_finish(p), CFS_ERR_ABORTED, "chunks of \(size)")
        }
    }

    // MARK: helpers

    private let configurations: [(FeedBackend, Bool)] = [(.expat, false), (.expat, true), (.swift, false), (.swift, true)]

    private func read(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: Self.known.appendingPathComponent(name)))
    }

    /// `data` cut in two at every offset of its first 1 KiB (where the errors held in
    /// a declaration are) and at every `every`-th one after, in
    /// three at a sample of pairs, in small chunks, and gzip-compressed (one member, two):
    /// the whole input's lines every time, on expat and swift, strict and recovering.
    private func assertCutsDoNotMatter(_ data: [UInt8], _ name: String, every: Int,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        for (backend, strict) in configurations {
            let parser = backend.makeParser(strict: strict)
            let whole = try convert(parser, .bytes(data))
            let context = "\(name), \(backend), strict \(strict)"
            var failures = 0
            func check(_ what: @autoclosure () -> String, _ input: FeedInput) throws {
                let got = try convert(parser, input)
                if got != whole && failures < 3 {
                    failures += 1
                    XCTFail("\(context), \(what()): differs from the whole input\n\(firstDifference(whole, got))",
                            file: file, line: line)
                }
            }
            for cut in 1..<data.count where cut < 1024 || cut % (every * TestSample.stride) == 0 {
                try check("cut at \(cut)", pieces(data, cuts: [cut]))
            }
            for a in Swift.stride(from: 1, to: data.count, by: 97) {
                for gap in [1, 5, 40] where a + gap < data.count {
                    try check("cuts at \(a), \(a + gap)", pieces(data, cuts: [a, a + gap]))
                }
            }
            for size in [1, 2, 7, 64] { try check("chunks of \(size)", chunkedInput(data, size)) }
            try check("gzip", .bytes(gzip(data)))
            for split in Swift.stride(from: 1, to: data.count, by: max(1, data.count / 16)) {
                try check("two gzip members at \(split)", .bytes(gzip(Array(data[..<split])) + gzip(Array(data[split...]))))
            }
        }
    }

    /// The lines up to the first with an error (libxml2's rule), without the error's
    /// `skipped`: where libxml2's search for the next document ends may depend on the cuts
    /// (Fuzz/README.md, resynchronization).
    private func upToFirstError(_ lines: [UInt8]) -> [String] {
        var kept: [String] = []
        for l in String(decoding: lines, as: UTF8.self).split(separator: "\n") {
            kept.append(l.replacingOccurrences(of: #",\"skipped\":[0-9]+"#, with: "", options: .regularExpression))
            if l.contains("\"error\":") { break }
        }
        return kept
    }
}
