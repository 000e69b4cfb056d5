// SPDX-License-Identifier: Apache-2.0
import FeedStreamSwift
import Foundation
import FeedStreamTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The value model (``documents(from:parser:)``, the async sequences) keeps memory flat:
/// building a document's values frees what it used. (Each text construct once built a
/// layout table of its own, whose storage lives for the process: ~18 KB lost per
/// document of one item, 372 MB over the 20,000 below.)
final class ValueModelMemoryTests: XCTestCase {
    /// The process's resident set in KB (Linux's /proc; nil elsewhere).
    private func residentKB() -> Int? {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    func testBuildingValuesOverAndOverDoesNotGrowMemory() throws {
        let doc = bytes(#"<rss version="2.0"><channel><title>t</title><description>d</description><item>"#
            + #"<title>a</title><description>b</description><content:encoded xmlns:content="#
            + #""http://purl.org/rss/1.0/modules/content/">c</content:encoded></item></channel></rss>"#)
        let first = try documents(from: .bytes(doc), parser: SwiftFeedParser.self)
        XCTAssertEqual(first.first?.items.first?.title?.value, "a")
        XCTAssertEqual(first.first?.items.first?.content?.value, "c")
        // (Under AddressSanitizer freed memory is held in quarantine: LeakCheckTests
        // checks this path there.)
        if dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__lsan_do_recoverable_leak_check") != nil {
            throw skip("AddressSanitizer holds freed memory: LeakCheckTests checks the value model there")
        }
        guard let before = residentKB() else { throw skip("no /proc/self/status") }
        for _ in 0..<20_000 { _ = try documents(from: .bytes(doc), parser: SwiftFeedParser.self) }
        let grown = try XCTUnwrap(residentKB()) - before
        XCTAssertLessThan(grown, 32 << 10, "resident set grew \(grown) KB over 20,000 documents")
    }
}
