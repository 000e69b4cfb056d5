// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamTestSupport
import Foundation
import XCTest

/// Concatenated gzip, as archives hold it, with a member that cannot be read: the
/// members after it are still converted, and the compressed bytes skipped are an error
/// of their own (a gap) — on every backend, whole or in any pieces, the parser inflating
/// or the read-ahead thread.
final class GzipGapTests: XCTestCase {
    /// One member per feed, each with two items.
    private func members(_ count: Int, prefix: String = "m") -> [[UInt8]] {
        (0..<count).map { gzip(bytes(rss("\(prefix)\($0)", items: 2))) }
    }

    /// Where each member starts in their concatenation, and its end.
    private func starts(_ ms: [[UInt8]]) -> [UInt64] {
        var at: UInt64 = 0
        var s: [UInt64] = []
        for m in ms {
            s.append(at)
            at += UInt64(m.count)
        }
        return s + [at]
    }

    /// `m` with bytes flipped in the middle of its deflate data.
    private func corrupted(_ m: [UInt8]) -> [UInt8] {
        var m = m
        for k in (m.count / 2)..<(m.count / 2 + 4) { m[k] ^= 0xA5 }
        return m
    }


    /// Every way `stream` reaches a parser: whole, in pieces (the parser inflating), and
    /// through the read-ahead pipeline (a thread inflating), on every backend.
    private func ways(_ stream: [UInt8]) -> [(String, (EventLog) throws -> ParseSummary)] {
        var runs: [(String, (EventLog) throws -> ParseSummary)] = []
        for backend in FeedBackend.allCases {
            runs.append(("\(backend) whole", { try backend.makeParser().parse(.bytes(stream), handler: $0) }))
            for size in [1, 7, 4096] {
                runs.append(("\(backend) pieces of \(size)", { log in
                    let chunks = ChunkList(stream, size: size)
                    return try backend.makeParser().parse(.chunks(FeedChunks { chunks.next() }), handler: log)
                }))
            }
            for size in [1, 333, 256 << 10] {
                runs.append(("\(backend) read ahead in \(size)", { [self] log in
                    let fd = try temporaryDescriptor(stream)
                    defer { close(fd) }
                    return try ReadAheadPipeline(chunkSize: size, depth: 2)
                        .parse(fileDescriptor: fd, with: backend.makeParser(), handler: log)
                }))
            }
        }
        return runs
    }

    /// The titles of the items delivered.
    private func titles(_ log: EventLog) -> [String] {
        log.events.compactMap { e in e.hasPrefix("item ") ? e.components(separatedBy: " title=").last : nil }
    }

    /// Checks every way gives the same events and errors, that every item of the feeds
    /// named `kept` comes out, in order, and returns the errors.
    @discardableResult
    private func assertEveryWay(_ stream: [UInt8], keeps kept: [String], file: StaticString = #filePath,
                                line: UInt = #line) throws -> [FeedError] {
        var first: EventLog?
        for (label, run) in ways(stream) {
            let log = EventLog()
            _ = try run(log)
            let got = titles(log)
            let want = kept.flatMap { ["\($0) 0", "\($0) 1"] }
            XCTAssertEqual(got.filter { t in kept.contains { t.hasPrefix($0 + " ") } }, want, label, file: file, line: line)
            if let first {
                XCTAssertEqual(log.events, first.events, label, file: file, line: line)
                XCTAssertEqual(log.errors, first.errors, label, file: file, line: line)
            } else {
                first = log
            }
        }
        return first?.errors ?? []
    }

    private func gaps(_ errors: [FeedError]) -> [FeedError] { errors.filter { $0.compressedRange != nil } }

    func testACorruptMemberKeepsEveryMemberAfterIt() throws {
        var ms = members(50)
        ms[20] = corrupted(ms[20])
        let s = starts(ms)
        let errors = try assertEveryWay(ms.flatMap { $0 }, keeps: (0..<50).filter { $0 != 20 }.map { "m\($0)" })
        let gap = try XCTUnwrap(gaps(errors).first)
        XCTAssertEqual(gaps(errors).count, 1)
        XCTAssertEqual(gap.code, .gzip)
        XCTAssertEqual(gap.message, "corrupt gzip data")
        XCTAssertEqual(gap.document, 0)
        XCTAssertEqual(gap.compressedRange, s[20]..<s[21], "from the member's first byte to the next member")
        // The feed the member held failed, before the gap.
        XCTAssertTrue(errors.contains { $0.document == 21 }, "\(errors)")
    }

    func testAMemberCutShortIsSkippedToTheMemberAfterIt() throws {
        // Cut short, the member runs on into the next one before the decoder notices:
        // the next member begins inside the bytes it was reading.
        var ms = members(12)
        ms[5] = Array(ms[5][0..<(ms[5].count / 2)])
        let s = starts(ms)
        let errors = try assertEveryWay(ms.flatMap { $0 }, keeps: (0..<12).filter { $0 != 5 }.map { "m\($0)" })
        XCTAssertEqual(gaps(errors).map(\.compressedRange), [s[5]..<s[6]])
    }

    func testAMemberCutShortIsFoundInTheBytesItRanOnIntoWhateverTheCuts() throws {
        // Members of many items, so that the next member's start comes in the middle of
        // a piece, or of the bytes inflate takes at once.
        var ms = (0..<8).map { gzip(bytes(rss("b\($0)", items: 300))) }
        XCTAssertGreaterThan(ms[3].count, 2000)
        ms[3] = Array(ms[3][0..<(ms[3].count * 2 / 3)])
        ms[5][ms[5].count / 2] ^= 0x5A
        let s = starts(ms)
        let stream = ms.flatMap { $0 }
        for backend in FeedBackend.allCases {
            for size in [1, 333, 4096, stream.count] {
                let log = EventLog()
                let chunks = ChunkList(stream, size: size)
                _ = try backend.makeParser().parse(.chunks(FeedChunks { chunks.next() }), handler: log)
                XCTAssertEqual(gaps(log.errors).map(\.compressedRange), [s[3]..<s[4], s[5]..<s[6]], "\(backend), pieces of \(size)")
                let last = Set(titles(log).filter { $0.hasSuffix(" 299") })
                XCTAssertTrue(last.isSuperset(of: ["b0 299", "b1 299", "b2 299", "b4 299", "b6 299", "b7 299"]),
                              "\(backend), pieces of \(size): every intact member's last item: \(last)")
            }
        }
    }

    func testBytesBetweenMembersThatAreNoMemberAreAGapOfTheirOwn() throws {
        let ms = members(4)
        let junk = bytes(String(repeating: "not gzip ", count: 9))
        let stream = ms[0] + junk + ms[1] + ms[2] + [0, 0, 0] + ms[3] + bytes("tail")
        let first = UInt64(ms[0].count)
        let end = UInt64(stream.count)
        let errors = try assertEveryWay(stream, keeps: ["m0", "m1", "m2", "m3"])
        XCTAssertEqual(gaps(errors).map(\.compressedRange), [first..<(first + UInt64(junk.count)), (end - 4)..<end],
                       "zero padding is no gap")
        XCTAssertEqual(Set(gaps(errors).map(\.message)), ["trailing garbage after gzip data"])
        XCTAssertFalse(errors.contains { $0.document > 0 }, "every feed whole: \(errors)")
    }

    func testACorruptLastMemberIsAGapToTheEnd() throws {
        var ms = members(3)
        ms[2] = corrupted(ms[2])
        let s = starts(ms)
        let errors = try assertEveryWay(ms.flatMap { $0 }, keeps: ["m0", "m1"])
        XCTAssertEqual(gaps(errors).map(\.compressedRange), [s[2]..<s[3]])
    }

    func testADocumentAcrossMembersIsCutAtTheGapAndTheNextDocumentsAreKept() throws {
        // Members that do not end where documents do (a stream compressed in blocks):
        // the document the gap cuts fails, the search for the next one passes over the
        // rest, and what it passed over is counted.
        let text = bytes((0..<6).map { rss("d\($0)", items: 2) }.joined())
        var ms: [[UInt8]] = stride(from: 0, to: text.count, by: 100).map {
            gzip(Array(text[$0..<min($0 + 100, text.count)]))
        }
        let broken = ms.count / 2
        ms[broken] = corrupted(ms[broken])
        let errors = try assertEveryWay(ms.flatMap { $0 }, keeps: ["d0", "d5"])
        let gap = try XCTUnwrap(gaps(errors).first)
        XCTAssertGreaterThan(gap.skipped, 0, "the rest of the cut document after the gap")
        XCTAssertEqual(gap.unreadRange, gap.offset..<(gap.offset + gap.skipped))
    }

    func testAnXMLErrorJustBeforeAGapIsTheDocumentsOwnOnEveryBackend() throws {
        // A start tag cut by the gap, with a `<` in an attribute value before the cut:
        // expat and the Swift tokenizer see the error there, libxml2 (which judges a
        // start tag at its `>`) would see only the break; the error is the document's
        // own, at the `<`, on every backend and read path, and the gap is the stream's.
        let cut = #"<?xml version="1.0"?>\#n<rss version="2.0"><channel><title>a</title>"#
            + #"<item><title>a 0</title></item><item><title>a 1</title></item><item><title x="a<b"#
        let ms = [gzip(bytes(cut)), corrupted(gzip(bytes(String(repeating: "x", count: 5000)))),
                  gzip(bytes(rss("n", items: 2)))]
        let errors = try assertEveryWay(ms.flatMap { $0 }, keeps: ["a", "n"])
        let own = try XCTUnwrap(errors.first { $0.compressedRange == nil })
        XCTAssertEqual(own.document, 1)
        XCTAssertEqual(own.code, .malformedXML)
        XCTAssertEqual(own.message, "not well-formed (invalid token)")
        XCTAssertEqual(own.offset, UInt64(cut.utf8.count - 2), "at the `<` in the value")
        XCTAssertEqual(gaps(errors).count, 1)
    }

    func testBytesThatCannotBeginADeclarationAreJudgedBeforeAGap() throws {
        // "<?xm/" cannot begin an XML declaration: its error, at the '/', is the
        // document's own, before the gap after it, on every backend and read path (the
        // bytes must not wait for more to decide the charset while a gap comes first).
        let ms = [gzip(bytes("<?xm/")), corrupted(gzip(bytes(String(repeating: "x", count: 5000)))),
                  gzip(bytes(rss("n", items: 2)))]
        let errors = try assertEveryWay(ms.flatMap { $0 }, keeps: ["n"])
        let own = try XCTUnwrap(errors.first { $0.compressedRange == nil })
        XCTAssertEqual(own.document, 1)
        XCTAssertEqual(own.code, .malformedXML)
        XCTAssertEqual(own.message, "not well-formed (invalid token)")
        XCTAssertEqual(own.offset, 4, "at the '/'")
        XCTAssertEqual(gaps(errors).count, 1)
    }

    /// A member that ends inside a document's first bytes, before they settle its
    /// charset, changes nothing: the UTF-8 the charset stage makes for expat must not be
    /// written over the input bytes that the search for the next document reads again.
    /// `3C 00 00 00` begins a UTF-32 document that fails at its second character (the
    /// search then goes on past it: a feed at that byte is not looked for), and the feed
    /// after it is the next document.
    func testAMemberEndingInADocumentsFirstBytesChangesWhereNothingResumes() throws {
        let plain: [UInt8] = [0x3C, 0, 0, 0] + bytes(rss("a", items: 2)) + bytes(rss("b", items: 2))
        let stream = gzip(Array(plain[..<1])) + gzip(Array(plain[1...]))
        let errors = try assertEveryWay(stream, keeps: ["b"])
        XCTAssertEqual(errors.map(\.document), [1])
        XCTAssertEqual(errors.first?.offset, 4)
        for (label, run) in ways(stream) + FeedBackend.allCases.map { backend in
            ("\(backend) uncompressed", { try backend.makeParser().parse(.bytes(plain), handler: $0) })
        } {
            let log = EventLog()
            _ = try run(log)
            XCTAssertEqual(titles(log), ["b 0", "b 1"], label)
        }
    }

    func testTheRatioLimitHoldsAfterAGap() throws {
        var ms = members(2)
        ms[0] = corrupted(ms[0])
        let bomb = bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><description>")
            + [UInt8](repeating: UInt8(ascii: "a"), count: 24 << 20) + bytes("</description></channel></rss>")
        let stream = ms[0] + gzip(bomb, level: 9) + ms[1]
        for backend in FeedBackend.allCases {
            let log = EventLog()
            _ = try backend.makeParser().parse(.bytes(stream), handler: log)
            XCTAssertEqual(gaps(log.errors).count, 1, "\(backend)")
            XCTAssertTrue(log.errors.contains { $0.code == .limitExceeded && $0.message.contains("decompression ratio") },
                          "\(backend): \(log.errors)")
        }
    }

    func testAGapOfPossibleMemberStartsIsSearchedInBoundedWork() throws {
        // Bytes that each begin as a member does, and fail once tried: a hostile gap.
        // The member after it is found; the search costs a bounded multiple of the gap.
        var hostile: [UInt8] = []
        for i in 0..<20_000 { hostile += [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, UInt8(truncatingIfNeeded: i)] }
        let ms = members(2)
        let stream = ms[0] + hostile + ms[1]
        let errors = try assertEveryWay(stream, keeps: ["m0", "m1"])
        let from = UInt64(ms[0].count)
        XCTAssertEqual(gaps(errors).map(\.compressedRange), [from..<(from + UInt64(hostile.count))])
    }
}
