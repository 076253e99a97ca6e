import CardModel
import KioskDeckFiles
import KioskSystem

extension DecisionRecord {
    /// A record for `decision`; its wall time is derived from a pair of clock readings taken
    /// together (`wallNow` and `monotonicNow`), so a decision reported late still gets the
    /// wall time at which it happened.
    package init(
        _ decision: Decision, kioskID: String, sessionID: String, deck: DeckFile,
        wallNow: Int64, monotonicNow: Instant
    ) {
        self.init(
            decision, kioskID: kioskID, sessionID: sessionID, deckID: deck.id, deckVersion: deck.version,
            wallNow: wallNow, monotonicNow: monotonicNow)
    }

    package init(
        _ decision: Decision, kioskID: String, sessionID: String, deckID: String, deckVersion: Int,
        wallNow: Int64, monotonicNow: Instant
    ) {
        let ageMs = (monotonicNow.nanoseconds - decision.time.nanoseconds) / 1_000_000
        self.init(
            kioskID: kioskID, sessionID: sessionID, deckID: deckID, deckVersion: deckVersion,
            cardID: decision.cardID, action: decision.action, wallTimeMs: wallNow - ageMs,
            monotonicNs: decision.time.nanoseconds, dwellMs: Int64((decision.dwellSeconds * 1000).rounded()),
            position: decision.position, inputMethod: decision.method)
    }
}

extension DecisionRecord {
    /// The record of a decision the kiosk's rules made, with its visit's context.
    package init(_ k: KioskDecision, kioskID: String, wallNow: Int64, monotonicNow: Instant) {
        self.init(
            k.decision, kioskID: kioskID, sessionID: k.sessionID, deckID: k.deckID, deckVersion: k.deckVersion,
            wallNow: wallNow, monotonicNow: monotonicNow)
        tooFast = k.tooFast
        language = k.language
        accessibilityMode = k.accessibilityMode
    }
}
