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
///   symbolic links to files are followed, links to folders are not (no cycles). A
///   folder that cannot be listed is yielded itself, so converting it fails and reports
///   why.
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
    }

    private struct Entry {
        var name: String
        var isFolder: Bool
        var key: [UInt8]           // the name, with "/" appended for folders: sorts as full paths do
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
                        stack.append(sub)
                    } else {
                        return .file(path)
                    }
                } else if filter.accepts(relativePath: relative, name: entry.name) {
                    return filter.include.isEmpty ? .foundInFolder(path) : .file(path)
                }
                continue
            }
            guard let root = roots.next() else { return nil }
            if root == "-" { return .standardInput }
            var st = stat()
            guard stat(root, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return .file(root) }
            guard let level = Self.list(root.hasSuffix("/") ? root : root + "/", relative: "") else {
                return .file(root)
            }
            stack.append(level)
        }
    }

    /// A folder's visible entries, sorted; nil when it cannot be listed.
    private static func list(_ path: String, relative: String) -> Level? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var entries: [Entry] = []
        while let e = readdir(dir) {
            // The name in place, up to its NUL: readdir's record may be shorter than
            // `dirent` (d_name is declared 256 bytes, a record holds the name's length
            // only), so copying the whole d_name reads past it.
            let name = String(cString: (UnsafeRawPointer(e) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                .assumingMemoryBound(to: CChar.self))
            if name.hasPrefix(".") { continue }   // hidden, and "." and ".."
            let isFolder: Bool
            switch Int32(e.pointee.d_type) {
            case Int32(DT_DIR): isFolder = true
            case Int32(DT_REG): isFolder = false
            default:
                // A link, or a file system that does not give types: look.
                var st = stat()
                guard lstat(path + name, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: isFolder = true
                case S_IFREG: isFolder = false
                case S_IFLNK:
                    guard stat(path + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                    isFolder = false
                default: continue
                }
            }
            entries.append(Entry(name: name, isFolder: isFolder, key: Array(name.utf8) + (isFolder ? [0x2F] : [])))
        }
        entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return Level(path: path, relative: relative, entries: entries)
    }
}


@available(*, unavailable, message: "a walker is an iterator over folders being read: use it on one thread")
extension InputWalker: Sendable {}
