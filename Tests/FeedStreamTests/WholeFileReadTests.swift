// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import XCTest

/// `DescriptorReader.readWhole`: how `feedstream convert` reads a small regular file (one
/// `pread`, parsed from memory). What it must never do is hand on part of a file as all of
/// it, or move the descriptor that the other routes read from its start.
final class WholeFileReadTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for p in paths { unlink(p) }
        paths = []
    }

    private func file(_ bytes: [UInt8]) -> (path: String, fd: Int32) {
        let path = NSTemporaryDirectory() + "wholeread-\(getpid())-\(paths.count)"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        paths.append(path)
        let fd = open(path, O_RDWR)
        XCTAssertGreaterThanOrEqual(fd, 0)
        return (path, fd)
    }

    private func status(_ fd: Int32) -> stat {
        var st = stat()
        XCTAssertEqual(fstat(fd, &st), 0)
        return st
    }

    func testASmallFileIsReadWholeAndTheDescriptorStaysAtItsStart() {
        let feed = Array("<rss version=\"2.0\"><channel><title>t</title></channel></rss>\n".utf8)
        let (_, fd) = file(feed)
        defer { close(fd) }
        XCTAssertEqual(DescriptorReader.readWhole(fd, status: status(fd)), feed)
        XCTAssertEqual(lseek(fd, 0, SEEK_CUR), 0)

        // Every size up to a few KiB, and one just under a slice: the bytes as written.
        for size in [1, 2, 511, 512, 513, 4095, 4096, 4097, DescriptorReader.size - 1] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let (_, f) = file(bytes)
            defer { close(f) }
            XCTAssertEqual(DescriptorReader.readWhole(f, status: status(f)), bytes, "size \(size)")
        }
    }

    func testAnEmptyFileIsReadAsNoBytes() {
        let (_, fd) = file([])
        defer { close(fd) }
        XCTAssertEqual(DescriptorReader.readWhole(fd, status: status(fd)), [])
    }

    func testAFileOfASliceOrMoreIsLeftToTheStream() {
        let (_, fd) = file([UInt8](repeating: 0x41, count: DescriptorReader.size))
        defer { close(fd) }
        XCTAssertNil(DescriptorReader.readWhole(fd, status: status(fd)))
    }

    /// Grown since its status was taken: never the first `size` bytes as if they were all.
    func testAFileThatGrewIsLeftToTheStream() {
        let (_, fd) = file(Array("<rss/>".utf8))
        defer { close(fd) }
        let before = status(fd)
        XCTAssertEqual(pwrite(fd, "<!-- more -->", 13, 6), 13)
        XCTAssertNil(DescriptorReader.readWhole(fd, status: before))
        XCTAssertEqual(lseek(fd, 0, SEEK_CUR), 0)
    }

    /// Cut short since its status was taken: what is there, as a stream read gives it.
    func testAFileThatShrankIsReadToItsNewEnd() {
        let (_, fd) = file(Array("<rss version=\"2.0\"/>".utf8))
        defer { close(fd) }
        let before = status(fd)
        XCTAssertEqual(ftruncate(fd, 6), 0)
        XCTAssertEqual(DescriptorReader.readWhole(fd, status: before), Array("<rss v".utf8))
    }

    func testAPipeAndAFolderAreNotRead() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        XCTAssertEqual(write(fds[1], "<rss/>", 6), 6)
        XCTAssertNil(DescriptorReader.readWhole(fds[0], status: status(fds[0])))
        var left = [UInt8](repeating: 0, count: 6)
        XCTAssertEqual(read(fds[0], &left, 6), 6, "nothing was taken from the pipe")

        let dir = open(NSTemporaryDirectory(), O_RDONLY)
        defer { close(dir) }
        XCTAssertNil(DescriptorReader.readWhole(dir, status: status(dir)))
    }
}
