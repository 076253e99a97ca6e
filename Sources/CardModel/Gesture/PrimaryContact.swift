/// What happened to the primary contact in one frame.
public enum PrimaryContactEvent: Hashable, Sendable {
    case down(Point, Instant)
    case move(Point, Instant)
    case up(Point, Instant)
    /// Lost without a lift (device unplugged): the gesture ends without acting.
    case cancel(Instant)
}

/// Picks the primary contact out of touch frames: the first finger down while no other is
/// tracked. Further fingers are ignored for their whole life, so they never disturb a drag.
public struct PrimaryContactFilter: Hashable, Sendable {
    public private(set) var primaryID: Int?
    private var lastPosition: Point = .zero

    public init() {}

    public var isDown: Bool { primaryID != nil }

    /// The primary contact's events in `frame`, in order (at most an end and a new start).
    public mutating func events(in frame: TouchFrame) -> [PrimaryContactEvent] {
        var out: [PrimaryContactEvent] = []
        var endedID: Int?
        if let id = primaryID, let c = frame.contacts.first(where: { $0.id == id }) {
            switch c.phase {
            case .moved:
                if c.position != lastPosition {
                    lastPosition = c.position
                    out.append(.move(c.position, frame.time))
                }
            case .ended:
                out.append(.up(c.position, frame.time))
                primaryID = nil
                endedID = id
            case .cancelled:
                out.append(.cancel(frame.time))
                primaryID = nil
                endedID = id
            case .began:
                // The same id began again: its lift was lost (e.g. a resynchronisation).
                out.append(.cancel(frame.time))
                primaryID = nil
            }
        }
        if primaryID == nil,
            let c = frame.contacts.first(where: { $0.phase == .began && $0.id != endedID })
        {
            primaryID = c.id
            lastPosition = c.position
            out.append(.down(c.position, frame.time))
        }
        return out
    }

    /// Forgets the contact (the deck was reset or the device went away).
    public mutating func cancel(at time: Instant) -> PrimaryContactEvent? {
        guard primaryID != nil else { return nil }
        primaryID = nil
        return .cancel(time)
    }
}
