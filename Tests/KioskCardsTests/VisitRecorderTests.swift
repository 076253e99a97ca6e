import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskStore
@testable import KioskSystem

/// The running kiosk's visit recording (`App/VisitRecorder.swift`) driven the way `KioskApp`
/// drives it — the real `VisitorSession`'s events and the deck's decisions in, the items into
/// the real `DecisionStore` — and the `visits` / `kiosk_events` rows read back from SQLite.
@Suite struct VisitRecorderTests {
    static let wallBase: Int64 = 1_800_000_000_000
    static func wall(_ t: Instant) -> Int64 { wallBase + t.nanoseconds / 1_000_000 }

    struct Kiosk {
        var session: VisitorSession
        var recorder = VisitRecorder(kioskID: "k1", deckID: "deck", deckVersion: 3, deckCardCount: 5)
        var items: [StoreItem] = []

        /// `KioskApp.recordVisits`: the session's events through the recorder.
        mutating func recordVisits() {
            for event in session.takeVisitEvents() {
                items += recorder.record(event, wallMs: VisitRecorderTests.wall)
            }
        }

        /// `KioskApp.collectDecisions` for one decision.
        mutating func decide(
            _ card: String, _ action: DecisionAction, at seconds: Double, position: Int, _ method: InputMethod
        ) {
            let d = Decision(
                cardID: card, action: action, time: .seconds(seconds), dwellSeconds: 1, position: position,
                method: method)
            session.noteActivity(at: d.time)
            recordVisits()
            recorder.note(d)
        }
    }

    @Test func visitsFromTheSessionAreStoredWithTheirEndReasonCardsAndAccess() throws {
        var ids = 0
        var k = Kiosk(
            session: VisitorSession(policy: .init(idleTimeout: 30, warningSeconds: 10), now: .seconds(100)) {
                ids += 1
                return "visit-\(ids)"
            })
        k.recordVisits()  // the attract screen at start

        // Visit 1: a swipe, then a button, an undo further on; walks away (idle).
        _ = k.session.handleKey(at: .seconds(105))
        k.recordVisits()
        #expect(k.recorder.open?.sessionID == "visit-1")
        k.decide("karte-1", .swipedRight, at: 106, position: 0, .swipe)
        k.decide("karte-2", .swipedLeft, at: 107, position: 1, .button)
        k.decide("karte-2", .undone, at: 108, position: 4, .swipe)  // an undo does not advance the visit
        _ = k.session.advance(to: .seconds(150))
        k.recordVisits()
        #expect(k.recorder.open == nil)

        // Visit 2: every card by swipe, completed.
        _ = k.session.handleKey(at: .seconds(200))
        k.recordVisits()
        for p in 0..<5 { k.decide("karte-\(p + 1)", .swipedRight, at: 201 + Double(p), position: p, .swipe) }
        k.session.deckCompleted = true
        _ = k.session.advance(to: .seconds(260))
        k.recordVisits()

        // Visit 3: the kiosk stops before any decision.
        _ = k.session.handleKey(at: .seconds(300))
        k.recordVisits()
        k.session.endVisit(reason: .shutdown, at: .seconds(305))
        k.recordVisits()
        // An end for a visit that is not open records nothing.
        #expect(
            k.recorder.record(.ended(sessionID: "visit-1", at: .seconds(400), reason: .reset), wallMs: Self.wall)
                .isEmpty)

        let dir = DeckFixtures.temporaryDirectory("visit-recorder")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        for item in k.items {
            switch item {
            case .decision(let d): store.enqueue(d)
            case .visit(let v): store.enqueue(visit: v)
            case .event(let e): store.enqueue(event: e)
            }
        }
        #expect(store.flush(stalledFor: 60))
        store.close()

        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        let stmt = try db.prepare(
            """
            SELECT session_id, kiosk_id, deck_id, deck_version, started_wall_ms, ended_wall_ms, end_reason, cards_shown,
                   accessibility_used FROM visits ORDER BY id
            """)
        var rows: [[String]] = []
        while try stmt.step() { rows.append((0..<9).map { stmt.isNull(Int32($0)) ? "NULL" : stmt.text(Int32($0)) }) }
        let w = { (s: Double) in String(Self.wall(.seconds(s))) }
        #expect(
            rows == [
                // Ends at its last activity (108 s); cards 1 and 2 were decided, so 3 reached the top.
                ["visit-1", "k1", "deck", "3", w(105), w(108), "idle", "3", "1"],
                ["visit-2", "k1", "deck", "3", w(200), w(205), "completed", "5", "0"],
                ["visit-3", "k1", "deck", "3", w(300), w(305), "shutdown", "1", "0"],
            ])
        let events = try db.prepare("SELECT kiosk_id, kind, wall_ms FROM kiosk_events ORDER BY id")
        var attract: [String] = []
        while try events.step() {
            #expect(events.text(0) == "k1" && events.text(1) == KioskEventRecord.attractShown)
            attract.append(events.text(2))
        }
        // At start, and after each visit: when the session noticed the timeout (the app's timer
        // fires at the deadline; here the session was advanced to 150 s and 260 s), or at once
        // after a shutdown.
        #expect(attract == [w(100), w(150), w(260), w(305)])
    }
}
