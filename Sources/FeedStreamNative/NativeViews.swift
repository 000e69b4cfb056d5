// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
import FeedStreamSwift
internal import CFeedStream

// The C core's records as the backend-neutral views see them: pointers into the
// parser's own memory, no copy. CoreSpan mirrors cfs_span (checked by a test).

extension RawRecord {
    init(_ r: UnsafePointer<cfs_record>) {
        let p = UnsafeRawPointer(r)
        self.init(
            fields: (p + MemoryLayout<cfs_record>.offset(of: \cfs_record.fields)!).assumingMemoryBound(to: CoreSpan.self),
            present: (p + MemoryLayout<cfs_record>.offset(of: \cfs_record.present)!).assumingMemoryBound(to: UInt64.self),
            rows: (p + MemoryLayout<cfs_record>.offset(of: \cfs_record.rows)!)
                .assumingMemoryBound(to: UnsafePointer<CoreSpan>?.self),
            counts: (p + MemoryLayout<cfs_record>.offset(of: \cfs_record.counts)!).assumingMemoryBound(to: Int.self))
    }
}

extension FeedInfoView {
    init(_ f: UnsafePointer<cfs_feed>) {
        let record = (UnsafeRawPointer(f) + MemoryLayout<cfs_feed>.offset(of: \cfs_feed.record)!)
            .assumingMemoryBound(to: cfs_record.self)
        self.init(document: f.pointee.document, format: FeedFormat(f.pointee.format), itemCount: f.pointee.items_count,
                  record: RawRecord(record))
    }
}

extension FeedItemView {
    init(_ i: UnsafePointer<cfs_item>, feed: UnsafePointer<cfs_feed>) {
        let record = (UnsafeRawPointer(i) + MemoryLayout<cfs_item>.offset(of: \cfs_item.record)!)
            .assumingMemoryBound(to: cfs_record.self)
        self.init(index: i.pointee.index, isTruncated: i.pointee.truncated != 0, record: RawRecord(record),
                  feed: FeedInfoView(feed))
    }
}

extension FeedFormat {
    init(_ f: cfs_format) {
        self.init(core: Int(f.rawValue))
    }
}
