// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
//
// FeedStream: streaming RSS/Atom parsing at archive scale.
//
// Products:
//   - FeedStream       the Swift library, all three backends (no dependency beyond the
//                      system C libraries)
//   - FeedStreamSwift  the same library without the C backends: the pure-Swift backend
//                      and everything around it; links zlib, the inflate step and the
//                      charset stage (no expat, no libxml2, no C core)
//   - CFeedStream      the C core, for C users (header: CSources/CFeedStream/include/feedstream.h)
//   - feedstream       the batch command-line tool
//
// The library targets depend only on the C core and the system libraries, so a package
// that links FeedStream never builds swift-argument-parser (only the CLI uses it) nor the
// benchmark suite (a separate package in Benchmarks/). FeedStream re-exports the library's
// modules (`import FeedStream` sees one API) with the expat and libxml2 backends;
// FeedStreamSwift must never depend on CFeedStream, CExpat or CLibXML2 (checked by
// PackageGraphTests).
import PackageDescription

let package = Package(
    name: "FeedStream",
    products: [
        .library(name: "FeedStream", targets: ["FeedStream"]),
        .library(name: "FeedStreamSwift", targets: ["FeedStreamSwift"]),
        .library(name: "CFeedStream", targets: ["CFeedStream"]),
        .executable(name: "feedstream", targets: ["feedstream"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries, found with pkg-config; `providers` tells SwiftPM what to suggest.
        .systemLibrary(
            name: "CExpat", path: "CSources/CExpat", pkgConfig: "expat",
            providers: [.apt(["libexpat1-dev"]), .brew(["expat"])]),
        .systemLibrary(
            name: "CLibXML2", path: "CSources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]),
        .systemLibrary(
            name: "CZlib", path: "CSources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // zstd, for the command line's `.zst` output (not a dependency of the library).
        .systemLibrary(
            name: "CZstd", path: "CSources/CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),

        // One gzip member's inflate step, by zlib or (chosen, where the build found
        // ISA-L's header and libisal.so.2 loads at run time) by ISA-L: the input stages of
        // both languages and the benchmark's baseline call it.
        .target(
            name: "CFeedStreamInflate",
            dependencies: ["CZlib", "CZstd"],
            path: "CSources/CFeedStreamInflate",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),

        // The charset stage every backend runs: a document's charset (byte order mark,
        // declared name, aliases, iconv byte maps) decoded to UTF-8 as expat decodes it.
        // No expat or libxml2: the pure-Swift backend links it too.
        .target(
            name: "CFeedStreamCharset",
            path: "CSources/CFeedStreamCharset"),

        // The input stage every backend runs: gzip members and the decompression ratio,
        // documents one after another, the search for the next document after an error
        // (resynchronization), the bytes kept for the recovery path. It drives what reads
        // a document through cfs_document_ops (include/feedstream_input.h), so the Swift
        // backend links it without expat or libxml2.
        .target(
            name: "CFeedStreamInput",
            dependencies: ["CFeedStreamInflate"],
            path: "CSources/CFeedStreamInput"),

        // The C core: expat and libxml2 tokenizers, feed state machine, arena, and
        // cfs_parser (the input stage reading with them). Public headers:
        // include/feedstream.h, which includes feedstream_input.h.
        .target(
            name: "CFeedStream",
            dependencies: ["CExpat", "CLibXML2", "CZlib", "CFeedStreamInflate", "CFeedStreamCharset",
                           "CFeedStreamInput"],
            path: "CSources/CFeedStream"),

        // Benchmark baselines in C ("inflate only", "tokenize only": expat with empty
        // callbacks), for `feedstream bench`; not part of the shipped C core.
        .target(
            name: "CFeedStreamBaseline",
            dependencies: ["CExpat", "CZlib", "CFeedStreamInflate"],
            path: "CSources/CFeedStreamBaseline"),

        // The layers, each importing only those above it:
        //
        //   FeedStreamCore    the FeedParser protocol, FeedInput, errors and limits, the
        //                     model and views, normalization, the JSON Lines writer and
        //                     record layout, JSON Feed, the input stage, async streaming
        //   FeedStreamSwift   the pure-Swift XML backend: tokenizer, charset decoding,
        //                     feed machine, rules tables, recovery (re-exports Core)
        //   FeedStreamNative  the expat and libxml2 backends over the C core
        //   FeedStream        the umbrella: all of the above and FeedBackend
        //   FeedStreamBatch   batch conversion: walker, shards, parts, ordered output
        //   FeedStreamTools   `bench` and `diff`
        //   feedstream        the command-line tool
        //
        // zlib (and the inflate step) is Core's only C dependency; the Swift backend adds
        // the charset stage (CFeedStreamCharset), which every backend runs.
        .target(
            name: "FeedStreamCore",
            dependencies: ["CZlib", "CFeedStreamInflate", "CFeedStreamInput"],
            path: "Sources/FeedStreamCore"),
        .target(
            name: "FeedStreamSwift",
            dependencies: ["FeedStreamCore", "CFeedStreamCharset", "CFeedStreamInput"],
            path: "Sources/FeedStreamSwift"),
        .target(
            name: "FeedStreamNative",
            dependencies: ["FeedStreamCore", "FeedStreamSwift", "CFeedStream"],
            path: "Sources/FeedStreamNative"),
        .target(
            name: "FeedStream",
            dependencies: ["FeedStreamCore", "FeedStreamSwift", "FeedStreamNative"],
            path: "Sources/FeedStream"),

        // What the command line is made of beyond the library. Not products: a package
        // that links FeedStream never builds them.
        .target(
            name: "FeedStreamBatch",
            dependencies: ["FeedStream", "CZlib", "CZstd"],
            path: "Sources/FeedStreamBatch"),
        .target(
            name: "FeedStreamTools",
            dependencies: ["FeedStream", "FeedStreamBatch", "CFeedStream", "CFeedStreamBaseline", "CZlib"],
            path: "Sources/FeedStreamTools"),

        // The command-line tool.
        .executableTarget(
            name: "feedstream",
            dependencies: [
                "FeedStream",
                "FeedStreamBatch",
                "FeedStreamTools",
                "CFeedStream",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/feedstream"),

        .testTarget(
            name: "FeedStreamTests",
            dependencies: ["FeedStream", "FeedStreamCore", "FeedStreamSwift", "FeedStreamNative", "FeedStreamBatch", "FeedStreamTools", "CFeedStream", "CFeedStreamBaseline", "CFeedStreamInflate", "CZlib", "FeedStreamTestSupport"],
            path: "Tests/FeedStreamTests"),
        .testTarget(
            name: "feedstreamCLITests",
            dependencies: ["feedstream", "FeedStreamTestSupport"],
            path: "Tests/feedstreamCLITests"),
        // What both test targets share: the closing line that names every skipped test.
        .target(name: "FeedStreamTestSupport", dependencies: ["CZstd"], path: "Tests/Support"),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
