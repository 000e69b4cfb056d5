// SPDX-License-Identifier: Apache-2.0
/// A point in time parsed from a feed date, normalized to UTC.
///
/// Accepted forms (docs/SCHEMA.md, "Dates"):
/// - RFC 822 / RFC 1123 / RFC 2822 and their common variants: optional weekday
///   (abbreviated or full), one- or two-digit day, English month names (abbreviated or
///   full, any case), two-digit years (00–49 → 20xx, 50–99 → 19xx), seconds optional,
///   zones `+hhmm`/`-hhmm`, `+hh:mm`, `UT`, `UTC`, `GMT`, `Z`, the US zones (EST, EDT,
///   CST, CDT, MST, MDT, PST, PDT), military letters (taken as UTC, as RFC 2822 §4.3
///   says), and no zone (taken as UTC).
/// - ISO 8601 / RFC 3339 / W3C-DTF: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, then `T` or a
///   space, `hh:mm[:ss[.fraction]]` and `Z` or `±hh:mm` / `±hhmm` / `±hh` (no zone:
///   UTC). Missing month/day are 1, missing time is midnight.
/// - The less common forms of FeedDateForms.swift: ISO 8601's basic, ordinal and
///   truncated dates, more zone names, the Korean, Greek and Hungarian forms.
///
/// Anything else is not a date: the parser returns nil and never guesses.
public struct FeedDate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The year (four digits; two-digit years are expanded, see above).
    public var year: Int
    /// The month, 1–12.
    public var month: Int
    /// The day of the month, 1–31.
    public var day: Int
    /// The hour, 0–23, in UTC.
    public var hour: Int
    /// The minute, 0–59.
    public var minute: Int
    /// The second, 0–60 (a leap second is kept here; its written form, ``description``
    /// and the JSON Lines date members, says `:59`).
    public var second: Int
    /// Fraction of a second as written, e.g. "123" for ".123"; at most 9 digits.
    public var fraction: String

    /// RFC 3339 in UTC: "2025-03-04T17:30:00Z" (with the fraction when one was given).
    public var description: String {
        var buf = [UInt8](repeating: 0, count: FeedDate.maxLength)
        let n = buf.withUnsafeMutableBufferPointer { write(to: $0.baseAddress!) }
        return String(decoding: buf[0..<n], as: UTF8.self)
    }

    /// The longest `write(to:)` output.
    package static let maxLength = 32

    /// Writes the RFC 3339 UTC form; returns the byte count (at most ``maxLength``).
    ///
    /// A leap second is written as second 59 of the same minute (fraction as written):
    /// `23:59:60Z` becomes `23:59:59Z`, which Python, DuckDB, Spark and pandas all read
    /// (none of them reads `:60`). The `_raw` member keeps what the feed wrote.
    package func write(to out: UnsafeMutablePointer<UInt8>) -> Int {
        // Two digits at a time from a table of "00" to "99" (a literal: no lazy global).
        let pairs: StaticString = """
            00010203040506070809101112131415161718192021222324252627282930313233343536373839\
            40414243444546474849505152535455565758596061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899
            """
        let table = pairs.utf8Start
        func two(_ v: Int, _ at: Int) {
            let k = (v >= 0 && v < 100 ? v : ((v % 100) + 100) % 100) &* 2
            out[at] = table[k]
            out[at &+ 1] = table[k &+ 1]
        }
        // The year's four digits (1-9999 in every date parsed; a year a caller set outside
        // 0-9999 is written modulo 10,000, as every other field modulo 100).
        let y = year >= 0 && year < 10_000 ? year : ((year % 10_000) + 10_000) % 10_000
        two(y / 100, 0); two(y % 100, 2)
        out[4] = 0x2D; two(month, 5); out[7] = 0x2D; two(day, 8)
        out[10] = 0x54; two(hour, 11); out[13] = 0x3A; two(minute, 14); out[16] = 0x3A; two(min(second, 59), 17)
        var i = 19
        if !fraction.isEmpty {
            out[i] = 0x2E
            i += 1
            for c in fraction.utf8.prefix(9) {
                out[i] = c
                i += 1
            }
        }
        out[i] = 0x5A
        return i + 1
    }

    /// Parses a date in any accepted form; nil when it is none of them.
    public static func parse(_ text: String) -> FeedDate? {
        var t = text
        return t.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Parses bytes (leading/trailing whitespace allowed).
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> FeedDate? {
        // (Each tried in turn: `??` between them copied the optional date out and destroyed
        // it, two calls into the runtime a date.)
        if let d = parseCommonISO(bytes) { return d }
        if let d = parseCommonRFC822(bytes) { return d }
        return parseAnyForm(bytes)
    }

    /// ``parse(_:)-(UnsafeRawBufferPointer)`` without its shortcuts for the most common
    /// forms (tests compare the two).
    static func parseAnyForm(_ bytes: UnsafeRawBufferPointer) -> FeedDate? {
        var s = Scanner(bytes)
        s.skipSpaces()
        guard !s.atEnd else { return nil }
        let start = s.position
        if s.peekIsDigit() {
            if let d = parseISO(&s) { return d }
            s.position = start
            if let d = parseSlashed(&s) { return d }
            s.position = start
        }
        if let d = parseRFC822(&s) { return d }
        s.position = start
        if let d = parseMonthFirst(&s) { return d }
        return parseOtherForms(bytes)   // FeedDateForms.swift
    }

    // MARK: - ISO 8601 / W3C-DTF

    /// W3C-DTF's most common form, exactly `YYYY-MM-DDThh:mm:ss` and `Z` or `±hh:mm`,
    /// read in one pass: the date parseISO gives for these bytes. Nil for any other bytes,
    /// and for an impossible date: the general parser decides those.
    private static func parseCommonISO(_ b: UnsafeRawBufferPointer) -> FeedDate? {
        let n = b.count
        guard n == 20 || n == 25, let base = b.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        guard p[4] == 0x2D, p[7] == 0x2D, p[10] == 0x54, p[13] == 0x3A, p[16] == 0x3A,
              let century = twoDigits(p), let year = twoDigits(p + 2), let month = twoDigits(p + 5),
              let day = twoDigits(p + 8), let hour = twoDigits(p + 11), let minute = twoDigits(p + 14),
              let second = twoDigits(p + 17) else { return nil }
        var offset = 0
        if n == 20 {
            guard p[19] == 0x5A else { return nil }   // Z
        } else {
            guard p[19] == 0x2B || p[19] == 0x2D, p[22] == 0x3A, let h = twoDigits(p + 20),
                  let m = twoDigits(p + 23), h <= 18, m <= 59 else { return nil }
            offset = (p[19] == 0x2D ? -1 : 1) * (h * 3600 + m * 60)
        }
        let d = FeedDate(year: century * 100 + year, month: month, day: day, hour: hour, minute: minute,
                         second: second, fraction: "")
        guard d.isValid else { return nil }
        return d.shifted(bySeconds: -offset)
    }

    private static func parseISO(_ s: inout Scanner) -> FeedDate? {
        guard let year = s.digits(exactly: 4) else { return nil }
        var d = FeedDate(year: year, month: 1, day: 1, hour: 0, minute: 0, second: 0, fraction: "")
        var offset = 0
        if s.eat(0x2D) {
            guard let m = s.digits(exactly: 2) else { return nil }
            d.month = m
            if s.eat(0x2D) {
                guard let day = s.digits(exactly: 2) else { return nil }
                d.day = day
                if s.eat(0x54) || s.eat(0x74) || (s.peek == 0x20 && s.peekDigit(at: 1)) {
                    if s.peek == 0x20 { s.advance() }
                    guard let h = s.digits(exactly: 2), s.eat(0x3A), let mi = s.digits(exactly: 2) else { return nil }
                    d.hour = h
                    d.minute = mi
                    if s.eat(0x3A) {
                        guard let sec = s.digits(exactly: 2) else { return nil }
                        d.second = sec
                        if s.eat(0x2E) || s.eat(0x2C) {
                            let f = s.digitRun()
                            guard !f.isEmpty else { return nil }
                            d.fraction = String(decoding: f.prefix(9), as: UTF8.self)
                        }
                    }
                    s.skipSpaces()
                    if s.eat(0x5A) || s.eat(0x7A) {
                        offset = 0
                    } else if s.peek == 0x2B || s.peek == 0x2D {
                        guard let o = s.numericZone() else { return nil }
                        offset = o
                    } else if !s.atEnd {
                        guard let o = s.namedZone() else { return nil }
                        offset = o
                    }
                }
            }
        }
        s.skipSpaces()
        guard s.atEnd, d.isValid else { return nil }
        return d.shifted(bySeconds: -offset)
    }

    // MARK: - RFC 822 and variants

    /// RSS's most common form, exactly `Www, DD Mon YYYY HH:MM:SS +hhmm` (or `GMT` for
    /// the zone), weekday and month as RFC 822 writes them, read in one pass: the date
    /// parseRFC822 gives for these bytes. Nil for any other bytes, and for an impossible
    /// date: the general parser decides those.
    static func parseCommonRFC822(_ b: UnsafeRawBufferPointer) -> FeedDate? {
        let n = b.count
        guard n == 31 || n == 29, let base = b.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        guard p[3] == 0x2C, p[4] == 0x20, p[7] == 0x20, p[11] == 0x20, p[16] == 0x20, p[19] == 0x3A,
              p[22] == 0x3A, p[25] == 0x20 else { return nil }
        func name(_ i: Int) -> UInt32 { UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]) }
        func two(_ i: Int) -> Int? { twoDigits(p + i) }
        guard isCommonWeekday(name(0)), let month = commonMonth(name(8)),
              let day = two(5), let century = two(12), let year = two(14), let hour = two(17),
              let minute = two(20), let second = two(23) else { return nil }
        var offset = 0
        if n == 31 {
            guard p[26] == 0x2B || p[26] == 0x2D, let h = two(27), let m = two(29), h <= 18, m <= 59 else { return nil }
            offset = (p[26] == 0x2D ? -1 : 1) * (h * 3600 + m * 60)
        } else {
            guard name(26) == 0x474D54 else { return nil }   // GMT
        }
        let d = FeedDate(year: century * 100 + year, month: month + 1, day: day, hour: hour, minute: minute,
                         second: second, fraction: "")
        guard d.isValid else { return nil }
        return d.shifted(bySeconds: -offset)
    }

    /// The number of the two ASCII digits at `p`; nil when they are not two digits.
    @inline(__always)
    private static func twoDigits(_ p: UnsafePointer<UInt8>) -> Int? {
        let a = p[0] &- 0x30, c = p[1] &- 0x30
        return a < 10 && c < 10 ? Int(a) * 10 + Int(c) : nil
    }

    /// RFC 822's day names, as ``parseCommonRFC822(_:)`` reads three letters (a switch:
    /// arrays in lazy globals cost a call and a reference count per date).
    @inline(__always)
    private static func isCommonWeekday(_ n: UInt32) -> Bool {
        switch n {
        case 0x4D6F6E, 0x547565, 0x576564, 0x546875, 0x467269, 0x536174, 0x53756E: return true   // Mon ... Sun
        default: return false
        }
    }

    /// RFC 822's month names' index (0 for Jan), as ``parseCommonRFC822(_:)`` reads three letters.
    @inline(__always)
    private static func commonMonth(_ n: UInt32) -> Int? {
        switch n {
        case 0x4A616E: return 0    // Jan
        case 0x466562: return 1    // Feb
        case 0x4D6172: return 2    // Mar
        case 0x417072: return 3    // Apr
        case 0x4D6179: return 4    // May
        case 0x4A756E: return 5    // Jun
        case 0x4A756C: return 6    // Jul
        case 0x417567: return 7    // Aug
        case 0x536570: return 8    // Sep
        case 0x4F6374: return 9    // Oct
        case 0x4E6F76: return 10   // Nov
        case 0x446563: return 11   // Dec
        default: return nil
        }
    }

    private static func parseRFC822(_ s: inout Scanner) -> FeedDate? {
        // Optional weekday: letters, then a comma and/or spaces.
        if s.peekIsLetter() {
            let w = s.letterRun()
            guard weekday(w) else { return nil }
            _ = s.eat(0x2C)
            s.skipSpaces()
        }
        guard let day = s.digits(min: 1, max: 2) else { return nil }
        s.skipSeparators()
        guard let month = monthNumber(s.letterRun()) else { return nil }
        s.skipSeparators()
        let yStart = s.position
        guard let y = s.digits(min: 2, max: 4) else { return nil }
        let yLen = s.position - yStart
        var year = y
        if yLen == 2 { year += y < 50 ? 2000 : 1900 } else if yLen == 3 { year += 1900 }
        return timeZoneAndEnd(&s, FeedDate(year: year, month: month, day: day, hour: 0, minute: 0, second: 0,
                                           fraction: ""))
    }

    /// The rest of a date whose day is read: an optional time, then an optional zone
    /// (white space around them), then the end; the date shifted to UTC by the zone, nil
    /// when anything else follows or the date does not exist.
    static func timeZoneAndEnd(_ s: inout Scanner, _ date: FeedDate) -> FeedDate? {
        var d = date
        var offset = 0
        s.skipSpaces()
        if !s.atEnd {
            guard parseTime(&s, into: &d) else { return nil }
            s.skipSpaces()
            if !s.atEnd {
                guard let o = s.zone() else { return nil }
                offset = o
                s.skipSpaces()
            }
        }
        guard s.atEnd, d.isValid else { return nil }
        return d.shifted(bySeconds: -offset)
    }

    /// Up to 8 ASCII letters, lowercased, packed into an integer: allocation-free
    /// matching of month and weekday names.
    static func key(_ b: UnsafeRawBufferPointer) -> UInt64 {
        guard b.count <= 8 else { return 0 }
        var k: UInt64 = 0
        for c in b { k = k << 8 | UInt64(c | 0x20) }
        return k
    }

    static func key(_ s: StaticString) -> UInt64 {
        key(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// `h:mm[:ss]` (12-hour with `am`/`pm` too) or `hhmm`.
    static func parseTime(_ s: inout Scanner, into d: inout FeedDate) -> Bool {
        let start = s.position
        if let hm = s.digits(exactly: 4) {   // "1500"
            d.hour = hm / 100
            d.minute = hm % 100
            return true
        }
        s.position = start
        guard let h = s.digits(min: 1, max: 2), s.eat(0x3A), let mi = s.digits(exactly: 2) else { return false }
        d.hour = h
        d.minute = mi
        if s.eat(0x3A) {
            guard let sec = s.digits(exactly: 2) else { return false }
            d.second = sec
        }
        let beforeMeridiem = s.position
        s.skipSpaces()
        let word = s.letterRun()
        let key = FeedDate.key(word)
        if key == FeedDate.key("am") || key == FeedDate.key("pm") {
            guard (1...12).contains(h) else { return false }
            d.hour = h % 12 + (key == FeedDate.key("pm") ? 12 : 0)
        } else {
            s.position = beforeMeridiem
        }
        return true
    }

    /// `YYYY/M/D[ h:mm[:ss]]`, taken as UTC.
    private static func parseSlashed(_ s: inout Scanner) -> FeedDate? {
        guard let y = s.digits(exactly: 4), s.eat(0x2F), let m = s.digits(min: 1, max: 2), s.eat(0x2F),
              let day = s.digits(min: 1, max: 2) else { return nil }
        var d = FeedDate(year: y, month: m, day: day, hour: 0, minute: 0, second: 0, fraction: "")
        s.skipSpaces()
        if !s.atEnd { guard parseTime(&s, into: &d) else { return nil } }
        s.skipSpaces()
        return s.atEnd && d.isValid ? d : nil
    }

    /// JavaScript's and asctime's month-first forms: `Fri May 30 2014 00:00:00 GMT[+hhmm] [(zone name)]`,
    /// `Sun Nov  6 08:49:37 1994`.
    private static func parseMonthFirst(_ s: inout Scanner) -> FeedDate? {
        if s.peekIsLetter() {
            guard weekday(s.letterRun()) else { return nil }
            _ = s.eat(0x2C)
            s.skipSpaces()
        }
        guard let month = monthNumber(s.letterRun()) else { return nil }
        s.skipSpaces()
        guard let day = s.digits(min: 1, max: 2) else { return nil }
        _ = s.eat(0x2C)
        s.skipSpaces()
        var d = FeedDate(year: 0, month: month, day: day, hour: 0, minute: 0, second: 0, fraction: "")
        var offset = 0
        let afterDay = s.position
        if let y = s.digits(exactly: 4) {           // JavaScript: year, then time and zone
            d.year = y
            s.skipSpaces()
            if !s.atEnd { guard parseTime(&s, into: &d) else { return nil } }
            s.skipSpaces()
            if !s.atEnd && s.peek != 0x28 {
                guard let o = s.zone() else { return nil }
                offset = o
                s.skipSpaces()
            }
            if s.eat(0x28) {                          // "(Central European Summer Time)"
                while !s.atEnd && s.peek != 0x29 { s.advance() }
                guard s.eat(0x29) else { return nil }
                s.skipSpaces()
            }
        } else {                                      // asctime: time, [zone,] year[, zone]
            s.position = afterDay
            guard parseTime(&s, into: &d) else { return nil }
            s.skipSpaces()
            var zoned = false
            if !s.atEnd && !s.peekIsDigit() {
                guard let o = s.zone() else { return nil }
                offset = o
                zoned = true
                s.skipSpaces()
            }
            guard let y = s.digits(exactly: 4) else { return nil }
            d.year = y
            s.skipSpaces()
            if !zoned && !s.atEnd {
                guard let o = s.zone() else { return nil }
                offset = o
                s.skipSpaces()
            }
        }
        guard s.atEnd, d.isValid else { return nil }
        return d.shifted(bySeconds: -offset)
    }

    private static let weekdayKeys: Set<UInt64> = Set(
        ["mon", "tue", "wed", "thu", "fri", "sat", "sun", "tues", "thur", "thurs", "monday", "tuesday",
         "thursday", "friday", "saturday", "sunday"].map { (s: StaticString) in key(s) } + [keyLong("wednesday")])
    private static let monthKeys: [UInt64: Int] = {
        let names: [(StaticString, Int)] = [
            ("jan", 1), ("feb", 2), ("mar", 3), ("apr", 4), ("may", 5), ("jun", 6), ("jul", 7), ("aug", 8),
            ("sep", 9), ("sept", 9), ("oct", 10), ("nov", 11), ("dec", 12), ("january", 1), ("february", 2),
            ("march", 3), ("april", 4), ("june", 6), ("july", 7), ("august", 8), ("october", 10),
            ("november", 11), ("december", 12)]
        var d: [UInt64: Int] = [:]
        for (n, m) in names { d[key(n)] = m }
        d[keyLong("september")] = 9
        return d
    }()

    /// Names longer than 8 letters: their first 8 letters, flagged in the top bit.
    static func keyLong(_ s: StaticString) -> UInt64 {
        keyPrefix(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
    static func keyPrefix(_ b: UnsafeRawBufferPointer) -> UInt64 {
        var k: UInt64 = 0
        for c in b.prefix(8) { k = k << 8 | UInt64(c | 0x20) }
        return k ^ (1 << 63)
    }
    static func lookupKey(_ b: UnsafeRawBufferPointer) -> UInt64 { b.count <= 8 ? key(b) : keyPrefix(b) }

    static func weekday(_ b: UnsafeRawBufferPointer) -> Bool {
        weekdayKeys.contains(lookupKey(b))
    }

    static func monthNumber(_ b: UnsafeRawBufferPointer) -> Int? {
        monthKeys[lookupKey(b)]
    }

    // MARK: - Calendar arithmetic

    var isValid: Bool {
        guard (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute),
              (0...60).contains(second), (1...9999).contains(year) else { return false }
        return day >= 1 && day <= FeedDate.daysInMonth(year, month)
    }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    func shifted(bySeconds delta: Int) -> FeedDate? {
        if delta == 0 { return self }
        let leap = second == 60 ? 1 : 0
        var t = hour * 3600 + minute * 60 + (second - leap) + delta   // seconds into the day
        var d = self
        if t < 0 || t >= 86400 {
            // Another day: through days since the epoch (most zone offsets stay within the day).
            t += FeedDate.daysFromCivil(year, month, day) * 86400
            let days = t >= 0 ? t / 86400 : (t - 86399) / 86400
            t -= days * 86400
            let (y, m, dd) = FeedDate.civilFromDays(days)
            guard (1...9999).contains(y) else { return nil }
            (d.year, d.month, d.day) = (y, m, dd)
        }
        d.hour = t / 3600
        d.minute = t / 60 % 60
        d.second = t % 60 + leap
        return d
    }
}

/// A cursor over date bytes (also used by FeedDateForms.swift).
struct Scanner {
    let b: UnsafeRawBufferPointer
    var position = 0
    init(_ b: UnsafeRawBufferPointer) { self.b = b }

    var atEnd: Bool { position >= b.count }
    var peek: UInt8 { atEnd ? 0 : b[position] }
    mutating func advance() { position += 1 }
    func peekIsDigit() -> Bool { !atEnd && b[position] >= 0x30 && b[position] <= 0x39 }
    func peekDigit(at k: Int) -> Bool { position + k < b.count && b[position + k] >= 0x30 && b[position + k] <= 0x39 }
    func peekIsLetter() -> Bool { !atEnd && isLetter(b[position]) }
    func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

    mutating func eat(_ c: UInt8) -> Bool {
        if peek == c && !atEnd { position += 1; return true }
        return false
    }
    mutating func skipSpaces() { while !atEnd && isXMLSpace(b[position]) { position += 1 } }
    /// Spaces, `-` and `,` between day, month and year ("13 Feb, 2012").
    mutating func skipSeparators() {
        while !atEnd && (isXMLSpace(b[position]) || b[position] == 0x2D || b[position] == 0x2C) { position += 1 }
    }

    mutating func digitRun() -> UnsafeRawBufferPointer {
        let start = position
        while peekIsDigit() { position += 1 }
        return UnsafeRawBufferPointer(rebasing: b[start..<position])
    }
    mutating func letterRun() -> UnsafeRawBufferPointer {
        let start = position
        while peekIsLetter() { position += 1 }
        let r = UnsafeRawBufferPointer(rebasing: b[start..<position])
        if peek == 0x2E { position += 1 }   // "Sept." / "Tue."
        return r
    }
    mutating func digits(exactly n: Int) -> Int? { digits(min: n, max: n) }
    /// Between `min` and `max` digits, not followed by another digit.
    mutating func digits(min: Int, max: Int) -> Int? {
        guard let v = leadingDigits(min: min, max: max), !peekIsDigit() else { return nil }
        return v
    }
    /// Between `min` and `max` digits; more digits may follow.
    mutating func leadingDigits(min: Int, max: Int) -> Int? {
        var v = 0, k = 0
        while k < max, peekIsDigit() { v = v * 10 + Int(b[position] - 0x30); position += 1; k += 1 }
        return k < min ? nil : v
    }
    /// A numeric or named zone, or a named zone followed by a numeric one ("GMT+0100");
    /// seconds east of UTC.
    mutating func zone() -> Int? {
        var offset: Int
        if peek == 0x2B || peek == 0x2D {
            guard let o = numericZone() else { return nil }
            offset = o
        } else {
            guard let o = namedZone() else { return nil }
            offset = o
            skipSpaces()
            if peek == 0x2B || peek == 0x2D {
                guard let o2 = numericZone() else { return nil }
                offset += o2
            }
        }
        return offset
    }

    /// "+hhmm", "+hh:mm", "+hh"; seconds east of UTC.
    mutating func numericZone() -> Int? {
        let sign = b[position] == 0x2D ? -1 : 1
        position += 1
        guard let h = leadingDigits(min: 2, max: 2) else { return nil }
        var m = 0
        if eat(0x3A) {
            guard let mm = digits(exactly: 2) else { return nil }
            m = mm
        } else if peekIsDigit() {
            guard let mm = digits(exactly: 2) else { return nil }
            m = mm
        }
        guard h <= 18, m <= 59 else { return nil }
        return sign * (h * 3600 + m * 60)
    }
    /// Named zones; seconds east of UTC.
    mutating func namedZone() -> Int? {
        let start = position
        let run = letterRun()
        switch FeedDate.key(run) {
        case FeedDate.key("ut"), FeedDate.key("utc"), FeedDate.key("gmt"), FeedDate.key("z"): return 0
        case FeedDate.key("est"): return -5 * 3600
        case FeedDate.key("edt"): return -4 * 3600
        case FeedDate.key("cst"): return -6 * 3600
        case FeedDate.key("cdt"): return -5 * 3600
        case FeedDate.key("mst"): return -7 * 3600
        case FeedDate.key("mdt"): return -6 * 3600
        case FeedDate.key("pst"): return -8 * 3600
        case FeedDate.key("pdt"): return -7 * 3600
        default:
            if let o = FeedDate.moreZones(run, &self) { return o }   // FeedDateForms.swift
            // Military zones: RFC 2822 §4.3 says their sign was garbled; take them as UTC.
            if run.count == 1 && (run[0] | 0x20) != 0x6A { return 0 }
            position = start
            return nil
        }
    }
}
