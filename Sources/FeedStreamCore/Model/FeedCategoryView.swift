// SPDX-License-Identifier: Apache-2.0
/// A category: term, scheme (RSS `domain`), label.
public struct FeedCategoryView {
    /// The category (RSS: the element's text; Atom: `term`).
    public let term: FeedBytes
    /// The scheme (RSS `domain`, Atom `scheme`).
    public let scheme: FeedBytes
    /// A human-readable label (Atom `label`).
    public let label: FeedBytes
}
