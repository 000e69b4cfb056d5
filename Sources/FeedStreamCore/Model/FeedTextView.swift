// SPDX-License-Identifier: Apache-2.0
/// A text construct: value, type ("text", "html", "xhtml" or a MIME type), and the
/// xml:lang and xml:base in scope.
public struct FeedTextView {
    /// The text, trimmed; for xhtml, the serialized child markup.
    public let value: FeedBytes
    /// "text", "html", "xhtml" or a MIME type.
    public let type: FeedBytes
    /// The `xml:lang` in scope.
    public let language: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    package let baseChain: FeedBytes
    /// True when the value is base64 (Atom 0.3 `mode="base64"`) and must be decoded.
    public let isBase64: Bool
}
