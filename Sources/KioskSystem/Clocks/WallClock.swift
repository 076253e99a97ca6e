import Glibc

/// Wall-clock (CLOCK_REALTIME) time as Unix epoch milliseconds, with ISO-8601 UTC text.
///
/// Decisions carry both clocks: the wall clock says when (for people and exports) and can
/// jump (NTP, a Pi without RTC boots in 1970); the monotonic clock orders events reliably.
package enum WallClock {
    package static func nowMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// "2024-05-01T12:34:56.789Z".
    package static func iso8601(milliseconds ms: Int64) -> String {
        let seconds = ms.floorDiv(1000)
        let millis = Int(ms - seconds * 1000)
        let days = seconds.floorDiv(86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (y, m, d) = civil(fromDays: days)
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let year = y < 0 ? "-" + pad(-Int(y), 4) : pad(Int(y), 4)
        return "\(year)-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2))"
            + ":\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's days_from_civil).
    static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDiv(400)
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day count since 1970-01-01 (civil_from_days).
    static func civil(fromDays z0: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = z.floorDiv(146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Parses a `--since` value into epoch milliseconds:
    /// "2024-05-01" (midnight UTC), "2024-05-01T12:00", "2024-05-01T12:00:30.5Z",
    /// "2024-05-01T14:00+02:00", or an age before `now`: "90m", "24h", "7d".
    package static func parse(_ text: String, now: Int64) -> Int64? {
        if let last = text.last, "smhd".contains(last), let n = Int64(text.dropLast()), n >= 0 {
            let unit: Int64 = ["s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000][String(last)]!
            return now - n * unit
        }
        let u = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= u.count else { return nil }
            var v = 0
            for k in 0..<digits {
                let b = u[i + k]
                guard b >= 48 && b <= 57 else { return nil }
                v = v * 10 + Int(b - 48)
            }
            i += digits
            return v
        }
        func take(_ c: Character) -> Bool {
            guard i < u.count, u[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var ms = days(year: Int64(year), month: month, day: day) * 86_400_000
        guard civil(fromDays: days(year: Int64(year), month: month, day: day)) == (Int64(year), month, day) else {
            return nil  // 2024-02-31
        }
        if i == u.count { return ms }
        guard take("T") || take(" "), let hour = number(2), take(":"), let minute = number(2),
            hour < 24, minute < 60
        else { return nil }
        ms += Int64(hour * 3_600_000 + minute * 60_000)
        if take(":") {
            guard let second = number(2), second < 60 else { return nil }
            ms += Int64(second * 1000)
            if take(".") {
                var scale: Int64 = 100
                var any = false
                while i < u.count, u[i] >= 48, u[i] <= 57 {
                    ms += Int64(u[i] - 48) * scale
                    scale /= 10
                    i += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        if i == u.count || take("Z") {
            return i == u.count ? ms : nil
        }
        let sign: Int64
        if take("+") {
            sign = 1
        } else if take("-") {
            sign = -1
        } else {
            return nil
        }
        guard let oh = number(2), take(":"), let om = number(2), i == u.count, oh < 24, om < 60 else { return nil }
        return ms - sign * Int64(oh * 3_600_000 + om * 60_000)
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    fileprivate func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
