// SPDX-License-Identifier: Apache-2.0
/// The items of an input, parsed on a thread of their own and delivered with
/// back-pressure: `for try await item in FeedStream.items(from: url)`.
///
/// Each iteration starts a parse on a new thread, which materializes each item as a
/// ``FeedItem`` into a bounded buffer and blocks while the buffer is full, so a slow
/// consumer holds the parser back instead of letting memory grow. A waiting consumer
/// is woken for batches of up to 16 items (fewer at the end, or whenever the parser is
/// about to wait for input), and `next()` runs on the caller's actor. The first failed
/// document (or an unreadable or empty input) is thrown as a ``FeedError`` after the
/// items before it; use ``FeedEventSequence`` to go on past failed documents.
///
/// Cancelling the consuming task, or leaving the loop (dropping the iterator), stops
/// the parse at its next item or document boundary, or at the next chunk read from a
/// file or file descriptor (on a pipe, also while waiting for data), and ends the
/// thread; a pending `next()` returns `nil`.
///
/// The sequence is a value: iterating it twice parses the input twice.
///
/// - Complexity: memory is the buffer (`bufferSize` items) plus one parser's buffers,
///   whatever the input's size.
public struct FeedItemSequence: AsyncSequence, Sendable {
    /// Each element is one item, as plain values.
    public typealias Element = FeedItem
    /// Parse failures are thrown as ``FeedError``.
    public typealias Failure = FeedError

    let source: StreamSource

    package init(source: StreamSource) { self.source = source }

    /// Starts the parse and returns its iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: source.start(ItemSink.self))
    }

    /// Hands out the items as the parsing thread produces them.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let consumer: Consumer<FeedItem>

        init(channel: EventChannel<FeedItem>) { consumer = Consumer(channel) }

        /// The next item; nil at the end of the input or once the task is cancelled.
        /// - Throws: the first ``FeedError`` of the input, after the items before it.
        public mutating func next() async throws(FeedError) -> FeedItem? {
            try await consumer.channel.next(isolation: nil)
        }

        /// The next item; see ``next()``.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(FeedError) -> FeedItem? {
            try await consumer.channel.next(isolation: actor)
        }
    }
}
