import CardModel
import Testing

@testable import KioskDisplay

@Suite struct DisplayFlipIntervalsTests {
    static let period: Int64 = 16_666_667
    static func at(periods: Double) -> Instant { Instant(nanoseconds: Int64(periods * Double(period))) }

    @Test func vblankFlipsAreOnePeriodApartAndOnTheGrid() {
        var f = FlipIntervals(periodNanoseconds: Self.period)
        // 10 flips on consecutive vblanks, then one that missed a vblank.
        for i in 0..<10 { f.flipCompleted(at: Self.at(periods: Double(i)), nextFrameWanted: true) }
        f.flipCompleted(at: Self.at(periods: 11), nextFrameWanted: false)
        #expect(f.count == 10)
        #expect(f.byPeriods == [0, 9, 1, 0, 0])
        #expect(f.onGrid == 10)
        #expect(abs((f.milliseconds.percentile(50) ?? 0) - 16.667) < 0.001)
        #expect(abs((f.milliseconds.maximum ?? 0) - 33.333) < 0.001)
        // 10 intervals over 11 periods.
        #expect(abs((f.framesPerSecond ?? 0) - 10 / (11 * 0.016_666_667)) < 0.01)
    }

    @Test func idleGapsAreNotIntervals() {
        var f = FlipIntervals(periodNanoseconds: Self.period)
        f.flipCompleted(at: Self.at(periods: 0), nextFrameWanted: true)
        f.flipCompleted(at: Self.at(periods: 1), nextFrameWanted: false)  // the animation ended
        f.flipCompleted(at: Self.at(periods: 300), nextFrameWanted: true)  // a touch, seconds later
        f.flipCompleted(at: Self.at(periods: 301), nextFrameWanted: true)
        #expect(f.count == 2)
        #expect(f.byPeriods[1] == 2 && f.byPeriods[4] == 0)
        // After a break (panel off, re-modeset) the next flip starts a new sequence too.
        f.breakSequence()
        f.flipCompleted(at: Self.at(periods: 400), nextFrameWanted: true)
        #expect(f.count == 2)
    }

    @Test func timerPacingAt75HzIsUnderAPeriodAndOffTheGrid() {
        // What vblank pacing must not look like: a 13.3 ms timer on a 60 Hz mode.
        var f = FlipIntervals(periodNanoseconds: Self.period)
        for i in 0..<20 { f.flipCompleted(at: Instant(nanoseconds: Int64(i) * 13_333_333), nextFrameWanted: true) }
        #expect(f.count == 19)
        #expect(f.byPeriods[1] == 19, "13.3 ms rounds to one period")
        #expect(f.onGrid == 0, "but is 3.3 ms off the grid")
        #expect((f.framesPerSecond ?? 0) > 74)
        // Unpaced flipping: intervals far under a period.
        var spin = FlipIntervals(periodNanoseconds: Self.period)
        for i in 0..<20 { spin.flipCompleted(at: Instant(nanoseconds: Int64(i) * 2_000_000), nextFrameWanted: true) }
        #expect(spin.byPeriods[0] == 19)
    }

    @Test func summaryAndJSONCarryTheFigures() {
        var f = FlipIntervals(periodNanoseconds: Self.period)
        #expect(f.summary == "no back-to-back flips")
        #expect(f.jsonFields.first { $0.0 == "flip_interval_p50_ms" }?.1 == "null")
        for i in 0..<4 { f.flipCompleted(at: Self.at(periods: Double(i)), nextFrameWanted: true) }
        #expect(f.summary.hasPrefix("3 back-to-back flip intervals, 60"))
        #expect(f.summary.contains("median 16.67"))
        #expect(f.summary.contains("×1 3, ×2 0"))
        #expect(f.summary.contains("on the vblank grid 100"))
        #expect(f.jsonFields.first { $0.0 == "flip_intervals" }?.1 == "3")
    }

    @Test func aTimestampGoingBackwardsIsNoInterval() {
        var f = FlipIntervals(periodNanoseconds: Self.period)
        f.flipCompleted(at: Self.at(periods: 10), nextFrameWanted: true)
        f.flipCompleted(at: Self.at(periods: 2), nextFrameWanted: true)
        #expect(f.count == 0)
        f.flipCompleted(at: Self.at(periods: 3), nextFrameWanted: true)
        #expect(f.count == 1)
    }
}
