// SPDX-License-Identifier: Apache-2.0
// The less common date forms (docs/SCHEMA.md, "Dates"), tried by FeedDate.parse after
// the common ones fail, so the common path is unchanged: ISO 8601's basic (compact),
// ordinal and two-digit-year forms, `YYYY-Month-DD`, a weekday before `YYYY/MM/DD`,
// more zone names, and the localized forms (Korean, Greek, Hungarian).

extension FeedDate {
    /// KST, the zone of the Korean forms.
    private static let koreaOffset = 9 * 3600

    /// The forms FeedDate.parse tries last; nil when the text is none of them.
    static func parseOtherForms(_ bytes: UnsafeRawBufferPointer) -> FeedDate? {
        var s = Scanner(bytes)
        s.skipSpaces()
        let start = s.position
        if s.peekIsDigit() || s.peek == 0x2D {
            if let d = parseCompactISO(&s) { return d }
            s.position = start
            if let d = parseYearMonthName(&s) { return d }
            s.position = start
        }
        if s.peekIsLetter() && weekday(s.letterRun()) {
            _ = s.eat(0x2C)
            s.skipSpaces()
            if let d = parseSlashedZoned(&s) { return d }
        }
        if bytes.contains(where: { $0 >= 0x80 }) { return parseLocalized(bytes) }
        return nil
    }

    /// A two-digit year: 00–49 → 20xx, 50–99 → 19xx (as RFC 2822 §4.3 for RFC 822's).
    private static func century(_ yy: Int) -> Int { yy + (yy < 50 ? 2000 : 1900) }

    // MARK: ISO 8601 basic, ordinal and truncated forms

    /// `YYYYMMDD`, `YYMMDD`, `YYYY-DDD`, `YYYYDDD`, `YYDDD`, `-YY-MM`, `-YYMM`,
    /// `-YY-MM-DD`, then optionally `T` and a time (`hh:mm[:ss]` or `hhmm[ss]`, a
    /// fraction, a zone).
    private static func parseCompactISO(_ s: inout Scanner) -> FeedDate? {
        var d = FeedDate(year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0, fraction: "")
        if s.eat(0x2D) {                                   // -YY-MM[-DD], -YYMM
            guard let yy = s.leadingDigits(min: 2, max: 2) else { return nil }
            d.year = century(yy)
            let dashed = s.eat(0x2D)
            guard let m = s.digits(exactly: 2) else { return nil }
            d.month = m
            if dashed && s.eat(0x2D) {
                guard let day = s.digits(exactly: 2) else { return nil }
                d.day = day
            }
        } else {
            let run = s.digitRun()
            let n = run.count
            func num(_ lo: Int, _ len: Int) -> Int { run[lo..<(lo + len)].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
            if n == 4 && s.eat(0x2D) {                    // YYYY-DDD
                guard let ordinal = s.digits(exactly: 3) else { return nil }
                guard let o = fromOrdinal(num(0, 4), ordinal) else { return nil }
                d = o
            } else {
                switch n {
                case 8: d.year = num(0, 4); d.month = num(4, 2); d.day = num(6, 2)
                case 6: d.year = century(num(0, 2)); d.month = num(2, 2); d.day = num(4, 2)
                case 7: guard let o = fromOrdinal(num(0, 4), num(4, 3)) else { return nil }; d = o
                case 5: guard let o = fromOrdinal(century(num(0, 2)), num(2, 3)) else { return nil }; d = o
                default: return nil
                }
            }
        }
        var offset = 0
        if s.eat(0x54) || s.eat(0x74) {
            guard let o = parseISOTime(&s, into: &d) else { return nil }
            offset = o
        }
        s.skipSpaces()
        guard s.atEnd, d.isValid else { return nil }
        return d.shifted(bySeconds: -offset)
    }

    /// Day `ordinal` (1–365/366) of `year`.
    private static func fromOrdinal(_ year: Int, _ ordinal: Int) -> FeedDate? {
        let leap = daysInMonth(year, 2) == 29
        guard ordinal >= 1, ordinal <= (leap ? 366 : 365), (1...9999).contains(year) else { return nil }
        let (y, m, day) = civilFromDays(daysFromCivil(year, 1, 1) + ordinal - 1)
        return FeedDate(year: y, month: m, day: day, hour: 0, minute: 0, second: 0, fraction: "")
    }

    /// `hh[:mm[:ss]]` or `hh[mm[ss]]`, a fraction, then `Z`, `±hh[:mm]`, `±hhmm` or a
    /// zone name (none: UTC); the zone's offset in seconds east of UTC.
    private static func parseISOTime(_ s: inout Scanner, into d: inout FeedDate) -> Int? {
        guard let h = s.leadingDigits(min: 2, max: 2) else { return nil }
        d.hour = h
        let colon = s.eat(0x3A)
        if s.peekIsDigit(), let mi = s.leadingDigits(min: 2, max: 2) {
            d.minute = mi
            if (colon ? s.eat(0x3A) : s.peekIsDigit()), let sec = s.leadingDigits(min: 2, max: 2) {
                d.second = sec
                if s.eat(0x2E) || s.eat(0x2C) {
                    let f = s.digitRun()
                    guard !f.isEmpty else { return nil }
                    d.fraction = String(decoding: f.prefix(9), as: UTF8.self)
                }
            }
        } else if colon {
            return nil
        }
        guard !s.peekIsDigit() else { return nil }
        s.skipSpaces()
        if s.atEnd { return 0 }
        if s.eat(0x5A) || s.eat(0x7A) { return 0 }
        return s.zone()
    }

    // MARK: YYYY-Month-DD

    /// `YYYY-Mon-DD`, then optionally `T` (or a space) and `h:mm[:ss]` and a zone:
    /// the form of feeds that write the month's name (`2004-Jul-13T9:15-05:00`; the
    /// Hungarian `2004-július-13T9:15-05:00` comes here translated).
    private static func parseYearMonthName(_ s: inout Scanner) -> FeedDate? {
        guard let y = s.digits(exactly: 4), s.eat(0x2D), let m = monthNumber(s.letterRun()), s.eat(0x2D),
              let day = s.digits(min: 1, max: 2) else { return nil }
        var d = FeedDate(year: y, month: m, day: day, hour: 0, minute: 0, second: 0, fraction: "")
        var offset = 0
        if s.eat(0x54) || s.eat(0x74) || s.peek == 0x20 {
            s.skipSpaces()
            if !s.atEnd {
                guard parseTime(&s, into: &d) else { return nil }
                s.skipSpaces()
                if s.eat(0x5A) || s.eat(0x7A) {
                } else if !s.atEnd {
                    guard let o = s.zone() else { return nil }
                    offset = o
                }
            }
        }
        s.skipSpaces()
        guard s.atEnd, d.isValid else { return nil }
        return d.shifted(bySeconds: -offset)
    }

    // MARK: Weekday, YYYY/MM/DD time zone

    /// `YYYY/M/D [h:mm[:ss]] [zone]` after a weekday (`Fri, 2006/09/15 08:19:53 EDT`).
    private static func parseSlashedZoned(_ s: inout Scanner) -> FeedDate? {
        guard let y = s.digits(exactly: 4), s.eat(0x2F), let m = s.digits(min: 1, max: 2), s.eat(0x2F),
              let day = s.digits(min: 1, max: 2) else { return nil }
        return timeZoneAndEnd(&s, FeedDate(year: y, month: m, day: day, hour: 0, minute: 0, second: 0, fraction: ""))
    }

    // MARK: Zone names

    /// Zone names beyond RFC 822's (seconds east of UTC), called by Scanner.namedZone
    /// with the letters read: `AST ADT AT` (Atlantic), `ET CT MT PT` (US, standard time),
    /// `MET MEST`, `KST`, and `Etc/GMT±N` / `Etc/UTC` (the tz database's names, whose
    /// sign is POSIX's: `Etc/GMT+5` is five hours *behind* UTC).
    static func moreZones(_ run: UnsafeRawBufferPointer, _ s: inout Scanner) -> Int? {
        switch key(run) {
        case key("ast"), key("at"): return -4 * 3600
        case key("adt"): return -3 * 3600
        case key("et"): return -5 * 3600
        case key("ct"): return -6 * 3600
        case key("mt"): return -7 * 3600
        case key("pt"): return -8 * 3600
        case key("met"), key("cet"): return 3600
        case key("mest"), key("cest"): return 2 * 3600
        case key("kst"): return koreaOffset
        case key("etc"):
            let start = s.position
            guard s.eat(0x2F) else { return nil }
            switch key(s.letterRun()) {
            case key("gmt"), key("utc"), key("uct"), key("ut"), key("zulu"), key("greenwich"), key("universal"):
                guard s.peek == 0x2B || s.peek == 0x2D else { return 0 }
                let sign = s.peek == 0x2D ? 1 : -1   // POSIX: the sign is inverted
                s.advance()
                guard let h = s.digits(min: 1, max: 2), h <= 14 else { s.position = start; return nil }
                return sign * h * 3600
            default:
                s.position = start
                return nil
            }
        default:
            return nil
        }
    }

    // MARK: Localized forms

    /// Korean (`2004년 05월 28일 01:31:15`, `2004-05-25 오후 11:23:17`, in KST), Greek
    /// (`Κυρ, 11 Ιούλ 2004 12:00:00 EST`) and Hungarian (`2004-július-13T9:15-05:00`)
    /// dates. Greek and Hungarian names are translated to English and the text parsed
    /// again; no other non-ASCII text is a date.
    private static func parseLocalized(_ bytes: UnsafeRawBufferPointer) -> FeedDate? {
        let text = String(decoding: bytes, as: UTF8.self)
        if let d = parseKorean(text) { return d }
        var out = ""
        var word = ""
        func flush() -> Bool {
            guard !word.isEmpty else { return true }
            defer { word = "" }
            if word.unicodeScalars.allSatisfy(\.isASCII) { out += word; return true }
            guard let english = translate(word) else { return false }
            out += english
            return true
        }
        for c in text {
            if c.isLetter { word.append(c); continue }
            guard flush() else { return nil }
            out.append(c)
        }
        guard flush(), out.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var o = out
        return o.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// The English abbreviation of a Greek month or weekday, or of a Hungarian month.
    private static func translate(_ word: String) -> String? {
        let w = String(word.lowercased().unicodeScalars.map { plain[$0] ?? Character($0) })
        let english = ["", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        // Greek: a word starting with one stem (abbreviations, nominative and genitive).
        let greekMonths: [(String, Int)] = [
            ("ιαν", 1), ("φεβ", 2), ("μαρ", 3), ("απρ", 4), ("μαι", 5), ("μαη", 5), ("ιουν", 6), ("ιον", 6),
            ("ιουλ", 7), ("ιολ", 7), ("αυγ", 8), ("σεπ", 9), ("οκτ", 10), ("νοε", 11), ("δεκ", 12)]
        if let m = greekMonths.first(where: { w.hasPrefix($0.0) }) { return english[m.1] }
        let greekDays: [(String, String)] = [
            ("κυρ", "Sun"), ("δευ", "Mon"), ("τρι", "Tue"), ("τετ", "Wed"), ("πεμ", "Thu"), ("παρ", "Fri"),
            ("σαβ", "Sat")]
        if let d = greekDays.first(where: { w.hasPrefix($0.0) }) { return d.1 }
        // Hungarian: a month's name, or a prefix of at least three letters of one only.
        let hungarian = ["januar", "februar", "marcius", "aprilis", "majus", "junius", "julius", "augusztus",
                         "szeptember", "oktober", "november", "december"]
        let w2 = w.hasSuffix(".") ? String(w.dropLast()) : w
        guard w2.count >= 3 else { return nil }
        let matches = hungarian.indices.filter { hungarian[$0].hasPrefix(w2) }
        return matches.count == 1 ? english[matches[0] + 1] : nil
    }

    /// Greek and Hungarian accented letters → plain ones (lowercase).
    private static let plain: [Unicode.Scalar: Character] = {
        var m: [Unicode.Scalar: Character] = [:]
        let pairs: [(String, Character)] = [
            ("άᾶ", "α"), ("έ", "ε"), ("ήῆ", "η"), ("ίϊΐῖ", "ι"), ("ό", "ο"), ("ύϋΰῦ", "υ"), ("ώῶ", "ω"), ("ς", "σ"),
            ("á", "a"), ("é", "e"), ("íî", "i"), ("óöő", "o"), ("úüű", "u")]
        for (from, to) in pairs { for u in from.unicodeScalars { m[u] = to } }
        return m
    }()

    /// `YYYY년 MM월 DD일 [hh:mm[:ss]]` (OnBlog) and `YYYY-MM-DD 오전|오후 hh:mm[:ss]`
    /// (Nate): Korean software's forms, in Korea's time (KST, UTC+9).
    private static func parseKorean(_ text: String) -> FeedDate? {
        var t = text
        var pm: Bool? = nil
        if let r = t.firstRange(of: "오전") { pm = false; t.replaceSubrange(r, with: " ") }
        else if let r = t.firstRange(of: "오후") { pm = true; t.replaceSubrange(r, with: " ") }
        let units: [Character] = ["년", "월", "일"]
        let hasUnits = units.allSatisfy { u in t.filter { $0 == u }.count == 1 }
        guard hasUnits || pm != nil else { return nil }
        if hasUnits {
            // "Y년 M월 D일": the units become the ISO separators.
            t = String(t.map { $0 == "년" || $0 == "월" ? "-" : $0 == "일" ? " " : $0 })
        }
        // Now "YYYY- MM- DD  hh:mm:ss" or "YYYY-MM-DD   hh:mm:ss": the date's pieces,
        // then the time.
        let parts = t.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var datePart = "", timePart: String? = nil
        for p in parts {
            if p.contains(":") { guard timePart == nil else { return nil }; timePart = p } else { datePart += p }
        }
        let ymd = datePart.split(separator: "-", omittingEmptySubsequences: false)
        guard ymd.count == 3, let y = Int(ymd[0]), ymd[0].count == 4, let m = Int(ymd[1]), let day = Int(ymd[2]),
              ymd[1].count <= 2, ymd[2].count <= 2, ymd.allSatisfy({ $0.allSatisfy(\.isASCII) }) else { return nil }
        var d = FeedDate(year: y, month: m, day: day, hour: 0, minute: 0, second: 0, fraction: "")
        if let tp = timePart {
            let hms = tp.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(hms.count), hms.allSatisfy({ $0.count <= 2 && !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
                  let h = Int(hms[0]), let mi = Int(hms[1]), hms[1].count == 2 else { return nil }
            d.hour = h
            d.minute = mi
            if hms.count == 3 { guard let sec = Int(hms[2]), hms[2].count == 2 else { return nil }; d.second = sec }
            if let pm {
                guard (1...12).contains(h) else { return nil }
                d.hour = h % 12 + (pm ? 12 : 0)
            }
        } else if pm != nil {
            return nil
        }
        guard d.isValid else { return nil }
        return d.shifted(bySeconds: -koreaOffset)
    }
}

