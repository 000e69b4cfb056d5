// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
//
// Small programs using FeedStream as another package would: a package of its own that
// depends on the library by path, so building it proves the library links from outside.
// Built and run by .ci/run (Examples/run.sh):
//
//     swift build --package-path Examples
//     Examples/.build/debug/feed-oneshot corpus/feeds/rss2-basic.xml
//
//   feed-oneshot   one call to plain values (FeedStream.documents), JSON out via Codable,
//                  the completion-handler variant, and a backend chosen as a type
//   feed-stream    async: `for try await` over FeedStream.items / FeedStream.events,
//                  stopping early (leaving the loop cancels the parse)
//   feed-titles    delegate style: FeedHandler conformers, two at once in a
//                  FeedHandlerGroup, each callback naming its parser
//   feed-swift-only
//                  depends on the FeedStreamSwift product alone (the pure-Swift backend;
//                  no expat, libxml2 or C core): generic entry points, the JSON Lines
//                  writer. Examples/run.sh checks that its binary links neither library.
//   snippets       the Swift snippets of README.md, docs/LIBRARY.md and GettingStarted.md, verbatim
//                  (compiled, not run; Examples/run.sh checks they are the docs' own)
import PackageDescription

let package = Package(
    name: "FeedStreamExamples",
    dependencies: [
        // The name matters: a plain path dependency would be named after the checkout folder.
        .package(name: "FeedStream", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "feed-oneshot",
            dependencies: [.product(name: "FeedStream", package: "FeedStream")]),
        .executableTarget(
            name: "feed-stream",
            dependencies: [.product(name: "FeedStream", package: "FeedStream")]),
        .executableTarget(
            name: "feed-titles",
            dependencies: [.product(name: "FeedStream", package: "FeedStream")]),
        // The docs' Swift snippets (check-snippets.py lists them), verbatim: built, never run.
        .target(
            name: "snippets",
            dependencies: [.product(name: "FeedStream", package: "FeedStream")]),
        .executableTarget(
            name: "feed-swift-only",
            dependencies: [.product(name: "FeedStreamSwift", package: "FeedStream")]),
    ],
    swiftLanguageModes: [.v6]
)
