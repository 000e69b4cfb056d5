// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// The tests that skipped in this run and why: every skip goes through
/// `XCTestCase.skip(_:)`, and once the whole run is over one line counts and names them
/// (CI reads it: a skip for want of the real corpus or of the consumers fails CI).
public final class SkipReport: NSObject, XCTestObservation, @unchecked Sendable {
    public static let shared: SkipReport = {
        let r = SkipReport()
        XCTestObservationCenter.shared.addTestObserver(r)
        return r
    }()
    private let lock = NSLock()
    private var skipped: [(test: String, reason: String)] = []

    func record(_ test: String, _ reason: String) {
        lock.lock(); defer { lock.unlock() }
        skipped.append((test, reason))
    }

    /// The closing line: `N tests skipped: A (why), B (why)`, or nothing when none was.
    public var line: String? {
        lock.lock(); defer { lock.unlock() }
        guard !skipped.isEmpty else { return nil }
        let names = skipped.map { "\($0.test) (\($0.reason))" }
        return "FeedStream: \(skipped.count) test\(skipped.count == 1 ? "" : "s") skipped: " + names.joined(separator: "; ")
    }

    public func testBundleDidFinish(_ testBundle: Bundle) {
        if let line { print(line) }
    }
}

extension XCTestCase {
    /// This test's skip for `reason` (in plain words, without a trailing period), to
    /// throw: `throw skip("ISA-L is not installed")`. The run's closing line names it.
    public func skip(_ reason: String) -> XCTSkip {
        SkipReport.shared.record(name, reason)
        return XCTSkip(reason)
    }
}
