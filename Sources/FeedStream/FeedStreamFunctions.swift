// SPDX-License-Identifier: Apache-2.0
// The module's entry points for callers who do not want to drive a parser themselves:
// one call to plain values, async sequences, and a completion handler, with the backend
// as a value (FeedBackend). The generic ones (`parser: P.Type`) are in FeedStreamCore
// (Streaming/ParserFunctions.swift), which has no C backend.
//
// They are free functions, written module-qualified in the docs (`FeedStream.items(from:)`),
// not static members of a `FeedStream` type: a type named like its module shadows the
// module, so a user's `FeedStream.Feed` (the usual way to tell our `Feed` from theirs)
// would stop compiling ("type 'FeedStream' has no member 'Feed'").

import FeedStreamCore
import FeedStreamSwift
import FeedStreamNative


// MARK: - One call

/// Parses `input` and returns every document as plain values.
///
/// Lenient, as archives need: a document that fails keeps the items parsed before the
/// failure and carries it in ``FeedDocument/error``, and the documents after it are
/// parsed too. Use ``document(from:backend:)-(FeedInput,_)`` when one well-formed feed is expected.
///
/// ```swift
/// for document in try FeedStream.documents(from: .file(path: "dump.xml.gz")) {
///     print(document.feed.title?.value ?? "", document.items.count)
/// }
/// ```
///
/// - Parameters:
///   - input: a file, a file descriptor, bytes or chunks; plain XML or gzip.
///   - backend: the parser to use; ``FeedBackend/default`` when not given.
/// - Returns: the documents in input order; never empty.
/// - Throws: ``FeedError`` when the input yields no document at all (unreadable, empty,
///   corrupt gzip at its start: ``FeedError/Code/io``, ``FeedError/Code/empty``,
///   ``FeedError/Code/gzip``, ...) or memory runs out.
/// - Complexity: memory grows with the input; stream large inputs with ``items(from:backend:bufferSize:)-(FeedInput,_,_)``.
public func documents(from input: FeedInput, backend: FeedBackend = .default) throws(FeedError) -> [FeedDocument] {
    switch backend {
    case .expat: try documents(from: input, parser: ExpatFeedParser.self)
    case .libxml2: try documents(from: input, parser: LibXML2FeedParser.self)
    case .swift: try documents(from: input, parser: SwiftFeedParser.self)
    }
}

/// Parses bytes in memory (a `[UInt8]`, `Data`, a slice...) and returns every document
/// as plain values; see ``documents(from:backend:)-(FeedInput,_)``.
///
/// ```swift
/// let (data, _) = try await URLSession.shared.data(from: feedURL)
/// let documents = try FeedStream.documents(from: data)
/// ```
public func documents(from bytes: some Sequence<UInt8>, backend: FeedBackend = .default) throws(FeedError)
    -> [FeedDocument]
{
    try documents(from: .bytes(Array(bytes)), backend: backend)
}

/// Parses an input that holds one feed and returns it, with its items; strict: any
/// failure is thrown.
///
/// ```swift
/// let feed = try FeedStream.document(from: data)
/// print(feed.feed.title?.value ?? "untitled", feed.items.map(\.title?.value))
/// ```
///
/// - Returns: the first document of the input (later documents, if any, are parsed
///   and checked, then dropped).
/// - Throws: the input's first ``FeedError``: ill-formed XML with its line and column
///   (``FeedError/Code/malformedXML``), a document that is not a feed
///   (``FeedError/Code/notAFeed``), an empty, unreadable or corrupt input.
public func document(from input: FeedInput, backend: FeedBackend = .default) throws(FeedError) -> FeedDocument {
    let documents = try documents(from: input, backend: backend)
    if let failed = documents.first(where: { $0.error != nil }), let error = failed.error { throw error }
    return documents[0]
}

/// Parses bytes in memory that hold one feed; see ``document(from:backend:)-(FeedInput,_)``.
public func document(from bytes: some Sequence<UInt8>, backend: FeedBackend = .default) throws(FeedError)
    -> FeedDocument
{
    try document(from: .bytes(Array(bytes)), backend: backend)
}

// MARK: - Completion handler

/// Parses `input` on a thread of its own and hands the outcome to `completion`, on that
/// thread: every document (as ``documents(from:backend:)-(FeedInput,_)`` returns them) or
/// the error. Returns at once.
///
/// For callers not using `async`; those who are can write
/// `try await Task.detached { try FeedStream.documents(from: input) }.value`.
///
/// ```swift
/// FeedStream.documents(from: .file(path: "feed.xml")) { result in
///     switch result {
///     case .success(let documents): print(documents.count)
///     case .failure(let error): print("failed:", error)
///     }
/// }
/// ```
public func documents(from input: FeedInput, backend: FeedBackend = .default,
                      completion: @escaping @Sendable (Result<[FeedDocument], FeedError>) -> Void)
{
    let started = startThread {
        completion(Result { () throws(FeedError) -> [FeedDocument] in try documents(from: input, backend: backend) })
    }
    if !started { completion(.failure(FeedError(code: .io, message: "cannot start the parsing thread"))) }
}

// MARK: - Async sequences

/// The items of `input`, parsed on a thread of their own, as an async sequence with
/// back-pressure.
///
/// ```swift
/// for try await item in FeedStream.items(from: .file(path: "dump.xml.gz"), backend: .expat) {
///     print(item.title?.value ?? "")
/// }
/// ```
///
/// - Parameters:
///   - input: what to parse. A ``FeedInput/file(path:)`` or
///     ``FeedInput/fileDescriptor(_:)`` is read in chunks by the stream, so cancelling
///     stops it between two reads (on a pipe, also while waiting for data).
///   - backend: the parser to use; ``FeedBackend/default`` when not given.
///   - bufferSize: items parsed ahead of the consumer at most (the parser waits beyond);
///     values below 1 count as 1.
/// - Returns: a sequence that throws the input's first ``FeedError`` after the items
///   before it. See ``FeedItemSequence`` for cancellation.
public func items(from input: FeedInput, backend: FeedBackend = .default, bufferSize: Int = 64) -> FeedItemSequence {
    FeedItemSequence(source: StreamSource(streamInput(input), backend: backend, bufferSize: bufferSize))
}

/// Every event of `input` — items, feed-level fields, failures — parsed on a thread of
/// their own, as an async sequence with back-pressure that goes on past failed
/// documents.
///
/// ```swift
/// for try await event in FeedStream.events(from: .file(path: "archive.xml.gz")) {
///     switch event {
///     case .item(let item, let document): print(document, item.title?.value ?? "")
///     case .feed(let feed): print("feed", feed.title?.value ?? "")
///     case .failure(let error): print("failed:", error)
///     }
/// }
/// ```
///
/// - Parameters:
///   - input: what to parse (see ``items(from:backend:bufferSize:)-(FeedInput,_,_)``).
///   - backend: the parser to use; ``FeedBackend/default`` when not given.
///   - bufferSize: events parsed ahead of the consumer at most; values below 1 count as 1.
public func events(from input: FeedInput, backend: FeedBackend = .default, bufferSize: Int = 64) -> FeedEventSequence {
    FeedEventSequence(source: StreamSource(streamInput(input), backend: backend, bufferSize: bufferSize))
}

extension StreamSource {
    /// The recipe for a backend chosen at run time (statically dispatched below the switch).
    init(_ input: Input, backend: FeedBackend, bufferSize: Int) {
        switch backend {
        case .expat: self.init(input, parser: ExpatFeedParser.self, bufferSize: bufferSize)
        case .libxml2: self.init(input, parser: LibXML2FeedParser.self, bufferSize: bufferSize)
        case .swift: self.init(input, parser: SwiftFeedParser.self, bufferSize: bufferSize)
        }
    }
}
