import CLinux
import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskStore
@testable import KioskSystem

/// The local half of the fleet sync (migration 3) on real SQLite files, no server needed.
@Suite struct StoreSyncTests {
    func record(_ card: String, _ action: DecisionAction, session: String = "s") -> DecisionRecord {
        DecisionRecord(
            kioskID: "k", sessionID: session, deckID: "d", deckVersion: 1, cardID: card, action: action,
            wallTimeMs: 1_767_225_600_000, monotonicNs: 1, dwellMs: 1)
    }

    @Test func anUndoRefersToTheDecisionItTakesBackAndDeletesNothing() throws {
        let dir = DeckFixtures.temporaryDirectory("store-sync")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        // a right, b left, undo (b), undo (a), a again, undo (the new a), c in another session, undo there.
        let script: [(String, DecisionAction, String)] = [
            ("a", .swipedRight, "s"), ("b", .swipedLeft, "s"), ("b", .undone, "s"), ("a", .undone, "s"),
            ("a", .swipedLeft, "s"), ("a", .undone, "s"), ("a", .swipedRight, "t"), ("a", .undone, "t"),
        ]
        for (card, action, session) in script { store.enqueue(record(card, action, session: session)) }
        #expect(store.flush(stalledFor: 60))
        store.close()
        let rows = try DecisionSync.pending(dataDirectory: dir, target: "t", limit: 100).rows
        #expect(rows.count == script.count)
        #expect(rows.map(\.retractsUID) == [nil, nil, rows[1].uid, rows[0].uid, nil, rows[4].uid, nil, rows[6].uid])
        #expect(rows.allSatisfy { $0.record.bootID == BootID.current })
        #expect(rows.allSatisfy { $0.record.clockSynced == ClockSync.isSynchronised() })
    }

    @Test func theCursorOnlyMovesForwardAndCountsWhatIsLeft() throws {
        let dir = DeckFixtures.temporaryDirectory("store-cursor")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        for n in 0..<25 { store.enqueue(record("c\(n)", .swipedLeft)) }
        #expect(store.flush(stalledFor: 60))
        store.close()
        let first = try DecisionSync.pending(dataDirectory: dir, target: "fleet", limit: 10)
        #expect(first.rows.count == 10 && first.unsent == 25)
        try DecisionSync.advance(dataDirectory: dir, target: "fleet", to: try #require(first.rows.last).id)
        try DecisionSync.advance(dataDirectory: dir, target: "fleet", to: 3)  // a stale writer: ignored
        let second = try DecisionSync.pending(dataDirectory: dir, target: "fleet", limit: 10)
        #expect(second.unsent == 15)
        #expect(second.rows.first?.id == first.rows.last.map { $0.id + 1 })
        // Another target has its own cursor.
        #expect(try DecisionSync.pending(dataDirectory: dir, target: "other", limit: 1).unsent == 25)
    }

    @Test func aMissingDatabaseSaysWhereItLooked() {
        do {
            _ = try DecisionSync.pending(dataDirectory: "/nonexistent-kiosk-data", target: "fleet", limit: 1)
            Issue.record("no error")
        } catch {
            #expect("\(error)".contains("check --data"))
        }
    }

    @Test func clockIsSynchronisedUnlessUnsyncOrTimeError() {
        #expect(ClockSync.synchronised(state: TIME_OK, status: 0))
        #expect(!ClockSync.synchronised(state: TIME_OK, status: STA_UNSYNC))
        #expect(!ClockSync.synchronised(state: TIME_ERROR, status: 0))
        #expect(ClockSync.synchronised(state: TIME_INS, status: STA_PLL))
    }
}
