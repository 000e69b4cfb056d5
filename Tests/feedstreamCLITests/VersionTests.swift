// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// One version everywhere: the C header's macros (the one place it is written), the
/// `feedstream --version`, and a section of the CHANGELOG.
final class VersionTests: CLITestCase {
    private func macro(_ name: String, in header: String) throws -> String {
        let line = try XCTUnwrap(header.split(separator: "\n").first { $0.hasPrefix("#define \(name) ") }, name)
        return line.dropFirst("#define \(name) ".count).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
    }

    func testTheHeaderTheCommandAndTheChangelogAgree() throws {
        let header = try String(contentsOf: Self.repo.appendingPathComponent("CSources/CFeedStream/include/feedstream.h"),
                                encoding: .utf8)
        let version = try macro("CFS_VERSION_STRING", in: header)
        let parts = try ["MAJOR", "MINOR", "PATCH"].map { try macro("CFS_VERSION_\($0)", in: header) }
        XCTAssertEqual(parts.joined(separator: "."), version)
        XCTAssertNotNil(version.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression), version)
        let r = try run(["--version"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.out, version + "\n")
        let changelog = try String(contentsOf: Self.repo.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        XCTAssertTrue(changelog.contains("\n## \(version)"), "CHANGELOG has a section for \(version)")
    }
}
