// SPDX-License-Identifier: Apache-2.0
/// Limits against hostile or broken input, enforced by every backend at the same place
/// (so they agree on what is rejected and on the items delivered before).
///
/// A document that passes a limit fails with ``FeedError/Code/limitExceeded`` and a
/// message naming the limit (`"limit exceeded: element depth 1025 > 1024"`), at the
/// position where it was passed; the items completed before it are delivered, and the
/// stream goes on with its next document (after a ``maxRatio`` failure, with the next
/// input: inflating the rest of a gzip bomb to look for another document is what that
/// limit prevents). The defaults never trigger on real feeds; the checks cost a compare
/// per start tag, per item and per text append.
///
/// A value of `0` (or less) or `Int.max` means no limit — as `0` does in the C core's
/// `cfs_limits` and in the command line's `--max-*` flags; the C backends are given
/// these values as they are. The defaults are the `default…` constants (the C core's
/// `CFS_DEFAULT_*` are the same numbers, generated from one source).
///
/// ```swift
/// var limits = FeedLimits()
/// limits.maxDepth = 64
/// let parser = SwiftFeedParser(limits: limits)
/// ```
public struct FeedLimits: Sendable, Hashable {
    /// Element nesting depth (the root element is depth 1). Default 1024.
    public var maxDepth: Int
    /// Bytes of one kept field's text (a title, a description, the serialized markup of
    /// an XHTML content, ...), checked as the text is gathered. Text the parser skips is
    /// streamed and never held, whatever its size. Passing it fails the document at the
    /// next start or end tag (the field's text is not kept from there), the same place
    /// however the input was cut; the parser's `maxItemBytes` instead truncates an item's
    /// text as a whole. Default 8 MiB.
    public var maxFieldBytes: Int
    /// Attributes of one element, namespace declarations and attributes defaulted by the
    /// document's internal DTD subset included. Every attribute of an element within the
    /// limit is read, whatever their number. Default 256.
    public var maxAttributes: Int
    /// Items (RSS `item`, Atom `entry`) in one document, checked at the start tag of the
    /// first item past it. Default 1,000,000.
    public var maxItems: Int
    /// Uncompressed bytes of one document: it fails where byte `maxDocumentBytes + 1`
    /// would be parsed. Default 1 GiB.
    public var maxDocumentBytes: Int
    /// Uncompressed ÷ compressed bytes of gzip input, measured from the start of the last
    /// document begun, once that window has inflated more than
    /// 16 MiB, checked at every 256 KiB of the uncompressed stream (the same checkpoints
    /// wherever the input was cut, and whichever thread inflates: a stream inflated
    /// ahead on another thread hands its counts to the parser, which checks). A
    /// gzip bomb fails there, fatal, instead of being inflated. Default 200 (XML feeds
    /// compress 5 to 20 times).
    public var maxRatio: Int
    /// Bytes of one markup construct the tokenizer must hold whole: a start or end tag
    /// with its attributes, a comment, a processing instruction, a CDATA section, the
    /// DOCTYPE declaration with its internal subset. Checked every 256 KiB of a document's
    /// bytes, counted from its first, on the construct held unfinished there (so a
    /// construct passes it by less than 256 KiB before failing, and the outcome never
    /// depends on how the input is cut); character data is streamed and not limited.
    /// Without it a huge comment or attribute costs its size in memory and quadratic time.
    /// Default 8 MiB; libxml2 cannot go past 10,000,000 bytes whatever the setting (it
    /// fails with this same error there).
    public var maxMarkupBytes: Int

    // The defaults (defaultMaxDepth, ...) and ratioActivationBytes: LimitsTable.swift,
    // generated from CSources/CFeedStreamInput/limits.def.

    /// Every limit at its default.
    public init(maxDepth: Int = FeedLimits.defaultMaxDepth,
                maxFieldBytes: Int = FeedLimits.defaultMaxFieldBytes,
                maxAttributes: Int = FeedLimits.defaultMaxAttributes,
                maxItems: Int = FeedLimits.defaultMaxItems,
                maxDocumentBytes: Int = FeedLimits.defaultMaxDocumentBytes,
                maxRatio: Int = FeedLimits.defaultMaxRatio,
                maxMarkupBytes: Int = FeedLimits.defaultMaxMarkupBytes) {
        self.maxDepth = maxDepth
        self.maxFieldBytes = maxFieldBytes
        self.maxAttributes = maxAttributes
        self.maxItems = maxItems
        self.maxDocumentBytes = maxDocumentBytes
        self.maxRatio = maxRatio
        self.maxMarkupBytes = maxMarkupBytes
    }

    /// The defaults.
    public static let `default` = FeedLimits()

    /// No limit at all (the tokenizers' own protections, such as entity amplification,
    /// still apply).
    public static let unlimited = FeedLimits(maxDepth: .max, maxFieldBytes: .max, maxAttributes: .max,
                                             maxItems: .max, maxDocumentBytes: .max, maxRatio: .max,
                                             maxMarkupBytes: .max)

    /// A limit as the parsers compare with it: no limit is `Int.max`. The one place
    /// the Swift side maps "no limit" (the C core's is `cfs_limits_resolve`).
    @inline(__always)
    package static func effective(_ value: Int) -> Int { value <= 0 ? .max : value }
}
