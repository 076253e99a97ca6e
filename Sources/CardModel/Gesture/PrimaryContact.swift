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
///
/// More than `maximumContacts` down at once is not a visitor's hand but a cleaning cloth, a
/// sleeve or a leaning body (libinput likewise stops tracking touches beyond what a hand
/// makes): the gesture is cancelled without acting, and nothing starts again until every
/// contact has lifted.
public struct PrimaryContactFilter: Hashable, Sendable {
    /// Five fingers is a hand; a sixth contact is something else.
    public static let maximumContacts = 5

    public private(set) var primaryID: Int?
    private var lastPosition: Point = .zero
    /// Too many contacts came down; ignoring everything until none is down.
    public private(set) var isLockedOut = false

    public init() {}

    public var isDown: Bool { primaryID != nil }

    /// The primary contact's events in `frame`, in order (at most an end and a new start).
    public mutating func events(in frame: TouchFrame) -> [PrimaryContactEvent] {
        let down = frame.contacts.reduce(0) { $0 + ($1.phase == .began || $1.phase == .moved ? 1 : 0) }
        if isLockedOut {
            if down == 0 { isLockedOut = false }
            return []
        }
        if down > Self.maximumContacts {
            isLockedOut = true
            guard primaryID != nil else { return [] }
            primaryID = nil
            return [.cancel(frame.time)]
        }
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
