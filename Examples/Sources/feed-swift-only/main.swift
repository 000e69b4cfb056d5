// SPDX-License-Identifier: Apache-2.0
// feed-swift-only FILE
//
// A program that depends on the FeedStreamSwift product alone (see Package.swift): the
// pure-Swift backend and everything around it, with no expat, libxml2 or C core to
// build or link (zlib only, for gzip input). FeedBackend and the C parsers are not in
// this module, so the backend is chosen as a type: the generic entry points. Then the
// same file streamed as JSON Lines, through the writer, to standard output.
import FeedStreamSwift
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    print("usage: feed-swift-only FILE")
    exit(2)
}
let input = FeedInput.file(path: arguments[1])

// 1. One call to plain values: lenient, a failed document keeps its error.
let documents: [FeedDocument]
do {
    documents = try FeedStreamSwift.documents(from: input, parser: SwiftFeedParser.self)
} catch {
    print("error: \(error.code): \(error)")
    exit(1)
}
for (n, document) in documents.enumerated() {
    let title = document.feed.title?.value ?? "(untitled)"
    print("document \(n + 1): \(title) (\(document.feed.format.rawValue)), \(document.items.count) items")
    if let error = document.error { print("  failed: \(error)") }
}

// 2. The delegate style with the library's own handler: the JSON Lines writer.
let output = MemoryOutput()
let writer = JSONLinesWriter(output: output)
let summary: ParseSummary
do {
    summary = try SwiftFeedParser().parse(input, handler: writer)
    try writer.flush()
} catch {
    print("handler error: \(error)")
    exit(2)
}
print(output.string, terminator: "")
print("\(SwiftFeedParser.backendName): \(summary.documents) documents, \(summary.items) items")
exit(summary.succeeded ? 0 : 1)
