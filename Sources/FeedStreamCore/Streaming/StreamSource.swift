// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// The machinery both async sequences (FeedItemSequence, FeedEventSequence) run on:
// what to parse, the parsing thread's sinks, and the parse loop.

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
        run = { input, sink in runStream(input, parser: P.make(), sink: sink) }
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
func runStream<P: FeedParser>(_ input: StreamSource.Input, parser: P, sink: some StreamSink) -> FeedError? {
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
