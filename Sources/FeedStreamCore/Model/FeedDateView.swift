// SPDX-License-Identifier: Apache-2.0
/// A date as written, and its normalization (see ``FeedDate``).
public struct FeedDateView {
    /// The text as written, trimmed.
    public let raw: FeedBytes
    /// The parsed date, or nil when the text is not a date format the spec knows.
    public let date: FeedDate?
}
