import FeedStream
import FeedStreamTools
import Foundation

/// An output file: standard output, or a temporary file beside the target that is
/// renamed into place only when the run completed, so an interrupted run never leaves
/// a partial file under the final name. The temporary is hidden
/// (`.NAME.partial-PID`), so converting the folder the output goes to never picks it
/// up. A name ending in `.gz` is written gzip-compressed. A device or a pipe
/// (`/dev/null`, a FIFO) is written directly.
final class OutputFile {
    /// Where to write.
    let output: any ByteOutput
    private let file: FileDescriptorOutput
    private let gzip: GzipOutput?
    private let path: String?
    let temporary: String?

    init(path: String?, gzipLevel: Int = 6) throws {
        guard let path, path != "-" else {
            self.path = nil
            temporary = nil
            file = .standardOutput
            gzip = nil
            output = file
            return
        }
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            // A device or a pipe (/dev/null, a FIFO): written as it is, never replaced.
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            if fd < 0 { throw OutputError(errno: errno) }
            self.path = nil
            temporary = nil
            file = FileDescriptorOutput(fd: fd)
            gzip = path.hasSuffix(".gz") ? GzipOutput(file, level: gzipLevel) : nil
            output = gzip ?? file
            return
        }
        let url = URL(fileURLWithPath: path)
        let tmp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw OutputError(errno: errno) }
        self.path = path
        temporary = tmp
        Interrupt.shared.removeOnExit(tmp)
        file = FileDescriptorOutput(fd: fd)
        gzip = path.hasSuffix(".gz") ? GzipOutput(file, level: gzipLevel) : nil
        output = gzip ?? file
    }

    /// Bytes written to the file so far, after compression; nil when not compressing.
    var compressedBytes: UInt64? { gzip?.bytesWritten }

    /// Ends the stream and moves the file into place.
    func commit() throws {
        try gzip?.finish()
        guard let path, let temporary else { return }
        if fsync(file.fd) != 0 && errno != EINVAL { throw OutputError(errno: errno) }
        if close(file.fd) != 0 { throw OutputError(errno: errno) }
        if rename(temporary, path) != 0 { throw OutputError(errno: errno) }
        Interrupt.shared.keep(temporary)
    }

    /// Removes the temporary file.
    func abandon() {
        guard let temporary else { return }
        close(file.fd)
        unlink(temporary)
        Interrupt.shared.keep(temporary)
    }
}
