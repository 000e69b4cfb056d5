// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// Over ../shared/corpus/real (when present): no crash; every file either converts or
/// fails with a clear error and position; every output line is valid JSON; the
/// gzipped file gives the same output.
final class RealCorpusTests: XCTestCase {
    func testEveryRealFeedConvertsOrFailsClearly() throws {
        let files = try RealCorpus.require(self)
        let parser = ExpatFeedParser()
        var ok = 0, failed = 0, items = 0, dates = 0, badDates = 0
        var reasons: [String: Int] = [:]
        for file in files {
            let source = file.lastPathComponent
            let (text, summary) = try jsonLines(.file(path: file.path), source: source, parser: parser)
            items += summary.items
            if let e = summary.firstError {
                failed += 1
                reasons[e.code.rawValue + ": " + e.message, default: 0] += 1
                XCTAssertFalse(e.message.isEmpty, source)
                if e.code == .malformedXML { XCTAssertGreaterThan(e.line, 0, source) }
            } else {
                ok += 1
                XCTAssertGreaterThan(summary.documents, 0, source)
            }
            for line in text.split(separator: "\n") {
                guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    XCTFail("\(source): invalid JSON line \(line.prefix(200))")
                    continue
                }
                for key in ["published", "updated"] where obj[key + "_raw"] != nil {
                    dates += 1
                    if obj[key] == nil { badDates += 1 }
                }
            }
            let raw = Array(try Data(contentsOf: file))
            if raw.starts(with: [0x1F, 0x8B]) { continue }   // already gzip
            let gz = try jsonLines(.bytes(gzip(raw)), source: source, parser: parser)
            if gz.text != text { XCTFail("\(source): output from gzip input differs") }
        }
        print("real corpus: \(files.count) files, \(ok) ok, \(failed) failed, \(items) items, "
              + "\(dates) dates (\(badDates) unparsed)")
        for (reason, n) in reasons.sorted(by: { $0.value > $1.value }) { print("  \(n)\t\(reason)") }
    }
}
