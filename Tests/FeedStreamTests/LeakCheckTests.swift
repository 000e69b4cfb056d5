// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import FeedStreamTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Under AddressSanitizer (`swift test --sanitize=address`, the sanitized pass of
/// .ci/run), asks LeakSanitizer for a leak check after every backend has parsed every
/// file of corpus/ (feeds, bad, encodings, hostile, fuzz-regressions), plain and
/// gzip, and built its values (``FeedDocument``), with parsers created and released
/// along the way.
///
/// The check runs during the test, not at exit: at exit XCTest on Linux still holds
/// every test case (its suite lives in a frame that `exit` abandons), which LeakSanitizer
/// would report. .ci/run therefore sets `leak_check_at_exit=0` and the suppressions in
/// .ci/lsan.supp (Swift globals, a Foundation leak). Without AddressSanitizer the test
/// is skipped, saying so.
final class LeakCheckTests: XCTestCase {
    func testNoLeaksAfterEveryBackendParsesTheCorpus() throws {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__lsan_do_recoverable_leak_check") else {
            throw skip("not built with AddressSanitizer (swift test --sanitize=address)")
        }
        let leakCheck = unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)
        let dirs = ["feeds", "bad", "encodings", "hostile", "fuzz-regressions"]
        let files = dirs.flatMap { Paths.files(in: Paths.corpus.appendingPathComponent($0)) }
        XCTAssertGreaterThan(files.count, 20)
        // Internal-subset declarations (entities, attribute defaults) are held per
        // document and must go with the parser (the Swift tokenizer kept the last
        // document's defaults).
        let subset = bytes(#"<!DOCTYPE rss [<!ENTITY e "text"><!ATTLIST guid isPermaLink CDATA "false">]>"#
            + #"<rss version="2.0"><channel><item><guid>urn:a</guid><title>&e;</title></item></channel></rss>"#)
        for (n, backend) in FeedBackend.allCases.enumerated() {
            _ = try jsonLines(.bytes(subset), source: "subset", parser: backend.makeParser())
            for url in TestSample.take(files, offset: n) {
                let bytes = try [UInt8](Data(contentsOf: url))
                // A parser per file: what a parser holds must go when it does.
                _ = try jsonLines(.bytes(bytes), source: url.lastPathComponent, parser: backend.makeParser())
                _ = try jsonLines(.bytes(gzip(bytes)), source: url.lastPathComponent, parser: backend.makeParser())
                _ = try jsonLines(.file(path: url.path), source: url.lastPathComponent,
                                  parser: backend.makeParser(maxItemBytes: 100))
                // The value model too: what building the values takes must go with them
                // (each text construct built a layout table of its own, never freed).
                _ = try? backend.makeParser().documents(from: .bytes(bytes))
            }
        }
        XCTAssertEqual(leakCheck(), 0, "LeakSanitizer reported leaks (the report is above)")
    }
}
