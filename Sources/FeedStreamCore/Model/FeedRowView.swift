// SPDX-License-Identifier: Apache-2.0
/// One row of a list: its columns by index (see ``FeedList``).
@_spi(RawRecords) public struct FeedRowView {
    let base: UnsafePointer<CoreSpan>
    /// The number of columns.
    public let count: Int

    /// Column `i`, trimmed.
    public subscript(i: Int) -> FeedBytes {
        @inline(__always) get {
            precondition(i >= 0 && i < count, "column out of range")
            return bytes(base[i])
        }
    }
}
