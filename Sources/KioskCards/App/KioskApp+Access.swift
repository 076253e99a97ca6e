import CardModel
import KioskSystem

/// The visible per-visit accessibility control (`AccessibilityControl`, bottom-left corner):
/// what it does to the deck, the session and the record.
extension KioskApp {
    /// Gives `frame` to the control first; true when the control took it (the deck must not
    /// see it). A switch that changed restyles the deck at once and, with any mode on, the
    /// inactivity warning lasts at least 20 s (`VisitorSession.Policy.accessible`).
    func accessTake(_ frame: TouchFrame) -> Bool {
        let before = accessControl.modes
        guard accessControl.take(frame) else { return false }
        let modes = accessControl.modes
        if modes != before { applyAccessibility(modes, at: frame.time) }
        return true
    }

    func applyAccessibility(_ modes: VisitAccessibility, at time: Instant) {
        deck.setAccessibility(modes, at: time)
        if modes.isAnyOn { visitUsedMode = true }
        session.policy = sessionPolicy(modes)
        rescheduleSession()
        Log.info(
            "access: large text \(modes.largeText ? "on" : "off"), high contrast \(modes.highContrast ? "on" : "off"), "
                + "reduced motion \(modes.reducedMotion ? "on" : "off") for this visit")
    }

    /// The policy for the deck with `modes`: the accessible one (warning ≥ 20 s) while any is on.
    func sessionPolicy(_ modes: VisitAccessibility) -> VisitorSession.Policy {
        let base = config.sessionPolicy(deck: deckFile)
        return modes.isAnyOn ? base.accessible() : base
    }

    /// The next visitor: every mode off (the deck's `reset` already turned its own off).
    func resetAccessibility() {
        accessControl.reset()
        visitUsedMode = false
        session.policy = sessionPolicy(accessControl.modes)
    }
}
