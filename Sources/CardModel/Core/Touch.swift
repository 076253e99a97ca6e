/// Where a contact is in its life.
public enum TouchPhase: String, Hashable, Sendable {
    /// The finger touched down in this frame.
    case began
    /// The finger is still down (it may or may not have moved).
    case moved
    /// The finger lifted in this frame.
    case ended
    /// The contact was lost without a lift (device unplugged, resynchronisation):
    /// the gesture ends without acting.
    case cancelled
}

/// One finger in one frame, in screen points.
public struct TouchContact: Hashable, Sendable {
    /// Stable for the contact's whole life; unique among the contacts down at once.
    public var id: Int
    public var position: Point
    public var phase: TouchPhase

    public init(id: Int, position: Point, phase: TouchPhase) {
        self.id = id
        self.position = position
        self.phase = phase
    }
}

/// Everything the touchscreen reported up to one SYN_REPORT, platform-neutral.
///
/// `contacts` lists every contact that is down or changed phase in this frame: a contact
/// appears with `.began` once, then `.moved` in each later frame while down, and finally once
/// with `.ended` or `.cancelled`.
public struct TouchFrame: Hashable, Sendable {
    public var time: Instant
    public var contacts: [TouchContact]

    public init(time: Instant, contacts: [TouchContact]) {
        self.time = time
        self.contacts = contacts
    }
}
