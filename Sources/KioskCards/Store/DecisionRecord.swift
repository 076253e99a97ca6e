import CardModel

/// One stored decision: the model's `Decision` with where, who and when around it.
struct DecisionRecord: Hashable, Sendable {
    var kioskID: String
    /// The visitor session (reset after the idle timeout).
    var sessionID: String
    var deckID: String
    var deckVersion: Int
    var cardID: String
    var action: DecisionAction
    /// When it happened on the wall clock, Unix epoch milliseconds (UTC).
    var wallTimeMs: Int64
    /// When it happened on CLOCK_MONOTONIC (the model's `Instant`), nanoseconds since boot.
    var monotonicNs: Int64
    /// How long the card was on top (stack) or on screen (list) first, milliseconds.
    var dwellMs: Int64

    /// "2024-05-01T12:34:56.789Z".
    var wallTimeISO: String { WallClock.iso8601(milliseconds: wallTimeMs) }

    init(
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

    /// A record for `decision`; its wall time is derived from a pair of clock readings taken
    /// together (`wallNow` and `monotonicNow`), so a decision reported late still gets the
    /// wall time at which it happened.
    init(
        _ decision: Decision, kioskID: String, sessionID: String, deck: DeckFile,
        wallNow: Int64, monotonicNow: Instant
    ) {
        let ageMs = (monotonicNow.nanoseconds - decision.time.nanoseconds) / 1_000_000
        self.init(
            kioskID: kioskID, sessionID: sessionID, deckID: deck.id, deckVersion: deck.version,
            cardID: decision.cardID, action: decision.action, wallTimeMs: wallNow - ageMs,
            monotonicNs: decision.time.nanoseconds, dwellMs: Int64((decision.dwellSeconds * 1000).rounded()))
    }
}
