/// A scalar that rests at `target` or moves towards it under a `Spring`, as a pure function of
/// time.
///
/// The motion is stored as the spring's starting state (time, displacement, velocity), so
/// `value(at:)` is exact at any instant: drawing at 30, 60 or 144 Hz shows the same positions at
/// the same times. Retargeting starts a new segment from the current position and velocity, so
/// both stay continuous. The value is at rest once the spring's energy distance is below
/// `restDistance`; from then on it reads exactly `target`.
public struct AnimatedValue: Hashable, Sendable {
    public private(set) var target: Double
    public private(set) var spring: Spring
    /// Start of the current spring segment.
    private var start: Instant
    /// Displacement from `target` and velocity at `start`.
    private var x0: Double
    private var v0: Double
    /// In the value's units (points for positions).
    public var restDistance: Double

    /// A value at rest.
    public init(_ value: Double, restDistance: Double = 0.01) {
        target = value
        spring = .default
        start = .zero
        x0 = 0
        v0 = 0
        self.restDistance = restDistance
    }

    private func state(at time: Instant) -> (x: Double, v: Double) {
        if x0 == 0 && v0 == 0 { return (0, 0) }
        let t = max(0, time.seconds(since: start))
        let s = spring.evaluate(displacement: x0, velocity: v0, after: t)
        if spring.energyDistance(displacement: s.displacement, velocity: s.velocity) < restDistance {
            return (0, 0)
        }
        return (s.displacement, s.velocity)
    }

    public func value(at time: Instant) -> Double { target + state(at: time).x }

    /// Units per second.
    public func velocity(at time: Instant) -> Double { state(at: time).v }

    /// False once the spring has come to rest (or never moved).
    public func isMoving(at time: Instant) -> Bool {
        let s = state(at: time)
        return s.x != 0 || s.v != 0
    }

    /// Springs towards `newTarget` from wherever the value is at `time`, keeping its velocity
    /// unless `velocity` is given.
    public mutating func animate(
        to newTarget: Double, at time: Instant, spring: Spring = .default, velocity: Double? = nil
    ) {
        let s = state(at: time)
        let position = target + s.x
        target = newTarget
        self.spring = spring
        start = time
        x0 = position - newTarget
        v0 = velocity ?? s.v
        if x0 == 0 && v0 == 0 { return }
        if spring.energyDistance(displacement: x0, velocity: v0) < restDistance {
            x0 = 0
            v0 = 0
        }
    }

    /// Puts the value at `value`, at rest (a finger holds it there).
    public mutating func set(_ value: Double) {
        target = value
        x0 = 0
        v0 = 0
    }

    /// Jumps the value by `delta` at `time`, keeping its velocity and target, so it springs back
    /// (used when the stack closes up: every card moves down one place, then springs home).
    public mutating func displace(by delta: Double, at time: Instant) {
        let s = state(at: time)
        start = time
        x0 = s.x + delta
        v0 = s.v
    }

    /// Drops finished motion so later reads are cheap; the value does not change.
    public mutating func settle(at time: Instant) {
        if !isMoving(at: time) { set(target) }
    }
}

/// Two `AnimatedValue`s moved together: a point or an offset in screen points.
public struct AnimatedPoint: Hashable, Sendable {
    public var x: AnimatedValue
    public var y: AnimatedValue

    public init(_ p: Point, restDistance: Double = 0.01) {
        x = AnimatedValue(p.x, restDistance: restDistance)
        y = AnimatedValue(p.y, restDistance: restDistance)
    }

    public var target: Point { Point(x: x.target, y: y.target) }
    public func value(at time: Instant) -> Point { Point(x: x.value(at: time), y: y.value(at: time)) }
    public func velocity(at time: Instant) -> Point { Point(x: x.velocity(at: time), y: y.velocity(at: time)) }
    public func isMoving(at time: Instant) -> Bool { x.isMoving(at: time) || y.isMoving(at: time) }

    public mutating func animate(to p: Point, at time: Instant, spring: Spring = .default, velocity: Point? = nil) {
        x.animate(to: p.x, at: time, spring: spring, velocity: velocity?.x)
        y.animate(to: p.y, at: time, spring: spring, velocity: velocity?.y)
    }

    public mutating func set(_ p: Point) {
        x.set(p.x)
        y.set(p.y)
    }

    public mutating func settle(at time: Instant) {
        x.settle(at: time)
        y.settle(at: time)
    }
}
