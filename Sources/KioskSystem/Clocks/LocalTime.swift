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
    package static func epochSeconds(_ civil: CivilTime) -> Int64? { readings(civil).min() }

    /// `epochSeconds(civil)`, or the second reading of a time an autumn change shows twice when
    /// the first is before `notBefore` (02:30 asked for at the second 02:00: the 02:30 still to
    /// come, not the one an hour ago). With no reading from `notBefore` on, the last one.
    package static func epochSeconds(_ civil: CivilTime, notBefore: Int64) -> Int64? {
        let all = readings(civil)
        return all.filter { $0 >= notBefore }.min() ?? all.max()
    }

    /// Every Unix time at which the local clock first shows `civil`: one, two in the hour an
    /// autumn change repeats, and for a time a spring change skips the moment the clock jumps
    /// past it.
    static func readings(_ civil: CivilTime) -> [Int64] {
        func make(_ c: CivilTime, isDST: Int32) -> Int64? {
            var parts = tm()
            parts.tm_year = Int32(c.year - 1900)
            parts.tm_mon = Int32(c.month - 1)
            parts.tm_mday = Int32(c.day)
            parts.tm_hour = Int32(c.hour)
            parts.tm_min = Int32(c.minute)
            parts.tm_sec = Int32(c.second)
            parts.tm_isdst = isDST
            let t = mktime(&parts)
            return t == -1 && errno == EOVERFLOW ? nil : Int64(t)
        }
        // Both readings of the wall time; keep those that really show it.
        var candidates: [Int64] = []
        for dst: Int32 in [0, 1] {
            guard let t = make(civil, isDST: dst), let back = Self.civil(epochSeconds: t) else { continue }
            if back == civil && !candidates.contains(t) { candidates.append(t) }
        }
        if !candidates.isEmpty { return candidates }
        // Skipped by a spring change: the first second after the gap is the first time >= civil.
        guard let guess = make(civil, isDST: -1) else { return [] }
        var t = guess - 7200
        while let c = Self.civil(epochSeconds: t), c < civil, t < guess + 7200 { t += 60 }
        // Minute steps may land inside the gap's end minute; step back by seconds.
        while let c = Self.civil(epochSeconds: t - 1), !(c < civil) { t -= 1 }
        return [t]
    }

    /// Unix time `seconds` as the local clock shows it, with the zone's abbreviation:
    /// "2026-03-29 03:00 CEST" (seconds only when not 0: "2026-03-29 01:59:59 CET").
    package static func describe(epochSeconds seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return "\(seconds) s since 1970" }
        var text = [CChar](repeating: 0, count: 80)
        let n = strftime(
            &text, text.count, parts.tm_sec == 0 ? "%04Y-%m-%d %H:%M %Z" : "%04Y-%m-%d %H:%M:%S %Z", &parts)
        guard n > 0 else { return "\(seconds) s since 1970" }
        return String(decoding: text[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
