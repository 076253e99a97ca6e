/// The finger's position at a display frame's time, resampled from the touch samples so a drag
/// moves on every frame even when the panel reports more slowly than the display refreshes.
///
/// Like Android's input resampling: the frame shows the finger as it was `latency` earlier,
/// interpolated between the two samples around that time, or extrapolated from the last two
/// samples by at most `maxPrediction` (and not at all once the next sample is overdue: a
/// finger at rest sends nothing). The latency follows the panel: it is the median report
/// interval minus `maxPrediction` (0 on fast panels, 32 ms on a 25 Hz panel), fixed once the drag
/// starts so the shown time never steps back. After the finger lifted, nothing is extrapolated:
/// the shown position never passes the release point.
public struct TouchResampler: Hashable, Sendable {
    public static let maxPrediction = 0.008
    public static let maxLatency = 0.040
    private var samples: [TouchSample] = []
    /// Seconds; nil until frozen by `freezeLatency()`.
    private var frozenLatency: Double?
    public private(set) var ended = false
    private static let capacity = 8

    public init() {}

    public mutating func add(_ position: Point, at time: Instant) {
        if let last = samples.last {
            if time < last.time { return }
            if time == last.time {
                samples[samples.count - 1].position = position
                return
            }
        }
        samples.append(TouchSample(time: time, position: position))
        if samples.count > Self.capacity { samples.removeFirst() }
    }

    /// The finger lifted at `position` and `time`: the last sample, never extrapolated past.
    public mutating func end(at position: Point, time: Instant) {
        add(position, at: time)
        ended = true
    }

    /// Median interval between the recent samples, at most 50 ms (a resting finger sends
    /// nothing, which is no evidence about the panel's rate).
    public var reportInterval: Double? {
        guard samples.count >= 2 else { return nil }
        var gaps: [Double] = []
        for i in 1..<samples.count { gaps.append(samples[i].time.seconds(since: samples[i - 1].time)) }
        gaps.sort()
        return min(gaps[gaps.count / 2], 0.050)
    }

    /// Seconds between a frame's time and the finger time it shows.
    public var latency: Double {
        if let frozenLatency { return frozenLatency }
        guard let interval = reportInterval else { return 0 }
        return min(max(0, interval - Self.maxPrediction), Self.maxLatency)
    }

    /// Keeps the current latency for the rest of the contact (called when a drag begins).
    public mutating func freezeLatency() {
        if frozenLatency == nil { frozenLatency = latency }
    }

    public var last: Point? { samples.last?.position }

    /// The position to show at a frame drawn at `time`.
    public func position(at time: Instant) -> Point? {
        guard let newest = samples.last else { return nil }
        let shown = time.advanced(bySeconds: -latency)
        if shown >= newest.time {
            guard !ended, samples.count >= 2, !isOverdue(at: time) else { return newest.position }
            let previous = samples[samples.count - 2]
            let dt = newest.time.seconds(since: previous.time)
            guard dt > 0.001, dt <= 0.050 else { return newest.position }
            let ahead = min(shown.seconds(since: newest.time), Self.maxPrediction)
            let f = ahead / dt
            return newest.position + (newest.position - previous.position) * f
        }
        guard let first = samples.first, shown > first.time else { return samples.first?.position }
        var i = samples.count - 1
        while i > 0 && samples[i - 1].time > shown { i -= 1 }
        let a = samples[i - 1]
        let b = samples[i]
        let f = shown.seconds(since: a.time) / b.time.seconds(since: a.time)
        return a.position + (b.position - a.position) * f
    }

    /// Whether `position(at:)` can still change after `time` without a new sample.
    public func isMoving(at time: Instant) -> Bool {
        guard let newest = samples.last, samples.count >= 2 else { return false }
        let shown = time.advanced(bySeconds: -latency)
        if shown < newest.time { return true }
        guard !ended, !isOverdue(at: time) else { return false }
        return samples[samples.count - 2].position != newest.position
    }

    /// The next sample is overdue at `time` (half an interval late): the finger has stopped, so
    /// the frame shows where it stopped instead of predicting further.
    private func isOverdue(at time: Instant) -> Bool {
        guard let newest = samples.last else { return true }
        return time.seconds(since: newest.time) > 1.5 * (reportInterval ?? 0.016) + 0.002
    }
}
