// SPDX-License-Identifier: Apache-2.0
/// One event of a streamed parse, as plain values: the element of
/// ``FeedEventSequence``.
///
/// For each document: its items, then its feed-level fields, then a failure if the
/// document ended early. A failure not tied to a document (``FeedError/document`` 0:
/// an empty or unreadable input) comes alone.
public enum FeedEvent: Sendable, Equatable {
    /// An item of document number `document` (1-based).
    case item(FeedItem, document: Int)
    /// The feed-level fields of a document, complete: after its last item, also when
    /// the document failed (then a ``failure(_:)`` follows).
    case feed(Feed)
    /// A document (``FeedError/document`` > 0) or the whole input (0) failed. Parsing
    /// goes on with the next document where the input allows it.
    case failure(FeedError)
}
