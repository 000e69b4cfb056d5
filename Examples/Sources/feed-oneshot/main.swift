// SPDX-License-Identifier: Apache-2.0
// feed-oneshot FILE [--backend expat|libxml2|swift]
//
// One call from a file to plain values, printed as JSON (the values are Codable); then
// the same file through the completion-handler variant and through a backend chosen as
// a type (static dispatch), checking that all three agree.
import Dispatch
import FeedStream
import Foundation

struct Summary: Codable {
    var title: String?
    var format: String
    var items: [String]
    var error: String?
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: feed-oneshot FILE [--backend expat|libxml2|swift]\n".utf8))
    exit(2)
}
let url = URL(fileURLWithPath: arguments[1])
let backend = arguments.count >= 4 && arguments[2] == "--backend" ? FeedBackend(rawValue: arguments[3]) ?? .expat : .expat

// 1. One call. Typed throws: `error` is a FeedError, with its code and position.
let documents: [FeedDocument]
do {
    documents = try FeedStream.documents(contentsOf: url, backend: backend)
} catch {
    print("error: \(error.code): \(error)")
    exit(1)
}
// Module-qualified names work: the module has no type named FeedStream to shadow it.
let feeds: [FeedStream.Feed] = documents.map(\.feed)
precondition(feeds.count == documents.count)

let summaries = documents.map {
    Summary(title: $0.feed.title?.value, format: $0.feed.format.rawValue,
            items: $0.items.map { $0.title?.value ?? "(untitled)" }, error: $0.error?.description)
}
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
for summary in summaries { print(String(decoding: try encoder.encode(summary), as: UTF8.self)) }

// 2. The completion handler: runs on a thread of its own; wait for it here.
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var viaCompletion: [FeedDocument] = []
FeedStream.documents(from: FeedInput(url)!, backend: backend) { result in
    viaCompletion = (try? result.get()) ?? []
    done.signal()
}
done.wait()

// 3. The backend as a type parameter: the parse is statically dispatched.
func itemCount<P: FeedParser>(_ parser: P.Type, _ url: URL) throws(FeedError) -> Int {
    try FeedStream.documents(from: FeedInput(url)!, parser: P.self).reduce(0) { $0 + $1.items.count }
}
let generic = try itemCount(SwiftFeedParser.self, url)

let total = documents.reduce(0) { $0 + $1.items.count }
guard viaCompletion == documents, generic == total else {
    print("error: the three ways disagree")
    exit(1)
}
print("documents: \(documents.count), items: \(total), backend: \(backend) (completion and generic agree)")
