// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation

/// An output file: standard output, or a temporary file beside the target that is
/// renamed into place only when the run completed, so an interrupted run never leaves
/// a partial file under the final name. The temporary is hidden
/// (`.NAME.partial-PID`), so converting the folder the output goes to never picks it
/// up. A name ending in `.gz` is written gzip-compressed, `.zst` zstd-compressed
/// (``CompressedFormat``). A device or a pipe
/// (`/dev/null`, a FIFO) is written directly. A temporary left by a process that no
/// longer runs (killed by SIGKILL, which cannot be caught) is removed by the next run
/// writing to the same output.
///
/// Plain output to a regular file (the temporary, or standard output redirected to a
/// file) is written in blocks of up to 64 KiB, so that a small input's lines do not
/// cost a `write` of their own (a large share of the time over many tiny feeds). A pipe, a terminal or a
/// device gets each block as the converter hands it on.
///
/// A write or commit that fails throws a ``Failure`` naming the file.
final class OutputFile {
    /// Where to write; its errors are ``Failure``s.
    var output: any ByteOutput { named }
    private let named: NamedOutput
    private let file: FileDescriptorOutput
    private let compressor: (any CompressedOutput)?
    private let path: String?
    let temporary: String?
    /// The file as given, or "standard output".
    let name: String

    /// A failed write, naming the file: `/dev/full: write failed: No space left on device`.
    struct Failure: Error, CustomStringConvertible {
        var name: String
        var error: any Error
        var description: String { "\(name): \(error)" }
        /// The failed call's `errno`, when the error is an ``OutputError``.
        var errno: Int32? { (error as? OutputError)?.errno }
    }

    /// A compressed output's level (nil: the format's default) and threads; the bytes
    /// written do not depend on the threads.
    struct Compression {
        var level: Int?
        var threads = 0
    }

    init(path: String?, compression: Compression = Compression()) throws {
        name = path == nil || path == "-" ? "standard output" : path!
        guard let path, path != "-" else {
            self.path = nil
            temporary = nil
            file = .standardOutput
            compressor = nil
            var st = stat()
            named = NamedOutput(file, name: name, coalescing: fstat(1, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG)
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
            compressor = CompressedFormat(path: path)?.output(file, level: compression.level, threads: compression.threads)
            named = NamedOutput(compressor ?? file, name: name, coalescing: false)
            return
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        Self.removeStaleTemporaries(in: folder, prefix: ".\(url.lastPathComponent).partial-")
        let tmp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        // Created and registered for removal in one step: a signal between the two
        // would leave the file behind.
        let fd = Interrupt.shared.createTemporary(tmp) { open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        if fd < 0 { throw OutputError(errno: errno) }
        self.path = path
        temporary = tmp
        file = FileDescriptorOutput(fd: fd)
        compressor = CompressedFormat(path: path)?.output(file, level: compression.level, threads: compression.threads)
        // (A compressor keeps its own buffer.)
        named = NamedOutput(compressor ?? file, name: name, coalescing: compressor == nil)
    }

    /// Removes `PREFIX<pid>` files of `folder` whose process no longer runs: what a
    /// SIGKILL left. (A pid reused by another process keeps its file until that ends.)
    private static func removeStaleTemporaries(in folder: String, prefix: String) {
        guard let dir = opendir(folder.isEmpty ? "." : folder) else { return }
        defer { closedir(dir) }
        while let e = readdir(dir) {
            let entry = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard entry.hasPrefix(prefix), let pid = pid_t(entry.dropFirst(prefix.count)), pid > 0,
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            unlink(folder + "/" + entry)
        }
    }

    /// Bytes written to the file so far, after compression; nil when not compressing.
    var compressedBytes: UInt64? { compressor?.bytesWritten }

    /// Ends the stream and moves the file into place, whether a signal came or not (the
    /// `--stats` of an interrupted run say so).
    func commit() throws {
        try finish()
        _ = try Self.moveIntoPlace([self], evenIfInterrupted: true)
    }

    /// Ends the stream: the last bytes written, the file synced and closed (not yet in
    /// place: ``moveIntoPlace(_:)``).
    func finish() throws {
        try named.drain()
        do {
            try compressor?.finish()
            guard temporary != nil else { return }
            if fsync(file.fd) != 0 && errno != EINVAL { throw OutputError(errno: errno) }
            if close(file.fd) != 0 { throw OutputError(errno: errno) }
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(name: name, error: error)
        }
    }

    /// Renames every finished file into place at once, unless a signal came before
    /// (``Interrupt/renameUnlessInterrupted(_:evenIfInterrupted:)``): then none is, every
    /// temporary is removed, and the result is false. A signal after it finds the files
    /// in place.
    static func moveIntoPlace(_ files: [OutputFile], evenIfInterrupted: Bool = false) throws -> Bool {
        let pairs = files.compactMap { f in f.temporary.map { ($0, f.path!) } }
        do {
            return try Interrupt.shared.renameUnlessInterrupted(pairs, evenIfInterrupted: evenIfInterrupted)
        } catch let error as Interrupt.RenameFailure {
            let file = files.first { $0.temporary == error.temporary }
            throw Failure(name: file?.name ?? error.temporary, error: OutputError(errno: error.errno))
        }
    }

    /// Removes the temporary file. Standard output gets the whole lines still held (an
    /// interrupted run's output ends at a line boundary, after every line it counted);
    /// a write that fails then is not reported again.
    func abandon() {
        guard let temporary else {
            try? named.drain()
            return
        }
        close(file.fd)   // (EBADF after finish: already closed)
        unlink(temporary)
        Interrupt.shared.keep(temporary)
    }
}

/// An output whose errors name it (``OutputFile/Failure``), coalescing writes of under
/// ``blockBytes`` into blocks of that size when asked to.
private final class NamedOutput: ByteOutput, @unchecked Sendable {
    // @unchecked: used by one thread at a time, as any ByteOutput (the converter writes
    // under its output lock; the errors and stats files are written in turn).
    private let base: any ByteOutput
    private let name: String
    /// The bytes held, when coalescing.
    private let held: UnsafeMutableRawBufferPointer?
    private var heldCount = 0

    static let blockBytes = 64 << 10

    init(_ base: any ByteOutput, name: String, coalescing: Bool) {
        self.base = base
        self.name = name
        held = coalescing ? .allocate(byteCount: Self.blockBytes, alignment: 16) : nil
    }

    deinit { held?.deallocate() }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.isEmpty { return }
        guard let held, bytes.count < held.count else {
            try drain()
            return try pass(bytes)
        }
        if heldCount + bytes.count > held.count { try drain() }
        held.baseAddress!.advanced(by: heldCount).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        heldCount += bytes.count
    }

    func flush() throws {
        try drain()
        do { try base.flush() } catch { throw OutputFile.Failure(name: name, error: error) }
    }

    /// Writes out the bytes held.
    func drain() throws {
        guard let held, heldCount > 0 else { return }
        let n = heldCount
        heldCount = 0
        try pass(UnsafeRawBufferPointer(start: held.baseAddress, count: n))
    }

    private func pass(_ bytes: UnsafeRawBufferPointer) throws {
        do { try base.write(bytes) } catch { throw OutputFile.Failure(name: name, error: error) }
    }
}
