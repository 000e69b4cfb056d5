// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

// The package's layers, each importing only those below it (Package.swift says what
// each holds):
//
//   FeedStreamCore < FeedStreamSwift < FeedStreamNative < FeedStream < FeedStreamBatch
//     < FeedStreamTools < feedstream
//
// The FeedStreamSwift product is the library without the C backends: a package that
// depends on it alone must build and link without expat, libxml2 or the C core. Checked
// from the package's own files: the manifest, read with `swift package dump-package`,
// gives FeedStreamSwift no path to CFeedStream, CExpat or CLibXML2 (its only system
// library is zlib) and no library product a path to the command line's targets; and no
// source file imports a module of its own layer's or a higher one, nor a C backend below
// FeedStreamNative, not even in an `#if` branch this platform does not compile.
// Examples/run.sh builds and runs an executable that depends on the product alone.
final class PackageGraphTests: XCTestCase {
    /// The package's Swift modules, lowest first.
    private static let layers = ["FeedStreamCore", "FeedStreamSwift", "FeedStreamNative", "FeedStream",
                                 "FeedStreamBatch", "FeedStreamTools", "feedstream"]
    /// C modules a layer may import only from this one up.
    private static let cModulesFrom = ["CFeedStream": "FeedStreamNative", "CExpat": "FeedStreamNative",
                                       "CLibXML2": "FeedStreamNative", "CFeedStreamBaseline": "FeedStreamTools"]

    private struct Manifest: Decodable {
        struct Target: Decodable {
            let name: String
            let type: String
            let pkgConfig: String?
            let dependencies: [Dependency]
        }
        /// `{"byName": [name, condition]}`, `{"target": [...]}` or `{"product": [name, package, ...]}`.
        struct Dependency: Decodable {
            let byName: [String?]?
            let target: [String?]?
            let product: [String?]?
        }
        struct Product: Decodable {
            let name: String
            let targets: [String]
        }
        let targets: [Target]
        let products: [Product]
    }

    private func manifest() throws -> Manifest {
        // A scratch path of its own: the suite's build folder is locked while it runs.
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedstream-package-graph-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["swift", "package", "--package-path", Paths.repo.path, "--scratch-path", scratch.path,
                       "dump-package"]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let json = out.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, message)
        return try JSONDecoder().decode(Manifest.self, from: json)
    }

    /// Every target `name` depends on, directly or not, itself included; products of
    /// other packages as "package/product".
    private func closure(of name: String, in manifest: Manifest) -> Set<String> {
        let targets = Dictionary(uniqueKeysWithValues: manifest.targets.map { ($0.name, $0) })
        var seen: Set<String> = [], pending = [name]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted, let target = targets[next] else { continue }
            for d in target.dependencies {
                if let n = (d.byName ?? d.target)?.first ?? nil { pending.append(n) }
                if let p = d.product, p.count > 1, let product = p[0], let package = p[1] {
                    seen.insert("\(package)/\(product)")
                }
            }
        }
        return seen
    }

    func testSwiftLibraryDependsOnZlibAndZstdOnly() throws {
        let manifest = try manifest()
        // CFeedStreamInflate: the gzip and zstd step both languages share (zlib and
        // libzstd; ISA-L only loaded at run time, when chosen); CFeedStreamInput and
        // CFeedStreamCharset: the input and charset stages every backend runs (iconv,
        // from the C library).
        XCTAssertEqual(closure(of: "FeedStreamSwift", in: manifest),
                       ["FeedStreamSwift", "FeedStreamCore", "CZlib", "CZstd", "CFeedStreamInflate", "CFeedStreamCharset",
                        "CFeedStreamInput"])
        let systemLibraries = Set(manifest.targets.filter { $0.type == "system" }.map(\.name))
        let linked = closure(of: "FeedStreamSwift", in: manifest).intersection(systemLibraries)
        XCTAssertEqual(Set(manifest.targets.filter { linked.contains($0.name) }.compactMap(\.pkgConfig)), ["zlib", "libzstd"])
        XCTAssertEqual(manifest.products.first { $0.name == "FeedStreamSwift" }?.targets, ["FeedStreamSwift"])

        // The same walk finds the C backends under the full library (so it can fail).
        let full = closure(of: "FeedStream", in: manifest)
        XCTAssertTrue(full.isSuperset(of: ["FeedStreamSwift", "CFeedStream", "CExpat", "CLibXML2", "CZlib"]), "\(full)")
        XCTAssertEqual(manifest.products.first { $0.name == "FeedStream" }?.targets, ["FeedStream"])
    }

    func testLibraryProductsLeaveOutTheCommandLine() throws {
        let manifest = try manifest()
        let commandLine: Set<String> = ["FeedStreamBatch", "FeedStreamTools", "feedstream", "CFeedStreamBaseline",
                                        "swift-argument-parser/ArgumentParser"]
        for product in manifest.products where product.name != "feedstream" {
            let reached = product.targets.reduce(into: Set<String>()) { $0.formUnion(closure(of: $1, in: manifest)) }
            XCTAssertTrue(reached.isDisjoint(with: commandLine), "\(product.name): \(reached.intersection(commandLine))")
        }
    }

    /// The modules a Swift source imports, with the line of each: `import M`,
    /// `@_exported import M`, `internal import M`, `import struct M.T`...
    private static func imports(_ text: String) -> [(module: String, line: Substring)] {
        let modifiers: Set<String> = ["public", "package", "internal", "private", "fileprivate"]
        let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                  words[..<i].allSatisfy({ $0.hasPrefix("@") || modifiers.contains($0) }) else { return nil }
            let path = kinds.contains(words[i + 1]) && i + 2 < words.count ? words[i + 2] : words[i + 1]
            return (String(path.split(separator: ".").first ?? ""), line)
        }
    }

    /// The Swift sources under `Sources/<folder>`.
    private static func swiftSources(_ folder: String) throws -> [URL] {
        let root = Paths.repo.appendingPathComponent("Sources/\(folder)")
        let walker = try XCTUnwrap(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    func testTheSwiftFuzzBuildReachesEveryCModuleTheLibraryImports() throws {
        // Fuzz/run.sh compiles the library's layers itself (one module, FeedStream), so
        // the C modules they import must be given to swiftc there as well: its own
        // module map, or a CSources/<module> module map on the search path.
        let script = try String(contentsOf: Paths.repo.appendingPathComponent("Fuzz/run.sh"), encoding: .utf8)
        var modules = Set<String>()
        for folder in ["FeedStreamCore", "FeedStreamSwift", "FeedStreamNative", "FeedStream", "FeedStreamBatch",
                       "FeedStreamTools/Diff"] {
            for url in try Self.swiftSources(folder) {
                for i in Self.imports(try String(contentsOf: url, encoding: .utf8)) where i.module.hasPrefix("C") {
                    modules.insert(i.module)
                }
            }
        }
        XCTAssertTrue(modules.contains("CZstd"), "the walk saw the sources: \(modules)")
        for m in modules.sorted() {
            XCTAssertTrue(script.contains("module \(m) {") || script.contains("-I \"$root/CSources/\(m)\""),
                          "Fuzz/run.sh does not give swiftc the C module \(m)")
        }
    }

    func testEveryModuleImportsOnlyLayersBelowIt() throws {
        for (rank, layer) in Self.layers.enumerated() {
            var files = 0
            for url in try Self.swiftSources(layer) {
                files += 1
                let text = try String(contentsOf: url, encoding: .utf8)
                for (module, line) in Self.imports(text) {
                    if let other = Self.layers.firstIndex(of: module) {
                        XCTAssertLessThan(other, rank, "\(layer)/\(url.lastPathComponent): \(line)")
                    }
                    if let from = Self.cModulesFrom[module], let lowest = Self.layers.firstIndex(of: from) {
                        XCTAssertGreaterThanOrEqual(rank, lowest, "\(layer)/\(url.lastPathComponent): \(line)")
                    }
                }
            }
            XCTAssertGreaterThan(files, 0, layer)   // the walk saw the target's sources
        }
    }
}
