// SPDX-License-Identifier: Apache-2.0
// feed-stream FILE [LIMIT]
//
// Async: the items of FILE with `for try await`, the parser on a thread of its own and
// at most a few items ahead (back-pressure). Stops after LIMIT items when given:
// leaving the loop cancels the parse. Then the same file as events, which go on past
// failed documents.
import FeedStream
import Foundation

@main
struct FeedStreamExample {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            print("usage: feed-stream FILE [LIMIT]")
            exit(2)
        }
        let url = URL(fileURLWithPath: arguments[1])
        let limit = arguments.count >= 3 ? Int(arguments[2]) ?? .max : .max

        var count = 0
        do {
            for try await item in FeedStream.items(from: url, backend: .expat, bufferSize: 16) {
                count += 1
                print("item \(count): \(item.title?.value ?? "(untitled)")")
                if count == limit { break }   // the parse stops; its thread ends
            }
        } catch {
            // The first failed document ends `items`, after the items before it.
            print("stopped: \(error.code): \(error)")
        }

        var documents = 0, items = 0, failures = 0
        do {
            for try await event in FeedStream.events(from: url, backend: .swift) {
                switch event {
                case .item: items += 1
                case .feed: documents += 1
                case .failure(let error):
                    failures += 1
                    print("failure: \(error)")
                }
            }
        } catch {
            print("out of memory: \(error)")
            exit(1)
        }
        print("events: \(documents) documents, \(items) items, \(failures) failures")
    }
}
