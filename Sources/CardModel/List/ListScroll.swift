/// The list's scroll offset when no finger holds it: at rest, coasting (a fling that may hit an
/// end and bounce), or springing to an end.
enum ListScroll: Hashable, Sendable {
    case rest(Double)
    /// `bounce` starts when the fling reaches an end, from that end with the fling's speed.
    case fling(Fling, bounce: Bounce?)
    case spring(AnimatedValue)

    struct Bounce: Hashable, Sendable {
        var time: Instant
        var spring: AnimatedValue
    }

    /// Snappy and without overshoot, like a scroll view returning from its rubber band.
    static let bounceSpring = Spring(response: 0.4, dampingFraction: 1)

    func offset(at t: Instant) -> Double {
        switch self {
        case .rest(let v): v
        case .fling(let f, let bounce):
            if let bounce, t >= bounce.time { bounce.spring.value(at: t) } else { f.value(at: t) }
        case .spring(let a): a.value(at: t)
        }
    }

    func velocity(at t: Instant) -> Double {
        switch self {
        case .rest: 0
        case .fling(let f, let bounce):
            if let bounce, t >= bounce.time { bounce.spring.velocity(at: t) } else { f.velocity(at: t) }
        case .spring(let a): a.velocity(at: t)
        }
    }

    func isMoving(at t: Instant) -> Bool {
        switch self {
        case .rest: false
        case .fling(let f, let bounce):
            if let bounce, t >= bounce.time { bounce.spring.isMoving(at: t) } else { f.isMoving(at: t) }
        case .spring(let a): a.isMoving(at: t)
        }
    }

    /// Released at `offset` with content velocity `velocity` (points/s, positive = towards the
    /// end): beyond an end it springs back; inside it coasts and bounces off the end it reaches.
    /// `calm` (reduced motion): it springs back from standstill and a coast stops at the end it
    /// reaches, so nothing passes an end.
    static func released(
        at offset: Double, velocity: Double, maxOffset: Double, time: Instant, calm: Bool = false
    ) -> ListScroll {
        let v = min(max(velocity, -8000), 8000)
        if offset < 0 || offset > maxOffset {
            var a = AnimatedValue(offset, restDistance: 0.1)
            a.animate(to: offset < 0 ? 0 : maxOffset, at: time, spring: bounceSpring, velocity: calm ? 0 : v)
            return .spring(a)
        }
        let f = Fling(from: offset, velocity: v, at: time)
        guard f.duration > 0 else { return .rest(offset) }
        let end = v > 0 ? maxOffset : 0
        guard let hit = f.time(reaching: end) else { return .fling(f, bounce: nil) }
        var a = AnimatedValue(end, restDistance: 0.1)
        a.animate(to: end, at: hit, spring: bounceSpring, velocity: calm ? 0 : f.velocity(at: hit))
        return .fling(f, bounce: Bounce(time: hit, spring: a))
    }

    /// Springs from wherever it is at `t` to `target`; `calm` (reduced motion): critically
    /// damped from standstill, so it never passes `target`.
    func springing(to target: Double, at t: Instant, calm: Bool = false) -> ListScroll {
        var a = AnimatedValue(offset(at: t), restDistance: 0.1)
        a.animate(
            to: target, at: t, spring: calm ? VisitAccessibility.calmSpring : .default,
            velocity: calm ? 0 : velocity(at: t))
        return .spring(a)
    }

    /// Drops finished motion.
    func settled(at t: Instant) -> ListScroll { isMoving(at: t) ? self : .rest(offset(at: t)) }
}
