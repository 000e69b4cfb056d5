// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// A dump of random well-formed feeds in mixed encodings, with random damage between
/// them (a document cut short anywhere, text that is not XML, a document that breaks
/// inside), keeps every undamaged document's feed and items exactly as that document
/// gives them alone, on every backend, strict or recovering, whole or cut in pieces.
final class MixedDumpPropertyTests: XCTestCase {
    /// SplitMix64: the same dumps on every run and machine.
    private struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ xs: [T]) -> T { xs[below(xs.count)] }
    }

    private enum Encoding: CaseIterable {
        case utf8, utf8NoDeclaration, utf8BOM, utf16LE, utf16BE, latin1
    }

    private static let words = ["café", "naïve", "plain", "Ünïcode", "news", "ß", "fête", "été", "Zürich", "ok"]

    /// One feed: its text (before encoding) carries `marker` in its title.
    private func feed(_ marker: String, _ rng: inout Random) -> String {
        let items = (0..<(1 + rng.below(4))).map { k in
            "<item><title>\(rng.pick(Self.words)) \(k) &amp; \(rng.pick(Self.words))</title>"
                + "<link>https://example.com/\(marker)/\(k)</link><description>\(rng.pick(Self.words))</description></item>"
        }
        if rng.below(3) == 0 {
            let entries = items.enumerated().map { k, _ in
                "<entry><title>\(rng.pick(Self.words)) \(k)</title><id>urn:\(marker):\(k)</id></entry>"
            }
            return #"<feed xmlns="http://www.w3.org/2005/Atom"><title>\#(marker)</title>"# + entries.joined() + "</feed>"
        }
        return #"<rss version="2.0"><channel><title>\#(marker)</title>"# + items.joined() + "</channel></rss>"
    }

    private func encode(_ body: String, _ encoding: Encoding) -> [UInt8] {
        switch encoding {
        case .utf8: return Array((#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + body).utf8)
        case .utf8NoDeclaration: return Array(body.utf8)
        case .utf8BOM: return [0xEF, 0xBB, 0xBF] + Array((#"<?xml version="1.0"?>"# + body).utf8)
        case .utf16LE, .utf16BE:
            let text = #"<?xml version="1.0" encoding="UTF-16"?>"# + "\n" + body
            var out: [UInt8] = encoding == .utf16LE ? [0xFF, 0xFE] : [0xFE, 0xFF]
            for u in text.utf16 {
                let (lo, hi) = (UInt8(u & 0xFF), UInt8(u >> 8))
                out += encoding == .utf16LE ? [lo, hi] : [hi, lo]
            }
            return out
        case .latin1:
            let text = #"<?xml version="1.0" encoding="ISO-8859-1"?>"# + "\n" + body
            return text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }   // every word is Latin-1
        }
    }

    /// Damage between documents; none of it holds a document start.
    private func damage(_ rng: inout Random) -> [UInt8] {
        switch rng.below(5) {
        case 0: return []
        case 1: return Array("\n<!-- between -->\n".utf8)
        case 2: return Array("garbage that is not XML & never was\n".utf8)
        case 3:
            // A document cut short at any byte past its declaration.
            let doc = Array((#"<?xml version="1.0"?><rss version="2.0"><channel><title>cut</title><item><title a="x">cut &amp; short</title></item></channel></rss>"#).utf8)
            return Array(doc[0..<(21 + rng.below(doc.count - 21))])
        default:
            return Array((#"<?xml version="1.0"?><rss version="2.0"><channel><title>broken</title><item><title>b <i>x</b></item></channel></rss>"# + "\n").utf8)
        }
    }

    /// A document's feed and items, whatever its number in the dump.
    private struct Alone: Equatable {
        var feed: Feed
        var items: [FeedItem]
        init(feed: Feed, items: [FeedItem]) {
            self.feed = feed
            self.feed.document = 0
            self.items = items
        }
    }

    func testEveryUndamagedDocumentOfAMixedDumpIsKeptWhole() throws {
        var rng = Random(state: 0x5EED_F33D)
        var checked = 0
        for round in 0..<24 {
            var dump: [UInt8] = []
            var expected: [String: [UInt8]] = [:]
            for k in 0..<(4 + rng.below(6)) {
                let marker = "feed-\(round)-\(k)"
                let doc = encode(feed(marker, &rng), rng.pick(Encoding.allCases))
                expected[marker] = doc
                dump += damage(&rng) + doc + (rng.below(2) == 0 ? Array("\n".utf8) : [])
            }
            dump += damage(&rng)
            for backend in FeedBackend.allCases {
                for strict in [true, false] {
                    let parser = backend.makeParser(strict: strict)
                    var alone: [String: Alone] = [:]
                    for (marker, doc) in expected {
                        let docs = try parser.documents(from: .bytes(doc))
                        XCTAssertEqual(docs.count, 1, marker)
                        XCTAssertNil(docs.first?.error, "\(marker) alone: \(backend)")
                        if let d = docs.first { alone[marker] = Alone(feed: d.feed, items: d.items) }
                    }
                    let whole = try parser.documents(from: .bytes(dump))
                    let cut = try parser.documents(from: chunkedInput(dump, 1 + rng.below(700)))
                    for (how, docs) in [("whole", whole), ("cut", cut)] {
                        for (marker, want) in alone {
                            let found = docs.filter { $0.feed.title?.value == marker && $0.error == nil }
                            XCTAssertEqual(found.count, 1, "round \(round), \(marker), \(backend), strict \(strict), \(how)")
                            if let d = found.first {
                                XCTAssertEqual(Alone(feed: d.feed, items: d.items), want,
                                               "round \(round), \(marker), \(backend), strict \(strict), \(how)")
                            }
                            checked += 1
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }
}
