// SPDX-License-Identifier: Apache-2.0
/// The rows of one list of a record.
@_spi(RawRecords) public struct FeedRowsView: RandomAccessCollection {
    let base: UnsafePointer<CoreSpan>?
    let columns: Int
    public let count: Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(i: Int) -> FeedRowView {
        precondition(i >= 0 && i < count, "index out of range")
        return FeedRowView(base: base! + i * columns, count: columns)
    }
}
