// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamBatch
@testable import FeedStreamTools
import Foundation
import XCTest

/// One web archive on several threads (``WARCParts``): split at record
/// boundaries into parts read at once, the lines, errors, summary and record counts are
/// those of one reader going through the file, whatever the jobs and the part size —
/// also where a proposed cut is no record boundary (a WARC archived inside a record, a
/// member that holds two records), where bytes between records are no record, and where
/// the gzip stream turns corrupt (the whole reader stops there; so must the parts).
final class WARCPartsTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("warc-parts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: Archives built here

    private static func record(_ type: String, uri: String?, id: Int, contentType: String?, extra: [String] = [],
                               block: [UInt8]) -> [UInt8] {
        var head = ["WARC/1.1", "WARC-Type: \(type)", "WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-\(String(format: "%012d", id))>",
                    "WARC-Date: 2026-03-04T05:06:07Z"]
        if let uri { head.append("WARC-Target-URI: \(uri)") }
        if let contentType { head.append("Content-Type: \(contentType)") }
        head += extra
        head.append("Content-Length: \(block.count)")
        return Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8) + block + Array("\r\n\r\n".utf8)
    }

    private static func response(_ n: Int, body: [UInt8], type: String = "application/rss+xml") -> [UInt8] {
        let http = Array("HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        return record("response", uri: "https://site\(n).example.org/feed", id: n,
                      contentType: "application/http; msgtype=response", block: http)
    }

    private static func rss(_ n: Int, items: Int = 2) -> [UInt8] {
        var s = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Feed \(n)</title><link>/</link>"
        for i in 0..<items { s += "<item><title>Post \(n).\(i)</title><link>posts/\(i).html</link></item>" }
        return Array((s + "</channel></rss>").utf8)
    }

    /// Items of the plain feed of record `n`: one is far bigger than a part (a part
    /// read ahead that runs into it gives up, and is read again in order).
    private static func items(_ n: Int) -> Int { n == 45 ? 200 : n % 4 + 1 }

    /// The records of a crawl: feeds (one a dump of two documents, one broken), pages,
    /// a revisit of a feed, a truncated payload, and a resource that is itself a small
    /// WARC (its lines start with `WARC/1.1`: a proposed cut that is no boundary).
    private static func records(count: Int) -> [[UInt8]] {
        var out: [[UInt8]] = [record("warcinfo", uri: nil, id: 0, contentType: "application/warc-fields",
                                     block: Array("software: test\r\n".utf8))]
        for n in 1...count {
            switch n % 9 {
            case 1:
                out.append(response(n, body: Array("<html><body>page \(n)</body></html>".utf8), type: "text/html"))
            case 2:
                out.append(response(n, body: rss(n) + rss(n + 1000)))   // a dump: two documents
            case 3:
                out.append(response(n, body: Array("<rss version=\"2.0\"><channel><title>Broken \(n)</title><item><title>x</titel></item></channel></rss>".utf8)))
            case 4:
                out.append(record("revisit", uri: "https://site\(n).example.org/feed", id: n,
                                  contentType: "application/http; msgtype=response",
                                  extra: ["WARC-Refers-To-Target-URI: https://site\(n).example.org/feed"],
                                  block: Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n".utf8)))
            case 5:
                let inner = record("response", uri: "https://inner.example.org/\(n)", id: 900_000 + n,
                                   contentType: "application/http; msgtype=response",
                                   block: Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n".utf8) + rss(n))
                out.append(record("resource", uri: "https://archive.example.org/\(n).warc", id: n,
                                  contentType: "application/warc", block: inner))
            case 6:
                out.append(record("response", uri: "https://site\(n).example.org/feed", id: n,
                                  contentType: "application/http; msgtype=response", extra: ["WARC-Truncated: length"],
                                  block: Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n".utf8)
                                      + rss(n).dropLast(20)))
            default:
                out.append(response(n, body: rss(n, items: items(n))))
            }
        }
        return out
    }

    /// A `.warc.gz` as WARC writers make it (a member per record), with, in the middle,
    /// a member holding two records, a member stored without compression whose resource
    /// is a `.warc.gz` (its member header and first bytes are in the file as they are: a
    /// proposed cut inside a record), and a record in two members, the second beginning
    /// with its block, itself a WARC record, and holding the next record too (a proposed
    /// cut inside a record, and a record at that member's offset that does not begin it).
    private static func gzipArchive(count: Int) -> [UInt8] {
        let recs = records(count: count)
        var file: [UInt8] = []
        var i = 0
        while i < recs.count {
            if i == recs.count / 2 && i + 1 < recs.count {
                file += gzip(recs[i] + recs[i + 1])   // one member, two records
                i += 2
                continue
            }
            if i == recs.count / 3 {
                let inner = gzip(record("response", uri: "https://inner.example.org/gz", id: 800_000,
                                        contentType: "application/http; msgtype=response",
                                        block: Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n".utf8) + rss(7)))
                file += gzip(record("resource", uri: "https://archive.example.org/inner.warc.gz", id: 800_001,
                                    contentType: "application/warc", block: inner), level: 0)
            }
            if i == 41 {   // 41 % 9 == 5: a resource whose block is a WARC record; the next record after it
                let header = recs[i].firstRange(of: Array("\r\n\r\n".utf8))!.upperBound
                file += gzip(Array(recs[i][..<header])) + gzip(Array(recs[i][header...]) + recs[i + 1])
                i += 2
                continue
            }
            file += gzip(recs[i])
            i += 1
        }
        return file
    }

    private static func plainArchive(count: Int) -> [UInt8] {
        var file: [UInt8] = []
        for (i, r) in records(count: count).enumerated() {
            if i == count / 2 { file += Array("this line is no record\r\nnor this one\r\n".utf8) }   // a format error
            if i == count / 3 {   // a long stretch of lines that look like record starts and are none
                file += Array(String(repeating: "WARC/1.1 is no header\r\n", count: 150).utf8)
            }
            file += r
        }
        return file
    }

    // MARK: Runs

    private struct Run: Equatable {
        var text: String
        var summary: BatchSummary
        var errors: [FeedError]
        var warc: WARCCounts?
    }

    private func convert(_ path: String, jobs: Int, partBytes: Int?, layout: BatchConverter.Options.Layout = .items)
        throws -> Run
    {
        var options = BatchConverter.Options(jobs: jobs, layout: layout)
        options.warcPartBytes = partBytes
        let out = MemoryOutput()
        let recorder = ResultRecorder()
        let summary = try BatchConverter(options: options).run([BatchInput.file(path)], to: out, observer: recorder)
        let result = try XCTUnwrap(recorder.results.first)
        return Run(text: out.string, summary: summary, errors: result.errors, warc: result.warc)
    }

    /// Runs on 2 and 3 jobs, parts of several sizes (and of `partBytes`: a first cut
    /// proposed where wanted), each the same as one reader of the whole file.
    private func assertSameAtAnySplit(_ bytes: [UInt8], name: String, partBytes: [Int] = [],
                                      file: StaticString = #filePath, line: UInt = #line) throws -> Run {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reference = try convert(path, jobs: 1, partBytes: nil)
        for jobs in [2, 3] {
            for partBytes in [150, 700, 4096, bytes.count / 2] + partBytes {
                let run = try convert(path, jobs: jobs, partBytes: partBytes)
                XCTAssertEqual(run.text, reference.text, "\(name) -j \(jobs), parts of \(partBytes)", file: file, line: line)
                XCTAssertEqual(run.summary, reference.summary, "\(name) -j \(jobs), parts of \(partBytes)", file: file, line: line)
                XCTAssertEqual(run.errors, reference.errors, "\(name) -j \(jobs), parts of \(partBytes)", file: file, line: line)
                XCTAssertEqual(run.warc, reference.warc, "\(name) -j \(jobs), parts of \(partBytes)", file: file, line: line)
            }
        }
        // A line per document holding its items: numbered the same way.
        let documents = try convert(path, jobs: 1, partBytes: nil, layout: .documents)
        XCTAssertNotEqual(documents.text, reference.text)
        XCTAssertEqual(try convert(path, jobs: 2, partBytes: 300, layout: .documents), documents, name, file: file, line: line)
        return reference
    }

    // MARK: Tests

    func testAGzipArchiveInPartsIsTheWholeArchive() throws {
        let bytes = Self.gzipArchive(count: 60)
        let path = folder.appendingPathComponent("crawl.warc.gz").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // Parts are proposed, and one of them lies (the stored member's inner .warc.gz).
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let cuts = WARCParts.proposedCuts(fd: fd, size: UInt64(bytes.count), partBytes: 150)
        XCTAssertGreaterThan(cuts.count, 40)
        let inner = gzip(Self.record("response", uri: "https://inner.example.org/gz", id: 800_000,
                                     contentType: "application/http; msgtype=response",
                                     block: Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n".utf8) + Self.rss(7)))
        let innerAt = try XCTUnwrap(bytes.firstRange(of: inner)).lowerBound
        XCTAssertTrue(WARCParts.proposedCuts(fd: fd, size: UInt64(bytes.count), partBytes: UInt64(innerAt - 10))
            .contains(UInt64(innerAt)), "the inner member is proposed as a cut")

        let split = Self.record("response", uri: "https://inner.example.org/41", id: 900_041,
                                contentType: "application/http; msgtype=response",
                                block: Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n".utf8) + Self.rss(41))
        let splitAt = try XCTUnwrap(bytes.firstRange(of: gzip(split + Array("\r\n\r\n".utf8) + Self.records(count: 60)[42]))).lowerBound
        let run = try assertSameAtAnySplit(bytes, name: "crawl.warc.gz", partBytes: [innerAt - 10, splitAt - 10])
        // The stored member's resource: its payload is gzip, looked through: a WARC, no feed.
        try checkContent(run, records: 62, extra: (0, 0, 0))
        XCTAssertEqual(run.warc?.skipped["not a feed"], (1...60).filter { $0 % 9 == 5 }.count + 1)
    }

    func testAPlainArchiveInPartsIsTheWholeArchive() throws {
        let bytes = Self.plainArchive(count: 60)
        // The first cut past this mark is the version line of a record inside a record.
        let inner = try XCTUnwrap(bytes.firstRange(of: Array("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000900005>".utf8))).lowerBound
        let run = try assertSameAtAnySplit(bytes, name: "crawl.warc", partBytes: [inner - 10])
        try checkContent(run, records: 61, extra: (0, 0, 0))
        XCTAssertTrue(run.errors.contains { $0.code == .warc && $0.message.contains("bytes skipped to the next WARC record") })
    }

    /// What the archive holds, counted by hand from ``records(count:)``: 60 records
    /// after the warcinfo, n % 9 choosing the kind; `extra`: what the gzip archive adds.
    private func checkContent(_ run: Run, records: Int, extra: (feedRecords: Int, documents: Int, items: Int)) throws {
        let warc = try XCTUnwrap(run.warc)
        XCTAssertEqual(warc.records, records)
        let kinds = (1...60).map { $0 % 9 }
        let dumps = kinds.filter { $0 == 2 }.count, broken = kinds.filter { $0 == 3 }.count
        let truncated = kinds.filter { $0 == 6 }.count
        let plainFeeds = (1...60).filter { ![1, 2, 3, 4, 5, 6].contains($0 % 9) }
        XCTAssertEqual(warc.feedRecords, dumps + broken + truncated + plainFeeds.count + extra.feedRecords)
        XCTAssertEqual(warc.skipped["revisit"], kinds.filter { $0 == 4 }.count)
        XCTAssertEqual(run.summary.documents, 2 * dumps + broken + truncated + plainFeeds.count + extra.documents)
        // A broken feed keeps its one item, a truncated one its two (recovered).
        XCTAssertEqual(run.summary.items, 4 * dumps + plainFeeds.map(Self.items).reduce(0, +)
                       + broken + 2 * truncated + extra.items)
        XCTAssertEqual(run.summary.recoveredDocuments, broken + truncated)
        // Documents are numbered through the archive: 1…N, each once in the feed lines.
        let numbers = run.text.split(separator: "\n").filter { $0.contains("\"kind\":\"feed\"") }.compactMap { line -> Int? in
            guard let r = line.range(of: "\"document\":") else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber })
        }
        XCTAssertEqual(numbers, Array(1...run.summary.documents))
        XCTAssertEqual(run.errors.filter { $0.message.hasPrefix("revisit record of a feed") }.count, kinds.filter { $0 == 4 }.count)
        XCTAssertEqual(run.errors.filter { $0.message.contains("WARC-Truncated") }.count, truncated)
    }

    /// A whole archive in one gzip member (`gzip crawl.warc`) has no place to cut: no
    /// cut is proposed (the search gives up after a few marks, rather than scanning the
    /// file to its end), and it is read as one part.
    func testAnArchiveInOneGzipMemberIsOnePart() throws {
        let bytes = gzip(Self.plainArchive(count: 60))
        let path = folder.appendingPathComponent("one.warc.gz").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        XCTAssertEqual(WARCParts.proposedCuts(fd: fd, size: UInt64(bytes.count), partBytes: 150), [])
        let run = try assertSameAtAnySplit(bytes, name: "one.warc.gz")
        XCTAssertEqual(run.warc?.records, 61)
    }

    /// A corrupt member ends the whole reader; the parts after it (good members, proposed
    /// as cuts) must not add anything.
    func testAGzipArchiveThatTurnsCorruptEndsThereInParts() throws {
        var bytes = Self.gzipArchive(count: 30)
        let middle = bytes.count / 2
        // Corrupt the deflate data of the member around the middle (not its header).
        for k in middle..<(middle + 40) { bytes[k] ^= 0x5A }
        let run = try assertSameAtAnySplit(bytes, name: "corrupt.warc.gz")
        XCTAssertTrue(run.errors.contains { $0.code == .gzip }, "\(run.errors)")
        XCTAssertLessThan(run.warc?.records ?? 0, 32)
    }
}

/// Records each input's result (calls are serialized by the converter).
private final class ResultRecorder: BatchObserver, @unchecked Sendable {
    private(set) var results: [BatchInputResult] = []
    func didFinishInput(_ result: BatchInputResult) { results.append(result) }
}
