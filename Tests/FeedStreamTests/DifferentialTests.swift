// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation
import XCTest

/// Every backend can stand in for every other: `BackendDiff` (the code behind
/// `feedstream diff`) over our corpus and the shared real-world corpus must find no
/// difference — byte-identical lines on well-formed documents, the same verdict and
/// the same items before the first error on ill-formed ones.
final class DifferentialTests: XCTestCase {
    private func check(_ files: [URL], name: String) throws {
        let diff = BackendDiff(backends: FeedBackend.allCases)
        var report = BackendDiff.Report()
        for file in files {
            try diff.compare(.file(path: file.path), source: file.lastPathComponent, into: &report)
        }
        print("\(name): \(report.inputs) inputs, \(report.documents) documents, \(report.records) records compared, "
              + "\(report.rejectedDocuments) rejected documents, \(report.differences.count) differences")
        for d in report.differences.prefix(20) { print(d) }
        XCTAssertEqual(report.differences.count, 0, "\(name): backends differ")
        XCTAssertEqual(report.inputs, files.count)
    }

    func testBackendsAgreeOnOurCorpus() throws {
        let files = Paths.files(in: Paths.corpus.appendingPathComponent("feeds"))
            + Paths.files(in: Paths.corpus.appendingPathComponent("bad"))
        try check(files, name: "corpus")
    }

    func testBackendsAgreeOnTheRealCorpus() throws {
        let files = try RealCorpus.require(self)
        try check(files, name: "real corpus")
    }

    func testDiffReportsADifference() throws {
        // The checker itself must be able to fail: two different documents differ.
        var report = BackendDiff.Report()
        let a = Array("<rss version=\"2.0\"><channel><title>A</title><item><title>x</title></item></channel></rss>".utf8)
        let b = Array("<rss version=\"2.0\"><channel><title>B</title><item><title>y</title></item></channel></rss>".utf8)
        let outA = MemoryOutput(), outB = MemoryOutput()
        for (doc, out) in [(a, outA), (b, outB)] {
            let w = JSONLinesWriter(output: out)
            try ExpatFeedParser().parse(.bytes(doc), handler: w)
            try w.flush()
        }
        XCTAssertNotEqual(outA.bytes, outB.bytes)
        // Same input through both backends: no difference.
        try BackendDiff(backends: [.expat, .libxml2]).compare(.bytes(a), source: "a", into: &report)
        XCTAssertEqual(report.differences, [])
        XCTAssertEqual(report.records, 2)
    }
}
