import CardModel
import KioskSystem

/// How well the display paced back-to-back frames: the intervals between consecutive page flips
/// while the next frame was already wanted when the previous flip completed (an animation, a
/// drag), measured in refresh periods. Idle gaps are not intervals. Pure: flip timestamps in.
///
/// With real vblank every interval is a whole number of periods (one when each frame is ready
/// in time, two when one missed a vblank); with timer pacing they are a period plus timer lag;
/// an interval under one period means frames went out faster than the panel refreshes.
package struct FlipIntervals {
    /// One refresh period of the mode, in nanoseconds.
    let periodNanoseconds: Int64
    /// The intervals in milliseconds (the most recent ones, bounded).
    private(set) var milliseconds = BoundedSamples(capacity: 20_000)
    /// Intervals by the nearest whole number of periods: index 0 = under half a period (faster
    /// than the panel refreshes), 1, 2, 3, and 4 for four or more.
    private(set) var byPeriods = [Int](repeating: 0, count: 5)
    /// Intervals within a tenth of a period of a whole number (≥ 1) of periods: on the vblank grid.
    private(set) var onGrid = 0
    private(set) var count = 0
    private var previous: Instant?
    private var nextWanted = false

    init(periodNanoseconds: Int64) { self.periodNanoseconds = max(1, periodNanoseconds) }

    /// A flip completed at `timestamp`; `nextFrameWanted` says whether the next frame was already
    /// asked for then (so the interval to the next flip measures pacing, not idleness).
    mutating func flipCompleted(at timestamp: Instant, nextFrameWanted: Bool) {
        if let previous, nextWanted, timestamp >= previous {
            let ns = timestamp.nanoseconds - previous.nanoseconds
            count += 1
            milliseconds.append(Double(ns) / 1e6)
            let periods = (ns + periodNanoseconds / 2) / periodNanoseconds
            byPeriods[Int(min(periods, 4))] += 1
            if periods >= 1, abs(ns - periods * periodNanoseconds) <= periodNanoseconds / 10 { onGrid += 1 }
        }
        previous = timestamp
        nextWanted = nextFrameWanted
    }

    /// Forget the last flip (after a re-modeset, a panel off/on or a lost flip: the next interval
    /// would not be a pacing interval).
    mutating func breakSequence() {
        previous = nil
        nextWanted = false
    }

    /// Back-to-back frames per second (the inverse of the mean interval); nil without intervals.
    var framesPerSecond: Double? {
        guard count > 0, let sum = milliseconds.sum, sum > 0 else { return nil }
        return Double(milliseconds.count) * 1000 / sum
    }

    /// One line: count, rate, median/p90/min/max and the histogram in periods.
    package var summary: String {
        guard count > 0 else { return "no back-to-back flips" }
        func f(_ v: Double?) -> String { v.map { jsonNumber($0, decimals: 2) } ?? "-" }
        let grid = Double(onGrid) * 100 / Double(count)
        return "\(count) back-to-back flip intervals, \(f(framesPerSecond)) flips/s: "
            + "min \(f(milliseconds.minimum)) median \(f(milliseconds.percentile(50))) "
            + "p90 \(f(milliseconds.percentile(90))) max \(f(milliseconds.maximum)) ms; "
            + "periods ×1 \(byPeriods[1]), ×2 \(byPeriods[2]), ×3 \(byPeriods[3]), ×4+ \(byPeriods[4]), "
            + "under ½ \(byPeriods[0]); on the vblank grid \(jsonNumber(grid, decimals: 1)) %"
    }

    /// The figures as JSON fields (for `--stats`).
    package var jsonFields: [(String, String)] {
        func ms(_ v: Double?) -> String { v.map { jsonNumber($0, decimals: 3) } ?? "null" }
        return [
            ("flip_intervals", String(count)),
            ("flip_interval_min_ms", ms(milliseconds.minimum)),
            ("flip_interval_p50_ms", ms(milliseconds.percentile(50))),
            ("flip_interval_p90_ms", ms(milliseconds.percentile(90))),
            ("flip_interval_max_ms", ms(milliseconds.maximum)),
            ("flip_intervals_one_period", String(byPeriods[1])),
            ("flip_intervals_under_half_period", String(byPeriods[0])),
            ("flip_intervals_on_vblank_grid", String(onGrid)),
            ("back_to_back_flips_per_second", ms(framesPerSecond)),
        ]
    }
}
