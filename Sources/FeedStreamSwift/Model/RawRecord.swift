/// Where a record's fields and lists live, whichever backend made them: `fields` has
/// one span per ``FeedField``, `present` `SFM.presenceWords` words of presence bits (bit i: field i), `rows` and
/// `counts` one entry per ``FeedList`` (rows of ``FeedList/columns`` spans each).
package struct RawRecord {
    package let fields: UnsafePointer<CoreSpan>
    package let present: UnsafePointer<UInt64>
    package let rows: UnsafePointer<UnsafePointer<CoreSpan>?>
    package let counts: UnsafePointer<Int>

    package init(fields: UnsafePointer<CoreSpan>, present: UnsafePointer<UInt64>,
                 rows: UnsafePointer<UnsafePointer<CoreSpan>?>, counts: UnsafePointer<Int>) {
        self.fields = fields
        self.present = present
        self.rows = rows
        self.counts = counts
    }
}
