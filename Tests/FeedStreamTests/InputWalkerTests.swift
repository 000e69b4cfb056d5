// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation
import FeedStreamTestSupport
import XCTest

/// Folders are walked lazily in byte order of the full paths, hidden entries skipped,
/// globs applied to folder contents; shards split any list into disjoint parts.
final class InputWalkerTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("walker-\(UUID().uuidString)")
        let fm = FileManager.default
        for dir in ["b", "b/c", "B", ".hidden", "linkme"] {
            try fm.createDirectory(at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        for file in ["a.xml", "b.xml", "b/c/d.xml.gz", "b/e.xml", "B/f.xml", ".h.xml", ".hidden/g.xml", "b-x.xml",
                     "linkme/l.xml", "notes.txt"] {
            try Data("x".utf8).write(to: root.appendingPathComponent(file))
        }
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("b/to-a.xml").path, withDestinationPath: "../a.xml")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("b/loop").path, withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("dangling.xml").path, withDestinationPath: "nowhere")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("linked").path, withDestinationPath: "b/c")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func walk(_ roots: [String], _ filter: PathFilter = PathFilter()) -> [String] {
        InputWalker(roots, filter: filter).map { input in
            input.name.hasPrefix(root.path) ? String(input.name.dropFirst(root.path.count + 1)) : input.name
        }
    }

    func testFoldersInTheOrderOfTheirSortedPaths() {
        let all = walk([root.path])
        // A linked folder is walked (linked -> b/c); b/loop -> .. is a cycle, not walked
        // again; a dangling link is yielded, to be reported when it fails to open.
        XCTAssertEqual(all, ["B/f.xml", "a.xml", "b-x.xml", "b.xml", "b/c/d.xml.gz", "b/e.xml", "b/to-a.xml",
                             "dangling.xml", "linked/d.xml.gz", "linkme/l.xml", "notes.txt"])
        XCTAssertEqual(all, all.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        // A trailing slash changes nothing but the spelling.
        XCTAssertEqual(walk([root.path + "/"]).map { $0.hasPrefix("/") ? String($0.dropFirst()) : $0 }, all)
    }

    func testADanglingLinkIsAFileToReportAndACycleIsWalkedOnce() {
        let inputs = InputWalker([root.path]).map(\.self)
        XCTAssertTrue(inputs.contains(.file(root.path + "/dangling.xml")))
        XCTAssertEqual(inputs.filter { $0.name.hasSuffix("/d.xml.gz") }.count, 2)   // b/c and linked, not b/loop/...
        XCTAssertFalse(inputs.contains { $0.name.contains("/loop/") })
    }

    func testFileNamesThatAreNotUTF8SurviveTheRoundTrip() {
        // Latin-1 café, a stray byte, a cut sequence, and U+10FF00 itself (carried too).
        for name: [UInt8] in [[0x63, 0x61, 0x66, 0xE9], Array("caf\u{E9}".utf8), [0xFF, 0x41], [0x41, 0xC3],
                              [0xF4, 0x8F, 0xBC, 0x80], [0xED, 0xA0, 0x80]] {
            let s = PathBytes.string(name)
            XCTAssertEqual(PathBytes.bytes(s), name, "\(name)")
        }
        XCTAssertEqual(PathBytes.string(Array("caf\u{E9}".utf8)), "caf\u{E9}")   // UTF-8 is itself
        XCTAssertEqual(PathBytes.string([0x63, 0xE9]).unicodeScalars.map(\.value), [0x63, 0x10FFE9])
    }

    func testRootsKeepTheirOrderAndSpelling() {
        XCTAssertEqual(InputWalker(["-", "x/y.xml", root.path + "/b/c"]).map(\.self),
                       [.standardInput, .file("x/y.xml"), .foundInFolder(root.path + "/b/c/d.xml.gz")])
        // A file asked for by --include is converted whatever it holds.
        XCTAssertEqual(InputWalker([root.path + "/b/c"], filter: PathFilter(include: ["*.gz"])).map(\.self),
                       [.file(root.path + "/b/c/d.xml.gz")])
    }

    func testGlobsMatchTheRelativePathOrTheName() {
        XCTAssertEqual(walk([root.path], PathFilter(include: ["*.xml"])),
                       ["B/f.xml", "a.xml", "b-x.xml", "b.xml", "b/e.xml", "b/to-a.xml", "dangling.xml", "linkme/l.xml"])
        XCTAssertEqual(walk([root.path], PathFilter(include: ["b/*"])), ["b/c/d.xml.gz", "b/e.xml", "b/to-a.xml"])
        XCTAssertEqual(walk([root.path], PathFilter(exclude: ["b/*", "*.txt", "[AB]/*"])),
                       ["a.xml", "b-x.xml", "b.xml", "dangling.xml", "linked/d.xml.gz", "linkme/l.xml"])
        XCTAssertEqual(walk([root.path], PathFilter(include: ["*.gz", "?.xml"], exclude: ["a.*"])),
                       ["B/f.xml", "b.xml", "b/c/d.xml.gz", "b/e.xml", "linked/d.xml.gz", "linkme/l.xml"])
    }

    func testAFolderThatCannotBeListedIsYieldedToFail() throws {
        if getuid() == 0 { throw skip("root lists every folder") }
        let locked = root.appendingPathComponent("b/c")
        chmod(locked.path, 0)
        defer { chmod(locked.path, 0o755) }
        XCTAssertTrue(walk([root.path]).contains("b/c"))
    }

    func testShardsPartitionAnyList() {
        let names = (0..<1000).map { "archive/\($0 % 17)/feed-\($0).xml.gz" }.map { BatchInput.file($0) } + [.standardInput]
        for n in [1, 2, 3, 8, 50] {
            var seen: [BatchInput: Int] = [:]
            for k in 1...n {
                let shard = Shard(index: k, count: n)!
                for input in names where shard.contains(input) { seen[input, default: 0] += 1 }
            }
            XCTAssertEqual(seen.count, names.count, "\(n) shards cover every input")
            XCTAssertTrue(seen.values.allSatisfy { $0 == 1 }, "\(n) shards: each input once")
        }
        // Roughly even: no shard of 8 holds more than twice its share.
        let counts = (1...8).map { k in names.filter { Shard(index: k, count: 8)!.contains($0) }.count }
        XCTAssertLessThan(counts.max()!, 2 * names.count / 8, "\(counts)")
    }

    func testShardSpellingAndHash() {
        XCTAssertEqual(Shard("3/8"), Shard(index: 3, count: 8))
        XCTAssertEqual(Shard("3/8")?.description, "3/8")
        for bad in ["0/8", "9/8", "1/0", "a/b", "3", "3/8/1", ""] { XCTAssertNil(Shard(bad), bad) }
        // FNV-1a 64 reference values (the empty string is the offset basis).
        XCTAssertEqual(Shard.hash(""), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(Shard.hash("a"), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(Shard.hash("foobar"), 0x85944171f73967e8)
    }
}
