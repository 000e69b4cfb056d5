// SPDX-License-Identifier: Apache-2.0
import FeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif


/// Expands roots — files, folders, `-` — into the inputs to convert, lazily, so an
/// archive of millions of files is walked, never listed in memory.
///
/// - `-` is standard input.
/// - A folder yields its regular files, recursively, in the order of their full paths
///   compared byte by byte (what `sort` gives with `LC_ALL=C`), filtered by the
///   ``PathFilter``, as ``BatchInput/foundInFolder(_:)`` (converted only when they look
///   like XML or gzip) — as ``BatchInput/file(_:)`` when the filter has include
///   patterns: a file asked for is converted whatever it holds. Hidden files and folders (a name starting with `.`) are skipped;
///   symbolic links are followed, to files and to folders; a link back to a folder being
///   walked (same device and inode as one of the folders above it: a cycle) is not
///   entered again, its files being listed once already. A dangling link is yielded as
///   a file, so converting it fails and reports it ("No such file or directory"); so is
///   a folder that cannot be listed.
/// - Names are bytes: one that is not UTF-8 is kept in the path String losslessly
///   (``PathBytes``), opened with its bytes, and written to JSON as `\udcXX` escapes.
/// - Anything else is yielded as a file, as given (a missing one fails when opened).
///
/// Memory: one sorted listing per folder level being walked.
public struct InputWalker: Sequence, IteratorProtocol {
    private var roots: AnyIterator<String>
    private let filter: PathFilter
    private var stack: [Level] = []

    /// A folder being walked: its entries sorted, and the next one to visit.
    private struct Level {
        var path: String          // as it prefixes its entries' paths, ending with "/"
        var relative: String      // relative to the root folder, "" or ending with "/"
        var entries: [Entry]
        var next = 0
        var id: FolderID          // the folder's device and inode (cycles)
    }

    private struct FolderID: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private struct Entry {
        var name: String
        var isFolder: Bool
        var dangling = false
        var key: [UInt8]           // the name's bytes, with "/" appended for folders: sorts as full paths do
    }

    /// Walks `roots` in order: files as given, folders recursively and sorted, `-` as
    /// standard input; `filter` applies to files found in folders.
    public init<S: Sequence>(_ roots: S, filter: PathFilter = PathFilter()) where S.Element == String {
        self.roots = AnyIterator(roots.makeIterator())
        self.filter = filter
    }

    public mutating func next() -> BatchInput? {
        while true {
            if var level = stack.popLast() {
                guard level.next < level.entries.count else { continue }
                let entry = level.entries[level.next]
                level.next += 1
                let path = level.path + entry.name
                let relative = level.relative + entry.name
                stack.append(level)
                if entry.isFolder {
                    if let sub = Self.list(path + "/", relative: relative + "/") {
                        // A cycle (a link to a folder above): its files are listed already.
                        if !stack.contains(where: { $0.id == sub.id }) { stack.append(sub) }
                    } else {
                        return .file(path)
                    }
                } else if filter.accepts(relativePath: relative, name: entry.name) {
                    // A dangling link: yielded, so that it is reported, not lost.
                    return filter.include.isEmpty && !entry.dangling ? .foundInFolder(path) : .file(path)
                }
                continue
            }
            guard let root = roots.next() else { return nil }
            if root == "-" { return .standardInput }
            var st = stat()
            guard stat(PathBytes.cString(root), &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return .file(root) }
            guard let level = Self.list(root.hasSuffix("/") ? root : root + "/", relative: "") else {
                return .file(root)
            }
            stack.append(level)
        }
    }

    /// A folder's visible entries, sorted; nil when it cannot be listed.
    private static func list(_ path: String, relative: String) -> Level? {
        let cPath = PathBytes.cString(path)
        var folder = stat()
        guard stat(cPath, &folder) == 0, let dir = opendir(cPath) else { return nil }
        defer { closedir(dir) }
        var entries: [Entry] = []
        while let e = readdir(dir) {
            // The name in place, up to its NUL: readdir's record may be shorter than
            // `dirent` (d_name is declared 256 bytes, a record holds the name's length
            // only), so copying the whole d_name reads past it. Kept as bytes.
            let raw = (UnsafeRawPointer(e) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                .assumingMemoryBound(to: UInt8.self)
            let bytes = Array(UnsafeBufferPointer(start: raw, count: strlen(UnsafeRawPointer(raw).assumingMemoryBound(to: CChar.self))))
            if bytes.first == 0x2E { continue }   // hidden, and "." and ".."
            let name = PathBytes.string(bytes)
            var isFolder: Bool
            var dangling = false
            switch Int32(e.pointee.d_type) {
            case Int32(DT_DIR): isFolder = true
            case Int32(DT_REG): isFolder = false
            default:
                // A link, or a file system that does not give types: look.
                var st = stat()
                let entryPath = PathBytes.cString(path + name)
                guard lstat(entryPath, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: isFolder = true
                case S_IFREG: isFolder = false
                case S_IFLNK:
                    if stat(entryPath, &st) != 0 {
                        isFolder = false
                        dangling = true
                    } else if (st.st_mode & S_IFMT) == S_IFDIR {
                        isFolder = true
                    } else if (st.st_mode & S_IFMT) == S_IFREG {
                        isFolder = false
                    } else {
                        continue
                    }
                default: continue
                }
            }
            entries.append(Entry(name: name, isFolder: isFolder, dangling: dangling, key: bytes + (isFolder ? [0x2F] : [])))
        }
        entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return Level(path: path, relative: relative, entries: entries,
                     id: FolderID(device: UInt64(folder.st_dev), inode: UInt64(folder.st_ino)))
    }
}


@available(*, unavailable, message: "a walker is an iterator over folders being read: use it on one thread")
extension InputWalker: Sendable {}
