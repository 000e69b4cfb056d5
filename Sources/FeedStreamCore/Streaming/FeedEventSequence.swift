// SPDX-License-Identifier: Apache-2.0
/// Every event of an input — items, feed-level fields, failures — parsed on a thread of
/// its own and delivered with back-pressure:
/// `for try await event in FeedStream.events(from: url)`.
///
/// Unlike ``FeedItemSequence``, a failed document does not end the sequence: it arrives
/// as ``FeedEvent/failure(_:)`` and the parse goes on with the next document, as
/// archives need. The sequence throws only ``FeedError/Code/outOfMemory``.
///
/// Back-pressure, cancellation and threading are as for ``FeedItemSequence``.
public struct FeedEventSequence: AsyncSequence, Sendable {
    /// Each element is one event, as plain values.
    public typealias Element = FeedEvent
    /// Only running out of memory is thrown, as ``FeedError``.
    public typealias Failure = FeedError

    let source: StreamSource

    package init(source: StreamSource) { self.source = source }

    /// Starts the parse and returns its iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: source.start(EventSink.self))
    }

    /// Hands out the events as the parsing thread produces them.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let consumer: Consumer<FeedEvent>

        init(channel: EventChannel<FeedEvent>) { consumer = Consumer(channel) }

        /// The next event; nil at the end of the input or once the task is cancelled.
        public mutating func next() async throws(FeedError) -> FeedEvent? {
            try await consumer.channel.next(isolation: nil)
        }

        /// The next event; see ``next()``.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(FeedError) -> FeedEvent? {
            try await consumer.channel.next(isolation: actor)
        }
    }
}
