// SPDX-License-Identifier: Apache-2.0
// The public types that are deliberately not Sendable, said so explicitly (an
// unavailable conformance: a diagnostic names the reason instead of leaving the
// question open). `~Sendable` would say it more directly, but in Swift 6.3 it still
// needs `-enable-experimental-feature TildeSendable`, which a package cannot ask of the
// packages that depend on it. Everything else public is Sendable: values, errors, options, the
// async sequences and their iterators. The parsers' own markers sit beside them.
//
// - Views and FeedBytes borrow a parser's memory and are valid during one handler call:
//   sending one elsewhere would outlive what it points at. Materialize a value
//   (FeedItem(view), Feed(view), bytes.string) and send that.
// - Handlers and writers are single-thread objects driven by one parse at a time, and so
//   are outputs with a buffer, the backend comparison (it holds parsers) and the folder
//   walker (an iterator). The protocols FeedParser, FeedHandler and ByteOutput do not
//   require Sendable, so conformers can be single-thread classes.

@available(*, unavailable, message: "a view borrows the parser's memory for one call: send FeedItem(view)")
extension FeedItemView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call: send Feed(view)")
extension FeedInfoView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedRecordView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedTextView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedLinkView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedPersonView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedCategoryView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedEnclosureView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedDateView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedRowView: Sendable {}
@available(*, unavailable, message: "a view borrows the parser's memory for one call")
extension FeedRowsView: Sendable {}
@available(*, unavailable, message: "borrowed bytes are valid for one call: send .string")
extension FeedBytes: Sendable {}

@available(*, unavailable, message: "a handler serves one parse at a time on one thread")
extension FeedCollector: Sendable {}
@available(*, unavailable, message: "a handler serves one parse at a time on one thread")
extension FeedHandlerGroup: Sendable {}
@available(*, unavailable, message: "a writer serves one parse at a time on one thread")
extension JSONLinesWriter: Sendable {}
@available(*, unavailable, message: "a writer serves one parse at a time on one thread")
extension DocumentLinesWriter: Sendable {}
@available(*, unavailable, message: "an output with a buffer serves one writer on one thread")
extension GzipOutput: Sendable {}
@available(*, unavailable, message: "an output with a buffer serves one writer on one thread")
extension MemoryOutput: Sendable {}
