// SPDX-License-Identifier: Apache-2.0
// The entry points that take a URL and a backend; the URL is the only Foundation type in
// the library's API (the generic ones and FeedInput(url) are in FeedStreamCore's
// Streaming/ParserFunctions.swift). FoundationEssentials (no ICU) where the toolchain has it.
import FeedStreamCore
import FeedStreamSwift
import FeedStreamNative
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Parses the file at `url` and returns every document as plain values; see
/// ``documents(from:backend:)-(FeedInput,_)``.
///
/// - Throws: ``FeedError/Code/io`` for a URL that is not a file URL, and everything
///   ``documents(from:backend:)-(FeedInput,_)`` throws.
public func documents(contentsOf url: URL, backend: FeedBackend = .default) throws(FeedError) -> [FeedDocument] {
    try documents(from: fileInput(url), backend: backend)
}

/// Parses the file at `url`, which holds one feed; strict. See
/// ``document(from:backend:)-(FeedInput,_)``.
public func document(contentsOf url: URL, backend: FeedBackend = .default) throws(FeedError) -> FeedDocument {
    try document(from: fileInput(url), backend: backend)
}

/// The items of the file at `url`, as an async sequence with back-pressure; see
/// ``items(from:backend:bufferSize:)-(FeedInput,_,_)``.
///
/// ```swift
/// for try await item in FeedStream.items(from: url, backend: .expat) { ... }
/// ```
public func items(from url: URL, backend: FeedBackend = .default, bufferSize: Int = 64) -> FeedItemSequence {
    FeedItemSequence(source: StreamSource(urlInput(url), backend: backend, bufferSize: bufferSize))
}

/// Every event of the file at `url`, as an async sequence with back-pressure; see
/// ``events(from:backend:bufferSize:)-(FeedInput,_,_)``.
public func events(from url: URL, backend: FeedBackend = .default, bufferSize: Int = 64) -> FeedEventSequence {
    FeedEventSequence(source: StreamSource(urlInput(url), backend: backend, bufferSize: bufferSize))
}

private func fileInput(_ url: URL) throws(FeedError) -> FeedInput {
    guard let input = FeedInput(url) else { throw notAFile(url) }
    return input
}
