/// What a visitor did with a card.
public enum DecisionAction: String, Hashable, Sendable, CaseIterable {
    case swipedLeft
    case swipedRight
    /// Taken off the stack without a side (the accessible "Remove card").
    case removed
    /// A list row deleted by a left swipe.
    case deleted
    /// A list row appended with "+".
    case added
    /// A list row's detail page opened.
    case opened
    /// The previous decision was taken back.
    case undone
}

/// How a visitor gave a decision (stored with it, for the report's quality figures).
public enum InputMethod: String, Hashable, Sendable, CaseIterable {
    /// A drag or fling of the card (stack) or row (list).
    case swipe
    /// An on-screen button (✗ / ✓ / undo / remove / +).
    case button
    /// A keyboard key (arrow keys, Enter, Backspace, Escape).
    case key
    /// An accessibility switch (`SwitchScanner`: one key steps through the choices, a long press selects).
    case switchAccess = "switch"
    /// A tap on a list row (opens its detail page).
    case tap
}

/// One completed action, emitted exactly once by a deck; the app stores it.
public struct Decision: Hashable, Sendable {
    public var cardID: String
    public var action: DecisionAction
    /// When the action completed (the release, or the programmatic call).
    public var time: Instant
    /// Seconds the card was on top (stack) or on screen (list) before the action.
    public var dwellSeconds: Double
    /// 0-based position at which the card was shown in this visit (stack: how many cards were
    /// decided before it since the last reset; list: the row's index); nil when unknown.
    public var position: Int?
    /// How the decision was given; nil when the deck cannot tell (a `perform` from outside:
    /// the caller knows, e.g. the app stamps `.key` on what a key press produced).
    public var method: InputMethod?

    public init(
        cardID: String, action: DecisionAction, time: Instant, dwellSeconds: Double, position: Int? = nil,
        method: InputMethod? = nil
    ) {
        self.cardID = cardID
        self.action = action
        self.time = time
        self.dwellSeconds = dwellSeconds
        self.position = position
        self.method = method
    }
}
