/// The report's inputs, shared by its back ends: the filter and the aggregated counts.

/// Which rows a report covers and how it treats suspected button-mashing.
package struct ReportFilter: Hashable, Sendable {
    /// Wall time, Unix ms; `since` inclusive, `until` exclusive; nil: unbounded.
    package var sinceMs: Int64?
    package var untilMs: Int64?
    package var kioskID: String?
    package var deckID: String?
    /// A visit is suspected mashing with at least `mashMinimum` left/right decisions, all in one
    /// direction, each faster than `cooldownMs`.
    package var cooldownMs: Int64 = 700
    package var mashMinimum = 4
    /// Counted in the rates anyway (by default they are excluded, and shown as excluded).
    package var includeMashing = false
    /// "Too fast": a dwell below this.
    package var tooFastMs: Int64 = 300

    package init(sinceMs: Int64? = nil, untilMs: Int64? = nil, kioskID: String? = nil, deckID: String? = nil) {
        self.sinceMs = sinceMs
        self.untilMs = untilMs
        self.kioskID = kioskID
        self.deckID = deckID
    }
}

/// What a report is made of: counts aggregated by the database, one array per figure. The
/// report computes rates, intervals and privacy suppression from these; nothing here is per row.
package struct ReportAggregates: Hashable, Sendable {
    /// What the source holds (older schemas lack visits, events, positions and input methods).
    package var hasVisits = false
    package var hasEvents = false
    package var hasPositions = false
    package var decisionRows = 0
    package var firstMs: Int64?
    package var lastMs: Int64?

    package struct Card: Hashable, Sendable {
        package var deckID: String
        package var deckVersion: Int
        package var cardID: String
        /// Where the card stood in its deck version, in deck order (1 = first card): the position
        /// it was shown at most often (ties: the earlier). nil: positions not recorded.
        package var usualPosition: Int?
        /// Final left/right answers in counted visits, the right ones, the visits behind them.
        package var n = 0
        package var right = 0
        package var visits = 0
        package var medianDwellMs: Int64?
        package var p90DwellMs: Int64?
        package var tooFast = 0

        package init(
            deckID: String, deckVersion: Int, cardID: String, n: Int = 0, right: Int = 0, visits: Int = 0,
            medianDwellMs: Int64? = nil,
            p90DwellMs: Int64? = nil, tooFast: Int = 0
        ) {
            self.deckID = deckID
            self.deckVersion = deckVersion
            self.cardID = cardID
            self.n = n
            self.right = right
            self.visits = visits
            self.medianDwellMs = medianDwellMs
            self.p90DwellMs = p90DwellMs
            self.tooFast = tooFast
        }
    }
    package var cards: [Card] = []

    /// Visits, by how they ended (nil: not recorded — still open, or from before schema 4).
    package var endReasons: [String?: Int] = [:]
    package var visits = 0
    package var visitsWithDecision = 0
    package var attractShown: Int?

    /// One deck id@version: its visits, how far they got, and approval by position. Decks of
    /// different lengths (or versions of one deck) never share a funnel, a drop-off or a
    /// position. Positions are 1-based here and everywhere in the report (1 = the first card).
    package struct Deck: Hashable, Sendable {
        package var deckID: String
        package var version: Int
        /// Visits started on this deck version, those with a decision, those that completed it.
        package var visits = 0
        package var visitsWithDecision = 0
        package var completed = 0
        /// Visits that did not complete the deck, by their furthest decided position: where they stopped.
        package var stoppedAt: [Int: Int] = [:]
        /// Visits that completed the deck, by their furthest decided position.
        package var completedAt: [Int: Int] = [:]
        /// Final answers by the position the card was shown at (counted visits, positioned rows only).
        package var positions: [Int: Cell] = [:]

        package init(deckID: String, version: Int) {
            self.deckID = deckID
            self.version = version
        }

        /// "seed-stack@2".
        package var name: String { "\(deckID)@\(version)" }
    }
    package var decks: [Deck] = []

    package struct Cell: Hashable, Sendable {
        package var visits = 0
        package var n = 0
        package var right = 0

        package init(visits: Int = 0, n: Int = 0, right: Int = 0) {
            self.visits = visits
            self.n = n
            self.right = right
        }
    }
    /// Keyed by weekday (0 = Monday) × 24 + hour, local time of the report's time zone.
    package var hourWeekday: [Int: Cell] = [:]
    /// Keyed by local date "YYYY-MM-DD".
    package var days: [String: Cell] = [:]

    package struct Kiosk: Hashable, Sendable {
        package var kioskID: String
        package var visits = 0
        package var completed = 0
        package var n = 0
        package var right = 0
        package var activeDays = 0
        package var lastSeenMs: Int64 = 0
        /// Fleet only (heartbeats): the share of in-service time covered by heartbeats, and the
        /// server's receive time of the last heartbeat. nil from a kiosk's SQLite.
        package var uptimeShare: Double?
        package var lastHeartbeatMs: Int64?

        package init(
            kioskID: String, visits: Int = 0, completed: Int = 0, n: Int = 0, right: Int = 0, activeDays: Int = 0,
            lastSeenMs: Int64 = 0
        ) {
            self.kioskID = kioskID
            self.visits = visits
            self.completed = completed
            self.n = n
            self.right = right
            self.activeDays = activeDays
            self.lastSeenMs = lastSeenMs
        }
    }
    package var kiosks: [Kiosk] = []

    /// One card of a deck version in one segment (a local day, or a kiosk): its final answers in
    /// counted visits and the right ones (each visit has at most one final answer per card, so
    /// `n` is also its visits).
    package struct CardCell: Hashable, Sendable {
        package var deckID: String
        package var deckVersion: Int
        package var cardID: String
        /// The local date "YYYY-MM-DD" (`cardDays`) or the kiosk id (`kioskCards`).
        package var segment: String
        package var n = 0
        package var right = 0

        package init(deckID: String, deckVersion: Int, cardID: String, segment: String, n: Int = 0, right: Int = 0) {
            self.deckID = deckID
            self.deckVersion = deckVersion
            self.cardID = cardID
            self.segment = segment
            self.n = n
            self.right = right
        }
    }
    /// Each card's answers per local day (approval over time), by deck, version, card, day.
    package var cardDays: [CardCell] = []
    /// Each card's answers per kiosk, by deck, version, card, kiosk.
    package var kioskCards: [CardCell] = []

    /// One QR code of a deck version at one kiosk: a card's, or the end state's (`cardID` nil).
    /// The visits that showed it, and the visits that reached it (its card decided on or its
    /// code shown; for the end state, the deck completed or its code shown).
    package struct LinkCode: Hashable, Sendable {
        package var deckID: String
        package var deckVersion: Int
        /// The card's id; nil: the end state's code.
        package var cardID: String?
        package var kioskID: String
        package var shownVisits = 0
        package var reachedVisits = 0

        package init(
            deckID: String, deckVersion: Int, cardID: String?, kioskID: String, shownVisits: Int = 0,
            reachedVisits: Int = 0
        ) {
            self.deckID = deckID
            self.deckVersion = deckVersion
            self.cardID = cardID
            self.kioskID = kioskID
            self.shownVisits = shownVisits
            self.reachedVisits = reachedVisits
        }
    }
    /// Every code shown in the period, per deck version, code and kiosk (unordered).
    package var linkCodes: [LinkCode] = []
    /// `qr_shown` events in the period whose code is not recorded (stored before the kiosk kept
    /// which code it was); 0 without kiosk events.
    package var linkShownNotRecorded = 0

    /// Counted visits' left/right/removed decision rows, and their undo rows.
    package var decidedRows = 0
    package var undoRows = 0
    /// Non-undo decision rows by input method (nil: not recorded), all visits.
    package var inputMethods: [String?: Int] = [:]
    /// Non-undo decision rows by the language the visitor read the card in (nil: not recorded), all visits.
    package var languages: [String?: Int] = [:]
    /// Non-undo decision rows by whether an accessibility mode was on by then (nil: not recorded), all visits.
    package var accessibilityModes: [Bool?: Int] = [:]
    package var mashingVisits = 0
    package var mashingDecisions = 0
    /// Counted final answers, and those below the too-fast limit.
    package var finalAnswers = 0
    package var tooFastAnswers = 0

    package init() {}
}
