#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Which files of a folder to convert: `fnmatch(3)` globs tried against each file's
/// path relative to the folder given (`2024/05/feed.xml.gz`) and against its name
/// (`feed.xml.gz`). With no flags, so `*` also matches `/`.
///
/// A file is kept when there is no include pattern or one matches, and no exclude
/// pattern matches.
public struct PathFilter: Sendable, Equatable {
    /// Globs a file must match (any of them); empty: every file.
    public var include: [String]
    /// Globs a file must not match (none of them).
    public var exclude: [String]

    /// A filter; with no patterns, every file is kept.
    public init(include: [String] = [], exclude: [String] = []) {
        self.include = include
        self.exclude = exclude
    }

    /// True when the file at `relativePath` (relative to the folder given), named
    /// `name`, is kept.
    public func accepts(relativePath: String, name: String) -> Bool {
        func matches(_ pattern: String) -> Bool {
            fnmatch(pattern, relativePath, 0) == 0 || fnmatch(pattern, name, 0) == 0
        }
        if !include.isEmpty && !include.contains(where: matches) { return false }
        return !exclude.contains(where: matches)
    }
}

/// Expands roots — files, folders, `-` — into the inputs to convert, lazily, so an
/// archive of millions of files is walked, never listed in memory.
///
/// - `-` is standard input.
/// - A folder yields its regular files, recursively, in the order of their full paths
///   compared byte by byte (what `sort` gives with `LC_ALL=C`), filtered by the
///   ``PathFilter``. Hidden files and folders (a name starting with `.`) are skipped;
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
                    return .file(path)
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
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
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

/// One of N parts of an input list, chosen by a stable hash of each input's name
/// (64-bit FNV-1a of its UTF-8 bytes, modulo N): N machines or processes given the
/// same inputs and shards 1…N convert every input exactly once, with no coordination.
///
/// The name is the path as listed (`archive/2024/feed.xml`, not an absolute path
/// unless given so), so every shard must be given the inputs spelled the same way.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    /// The number of shards, N.
    public let count: Int

    /// Shard `index` of `count`; nil unless 1 ≤ index ≤ count.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: k, count: n)
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// True when `input` belongs to this shard.
    public func contains(_ input: BatchInput) -> Bool {
        Int(Self.hash(input.name) % UInt64(count)) == index - 1
    }

    /// 64-bit FNV-1a of the UTF-8 bytes.
    public static func hash(_ name: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in name.utf8 {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        return h
    }
}
