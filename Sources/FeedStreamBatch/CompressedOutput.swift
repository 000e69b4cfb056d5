// SPDX-License-Identifier: Apache-2.0
import FeedStream

/// The compressed formats an output file is written in, chosen by its name: `.gz`
/// (``GzipOutput``, blocks deflated in parallel) and `.zst` (``ZstdOutput``, libzstd's
/// threads). Either way the bytes depend only on what was written and the level, never
/// on the number of threads.
package enum CompressedFormat: String, CaseIterable, Sendable {
    case gzip, zstd

    /// The format a file named `path` is written in; nil for plain output.
    package init?(path: String) {
        if path.hasSuffix(".gz") {
            self = .gzip
        } else if path.hasSuffix(".zst") {
            self = .zstd
        } else {
            return nil
        }
    }

    /// The levels the format takes.
    package var levels: ClosedRange<Int> {
        switch self {
        case .gzip: 1...9
        case .zstd: ZstdOutput.levels
        }
    }

    /// The level used when none is given: a fast one, so that compressing takes little
    /// from the conversion on the same cores (`feedstream bench --compressed-output`
    /// measures both); `--compress-level` trades speed for size.
    package var defaultLevel: Int {
        switch self {
        case .gzip: GzipOutput.defaultLevel
        case .zstd: ZstdOutput.defaultLevel
        }
    }

    /// A compressor writing to `base` at `level` (in ``levels``), on `threads` threads.
    package func output(_ base: any ByteOutput, level: Int?, threads: Int) -> any CompressedOutput {
        switch self {
        case .gzip: GzipOutput(base, level: level ?? defaultLevel, threads: threads)
        case .zstd: ZstdOutput(base, level: level ?? defaultLevel, threads: max(1, threads))
        }
    }
}

/// A compressor in front of another output.
package protocol CompressedOutput: ByteOutput {
    /// Ends the compressed stream (without which it is truncated) and flushes the output
    /// under it; once.
    func finish() throws
    /// Compressed bytes handed to the output under it.
    var bytesWritten: UInt64 { get }
}

extension GzipOutput: CompressedOutput {}
extension ZstdOutput: CompressedOutput {}
