import CardModel

// The rows a kiosk records, defined once for every target that handles them: `KioskStore`
// writes and reads them (SQLite), `KioskFleet` sends them (PostgreSQL), the executable makes
// them from the core's effects. They sit on the floor, not in `CardModel`, because they are
// the storage and transport format (row ids, uids, boot ids, verbatim names from newer
// versions) rather than the visit's rules, and `CardModel`'s public API should not freeze it.

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
    /// 0-based position at which the card was shown in its visit; nil when unknown (rows
    /// stored before schema 4 have none).
    package var position: Int?
    /// How the decision was given; nil when unknown.
    package var inputMethod: InputMethod?

    /// The kernel's boot id (/proc/sys/kernel/random/boot_id) when it happened, so monotonic
    /// times from different boots are never compared; nil: filled in by the store when written.
    package var bootID: String?
    /// Whether the kernel considered the wall clock synchronised (adjtimex(2): neither
    /// STA_UNSYNC nor TIME_ERROR) — a Pi has no RTC, so early wall times may be 1970 or stale;
    /// nil: filled in by the store when written.
    package var clockSynced: Bool?
    /// Inside the deck's cooldown after the visit's previous decision (stored flagged).
    package var tooFast = false
    /// The language the visitor read the deck in (a BCP 47 tag); nil when unknown.
    package var language: String?
    /// Whether the visit had an accessibility mode on (large text, high contrast, reduced
    /// motion from the visible control, or the config's accessible mode) by this decision;
    /// nil: unknown (rows stored before schema 6).
    package var accessibilityMode: Bool?

    /// "2024-05-01T12:34:56.789Z".
    package var wallTimeISO: String { WallClock.iso8601(milliseconds: wallTimeMs) }

    package init(
        kioskID: String, sessionID: String, deckID: String, deckVersion: Int, cardID: String,
        action: DecisionAction, wallTimeMs: Int64, monotonicNs: Int64, dwellMs: Int64, position: Int? = nil,
        inputMethod: InputMethod? = nil, bootID: String? = nil, clockSynced: Bool? = nil
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
        self.position = position
        self.inputMethod = inputMethod
        self.bootID = bootID
        self.clockSynced = clockSynced
    }
}

/// One visit: from the first touch after the attract screen to its end, stored when it
/// starts (end fields nil) and again, complete, when it ends.
package struct VisitRecord: Hashable, Sendable {
    package var sessionID: String
    package var kioskID: String
    package var deckID: String
    package var deckVersion: Int
    package var startedWallMs: Int64
    package var startedMonotonicNs: Int64
    package var endedWallMs: Int64?
    /// `VisitorSession.VisitEndReason`'s raw value; nil while the visit is open.
    package var endReason: String?
    /// Cards that reached the top (stack) or were acted on (list) during the visit.
    package var cardsShown: Int?
    /// Whether the visit used an accessible way in: an on-screen button, a key, a switch, or
    /// the "remove card" action.
    package var accessibilityUsed: Bool?

    package init(
        sessionID: String, kioskID: String, deckID: String, deckVersion: Int, startedWallMs: Int64,
        startedMonotonicNs: Int64, endedWallMs: Int64? = nil, endReason: String? = nil, cardsShown: Int? = nil,
        accessibilityUsed: Bool? = nil
    ) {
        self.sessionID = sessionID
        self.kioskID = kioskID
        self.deckID = deckID
        self.deckVersion = deckVersion
        self.startedWallMs = startedWallMs
        self.startedMonotonicNs = startedMonotonicNs
        self.endedWallMs = endedWallMs
        self.endReason = endReason
        self.cardsShown = cardsShown
        self.accessibilityUsed = accessibilityUsed
    }
}

/// A kiosk event that is not a decision: the attract screen appeared, a link's QR code was
/// shown to a visitor. The kind is free text in both stores, so a new kind needs no migration.
package struct KioskEventRecord: Hashable, Sendable {
    package static let attractShown = "attract_shown"
    package static let linkShown = "qr_shown"

    package var kioskID: String
    package var kind: String
    package var wallMs: Int64
    package var monotonicNs: Int64
    /// The visit it happened in (`qr_shown`); nil: none (`attract_shown`), or a row stored
    /// before the store kept it (schema 8).
    package var sessionID: String?
    /// Which code a `qr_shown` event showed; nil: not a code, or a row stored before the store
    /// kept it (schema 8) — an unknown code, never guessed.
    package var code: ShownCode?

    package init(
        kioskID: String, kind: String, wallMs: Int64, monotonicNs: Int64, sessionID: String? = nil,
        code: ShownCode? = nil
    ) {
        self.kioskID = kioskID
        self.kind = kind
        self.wallMs = wallMs
        self.monotonicNs = monotonicNs
        self.sessionID = sessionID
        self.code = code
    }
}

/// Which QR code a visitor saw: a card's (by its id) or the end state's. Stored as two
/// columns, `code_of` ('card' or 'end') and `card_id` (the card's id; NULL for the end state),
/// so no card id, however odd, can pass for the end state; both NULL: not recorded.
package enum ShownCode: Hashable, Sendable {
    case card(String)
    case endState

    /// `code_of` for a card's code.
    package static let cardColumnValue = "card"
    /// `code_of` for the end state's code.
    package static let endStateColumnValue = "end"

    /// The `code_of` column.
    package var codeOf: String {
        switch self {
        case .card: Self.cardColumnValue
        case .endState: Self.endStateColumnValue
        }
    }

    /// The `card_id` column.
    package var cardID: String? {
        if case .card(let id) = self { return id }
        return nil
    }

    /// From the stored columns; nil when they name no code this version knows (NULL on older
    /// rows, or a card code without its id).
    package init?(codeOf: String?, cardID: String?) {
        switch (codeOf, cardID) {
        case (Self.cardColumnValue?, let id?): self = .card(id)
        case (Self.endStateColumnValue?, _): self = .endState
        default: return nil
        }
    }
}

/// A stored decision as the sync reads it back and sends it: the record with its row id (storage
/// order, what a target's cursor counts), its uid (unique across kiosks and restarts, the
/// target's conflict key) and the columns kept verbatim as stored.
package struct StoredDecision: Hashable, Sendable {
    /// `decisions.id`.
    package var id: Int64
    /// `decisions.uid`.
    package var uid: String
    package var record: DecisionRecord
    /// The action as stored (verbatim, in case a newer version wrote one this one does not know).
    package var actionName: String
    /// For an `undone` row: the uid of the decision it takes back.
    package var retractsUID: String?
    /// As stored (nil on rows from before the column, or a schema without it).
    package var inputMethodName: String?
    package var discarded: Bool?
    package var tooFast: Bool?

    package init(
        id: Int64, uid: String, record: DecisionRecord, actionName: String, retractsUID: String? = nil,
        inputMethodName: String? = nil, discarded: Bool? = nil, tooFast: Bool? = nil
    ) {
        self.id = id
        self.uid = uid
        self.record = record
        self.actionName = actionName
        self.retractsUID = retractsUID
        self.inputMethodName = inputMethodName
        self.discarded = discarded
        self.tooFast = tooFast
    }
}

/// A stored kiosk event as the sync sends it: the record with its row id and its uid.
package struct StoredEvent: Hashable, Sendable {
    /// `kiosk_events.id`.
    package var id: Int64
    /// `kiosk_events.uid`, the target's conflict key.
    package var uid: String
    package var event: KioskEventRecord

    package init(id: Int64, uid: String, event: KioskEventRecord) {
        self.id = id
        self.uid = uid
        self.event = event
    }
}
