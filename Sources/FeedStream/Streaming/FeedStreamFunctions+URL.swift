// The entry points that take a URL: the only Foundation types in the library's API.
// FoundationEssentials (no ICU) where the toolchain has it.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FeedInput {
    /// The input a file URL names; `nil` for other URLs (the library does no networking:
    /// fetch the bytes, then parse them with ``bytes(_:)``).
    public init?(_ url: URL) {
        guard url.isFileURL else { return nil }
        self = .file(path: url.path)
    }
}

/// Parses the file at `url` and returns every document as plain values; see
/// ``documents(from:backend:)-(FeedInput,_)``.
///
/// - Throws: ``FeedError/Code/io`` for a URL that is not a file URL, and everything
///   ``documents(from:backend:)-(FeedInput,_)`` throws.
public func documents(contentsOf url: URL, backend: FeedBackend = .expat) throws(FeedError) -> [FeedDocument] {
    try documents(from: fileInput(url), backend: backend)
}

/// Parses the file at `url`, which holds one feed; strict. See
/// ``document(from:backend:)-(FeedInput,_)``.
public func document(contentsOf url: URL, backend: FeedBackend = .expat) throws(FeedError) -> FeedDocument {
    try document(from: fileInput(url), backend: backend)
}

/// The items of the file at `url`, as an async sequence with back-pressure; see
/// ``items(from:backend:bufferSize:)-(FeedInput,_,_)``.
///
/// ```swift
/// for try await item in FeedStream.items(from: url, backend: .expat) { ... }
/// ```
public func items(from url: URL, backend: FeedBackend = .expat, bufferSize: Int = 64) -> FeedItemSequence {
    FeedItemSequence(source: StreamSource(urlInput(url), backend: backend, bufferSize: bufferSize))
}

/// The items of the file at `url`, parsed by a parser of type `P` (static dispatch).
public func items<P: FeedParser>(from url: URL, parser: P.Type, bufferSize: Int = 64) -> FeedItemSequence {
    FeedItemSequence(source: StreamSource(urlInput(url), parser: P.self, bufferSize: bufferSize))
}

/// Every event of the file at `url`, as an async sequence with back-pressure; see
/// ``events(from:backend:bufferSize:)-(FeedInput,_,_)``.
public func events(from url: URL, backend: FeedBackend = .expat, bufferSize: Int = 64) -> FeedEventSequence {
    FeedEventSequence(source: StreamSource(urlInput(url), backend: backend, bufferSize: bufferSize))
}

private func notAFile(_ url: URL) -> FeedError {
    FeedError(code: .io, message: "not a file URL: \(url.absoluteString)")
}

private func fileInput(_ url: URL) throws(FeedError) -> FeedInput {
    guard let input = FeedInput(url) else { throw notAFile(url) }
    return input
}

private func urlInput(_ url: URL) -> StreamSource.Input {
    guard url.isFileURL else { return .failure(notAFile(url)) }
    return .path(url.path)
}
