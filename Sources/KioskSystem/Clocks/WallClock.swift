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

    /// "2024-05-01T12:34:56.789Z" (the calendar is glibc's: `gmtime_r`, `strftime`).
    package static func iso8601(milliseconds ms: Int64) -> String {
        let seconds = ms.floorDiv(1000)
        // From the remainder: `seconds * 1000` overflows for ms near Int64.min.
        let rest = ms % 1000
        let millis = String(rest < 0 ? rest + 1000 : rest)
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "\(ms) ms since 1970" }
        var text = [CChar](repeating: 0, count: 64)
        let n = strftime(&text, text.count, "%04Y-%m-%dT%H:%M:%S", &parts)
        guard n > 0 else { return "\(ms) ms since 1970" }
        return String(decoding: text[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) + "."
            + String(repeating: "0", count: 3 - millis.count) + millis + "Z"
    }

    /// Milliseconds since the epoch of midnight UTC on a proleptic Gregorian date (`timegm`);
    /// nil for a date that does not exist (2024-02-31).
    static func midnight(year: Int, month: Int, day: Int) -> Int64? {
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        let seconds = timegm(&parts)
        // timegm normalises an impossible date (Feb 31 → Mar 2) and says so in the fields.
        guard parts.tm_mon == Int32(month - 1), parts.tm_mday == Int32(day) else { return nil }
        return Int64(seconds) * 1000
    }

    /// The forms `parse` takes, for a command's help and its refusal of a value.
    package static let timeForms = "2024-05-01, 2024-05-01T12:00Z, 2024-05-01T14:00+02:00, or an age such as 24h or 7d"

    /// Parses a `--since` value into epoch milliseconds:
    /// "2024-05-01" (midnight UTC), "2024-05-01T12:00", "2024-05-01T12:00:30.5Z",
    /// "2024-05-01T14:00+02:00", or an age before `now`: "90m", "24h", "7d".
    package static func parse(_ text: String, now: Int64) -> Int64? {
        if let last = text.last, "smhd".contains(last), let n = Int64(text.dropLast()), n >= 0 {
            let unit: Int64 = ["s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000][String(last)]!
            // An age past the range of Int64 milliseconds (99999999999999d) is not a time.
            let (age, overflow) = n.multipliedReportingOverflow(by: unit)
            guard !overflow else { return nil }
            let (since, underflow) = now.subtractingReportingOverflow(age)
            return underflow ? nil : since
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
        guard var ms = midnight(year: year, month: month, day: day) else { return nil }
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
