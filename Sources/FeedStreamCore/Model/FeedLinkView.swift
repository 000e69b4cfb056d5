// SPDX-License-Identifier: Apache-2.0
/// A link. `rel` defaults to "alternate" when the feed gave none; `href` as written
/// (the JSON Lines writer resolves it against the `xml:base` in scope).
public struct FeedLinkView {
    /// The target as written (unresolved).
    public let href: FeedBytes
    /// The relation; "alternate" when the feed gave none.
    public let rel: FeedBytes
    /// The target's MIME type; for a `self` link that gives none, "application/atom+xml".
    public let type: FeedBytes
    /// The target's language.
    public let hreflang: FeedBytes
    /// The link's title.
    public let title: FeedBytes
    /// The target's length in bytes, as written.
    public let length: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    package let baseChain: FeedBytes
}
