import CardModel
import Testing

@testable import KioskCards
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
