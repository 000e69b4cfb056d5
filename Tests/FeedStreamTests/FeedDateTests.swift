// SPDX-License-Identifier: Apache-2.0
import FeedStream
import XCTest

final class FeedDateTests: XCTestCase {
    private func norm(_ s: String) -> String? { FeedDate.parse(s)?.description }

    func testRFC822Variants() {
        XCTAssertEqual(norm("Tue, 04 Mar 2025 17:30:00 +0000"), "2025-03-04T17:30:00Z")
        XCTAssertEqual(norm("Tue, 4 Mar 2025 17:30:00 GMT"), "2025-03-04T17:30:00Z")
        XCTAssertEqual(norm("04 Mar 2025 17:30 GMT"), "2025-03-04T17:30:00Z")          // no weekday, no seconds
        XCTAssertEqual(norm("Tue, 04 Mar 25 17:30:00 +0000"), "2025-03-04T17:30:00Z")  // two-digit year
        XCTAssertEqual(norm("Sat, 01 Jan 99 00:00:00 GMT"), "1999-01-01T00:00:00Z")
        XCTAssertEqual(norm("Fri, 28 Feb 2025 12:00:00 -0500"), "2025-02-28T17:00:00Z")
        XCTAssertEqual(norm("Fri, 28 Feb 2025 22:00:00 EST"), "2025-03-01T03:00:00Z")   // crosses a month
        XCTAssertEqual(norm("Mon, 10 Feb 2025 08:00:00 PDT"), "2025-02-10T15:00:00Z")
        XCTAssertEqual(norm("Mon, 10 Feb 2025 08:00:00 +05:30"), "2025-02-10T02:30:00Z")
        XCTAssertEqual(norm("Mon, 10 Feb 2025 08:00:00 Z"), "2025-02-10T08:00:00Z")
        XCTAssertEqual(norm("Mon, 10 Feb 2025 08:00:00 A"), "2025-02-10T08:00:00Z")     // military: UTC
        XCTAssertEqual(norm("Mon, 10 Feb 2025 08:00:00"), "2025-02-10T08:00:00Z")       // no zone: UTC
        XCTAssertEqual(norm("  Thursday,  6  March  2025  09:05:07  +0100 "), "2025-03-06T08:05:07Z")
        XCTAssertEqual(norm("Wed, 01 Jan 2025 00:00:00 +0100"), "2024-12-31T23:00:00Z")  // crosses a year
        XCTAssertEqual(norm("1 september 2024 10:00 UT"), "2024-09-01T10:00:00Z")
    }

    func testOtherRealWorldForms() {
        XCTAssertEqual(norm("Fri May 30 2014 00:00:00 GMT"), "2014-05-30T00:00:00Z")                  // JavaScript
        XCTAssertEqual(norm("Fri May 30 2014 10:00:00 GMT+0200 (CEST)"), "2014-05-30T08:00:00Z")
        XCTAssertEqual(norm("Sun Nov  6 08:49:37 1994"), "1994-11-06T08:49:37Z")                        // asctime
        XCTAssertEqual(norm("2020/1/10 14:16:00"), "2020-01-10T14:16:00Z")
        XCTAssertEqual(norm("Mon, 21 Jan 2008 8:56 am PST"), "2008-01-21T16:56:00Z")
        XCTAssertEqual(norm("Mon, 21 Jan 2008 8:56 pm PST"), "2008-01-22T04:56:00Z")
        XCTAssertEqual(norm("Mon, 21 Jan 2008 12:05 am GMT"), "2008-01-21T00:05:00Z")
        XCTAssertEqual(norm("03 Apr 02 1500 GMT"), "2002-04-03T15:00:00Z")
        XCTAssertNil(norm("Fri, 11 Mar 2016 01:15:00 +3000"))
        XCTAssertNil(norm("Do, 22 Dez 2016 17:36:00 +0000"))   // not English: unparsed, never guessed
    }

    func testISO8601Variants() {
        XCTAssertEqual(norm("2025-03-06T09:00:00Z"), "2025-03-06T09:00:00Z")
        XCTAssertEqual(norm("2025-02-27T16:00:00-08:00"), "2025-02-28T00:00:00Z")
        XCTAssertEqual(norm("2025-02-27T16:00:00.250+01:00"), "2025-02-27T15:00:00.250Z")
        XCTAssertEqual(norm("2025-02-27 16:00:00Z"), "2025-02-27T16:00:00Z")
        XCTAssertEqual(norm("2025-02-27T16:00Z"), "2025-02-27T16:00:00Z")
        XCTAssertEqual(norm("2025-02-27T16:00:00+0100"), "2025-02-27T15:00:00Z")
        XCTAssertEqual(norm("2025-02-27T16:00:00"), "2025-02-27T16:00:00Z")
        XCTAssertEqual(norm("2025-02-27"), "2025-02-27T00:00:00Z")
        XCTAssertEqual(norm("2025-02"), "2025-02-01T00:00:00Z")
        XCTAssertEqual(norm("2025"), "2025-01-01T00:00:00Z")
        XCTAssertEqual(norm("2024-02-29T00:00:00Z"), "2024-02-29T00:00:00Z")
    }

    func testRejectsWhatIsNotADate() {
        for bad in ["", "   ", "yesterday", "2025-02-30", "2025-13-01", "Tue, 32 Mar 2025 10:00:00 GMT",
                    "Tue, 04 Foo 2025 17:30:00 +0000", "2025-02-27T25:00:00Z", "04/03/2025",
                    "Tue, 04 Mar 2025 17:30:00 +9999", "2025-02-27T16:00:00Q1"] {
            XCTAssertNil(FeedDate.parse(bad), bad)
        }
    }

    /// Every value of every field is written with its digits (the writer takes two at a
    /// time from a table): each year from 1 to 9999, each month, day, hour, minute and
    /// second, read and written back unchanged.
    func testEveryFieldValueIsWrittenWithItsOwnDigits() {
        func pad(_ v: Int, _ n: Int) -> String { String(repeating: "0", count: max(0, n - String(v).count)) + String(v) }
        for year in 1...9999 {
            let s = "\(pad(year, 4))-07-15T12:34:56Z"
            XCTAssertEqual(norm(s), s)
        }
        for month in 1...12 {
            for day in [1, 9, 10, 19, 28] {
                let s = "2024-\(pad(month, 2))-\(pad(day, 2))T00:00:00Z"
                XCTAssertEqual(norm(s), s)
            }
        }
        for hour in 0...23 {
            for v in 0...59 {
                let s = "2024-02-29T\(pad(hour, 2)):\(pad(v, 2)):\(pad(59 - v, 2))Z"
                XCTAssertEqual(norm(s), s)
            }
        }
        XCTAssertEqual(norm("2024-02-29T23:59:60.25Z"), "2024-02-29T23:59:59.25Z")   // a leap second, its fraction kept
    }

    /// The common RFC 822 form (`Tue, 04 Mar 2025 17:30:00 +0000`, read by a shortcut)
    /// knows each day and month name, and no other three letters.
    func testTheCommonRFC822FormKnowsEveryDayAndMonthName() {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        for (i, m) in months.enumerated() {
            for day in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] {
                let expected = "2025-\(i < 9 ? "0" : "")\(i + 1)-04T17:30:00Z"
                XCTAssertEqual(norm("\(day), 04 \(m) 2025 17:30:00 +0000"), expected, "\(day) \(m)")
                XCTAssertEqual(norm("\(day), 04 \(m) 2025 17:30:00 GMT"), expected, "\(day) \(m)")
            }
        }
        XCTAssertNil(norm("Tux, 04 Mar 2025 17:30:00 +0000"))
        XCTAssertNil(norm("Tue, 04 Mxr 2025 17:30:00 +0000"))
        XCTAssertNil(norm("Tue, 04 Max 2025 17:30:00 GMT"))
    }
}
