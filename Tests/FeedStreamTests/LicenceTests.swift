// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

// FeedStream is Apache-2.0 (LICENSE); what it derives from others is listed in NOTICE.
// Every source file says its licence in an SPDX line near its top, so a file copied out
// of the tree still says what it may be used under; the files NOTICE lists as derived
// from expat's sources say MIT beside Apache-2.0.
final class LicenceTests: XCTestCase {
    /// Files derived from expat (NOTICE, "Expat"): Apache-2.0 AND MIT.
    static let expatDerived: Set<String> = [
        "CSources/CFeedStreamCharset/transcode.c",
        "Sources/FeedStreamSwift/Tokenizer/XMLNameCharacters.swift",
        "Sources/FeedStreamSwift/Tokenizer/XMLPrologTokens.swift",
        "Sources/FeedStreamSwift/Tokenizer/XMLTokenizer+Declaration.swift",
        "Sources/FeedStreamSwift/Tokenizer/XMLTokenizer+Tags.swift",
    ]

    /// The source files of the tree (code and scripts), relative to the repository.
    static func sourceFiles() -> [String] {
        let root = Paths.repo.standardizedFileURL.path
        let fm = FileManager.default
        var out: [String] = []
        let codeExtensions: Set<String> = ["swift", "c", "h", "def", "py", "sh"]
        let named: Set<String> = ["Makefile", ".ci/run", ".ci/install-deps"]
        guard let walker = fm.enumerator(atPath: root) else { return [] }
        while let path = walker.nextObject() as? String {
            let components = path.split(separator: "/").map(String.init)
            let first = components.first ?? path
            // Build folders (the examples' and benchmarks' too), the virtual environment,
            // git, and data (feeds, fuzz seeds).
            let last = components.last ?? path
            if last.hasPrefix(".build") || last == ".venv" || last == ".git" || last == ".swiftpm"
                || path.hasPrefix("Fuzz/corpus") || (first == "corpus" && path != "corpus" && !path.hasSuffix(".py")) {
                if (try? fm.attributesOfItem(atPath: root + "/" + path)[.type] as? FileAttributeType) == .typeDirectory {
                    walker.skipDescendants()
                }
                continue
            }
            let ext = (path as NSString).pathExtension
            if codeExtensions.contains(ext) || named.contains(path) { out.append(path) }
        }
        return out.sorted()
    }

    func testEverySourceFileHasAnSPDXLine() throws {
        let files = Self.sourceFiles()
        // The tree's own count, far below what it holds: the walk found the sources.
        XCTAssertGreaterThan(files.count, 200)
        XCTAssertTrue(files.contains("Package.swift"))
        XCTAssertTrue(files.contains("CSources/CFeedStreamInput/input.c"))
        XCTAssertTrue(files.contains("corpus/generate.py"))
        for path in files {
            let text = try String(contentsOfFile: Paths.repo.appendingPathComponent(path).path, encoding: .utf8)
            let head = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).prefix(3)
            let expected = Self.expatDerived.contains(path) ? "Apache-2.0 AND MIT" : "Apache-2.0"
            let line = head.first { $0.contains("SPDX-License-Identifier:") }
            XCTAssertNotNil(line, "\(path): no SPDX-License-Identifier line in its first three lines")
            if let line {
                let id = line.components(separatedBy: "SPDX-License-Identifier:")[1]
                    .replacingOccurrences(of: "*/", with: "").trimmingCharacters(in: .whitespaces)
                XCTAssertEqual(id, expected, path)
            }
        }
    }

    func testTheLicenceAndNoticeAreThere() throws {
        let licence = try String(contentsOf: Paths.repo.appendingPathComponent("LICENSE"), encoding: .utf8)
        XCTAssertTrue(licence.contains("Apache License"))
        XCTAssertTrue(licence.contains("Version 2.0, January 2004"))
        let notice = try String(contentsOf: Paths.repo.appendingPathComponent("NOTICE"), encoding: .utf8)
        for path in Self.expatDerived {
            // NOTICE names each derived file or its folder.
            let folder = (path as NSString).deletingLastPathComponent + "/"
            XCTAssertTrue(notice.contains(path) || notice.contains(folder) || notice.contains((path as NSString).lastPathComponent),
                          "NOTICE does not name \(path)")
        }
    }
}
