// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
internal import CFeedStreamInput

/// The pure-Swift backend: its own XML tokenizer and feed state machine, written in
/// Swift over byte buffers, behind the ``FeedParser`` protocol. It shares with the C
/// backends the byte stages every backend runs (the input stage: gzip, documents, the
/// search for the next document after an error; the charset stage) and no XML code, and
/// gives the same output on every input (see docs/SCHEMA.md, "Backends"; `feedstream
/// diff --backends expat,swift` checks it).
///
/// Reuse one parser for many inputs: it keeps its buffers. A parser is used by one
/// thread at a time and is deliberately not `Sendable`: make one per task or thread.
public final class SwiftFeedParser: FeedParser {
    /// `"swift"`.
    public static let backendName = "swift"

    private let machine: SwiftFeedMachine
    private let tokenizer: SwiftXMLTokenizer
    private let reader: SwiftDocumentReader
    /// The input stage (`cfs_input`), reading each document with `reader`.
    private let input: OpaquePointer
    private let driver: InputDriver
    /// JSON Feed input goes to the shared JSON Feed reader.
    private let front: FeedFront
    /// A parser with these settings (the defaults: 64 MiB of text per item, ``FeedLimits/default``,
    /// the recovery path on); see ``FeedParser/init(maxItemBytes:limits:strict:)``.
    public init(maxItemBytes: Int = 0, limits: FeedLimits = .default, strict: Bool = false) {
        machine = SwiftFeedMachine(maxItemBytes: maxItemBytes, limits: limits)
        tokenizer = SwiftXMLTokenizer(machine: machine, limits: limits)
        reader = SwiftDocumentReader(machine: machine, tokenizer: tokenizer)
        var c = limits.cLimits
        guard let input = cfs_input_create(SwiftDocumentReader.ops, reader.context, &c) else {
            fatalError("FeedStream: out of memory creating a parser")
        }
        self.input = input
        driver = InputDriver(maxItemBytes: maxItemBytes, limits: limits, strict: strict)
        driver.attach(input)
        reader.driver = driver
        front = FeedFront(maxItemBytes: maxItemBytes, limits: limits)
    }

    deinit { cfs_input_destroy(input) }

    /// Parses `input` with the charset its transport named; see
    /// ``FeedParser/parse(_:contentType:handler:)``.
    @discardableResult
    public func parse(_ input: FeedInput, contentType: String?, handler: some FeedHandler) throws -> ParseSummary {
        let charset = ContentType.charset(contentType)
        tokenizer.transportCharset = charset
        driver.transportCharset = charset
        return try front.parse(input, parser: self, handler: handler) { xml in
            machine.deliver(to: handler, as: self)
            defer { machine.stopDelivering() }
            return try driver.parse(xml, parser: self, handler: handler)
        }
    }
}

@available(*, unavailable, message: "a parser is used by one thread at a time: make one per task")
extension SwiftFeedParser: Sendable {}

extension SwiftFeedParser: InflaterChoosing {
    package var inflater: GzipInflater {
        get { driver.inflater }
        set {
            driver.inflater = newValue
            front.inflater = newValue
        }
    }
}

extension SwiftFeedParser: DocumentStateReporting {
    package var isInDocument: Bool? { driver.isInDocument }
    package var lastDocumentOffset: UInt64? { driver.lastDocumentOffset }
    package var rereadEnd: UInt64 { driver.rereadEnd }
}
