import CSQLite
import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskDeckFiles
@testable import KioskStore

/// Migration 5 (operations) on real SQLite files: discarded visits, the cooldown flag, the
/// maintenance log.
@Suite struct StoreOperationsTests {
    /// (session, discarded, too_fast) of every row, in storage order.
    func marks(_ dir: String) throws -> [(String, Int64, Int64)] {
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        let stmt = try db.prepare("SELECT session_id, discarded, too_fast FROM decisions ORDER BY id")
        var out: [(String, Int64, Int64)] = []
        while try stmt.step() { out.append((stmt.text(0), stmt.int64(1), stmt.int64(2))) }
        return out
    }

    @Test func discardingAVisitMarksOnlyItsDecisionsAndKeepsThem() throws {
        let dir = DeckFixtures.temporaryDirectory("store-discard")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir, batchLimit: 3)
        for n in 0..<5 { store.enqueue(StoreTestSupport.record(n, session: "keep-me")) }
        for n in 5..<12 { store.enqueue(StoreTestSupport.record(n, session: "walked-away")) }
        // Queued right behind the visit's decisions, before they are all written (batches of 3).
        store.discardVisit(sessionID: "walked-away")
        var late = StoreTestSupport.record(12, session: "next")
        late.tooFast = true
        store.enqueue(late)
        #expect(store.flush(stalledFor: 60))
        store.close()
        let rows = try marks(dir)
        #expect(rows.count == 13)
        #expect(rows.filter { $0.0 == "walked-away" }.allSatisfy { $0.1 == 1 })
        #expect(rows.filter { $0.0 == "walked-away" }.count == 7)
        #expect(rows.filter { $0.0 != "walked-away" }.allSatisfy { $0.1 == 0 })
        #expect(rows.map(\.2) == Array(repeating: 0, count: 12) + [1])
    }

    @Test func aDiscardWithNothingPendingIsWrittenToo() throws {
        let dir = DeckFixtures.temporaryDirectory("store-discard-idle")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        store.enqueue(StoreTestSupport.record(1, session: "v"))
        #expect(store.flush(stalledFor: 60))
        store.discardVisit(sessionID: "v")
        #expect(StoreTestSupport.waitFor(seconds: 10) { ((try? marks(dir)) ?? []).first?.1 == 1 })
        store.close()
        #expect(try marks(dir).map(\.1) == [1])
    }

    @Test func migratesAVersionTwoDatabaseToTheOperationsColumns() throws {
        let dir = DeckFixtures.temporaryDirectory("store-migrate-ops")
        defer { DeckFixtures.removeTree(dir) }
        do {
            let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir))
            try db.execute(DecisionDatabase.migrations[0])
            try db.execute(DecisionDatabase.migrations[1])
            try db.execute("PRAGMA user_version = 2")
            let stmt = try db.prepare(
                "INSERT INTO decisions VALUES (1, 'u', 'k', 's', 'd', 1, 'c', 'swipedLeft', 't', 1, 1, 1)")
            _ = try stmt.step()
        }
        let db = try DecisionDatabase.openForWriting(dataDirectory: dir)
        #expect(try db.scalarInt("SELECT discarded + too_fast FROM decisions WHERE id = 1") == 0)
        #expect(try db.scalarInt("SELECT count(*) FROM maintenance") == 0)
    }

    @Test func maintenanceEntriesRoundTripAndCountOutOfOrderTime() throws {
        let dir = DeckFixtures.temporaryDirectory("store-maintenance")
        defer { DeckFixtures.removeTree(dir) }
        let entries = [
            MaintenanceLog.Entry(kioskID: "k", wallTimeMs: 1000, state: .outOfOrder, note: "glass cracked"),
            MaintenanceLog.Entry(kioskID: "k", wallTimeMs: 4000, state: .note, note: "panel ordered"),
            MaintenanceLog.Entry(kioskID: "k", wallTimeMs: 7000, state: .inService, note: "panel replaced, «ok»"),
        ]
        for e in entries { try MaintenanceLog.append(e, dataDirectory: dir) }
        #expect(try MaintenanceLog.entries(dataDirectory: dir) == entries)
        // 6 of 10 s out of order.
        #expect(abs(MaintenanceLog.inServiceShare(entries, from: 0, to: 10_000) - 0.4) < 1e-9)
        // Still out of order at the end of the span.
        #expect(abs(MaintenanceLog.inServiceShare(Array(entries.prefix(2)), from: 0, to: 2000) - 0.5) < 1e-9)
        #expect(MaintenanceLog.inServiceShare([], from: 0, to: 10) == 1)
    }

    @Test func maintenanceCanBeLoggedWhileTheKioskHoldsTheWriterLock() throws {
        let dir = DeckFixtures.temporaryDirectory("store-maintenance-busy")
        defer { DeckFixtures.removeTree(dir) }
        let writer = try DecisionDatabase.openForWriting(dataDirectory: dir)  // as the running kiosk
        try MaintenanceLog.append(
            MaintenanceLog.Entry(kioskID: "k", wallTimeMs: 5, state: .outOfOrder, note: "x"), dataDirectory: dir)
        #expect(try writer.scalarInt("SELECT count(*) FROM maintenance WHERE state = 'out-of-order'") == 1)
    }

    @Test(TestRequirement.executable.trait) func logMaintenanceCommandWritesAnEntryAndRejectsBadUsage() throws {
        let dir = DeckFixtures.temporaryDirectory("cmd-maintenance")
        defer { DeckFixtures.removeTree(dir) }
        let ok = try #require(
            StoreTestSupport.run(["log-maintenance", "screen cleaned", "--data", dir, "--kiosk-id", "lobby-1"]))
        #expect(ok.status == 0)
        let out = try #require(
            StoreTestSupport.run(["log-maintenance", "--out-of-order", "touch dead", "--data", dir]))
        #expect(out.status == 0)
        let back = try #require(StoreTestSupport.run(["log-maintenance", "--in-service", "fixed", "--data", dir]))
        #expect(back.status == 0)
        let entries = try MaintenanceLog.entries(dataDirectory: dir)
        #expect(entries.map(\.state) == [.note, .outOfOrder, .inService])
        #expect(entries.map(\.note) == ["screen cleaned", "touch dead", "fixed"])
        #expect(entries.first?.kioskID == "lobby-1")
        let both = try #require(
            StoreTestSupport.run(["log-maintenance", "--in-service", "--out-of-order", "x", "--data", dir]))
        #expect(both.status == 2)
        let none = try #require(StoreTestSupport.run(["log-maintenance", "--data", dir]))
        #expect(none.status == 2)
        let empty = try #require(StoreTestSupport.run(["log-maintenance", "  ", "--data", dir]))
        #expect(empty.status == 2)
        #expect(try MaintenanceLog.entries(dataDirectory: dir).count == 3)
    }
}
