// SPDX-License-Identifier: Apache-2.0
/// Bytes that arrive in pieces — from another thread, a decompressor, a socket — as the
/// input of ``FeedInput/chunks(_:)``.
///
/// The parser calls ``next()`` until it returns `nil`, on the thread that called
/// `parse`, and feeds each chunk on (plain XML or gzip is still decided by the first
/// bytes; chunks may be split anywhere). A chunk is borrowed: it must stay valid only
/// until the following call to `next()` or until `parse` returns, so a producer can
/// hand out its own buffers and reuse them.
///
/// An error thrown by `next()` stops the parse and `parse` rethrows it, as it does a
/// handler's.
///
/// ```swift
/// var buffer = [UInt8](repeating: 0, count: 1 << 16)
/// let chunks = FeedChunks { ... fill a buffer, return a view of it, or nil at the end ... }
/// try parser.parse(.chunks(chunks), handler: writer)
/// ```
public struct FeedChunks: Sendable, Equatable {
    private let source: Source

    /// - Parameter next: returns the next chunk, or `nil` at the end of the stream.
    public init(_ next: @escaping @Sendable () throws -> UnsafeRawBufferPointer?) {
        source = Source(next: next)
    }

    /// Chunks of a gzip stream inflated by another thread (the command line's read-ahead): for
    /// the chunk ``next()`` returned last, the compressed bytes inflate had consumed to
    /// produce it, or nil when the stream is not gzip. The package's parsers then parse
    /// the chunks as uncompressed XML and check ``FeedLimits/maxRatio`` with these
    /// counts, as when they inflate themselves (``InputStage``,
    /// `cfs_parser_feed_inflated`); a parser of your own sees plain chunks.
    /// With `origin`, the chunks are a part of an inflated gzip stream, split at a
    /// document's start (``InflatedOrigin``): the parser checks the ratio where one
    /// parser of the whole stream checks it.
    /// `gap`: for the chunk ``next()`` returned last, the gap of the gzip stream it stands
    /// for (the chunk is then empty), nil for chunks of bytes: the parsers take it as the
    /// input stage takes a gap it meets (`cfs_parser_feed_gap`).
    package init(inflated next: @escaping @Sendable () throws -> UnsafeRawBufferPointer?,
                 compressed: @escaping @Sendable () -> UInt64?, gap: @escaping @Sendable () -> StreamGap? = { nil },
                 origin: InflatedOrigin? = nil) {
        source = Source(next: next, compressed: compressed, gap: gap, origin: origin)
    }

    /// The next chunk, or `nil` at the end of the stream.
    public func next() throws -> UnsafeRawBufferPointer? { try source.next() }

    /// For chunks made with ``init(inflated:compressed:gap:origin:)``: see there. Nil otherwise.
    package var compressed: (@Sendable () -> UInt64?)? { source.compressed }

    /// For chunks made with ``init(inflated:compressed:gap:origin:)``: see there. Nil otherwise.
    package var gap: (@Sendable () -> StreamGap?)? { source.gap }

    /// For chunks made with ``init(inflated:compressed:gap:origin:)`` and an origin: where the part
    /// begins. Nil otherwise.
    package var origin: InflatedOrigin? { source.origin }

    /// Two values are equal when they are the same source.
    public static func == (a: FeedChunks, b: FeedChunks) -> Bool { a.source === b.source }

    private final class Source: Sendable {
        let next: @Sendable () throws -> UnsafeRawBufferPointer?
        let compressed: (@Sendable () -> UInt64?)?
        let gap: (@Sendable () -> StreamGap?)?
        let origin: InflatedOrigin?
        init(next: @escaping @Sendable () throws -> UnsafeRawBufferPointer?,
             compressed: (@Sendable () -> UInt64?)? = nil, gap: (@Sendable () -> StreamGap?)? = nil,
             origin: InflatedOrigin? = nil) {
            self.next = next
            self.compressed = compressed
            self.gap = gap
            self.origin = origin
        }
    }
}

/// Where a part of an inflated gzip stream begins (C: `cfs_parser_inflated_origin`):
/// the part's first byte's offset in the whole uncompressed stream, and the compressed
/// bytes inflate had consumed at the last ratio checkpoint (a multiple of
/// ``InputStage/chunkSize``) at or before it. The ratio checkpoints then fall where
/// they fall in the whole stream, with the same counts.
package struct InflatedOrigin: Sendable, Equatable {
    package var offset: UInt64
    package var checkpoint: UInt64
    package init(offset: UInt64, checkpoint: UInt64) {
        self.offset = offset
        self.checkpoint = checkpoint
    }
}
