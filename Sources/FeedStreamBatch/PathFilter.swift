// SPDX-License-Identifier: Apache-2.0
import FeedStream
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
