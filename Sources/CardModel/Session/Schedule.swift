/// A local date and time as a wall clock shows it (no time zone: the app converts the system
/// clock with the system's zone, `KioskSystem/LocalTime`). Schedules are evaluated on these, so
/// a DST change moves nothing: "08:00" is 08:00 on the wall on both sides of it.
public struct CivilTime: Hashable, Sendable, Comparable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    public var date: CivilDate { CivilDate(year: year, month: month, day: day) }
    /// Minutes since midnight.
    public var minuteOfDay: Int { hour * 60 + minute }

    public static func < (a: CivilTime, b: CivilTime) -> Bool {
        (a.date, a.hour, a.minute, a.second) < (b.date, b.hour, b.minute, b.second)
    }
}

/// A calendar day (proleptic Gregorian).
public struct CivilDate: Hashable, Sendable, Comparable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public static func < (a: CivilDate, b: CivilDate) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    /// Whether the day exists (2026-02-30 does not).
    public var isValid: Bool { month >= 1 && month <= 12 && day >= 1 && day <= Self.days(inMonth: month, year: year) }

    public static func days(inMonth m: Int, year y: Int) -> Int {
        switch m {
        case 2: (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public init(daysSinceEpoch z0: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    public func adding(days: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + days) }

    public var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        let r = (daysSinceEpoch % 7 + 7 + 3) % 7  // 0 = Monday
        return Weekday.allCases[r]
    }
}

public enum Weekday: String, Hashable, Sendable, CaseIterable {
    case mon, tue, wed, thu, fri, sat, sun
}

/// When a kiosk is open: weekly windows (optionally within dates) and closed dates; outside
/// them the closed-hours screen shows, or the panel is off.
///
/// Pure: `state(at:)` and `nextChange(after:)` take the local civil time.
public struct Schedule: Hashable, Sendable {
    /// One opening: on `days` from `from` to `to` (minutes since midnight). `to` ≤ `from`
    /// spans midnight: the window opened on Friday 22:00 runs to Saturday `to`.
    public struct Window: Hashable, Sendable {
        public var days: Set<Weekday>
        public var from: Int
        public var to: Int
        /// Only within these dates (inclusive), nil: every week.
        public var dates: ClosedRange<CivilDate>?
        /// The deck shown in this window (the loader's resolved path); nil: the schedule's own deck.
        public var deck: String?

        public init(
            days: Set<Weekday> = Set(Weekday.allCases), from: Int, to: Int, dates: ClosedRange<CivilDate>? = nil,
            deck: String? = nil
        ) {
            self.days = days
            self.from = from
            self.to = to
            self.dates = dates
            self.deck = deck
        }

        public var spansMidnight: Bool { to <= from }

        /// Whether the window that opens on `day` covers minute `m` of `day` (`sameDay`) or
        /// minute `m` of the next day (the part after midnight).
        func opens(on day: CivilDate) -> Bool {
            days.contains(day.weekday) && (dates.map { $0.contains(day) } ?? true)
        }

        /// The minute ranges (as minutes from the start of `day`) this window covers when it
        /// opens on `day`; up to 2880 for one spanning midnight.
        func span(openingOn day: CivilDate) -> Range<Int>? {
            guard opens(on: day) else { return nil }
            return from..<(spansMidnight ? to + 1440 : to)
        }
    }

    public enum State: Hashable, Sendable {
        /// Open in window `window` (its index).
        case open(window: Int)
        case closed
    }

    public var windows: [Window]
    /// Days closed all day whatever the windows say (holidays).
    public var closedDates: Set<CivilDate>
    /// The closed-hours screen's text.
    public var closedText: String
    /// Switch the panel off while closed (else show `closedText`).
    public var blankWhenClosed: Bool
    /// A touch while closed and blanked lights the panel (the closed screen, until idle).
    public var wakeOnTouch: Bool

    public static let defaultClosedText = UIStrings.text(.closed, in: "de")

    public init(
        windows: [Window], closedDates: Set<CivilDate> = [], closedText: String = Schedule.defaultClosedText,
        blankWhenClosed: Bool = false, wakeOnTouch: Bool = true
    ) {
        self.windows = windows
        self.closedDates = closedDates
        self.closedText = closedText
        self.blankWhenClosed = blankWhenClosed
        self.wakeOnTouch = wakeOnTouch
    }

    /// Open or closed at local time `t`; with overlapping windows the first listed wins
    /// (`check-deck` refuses overlaps, so this only matters for a schedule not checked).
    public func state(at t: CivilTime) -> State {
        let m = t.minuteOfDay
        for (i, w) in windows.enumerated() {
            // Opened today, or opened yesterday and running past midnight.
            if !closedDates.contains(t.date), let s = w.span(openingOn: t.date), s.contains(m) {
                return .open(window: i)
            }
            let yesterday = t.date.adding(days: -1)
            if w.spansMidnight, !closedDates.contains(yesterday), let s = w.span(openingOn: yesterday),
                s.contains(m + 1440)
            {
                return .open(window: i)
            }
        }
        return .closed
    }

    /// The deck to show at local time `t`: the open window's `deck`; nil for the schedule's own
    /// deck (a window without one, or closed).
    public func deck(at t: CivilTime) -> String? {
        guard case .open(let i) = state(at: t) else { return nil }
        return windows[i].deck
    }

    /// The first minute after `t` at which `state` differs from `state(at: t)`, looking up to
    /// 8 days ahead; nil when it never changes (always open or always closed).
    public func nextChange(after t: CivilTime) -> CivilTime? {
        let now = state(at: t)
        // Boundaries are whole minutes: check every window edge in the coming days in order.
        var edges: [CivilTime] = []
        for offset in -1...8 {
            let day = t.date.adding(days: offset)
            for w in windows {
                for minute in [w.from, w.spansMidnight ? w.to + 1440 : w.to] {
                    let d = day.adding(days: minute / 1440)
                    edges.append(
                        CivilTime(
                            year: d.year, month: d.month, day: d.day, hour: minute % 1440 / 60, minute: minute % 60))
                }
            }
            // A closed date starts and ends at midnight.
            let mid = day.adding(days: 1)
            edges.append(CivilTime(year: mid.year, month: mid.month, day: mid.day))
        }
        for e in Set(edges).sorted() where e > t && state(at: e) != now { return e }
        return nil
    }

    /// Two windows open at the same time: indices and the days (of the week) where they meet.
    public struct Overlap: Hashable, Sendable {
        public var first: Int
        public var second: Int
        public var days: [Weekday]
    }

    /// Windows that are open at the same time on some day of the week (dated windows only
    /// when their dates overlap too); `check-deck` reports them.
    public func overlaps() -> [Overlap] {
        var out: [Overlap] = []
        for i in windows.indices {
            for j in windows.indices where j > i {
                let a = windows[i]
                let b = windows[j]
                if let da = a.dates, let db = b.dates, !da.overlaps(db) { continue }
                var days = Set<Int>()
                for ra in Self.weeklyMinutes(a) {
                    for rb in Self.weeklyMinutes(b) where ra.overlaps(rb) {
                        days.insert(max(ra.lowerBound, rb.lowerBound) / 1440)
                    }
                }
                if !days.isEmpty {
                    out.append(Overlap(first: i, second: j, days: days.sorted().map { Weekday.allCases[$0] }))
                }
            }
        }
        return out
    }

    /// The minutes of the week (Monday 00:00 = 0, wrapping) a window covers.
    static func weeklyMinutes(_ w: Window) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        for (d, day) in Weekday.allCases.enumerated() where w.days.contains(day) {
            let start = d * 1440 + w.from
            let end = d * 1440 + (w.spansMidnight ? w.to + 1440 : w.to)
            if end <= 7 * 1440 {
                ranges.append(start..<end)
            } else {
                ranges.append(start..<(7 * 1440))
                ranges.append(0..<(end - 7 * 1440))
            }
        }
        return ranges
    }
}

/// Which deck the kiosk shows as the schedule's windows change: a switch waits while a visit
/// is under way (call `update` again when it ends), so a visitor never sees the deck change
/// under their finger.
///
/// Pure: the app passes `Schedule.deck(at:)` and whether a visitor is busy.
public struct DeckRotation: Hashable, Sendable {
    public enum Decision: Hashable, Sendable {
        /// The deck shown is the one wanted.
        case keep
        /// A different deck is wanted, but a visit is under way.
        case wait(String?)
        /// Show this deck now (nil: the schedule's own).
        case switchTo(String?)
    }

    /// The deck shown (nil: the schedule's own).
    public private(set) var shown: String?

    public init(shown: String? = nil) { self.shown = shown }

    public mutating func update(wanted: String?, visitActive: Bool) -> Decision {
        if wanted == shown { return .keep }
        if visitActive { return .wait(wanted) }
        shown = wanted
        return .switchTo(wanted)
    }
}
