import CardModel
import KioskDeckFiles
import KioskSystem

/// The deck's opening hours in the running kiosk: the schedule is evaluated on the local civil
/// time (`LocalTime`, the system time zone) whenever a boundary may have passed, when a visit
/// ends and when the deck file changes; `OpeningHours` decides what to do.
extension KioskApp {
    /// The longest wait between two looks at the clock: the wall clock can be set or jump.
    static let scheduleRecheckSeconds = 600.0

    /// A set wall clock (NTP's first step after boot, `date -s`, a resume) moves the schedule's
    /// boundaries against the monotonic timer that waits for the next one: look again at once.
    /// Without the watch a step is noticed at the next look, within `scheduleRecheckSeconds`.
    func watchClockSteps() {
        guard clockSteps == nil else { return }
        do {
            clockSteps = try WallClockSteps(loop: loop) { [unowned self] step in
                Log.info(
                    "clock: the wall clock was set (\(WallClockSteps.describe(step))); looking at the schedule again")
                self.checkSchedule()
            }
        } catch {
            Log.warning(
                "clock: \(error); a wall-clock step reaches the schedule within \(Int(Self.scheduleRecheckSeconds)) s")
        }
    }

    /// Looks at the schedule now and applies what changed; schedules the next look.
    func checkSchedule() {
        if let scheduleTimer { loop.cancelTimer(scheduleTimer) }
        scheduleTimer = nil
        let now = MonotonicClock.now()
        guard let schedule = primaryDeck.schedule else {
            if hours?.isClosed == true { applyHours([.open], at: now) }
            hours = nil
            rotate(to: nil)
            return
        }
        var h = hours ?? OpeningHours(blankWhenClosed: schedule.blankWhenClosed, wakeOnTouch: schedule.wakeOnTouch)
        h.blankWhenClosed = schedule.blankWhenClosed
        h.wakeOnTouch = schedule.wakeOnTouch
        let civil = LocalTime.now()
        let open = civil.map { schedule.state(at: $0) != .closed } ?? true
        let busy = session.phase == .active
        if open { rotate(to: civil.flatMap { schedule.deck(at: $0) }) }
        let effects = h.update(open: open, visitActive: busy, at: now)
        hours = h
        applyHours(effects, at: now)
        if !open && busy && !h.isClosed {
            Log.info("schedule: closing time; waiting for the visitor to finish")
        }
        var wait = Self.scheduleRecheckSeconds
        if let civil, let next = schedule.nextChange(after: civil), let at = LocalTime.epochSeconds(next) {
            let nowEpoch = Double(WallClock.nowMilliseconds()) / 1000
            wait = min(wait, max(0.5, Double(at) - nowEpoch + 0.25))
        }
        var deadline = now.advanced(bySeconds: wait)
        if let lit = h.nextDeadline { deadline = min(deadline, lit) }
        scheduleTimer = loop.schedule(at: deadline) { [unowned self] in
            self.scheduleTimer = nil
            if var h = self.hours {
                let t = MonotonicClock.now()
                let e = h.advance(to: t)
                self.hours = h
                self.applyHours(e, at: t)
            }
            self.checkSchedule()
        }
    }

    /// Shows the deck the open window names (`wanted`, nil: the primary deck) — when no visit is
    /// under way; otherwise the visit's end (`.reset`) looks again. A named deck is read off the
    /// loop and shown when it arrives (or at the end of a visit that began meanwhile).
    func rotate(to wanted: String?) {
        let busy = session.phase == .active
        switch rotation.update(wanted: wanted, visitActive: busy) {
        case .keep: break
        case .wait(let path):
            if readyDeck == nil {
                Log.info("schedule: next window shows \(path ?? primaryDeck.path); waiting for the visitor to finish")
            }
        case .switchTo(nil):
            readyDeck = nil
            Log.info("schedule: window without a deck of its own, showing \(primaryDeck.summary)")
            show(primaryDeck)
        case .switchTo(let path?):
            readyDeck = nil
            let loads =
                deckLoads
                ?? LoopDelivery(loop: loop, what: "scheduled deck") { [unowned self] done in self.deckLoaded(done) }
            deckLoads = loads
            Log.info("schedule: window for \(path), reading it")
            loads.run("deck-load") { (path, DeckLoader.load(path: path)) }
        }
    }

    /// Reads the deck file the kiosk runs again, on a worker (the staff menu's reload).
    func reloadPrimaryDeck() {
        let loads =
            primaryLoads
            ?? LoopDelivery(loop: loop, what: "deck reload") { [unowned self] result in
                switch result {
                case .success(let file): self.deckChanged(file)
                case .failure(let problems):
                    Log.error("staff: the deck file has problems, kept the old one\n\(problems)")
                }
            }
        primaryLoads = loads
        let path = primaryDeck.path
        loads.run("deck-load") { DeckLoader.load(path: path) }
    }

    /// Reads the window's deck on screen again (the staff menu's reload); nothing without one.
    func reloadWindowDeck() {
        guard let path = rotation.shown, let loads = deckLoads else { return }
        Log.info("schedule: reading the window's deck \(path) again")
        loads.run("deck-load") { (path, DeckLoader.load(path: path)) }
    }

    /// A window's deck, read: shown now, or at the end of the visit that began while it was read.
    private func deckLoaded(_ done: (path: String, result: Result<DeckFile, DeckProblems>)) {
        guard rotation.shown == done.path else { return }  // another window came meanwhile
        switch done.result {
        case .success(let file):
            if session.phase == .active {
                readyDeck = file
                Log.info("schedule: \(file.summary) ready; waiting for the visitor to finish")
            } else {
                Log.info("schedule: switching to \(file.summary)")
                show(file)
            }
        case .failure(let problems):
            Log.error("schedule: the window's deck cannot be shown, kept \(deckFile.summary)\n\(problems)")
        }
    }

    /// While closed every touch is the closed screen's: it may wake the panel, it decides nothing.
    /// Returns true when the frame was taken.
    func closedHoursTake(_ frame: TouchFrame) -> Bool {
        guard var h = hours, h.isClosed else { return false }
        // The session still follows fingers and its own blank timeout: a panel it switched
        // off comes back on for the closed screen.
        let (_, sessionEffects) = session.handle(frame)
        apply(sessionEffects, at: frame.time)
        if frame.contacts.contains(where: { $0.phase == .began }) {
            let (_, effects) = h.touch(at: frame.time)
            hours = h
            applyHours(effects, at: frame.time)
            rescheduleScheduleTimerSoon()
        }
        return true
    }

    func closedHoursTakeKey(at time: Instant) -> Bool {
        guard var h = hours, h.isClosed else { return false }
        apply(session.handleKey(at: time).effects, at: time)
        let (_, effects) = h.touch(at: time)
        hours = h
        applyHours(effects, at: time)
        rescheduleScheduleTimerSoon()
        return true
    }

    /// A touch moved the woken closed screen's dark time: look again then.
    private func rescheduleScheduleTimerSoon() { checkSchedule() }

    func applyHours(_ effects: [OpeningHours.Effect], at time: Instant) {
        for effect in effects {
            switch effect {
            case .close(let blank):
                Log.info("schedule: closed — \(blank ? "switching the panel off" : "showing the closed-hours screen")")
                if blank { display.setPower(on: false) }
                redrawAll()
            case .open:
                Log.info("schedule: open — \(deckFile.summary)")
                display.setPower(on: true)
                startVisit(at: time)
                redrawAll()
            case .wake:
                Log.info("schedule: touch while closed, showing the closed-hours screen")
                display.setPower(on: true)
                redrawAll()
            case .blank:
                Log.info("schedule: closed screen left alone, switching the panel off")
                display.setPower(on: false)
            }
        }
    }
}
