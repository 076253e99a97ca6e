import CardModel
import KioskSystem

/// The schedule on the wall clock: the local civil time (`LocalTime`, the system time zone)
/// turned into what the kiosk's rules take (`KioskInput.schedule`): open or closed, the deck the
/// open window names, and when to look again.
enum ScheduleClock {
    /// The longest wait between two looks: the wall clock can be set or jump.
    static let recheckSeconds = 600.0

    /// A set wall clock (NTP's first step after boot, `date -s`) moves the schedule's
    /// boundaries: `lookAgain` runs at once; without the watch (nil), a step reaches the schedule
    /// within `recheckSeconds`.
    static func watchSteps(loop: EventLoop, lookAgain: @escaping () -> Void) -> WallClockSteps? {
        do {
            return try WallClockSteps(loop: loop) { step in
                Log.info(
                    "clock: the wall clock was set (\(WallClockSteps.describe(step))); looking at the schedule again")
                lookAgain()
            }
        } catch {
            Log.warning("clock: \(error); a wall-clock step reaches the schedule within \(Int(recheckSeconds)) s")
            return nil
        }
    }

    /// The schedule's state now (`now` on the monotonic clock); with no schedule, always open.
    static func look(at schedule: Schedule?, now: Instant) -> KioskInput {
        guard let schedule else { return .schedule(open: true, window: nil, lookAgainAt: nil) }
        let civil = LocalTime.now()
        let nowMs = WallClock.nowMilliseconds()
        var wait = recheckSeconds
        if let civil, let next = schedule.nextChange(after: civil),
            let at = LocalTime.epochSeconds(next, notBefore: nowMs / 1000)
        {
            // A quarter second past the boundary, so the look lands on the new side of it.
            wait = min(wait, max(0.5, Double(at) - Double(nowMs) / 1000 + 0.25))
        }
        return .schedule(
            open: civil.map { schedule.state(at: $0) != .closed } ?? true,
            window: civil.flatMap { schedule.deck(at: $0) },
            lookAgainAt: now.advanced(bySeconds: wait))
    }

    /// For the heartbeat: whether `schedule` has the kiosk closed now and, if so, when it opens
    /// (wall clock, ms; nil: not within the schedule's look-ahead). (nil, nil) with no schedule.
    static func closedUntil(_ schedule: Schedule?) -> (closed: Bool?, opensAtMs: Int64?) {
        guard let schedule, let civil = LocalTime.now() else { return (nil, nil) }
        guard schedule.state(at: civil) == .closed else { return (false, nil) }
        let now = WallClock.nowMilliseconds() / 1000
        let opens = schedule.nextChange(after: civil).flatMap { LocalTime.epochSeconds($0, notBefore: now) }
        return (true, opens.map { $0 * 1000 })
    }
}
