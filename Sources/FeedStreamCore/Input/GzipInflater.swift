// SPDX-License-Identifier: Apache-2.0
internal import CFeedStreamInflate

/// The inflater of gzip input: zlib (the default), or Intel's ISA-L where it is there.
///
/// Chosen per reader of gzip: a parser (``InflaterChoosing``), a read-ahead pipeline,
/// a chunk reader, a run of the command line (`--inflate`); nothing in the process is
/// switched. ISA-L inflates faster than zlib
/// (docs/PERFORMANCE.md): on a machine with few cores, where inflating a `.gz` dump takes
/// one core, that is the difference between inflate and the parser being the bound.
/// It is used when the library was built with ISA-L's header (Debian's `libisal-dev`)
/// and `libisal.so.2` loads at run time (``isalAvailable``); it is never a hard
/// dependency.
///
/// On an intact gzip stream both give the same bytes, so the same output: zlib parses
/// every member's header, ISA-L inflates the deflate data, and the trailer's CRC-32 and
/// length are checked as zlib checks them. On a corrupt or truncated member they can stop
/// a few bytes apart — each decoder notices damage at its own point, and ISA-L accepts
/// some malformed block headers zlib rejects; ISA-L's point can also move a little with
/// how the compressed bytes came in — so the records cut short by the damage can differ.
/// That is why ISA-L is a choice and zlib the default: with zlib, the output depends on
/// neither the libraries a machine has nor how the input was read.
///
/// The environment variable `FEEDSTREAM_INFLATE=isa-l`, read once, makes ISA-L the
/// ``default`` (where it is available): the inflater of readers made without a choice.
package enum GzipInflater: String, CaseIterable, Sendable, CustomStringConvertible {
    /// zlib's inflate.
    case zlib
    /// ISA-L's `isal_inflate` (igzip).
    case isal = "isa-l"

    /// True when ISA-L can be chosen here: built with its header, and `libisal.so.2`
    /// loaded.
    package static var isalAvailable: Bool { cfs_inflate_isal_available() != 0 }

    /// The inflater of readers made without a choice: zlib, or ISA-L when
    /// `FEEDSTREAM_INFLATE=isa-l` (read once) and it is available.
    package static var `default`: GzipInflater { cfs_inflate_default_engine() == CFS_INFLATE_ISAL ? .isal : .zlib }

    /// The C stages' name of this inflater (`cfs_inflate_engine`).
    package var engine: Int32 { Int32(bitPattern: (self == .isal ? CFS_INFLATE_ISAL : CFS_INFLATE_ZLIB).rawValue) }

    /// The name: `zlib` or `isa-l`.
    package var description: String { rawValue }
}

/// A reader of gzip whose inflater can be chosen: every parser of this package.
package protocol InflaterChoosing: AnyObject {
    /// What inflates the gzip inputs parsed from now on (zlib where ISA-L is not
    /// available); ``GzipInflater/default`` until set.
    var inflater: GzipInflater { get set }
}
