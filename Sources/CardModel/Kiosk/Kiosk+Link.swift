/// The record that a link's QR code was shown: when a visitor has the stack's top card with a
/// link, or the end state with one, in front of them, the visit notes it once.
extension Kiosk {
    /// Which code is on screen for which visit.
    struct LinkShown: Hashable, Sendable {
        var sessionID: String
        /// The card's id; nil for the end state's code.
        var card: String?
    }

    /// Adds a `.linkShown` visit event when a code not yet noted for this visit is on screen.
    mutating func noteLinkShown(at time: Instant) {
        guard session.phase == .active, !staffMenu.isOpen, let stack = deck as? StackDeck,
            let shown = stack.shownLink
        else { return }
        let now = LinkShown(sessionID: session.sessionID, card: shown.card)
        guard now != linkShown else { return }
        linkShown = now
        effects.append(.visit(.linkShown(sessionID: now.sessionID, card: now.card, at: time)))
    }
}

extension StackDeck {
    /// The code on screen: the top card's link (`card` its id), else the end state's once
    /// every card is gone (`card` nil); nil when neither has one.
    public var shownLink: (card: String?, link: String)? {
        if let top = cards.first?.card { return top.link.map { (top.id, $0) } }
        return options.emptyLink.map { (nil, $0) }
    }
}
