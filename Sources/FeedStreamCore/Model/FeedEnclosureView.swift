// SPDX-License-Identifier: Apache-2.0
/// An enclosure: url, MIME type, length in bytes (as written).
public struct FeedEnclosureView {
    /// The file's URL, as written (unresolved).
    public let url: FeedBytes
    /// The file's MIME type.
    public let type: FeedBytes
    /// The file's length in bytes, as written.
    public let length: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    package let baseChain: FeedBytes
}
