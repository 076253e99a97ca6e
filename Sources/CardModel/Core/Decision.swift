/// What a visitor did with a card.
public enum DecisionAction: String, Hashable, Sendable, CaseIterable {
    case swipedLeft
    case swipedRight
    /// Taken off the stack without a side (the accessible "Karte entfernen").
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

/// One completed action, emitted exactly once by a deck; the app stores it.
public struct Decision: Hashable, Sendable {
    public var cardID: String
    public var action: DecisionAction
    /// When the action completed (the release, or the programmatic call).
    public var time: Instant
    /// Seconds the card was on top (stack) or on screen (list) before the action.
    public var dwellSeconds: Double

    public init(cardID: String, action: DecisionAction, time: Instant, dwellSeconds: Double) {
        self.cardID = cardID
        self.action = action
        self.time = time
        self.dwellSeconds = dwellSeconds
    }
}
