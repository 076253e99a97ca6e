/// Touch frames in, drag-recognizer events out: the primary-contact filter feeding the drag
/// recognizer (slop, axis lock, velocity, resampling). The stack, the list and `replay`'s
/// gesture tracker all take touches through it.
///
/// Events come out one at a time, and the recognizer sees the frame's next contact event only
/// once the previous one's events are taken: a reader of `recognizer` while applying an event
/// sees it as of that event (a frame can hold a lift and the next finger down).
public struct GestureIntake: Hashable, Sendable {
    private var contacts = PrimaryContactFilter()
    public private(set) var recognizer: DragRecognizer
    private var contactEvents: [PrimaryContactEvent] = []
    private var ready: [DragRecognizer.Event] = []

    public init(slop: Double) {
        recognizer = DragRecognizer(slop: slop)
    }

    /// Takes in `frame`; its events then come from `nextEvent()`.
    public mutating func take(_ frame: TouchFrame) {
        contactEvents += contacts.events(in: frame)
    }

    /// Forgets the contact (the deck was reset or the device went away); the cancel's events
    /// then come from `nextEvent()`.
    public mutating func cancel(at time: Instant) {
        if let event = contacts.cancel(at: time) { contactEvents.append(event) }
    }

    /// The next recognizer event of what was taken in, in order; nil when there is none.
    public mutating func nextEvent() -> DragRecognizer.Event? {
        while ready.isEmpty {
            guard !contactEvents.isEmpty else { return nil }
            ready = recognizer.handle(contactEvents.removeFirst())
        }
        return ready.removeFirst()
    }
}

/// A deck fed through a `GestureIntake`: touches and cancellations go in, and every
/// recognizer event that comes out is applied before the deck's invariants are checked.
protocol IntakeDrivenDeck {
    var intake: GestureIntake { get set }
    mutating func apply(_ event: DragRecognizer.Event)
    func checkInvariants()
}

extension IntakeDrivenDeck {
    /// Gives the intake one input (`feed`), then applies the events it produces, in order.
    mutating func drainIntake(_ feed: (inout GestureIntake) -> Void) {
        feed(&intake)
        while let e = intake.nextEvent() { apply(e) }
        checkInvariants()
    }
}
