// SPDX-License-Identifier: Apache-2.0
/// Where a record's fields and lists live, whichever backend made them: `fields` has
/// one span per ``FeedField``, `present` `SFM.presenceWords` words of presence bits (bit i: field i), `rows` and
/// `counts` one entry per ``FeedList`` (rows of ``FeedList/columns`` spans each).
@usableFromInline package struct RawRecord {
    @usableFromInline package let fields: UnsafePointer<CoreSpan>
    @usableFromInline package let present: UnsafePointer<UInt64>
    @usableFromInline package let rows: UnsafePointer<UnsafePointer<CoreSpan>?>
    @usableFromInline package let counts: UnsafePointer<Int>

    @inlinable package init(fields: UnsafePointer<CoreSpan>, present: UnsafePointer<UInt64>,
                 rows: UnsafePointer<UnsafePointer<CoreSpan>?>, counts: UnsafePointer<Int>) {
        self.fields = fields
        self.present = present
        self.rows = rows
        self.counts = counts
    }
}
