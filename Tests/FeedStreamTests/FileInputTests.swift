// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import XCTest

/// An input given by path (`FeedInput.file`): every backend opens it once, closed on
/// `exec` (a program that starts processes on other threads while it parses must not
/// hand them the descriptor), and closes it when the parse returns; a path that cannot
/// be opened is the input's `io` error, reported once.
final class FileInputTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for p in paths { unlink(p) }
        paths = []
    }

    private func file(_ bytes: [UInt8], _ name: String) -> String {
        let path = NSTemporaryDirectory() + "fileinput-\(getpid())-\(name)"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        paths.append(path)
        return path
    }

    /// The process's descriptors open on `path`, and whether each is closed on exec.
    private static func descriptors(on path: String) -> [Bool] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { name -> Bool? in
            guard let fd = Int32(name),
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  target == path else { return nil }
            let flags = fcntl(fd, F_GETFD)
            return flags >= 0 && flags & FD_CLOEXEC != 0
        }
    }

    /// Looks at the input's descriptors as each document starts.
    private final class Looker: FeedHandler {
        let path: String
        var seen: [[Bool]] = []
        var failures: [FeedError] = []
        init(_ path: String) { self.path = path }
        func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
            seen.append(FileInputTests.descriptors(on: path))
        }
        func parser(_ parser: any FeedParser, didFail error: FeedError) throws { failures.append(error) }
    }

    func testAPathIsOpenedOnceAndClosedOnExec() throws {
        let rss = bytes("<rss version=\"2.0\"><channel><title>T</title><item><title>i</title></item></channel></rss>\n")
        let json = bytes(#"{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[{"id":"1","title":"i"}]}"#)
        let inputs: [(String, [UInt8])] = [("rss", rss), ("rss.gz", gzip(rss)), ("dump", rss + rss),
                                          ("json", json), ("json.gz", gzip(json))]
        for (name, data) in inputs {
            let path = file(data, name)
            for backend in FeedBackend.allCases {
                let looker = Looker(path)
                let summary = try backend.makeParser().parse(.file(path: path), handler: looker)
                let context = "\(name), \(backend)"
                XCTAssertNil(summary.firstError, context)
                XCTAssertEqual(looker.seen.count, name == "dump" ? 2 : 1, context)
                for open in looker.seen { XCTAssertEqual(open, [true], "\(context): one descriptor, closed on exec") }
                XCTAssertEqual(Self.descriptors(on: path), [], "\(context): closed after the parse")
            }
        }
    }

    /// A file of less than one read's slice is read whole (one `pread`) and parsed from
    /// memory; a larger one is read from its descriptor, slice by slice. Both by path, on
    /// every backend: every item, in order, and every byte counted.
    func testASmallFileAndOneOfManySlicesGiveEveryItem() throws {
        func rss(items: Int) -> [UInt8] {
            var s = "<rss version=\"2.0\"><channel><title>T</title>\n"
            for i in 0..<items { s += "<item><title>item \(i)</title><description>\(String(repeating: "x", count: 200))</description></item>\n" }
            return bytes(s + "</channel></rss>\n")
        }
        let small = rss(items: 3)
        let large = rss(items: 3_000)
        XCTAssertGreaterThan(large.count, 2 * (256 << 10), "the large file spans more than two slices")
        for (name, data, count) in [("small", small, 3), ("large", large, 3_000), ("small.gz", gzip(small), 3),
                                    ("large.gz", gzip(large), 3_000)] {
            let path = file(data, name)
            for backend in FeedBackend.allCases {
                let collector = FeedCollector()
                let summary = try backend.makeParser().parse(.file(path: path), handler: collector)
                let context = "\(name), \(backend)"
                XCTAssertNil(summary.firstError, context)
                XCTAssertEqual(summary.bytesIn, UInt64(data.count), context)
                XCTAssertEqual(summary.bytesXML, UInt64(name.hasPrefix("small") ? small.count : large.count), context)
                let titles = collector.documents.first?.items.map { $0.title?.value ?? "" } ?? []
                XCTAssertEqual(titles, (0..<count).map { "item \($0)" }, context)
            }
        }
    }

    func testAPathThatCannotBeOpenedIsTheInputsIOError() throws {
        let missing = NSTemporaryDirectory() + "fileinput-\(getpid())-missing"
        for backend in FeedBackend.allCases {
            let looker = Looker(missing)
            let summary = try backend.makeParser().parse(.file(path: missing), handler: looker)
            XCTAssertEqual(summary.documents, 0, "\(backend)")
            XCTAssertEqual(summary.firstError?.code, .io, "\(backend)")
            XCTAssertEqual(summary.firstError?.message, "No such file or directory", "\(backend)")
            XCTAssertEqual(looker.failures.map(\.code), [.io], "\(backend): reported once")
            XCTAssertEqual(looker.failures.first?.document, 0, "\(backend)")
        }
    }
}
