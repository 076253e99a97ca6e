#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Momentum after a release: velocity decays exponentially, v(t) = v₀·e^(−t/τ), so the position
/// approaches x₀ + v₀·τ. τ ≈ 0.5 s matches UIScrollView's normal deceleration rate (0.998 per
/// millisecond).
public struct Fling: Hashable, Sendable {
    public var start: Instant
    public var position: Double
    public var velocity: Double
    /// Seconds.
    public var timeConstant: Double
    /// Below this speed (units/s) the fling stops where it is (≈ half a point left to travel).
    public var stopSpeed: Double

    public static let uiScrollViewTimeConstant = -1 / (1000 * log(0.998))

    public init(
        from position: Double, velocity: Double, at start: Instant,
        timeConstant: Double = Fling.uiScrollViewTimeConstant, stopSpeed: Double = 1
    ) {
        self.start = start
        self.position = position
        self.velocity = velocity
        self.timeConstant = timeConstant
        self.stopSpeed = stopSpeed
    }

    /// Seconds after `start` when the speed falls to `stopSpeed` (0 if it starts slower).
    public var duration: Double {
        let v = abs(velocity)
        guard v > stopSpeed else { return 0 }
        return timeConstant * log(v / stopSpeed)
    }

    public var end: Instant { start.advanced(bySeconds: duration) }

    private func elapsed(_ time: Instant) -> Double {
        time >= end ? duration : max(0, time.seconds(since: start))
    }

    public func value(at time: Instant) -> Double {
        let t = elapsed(time)
        return position + velocity * timeConstant * (1 - exp(-t / timeConstant))
    }

    public func velocity(at time: Instant) -> Double {
        guard time < end else { return 0 }
        return velocity * exp(-elapsed(time) / timeConstant)
    }

    public func isMoving(at time: Instant) -> Bool { time < end }

    /// The first instant the fling reaches `bound` moving towards it, or nil if it stops short.
    public func time(reaching bound: Double) -> Instant? {
        let distance = bound - position
        guard velocity != 0, distance * velocity >= 0 else { return distance == 0 ? start : nil }
        let fraction = distance / (velocity * timeConstant)
        guard fraction < 1 else { return nil }
        let t = -timeConstant * log(1 - fraction)
        guard t <= duration else { return nil }
        return start.advanced(bySeconds: t)
    }
}

/// iOS's rubber band: pulling `overshoot` points beyond an end moves the content
/// (1 − 1/(overshoot·c/d + 1))·d, which tends to `d` (the viewport length) and starts with
/// slope c = 0.55.
public enum RubberBand {
    public static let coefficient = 0.55

    public static func distance(_ overshoot: Double, dimension d: Double) -> Double {
        guard overshoot > 0, d > 0 else { return 0 }
        return (1 - 1 / (overshoot * coefficient / d + 1)) * d
    }

    /// `value` clamped into `lower...upper` with rubber banding outside it.
    public static func clamp(_ value: Double, lower: Double, upper: Double, dimension d: Double) -> Double {
        if value < lower { return lower - distance(lower - value, dimension: d) }
        if value > upper { return upper + distance(value - upper, dimension: d) }
        return value
    }

    /// The inverse of `clamp`: the raw value that rubber-bands to `shown`.
    public static func unclamp(_ shown: Double, lower: Double, upper: Double, dimension d: Double) -> Double {
        func inverse(_ y: Double) -> Double {
            // y = (1 − 1/(x·c/d + 1))·d  ⇒  x = d/c · (1/(1 − y/d) − 1)
            let f = min(y / d, 0.999)
            return d / coefficient * (1 / (1 - f) - 1)
        }
        guard d > 0 else { return shown }
        if shown < lower { return lower - inverse(lower - shown) }
        if shown > upper { return upper + inverse(shown - upper) }
        return shown
    }
}
