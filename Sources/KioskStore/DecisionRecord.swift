import CardModel
import KioskSystem

/// One stored decision: the model's `Decision` with where, who and when around it.
package struct DecisionRecord: Hashable, Sendable {
    package var kioskID: String
    /// The visitor session (reset after the idle timeout).
    package var sessionID: String
    package var deckID: String
    package var deckVersion: Int
    package var cardID: String
    package var action: DecisionAction
    /// When it happened on the wall clock, Unix epoch milliseconds (UTC).
    package var wallTimeMs: Int64
    /// When it happened on CLOCK_MONOTONIC (the model's `Instant`), nanoseconds since boot.
    package var monotonicNs: Int64
    /// How long the card was on top (stack) or on screen (list) first, milliseconds.
    package var dwellMs: Int64
    /// Inside the deck's cooldown after the visit's previous decision (stored flagged).
    package var tooFast = false

    /// "2024-05-01T12:34:56.789Z".
    package var wallTimeISO: String { WallClock.iso8601(milliseconds: wallTimeMs) }

    package init(
        kioskID: String, sessionID: String, deckID: String, deckVersion: Int, cardID: String,
        action: DecisionAction, wallTimeMs: Int64, monotonicNs: Int64, dwellMs: Int64
    ) {
        self.kioskID = kioskID
        self.sessionID = sessionID
        self.deckID = deckID
        self.deckVersion = deckVersion
        self.cardID = cardID
        self.action = action
        self.wallTimeMs = wallTimeMs
        self.monotonicNs = monotonicNs
        self.dwellMs = dwellMs
    }
}
