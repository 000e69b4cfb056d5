#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

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

/// Owned by an iterator: when the last copy of the iterator goes (the loop was left),
/// the parse is cancelled so its thread ends.
final class Consumer<Element: Sendable>: Sendable {
    let channel: EventChannel<Element>
    init(_ channel: EventChannel<Element>) { self.channel = channel }
    deinit { channel.cancel() }
}

/// What to parse and with which parser: the recipe a sequence starts on each iteration.
/// (The FeedStream module adds the initializer that takes a `FeedBackend` value.)
package struct StreamSource: Sendable {
    package enum Input: Sendable {
        /// Read by the stream itself in chunks, so cancelling stops a long file promptly.
        case path(String)
        case input(FeedInput)
        /// Fails at once (a URL that is not a file URL).
        case failure(FeedError)
    }

    let input: Input
    let bufferSize: Int
    /// Runs a parse with a parser it makes itself, on the calling thread (generic over
    /// the parser type, so the parse is statically dispatched).
    let run: @Sendable (Input, any StreamSink) -> FeedError?

    package init<P: FeedParser>(_ input: Input, parser: P.Type, bufferSize: Int) {
        self.input = input
        self.bufferSize = bufferSize
        run = { input, sink in runStream(input, parser: P(), sink: sink) }
    }

    /// A new channel, and a thread parsing into it.
    func start<Sink: StreamSink>(_ sink: Sink.Type) -> EventChannel<Sink.Element> {
        let channel = EventChannel<Sink.Element>(capacity: max(1, bufferSize))
        let input = input, run = run
        let started = startThread {
            let sink = Sink(channel)
            let failure = run(input, sink)
            channel.finish(failure: sink.failure ?? failure)
        }
        if !started { channel.finish(failure: FeedError(code: .io, message: "cannot start the parsing thread")) }
        return channel
    }
}

/// The handler on the parsing thread: turns events into elements on the channel.
protocol StreamSink: FeedHandler, SendableMetatype {
    associatedtype Element: Sendable
    init(_ channel: EventChannel<Element>)
    var channel: EventChannel<Element> { get }
    /// The failure that ends the stream, if the sink decided it.
    var failure: FeedError? { get }
}

/// Thrown by a sink to stop the parse (consumer gone, or the stream's end decided).
struct StreamStopped: Error {}

final class ItemSink: StreamSink {
    let channel: EventChannel<FeedItem>
    private(set) var failure: FeedError?

    init(_ channel: EventChannel<FeedItem>) { self.channel = channel }

    func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
        if channel.isCancelled { throw StreamStopped() }
    }

    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        guard channel.send(FeedItem(item)) else { throw StreamStopped() }
    }

    func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        if failure == nil { failure = error }
        throw StreamStopped()
    }
}

final class EventSink: StreamSink {
    let channel: EventChannel<FeedEvent>
    var failure: FeedError? { nil }

    init(_ channel: EventChannel<FeedEvent>) { self.channel = channel }

    func parser(_ parser: any FeedParser, didStartDocument document: Int) throws {
        if channel.isCancelled { throw StreamStopped() }
    }

    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) throws {
        guard channel.send(.item(FeedItem(item), document: item.feed.document)) else { throw StreamStopped() }
    }

    func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) throws {
        guard channel.send(.feed(Feed(feed))) else { throw StreamStopped() }
    }

    func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        guard channel.send(.failure(error)) else { throw StreamStopped() }
    }
}

/// One parse into `sink`; returns the failure that ends the stream, if the parse threw
/// one (out of memory), else nil.
private func runStream<P: FeedParser>(_ input: StreamSource.Input, parser: P, sink: some StreamSink) -> FeedError? {
    // The channel batches wake-ups: flush what is buffered before anything that may
    // block this thread, so the consumer never waits on a parser that waits on input.
    let channel = sink.channel
    func read(_ fd: Int32) throws {
        // Read here, in chunks: a read on a pipe can be cancelled, and flushes first.
        _ = try parseReading(fileDescriptor: fd, with: parser, handler: sink,
                             isCancelled: { channel.flush(); return channel.isCancelled },
                             didRead: { _ in channel.flush() })
    }
    do {
        switch input {
        case .input(.chunks(let chunks)):
            try parser.parse(.chunks(FeedChunks { channel.flush(); return try chunks.next() }), handler: sink)
        case .input(.fileDescriptor(let fd)):
            try read(fd)
        case .input(let input):
            try parser.parse(input, handler: sink)   // bytes in memory: nothing blocks
        case .failure(let error):
            try sink.parser(parser, didFail: error)
        case .path(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                try parser.parse(.file(path: path), handler: sink)   // reports the open error as parse does
                return nil
            }
            defer { close(fd) }
            try read(fd)
        }
        return nil
    } catch let error as FeedError {
        return error
    } catch {
        return nil   // StreamStopped, or the reader's cancellation: the sink knows why
    }
}
