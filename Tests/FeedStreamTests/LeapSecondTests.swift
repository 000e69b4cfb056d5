// SPDX-License-Identifier: Apache-2.0
import FeedStream
import XCTest

/// A leap second is parsed (second 60 is valid), kept in the value, and written as
/// second 59 of the same minute: the one rule of FeedDate.write(to:), because Python,
/// DuckDB, Spark and pandas read no `:60` (ConsumerTests loads them in each).
final class LeapSecondTests: XCTestCase {
    func testLeapSecondIsWrittenAsSecond59() throws {
        let rfc = try XCTUnwrap(FeedDate.parse("Sat, 31 Dec 2016 23:59:60 +0000"))
        XCTAssertEqual(rfc.second, 60)
        XCTAssertEqual(rfc.description, "2016-12-31T23:59:59Z")
        XCTAssertEqual(FeedDate.parse("2016-12-31T23:59:60.25Z")?.description, "2016-12-31T23:59:59.25Z")
        XCTAssertEqual(FeedDate.parse("2017-01-01T05:29:60+05:30")?.description, "2016-12-31T23:59:59Z")
        // Shifted by a zone within the day: still the leap second, in UTC.
        let west = try XCTUnwrap(FeedDate.parse("Sat, 31 Dec 2016 22:59:60 -0100"))
        XCTAssertEqual([west.year, west.month, west.day, west.hour, west.minute, west.second], [2016, 12, 31, 23, 59, 60])
        XCTAssertEqual(FeedDate.parse("Sat, 31 Dec 2016 22:59:60 -0100")?.description, "2016-12-31T23:59:59Z")
        XCTAssertEqual(FeedDate.parse("2016-12-31T23:59:59Z")?.description, "2016-12-31T23:59:59Z")
        XCTAssertNil(FeedDate.parse("2016-12-31T23:59:61Z"))
    }
}
