import Glibc
import KioskTestSupport
import Testing

/// The schedule on the local clock (`KioskSystem/LocalTime`: glibc's localtime_r and mktime with
/// the real tzdata) across both DST changes of 2026 in Europe/Berlin, through `check-deck --at`
/// run with TZ=Europe/Berlin in its own environment. The expected moments are the changes' own:
/// 2026-03-29 01:00 UTC (02:00 CET becomes 03:00 CEST) and 2026-10-25 01:00 UTC (03:00 CEST
/// becomes 02:00 CET). The test process's zone and environment stay as they are: other tests
/// spawn children and read TZ meanwhile.
@Suite struct ScheduleLocalTimeTests {
    /// check-deck's schedule line for a deck whose schedule opens `windows` (JSON), at `time`.
    func line(_ windows: String, at time: String) throws -> String {
        let dir = DeckFixtures.temporaryDirectory("schedule-tz")
        defer { DeckFixtures.removeTree(dir) }
        DeckFixtures.write(
            """
            {"id": "s", "version": 1, "title": "S", "layout": "stack",
             "schedule": {"open": [\(windows)]},
             "cards": [{"id": "a", "title": "A", "theme": "sky"}]}
            """, to: dir + "/d.json")
        let result = try #require(
            StoreTestSupport.run(["check-deck", "--at", time, dir + "/d.json"], environment: ["TZ=Europe/Berlin"]))
        let stdout = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "check-deck: \(stdout)")
        let lines = stdout.split(separator: "\n").map(String.init).filter { $0.contains(": schedule at ") }
        try #require(lines.count == 1, "no schedule line in: \(stdout)")
        return String(lines[0].split(separator: ": ", maxSplits: 1)[1])
    }

    /// Each case's schedule line: (the moment, the line check-deck prints for it).
    func expect(_ windows: String, _ cases: [(at: String, line: String)]) throws {
        for c in cases { #expect(try line(windows, at: c.at) == c.line, "at \(c.at)") }
    }

    /// Around 2026-03-29 in Berlin: a window 00:30–01:00 and one from 02:30, a time the change
    /// skips, to 08:00.
    static let spring =
        #"{"days": ["sun"], "from": "00:30", "to": "01:00"}, {"days": ["sun"], "from": "02:30", "to": "08:00"}"#

    @Test func springForwardSkipsAnHour() throws {
        try expect(
            Self.spring,
            [
                // 00:45 CET; the window closes at 01:00 CET, midnight UTC.
                (
                    "2026-03-28T23:45Z",
                    "schedule at 2026-03-29 00:45 CET (2026-03-28T23:45:00.000Z): open (window 0); "
                        + "closes 2026-03-29 01:00 CET (2026-03-29T00:00:00.000Z)"
                ),
                // One second before the change; 02:30 never shows, so the window opens when
                // the clock jumps to 03:00 CEST.
                (
                    "2026-03-29T00:59:59Z",
                    "schedule at 2026-03-29 01:59:59 CET (2026-03-29T00:59:59.000Z): closed; "
                        + "opens 2026-03-29 03:00 CEST (2026-03-29T01:00:00.000Z)"
                ),
                // At the change: open, and 08:00 CEST is 5 real hours away, not 6.
                (
                    "2026-03-29T01:00Z",
                    "schedule at 2026-03-29 03:00 CEST (2026-03-29T01:00:00.000Z): open (window 1); "
                        + "closes 2026-03-29 08:00 CEST (2026-03-29T06:00:00.000Z)"
                ),
            ])
    }

    /// On 2026-10-25 in Berlin the clock shows 02:00–02:59 twice; a window 02:30–04:00.
    static let autumn = #"{"days": ["sun"], "from": "02:30", "to": "04:00"}"#

    @Test func fallBackShowsAnHourTwice() throws {
        try expect(
            Self.autumn,
            [
                // The first 02:00 (summer time): the window opens at the first 02:30.
                (
                    "2026-10-25T00:00Z",
                    "schedule at 2026-10-25 02:00 CEST (2026-10-25T00:00:00.000Z): closed; "
                        + "opens 2026-10-25 02:30 CEST (2026-10-25T00:30:00.000Z)"
                ),
                // The last second of summer time: open, until 04:00 CET, three real hours
                // after the first 02:00.
                (
                    "2026-10-25T00:59:59Z",
                    "schedule at 2026-10-25 02:59:59 CEST (2026-10-25T00:59:59.000Z): open (window 0); "
                        + "closes 2026-10-25 04:00 CET (2026-10-25T03:00:00.000Z)"
                ),
                // The second 02:00 (winter time): the wall clock is before 02:30 again, and the
                // 02:30 still to come is the second one, not the one an hour ago (which the app
                // would wait for by looking again every half second).
                (
                    "2026-10-25T01:00Z",
                    "schedule at 2026-10-25 02:00 CET (2026-10-25T01:00:00.000Z): closed; "
                        + "opens 2026-10-25 02:30 CET (2026-10-25T01:30:00.000Z)"
                ),
            ])
    }
}
