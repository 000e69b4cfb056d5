// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
//
// FeedStream's benchmark suite (ordo-one/benchmark), a package of its own so that users
// of the library never build it or its dependencies. Run from this folder:
//
//     swift package --allow-writing-to-directory .benchmarkBaselines benchmark
//
// Inputs are the standard generated corpus (see ../corpus/README.md and
// Benchmarks/results.sh) and the real-feed corpus in ../../shared/corpus/real when
// present; a benchmark whose input is missing is skipped, with a note on standard
// error naming it and the missing path.
import PackageDescription

let package = Package(
    name: "FeedStreamBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // The name matters: a plain path dependency would be named after the checkout folder.
        .package(name: "FeedStream", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Already in the graph through benchmark; named here so the suite can read the
        // interposer's counters inside a measured region (mallocs per item).
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "FeedStreamBenchmarks",
            dependencies: [
                .product(name: "FeedStream", package: "FeedStream"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Benchmarks/FeedStreamBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ]
)
