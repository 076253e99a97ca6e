/// An action that does not come from a swipe: keyboard, on-screen buttons, accessibility.
public enum DeckAction: Hashable, Sendable {
    case dismissLeft, dismissRight, remove, undo, open, back, add
    /// The list's keyboard focus moves to the next / previous row (the stack ignores them).
    case focusNext, focusPrevious
}

/// A deck the app drives: touch frames and commands in, scenes and decisions out.
///
/// Every call carries its time; calls arrive in time order. Nothing here reads a clock.
public protocol CardDeck {
    /// One touch frame; frames arrive in time order.
    mutating func handle(_ frame: TouchFrame)
    /// A keyboard, button or accessibility action, with the same animation as the gesture.
    mutating func perform(_ action: DeckAction, at time: Instant)
    /// The touch device went away: a drag ends without acting and the card springs back.
    mutating func cancelTouches(at time: Instant)
    /// What to draw at `time` (a page-flip timestamp); advances animations to `time`.
    mutating func scene(at time: Instant) -> Scene
    /// The decisions completed since the last call, each returned exactly once.
    mutating func takeDecisions() -> [Decision]
    /// Starts over with `cards` (the next visitor, or a reloaded deck file).
    mutating func reset(cards: [Card], at time: Instant)
    /// The earliest time the model needs a frame without new input; nil when it may sleep.
    var nextWakeup: Instant? { get }
    /// Between visitors (`since` the attract screen appeared, as `VisitorSession.attractSince`
    /// says) the scene carries the attract line and the deck may hint at what to do; nil ends
    /// both (a visitor touched).
    mutating func setAttract(since: Instant?, at time: Instant)
    /// The line inviting the next visitor on the attract screen ("Tippen zum Starten"); none
    /// when empty. Settable, so a reloaded deck file's text shows without a new deck.
    var attractText: String { get set }
    /// What the renderer may draw ahead into its cache while nothing moves in `scene` (this
    /// deck's latest), each element as it will look when the next gesture begins, so that
    /// gesture's first frames only place cached images. Empty when there is nothing to prepare.
    func elementsToPrepare(in scene: Scene) -> [SceneElement]
    /// Whether the visitor has decided every card (a stack with none left); a list never is.
    var isCompleted: Bool { get }
    /// The visit's accessibility modes (large text, high contrast, reduced motion), switched
    /// from the visible control; `reset` turns them all off for the next visitor.
    mutating func setAccessibility(_ modes: VisitAccessibility, at time: Instant)
    var accessibility: VisitAccessibility { get }
}

extension CardDeck {
    public var isCompleted: Bool { false }
}

/// Which side a card leaves by.
public enum DismissDirection: String, Sendable {
    case left, right
}

/// Card ids made unique: a repeated id gets "#2", "#3"… so scene ids and decisions stay apart.
func uniquingIDs(_ cards: [Card], avoiding taken: Set<String> = []) -> [Card] {
    var seen = taken
    return cards.map { card in
        var c = card
        var n = 1
        while seen.contains(c.id) {
            n += 1
            c.id = card.id + "#" + String(n)
        }
        seen.insert(c.id)
        return c
    }
}
