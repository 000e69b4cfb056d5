// SPDX-License-Identifier: Apache-2.0
// The Swift snippets of README.md, docs/LIBRARY.md (README's one-call snippet is also
// there) and the DocC catalog's GettingStarted.md, each verbatim, wrapped in a function
// that declares the names it uses (`data`, `url`, `store`, ...): building this target
// compiles them as written, on Linux too. Examples/check-snippets.py checks that every
// ```swift block of those files (but the Package.swift lines, which Examples/run.sh
// checks in a package of their own, and the `import` lines, which head this file)
// appears here line for line.
//
// Built, never run: the file names in the snippets (feed.xml, dump.xml.gz) need not exist.
import FeedStream
import Foundation

// MARK: README.md and docs/LIBRARY.md

func readmeOneCall(data: Data, url: URL) throws {
    let feed = try FeedStream.document(from: data)                  // strict: one feed, any error throws
    print(feed.feed.title?.value ?? "", feed.items.map { $0.title?.value ?? "" })

    for doc in try FeedStream.documents(contentsOf: url) {          // lenient: a dump, each document
        print(doc.feed.title?.value ?? "", doc.items.count, doc.error.map { "\($0)" } ?? "ok")   // with its error
    }
}

func readmeAsync(url: URL, store: (FeedItem) async throws -> Void) async throws {
    for try await item in FeedStream.items(from: url, backend: .expat) {
        try await store(item)
    }
    for try await event in FeedStream.events(from: .file(path: "dump.xml.gz")) {   // goes on past failed documents
        if case .failure(let error) = event { print("skipped:", error) }
    }
}

func readmeDelegate() throws -> ParseSummary {
    final class Titles: FeedHandler {
        var count = 0
        func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) {
            count += 1
            if item.title.value.equals("Breaking") { print(item.link.string ?? "") }   // compares bytes
        }
        func parser(_ parser: any FeedParser, didFail error: FeedError) { print("failed:", error) }
    }

    let titles = Titles()
    let writer = JSONLinesWriter(output: FileDescriptorOutput.standardOutput)
    let summary = try ExpatFeedParser().parse(.file(path: "dump.xml.gz"), handler: FeedHandlerGroup(titles, writer))
    try writer.flush()
    return summary
}

func readmeCompletion() {
    FeedStream.documents(from: .file(path: "feed.xml"), backend: .libxml2) { result in print((try? result.get())?.count ?? 0) }
}

// MARK: GettingStarted.md

func gettingStartedOneCall() throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: "feed.xml"))   // or a download's bytes
    let document = try FeedStream.document(from: data)
    print(document.feed.title?.value ?? "untitled")
    for item in document.items {
        print(item.published?.date?.description ?? "-", item.title?.value ?? "", item.link ?? "")
    }
}

func gettingStartedDump() throws {
    for doc in try FeedStream.documents(from: .file(path: "dump.xml.gz")) {
        print(doc.feed.title?.value ?? "", doc.items.count, doc.error.map { "\($0)" } ?? "ok")
    }
}

func gettingStartedAsync(archiveURL: URL, store: (FeedItem) async throws -> Void) async throws {
    for try await item in FeedStream.items(from: archiveURL, backend: .expat) {
        try await store(item)   // the parser waits while this is slow
    }
}

func gettingStartedDelegate() throws {
    final class Counter: FeedHandler {
        var items = 0, breaking = 0
        func parser(_ parser: any FeedParser, didParseItem item: FeedItemView) {
            items += 1
            if item.title.value.equals("Breaking") { breaking += 1 }   // no String built
        }
        func parser(_ parser: any FeedParser, didFail error: FeedError) {
            print(type(of: parser).backendName, "failed:", error)
        }
    }

    let counter = Counter()
    let writer = JSONLinesWriter(output: FileDescriptorOutput.standardOutput)
    let parser = ExpatFeedParser()          // reuse it: it keeps its buffers
    try parser.parse(.file(path: "dump.xml.gz"), handler: FeedHandlerGroup(counter, writer))
    try writer.flush()
}

func gettingStartedBackend() throws {
    func titles<P: FeedParser>(in input: FeedInput, using: P.Type) throws(FeedError) -> [String] {
        try FeedStream.documents(from: input, parser: P.self).flatMap(\.items).compactMap(\.title?.value)
    }
    let names = try titles(in: .file(path: "feed.xml"), using: SwiftFeedParser.self)
    print(names)
}

func gettingStartedTasks(paths: [String]) async throws {
    try await withThrowingTaskGroup(of: Int.self) { group in
        for path in paths {
            group.addTask {
                let parser = SwiftFeedParser()   // one per task
                return try parser.documents(from: .file(path: path)).count
            }
        }
        for try await count in group { print(count) }
    }
}
