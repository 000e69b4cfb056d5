// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Foundation
import Synchronization
import XCTest

/// The library as another package uses it: the delegate, one-call, completion-handler
/// and async styles, backends as values and as types, and parsers on several tasks.
final class LibraryAPITests: XCTestCase {
    private var fixtures: [URL] { Paths.files(in: Paths.corpus.appendingPathComponent("feeds"), extensions: ["xml"]) }

    // MARK: delegate

    /// Every callback names the parser that sent it, for every backend and through a
    /// group, including errors reported outside a document.
    func testEveryCallbackNamesItsParser() throws {
        final class Senders: FeedHandler {
            var senders: [ObjectIdentifier] = []
            var names: Set<String> = []
            func note(_ p: any FeedParser) {
                senders.append(ObjectIdentifier(p))
                names.insert(type(of: p).backendName)
            }
            func parser(_ parser: any FeedParser, didStartDocument document: Int) { note(parser) }
            func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) { note(parser) }
            func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) { note(parser) }
            func parser(_ parser: any FeedParser, didFinishDocument document: Int) { note(parser) }
            func parser(_ parser: any FeedParser, didFail error: FeedError) { note(parser) }
        }
        let input = bytes(rss("a", items: 2) + rss("b", items: 1) + "<rss><channel><item></chanel>")
        for backend in FeedBackend.allCases {
            let parser = backend.makeParser()
            let a = Senders(), b = Senders()
            try parser.parse(.bytes(input), handler: FeedHandlerGroup(a, b))
            // 3 documents: start + feed + finish/fail each, 3 items, and the recovered
            // third document's empty item.
            XCTAssertEqual(a.senders.count, 13, "\(backend)")
            XCTAssertEqual(Set(a.senders), [ObjectIdentifier(parser)], "\(backend)")
            XCTAssertEqual(a.names, [backend.rawValue])
            XCTAssertEqual(a.senders, b.senders)

            let empty = Senders()
            try parser.parse(.bytes([]), handler: empty)   // didFail alone, document 0
            XCTAssertEqual(empty.senders, [ObjectIdentifier(parser)], "\(backend)")
        }
    }

    // MARK: one call

    /// `FeedStream.X` names the module's X: no type named FeedStream shadows the module
    /// (this would not compile if one did).
    func testModuleQualifiedNamesResolve() throws {
        let feed: FeedStream.Feed? = try FeedStream.documents(from: bytes(rss("q", items: 1))).first?.feed
        let item: FeedStream.FeedItem? = nil
        XCTAssertEqual(feed?.title?.value, "q")
        XCTAssertNil(item)
        _ = FeedStream.items(from: FeedStream.FeedInput.bytes([]), backend: FeedStream.FeedBackend.swift)
    }

    func testOneCallReturnsWhatTheCollectorCollects() throws {
        for url in fixtures {
            let collector = FeedCollector()
            try ExpatFeedParser().parse(.file(path: url.path), handler: collector)
            XCTAssertEqual(try FeedStream.documents(contentsOf: url), collector.documents, url.lastPathComponent)
            let data = try Data(contentsOf: url)
            XCTAssertEqual(try FeedStream.documents(from: data, backend: .swift), collector.documents)
            XCTAssertEqual(try FeedStream.documents(from: .bytes([UInt8](data)), parser: LibXML2FeedParser.self),
                           collector.documents)
        }
    }

    func testOneCallErrorsAreTypedAndSayWhere() throws {
        // Lenient: the failed second document is returned with its error.
        let docs = try FeedStream.documents(from: bytes(rss("a", items: 1) + "<rss><channel>\n<item></chanel>"))
        XCTAssertEqual(docs.count, 2)
        XCTAssertNil(docs[0].error)
        XCTAssertEqual(docs[1].error?.code, .malformedXML)

        // Strict: the same input throws, with the document, line and column.
        do {
            _ = try FeedStream.document(from: bytes(rss("a", items: 1) + "<rss><channel>\n<item></chanel>"))
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error.code, .malformedXML)   // typed: `error` is a FeedError
            XCTAssertEqual(error.document, 2)
            XCTAssertEqual(error.line, 2)
            XCTAssertGreaterThan(error.column, 0)
            XCTAssert(error.description.hasPrefix("document 2, line 2, column "), error.description)
        }
        XCTAssertEqual(try FeedStream.document(from: bytes(rss("x", items: 3))).items.count, 3)

        func code(_ body: () throws(FeedError) -> Void) -> FeedError.Code? {
            do { try body(); return nil } catch { return error.code }
        }
        XCTAssertEqual(code { () throws(FeedError) in _ = try FeedStream.documents(from: [UInt8]()) }, .empty)
        XCTAssertEqual(code { () throws(FeedError) in _ = try FeedStream.documents(from: .file(path: "/nonexistent/feed.xml")) }, .io)
        XCTAssertEqual(code { () throws(FeedError) in _ = try FeedStream.documents(contentsOf: URL(string: "https://example.com/feed")!) },
                       .io)
        XCTAssertEqual(code { () throws(FeedError) in _ = try FeedStream.document(from: bytes("<html><body/></html>")) }, .notAFeed)
        XCTAssertEqual(code { () throws(FeedError) in _ = try FeedStream.documents(from: [0x1F, 0x8B, 0x08, 0x00, 0x01]) }, .gzip)
    }

    func testCompletionHandlerRunsOnAnotherThreadWithAResult() throws {
        let done = expectation(description: "completion")
        let caller = pthread_self()
        let outcome = Mutex<(Int, Bool)?>(nil)
        FeedStream.documents(from: .bytes(bytes(rss("a", items: 4))), backend: .libxml2) { result in
            outcome.withLock { $0 = ((try? result.get())?.first?.items.count ?? -1, pthread_equal(pthread_self(), caller) != 0) }
            done.fulfill()
        }
        let failed = expectation(description: "failure")
        FeedStream.documents(from: .bytes([])) { result in
            if case .failure(let error) = result, error.code == .empty { failed.fulfill() }
        }
        wait(for: [done, failed], timeout: 10)
        XCTAssertEqual(outcome.withLock { $0?.0 }, 4)
        XCTAssertEqual(outcome.withLock { $0?.1 }, false)

        // The parser-instance variant calls back before returning.
        var called = false
        ExpatFeedParser().parse(.bytes(bytes(rss("a", items: 1)))) { result in
            called = (try? result.get())?.count == 1
        }
        XCTAssertTrue(called)
    }

    // MARK: async

    func testItemsStreamMatchesTheCollectorOnEveryBackend() async throws {
        for url in fixtures {
            let expected = try FeedStream.documents(contentsOf: url).flatMap(\.items)
            for backend in FeedBackend.allCases {
                var got: [FeedItem] = []
                for try await item in FeedStream.items(from: url, backend: backend, bufferSize: 2) { got.append(item) }
                XCTAssertEqual(got, expected, "\(url.lastPathComponent) \(backend)")
            }
            var generic: [FeedItem] = []
            for try await item in FeedStream.items(from: .file(path: url.path), parser: SwiftFeedParser.self) {
                generic.append(item)
            }
            XCTAssertEqual(generic, expected)
        }
    }

    func testItemsStreamThrowsTheFirstFailureAfterTheItemsBeforeIt() async throws {
        let input = bytes(rss("a", items: 3) + "<rss><channel>\n<item><title>t</title></item></chanel>"
                          + rss("c", items: 2))
        var titles: [String] = []
        do {
            for try await item in FeedStream.items(from: .bytes(input)) { titles.append(item.title?.value ?? "") }
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error.code, .malformedXML)
            XCTAssertEqual(error.document, 2)
        }
        XCTAssertEqual(titles, ["a 0", "a 1", "a 2", "t"])

        // The event stream goes on past it.
        var kinds: [String] = []
        for try await event in FeedStream.events(from: .bytes(input), backend: .swift) {
            switch event {
            case .item(_, let document): kinds.append("item \(document)")
            case .feed(let feed): kinds.append("feed \(feed.document)")
            case .failure(let error): kinds.append("fail \(error.document) \(error.code)")
            }
        }
        XCTAssertEqual(kinds, ["item 1", "item 1", "item 1", "feed 1", "item 2", "feed 2", "fail 2 xml",
                               "item 3", "item 3", "feed 3"])

        var failures: [FeedError] = []
        for try await event in FeedStream.events(from: URL(fileURLWithPath: "/nonexistent.xml")) {
            if case .failure(let e) = event { failures.append(e) }
        }
        XCTAssertEqual(failures.map(\.code), [.io])
    }

    /// An endless feed: one item per chunk, counting the chunks pulled.
    private func endlessFeed(_ pulled: Arc<Atomic<Int>>) -> FeedInput {
        let head = Array("<rss version=\"2.0\"><channel><title>endless</title>".utf8)
        let item = Array("<item><title>x</title><description>some text</description></item>".utf8)
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(head.count, item.count), alignment: 8)
        let state = ChunkState(storage)
        return .chunks(FeedChunks { [head, item] in
            let n = pulled.value.add(1, ordering: .relaxed).newValue
            let bytes = n == 1 ? head : item
            state.buffer.copyBytes(from: bytes)
            return UnsafeRawBufferPointer(rebasing: state.buffer[0..<bytes.count])
        })
    }

    /// A consumer that stops reading holds the parser back: it parses at most the
    /// buffer ahead, and memory stays flat.
    func testSlowConsumerHoldsTheParserBack() async throws {
        for backend in FeedBackend.allCases {
            let pulled = Arc(Atomic(0))
            var iterator = FeedStream.items(from: endlessFeed(pulled), backend: backend, bufferSize: 8)
                .makeAsyncIterator()
            for _ in 0..<5 { _ = try await iterator.next() }
            try await Task.sleep(for: .milliseconds(300))
            let held = pulled.value.load(ordering: .relaxed)
            // 5 consumed + 8 buffered + the one the parser is blocked on (+ the header,
            // + chunks the tokenizer reads before an item completes).
            XCTAssertLessThan(held, 5 + 8 + 8, "\(backend)")
            try await Task.sleep(for: .milliseconds(100))
            XCTAssertEqual(pulled.value.load(ordering: .relaxed), held, "\(backend): the parser did not wait")
            _ = try await iterator.next()
        }
    }

    /// Cancelling the consuming task ends the iteration, stops the parse and lets the
    /// parsing thread go; so does leaving the loop.
    func testCancellingTheConsumerStopsTheParse() async throws {
        for backend in FeedBackend.allCases {
            let pulled = Arc(Atomic(0))
            let input = endlessFeed(pulled)
            let started = Arc(Atomic(0))
            let task = Task {
                var count = 0
                for try await _ in FeedStream.items(from: input, backend: backend) {
                    count += 1
                    started.value.store(count, ordering: .relaxed)
                }
                return count
            }
            while started.value.load(ordering: .relaxed) < 100 { try await Task.sleep(for: .milliseconds(5)) }
            task.cancel()
            let count = try await task.value   // returns: a pending next() ends with nil
            XCTAssertGreaterThanOrEqual(count, 100)
            try await Task.sleep(for: .milliseconds(200))
            let after = pulled.value.load(ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(200))
            XCTAssertEqual(pulled.value.load(ordering: .relaxed), after, "\(backend): still parsing after cancel")

            // Leaving the loop early (the iterator is dropped).
            let pulled2 = Arc(Atomic(0))
            for try await _ in FeedStream.items(from: endlessFeed(pulled2), backend: backend) { break }
            try await Task.sleep(for: .milliseconds(200))
            let after2 = pulled2.value.load(ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(200))
            XCTAssertEqual(pulled2.value.load(ordering: .relaxed), after2, "\(backend): still parsing after break")
        }
    }

    /// A big file is read in chunks by the stream: cancelling stops it between reads,
    /// even inside one huge document.
    func testCancellingStopsALongFile() async throws {
        let path = NSTemporaryDirectory() + "feedstream-api-\(getpid()).xml"
        defer { unlink(path) }
        var text = "<rss version=\"2.0\"><channel><title>big</title>"
        for i in 0..<60_000 { text += "<item><title>\(i)</title><description>\(String(repeating: "x", count: 100))</description></item>" }
        text += "</channel></rss>"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let task = Task {
            var n = 0
            for try await _ in FeedStream.items(from: URL(fileURLWithPath: path), bufferSize: 1) {
                n += 1
                if n == 10 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return n
        }
        let n = try await task.value
        XCTAssertGreaterThanOrEqual(n, 10)
        XCTAssertLessThan(n, 60_000)
    }

    // MARK: concurrency

    /// One parser per task, several tasks at once, every backend: each gets exactly
    /// what a lone sequential parse gets.
    func testParsersRunConcurrentlyOnePerTask() async throws {
        let inputs = try fixtures.map { try [UInt8](Data(contentsOf: $0)) } + [bytes(rss("big", items: 2000))]
        var expected: [[FeedDocument]] = []
        for input in inputs { expected.append(try ExpatFeedParser().documents(from: .bytes(input))) }
        let results = try await withThrowingTaskGroup(of: (Int, FeedBackend, [[FeedDocument]]).self) { group in
            for round in 0..<4 {
                for backend in FeedBackend.allCases {
                    group.addTask {
                        let parser = backend.makeParser()   // made and used inside its task only
                        var out: [[FeedDocument]] = []
                        for input in inputs { out.append(try parser.documents(from: .bytes(input))) }
                        return (round, backend, out)
                    }
                }
            }
            var all: [(Int, FeedBackend, [[FeedDocument]])] = []
            for try await r in group { all.append(r) }
            return all
        }
        XCTAssertEqual(results.count, 4 * FeedBackend.allCases.count)
        for (round, backend, out) in results { XCTAssertEqual(out, expected, "round \(round) \(backend)") }
    }
}

/// A reference to a non-copyable value, shareable between the test and a chunk source.
final class Arc<T: ~Copyable & Sendable>: Sendable {
    let value: T
    init(_ value: consuming T) { self.value = value }
}

/// The endless feed's chunk buffer (used on the parsing thread only).
final class ChunkState: @unchecked Sendable {
    let buffer: UnsafeMutableRawBufferPointer
    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }
    deinit { buffer.deallocate() }
}
