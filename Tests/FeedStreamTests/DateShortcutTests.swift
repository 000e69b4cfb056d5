// SPDX-License-Identifier: Apache-2.0
@testable import FeedStreamCore
@testable import FeedStreamSwift
import XCTest

/// RSS's and W3C-DTF's most common date forms are read by shortcuts
/// (FeedDate.parseCommonRFC822, parseCommonISO): every date a shortcut reads must be the
/// general parser's, and what it does not read must still be read.
final class DateShortcutTests: XCTestCase {
    private func parsed(_ s: String) -> (FeedDate?, FeedDate?) {
        var t = s
        return t.withUTF8 { u in
            let b = UnsafeRawBufferPointer(u)
            return (FeedDate.parse(b), FeedDate.parseAnyForm(b))
        }
    }

    /// The parser with its shortcuts and without give the same date for each string.
    private func assertAgree(_ strings: [String], file: StaticString = #filePath, line: UInt = #line) {
        for s in strings {
            let (fast, general) = parsed(s)
            XCTAssertEqual(fast, general, s, file: file, line: line)
        }
    }

    /// ``assertAgree(_:file:line:)`` over every string made of one choice from each of
    /// `parts`, `separators[k]` between parts k and k + 1; returns how many of them
    /// `shortcutForm` says have the shortcut's form.
    private func assertShortcutAgrees(joining parts: [[String]], with separators: [String],
                                      file: StaticString = #filePath, line: UInt = #line,
                                      shortcutForm: (String) -> Bool) -> Int {
        var strings = parts[0]
        for (k, part) in parts.enumerated().dropFirst() {
            strings = strings.flatMap { head in part.map { head + separators[k - 1] + $0 } }
        }
        assertAgree(strings, file: file, line: line)
        return strings.filter(shortcutForm).count
    }

    func testTheCommonFormReadsAsWritten() {
        XCTAssertEqual(FeedDate.parse("Wed, 13 Nov 2024 08:15:00 +0100")?.description, "2024-11-13T07:15:00Z")
        XCTAssertEqual(FeedDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")?.description, "1994-11-06T08:49:37Z")
        XCTAssertEqual(FeedDate.parse("Thu, 31 Dec 2099 23:30:00 -0130")?.description, "2100-01-01T01:00:00Z")
        XCTAssertEqual(FeedDate.parse("Sat, 31 Dec 2016 23:59:60 +0000")?.description, "2016-12-31T23:59:59Z")
        XCTAssertNil(FeedDate.parse("Mon, 30 Feb 2025 10:00:00 +0000"))
        XCTAssertNil(FeedDate.parse("Mon, 10 Feb 2025 10:00:00 +1900"))
    }

    func testTheShortcutGivesTheGeneralParsersDate() {
        let weekdays = ["Mon", "Sun", "mon", "SUN", "Xyz", "Monday"]
        let days = ["00", "01", "09", "28", "29", "30", "31", "32", "1", "a1"]
        let months = ["Jan", "Feb", "Apr", "Dec", "jan", "DEC", "Foo", "June"]
        let years = ["0000", "0001", "1999", "2024", "9999", "24"]
        let times = ["00:00:00", "23:59:59", "23:59:60", "24:00:00", "12:60:00", "12:00:61", "1:00:00", "12:00"]
        let zones = ["+0000", "-0000", "+0130", "-1800", "+1800", "+1900", "+0060", "+05:30", "GMT", "UTC", "EST",
                     "gmt", "Z", "+00000", ""]
        let shortcut = assertShortcutAgrees(joining: [weekdays, days, months, years, times, zones],
                                            with: [", ", " ", " ", " ", " "]) { [29, 31].contains($0.utf8.count) }
        // Many of them of the shortcut's lengths (29, 31 bytes), so it is what is compared.
        XCTAssertGreaterThan(shortcut, 10_000)
        // Around the form: spaces, no comma, other separators.
        assertAgree([" Wed, 13 Nov 2024 08:15:00 +0100", "Wed, 13 Nov 2024 08:15:00 +0100 ", "Wed 13 Nov 2024 08:15:00 +0100",
                     "Wed,  3 Nov 2024 08:15:00 +0100", "Wed, 13-Nov-2024 08:15:00 +0100", "Wed, 13 Nov 2024 08.15.00 +0100",
                     "Wed, 13 Nov 2024 08:15:00 GMT+1", "Wed, 13 Nov 2024T08:15:00 +0100"])
    }

    func testTheCommonISOFormReadsAsWritten() {
        XCTAssertEqual(FeedDate.parse("2024-07-20T02:04:38+01:00")?.description, "2024-07-20T01:04:38Z")
        XCTAssertEqual(FeedDate.parse("2024-07-20T02:04:38Z")?.description, "2024-07-20T02:04:38Z")
        XCTAssertEqual(FeedDate.parse("2099-12-31T23:30:00-01:30")?.description, "2100-01-01T01:00:00Z")
        XCTAssertEqual(FeedDate.parse("2016-12-31T23:59:60Z")?.description, "2016-12-31T23:59:59Z")
        XCTAssertEqual(FeedDate.parse("2000-03-01T00:30:00+01:00")?.description, "2000-02-29T23:30:00Z")
        XCTAssertNil(FeedDate.parse("2025-02-29T10:00:00Z"))
        XCTAssertNil(FeedDate.parse("2025-02-10T10:00:00+19:00"))
    }

    func testTheISOShortcutGivesTheGeneralParsersDate() {
        let years = ["0000", "0001", "1999", "2000", "2024", "9999", "20a4"]
        let months = ["00", "01", "02", "09", "12", "13", "1a"]
        let days = ["00", "01", "28", "29", "30", "31", "32", "3x"]
        let separators = ["T", "t", " ", "X"]
        let times = ["00:00:00", "23:59:59", "23:59:60", "24:00:00", "12:60:00", "12:00:61", "12:00:0a", "12-00-00"]
        let zones = ["Z", "z", "+00:00", "-00:00", "+01:30", "-18:00", "+18:00", "+19:00", "+00:60", "+0130", "+01",
                     "-1a:00", "*01:00", "+01-00", "GMT", "", " Z", ".5Z"]
        let shortcut = assertShortcutAgrees(joining: [years, months, days, separators, times, zones],
                                            with: ["-", "-", "", "", ""]) { s in
            s.dropFirst(10).first == "T" && [20, 25].contains(s.utf8.count)
        }
        // Many of them of the shortcut's lengths (20, 25 bytes) and separator, so it is
        // what is compared.
        XCTAssertGreaterThan(shortcut, 10_000)
        assertAgree([" 2024-07-20T02:04:38Z", "2024-07-20T02:04:38Z ", "2024-07-20T02:04:38.123Z", "2024-07-20",
                     "2024-07-20T02:04Z", "2024-7-20T02:04:38Z", "2024-07-20T02:04:38+01:00 "])
    }

    /// The RFC 822 shortcut itself reads every day and month name (the general parser
    /// would read what it missed, and only the time would tell).
    func testTheRFC822ShortcutReadsEveryDayAndMonthName() {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        for (i, m) in months.enumerated() {
            for day in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] {
                for zone in ["+0000", "GMT"] {
                    var s = "\(day), 04 \(m) 2025 17:30:00 \(zone)"
                    let d = s.withUTF8 { FeedDate.parseCommonRFC822(UnsafeRawBufferPointer($0)) }
                    XCTAssertEqual(d?.month, i + 1, s)
                }
            }
        }
        for other in ["Tux, 04 Mar 2025 17:30:00 GMT", "Tue, 04 Mxr 2025 17:30:00 GMT", "tue, 04 Mar 2025 17:30:00 GMT"] {
            var s = other
            XCTAssertNil(s.withUTF8 { FeedDate.parseCommonRFC822(UnsafeRawBufferPointer($0)) }, other)
        }
    }
}
