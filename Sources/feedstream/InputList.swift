// SPDX-License-Identifier: Apache-2.0
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation

/// The command line's inputs: roots given as arguments and, with `--files-from`, read
/// from a list, expanded by the library's ``InputWalker`` (folders walked lazily).
enum InputList {
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    /// Checks that every root given as an argument exists (`-` aside): a typo is a
    /// usage error before anything starts, not a failed input at the end.
    static func check(_ roots: [String]) throws {
        for root in roots where root != "-" {
            var st = stat()
            if stat(root, &st) != 0 {
                throw Error(description: "feedstream: \(root): no such file or folder")
            }
        }
    }

    /// Refuses an output (`-o`, `--errors`, `--stats`) that would replace an input: the
    /// same file as a root (by device and inode when the output exists, else by resolved
    /// path), or, unless `mayBeInInputFolder` (as for `-o`), a file inside a folder given as a
    /// root, which the walk reads. Standard output, a device and a pipe are written as
    /// they are and never replace anything.
    static func checkOutput(_ output: String, option: String, roots: [String], mayBeInInputFolder: Bool) throws {
        guard output != "-" else { return }
        var out = stat()
        let exists = stat(output, &out) == 0
        if exists && (out.st_mode & S_IFMT) != S_IFREG { return }
        let resolvedOutput = resolved(output)
        for root in roots where root != "-" {
            var st = stat()
            let rootExists = stat(root, &st) == 0
            if rootExists && (st.st_mode & S_IFMT) == S_IFDIR {
                guard !mayBeInInputFolder, let folder = resolved(root), let path = resolvedOutput else { continue }
                if path.hasPrefix(folder == "/" ? "/" : folder + "/") {
                    throw Error(description: "feedstream convert: \(option) \(output) is inside the input folder \(root): "
                                + "refusing to write among the inputs")
                }
            } else if exists && rootExists ? (st.st_dev == out.st_dev && st.st_ino == out.st_ino)
                        : (resolvedOutput != nil && resolved(root) == resolvedOutput) {
                throw Error(description: "feedstream convert: \(option) \(output) is the input \(root): "
                            + "refusing to overwrite an input")
            }
        }
    }

    /// The device and inode of a regular file (`-`: standard output's, when it is one);
    /// nil for anything else or nothing.
    static func regularFile(_ path: String, descriptor: Int32? = nil) -> FileIdentity? {
        var st = stat()
        let found = descriptor.map { fstat($0, &st) == 0 } ?? (stat(path, &st) == 0)
        guard found, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// A file told apart from every other by its device and inode.
    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Refuses two outputs that name one file: standard output twice, one regular file
    /// however named (or standard output sent to it), or one path that does not exist
    /// yet. Devices and pipes (`/dev/null`) may take several.
    static func checkOutputsApart(_ outputs: [(option: String, path: String)]) throws {
        func identity(_ path: String) -> FileIdentity? {
            path == "-" ? regularFile(path, descriptor: 1) : regularFile(path)
        }
        for i in outputs.indices {
            for j in outputs.indices where j > i {
                let (a, b) = (outputs[i], outputs[j])
                var same = a.path == "-" && b.path == "-"
                if !same, let x = identity(a.path), let y = identity(b.path) { same = x == y }
                if !same && a.path != "-" && b.path != "-" {
                    var st = stat()
                    if stat(a.path, &st) != 0, stat(b.path, &st) != 0, let x = resolved(a.path) { same = x == resolved(b.path) }
                }
                if same {
                    throw Error(description: "feedstream convert: \(a.option) and \(b.option) name the same file, "
                                + (a.path == b.path ? a.path : "\(a.path) and \(b.path)") + ": give each its own")
                }
            }
        }
    }

    /// The absolute path with links resolved: the path's own when it exists, else its
    /// folder's and its name; nil when neither exists.
    private static func resolved(_ path: String) -> String? {
        if let p = realpath(path, nil) {
            defer { free(p) }
            return String(cString: p)
        }
        let url = URL(fileURLWithPath: path)
        guard let folder = realpath(url.deletingLastPathComponent().path, nil) else { return nil }
        defer { free(folder) }
        let f = String(cString: folder)
        return (f == "/" ? "" : f) + "/" + url.lastPathComponent
    }

    /// Every file the roots stand for, in order (for the commands that take a list).
    static func expand(_ roots: [String]) throws -> [String] {
        try check(roots)
        return InputWalker(roots).map(\.name)
    }
}

/// Arguments first, then the lines of a `--files-from` list, read as they are needed.
struct Roots: Sequence, IteratorProtocol {
    private var arguments: IndexingIterator<[String]>
    private let list: LineReader?

    init(arguments: [String], list: LineReader?) {
        self.arguments = arguments.makeIterator()
        self.list = list
    }

    mutating func next() -> String? {
        if let a = arguments.next() { return a }
        return list?.next()
    }
}

/// Reads a list of paths, one per line (a trailing `\r` dropped, blank lines skipped),
/// lazily, from a file or standard input. Waiting on a pipe gives up when the run is
/// interrupted.
final class LineReader {
    private let fd: Int32
    private let closeWhenDone: Bool
    private let isPipe: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    /// Why reading the list stopped early, if it did.
    private(set) var failure: String?
    let path: String

    init(path: String) throws {
        self.path = path
        if path == "-" {
            fd = 0
            closeWhenDone = false
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 { throw InputList.Error(description: "feedstream: \(path): \(String(cString: strerror(errno)))") }
            closeWhenDone = true
        }
        var st = stat()
        isPipe = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG
    }

    deinit { if closeWhenDone { close(fd) } }

    func next() -> String? {
        while true {
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                var line = buffer[start..<nl]
                start = nl + 1
                if line.last == 0x0D { line = line.dropLast() }
                if line.isEmpty { continue }
                return PathBytes.string(line)   // a name's bytes, kept (not UTF-8 ones too)
            }
            if ended {
                guard start < buffer.count else { return nil }
                var line = buffer[start...]
                start = buffer.count
                if line.last == 0x0D { line = line.dropLast() }
                return line.isEmpty ? nil : PathBytes.string(line)
            }
            fill()
        }
    }

    private func fill() {
        buffer.removeFirst(start)
        start = 0
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if isPipe {
                if Interrupt.shared.isPending { ended = true; return }
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&pfd, 1, 100) == 0 { continue }
            }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n < 0 { failure = String(cString: strerror(errno)) }
            if n <= 0 {
                ended = true
                return
            }
            buffer.append(contentsOf: chunk[0..<n])
            return
        }
    }
}
