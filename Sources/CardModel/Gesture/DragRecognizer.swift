/// The dominant direction of a drag, decided once when it leaves the touch slop.
public enum DragAxis: String, Hashable, Sendable {
    case horizontal
    case vertical
}

/// How a primary-contact gesture finished.
public struct DragEnd: Hashable, Sendable {
    public var location: Point
    public var time: Instant
    /// From the touch-down point to the lift point.
    public var translation: Point
    /// Points per second at the lift (least squares over the last ~100 ms).
    public var velocity: Point
    /// Where the drag would end if the content kept moving and slowed down, like SwiftUI's
    /// `DragGesture.Value.predictedEndTranslation`: translation + velocity · `projectionTime`.
    public var predictedEndTranslation: Point
    /// True when the finger never left the touch slop and lifted within
    /// `DragRecognizer.longPressSeconds`.
    public var isTap: Bool
    public var axis: DragAxis?

    /// The finger never left the slop but stayed down past `DragRecognizer.longPressSeconds`:
    /// neither a tap nor a drag (a resting hand, a finger held still for an hour).
    public var isHold: Bool { !isTap && axis == nil }
}

/// Turns the primary contact's events into a tap or a drag: touch slop in points (from
/// millimetres), axis lock, velocity and the resampled position for display.
public struct DragRecognizer: Hashable, Sendable {
    public enum Event: Hashable, Sendable {
        case down(Point, Instant)
        /// The finger left the slop: from now on it is a drag along `axis`.
        case dragBegan(DragAxis, Instant)
        case moved(Instant)
        case ended(DragEnd)
        case cancelled(Instant)
    }

    /// SwiftUI's predicted end: its `DragGesture` reports velocity = 4 × (predicted − location),
    /// i.e. a projection over 0.25 s.
    public static let projectionTime = 0.25

    /// A touch that stays within the slop longer than this is a hold, not a tap (Android's
    /// long-press timeout is 0.4–0.5 s, libinput's tap timeout 180 ms; the kiosk's visitors
    /// are slower than a phone's, so the limit sits well above a deliberate tap).
    public static let longPressSeconds = 0.8

    public let slop: Double
    public private(set) var start: Point = .zero
    public private(set) var startTime: Instant = .zero
    public private(set) var location: Point = .zero
    public private(set) var isActive = false
    /// Nil until the finger leaves the slop.
    public private(set) var axis: DragAxis?
    private var tracker = VelocityTracker()
    public private(set) var resampler = TouchResampler()

    public init(slop: Double) { self.slop = slop }

    public var isDragging: Bool { isActive && axis != nil }

    /// The latest raw translation from the touch-down point.
    public var translation: Point { location - start }

    /// The translation to show in a frame drawn at `time` (resampled).
    public func shownTranslation(at time: Instant) -> Point {
        (resampler.position(at: time) ?? location) - start
    }

    public mutating func handle(_ event: PrimaryContactEvent) -> [Event] {
        switch event {
        case .down(let p, let t):
            start = p
            startTime = t
            location = p
            isActive = true
            axis = nil
            tracker.reset()
            tracker.add(p, at: t)
            resampler = TouchResampler()
            resampler.add(p, at: t)
            return [.down(p, t)]
        case .move(let p, let t):
            guard isActive else { return [] }
            location = p
            tracker.add(p, at: t)
            resampler.add(p, at: t)
            var out: [Event] = []
            if axis == nil, let a = leftSlop() {
                axis = a
                resampler.freezeLatency()
                out.append(.dragBegan(a, t))
            }
            out.append(.moved(t))
            return out
        case .up(let p, let t):
            guard isActive else { return [] }
            // A lift usually repeats the last position; adding it as a sample would read as a
            // sudden stop, so only a real final movement is added.
            if p != location { tracker.add(p, at: t) }
            location = p
            resampler.end(at: p, time: t)
            if axis == nil, let a = leftSlop() { axis = a }
            isActive = false
            let v = tracker.velocity(at: t)
            let tr = p - start
            return [
                .ended(
                    DragEnd(
                        location: p, time: t, translation: tr, velocity: v,
                        predictedEndTranslation: tr + v * Self.projectionTime,
                        isTap: axis == nil && t.seconds(since: startTime) <= Self.longPressSeconds, axis: axis))
            ]
        case .cancel(let t):
            guard isActive else { return [] }
            isActive = false
            return [.cancelled(t)]
        }
    }

    private func leftSlop() -> DragAxis? {
        let d = location - start
        guard d.length > slop else { return nil }
        // Ties go to vertical: scrolling is the harmless reading.
        return abs(d.x) > abs(d.y) ? .horizontal : .vertical
    }
}
