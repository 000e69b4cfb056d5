/// A run of bytes as records hold it (the C core's `cfs_span` has the same layout).
package struct CoreSpan {
    package var ptr: UnsafePointer<UInt8>?
    package var len: Int

    package init(ptr: UnsafePointer<UInt8>?, len: Int) {
        self.ptr = ptr
        self.len = len
    }
}
