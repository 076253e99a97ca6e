import Testing

@testable import CardModel

/// Opening hours on local civil times (the app converts the system clock; see
/// KioskSystemTests/ScheduleLocalTimeTests for the Europe/Berlin conversion).
@Suite struct ScheduleTests {
    func t(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> CivilTime {
        CivilTime(year: y, month: mo, day: d, hour: h, minute: mi)
    }

    let weekdays: Set<Weekday> = [.mon, .tue, .wed, .thu, .fri]

    @Test func calendarArithmeticKnowsWeekdaysAndLeapYears() {
        #expect(CivilDate(year: 2026, month: 12, day: 1).weekday == .tue)
        #expect(CivilDate(year: 1970, month: 1, day: 1).weekday == .thu)
        #expect(CivilDate(year: 2024, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2026, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2100, month: 2, day: 29).isValid)
        #expect(CivilDate(year: 2026, month: 12, day: 31).adding(days: 1) == CivilDate(year: 2027, month: 1, day: 1))
        #expect(CivilDate(year: 2024, month: 3, day: 1).adding(days: -1) == CivilDate(year: 2024, month: 2, day: 29))
        for z in [-800_000, -1, 0, 1, 20_000, 2_000_000] {
            #expect(CivilDate(daysSinceEpoch: z).daysSinceEpoch == z)
        }
    }

    @Test func weekdayWindowOpensAndClosesOnTheMinute() {
        let s = Schedule(windows: [.init(days: weekdays, from: 8 * 60, to: 18 * 60)])
        #expect(s.state(at: t(2026, 12, 1, 7, 59)) == .closed)  // Tuesday
        #expect(s.state(at: t(2026, 12, 1, 8, 0)) == .open(window: 0))
        #expect(s.state(at: t(2026, 12, 1, 17, 59)) == .open(window: 0))
        #expect(s.state(at: t(2026, 12, 1, 18, 0)) == .closed)
        #expect(s.state(at: t(2026, 12, 5, 12, 0)) == .closed)  // Saturday
        #expect(s.nextChange(after: t(2026, 12, 1, 7, 0)) == t(2026, 12, 1, 8, 0))
        #expect(s.nextChange(after: t(2026, 12, 1, 8, 0)) == t(2026, 12, 1, 18, 0))
        // Friday evening: the next opening is Monday morning.
        #expect(s.nextChange(after: t(2026, 12, 4, 18, 0)) == t(2026, 12, 7, 8, 0))
    }

    @Test func aWindowSpanningMidnightBelongsToTheDayItOpens() {
        // Friday and Saturday nights, 22:00 to 02:00.
        let s = Schedule(windows: [.init(days: [.fri, .sat], from: 22 * 60, to: 2 * 60)])
        #expect(s.state(at: t(2026, 12, 4, 21, 59)) == .closed)  // Fri
        #expect(s.state(at: t(2026, 12, 4, 23, 30)) == .open(window: 0))
        #expect(s.state(at: t(2026, 12, 5, 1, 59)) == .open(window: 0))  // Sat, from Friday's
        #expect(s.state(at: t(2026, 12, 5, 2, 0)) == .closed)
        #expect(s.state(at: t(2026, 12, 6, 1, 0)) == .open(window: 0))  // Sun, from Saturday's
        #expect(s.state(at: t(2026, 12, 7, 1, 0)) == .closed)  // Mon: Sunday has no window
        #expect(s.state(at: t(2026, 12, 4, 1, 0)) == .closed)  // Fri early: Thursday has none
        #expect(s.nextChange(after: t(2026, 12, 4, 23, 0)) == t(2026, 12, 5, 2, 0))
        // Across a month and year end.
        let nye = Schedule(windows: [.init(from: 20 * 60, to: 3 * 60)])
        #expect(nye.state(at: t(2027, 1, 1, 2, 30)) == .open(window: 0))
        #expect(nye.nextChange(after: t(2026, 12, 31, 21, 0)) == t(2027, 1, 1, 3, 0))
    }

    @Test func allDayWindowsAndAlwaysOpen() {
        let s = Schedule(windows: [.init(from: 0, to: 1440)])
        #expect(s.state(at: t(2026, 6, 1, 0, 0)) == .open(window: 0))
        #expect(s.state(at: t(2026, 6, 1, 23, 59)) == .open(window: 0))
        #expect(s.nextChange(after: t(2026, 6, 1, 12, 0)) == nil)
    }

    @Test func closedDatesAndDatedWindows() {
        let xmas = CivilDate(year: 2026, month: 12, day: 24)
        let s = Schedule(
            windows: [
                .init(
                    days: weekdays, from: 8 * 60, to: 18 * 60,
                    dates: CivilDate(year: 2026, month: 1, day: 1)...CivilDate(year: 2026, month: 12, day: 23)),
                .init(from: 9 * 60, to: 12 * 60, dates: xmas...xmas),
            ],
            closedDates: [CivilDate(year: 2026, month: 12, day: 8)])
        #expect(s.state(at: t(2026, 12, 8, 10, 0)) == .closed)  // a holiday (Tuesday)
        #expect(s.state(at: t(2026, 12, 9, 10, 0)) == .open(window: 0))
        #expect(s.state(at: t(2026, 12, 24, 8, 30)) == .closed)  // first window over
        #expect(s.state(at: t(2026, 12, 24, 9, 0)) == .open(window: 1))
        #expect(s.state(at: t(2026, 12, 28, 10, 0)) == .closed)  // after all dates
        #expect(s.nextChange(after: t(2026, 12, 7, 18, 0)) == t(2026, 12, 9, 8, 0))  // skips the holiday
    }

    @Test func civilTimesAcrossDSTChangesNeedNoSpecialCase() {
        // Berlin: 2026-03-29 02:00 → 03:00 (spring), 2026-10-25 03:00 → 02:00 (autumn). Both Sundays.
        let s = Schedule(windows: [
            .init(days: [.sun], from: 1 * 60, to: 4 * 60), .init(days: [.sun], from: 8 * 60, to: 18 * 60),
        ])
        // Spring: the wall clock goes 01:59 → 03:00; the window is still open at 03:00 and closes at 04:00.
        #expect(s.state(at: t(2026, 3, 29, 1, 59)) == .open(window: 0))
        #expect(s.state(at: t(2026, 3, 29, 3, 0)) == .open(window: 0))
        #expect(s.nextChange(after: t(2026, 3, 29, 3, 0)) == t(2026, 3, 29, 4, 0))
        #expect(s.nextChange(after: t(2026, 3, 29, 4, 0)) == t(2026, 3, 29, 8, 0))
        // Autumn: 02:30 happens twice; both readings are inside the window.
        #expect(s.state(at: t(2026, 10, 25, 2, 30)) == .open(window: 0))
        #expect(s.nextChange(after: t(2026, 10, 25, 2, 30)) == t(2026, 10, 25, 4, 0))
        #expect(s.state(at: t(2026, 10, 25, 8, 0)) == .open(window: 1))
    }

    /// A wall clock set forward (NTP's first step after boot on a Pi without RTC, `date -s`)
    /// is judged by the new time alone: nothing is remembered from before the step, a boundary
    /// stepped over is not waited for, and the next change is counted from the new second.
    @Test func aClockSetForwardIsJudgedByTheNewTimeAlone() {
        let s = Schedule(windows: [.init(days: weekdays, from: 8 * 60, to: 18 * 60)])
        var before = t(2026, 12, 1, 7, 59)  // Tuesday, closed, opening in 3 s
        before.second = 57
        #expect(s.state(at: before) == .closed)
        #expect(s.nextChange(after: before) == t(2026, 12, 1, 8, 0))
        // Stepped into the window: open, closing at 18:00.
        #expect(s.state(at: t(2026, 12, 1, 9, 30)) == .open(window: 0))
        #expect(s.nextChange(after: t(2026, 12, 1, 9, 30)) == t(2026, 12, 1, 18, 0))
        // Stepped over the whole window: closed, and the next change is Wednesday's opening.
        #expect(s.state(at: t(2026, 12, 1, 19, 0)) == .closed)
        #expect(s.nextChange(after: t(2026, 12, 1, 19, 0)) == t(2026, 12, 2, 8, 0))
        // A boot at the last shutdown's time (Friday night) stepped to Monday noon by NTP.
        #expect(s.state(at: t(2026, 12, 4, 23, 0)) == .closed)
        #expect(s.state(at: t(2026, 12, 7, 12, 0)) == .open(window: 0))
        // The hours follow what the new time says: closed and dark, then open at once.
        var h = OpeningHours(blankWhenClosed: true, wakeOnTouch: false)
        #expect(h.update(open: false, visitActive: false, at: .seconds(0)) == [.close(blank: true)])
        #expect(h.update(open: true, visitActive: false, at: .seconds(0.001)) == [.open])
        #expect(!h.isClosed && !h.isDark)
    }

    @Test func overlapsAreFoundWithTheirDays() {
        let s = Schedule(windows: [
            .init(days: weekdays, from: 8 * 60, to: 18 * 60),
            .init(days: [.fri, .sat], from: 17 * 60, to: 1 * 60),  // meets Friday 17-18
            .init(days: [.sun], from: 0, to: 2 * 60),  // meets Saturday's night window on Sunday
            .init(days: [.sat], from: 9 * 60, to: 12 * 60),  // alone
        ])
        let o = s.overlaps()
        #expect(
            o == [
                Schedule.Overlap(first: 0, second: 1, days: [.fri]),
                Schedule.Overlap(first: 1, second: 2, days: [.sun]),
            ])
        // Back to back is no overlap; nor are windows in different date ranges.
        let d1 = CivilDate(year: 2026, month: 1, day: 1)
        let d2 = CivilDate(year: 2026, month: 6, day: 1)
        let ok = Schedule(windows: [
            .init(from: 8 * 60, to: 12 * 60), .init(from: 12 * 60, to: 14 * 60),
            .init(from: 15 * 60, to: 16 * 60, dates: d1...d1), .init(from: 15 * 60, to: 16 * 60, dates: d2...d2),
        ])
        #expect(ok.overlaps().isEmpty)
        // Sunday night into Monday wraps the week.
        let wrap = Schedule(windows: [
            .init(days: [.sun], from: 23 * 60, to: 1 * 60), .init(days: [.mon], from: 0, to: 60),
        ])
        #expect(wrap.overlaps() == [Schedule.Overlap(first: 0, second: 1, days: [.mon])])
    }

    @Test func overlappingWindowsResolveToTheFirstListed() {
        let s = Schedule(windows: [.init(from: 8 * 60, to: 12 * 60), .init(from: 10 * 60, to: 14 * 60)])
        #expect(s.state(at: t(2026, 1, 1, 11, 0)) == .open(window: 0))
        #expect(s.state(at: t(2026, 1, 1, 13, 0)) == .open(window: 1))
        #expect(s.nextChange(after: t(2026, 1, 1, 11, 0)) == t(2026, 1, 1, 12, 0))
    }
}

@Suite struct OpeningHoursTests {
    @Test func closingWaitsForTheVisitToEnd() {
        var h = OpeningHours(blankWhenClosed: false, wakeOnTouch: true)
        #expect(h.update(open: true, visitActive: false, at: .seconds(0)).isEmpty)
        #expect(h.update(open: false, visitActive: true, at: .seconds(10)).isEmpty)  // a visitor is busy
        #expect(!h.isClosed)
        #expect(h.update(open: false, visitActive: false, at: .seconds(70)) == [.close(blank: false)])
        #expect(h.isClosed && !h.isDark)
        // Touches on the closed screen are taken and do nothing.
        let r = h.touch(at: .seconds(80))
        #expect(r.swallow && r.effects.isEmpty)
        #expect(h.update(open: true, visitActive: false, at: .seconds(100)) == [.open])
        #expect(!h.touch(at: .seconds(101)).swallow)
    }

    @Test func blankedClosedHoursWakeOnTouchAndGoDarkAgain() {
        var h = OpeningHours(blankWhenClosed: true, wakeOnTouch: true, wakeSeconds: 30)
        #expect(h.update(open: false, visitActive: false, at: .seconds(0)) == [.close(blank: true)])
        #expect(h.isDark)
        #expect(h.nextDeadline == nil)
        let wake = h.touch(at: .seconds(5))
        #expect(wake.swallow && wake.effects == [.wake])
        #expect(h.nextDeadline == .seconds(35))
        #expect(h.touch(at: .seconds(20)).effects.isEmpty)  // keeps it lit
        #expect(h.advance(to: .seconds(35)).isEmpty)
        #expect(h.advance(to: .seconds(50)) == [.blank])
        #expect(h.isDark)
        #expect(h.update(open: true, visitActive: false, at: .seconds(60)) == [.open])
        #expect(!h.isDark)
    }

    @Test func withoutWakeOnTouchTheTouchStaysDark() {
        var h = OpeningHours(blankWhenClosed: true, wakeOnTouch: false)
        _ = h.update(open: false, visitActive: false, at: .seconds(0))
        let r = h.touch(at: .seconds(1))
        #expect(r.swallow && r.effects.isEmpty)
        #expect(h.isDark)
    }

    @Test func closedSceneShowsTheText() {
        let s = OpeningHours.closedScene(text: "Ab 8 Uhr", screen: Size(width: 800, height: 480))
        #expect(s.elements.map(\.kind) == [.notice(text: "Ab 8 Uhr")])
    }
}
