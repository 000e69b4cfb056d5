// SPDX-License-Identifier: Apache-2.0
// feed-titles FILE...
//
// The delegate style: two handlers listen to one parse through a FeedHandlerGroup.
// Each callback names its parser first, so one handler serving several parsers can
// tell them apart; here two parsers (expat and the Swift backend) take turns and the
// handlers check that both saw the same thing. Views borrow the parser's memory:
// `.string` copies only what is kept.
import FeedStream
import Foundation

/// Prints each item's title and counts, per parser.
final class Titles: FeedHandler {
    var itemsByBackend: [String: Int] = [:]
    var quiet = false

    func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) {
        itemsByBackend[type(of: parser).backendName, default: 0] += 1
        if !quiet { print("  \(item.index): \(item.title.value.string ?? "(untitled)")") }
    }

    func parser(_ parser: any FeedParser, didParseFeedInfo feed: FeedInfoView) {
        if !quiet { print("document \(feed.document): \(feed.title.value.string ?? "(untitled)"), \(feed.itemCount) items") }
    }

    func parser(_ parser: any FeedParser, didFail error: FeedError) {
        print("failed (\(type(of: parser).backendName)): \(error)")
    }
}

/// Counts documents that ended well; the other callbacks keep their no-op defaults.
final class Finished: FeedHandler {
    var count = 0
    func parser(_ parser: any FeedParser, didFinishDocument document: Int) { count += 1 }
}

let paths = CommandLine.arguments.dropFirst()
guard !paths.isEmpty else {
    print("usage: feed-titles FILE...")
    exit(2)
}

let titles = Titles()
let finished = Finished()
let group = FeedHandlerGroup(titles, finished)
let parsers: [any FeedParser] = [ExpatFeedParser(), SwiftFeedParser()]   // reused for every file
var failed = false
for path in paths {
    print("\(path):")
    for (n, parser) in parsers.enumerated() {
        titles.quiet = n > 0   // print once; count with both
        do {
            let summary = try parser.parse(.file(path: path), handler: group)
            if !summary.succeeded { failed = true }
        } catch {
            print("handler error: \(error)")
            exit(2)
        }
    }
}
let counts = titles.itemsByBackend
print("items: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); documents finished: \(finished.count)")
if Set(counts.values).count > 1 {
    print("error: the backends disagree")
    exit(1)
}
exit(failed ? 1 : 0)
