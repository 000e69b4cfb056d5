// SPDX-License-Identifier: Apache-2.0
// The entry points generic over the parser type (the backend chosen at compile time,
// statically dispatched): what a package that links only FeedStreamSwift calls, e.g.
// `FeedStreamSwift.documents(from: input, parser: SwiftFeedParser.self)`. The overloads
// that take a backend as a value (`backend: FeedBackend = .default`) are in the FeedStream
// module, which has the C backends.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - One call

/// Parses `input` with a parser of type `P` and returns every document as plain values;
/// the backend chosen at compile time (static dispatch). See
/// ``documents(from:backend:)-(FeedInput,_)``.
///
/// ```swift
/// let documents = try FeedStream.documents(from: .bytes(bytes), parser: SwiftFeedParser.self)
/// ```
public func documents<P: FeedParser>(from input: FeedInput, parser: P.Type) throws(FeedError) -> [FeedDocument] {
    try P.make().documents(from: input)
}

// MARK: - Async sequences

/// The items of `input`, parsed by a parser of type `P` (static dispatch); see
/// ``items(from:backend:bufferSize:)-(FeedInput,_,_)``.
public func items<P: FeedParser>(from input: FeedInput, parser: P.Type, bufferSize: Int = 64) -> FeedItemSequence {
    FeedItemSequence(source: StreamSource(streamInput(input), parser: P.self, bufferSize: bufferSize))
}

/// Every event of `input`, parsed by a parser of type `P` (static dispatch); see
/// ``events(from:backend:bufferSize:)-(FeedInput,_,_)``.
public func events<P: FeedParser>(from input: FeedInput, parser: P.Type, bufferSize: Int = 64) -> FeedEventSequence {
    FeedEventSequence(source: StreamSource(streamInput(input), parser: P.self, bufferSize: bufferSize))
}

/// The items of the file at `url`, parsed by a parser of type `P` (static dispatch).
public func items<P: FeedParser>(from url: URL, parser: P.Type, bufferSize: Int = 64) -> FeedItemSequence {
    FeedItemSequence(source: StreamSource(urlInput(url), parser: P.self, bufferSize: bufferSize))
}

// MARK: - Inputs

extension FeedInput {
    /// The input a file URL names; `nil` for other URLs (the library does no networking:
    /// fetch the bytes, then parse them with ``bytes(_:)``).
    public init?(_ url: URL) {
        guard url.isFileURL else { return nil }
        self = .file(path: url.path)
    }
}

package func streamInput(_ input: FeedInput) -> StreamSource.Input {
    if case .file(let path) = input { return .path(path) }
    return .input(input)
}

package func notAFile(_ url: URL) -> FeedError {
    FeedError(code: .io, message: "not a file URL: \(url.absoluteString)")
}

package func urlInput(_ url: URL) -> StreamSource.Input {
    guard url.isFileURL else { return .failure(notAFile(url)) }
    return .path(url.path)
}
