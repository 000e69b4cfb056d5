// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation
import XCTest

/// The inputs the fuzzers (Fuzz/) found problems with, in corpus/fuzz-regressions (its
/// README says what each found). Each is held to what the fuzzers check:
///
/// - every backend converts it the same way however it arrives: in one piece, cut in two
///   at every offset (a sample of offsets for larger files), in chunks of 1, 7 and 4096
///   bytes, gzip-compressed as one member or as two;
/// - the backends agree (docs/SCHEMA.md, "Backends": identical lines for well-formed
///   documents, the same rejections and the same items before an error);
///
/// under the default limits, under a small per-item limit (142 bytes, the truncation
/// paths), where no item may carry more text than the limit, and under a small field-text
/// limit (24 bytes: the document fails at the first tag after a field passed it, the same
/// however the input is cut).
///
/// FUZZ_REGRESSION_CUTS bounds the cut offsets tried per file (default 600), for slow
/// runs (the sanitized pass in .ci/run sets it lower).
final class FuzzRegressionTests: XCTestCase {
    /// (maxItemBytes, maxFieldBytes; 0: the default)
    private static let configurations = [(0, 0), (142, 0), (0, 24)]

    /// Files on which libxml2 is known to part from expat (and the Swift backend, which
    /// follows expat); only expat and swift are held to them. Each says why.
    private static let libxml2Differs: [String: String] = [
        "xml-declaration-errors.xml": "libxml2 rejects version=\"\" (expat accepts it) and places the error of a "
            + "broken declaration earlier, so its search for the next document can resume inside it (and then "
            + "depends on where the input was cut, the limitation in Fuzz/README.md)",
        "empty-element-tag-error-position.xml": "libxml2 places the error of `<a/x` on the slash, expat on the byte "
            + "after it, so libxml2's search for the next document finds the `<?xml` that follows",
        "non-ascii-name-characters.xml": "libxml2 reports the broken name only once it has more input, so its "
            + "search for the next document depends on where the input was cut (the limitation in Fuzz/README.md)",
        "resume-after-error-in-earlier-chunk.xml": "the libxml2 adapter looks at a document's first bytes again only "
            + "once they have doubled, so depending on the cuts a broken declaration is reported only by the final "
            + "call, and nothing past an error the end reports is searched (Fuzz/README.md, resynchronization)",
        "expat-own-root-after-held-declaration-error.xml": "as resume-after-error-in-earlier-chunk.xml: libxml2 may "
            + "report the broken declaration only at the end, depending on the cuts",
        "attribute-default-values.xml": "libxml2 places a bad character reference in a default value after it, and "
            + "a reference the value ends inside at the value's end (expat: at the `&`)",
        "attribute-entities-and-declared-types.xml": "libxml2 words and places these errors its own way, accepts a "
            + "reference to an unparsed entity and an undeclared one in a standalone document's start tag, and checks "
            + "undeclared entities in defaults also after a parameter entity reference",
        "latin1-name-characters.xml": "libxml2 reads ª, µ and º in an ISO-8859-1 document's names as XML 1.0 "
            + "says (none is a name character), expat by its Latin-1 table (all three are)",
        "latin1-names-in-the-prolog.xml": "as latin1-name-characters.xml, for the names of the prolog",
        "prolog-and-markup-as-expat-reads-them.xml": "libxml2 places prolog, DOCTYPE and markup errors its own "
            + "way (a markup declaration's keyword at its '<', a comment's '--' at its first '-', ...), so its "
            + "resumed searches differ",
    ]

    private var files: [URL] {
        Paths.files(in: Paths.corpus.appendingPathComponent("fuzz-regressions"), extensions: ["xml", "gz", "bin", "json"])
    }

    private var maxCuts: Int {
        ProcessInfo.processInfo.environment["FUZZ_REGRESSION_CUTS"].flatMap(Int.init) ?? 600
    }

    func testEveryBackendGivesTheSameOutputHoweverTheInputIsCut() throws {
        XCTAssertFalse(files.isEmpty, "no files in corpus/fuzz-regressions")
        for url in files {
            let bytes = try [UInt8](Data(contentsOf: url))
            let name = url.lastPathComponent
            let stride = max(1, bytes.count / max(1, maxCuts))
            let isGzip = bytes.starts(with: [0x1F, 0x8B])
            for (limit, fieldLimit) in Self.configurations {
                let limits = fieldLimit > 0 ? FeedLimits(maxFieldBytes: fieldLimit) : .default
                let compared = Self.libxml2Differs[name] == nil ? FeedBackend.allCases : [.expat, .swift]
                var outputs: [(FeedBackend, [UInt8])] = []
                for backend in compared {
                    let parser = backend.makeParser(maxItemBytes: limit, limits: limits)
                    let whole = try convert(parser, .bytes(bytes))
                    let context = "\(name), \(backend), item limit \(limit), field limit \(fieldLimit)"
                    for cut in Swift.stride(from: 1, to: bytes.count, by: stride) {
                        let got = try convert(parser, pieces(bytes, cuts: [cut]))
                        if got != whole {
                            XCTFail("\(context): cut at \(cut) differs from the whole input:\n\(firstDifference(whole, got))")
                            break
                        }
                    }
                    for size in [1, 7, 4096] {
                        let cuts = Array(Swift.stride(from: size, to: bytes.count, by: size))
                        XCTAssertEqual(try convert(parser, pieces(bytes, cuts: cuts)), whole, "\(context): \(size)-byte chunks")
                    }
                    if !isGzip {
                        XCTAssertEqual(try convert(parser, .bytes(gzip(bytes))), whole, "\(context): gzip")
                        for split in [bytes.count / 3, bytes.count / 2, bytes.count - 1] where split > 0 {
                            let two = gzip(Array(bytes[..<split])) + gzip(Array(bytes[split...]))
                            XCTAssertEqual(try convert(parser, .bytes(two)), whole, "\(context): two gzip members split at \(split)")
                        }
                        // A few small pieces, then the rest: once a document has begun, the C
                        // core inflates the rest straight into the tokenizer's buffer.
                        let z = gzip(bytes)
                        for piece in [8, 24, 40] where 3 * piece < z.count {
                            XCTAssertEqual(try convert(parser, pieces(z, cuts: [piece, 2 * piece, 3 * piece])), whole,
                                           "\(context): gzip in three \(piece)-byte pieces, then the rest")
                        }
                    }
                    if limit > 0 { try checkItemText(whole, within: limit, context) }
                    outputs.append((backend, whole))
                }
                if limit == 0 {
                    let diff = BackendDiff(backends: compared, limits: limits)
                    var report = BackendDiff.Report()
                    try diff.compare(.bytes(bytes), source: "regression", into: &report)
                    XCTAssertEqual(report.differences.map(\.description), [], "\(name), field limit \(fieldLimit)")
                } else {
                    // BackendDiff has no item limit: the same rule, by hand.
                    for (backend, lines) in outputs.dropFirst() {
                        XCTAssertEqual(agreedLines(outputs[0].1), agreedLines(lines),
                                       "\(name), item limit \(limit): \(outputs[0].0) vs \(backend)")
                    }
                }
            }
        }
    }

    /// The item limit bounds each item's text, not the arena's capacity: under a 142-byte
    /// limit no item keeps more than 142 bytes, however large earlier items have grown
    /// the arena's buffer (its first one alone holds 16 KiB).
    func testASmallItemLimitBoundsTheTextOfEveryItem() throws {
        let url = Paths.corpus.appendingPathComponent("fuzz-regressions/item-limit-arena-capacity.xml")
        for backend in FeedBackend.allCases {
            let out = try convert(backend.makeParser(maxItemBytes: 142), .file(path: url.path))
            try checkItemText(out, within: 142, "\(backend)")
            XCTAssertEqual(out.split(separator: 0x0A).filter { $0.starts(with: Array(#"{"schema":1,"kind":"item""#.utf8)) }.count, 3)
        }
    }

    // MARK: helpers

    /// Every item's text members (strings in its line, its `feed` object aside) total at
    /// most `limit` bytes once decoded.
    private func checkItemText(_ lines: [UInt8], within limit: Int, _ context: String) throws {
        for line in lines.split(separator: 0x0A) where line.starts(with: Array(#"{"schema":1,"kind":"item""#.utf8)) {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            for key in ["title", "summary", "content"] {
                let text = (object[key] as? String)?.utf8.count ?? 0
                XCTAssertLessThanOrEqual(text, limit, "\(context): item \(object["index"] ?? "?") \(key) has \(text) bytes")
            }
        }
    }

    /// What backends must agree on (docs/SCHEMA.md, "Backends"): every line of a
    /// well-formed document; of a rejected one, that it was rejected and its items.
    private func agreedLines(_ bytes: [UInt8]) -> [String] {
        var out: [String] = [], items: [String] = []
        for line in bytes.split(separator: 0x0A).map({ String(decoding: $0, as: UTF8.self) }) {
            if line.hasPrefix(#"{"schema":1,"kind":"feed""#) {
                out += items
                out.append(line.contains(#""error":{"#) ? "rejected" : line)
                items = []
            } else {
                items.append(line)
            }
        }
        return out + items
    }
}

/// Hands out chunks one after another (each stays valid until the next call).

