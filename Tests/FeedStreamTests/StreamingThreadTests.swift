// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
import Foundation
import Synchronization
import XCTest

/// The parsing thread behind FeedStream.items/events lets go when the consumer does:
/// after a cancel, a `break`, or the end of the input, the thread has finished (its
/// parser and buffers released) within moments.
final class StreamingThreadTests: XCTestCase {
    /// An endless feed, one item per chunk.
    private func endless() -> FeedInput {
        let head = Array("<rss version=\"2.0\"><channel><title>endless</title>".utf8)
        let item = Array("<item><title>x</title></item>".utf8)
        let state = ChunkState(.allocate(byteCount: 64, alignment: 8))
        let calls = Arc(Atomic(0))
        return .chunks(FeedChunks { [head, item] in
            let bytes = calls.value.add(1, ordering: .relaxed).newValue == 1 ? head : item
            state.buffer.copyBytes(from: bytes)
            return UnsafeRawBufferPointer(rebasing: state.buffer[0..<bytes.count])
        })
    }

    func testTheThreadEndsWhenTheTaskIsCancelled() async throws {
        for backend in FeedBackend.allCases {
            let sequence = FeedStream.items(from: endless(), backend: backend, bufferSize: 4)
            let seen = Arc(Atomic(0))
            let task = Task { () throws(FeedError) -> EventChannel<FeedItem> in
                var iterator = sequence.makeAsyncIterator()
                let channel = iterator.consumer.channel
                while try await iterator.next() != nil { seen.value.add(1, ordering: .relaxed) }
                return channel
            }
            while seen.value.load(ordering: .relaxed) < 50 { try await Task.sleep(for: .milliseconds(2)) }
            task.cancel()
            let channel = try await task.value
            XCTAssertTrue(channel.waitForProducer(seconds: 5), "\(backend): the parsing thread is still running")
        }
    }

    func testTheThreadEndsWhenTheLoopIsLeft() async throws {
        for backend in FeedBackend.allCases {
            var channel: EventChannel<FeedEvent>?
            do {
                var iterator = FeedStream.events(from: endless(), backend: backend, bufferSize: 4).makeAsyncIterator()
                channel = iterator.consumer.channel
                for _ in 0..<10 { _ = try await iterator.next() }
                XCTAssertFalse(channel!.waitForProducer(seconds: 0.05), "\(backend): ended on its own")
            }   // the iterator is dropped here
            XCTAssertTrue(channel!.waitForProducer(seconds: 5), "\(backend): the parsing thread is still running")
        }
    }

    func testTheThreadEndsAtTheEndOfTheInput() async throws {
        var iterator = FeedStream.items(from: .bytes(Array(rss("a", items: 3).utf8)), bufferSize: 1).makeAsyncIterator()
        var count = 0
        while try await iterator.next() != nil { count += 1 }
        XCTAssertEqual(count, 3)
        XCTAssertTrue(iterator.consumer.channel.waitForProducer(seconds: 5))
        let after = try await iterator.next()
        XCTAssertNil(after)   // stays ended
    }

    /// Items are handed over in batches, but never held back while the parser waits for
    /// input: a source that stalls after three items (a slow socket, a pipe) still
    /// lets the consumer have them.
    func testItemsArriveWhileTheInputStalls() async throws {
        let head = Array((rss("s", items: 3).components(separatedBy: "</channel>")[0]).utf8)
        let tail = Array("<item><title>late</title></item></channel></rss>".utf8)
        for backend in FeedBackend.allCases {
            // A chunk source: the head, then it waits until the consumer has 3 items.
            let released = DispatchSemaphore(value: 0)
            let state = ChunkState(.allocate(byteCount: 4096, alignment: 8))
            let step = Arc(Atomic(0))
            let stalled = Arc(Atomic(false))
            let input = FeedInput.chunks(FeedChunks { [head, tail] in
                let n = step.value.add(1, ordering: .relaxed).newValue
                if n == 2 && released.wait(timeout: .now() + 5) == .timedOut { stalled.value.store(true, ordering: .relaxed) }
                let bytes = n == 1 ? head : n == 2 ? tail : []
                if bytes.isEmpty { return nil }
                state.buffer.copyBytes(from: bytes)
                return UnsafeRawBufferPointer(rebasing: state.buffer[0..<bytes.count])
            })
            var titles: [String] = []
            for try await item in FeedStream.items(from: input, backend: backend) {
                titles.append(item.title?.value ?? "")
                if titles.count == 3 { released.signal() }
            }
            XCTAssertFalse(stalled.value.load(ordering: .relaxed), "\(backend): items held while the input waited")
            XCTAssertEqual(titles, ["s 0", "s 1", "s 2", "late"])

            // The same through a pipe, read by the stream itself.
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            let writer = fds[1]
            _ = head.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            var got = 0
            var iterator = FeedStream.items(from: .fileDescriptor(fds[0]), backend: backend).makeAsyncIterator()
            let waiting = Task {
                try await Task.sleep(for: .seconds(5))
                close(writer)   // unblocks a stalled read, so a failure ends instead of hanging
            }
            while got < 3, try await iterator.next() != nil { got += 1 }
            waiting.cancel()
            XCTAssertEqual(got, 3, "\(backend)")
            XCTAssertTrue(waiting.isCancelled)
            _ = tail.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            close(writer)
            let last = try await iterator.next()
            XCTAssertEqual(last?.title?.value, "late", "\(backend)")
            close(fds[0])
        }
    }

    func testABufferSizeBelowOneCountsAsOne() async throws {
        var count = 0
        for try await _ in FeedStream.items(from: .bytes(Array(rss("a", items: 3).utf8)), bufferSize: 0) { count += 1 }
        XCTAssertEqual(count, 3)
    }
}
