import FeedStream
import Foundation
import XCTest

final class TmpReproTests: XCTestCase {
    func testRepro() throws {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/work/main/.build-fuzz/artifacts/differential/crash-1969e8bc2e16c86c01c2bab6655d328d512c2306")))
        for backend in [FeedBackend.expat, .swift] {
            let (text, _) = try jsonLines(.bytes(data), source: "fuzz", parser: backend.makeParser())
            print("REPRO \(backend.rawValue):")
            for l in text.split(separator: "\n") where l.contains(#""kind":"feed""#) { print("REPRO   \(l.prefix(300))") }
        }
    }
}
