import KioskDeckFiles

/// When a fleet deck replaces the one on screen: a visit in progress finishes on the deck it
/// began with (like a closing time, which also waits for the visitor); the newest arrival is
/// held and applied when the visit ends. Pure: the app feeds it the visit's phase.
struct FleetDeckHold {
    /// The deck waiting for the visit to end.
    private(set) var held: DeckFile?

    /// A deck arrived while `onScreen` shows. Returns the deck to apply now, or nil (held, or
    /// nothing to do because it is the deck on screen).
    mutating func arrived(_ file: DeckFile, onScreen: DeckFile, visitActive: Bool) -> DeckFile? {
        if file == onScreen {
            held = nil  // e.g. a rollback while the newer deck was still waiting
            return nil
        }
        if visitActive {
            held = file
            return nil
        }
        held = nil
        return file
    }

    /// The visit ended: the held deck, if any, applies now.
    mutating func visitEnded() -> DeckFile? {
        defer { held = nil }
        return held
    }
}
