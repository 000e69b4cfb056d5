#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Reads a descriptor to its end in slices of ``size``, into a buffer of its own kept
/// for the reader's life: how the Swift parsers read a `.file` or `.fileDescriptor`
/// input (``SwiftFeedParser``, ``JSONFeedReader``), before the input stage
/// (``InputStage``) sees the bytes. `feedstream convert` hands a regular file to the
/// parser as a descriptor, so this is its read of most files; pipes, and files read and
/// inflated ahead or in parts, it reads with ``ChunkReader`` (cancellable reads).
final class DescriptorReader {
    /// The bytes asked for by each read.
    static let size = 256 << 10
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: DescriptorReader.size, alignment: 16)

    deinit { buffer.deallocate() }

    /// Reads `fd` to its end, handing each slice to `push`, for as long as `goOn()`;
    /// returns the error of a read that failed (`read error: REASON`, an I/O error),
    /// nil otherwise. A read interrupted by a signal is made again.
    func read(_ fd: Int32, while goOn: () -> Bool, _ push: (UnsafeRawBufferPointer) throws -> Void) rethrows
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
}
