@testable import FeedStream
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

    func testABufferSizeBelowOneCountsAsOne() async throws {
        var count = 0
        for try await _ in FeedStream.items(from: .bytes(Array(rss("a", items: 3).utf8)), bufferSize: 0) { count += 1 }
        XCTAssertEqual(count, 3)
    }
}
