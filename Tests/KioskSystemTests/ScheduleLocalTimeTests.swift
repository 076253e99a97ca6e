import CardModel
import Glibc
import Testing

@testable import KioskSystem

/// `KioskSystem/LocalTime` under TZ=Europe/Berlin (glibc's localtime_r/mktime with the real
/// tzdata), across both DST changes of 2026. Serialized: TZ is process-wide.
@Suite(.serialized) struct ScheduleLocalTimeTests {
    func withBerlin(_ body: () throws -> Void) rethrows {
        let old = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
        defer {
            if let old { setenv("TZ", old, 1) } else { unsetenv("TZ") }
            tzset()
        }
        try body()
    }

    func t(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> CivilTime {
        CivilTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    @Test func springForwardSkipsAnHour() {
        withBerlin {
            // 2026-03-29 01:00:00 UTC = 03:00 CEST; one second before is 01:59:59 CET.
            let jump: Int64 = 1_774_746_000
            #expect(LocalTime.civil(epochSeconds: jump - 1) == t(2026, 3, 29, 1, 59, 59))
            #expect(LocalTime.civil(epochSeconds: jump) == t(2026, 3, 29, 3, 0, 0))
            #expect(LocalTime.epochSeconds(t(2026, 3, 29, 3, 0)) == jump)
            #expect(LocalTime.epochSeconds(t(2026, 3, 29, 1, 0)) == jump - 3600)
            // 02:30 never shows: the first moment at or after it is the jump.
            #expect(LocalTime.epochSeconds(t(2026, 3, 29, 2, 30)) == jump)
            // A schedule boundary at 08:00 is 6 UTC hours after 01:00 UTC... i.e. 06:00 UTC.
            #expect(LocalTime.epochSeconds(t(2026, 3, 29, 8, 0)) == jump + 5 * 3600)
        }
    }

    @Test func fallBackShowsAnHourTwice() {
        withBerlin {
            // 2026-10-25 01:00:00 UTC = 02:00 CET (the second time); 00:00 UTC = 02:00 CEST (the first).
            let firstTwo: Int64 = 1_792_886_400
            #expect(LocalTime.civil(epochSeconds: firstTwo) == t(2026, 10, 25, 2, 0))
            #expect(LocalTime.civil(epochSeconds: firstTwo + 3600) == t(2026, 10, 25, 2, 0))
            #expect(LocalTime.civil(epochSeconds: firstTwo + 3599) == t(2026, 10, 25, 2, 59, 59))
            // The first of the two readings.
            #expect(LocalTime.epochSeconds(t(2026, 10, 25, 2, 30)) == firstTwo + 1800)
            #expect(LocalTime.epochSeconds(t(2026, 10, 25, 4, 0)) == firstTwo + 3 * 3600)
        }
    }

    @Test func aScheduleEvaluatedThroughTheSystemZone() throws {
        try withBerlin {
            let s = Schedule(windows: [.init(days: [.sun], from: 8 * 60, to: 18 * 60)])
            let spring: Int64 = 1_774_746_000  // 03:00 CEST
            let now = try #require(LocalTime.civil(epochSeconds: spring))
            #expect(s.state(at: now) == .closed)
            let open = try #require(s.nextChange(after: now))
            #expect(open == t(2026, 3, 29, 8, 0))
            // 5 real hours from 03:00 CEST, not 6 (the hour that was skipped is not waited for).
            #expect(try #require(LocalTime.epochSeconds(open)) - spring == 5 * 3600)
        }
    }
}
