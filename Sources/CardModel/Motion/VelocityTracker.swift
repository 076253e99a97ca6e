/// Estimates a finger's velocity by a least-squares fit over its recent samples, after
/// Flutter's `VelocityTracker` (`velocity_tracker.dart`).
///
/// Keeps the last samples within `horizon` of the newest, stopping at a gap longer than
/// `stopGap` (the finger rested there, so older motion no longer counts). With three or more
/// samples it fits x(t) and y(t) by quadratics and reads the slope at the newest sample; with
/// two it takes their difference; with one, zero.
///
/// `stopGap` is 50 ms rather than Flutter's 40 ms because some panels (the Raspberry Pi 7"
/// display) report at 25 Hz, i.e. every 40 ms plus jitter.
public struct VelocityTracker: Hashable, Sendable {
    public var horizon: Double = 0.100
    public var stopGap: Double = 0.050
    private var samples: [TouchSample] = []
    private static let capacity = 20

    public init() {}

    public mutating func add(_ position: Point, at time: Instant) {
        if let last = samples.last, time < last.time { samples.removeAll() }
        samples.append(TouchSample(time: time, position: position))
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
    }

    public mutating func reset() { samples.removeAll() }

    /// Points per second at `now`: zero when the finger has not moved for longer than
    /// `stopGap` (Flutter measures the same with a stopwatch since the last sample).
    public func velocity(at now: Instant) -> Point {
        guard let newest = samples.last, now.seconds(since: newest.time) <= stopGap else { return .zero }
        return velocity
    }

    /// Points per second at the newest sample.
    public var velocity: Point {
        guard let newest = samples.last else { return .zero }
        var ts: [Double] = []
        var xs: [Double] = []
        var ys: [Double] = []
        var previous = newest.time
        for s in samples.reversed() {
            let age = newest.time.seconds(since: s.time)
            let gap = previous.seconds(since: s.time)
            if age > horizon || gap > stopGap { break }
            ts.append(-age)
            xs.append(s.position.x)
            ys.append(s.position.y)
            previous = s.time
        }
        switch ts.count {
        case 0, 1:
            return .zero
        case 2:
            let dt = ts[0] - ts[1]
            guard dt > 0 else { return .zero }
            return Point(x: (xs[0] - xs[1]) / dt, y: (ys[0] - ys[1]) / dt)
        default:
            guard let vx = Self.slopeAtZero(ts, xs), let vy = Self.slopeAtZero(ts, ys) else {
                let dt = ts[0] - ts[ts.count - 1]
                guard dt > 0 else { return .zero }
                return Point(x: (xs[0] - xs[xs.count - 1]) / dt, y: (ys[0] - ys[ys.count - 1]) / dt)
            }
            return Point(x: vx, y: vy)
        }
    }

    /// Fits v ≈ a + b·t + c·t² by least squares and returns b, the slope at t = 0; nil when the
    /// times do not determine a quadratic (e.g. repeated timestamps).
    static func slopeAtZero(_ t: [Double], _ v: [Double]) -> Double? {
        // Normal equations with sums of powers of t; t is within ±0.1 s, so the 3×3 system is
        // well conditioned after scaling t to milliseconds.
        var s = [Double](repeating: 0, count: 5)
        var r = [Double](repeating: 0, count: 3)
        for (ti, vi) in zip(t, v) {
            let tm = ti * 1000
            var p = 1.0
            for k in 0..<5 {
                s[k] += p
                if k < 3 { r[k] += p * vi }
                p *= tm
            }
        }
        let m = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
        guard let sol = solve3(m, r) else { return nil }
        return sol[1] * 1000
    }

    /// Gaussian elimination with partial pivoting; nil when singular.
    static func solve3(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        var m = a
        var r = b
        let n = 3
        for col in 0..<n {
            var pivot = col
            for row in col + 1..<n where abs(m[row][col]) > abs(m[pivot][col]) { pivot = row }
            let scale = max(abs(m[0][0]), abs(m[1][1]), abs(m[2][2]), 1)
            guard abs(m[pivot][col]) > 1e-9 * scale else { return nil }
            m.swapAt(col, pivot)
            r.swapAt(col, pivot)
            for row in col + 1..<n {
                let f = m[row][col] / m[col][col]
                for k in col..<n { m[row][k] -= f * m[col][k] }
                r[row] -= f * r[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = r[row]
            for k in row + 1..<n { sum -= m[row][k] * x[k] }
            x[row] = sum / m[row][row]
        }
        return x
    }
}

/// One position of a finger at one instant.
public struct TouchSample: Hashable, Sendable {
    public var time: Instant
    public var position: Point

    public init(time: Instant, position: Point) {
        self.time = time
        self.position = position
    }
}
