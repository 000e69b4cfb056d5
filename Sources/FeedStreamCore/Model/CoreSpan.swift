// SPDX-License-Identifier: Apache-2.0
/// A run of bytes as records hold it (the C core's `cfs_span` has the same layout).
@usableFromInline package struct CoreSpan {
    @usableFromInline package var ptr: UnsafePointer<UInt8>?
    @usableFromInline package var len: Int

    @inlinable package init(ptr: UnsafePointer<UInt8>?, len: Int) {
        self.ptr = ptr
        self.len = len
    }
}
