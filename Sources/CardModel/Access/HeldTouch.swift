/// The held-touch gesture that reads the card aloud without any menu (EN 301 549
/// 5.1.6): one finger put down and held still (within the touch slop) for `holdSeconds`.
/// It decides nothing — the deck sees the same touch as a press that springs back — it only
/// asks the app to speak. A second finger, a move beyond the slop or a lift cancels it.
public struct HeldTouch: Sendable {
    public static let holdSeconds = 2.0

    public let slop: Double
    private var contact: (id: Int, start: Point, since: Instant)?
    private var fired = false

    public init(slop: Double) { self.slop = slop }

    static func distance(_ a: Point, _ b: Point) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

    /// Follows `frame`; returns when the hold will be complete (the app sets a timer for it),
    /// or nil when no hold is in progress.
    public mutating func take(_ frame: TouchFrame) -> Instant? {
        for c in frame.contacts {
            switch c.phase {
            case .began:
                if contact == nil && frame.contacts.count == 1 {
                    contact = (c.id, c.position, frame.time)
                    fired = false
                } else {
                    contact = nil
                }
            case .moved:
                if let k = contact, k.id == c.id, Self.distance(c.position, k.start) > slop { contact = nil }
                if let k = contact, k.id != c.id { contact = nil }
            case .ended, .cancelled:
                if contact?.id == c.id { contact = nil }
            }
        }
        guard let k = contact, !fired else { return nil }
        return k.since.advanced(bySeconds: Self.holdSeconds)
    }

    /// True once, at or after the hold's deadline, while the finger is still down and still.
    public mutating func fire(at time: Instant) -> Bool {
        guard let k = contact, !fired, time.seconds(since: k.since) >= Self.holdSeconds else { return false }
        fired = true
        return true
    }
}
