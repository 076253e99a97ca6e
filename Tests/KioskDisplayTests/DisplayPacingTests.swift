import CardModel
import Testing

@testable import KioskDisplay

@Suite struct DisplayPacingTests {
    static let period: Int64 = 16_666_667
    static func ms(_ v: Double) -> Instant { .milliseconds(v) }

    @Test func vblankDriverFlipsOnEachEvent() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .vblank)
        #expect(p.decision(now: Self.ms(0)) == .now)
        p.flipIssued(at: Self.ms(0))
        #expect(p.decision(now: Self.ms(5)) == .waitForFlip, "at most one flip in flight")
        // The flip waited for the vblank at 16.7 ms; the next may go at once.
        p.flipCompleted(timestamp: Self.ms(16.7))
        #expect(p.decision(now: Self.ms(17)) == .now)
        #expect(p.kind == .vblank)
    }

    @Test func immediateFlipsArePacedByTimer() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .immediate)
        p.flipIssued(at: Self.ms(100))
        p.flipCompleted(timestamp: Self.ms(100.3))
        // Not before one period after the last flip; never "now" in a loop (no spinning).
        let next = Instant(nanoseconds: Self.ms(100.3).nanoseconds + Self.period)
        #expect(p.decision(now: Self.ms(101)) == .at(next))
        #expect(p.decision(now: Self.ms(116)) == .at(next))
        #expect(p.decision(now: next) == .now)
        // After an idle pause the first frame goes at once.
        #expect(p.decision(now: Self.ms(5000)) == .now)
    }

    @Test func detectsImmediateFlipsFromTimingAndSwitchesBack() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .vblank)
        var t = 0.0
        for i in 0..<FramePacer.streakToSwitch {
            #expect(p.kind == .vblank, "switched after only \(i) quick flips")
            p.flipIssued(at: Self.ms(t))
            p.flipCompleted(timestamp: Self.ms(t + 0.2))
            t += 3
        }
        #expect(p.kind == .immediate)
        guard case .at = p.decision(now: Self.ms(t)) else {
            Issue.record("immediate flips must wait for the period")
            return
        }
        // Flips that wait most of a period again: a real vblank after all.
        for _ in 0..<FramePacer.streakToSwitch {
            p.flipIssued(at: Self.ms(t))
            p.flipCompleted(timestamp: Self.ms(t + 15))
            t += 17
        }
        #expect(p.kind == .vblank)
    }

    @Test func driverWithoutVblankStaysTimerPacedWhenFlipsAreSlow() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .vblank, mayHaveVblank: false)
        #expect(p.kind == .immediate)
        var t = 0.0
        for _ in 0..<(2 * FramePacer.streakToSwitch) {
            p.flipIssued(at: Self.ms(t))
            p.flipCompleted(timestamp: Self.ms(t + 12))  // a loaded virtual machine
            t += 30
        }
        #expect(p.kind == .immediate)
    }

    @Test func oneRandomQuickFlipDoesNotSwitch() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .vblank)
        let latencies = [1.0, 14, 0.5, 15, 2, 16]  // quick ones never three in a row
        var t = 0.0
        for latency in latencies {
            p.flipIssued(at: Self.ms(t))
            p.flipCompleted(timestamp: Self.ms(t + latency))
            #expect(p.kind == .vblank)
            t += 20
        }
    }

    @Test func watchdogGivesUpALostFlip() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .vblank, watchdogNanoseconds: 1_000_000_000)
        #expect(p.watchdogDeadline == nil)
        p.flipIssued(at: Self.ms(10))
        #expect(p.watchdogDeadline == Self.ms(1010))
        #expect(p.decision(now: Self.ms(900)) == .waitForFlip)
        p.flipLost(now: Self.ms(1010))
        #expect(!p.isFlipPending && p.watchdogDeadline == nil)
        #expect(p.decision(now: Self.ms(1011)) == .now)
        // A late event for the lost flip changes nothing.
        p.flipCompleted(timestamp: Self.ms(1012))
        #expect(p.lastFlip == Self.ms(1010))
    }

    @Test func timestampGoingBackwardsDoesNotStall() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .immediate)
        p.flipIssued(at: Self.ms(1000))
        p.flipCompleted(timestamp: Self.ms(1000.1))
        p.flipIssued(at: Self.ms(1020))
        p.flipCompleted(timestamp: Self.ms(3))  // e.g. a realtime-clock timestamp
        #expect(p.lastFlip == Self.ms(1020))
    }
}

@Suite struct DisplayPacingLateFrameTests {
    static let period: Int64 = 16_666_667

    /// A frame that takes most of a period to draw (or longer: a slow board, the emulated VM
    /// running vkms) is issued just before the next vblank, so its flip completes a millisecond or
    /// two after it was issued — yet on the vblank grid, a whole number of periods after the
    /// previous flip. That is no evidence of flips completing at once: pacing must stay on flip
    /// events. (Switching to the timer here waits a period after each vblank before drawing, which
    /// costs a whole period per frame: 30 instead of 60 Hz for quick frames.)
    @Test(arguments: [15.0, 15.5, 16.0, 31.0, 32.5])
    func lateFramesOnAVblankDriverStayVblankPaced(drawMilliseconds: Double) {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .vblank)
        p.flipIssued(at: Instant(nanoseconds: 0))
        var vblank = Self.period
        p.flipCompleted(timestamp: Instant(nanoseconds: vblank))
        for frame in 0..<(4 * FramePacer.streakToSwitch) {
            let issued = vblank + Int64(drawMilliseconds * 1e6)
            #expect(p.decision(now: Instant(nanoseconds: issued)) == .now, "frame \(frame)")
            p.flipIssued(at: Instant(nanoseconds: issued))
            // The first vblank after the flip was issued.
            vblank += ((issued - vblank) / Self.period + 1) * Self.period
            p.flipCompleted(timestamp: Instant(nanoseconds: vblank))
            #expect(p.kind == .vblank, "switched to timer pacing after frame \(frame)")
        }
    }

    /// Flips that complete sooner after the previous one than a vblank could follow it are
    /// proof: the driver does not wait. Frames drawn quickly on such a driver switch to the timer.
    @Test func flipsFasterThanTheRefreshSwitchToTimerPacing() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .vblank)
        var t: Int64 = 0
        for _ in 0..<(FramePacer.streakToSwitch + 1) {
            p.flipIssued(at: Instant(nanoseconds: t))
            p.flipCompleted(timestamp: Instant(nanoseconds: t + 300_000))
            t += 5_000_000  // the next frame 5 ms later: 200 flips a second unless paced
        }
        #expect(p.kind == .immediate)
    }
}

/// Latching late: with vblank, the pacer starts a frame just early enough before the next
/// vblank for the longest recent frame (plus a margin), so the frame shows the newest touch.
@Suite struct DisplayPacingLatchTests {
    static let period: Int64 = 16_666_667
    static func ns(_ v: Int64) -> Instant { Instant(nanoseconds: v) }

    /// A pacer that drew `count` frames costing `cost` each, every one right after a flip on the
    /// vblank grid, the last flip at `count` periods.
    static func pacer(frames count: Int, cost: Int64) -> FramePacer {
        var p = FramePacer(periodNanoseconds: period, kind: .vblank)
        for i in 0..<count {
            let start = Int64(i) * period + 500_000
            p.flipIssued(at: ns(start + cost), frameStarted: ns(start))
            p.flipCompleted(timestamp: ns(Int64(i + 1) * period))
        }
        return p
    }

    @Test func drawsAtOnceUntilFrameCostsAreKnown() {
        let p = Self.pacer(frames: FramePacer.costsToLatch - 1, cost: 2_000_000)
        #expect(p.latchBudgetNanoseconds == nil)
        #expect(p.frameDecision(now: Self.ns(3 * Self.period + 100_000)) == .now)
    }

    @Test func latchesBeforeTheNextVblankByTheLongestRecentFramePlusTheMargin() {
        let p = Self.pacer(frames: 10, cost: 3_000_000)
        let margin = FramePacer.baseMargin(period: Self.period)
        #expect(p.latchBudgetNanoseconds == 3_000_000 + margin)
        // Just after the flip at 10 periods: wait until the budget before the vblank at 11.
        let latch = Self.ns(11 * Self.period - 3_000_000 - margin)
        #expect(p.frameDecision(now: Self.ns(10 * Self.period + 200_000)) == .at(latch))
        // Flips themselves are never held back: a frame ready now may flip now.
        #expect(p.decision(now: Self.ns(10 * Self.period + 200_000)) == .now)
        // Past the latch point: draw at once.
        #expect(p.frameDecision(now: latch) == .now)
        #expect(p.frameDecision(now: Self.ns(11 * Self.period - 1_000_000)) == .now)
        // A request a few periods later, still on the grid: the vblank after it.
        let later = Self.ns(13 * Self.period + 1_000_000)
        #expect(p.frameDecision(now: later) == .at(Self.ns(14 * Self.period - 3_000_000 - margin)))
    }

    @Test func oneLongFrameWidensTheBudgetUntilItIsOutOfTheWindow() {
        var p = Self.pacer(frames: 10, cost: 2_000_000)
        let margin = FramePacer.baseMargin(period: Self.period)
        var t = 10 * Self.period
        func frame(cost: Int64) {
            p.flipIssued(at: Self.ns(t + 500_000 + cost), frameStarted: Self.ns(t + 500_000))
            t += Self.period
            p.flipCompleted(timestamp: Self.ns(t))
        }
        frame(cost: 9_000_000)  // a card drawn for the first time
        #expect(p.latchBudgetNanoseconds == 9_000_000 + margin)
        for _ in 0..<(FramePacer.costsKept - 1) { frame(cost: 2_000_000) }
        #expect(p.latchBudgetNanoseconds == 9_000_000 + margin, "still in the last \(FramePacer.costsKept)")
        frame(cost: 2_000_000)
        #expect(p.latchBudgetNanoseconds == 2_000_000 + margin)
    }

    @Test func framesThatTakeMostOfAPeriodAreDrawnAtOnce() {
        let p = Self.pacer(frames: 10, cost: 15_000_000)
        #expect(p.latchPoint(after: Self.ns(10 * Self.period + 100_000)) == nil)
        #expect(p.frameDecision(now: Self.ns(10 * Self.period + 100_000)) == .now)
    }

    @Test func noLatchingOnAStaleGridOrWhileAFlipIsInFlight() {
        var p = Self.pacer(frames: 10, cost: 2_000_000)
        let idle = Self.ns(10 * Self.period + FramePacer.gridHorizonNanoseconds + 1)
        #expect(p.frameDecision(now: idle) == .now, "after an idle second the grid is not trusted")
        p.flipIssued(at: Self.ns(10 * Self.period + 1_000_000))
        #expect(p.frameDecision(now: Self.ns(10 * Self.period + 2_000_000)) == .waitForFlip)
    }

    @Test func timerPacedDriversAreNotLatched() {
        var p = FramePacer(periodNanoseconds: Self.period, kind: .immediate)
        var t: Int64 = 0
        for _ in 0..<10 {
            p.flipIssued(at: Self.ns(t + 1_000_000), frameStarted: Self.ns(t))
            p.flipCompleted(timestamp: Self.ns(t + 1_100_000))
            t += Self.period
        }
        let now = Self.ns(t - Self.period + 2_000_000)
        #expect(p.frameDecision(now: now) == p.decision(now: now))
    }

    @Test func aFrameIssuedInTimeThatMissedItsVblankWidensTheMarginAndOnTimeFramesNarrowIt() {
        var p = Self.pacer(frames: 10, cost: 2_000_000)
        let base = FramePacer.baseMargin(period: Self.period)
        #expect(p.marginNanoseconds == base && p.lateFlips == 0)
        // Issued 1 ms before the vblank at 11 periods, yet shown at 12: the driver needed longer.
        p.flipIssued(at: Self.ns(11 * Self.period - 1_000_000), frameStarted: Self.ns(11 * Self.period - 3_000_000))
        p.flipCompleted(timestamp: Self.ns(12 * Self.period))
        #expect(p.lateFlips == 1)
        #expect(p.marginNanoseconds == base + Self.period / 8)
        // A frame that was simply too long (issued after its vblank) is the cost window's business.
        p.flipIssued(at: Self.ns(13 * Self.period + 1_000_000), frameStarted: Self.ns(12 * Self.period + 9_000_000))
        p.flipCompleted(timestamp: Self.ns(14 * Self.period))
        #expect(p.lateFlips == 1 && p.marginNanoseconds == base + Self.period / 8)
        var t = 14 * Self.period
        for _ in 0..<FramePacer.onTimeToNarrow {
            p.flipIssued(at: Self.ns(t + 5_000_000), frameStarted: Self.ns(t + 3_000_000))
            t += Self.period
            p.flipCompleted(timestamp: Self.ns(t))
        }
        #expect(p.marginNanoseconds == base)
    }

    /// The whole loop as a model: a finger moving at 100 Hz, a vblank every period, frames of a
    /// given cost, one flip in flight. Returns the latency (earliest input not yet shown → the
    /// flip that shows it) of every frame and the intervals between flips, in nanoseconds.
    static func drag(cost: Int64, latching: Bool, seconds: Int64 = 2) -> (latencies: [Int64], intervals: [Int64]) {
        var pacer = FramePacer(periodNanoseconds: period, kind: .vblank)
        let inputEvery: Int64 = 10_000_000
        var nextInput: Int64 = 3_000_000
        var frameAt: Int64?
        var flipAt: Int64?
        var wanted = false
        var unshown: Int64?
        var inFlight: Int64?
        var lastFlip: Int64?
        var latencies: [Int64] = []
        var intervals: [Int64] = []
        func schedule(_ now: Int64) {
            guard wanted, frameAt == nil else { return }
            switch pacer.frameDecision(now: ns(now)) {
            case .waitForFlip: return
            case .now: frameAt = now
            case .at(let t): frameAt = t.nanoseconds
            }
        }
        let end = seconds * 1_000_000_000
        while true {
            let t = min(nextInput, frameAt ?? .max, flipAt ?? .max)
            guard t < end else { break }
            if t == flipAt {
                flipAt = nil
                pacer.flipCompleted(timestamp: ns(t))
                if let input = inFlight { latencies.append(t - input) }
                if let lastFlip { intervals.append(t - lastFlip) }
                (inFlight, lastFlip) = (nil, t)
                schedule(t)
            } else if t == frameAt {
                // The frame shows every input up to now; its flip goes out `cost` later and
                // completes at the first vblank after that.
                frameAt = nil
                wanted = false
                let issued = t + cost
                pacer.flipIssued(at: ns(issued), frameStarted: latching ? ns(t) : nil)
                (inFlight, unshown) = (unshown, nil)
                flipAt = (issued / period + 1) * period
            } else {
                if unshown == nil { unshown = t }
                wanted = true
                nextInput += inputEvery
                schedule(t)
            }
        }
        return (latencies, intervals)
    }

    @Test func aDragIsShownWithinAPeriodPlusTheBudgetAndEveryVblankGetsAFrame() {
        let cost: Int64 = 3_000_000
        let early = Self.drag(cost: cost, latching: false)
        let late = Self.drag(cost: cost, latching: true)
        let budget = cost + FramePacer.baseMargin(period: Self.period)
        // Drawn right after each flip, the earliest touch of a frame waits for the frame after:
        // nearly two periods.
        #expect(early.latencies.max()! > 2 * Self.period - Self.period / 4)
        // Latched: at most a period (the touch came just after the previous latch) plus the budget.
        let warm = Array(late.latencies.dropFirst(FramePacer.costsToLatch + 1))
        #expect(!warm.isEmpty)
        #expect(warm.max()! <= Self.period + budget)
        #expect(warm.max()! < early.latencies.max()! - Self.period / 4)
        // And no vblank is missed for it: every interval is one period.
        #expect(late.intervals.allSatisfy { $0 == Self.period })
        #expect(early.intervals.allSatisfy { $0 == Self.period })
    }

    @Test func aSlowFrameIsPacedAsBeforeLatching() {
        // 15 ms frames leave no room to latch: the same frames and latencies as drawing at once.
        let early = Self.drag(cost: 15_000_000, latching: false)
        let late = Self.drag(cost: 15_000_000, latching: true)
        #expect(late.latencies == early.latencies)
        #expect(late.intervals == early.intervals)
    }
}
