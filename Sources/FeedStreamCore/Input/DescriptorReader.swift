// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Reads a descriptor to its end in slices of ``size``, into a buffer of its own kept
/// for the reader's life: how the Swift parsers read a `.fileDescriptor` input, or a
/// `.file` of one slice or more (``SwiftFeedParser``, ``JSONFeedReader``), before the
/// input stage (``InputStage``) sees the bytes. A regular file of under one slice is
/// read whole (``readWhole(_:status:)``) and parsed from memory: by every parser given
/// its path (``FeedFront``), and by `feedstream convert`, which hands a larger one to the
/// parser as a descriptor, read here; pipes, and files read and inflated ahead or in
/// parts, it reads with ``ChunkReader`` (cancellable reads).
package final class DescriptorReader {
    /// The bytes asked for by each read.
    static let size = 256 << 10
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: DescriptorReader.size, alignment: 16)

    package init() {}

    deinit { buffer.deallocate() }

    /// Reads `fd` to its end, handing each slice to `push`, for as long as `goOn()`;
    /// returns the error of a read that failed (`read error: REASON`, an I/O error),
    /// nil otherwise. A read interrupted by a signal is made again.
    package func read(_ fd: Int32, while goOn: () -> Bool, _ push: (UnsafeRawBufferPointer) throws -> Void) rethrows
        -> FeedError?
    {
        while goOn() {
            let n = systemRead(fd, buffer, Self.size)
            if n < 0 {
                if errno == EINTR { continue }
                return FeedError(code: .io, message: "read error: " + String(cString: strerror(errno)))
            }
            if n == 0 { return nil }
            try push(UnsafeRawBufferPointer(start: buffer, count: n))
        }
        return nil
    }

    /// A regular file of fewer bytes than one slice (``size``) by its status `st`, read
    /// whole with `pread` (the descriptor's position is left as it was) for a parse from
    /// memory: a small file's reads and looks at its start were half the system calls of
    /// converting it. One call when the file still has its size (a read that stops short
    /// of `size + 1` bytes at `size` or past it is at the end), more while reads stop
    /// short of it. nil for anything else, on a read error, or when the file has grown
    /// past one slice since: the caller reads it as a stream (which reports the error).
    package static func readWhole(_ fd: Int32, status st: stat) -> [UInt8]? {
        guard st.st_mode & S_IFMT == S_IFREG, st.st_size >= 0, st.st_size < size else { return nil }
        let size = Int(st.st_size)
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
            var n = 0
            while n < buffer.count {
                let r = pread(fd, buffer.baseAddress! + n, buffer.count - n, off_t(n))
                if r < 0 && errno == EINTR { continue }
                if r < 0 { break }
                n += r
                if r == 0 || n >= size && n < buffer.count {
                    complete = true
                    break
                }
            }
            count = n
        }
        return complete ? bytes : nil
    }
}
