import Foundation
import XCTest

// The FeedStreamSwift product is the library without the C backends: a package that
// depends on it alone must build and link without expat, libxml2 or the C core. Two
// checks, both from the package's own files: the manifest, read with `swift package dump-package`, gives
// FeedStreamSwift no path to CFeedStream, CExpat or CLibXML2 (its only system library
// is zlib); and no source file of the target imports one of them, nor FeedStream, not
// even in an `#if` branch this platform does not compile.
// Examples/run.sh builds and runs an executable that depends on the product alone.
final class PackageGraphTests: XCTestCase {
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

    func testSwiftLibraryDependsOnZlibOnly() throws {
        let manifest = try manifest()
        // CFeedStreamInflate: the inflate step both languages share (zlib; ISA-L only
        // loaded at run time, when chosen).
        XCTAssertEqual(closure(of: "FeedStreamSwift", in: manifest), ["FeedStreamSwift", "CZlib", "CFeedStreamInflate"])
        let systemLibraries = Set(manifest.targets.filter { $0.type == "system" }.map(\.name))
        let linked = closure(of: "FeedStreamSwift", in: manifest).intersection(systemLibraries)
        XCTAssertEqual(Set(manifest.targets.filter { linked.contains($0.name) }.compactMap(\.pkgConfig)), ["zlib"])
        XCTAssertEqual(manifest.products.first { $0.name == "FeedStreamSwift" }?.targets, ["FeedStreamSwift"])

        // The same walk finds the C backends under the full library (so it can fail).
        let full = closure(of: "FeedStream", in: manifest)
        XCTAssertTrue(full.isSuperset(of: ["FeedStreamSwift", "CFeedStream", "CExpat", "CLibXML2", "CZlib"]), "\(full)")
        XCTAssertEqual(manifest.products.first { $0.name == "FeedStream" }?.targets, ["FeedStream"])
    }

    func testSwiftLibrarySourcesImportNoCBackend() throws {
        let root = Paths.repo.appendingPathComponent("Sources/FeedStreamSwift")
        let forbidden: Set<String> = ["CFeedStream", "CFeedStreamBaseline", "CExpat", "CLibXML2", "FeedStream",
                                      "FeedStreamTools"]
        let modifiers: Set<String> = ["public", "package", "internal", "private", "fileprivate"]
        let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
        var files = 0
        let walker = try XCTUnwrap(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        for case let url as URL in walker where url.pathExtension == "swift" {
            files += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            for line in text.split(separator: "\n") {
                // `import M`, `@_exported import M`, `internal import M`, `import struct M.T`...
                let words = line.split(separator: " ").map(String.init)
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                      words[..<i].allSatisfy({ $0.hasPrefix("@") || modifiers.contains($0) }) else { continue }
                let path = kinds.contains(words[i + 1]) && i + 2 < words.count ? words[i + 2] : words[i + 1]
                let module = String(path.split(separator: ".").first ?? "")
                XCTAssertFalse(forbidden.contains(module), "\(url.lastPathComponent): \(line)")
            }
        }
        XCTAssertGreaterThan(files, 30)   // the walk saw the target's sources
    }
}
