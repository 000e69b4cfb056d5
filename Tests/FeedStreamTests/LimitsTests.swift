// SPDX-License-Identifier: Apache-2.0
import CFeedStream
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

/// ``FeedLimits``: each limit fails the document that passes it with the same code,
/// message and items on every backend, at the same place (expat and the Swift backend
/// also give the same line and column; libxml2's position is its own), and the stream
/// goes on with its next document.
final class LimitsTests: XCTestCase {
    private struct Outcome: Equatable, CustomStringConvertible {
        var events: [String]
        var errors: [String]   // "document code: message"
        var description: String { (events + errors).joined(separator: "\n") }
    }

    private func run(_ backend: FeedBackend, _ input: FeedInput, _ limits: FeedLimits) throws -> (Outcome, [FeedError]) {
        let log = EventLog()
        try backend.makeParser(limits: limits).parse(input, handler: log)
        let errors = log.errors.map { "\($0.document) \($0.code): \($0.message)" }
        return (Outcome(events: log.events, errors: errors), log.errors)
    }

    /// Every backend gives the same events and errors; returns them, and the errors of
    /// each backend (for positions).
    @discardableResult
    private func agree(_ xml: String, _ limits: FeedLimits, file: StaticString = #filePath, line: UInt = #line) throws
        -> (Outcome, [FeedBackend: [FeedError]])
    {
        var reference: Outcome?
        var errors: [FeedBackend: [FeedError]] = [:]
        for backend in FeedBackend.allCases {
            for input in [FeedInput.bytes(bytes(xml)), .bytes(gzip(bytes(xml)))] {
                let (outcome, errs) = try run(backend, input, limits)
                errors[backend] = errs
                if let reference {
                    XCTAssertEqual(outcome, reference, "\(backend)", file: file, line: line)
                } else {
                    reference = outcome
                }
            }
        }
        // Expat and Swift agree on the position of a limit passed at a tag (the
        // field-text limit too: it waits for the next start or end tag).
        let expat = errors[.expat] ?? [], swift = errors[.swift] ?? []
        XCTAssertEqual(expat.count, swift.count, file: file, line: line)
        for (e, s) in zip(expat, swift) where !e.message.contains("markup construct") {
            XCTAssertEqual([e.line, e.column], [s.line, s.column], "positions: \(e.message)", file: file, line: line)
        }
        for e in errors[.libxml2] ?? [] where e.code == .limitExceeded && !e.message.contains("document size") {
            XCTAssertGreaterThan(e.line, 0, "libxml2 gives a position", file: file, line: line)
        }
        return (reference!, errors)
    }

    private func doc(_ body: String, title: String = "a") -> String {
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title>"
            + "<item><title>first</title><guid>1</guid></item>\(body)</channel></rss>\n"
    }

    /// The `xml:lang`s in scope share the item limit: an entry's `xml:lang` that fits the
    /// entry but not what its feed's left is cut, here inside a character (two-byte `µ`s,
    /// 7 bytes of room). Every line is still UTF-8, and the same on every backend.
    func testAnXMLLangCutInsideACharacterByTheItemLimitStaysUTF8() throws {
        let xml = "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"\(String(repeating: "x", count: 95))\">"
            + "<title>T</title><entry xml:lang=\"\(String(repeating: "\u{B5}", count: 10))\"><id>1</id></entry></feed>"
        var outputs: [[UInt8]] = []
        for backend in FeedBackend.allCases {
            let out = try jsonLineBytes(.bytes(Array(xml.utf8)), source: "t",
                                        parser: backend.makeParser(maxItemBytes: 102)).bytes
            XCTAssertNotNil(String(validating: out, as: UTF8.self), "\(backend): not UTF-8")
            outputs.append(out)
        }
        for (o, backend) in zip(outputs, FeedBackend.allCases).dropFirst() {
            XCTAssertEqual(String(decoding: o, as: UTF8.self), String(decoding: outputs[0], as: UTF8.self), "\(backend)")
        }
        let lines = outputs[0].split(separator: 0x0A)
        XCTAssertEqual(lines.count, 2)   // the item, the feed
        let item = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0])) as? [String: Any])
        XCTAssertEqual(item["language"] as? String, "\u{B5}\u{B5}\u{B5}\u{FFFD}")   // the cut character replaced
    }

    func testDefaultsAreTheDocumentedOnes() {
        let l = FeedLimits()
        XCTAssertEqual([l.maxDepth, l.maxFieldBytes, l.maxAttributes, l.maxItems, l.maxDocumentBytes, l.maxRatio,
                        l.maxMarkupBytes],
                       [1024, 8 << 20, 256, 1_000_000, 1 << 30, 200, 8 << 20])
        XCTAssertEqual(l, .default)
        // The C core's defaults are the same numbers.
        XCTAssertEqual(Int(CFS_DEFAULT_MAX_DEPTH), l.maxDepth)
        XCTAssertEqual(Int(CFS_DEFAULT_MAX_ATTRIBUTES), l.maxAttributes)
        XCTAssertEqual(Int(CFS_DEFAULT_MAX_ITEMS), l.maxItems)
        XCTAssertEqual(Int(CFS_DEFAULT_MAX_RATIO), l.maxRatio)
        XCTAssertEqual(Int(CFS_RATIO_ACTIVATION), FeedLimits.ratioActivationBytes)
        XCTAssertEqual(String(cString: cfs_status_string(CFS_ERR_LIMIT)), "limit exceeded")
    }

    /// The limits' defaults, checkpoint sizes and message words are written once
    /// (limits.def): feedstream.h's CFS_DEFAULT_* and the Swift constants and messages
    /// are generated from it.
    func testTheLimitsAreGenerated() throws {
        try assertGeneratorIsCurrent("scripts/generate-limits.py")
        XCTAssertEqual(Int(CFS_DEFAULT_MAX_FIELD_BYTES), FeedLimits.defaultMaxFieldBytes)
        XCTAssertEqual(Int(CFS_DEFAULT_MAX_DOCUMENT_BYTES), FeedLimits.defaultMaxDocumentBytes)
        XCTAssertEqual(Int(CFS_DEFAULT_MAX_MARKUP_BYTES), FeedLimits.defaultMaxMarkupBytes)
        XCTAssertEqual(Int(CFS_DEFAULT_MAX_ITEM_BYTES), 64 << 20)
    }

    func testDepth() throws {
        var limits = FeedLimits()
        limits.maxDepth = 8   // rss channel item x x x x x: 8 deep is fine, 9 is not
        let ok = doc("<item><title>t</title><x><x><x><x><x/></x></x></x></x></item>")
        let (fine, _) = try agree(ok + doc("", title: "b"), limits)
        XCTAssertEqual(fine.errors, [])
        let bad = doc("<item><title>second</title><guid>2</guid></item><item><x><x><x><x><x><x/></x></x></x></x></x></item>")
        let (outcome, errors) = try agree(bad + doc("", title: "b"), limits)
        XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: element depth 9 > 8"])
        XCTAssertEqual(outcome.events.filter { $0.hasPrefix("item 1") }, ["item 1.0 id=1 title=first", "item 1.1 id=2 title=second"])
        XCTAssertTrue(outcome.events.contains("finish 2"), "the stream goes on: \(outcome)")
        let e = try XCTUnwrap(errors[.expat]?.first)
        XCTAssertEqual(e.line, 1)
        XCTAssertEqual(e.column, bad.range(of: "<x><x><x><x><x><x/>")!.lowerBound.utf16Offset(in: bad) + 1 + 3 * 5)
        // Inside a kept field (serialized as markup) and inside a skipped element alike.
        let (inField, _) = try agree(doc("<item><description><b><b><b><b><b><b>x</b></b></b></b></b></b></description></item>"), limits)
        XCTAssertEqual(inField.errors, ["1 limit: limit exceeded: element depth 9 > 8"])
    }

    func testAttributesCountWithNamespaceDeclarationsAndDefaults() throws {
        var limits = FeedLimits()
        limits.maxAttributes = 4
        let four = doc("<item><x xmlns:a=\"urn:a\" a:p=\"1\" q=\"2\" r=\"3\"/></item>")
        XCTAssertEqual(try agree(four, limits).0.errors, [])
        // Namespace declarations count (one element may not bind a hostile number of them).
        let declarations = doc("<item><x xmlns:a=\"urn:a\" xmlns=\"urn:d\" a:p=\"1\" q=\"2\" r=\"3\"/></item>")
        XCTAssertEqual(try agree(declarations, limits).0.errors, ["1 limit: limit exceeded: attributes 5 > 4"])
        let five = doc("<item><title>t</title><x p=\"1\" q=\"2\" r=\"3\" s=\"4\" t=\"5\"/></item>")
        let (outcome, _) = try agree(five, limits)
        XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: attributes 5 > 4"])
        XCTAssertEqual(outcome.events.filter { $0.hasPrefix("item") }, ["item 1.0 id=1 title=first"])
        // An attribute defaulted by the internal subset counts.
        let defaulted = "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ATTLIST x z CDATA \"d\">]>"
            + doc("<item><x p=\"1\" q=\"2\" r=\"3\" s=\"4\"/></item>").dropFirst("<?xml version=\"1.0\"?>".count)
        XCTAssertEqual(try agree(defaulted, limits).0.errors, ["1 limit: limit exceeded: attributes 5 > 4"])
    }

    func testFieldText() throws {
        var limits = FeedLimits()
        limits.maxFieldBytes = 100
        let exactly = doc("<item><title>\(String(repeating: "a", count: 100))</title></item>")
        XCTAssertEqual(try agree(exactly, limits).0.errors, [])
        // Text, references, CDATA and serialized markup all count; so does the feed's own text.
        for body in ["<item><title>\(String(repeating: "a", count: 101))</title></item>",
                     "<item><title>\(String(repeating: "&amp;", count: 101))</title></item>",
                     "<item><description><![CDATA[\(String(repeating: "<p>", count: 40))]]></description></item>",
                     "<item><description>\(String(repeating: "<br/>", count: 21))</description></item>",
                     "<description>\(String(repeating: "b", count: 300))</description>"] {
            let (outcome, _) = try agree(doc(body), limits)
            XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: field text > 100 bytes"], body)
            XCTAssertEqual(outcome.events.filter { $0.hasPrefix("item") }, ["item 1.0 id=1 title=first"], body)
        }
        // Text that is not kept is never held, whatever its size.
        XCTAssertEqual(try agree(doc("<x>\(String(repeating: "c", count: 10_000))</x>"), limits).0.errors, [])
        // maxItemBytes still truncates (it is not an error).
        let item = FeedLimits(maxFieldBytes: 100_000)
        for backend in FeedBackend.allCases {
            let truncated = try backend.makeParser(maxItemBytes: 20_000, limits: item)
                .documents(from: .bytes(bytes(doc("<item><title>\(String(repeating: "z", count: 30_000))</title></item>"))))
            XCTAssertEqual(truncated.first?.items.map(\.isTruncated), [false, true], "\(backend)")
            XCTAssertNil(truncated.first?.error, "\(backend)")
        }
    }

    /// The field-text limit stops the document at the first start or end tag after the
    /// field's text passed it (the text from there on is not kept): a place in the input,
    /// so the error is the same however the input was cut, on every backend: expat and
    /// swift at the tag's `<` (line, column, offset), libxml2 just after the tag, as at
    /// every tag.
    func testFieldTextLimitIsAtTheNextTagHoweverTheInputIsCut() throws {
        var limits = FeedLimits()
        limits.maxFieldBytes = 100
        let head = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>t</title>\n"
            + "<item><title>first</title></item>\n<item><title>second</title><description>"
        let tail = "<link>http://example.com/</link></item>\n<item><title>third</title></item></channel></rss>\n"
        // (text before the tag the document stops at, that tag, the rest of the field)
        let cases: [(before: String, tag: String, after: String)] = [
            (String(repeating: "word &amp; ", count: 30), "</description>", ""),
            (String(repeating: "a line\n", count: 40), "</description>", ""),
            ("<![CDATA[" + String(repeating: "<p>x</p>", count: 30) + "]]>", "</description>", ""),
            ("<b>" + String(repeating: "x", count: 120), "</b>", "more</description>"),
            (String(repeating: "z", count: 150), "<i>", "in</i></description>"),
            // Serialized markup: the 21st <br/>'s start tag passes 100 bytes; its end is
            // the next tag (an empty element's end is where the tag ends, on every backend).
            (String(repeating: "<br/>", count: 21), "", "</description>"),
        ]
        for c in cases {
            let xml = head + c.before + c.tag + c.after + tail
            let data = bytes(xml)
            let at = (head + c.before).utf8.count
            let lines = (head + c.before).split(separator: "\n", omittingEmptySubsequences: false)
            for backend in FeedBackend.allCases {
                var inputs: [(String, FeedInput)] = [("whole", .bytes(data)), ("gzip", .bytes(gzip(data)))]
                for size in [1, 7, 64, 101] { inputs.append(("chunks of \(size)", chunkedInput(data, size))) }
                var positions: Set<[Int]> = []
                for (how, input) in inputs {
                    let context = "\(backend), \(how): \(c.before.prefix(20))…\(c.tag)"
                    let (outcome, errors) = try run(backend, input, limits)
                    XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: field text > 100 bytes"], context)
                    XCTAssertEqual(outcome.events.filter { $0.hasPrefix("item") }, ["item 1.0 id=- title=first"], context)
                    let e = try XCTUnwrap(errors.first, context)
                    if backend == .libxml2 {
                        XCTAssertTrue((at...(at + c.tag.utf8.count)).contains(Int(e.offset)), "\(context): \(e.offset)")
                    } else {
                        XCTAssertEqual([Int(e.offset), e.line, e.column], [at, lines.count, lines.last!.utf8.count + 1], context)
                    }
                    XCTAssertEqual(e.skipped, UInt64(data.count - Int(e.offset)), context)
                    positions.insert([Int(e.offset), e.line, e.column, Int(e.skipped)])
                }
                XCTAssertEqual(positions.count, 1, "\(backend): one error however the input is cut: \(positions)")
            }
        }
    }

    func testItems() throws {
        var limits = FeedLimits()
        limits.maxItems = 3
        var items = ""
        for i in 2...5 { items += "<item><title>t\(i)</title><guid>\(i)</guid></item>" }
        let (outcome, _) = try agree(doc(items) + doc("<item><title>next</title></item>", title: "b"), limits)
        XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: items 4 > 3"])
        XCTAssertEqual(outcome.events.filter { $0.hasPrefix("item") }, [
            "item 1.0 id=1 title=first", "item 1.1 id=2 title=t2", "item 1.2 id=3 title=t3",
            "item 2.0 id=1 title=first", "item 2.1 id=- title=next",
        ])
        // Atom entries and RSS 1.0 items (siblings of the channel) count the same.
        let atom = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>f</title>"
            + String(repeating: "<entry><title>e</title></entry>", count: 4) + "</feed>"
        XCTAssertEqual(try agree(atom, limits).0.errors, ["1 limit: limit exceeded: items 4 > 3"])
        let rdf = "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://purl.org/rss/1.0/\">"
            + "<channel><title>c</title></channel>" + String(repeating: "<item><title>i</title></item>", count: 4) + "</rdf:RDF>"
        XCTAssertEqual(try agree(rdf, limits).0.errors, ["1 limit: limit exceeded: items 4 > 3"])
    }

    func testDocumentSizeFailsTheDocumentAtItsByteAndTheNextOneParses() throws {
        let first = doc("<item><title>second</title><guid>2</guid></item>" + String(repeating: "<x>filler</x>", count: 50))
        let second = doc("", title: "b")
        let cut = first.utf8.count - 200
        var limits = FeedLimits()
        limits.maxDocumentBytes = cut
        let (outcome, errors) = try agree(first + second, limits)
        XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: document size > \(cut) bytes"])
        XCTAssertEqual(outcome.events.filter { $0.hasPrefix("item") }, [
            "item 1.0 id=1 title=first", "item 1.1 id=2 title=second", "item 2.0 id=1 title=first",
        ])
        for (backend, errs) in errors {
            XCTAssertEqual(errs.first?.offset, UInt64(cut), "\(backend): the first byte past the limit")
        }
        // Wherever the input is cut.
        for piece in [1, 7, 4096] {
            for backend in FeedBackend.allCases {
                let feeder = Pieces(bytes(first + second), piece: piece)
                let (o, _) = try run(backend, .chunks(FeedChunks { feeder.next() }), limits)
                XCTAssertEqual(o, outcome, "\(backend), pieces of \(piece)")
            }
        }
        // A document of exactly the limit is fine.
        limits.maxDocumentBytes = first.utf8.count
        XCTAssertEqual(try agree(first + second, limits).0.errors, [])
    }

    func testGzipRatioStopsABombOnEveryBackend() throws {
        // 64 MiB of spaces in a skipped element: about 64 KiB compressed.
        var xml = bytes(doc("<x>"))
        xml.removeLast("</channel></rss>\n".utf8.count)
        xml += [UInt8](repeating: 0x20, count: 64 << 20) + bytes("</x></channel></rss>\n")
        let bomb = gzip(xml, level: 9)
        XCTAssertLessThan(bomb.count, 200_000)
        var reference: Outcome?
        for backend in FeedBackend.allCases {
            let (outcome, errors) = try run(backend, .bytes(bomb), .default)
            XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: decompression ratio > 200"], "\(backend)")
            XCTAssertEqual(outcome.events.filter { $0.hasPrefix("item") }, ["item 1.0 id=1 title=first"], "\(backend)")
            // Stopped soon after the activation threshold, not at the end of the bomb.
            let offset = try XCTUnwrap(errors.first?.offset)
            XCTAssertLessThanOrEqual(offset, UInt64(FeedLimits.ratioActivationBytes + (256 << 10)), "\(backend)")
            if let reference { XCTAssertEqual(outcome, reference, "\(backend)") } else { reference = outcome }
            // The same through the read-ahead pipeline (inflate on another thread).
            let log = EventLog()
            let fd = try temporaryFile(bomb)
            defer { close(fd) }
            try ReadAheadPipeline().parse(fileDescriptor: fd, with: backend.makeParser(), handler: log)
            XCTAssertEqual(log.errors.map(\.message), ["limit exceeded: decompression ratio > 200"], "\(backend), pipeline")
            // No limit: the whole bomb is inflated and the document is fine.
            XCTAssertEqual(try run(backend, .bytes(bomb), FeedLimits(maxRatio: 0)).0.errors, [], "\(backend)")
        }
        // Ordinary gzip (the generator's feeds compress about 5 to 10 times) never trips it.
        var big = ""
        for i in 0..<250_000 { big += "<item><title>Item \(i) of a feed</title><guid>urn:x:\(i * 7919 % 100_003)</guid></item>" }
        XCTAssertEqual(try run(.expat, .bytes(gzip(bytes(doc(big)))), .default).0.errors, [])
    }

    func testMarkupConstructs() throws {
        var limits = FeedLimits()
        limits.maxMarkupBytes = 1 << 20
        let big = String(repeating: "0123456789abcdef", count: (2 << 20) / 16)
        let small = String(big.prefix(512 << 10))
        let constructs = [
            { (s: String) in "<!--\(s)-->" },
            { (s: String) in "<?pi \(s)?>" },
            { (s: String) in "<x a=\"\(s)\"/>" },
            { (s: String) in "<x><![CDATA[\(s)]]></x>" },
        ]
        for (k, construct) in constructs.enumerated() {
            XCTAssertEqual(try agree(doc(construct(small)), limits).0.errors, [], "construct \(k), 512 KiB")
            let (outcome, _) = try agree(doc(construct(big)) + doc("", title: "b"), limits)
            XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: markup construct > 1048576 bytes"], "construct \(k)")
            XCTAssertEqual(outcome.events.filter { $0.hasPrefix("item") }, ["item 1.0 id=1 title=first", "item 2.0 id=1 title=first"],
                           "construct \(k)")
        }
        // The DOCTYPE with its internal subset is one construct.
        let doctype = "<?xml version=\"1.0\"?><!DOCTYPE rss [<!-- \(big) -->]>" + doc("").dropFirst("<?xml version=\"1.0\"?>".count)
        XCTAssertEqual(try agree(doctype, limits).0.errors, ["1 limit: limit exceeded: markup construct > 1048576 bytes"])
        // Character data is streamed, not limited.
        XCTAssertEqual(try agree(doc("<x>\(big)</x>"), limits).0.errors, [])
    }

    /// A CDATA section over the markup limit fails at its `<` (its line, column and
    /// offset), the same on every backend however the input is cut: the tokenizers that
    /// stream a section (expat, libxml2) reported it where they were when the check ran,
    /// after some chunk, and expat the field-text limit instead when the section was a
    /// kept field's. The search for the next document then goes on past the section's
    /// first N + 1 bytes (read as its own, not read again), after a look back into them
    /// for a document the section took in (a dump's document cut short in CDATA).
    func testACDATASectionOverTheMarkupLimitFailsAtItsStart() throws {
        let limits = FeedLimits(maxMarkupBytes: 4096)
        // Over N by more than a chunk (the limit is checked after each: 256 KiB), so that
        // it fails however the input is cut. 300,000 bytes, 16,667 lines.
        let text = String(repeating: "<p>0123456789</p>\n", count: 16_667)
        let next = doc("", title: "b")
        for (field, close) in [("<item><description>", "</description></item>"), ("<x>", "</x>")] {
            let head = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>a</title>\n"
                + "<item><title>first</title><guid>1</guid></item>\n" + field
            let xml = head + "<![CDATA[" + text + "]]>" + close + "</channel></rss>\n" + next
            let data = bytes(xml)
            let reference = try lines(.swift, .bytes(data), limits)
            let first = String(decoding: reference, as: UTF8.self).split(separator: "\n")
                .first { $0.contains("\"kind\":\"feed\"") }.map(String.init) ?? ""
            // At the section's '<': line 4, its column, its offset; skipped to the next document.
            let headBytes = bytes(head)
            let at = headBytes.count
            let column = at - (headBytes.lastIndex(of: UInt8(ascii: "\n"))! + 1) + 1
            XCTAssertTrue(first.contains("\"error\":{\"code\":\"limit\",\"message\":\"limit exceeded: markup construct > 4096 bytes\","
                                         + "\"line\":4,\"column\":\(column),\"offset\":\(at),\"skipped\":\(data.count - next.utf8.count - at)}"),
                          "\(field): \(first)")
            XCTAssertTrue(String(decoding: reference, as: UTF8.self).contains("\"title\":\"b\""), field)
            for backend in FeedBackend.allCases {
                var inputs: [(String, FeedInput)] = [("whole", .bytes(data)), ("gzip", .bytes(gzip(data)))]
                for size in [7, 1000, 4097, 65536] { inputs.append(("chunks of \(size)", chunkedInput(data, size))) }
                for (name, input) in inputs {
                    // expat gives the line and column where it stands when the check runs
                    // (asking it at each section's start costs a pass over the bytes).
                    let got = try lines(backend, input, limits)
                    XCTAssertTrue(backend == .expat ? withoutPosition(got) == withoutPosition(reference) : got == reference,
                                  "\(field) \(backend), \(name)")
                }
            }
        }
        // Cut short in CDATA, the section taking in the next documents past the limit: the
        // first of them is found in its first bytes, and the documents after it are read.
        let cut = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>a</title>"
            + "<item><title>first</title></item><item><description><![CDATA[<p>cut"
        let many = (0..<8000).map { "<item><title>b\($0)</title></item>" }.joined()   // 280 KB
        let dump = bytes(cut + doc(many, title: "b") + doc(many, title: "c"))
        let reference = try lines(.swift, .bytes(dump), limits)
        let titles = String(decoding: reference, as: UTF8.self).split(separator: "\n").filter { $0.contains("\"kind\":\"feed\"") }
        XCTAssertEqual(titles.count, 3, "\(titles.map { $0.prefix(300) })")
        XCTAssertTrue(titles.first?.contains("document cut short: the next document starts here") == true, "\(titles)")
        for backend in FeedBackend.allCases {
            for (name, input) in [("whole", FeedInput.bytes(dump)), ("gzip", .bytes(gzip(dump))), ("chunks", chunkedInput(dump, 333))] {
                XCTAssertTrue(try lines(backend, input, limits) == reference, "cut: \(backend), \(name)")
            }
        }
        // Documents that each open a section running to the end: each section's first
        // bytes are read once, so the documents are a handful, not one per declaration.
        let sections = bytes(String(repeating: "<?xml version=\"1.0\"?><rss><![CDATA[", count: 20_000))   // 700 KB
        for backend in FeedBackend.allCases {
            let (outcome, _) = try run(backend, .bytes(sections), limits)
            XCTAssertLessThan(outcome.errors.count, 600, "\(backend): \(outcome.errors.prefix(5))")
            XCTAssertGreaterThan(outcome.errors.count, 2, "\(backend)")
        }
        XCTAssertEqual(withoutPosition(try lines(.expat, .bytes(sections), limits)),
                       withoutPosition(try lines(.swift, .bytes(sections), limits)))
    }

    /// The markup-construct limit is checked at the document's checkpoints, every 256 KiB
    /// of its bytes counted from its first: a construct over N held unfinished at one
    /// fails the document at its `<`, one that ends between two passes. So the outcome is
    /// the same from every backend however the input is cut (whole, gzip, chunks of any
    /// size: before, a caller's small chunks failed constructs that 256 KiB reads passed)
    /// and wherever the document begins in the stream.
    func testTheMarkupLimitIsCheckedAtTheDocumentsCheckpointsHoweverTheInputIsCut() throws {
        let limits = FeedLimits(maxMarkupBytes: 4096)
        let head = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>a</title>\n"
        let item = "<item><title>t</title><description>" + String(repeating: "x", count: 200) + "</description></item>\n"
        let comment = "<!--" + String(repeating: "c", count: 10_000) + "-->"   // 2.4 times N
        let tail = "<item><title>after</title></item></channel></rss>\n"
        // Across the first checkpoint, 5,000 of its bytes before it.
        let before = head + String(repeating: item, count: 800)
        let pad = InputStage.chunkSize - 5_000 - before.utf8.count - "<x></x>".utf8.count
        let across = before + "<x>" + String(repeating: "y", count: pad) + "</x>" + comment + tail
        let at = across.utf8.count - tail.utf8.count - comment.utf8.count
        XCTAssertEqual(at, InputStage.chunkSize - 5_000)
        // Ending before it.
        let within = head + comment + String(repeating: item, count: 800) + tail
        // A document of 6,100 bytes first: its checkpoints would put one before the comment
        // if they were the stream's.
        let other = doc(String(repeating: "<item><title>p</title></item>", count: 200), title: "b")
        XCTAssertGreaterThan(other.utf8.count, 5_000)
        for (name, xml, fails) in [("across", across, true), ("within", within, false)] {
            for (streamName, stream, start) in [("first", xml + other, 0), ("second", other + xml, other.utf8.count)] {
                let data = bytes(stream)
                let reference = try lines(.swift, .bytes(data), limits)
                let text = String(decoding: reference, as: UTF8.self)
                let items = text.split(separator: "\n").filter { $0.contains("\"kind\":\"item\"") }.count
                if fails {
                    let column = at - (bytes(before).lastIndex(of: UInt8(ascii: "\n"))! + 1) + 1
                    let skipped = xml.utf8.count - at
                    XCTAssertTrue(text.contains("\"error\":{\"code\":\"limit\",\"message\":\"limit exceeded: markup construct > 4096 bytes\","
                                                + "\"line\":803,\"column\":\(column),\"offset\":\(start + at),\"skipped\":\(skipped)}"),
                                  "\(name), \(streamName): \(text.suffix(2000))")
                    XCTAssertEqual(items, 800 + 201, "\(name), \(streamName)")
                } else {
                    XCTAssertFalse(text.contains("\"error\""), "\(name), \(streamName)")
                    XCTAssertEqual(items, 801 + 201, "\(name), \(streamName)")
                }
                for backend in FeedBackend.allCases {
                    var inputs: [(String, FeedInput)] = [("whole", .bytes(data)), ("gzip", .bytes(gzip(data)))]
                    for size in [7, 1000, 4097, 65536, 300_000] { inputs.append(("chunks of \(size)", chunkedInput(data, size))) }
                    for (inputName, input) in inputs {
                        XCTAssertTrue(try lines(backend, input, limits) == reference, "\(name), \(streamName): \(backend), \(inputName)")
                    }
                }
            }
        }
    }

    /// The lines without the line and column of their errors.
    private func withoutPosition(_ lines: [UInt8]) -> String {
        String(decoding: lines, as: UTF8.self).replacingOccurrences(
            of: "\"line\":[0-9]+,\"column\":[0-9]+,", with: "", options: .regularExpression)
    }

    private func lines(_ backend: FeedBackend, _ input: FeedInput, _ limits: FeedLimits) throws -> [UInt8] {
        let out = MemoryOutput()
        let writer = JSONLinesWriter(output: out)
        writer.source = "limits"
        try backend.makeParser(limits: limits).parse(input, handler: writer)
        try writer.flush()
        return out.bytes
    }

    /// A bomb made of items: where the ratio stops it, and so which items come out, does
    /// not depend on the backend or on how the compressed input is cut.
    func testGzipRatioStopsAtTheSameItemWhereverTheInputIsCut() throws {
        var xml = bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>b</title>")
        let item = bytes("<item><title>x</title><guid>same</guid></item>")
        xml.reserveCapacity(item.count * 700_000)
        for _ in 0..<700_000 { xml += item }
        xml += bytes("</channel></rss>\n")
        let bomb = gzip(xml, level: 9)
        XCTAssertGreaterThan(xml.count / bomb.count, 200, "the test needs a ratio past the limit")
        var reference: (Outcome, UInt64?)?
        let runs = FeedBackend.allCases.flatMap { backend in [bomb.count, 4_093].map { (backend, $0) } }
        for (backend, piece) in TestSample.take(runs) {
            let feeder = Pieces(bomb, piece: piece)
            let (outcome, errors) = try run(backend, .chunks(FeedChunks { feeder.next() }), .default)
            XCTAssertEqual(outcome.errors, ["1 limit: limit exceeded: decompression ratio > 200"], "\(backend), \(piece)")
            let here = (outcome, errors.first?.offset)
            if let reference {
                XCTAssertEqual(here.0.events.count, reference.0.events.count, "\(backend), pieces of \(piece)")
                XCTAssertEqual(here.0, reference.0, "\(backend), pieces of \(piece)")
            } else {
                reference = here
                XCTAssertGreaterThan(outcome.events.count, 100_000, "items before the checkpoint are delivered")
            }
        }
    }

    func testUnlimitedAndZeroMeanNoLimit() throws {
        let deep = doc("<item>" + String(repeating: "<x>", count: 3000) + String(repeating: "</x>", count: 3000) + "</item>")
        for limits in [FeedLimits.unlimited, FeedLimits(maxDepth: 0)] {
            XCTAssertEqual(try agree(deep, limits).0.errors, [])
        }
        XCTAssertEqual(try agree(deep, .default).0.errors, ["1 limit: limit exceeded: element depth 1025 > 1024"])
    }

    func testTheCAPIReportsCFSErrLimit() throws {
        var options = cfs_options()
        cfs_options_init(&options)
        options.limits.max_depth = 3
        let p = try XCTUnwrap(cfs_parser_create(&options, nil, nil))
        defer { cfs_parser_destroy(p) }
        let xml = bytes("<rss><channel><item><title>x</title></item></channel></rss>")
        XCTAssertEqual(xml.withUnsafeBytes { cfs_parser_feed(p, $0.baseAddress, $0.count) }, CFS_OK)
        XCTAssertEqual(cfs_parser_finish(p), CFS_ERR_LIMIT)
        let e = try XCTUnwrap(cfs_parser_error(p)).pointee
        XCTAssertEqual(String(cString: e.message), "limit exceeded: element depth 4 > 3")
        XCTAssertEqual(e.document, 1)
        XCTAssertEqual(e.line, 1)
        XCTAssertEqual(e.column, 21)
    }

    /// A gzip stream of a document of incompressible text, then one that inflates ~18 MB
    /// from little: over the second document alone the ratio passes 50 once 16 MiB came
    /// out; over the whole stream it stays near 30.
    private func ratioMix() -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var noise = [UInt8](repeating: 0, count: 600_000)
        for i in noise.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            noise[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        var xml = bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>noise</title><item><title>"
                        + Data(noise).base64EncodedString() + "</title><guid>n</guid></item></channel></rss>\n")
        xml += bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>bomb</title>")
        let filler = [UInt8](repeating: 0x20, count: 10_000)
        for i in 0..<1_800 { xml += bytes("<item><title>b</title><guid>\(i)</guid></item>") + filler }
        xml += bytes("</channel></rss>\n")
        return gzip(xml)
    }

    /// Where the ratio stops a stream, and so which items come out, does not depend on
    /// how the input arrives: in one piece, in pieces of any size, from a descriptor, or
    /// through the read-ahead pipeline (inflated on another thread, in buffers of any
    /// size). The window is the last document begun, whichever thread inflates (over the
    /// whole stream, the ratio would let this one through).
    func testTheRatioWindowIsTheSameWhateverTheChunkingOrThread() throws {
        let mix = ratioMix()
        var limits = FeedLimits()
        limits.maxRatio = 50
        var reference: (Outcome, UInt64?)?
        for backend in FeedBackend.allCases {
            var outcomes: [(String, Outcome, UInt64?)] = []
            for piece in backend == .expat ? [mix.count, 4_093, 65_536, 1 << 20] : [mix.count, 4_093] {
                let feeder = Pieces(mix, piece: piece)
                let (o, e) = try run(backend, .chunks(FeedChunks { feeder.next() }), limits)
                outcomes.append(("pieces of \(piece)", o, e.first?.offset))
            }
            let fd = try temporaryFile(mix)
            defer { close(fd) }
            let (o, e) = try run(backend, .fileDescriptor(fd), limits)
            outcomes.append(("descriptor", o, e.first?.offset))
            XCTAssertEqual(lseek(fd, 0, SEEK_SET), 0)
            let direct = try backend.makeParser(limits: limits).parse(.fileDescriptor(fd), handler: EventLog())
            let shapes = backend == .expat ? [(256 << 10, 3), (1000, 1), (100_000, 2), (1 << 20, 2)] : [(256 << 10, 3), (1000, 1)]
            for (chunkSize, depth) in shapes {
                XCTAssertEqual(lseek(fd, 0, SEEK_SET), 0)
                let log = EventLog()
                let summary = try ReadAheadPipeline(chunkSize: chunkSize, depth: depth)
                    .parse(fileDescriptor: fd, with: backend.makeParser(limits: limits), handler: log)
                // The same counts, bytes read included (not what the reading thread read ahead).
                XCTAssertEqual(summary, direct, "\(backend), pipeline \(chunkSize)x\(depth)")
                let errors = log.errors.map { "\($0.document) \($0.code): \($0.message)" }
                outcomes.append(("pipeline \(chunkSize)x\(depth)", Outcome(events: log.events, errors: errors),
                                 log.errors.first?.offset))
            }
            for (label, outcome, offset) in outcomes {
                XCTAssertEqual(outcome.errors, ["2 limit: limit exceeded: decompression ratio > 50"], "\(backend), \(label)")
                // Stopped just past the activation, in the second document.
                let items = outcome.events.filter { $0.hasPrefix("item 2.") }.count
                XCTAssertGreaterThan(items, 1_500, "\(backend), \(label)")
                XCTAssertLessThan(items, 1_800, "\(backend), \(label)")
                if backend == .libxml2 {
                    // libxml2's positions are its own; its events are the same.
                    XCTAssertEqual(outcome, reference?.0, "\(backend), \(label)")
                } else if let reference {
                    XCTAssertTrue(outcome == reference.0 && offset == reference.1,
                                  "\(backend), \(label): \(items) items, offset \(offset ?? 0)")
                } else {
                    reference = (outcome, offset)
                }
            }
        }
        // Without the limit every item comes out, through the pipeline too.
        let fd = try temporaryFile(mix)
        defer { close(fd) }
        let log = EventLog()
        try ReadAheadPipeline().parse(fileDescriptor: fd, with: ExpatFeedParser(limits: .unlimited), handler: log)
        XCTAssertEqual(log.errors.count, 0)
        XCTAssertEqual(log.events.filter { $0.hasPrefix("item") }.count, 1 + 1_800)
    }

    /// Every attribute of an element within `maxAttributes` reaches the state machine:
    /// every tokenizer (the C adapters and the Swift one) passes them all, not a first 64,
    /// so an enclosure's `url` past the 64th is kept (`maxAttributes` allows 256).
    func testAnAttributePastTheSixtyFourthReachesTheMachine() throws {
        let filler = (1...99).map { " a\($0)=\"\($0)\"" }.joined()
        let xml = doc("<item><title>t</title><guid>2</guid><enclosure\(filler) url=\"https://example.com/a.mp3\"/></item>")
        var reference: [FeedDocument]?
        for backend in FeedBackend.allCases {
            let documents = try backend.makeParser().documents(from: .bytes(bytes(xml)))
            XCTAssertEqual(documents.first?.items.last?.enclosures, [FeedEnclosure(url: "https://example.com/a.mp3")],
                           "\(backend)")
            if let reference { XCTAssertEqual(documents, reference, "\(backend)") } else { reference = documents }
        }
        // 100 attributes, a limit of 99: the document fails on every backend.
        var limits = FeedLimits()
        limits.maxAttributes = 99
        XCTAssertEqual(try agree(xml, limits).0.errors, ["1 limit: limit exceeded: attributes 100 > 99"])
    }

    /// The C API: 0 means no limit, as in FeedLimits; cfs_options_init fills the
    /// defaults; a struct not filled by it is refused.
    func testTheCOptionsZeroIsNoLimitAndInitGivesTheDefaults() throws {
        var options = cfs_options()
        cfs_options_init(&options)
        XCTAssertEqual(options.struct_size, MemoryLayout<cfs_options>.size)
        XCTAssertEqual(options.backend, CFS_BACKEND_EXPAT)
        XCTAssertEqual(options.max_item_bytes, 64 << 20)
        let d = cfs_limits_default()
        let l = FeedLimits.default
        XCTAssertEqual([d.max_depth, d.max_field_bytes, d.max_attributes, d.max_items, d.max_document_bytes, d.max_ratio,
                        d.max_markup_bytes].map(Int.init),
                       [l.maxDepth, l.maxFieldBytes, l.maxAttributes, l.maxItems, l.maxDocumentBytes, l.maxRatio,
                        l.maxMarkupBytes])
        XCTAssertEqual([options.limits.max_depth, options.limits.max_ratio], [d.max_depth, d.max_ratio])
        XCTAssertEqual(Int(CFS_RATIO_INTERVAL), InputStage.chunkSize)
        let deep = bytes("<rss><channel>" + String(repeating: "<x>", count: 2000) + String(repeating: "</x>", count: 2000)
                         + "<item><title>x</title></item></channel></rss>")
        func status(_ options: inout cfs_options) throws -> cfs_status {
            let p = try XCTUnwrap(cfs_parser_create(&options, nil, nil))
            defer { cfs_parser_destroy(p) }
            _ = deep.withUnsafeBytes { cfs_parser_feed(p, $0.baseAddress, $0.count) }
            return cfs_parser_finish(p)
        }
        XCTAssertEqual(try status(&options), CFS_ERR_LIMIT, "the default depth, 1024")
        options.limits.max_depth = 0
        XCTAssertEqual(try status(&options), CFS_OK, "0: no limit")
        options.limits.max_depth = UInt64.max   // CFS_UNLIMITED (a macro Swift does not import)
        XCTAssertEqual(try status(&options), CFS_OK)
        // NULL: the defaults.
        let p = try XCTUnwrap(cfs_parser_create(nil, nil, nil))
        _ = deep.withUnsafeBytes { cfs_parser_feed(p, $0.baseAddress, $0.count) }
        XCTAssertEqual(cfs_parser_finish(p), CFS_ERR_LIMIT)
        cfs_parser_destroy(p)
        // A struct zeroed by hand (its limits would all read "no limit") or from a newer
        // header is refused; an older, smaller one keeps the defaults of what it lacks.
        var zeroed = cfs_options()
        XCTAssertNil(cfs_parser_create(&zeroed, nil, nil))
        options.struct_size = MemoryLayout<cfs_options>.size + 8
        XCTAssertNil(cfs_parser_create(&options, nil, nil))
        options.limits.max_depth = 0
        options.struct_size = MemoryLayout<cfs_options>.offset(of: \cfs_options.limits)!
        XCTAssertEqual(try status(&options), CFS_ERR_LIMIT, "limits not in the struct: the defaults")
    }

    /// cfs_parser_feed_inflated: bytes inflated by the caller, the ratio checked at the
    /// checkpoints with the caller's counts; misuse refused.
    func testTheCFeedInflatedChecksTheRatio() throws {
        let xml = bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>b</title>")
            + [UInt8](repeating: 0x20, count: 20 << 20) + bytes("<item><title>x</title></item></channel></rss>\n")
        let p = try XCTUnwrap(cfs_parser_create(nil, nil, nil))
        defer { cfs_parser_destroy(p) }
        let chunk = Int(CFS_RATIO_INTERVAL)
        var status = CFS_OK
        var offset = 0
        xml.withUnsafeBytes { b in
            // Past a checkpoint in one call: refused, nothing parsed.
            XCTAssertEqual(cfs_parser_feed_inflated(p, b.baseAddress, chunk + 1, 0), CFS_ERR_MISUSE)
            // 1 compressed byte per checkpoint: a bomb.
            while offset < b.count && status == CFS_OK {
                let n = min(chunk, b.count - offset)
                status = cfs_parser_feed_inflated(p, b.baseAddress! + offset, n, UInt64(offset / chunk + 1))
                offset += n
            }
            XCTAssertEqual(cfs_parser_feed(p, b.baseAddress, 1), CFS_ERR_LIMIT, "fatal: sticky")
        }
        XCTAssertEqual(status, CFS_ERR_LIMIT)
        XCTAssertEqual(offset, Int(CFS_RATIO_ACTIVATION) + chunk, "at the first checkpoint past the activation")
        XCTAssertEqual(String(cString: cfs_parser_error(p)!.pointee.message), "limit exceeded: decompression ratio > 200")
        XCTAssertEqual(cfs_parser_finish(p), CFS_ERR_LIMIT)

        // A part of the stream from 100 bytes before a checkpoint (cfs_parser_inflated_origin):
        // its first chunk ends there, and the window's compressed count starts at the
        // origin's checkpoint, so 1 compressed byte per checkpoint fails at the same place.
        cfs_parser_reset(p)
        let origin = UInt64(3 * chunk - 100)
        XCTAssertEqual(cfs_parser_inflated_origin(p, origin, 2), CFS_OK)
        status = CFS_OK
        offset = 0
        xml.withUnsafeBytes { b in
            XCTAssertEqual(cfs_parser_feed_inflated(p, b.baseAddress, 101, 0), CFS_ERR_MISUSE, "past the stream's checkpoint")
            while offset < b.count && status == CFS_OK {
                let n = min(offset == 0 ? 100 : chunk, b.count - offset)
                status = cfs_parser_feed_inflated(p, b.baseAddress! + offset, n, UInt64(offset / chunk + 3))
                offset += n
            }
        }
        XCTAssertEqual(status, CFS_ERR_LIMIT)
        // The window passes the activation at the stream's checkpoint 100 + 64 chunks in.
        XCTAssertEqual(offset, Int(CFS_RATIO_ACTIVATION) + 100, "the first of the stream's checkpoints past the activation")
        XCTAssertEqual(cfs_parser_inflated_origin(p, 0, 0), CFS_ERR_MISUSE, "after a feed")
        XCTAssertEqual(cfs_parser_finish(p), CFS_ERR_LIMIT)
    }

    private func temporaryFile(_ data: [UInt8]) throws -> Int32 {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("feedstream-limits-\(UUID().uuidString)").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(data)))
        let fd = open(path, O_RDONLY)
        unlink(path)
        return fd
    }
}

/// Hands out `data` in pieces of a fixed size (one buffer, reused).
private final class Pieces: @unchecked Sendable {
    private let data: [UInt8]
    private let piece: Int
    private var offset = 0
    private let buffer: UnsafeMutableRawBufferPointer

    init(_ data: [UInt8], piece: Int) {
        self.data = data
        self.piece = piece
        buffer = .allocate(byteCount: piece, alignment: 1)
    }

    deinit { buffer.deallocate() }

    func next() -> UnsafeRawBufferPointer? {
        guard offset < data.count else { return nil }
        let n = min(piece, data.count - offset)
        data.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
        offset += n
        return UnsafeRawBufferPointer(start: buffer.baseAddress, count: n)
    }
}
