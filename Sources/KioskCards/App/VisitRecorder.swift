import CardModel
import KioskStore
import KioskSystem

/// Turns the visitor session's visit events and the deck's decisions into what the store keeps:
/// a visit row when a visit starts, the same row completed when it ends (reason, cards shown,
/// whether an accessible way in was used), an event each time the attract screen appears, and
/// one each time a visit first has a QR code in front of it (which card's, or the end state's).
///
/// Pure apart from its caller's clock: the wall time of an instant comes in as a function, so
/// the running kiosk (real clocks) and `simulate` (a simulated clock) share it.
struct VisitRecorder {
    let kioskID: String
    var deckID: String
    var deckVersion: Int
    /// Cards in the deck (a stack shows at most this many in a visit).
    var deckCardCount: Int
    private(set) var open: VisitRecord?
    /// The highest position of a decided card in the open visit (-1: none yet).
    private var maxDecidedPosition = -1
    private var accessible = false

    init(kioskID: String, deckID: String, deckVersion: Int, deckCardCount: Int) {
        self.kioskID = kioskID
        self.deckID = deckID
        self.deckVersion = deckVersion
        self.deckCardCount = deckCardCount
    }

    /// The store items for one visit event; `wallMs` maps a monotonic instant to wall time.
    mutating func record(_ event: VisitorSession.VisitEvent, wallMs: (Instant) -> Int64) -> [StoreItem] {
        switch event {
        case .attractShown(let t):
            return [
                .event(
                    KioskEventRecord(
                        kioskID: kioskID, kind: KioskEventRecord.attractShown, wallMs: wallMs(t),
                        monotonicNs: t.nanoseconds))
            ]
        case .linkShown(let id, let card, let t):
            return [
                .event(
                    KioskEventRecord(
                        kioskID: kioskID, kind: KioskEventRecord.linkShown, wallMs: wallMs(t),
                        monotonicNs: t.nanoseconds, sessionID: id, code: card.map { .card($0) } ?? .endState))
            ]
        case .started(let id, let t):
            let visit = VisitRecord(
                sessionID: id, kioskID: kioskID, deckID: deckID, deckVersion: deckVersion, startedWallMs: wallMs(t),
                startedMonotonicNs: t.nanoseconds)
            open = visit
            maxDecidedPosition = -1
            accessible = false
            return [.visit(visit)]
        case .ended(let id, let t, let reason):
            guard var visit = open, visit.sessionID == id else { return [] }
            visit.endedWallMs = max(visit.startedWallMs, wallMs(t))
            visit.endReason = reason.rawValue
            visit.cardsShown = cardsShown
            visit.accessibilityUsed = accessible
            open = nil
            return [.visit(visit)]
        }
    }

    /// Notes a decision of the open visit.
    mutating func note(_ decision: Decision) {
        if decision.action != .undone, let p = decision.position { maxDecidedPosition = max(maxDecidedPosition, p) }
        switch decision.method {
        case .button, .key, .switchAccess: accessible = true
        case .swipe, .tap, nil: break
        }
        if decision.action == .removed { accessible = true }
    }

    /// Cards that reached the top: the first at the visit's start, then one more after each
    /// decided position, up to the deck's size.
    var cardsShown: Int {
        guard deckCardCount > 0 else { return max(0, maxDecidedPosition + 1) }
        return min(deckCardCount, maxDecidedPosition + 2)
    }
}
