// SPDX-License-Identifier: Apache-2.0
/// Why an input or one of its documents could not be parsed, and where.
public struct FeedError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The kind of failure; an open set of named values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as the JSON output and the command line spell it, e.g. `"xml"`.
        public let rawValue: String
        /// A code; the set is open, so values beyond the static members may appear.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The document is not well-formed XML.
        public static let malformedXML = Code(rawValue: "xml")
        /// A JSON Feed document that is not well-formed JSON (RFC 8259).
        public static let malformedJSON = Code(rawValue: "json")
        /// The gzip data is corrupt or truncated.
        public static let gzip = Code(rawValue: "gzip")
        /// The zstd data is corrupt or truncated.
        public static let zstd = Code(rawValue: "zstd")
        /// A well-formed document in which neither the root nor any element inside it is a
        /// feed's root (`rss`, `rdf:RDF`, `feed`, ...: docs/SCHEMA.md, "Formats").
        public static let notAFeed = Code(rawValue: "not_feed")
        /// The input holds no XML document (empty, or whitespace only).
        public static let empty = Code(rawValue: "empty")
        /// The input could not be read.
        public static let io = Code(rawValue: "io")
        /// Memory ran out.
        public static let outOfMemory = Code(rawValue: "nomem")
        /// A handler stopped the parse.
        public static let aborted = Code(rawValue: "aborted")
        /// A document passed one of the ``FeedLimits`` (depth, attributes, field text,
        /// items, document size, decompression ratio); the message says which.
        public static let limitExceeded = Code(rawValue: "limit")

        /// The raw value.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A short English reason, e.g. "mismatched tag".
    public var message: String
    /// 1-based index of the document in the stream; 0 when not tied to one.
    public var document: Int
    /// 1-based line of the failure in that document; 0 when unknown.
    public var line: Int
    /// 1-based column of the failure on ``line``; 0 when unknown.
    public var column: Int
    /// Byte offset in the uncompressed stream.
    public var offset: UInt64
    /// For a document that failed in a stream of several: the bytes from ``offset`` to
    /// the next document's start (or the stream's end) that the search for it passed
    /// over, unread by strict parsing (a ``recovered`` document's were read by the
    /// recovery path). With ``offset`` it is the byte range skipped, so a reader can
    /// account for every byte of a dump. 0 for every other error.
    public var skipped: UInt64 = 0
    /// True when the document failed as XML and was then read by the recovery path
    /// (docs/SCHEMA.md, "Recovered documents"): its items and feed fields are what the
    /// lenient reading found, the rest of the error says where strict XML failed. Never
    /// set for parsers made with `strict: true`.
    public var recovered = false
    /// For a gap in gzip or zstd input (code ``Code/gzip`` or ``Code/zstd``, document 0): the compressed bytes
    /// that were not read, from the first byte of the member that could not be read (or
    /// of the bytes between members that were no member) to the next member read, or to
    /// the end of the input; ``offset`` is where the uncompressed stream resumes after
    /// it, ``skipped`` the bytes from there the search for the next document passed
    /// over. Nil for every other error. `feedstream convert --errors` writes it as
    /// `compressed_offset` and `compressed_length`.
    public var compressedRange: Range<UInt64>?

    /// The bytes of the stream no reader read: ``offset`` ..< ``offset`` + ``skipped``
    /// for a document that failed and was not recovered, nil when there are none (a
    /// recovered document's were read by the recovery path). `feedstream convert
    /// --errors` writes each as a record of its own, code `skipped`.
    public var unreadRange: Range<UInt64>? {
        skipped > 0 && !recovered ? offset..<(offset &+ skipped) : nil
    }

    /// An error; the arguments are stored as given.
    public init(code: Code, message: String, document: Int = 0, line: Int = 0, column: Int = 0,
                offset: UInt64 = 0) {
        self.code = code
        self.message = message
        self.document = document
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// "document 2, line 10, column 5: mismatched tag" ("… (recovered)" for a document
    /// the recovery path read).
    public var description: String {
        var parts: [String] = []
        if document > 0 { parts.append("document \(document)") }
        if line > 0 { parts.append("line \(line)") }
        if column > 0 { parts.append("column \(column)") }
        let text = parts.isEmpty ? message : parts.joined(separator: ", ") + ": " + message
        return recovered ? text + " (recovered)" : text
    }
}
