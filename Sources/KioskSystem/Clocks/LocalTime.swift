import CardModel
import Glibc

/// The wall clock in the system's local time zone (`TZ`, else /etc/localtime), for schedules.
package enum LocalTime {
    /// The local civil time of Unix time `seconds` (`localtime_r`); nil only if glibc fails.
    package static func civil(epochSeconds seconds: Int64) -> CivilTime? {
        var t = time_t(seconds)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return nil }
        return CivilTime(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }

    /// The current local civil time.
    package static func now() -> CivilTime? {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return civil(epochSeconds: Int64(ts.tv_sec))
    }

    /// The first Unix time at which the local clock shows `civil` or later (`mktime`). A time
    /// in the hour a spring DST change skips (02:30 in Berlin on the last Sunday of March)
    /// gives the moment the clock jumps past it (03:00); a time an autumn change shows twice
    /// gives the first of the two.
    package static func epochSeconds(_ civil: CivilTime) -> Int64? {
        func make(_ c: CivilTime, isDST: Int32) -> (Int64, tm)? {
            var parts = tm()
            parts.tm_year = Int32(c.year - 1900)
            parts.tm_mon = Int32(c.month - 1)
            parts.tm_mday = Int32(c.day)
            parts.tm_hour = Int32(c.hour)
            parts.tm_min = Int32(c.minute)
            parts.tm_sec = Int32(c.second)
            parts.tm_isdst = isDST
            let t = mktime(&parts)
            return t == -1 && errno == EOVERFLOW ? nil : (Int64(t), parts)
        }
        // Both readings of the wall time; keep those that really show it, take the earliest.
        var candidates: [Int64] = []
        for dst: Int32 in [0, 1] {
            guard let (t, _) = make(civil, isDST: dst), let back = Self.civil(epochSeconds: t) else { continue }
            if back == civil { candidates.append(t) }
        }
        if let first = candidates.min() { return first }
        // Skipped by a spring change: the first second after the gap is the first time >= civil.
        guard let (guess, _) = make(civil, isDST: -1) else { return nil }
        var t = guess - 7200
        while let c = Self.civil(epochSeconds: t), c < civil, t < guess + 7200 { t += 60 }
        // Minute steps may land inside the gap's end minute; step back by seconds.
        while let c = Self.civil(epochSeconds: t - 1), !(c < civil) { t -= 1 }
        return t
    }
}
