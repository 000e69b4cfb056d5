// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
import FeedStreamSwift
internal import CFeedStream

/// Owns a C parser handle, and the driver its input stage and callbacks run under.
/// Shared by the C backends.
final class NativeParser {
    private let handle: OpaquePointer
    private let driver: InputDriver
    /// JSON Feed input goes to the shared JSON Feed reader.
    private let front: FeedFront

    init(backend: cfs_backend, maxItemBytes: Int, limits: FeedLimits, strict: Bool) {
        front = FeedFront(maxItemBytes: maxItemBytes, limits: limits)
        var options = cfs_options()
        cfs_options_init(&options)
        options.backend = backend
        options.max_item_bytes = maxItemBytes
        options.limits = limits.cLimits
        var callbacks = cfs_callbacks(
            on_document_start: { ctx, document in
                InputDriver.from(ctx).call { try $1.parser($0, didStartDocument: document) }
            },
            on_item: { ctx, item, feed in
                InputDriver.from(ctx).call { try $1.parser($0, didParseItem: FeedItemView(item!, feed: feed!)) }
            },
            on_document_end: { ctx, feed, error in
                InputDriver.from(ctx).call { parser, handler in
                    try handler.parser(parser, didParseFeedInfo: FeedInfoView(feed!))
                    if let error {
                        try handler.parser(parser, didFail: FeedError(error.pointee))
                    } else {
                        try handler.parser(parser, didFinishDocument: feed!.pointee.document)
                    }
                }
            })
        driver = InputDriver(maxItemBytes: maxItemBytes, limits: limits, strict: strict)
        guard let h = cfs_parser_create(&options, &callbacks, driver.context) else {
            fatalError("FeedStream: out of memory creating a parser")
        }
        handle = h
        driver.attach(cfs_parser_input(h))
    }

    deinit { cfs_parser_destroy(handle) }

    /// Parses `input` for `parser` (the public object that owns this one, named to the
    /// handler in every callback).
    func parse(_ input: FeedInput, contentType: String?, parser: any FeedParser, handler: some FeedHandler) throws
        -> ParseSummary
    {
        let charset = ContentType.charset(contentType)
        driver.transportCharset = charset
        return try front.parse(input, parser: parser, handler: handler) { xml in
            cfs_parser_reset(handle)
            // A name too long for the C core (63 bytes) is no charset we read: ignored, as an unknown one.
            _ = cfs_parser_set_charset(handle, charset)
            return try driver.parse(xml, parser: parser, handler: handler)
        }
    }

    /// What inflates gzip input (the input stage's and the JSON Feed reader's).
    var inflater: GzipInflater {
        get { driver.inflater }
        set {
            driver.inflater = newValue
            front.inflater = newValue
        }
    }

    var isInDocument: Bool? { driver.isInDocument }
    var lastDocumentOffset: UInt64? { driver.lastDocumentOffset }
    var rereadEnd: UInt64 { driver.rereadEnd }
    func settle() { driver.settle() }
}

/// A C backend: a public parser over a ``NativeParser``, whose document state it reports.
protocol NativeBacked: DocumentStateReporting {
    var native: NativeParser { get }
}

extension NativeBacked {
    package var isInDocument: Bool? { native.isInDocument }
    package var lastDocumentOffset: UInt64? { native.lastDocumentOffset }
    package var rereadEnd: UInt64 { native.rereadEnd }
    package func settle() { native.settle() }
}
