import CSQLite
import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskDeckFiles
@testable import KioskStore
@testable import KioskSystem

@Suite struct StoreDecisionTests {
    @Test func recordsRoundTripInOrder() throws {
        let dir = DeckFixtures.temporaryDirectory("store")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir + "/data", batchLimit: 7)
        let records = (0..<200).map { StoreTestSupport.record($0) }
        var tickets: [UInt64] = []
        for r in records { tickets.append(try #require(store.enqueue(r))) }
        #expect(tickets == Array(1...200))
        #expect(store.flush(stalledFor: 60))
        let status = store.currentStatus
        #expect(status.stored == 200)
        #expect(status.storedThrough == 200)
        #expect(status.pending == 0)
        #expect(!status.failing)
        store.close()

        let rows = try StoreTestSupport.rows(dir + "/data")
        #expect(rows.map(\.record) == records)
        #expect(rows.map(\.id) == Array(1...200))
        #expect(rows.map(\.actionName) == records.map(\.action.rawValue))
        #expect(try StoreTestSupport.integrityCheck(dir + "/data") == "ok")
    }

    @Test func databaseIsWALWithCurrentSchema() throws {
        let dir = DeckFixtures.temporaryDirectory("store-wal")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        store.enqueue(StoreTestSupport.record(1))
        #expect(store.flush(stalledFor: 60))
        store.close()
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), create: false)
        #expect(try db.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try db.scalarInt("PRAGMA user_version") == Int64(DecisionDatabase.schemaVersion))
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'decisions_wall_ms'") == 1)
    }

    @Test func writerConnectionUsesSynchronousFull() throws {
        let dir = DeckFixtures.temporaryDirectory("store-sync")
        defer { DeckFixtures.removeTree(dir) }
        let db = try DecisionDatabase.openForWriting(dataDirectory: dir)
        #expect(try db.scalarInt("PRAGMA synchronous") == 2)  // 2 = FULL
        #expect(try db.scalarText("PRAGMA journal_mode") == "wal")
    }

    @Test func migratesAVersionOneDatabaseKeepingRows() throws {
        let dir = DeckFixtures.temporaryDirectory("store-migrate")
        defer { DeckFixtures.removeTree(dir) }
        do {
            // A database as the first release wrote it: migration 1 only.
            let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir))
            try db.execute(DecisionDatabase.migrations[0])
            try db.execute("PRAGMA user_version = 1")
            // The row as that release wrote it (today's insert names columns a v1 file lacks).
            let r = StoreTestSupport.record(3)
            let stmt = try db.prepare(
                """
                INSERT INTO decisions (uid, kiosk_id, session_id, deck_id, deck_version, card_id, action,
                    wall_time, wall_ms, monotonic_ns, dwell_ms)
                VALUES ('old-1', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                """)
            let texts = [r.kioskID, r.sessionID, r.deckID]
            for (i, t) in texts.enumerated() { try stmt.bind(Int32(i + 1), t) }
            try stmt.bind(4, Int64(r.deckVersion))
            try stmt.bind(5, r.cardID)
            try stmt.bind(6, r.action.rawValue)
            try stmt.bind(7, r.wallTimeISO)
            try stmt.bind(8, r.wallTimeMs)
            try stmt.bind(9, r.monotonicNs)
            try stmt.bind(10, r.dwellMs)
            _ = try stmt.step()
        }
        let store = DecisionStore(dataDirectory: dir)
        store.enqueue(StoreTestSupport.record(4))
        #expect(store.flush(stalledFor: 60))
        store.close()
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), create: false)
        #expect(try db.scalarInt("PRAGMA user_version") == Int64(DecisionDatabase.schemaVersion))
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'decisions_wall_ms'") == 1)
        #expect(
            try StoreTestSupport.rows(dir).map(\.record) == [StoreTestSupport.record(3), StoreTestSupport.record(4)])
        // Migration 3: the old row has no boot id (unknown), the new one has this boot's.
        #expect(try db.scalarInt("SELECT count(*) FROM decisions WHERE boot_id IS NULL") == 1)
        #expect(try db.scalarText("SELECT boot_id FROM decisions WHERE uid <> 'old-1'") == BootID.current)
        #expect(try db.scalarInt("SELECT count(*) FROM sync_cursor") == 0)
    }

    @Test func refusesANewerSchemaAndKeepsDecisionsPending() throws {
        let dir = DeckFixtures.temporaryDirectory("store-newer")
        defer { DeckFixtures.removeTree(dir) }
        do {
            let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir))
            try db.execute("PRAGMA user_version = 99")
        }
        let store = DecisionStore(dataDirectory: dir, retryInterval: 60)
        store.enqueue(StoreTestSupport.record(1))
        #expect(StoreTestSupport.waitFor(seconds: 10) { store.currentStatus.failing })
        let status = store.currentStatus
        #expect(status.pending == 1)
        #expect(status.lastError?.contains("schema version 99") == true)
        store.close()
    }

    /// Two writers on one data directory: the second waits, with the first's pid in its error,
    /// instead of both migrating at once ("table decisions already exists"); it writes once the
    /// first closes. (flock locks are per open file, so two stores in one process contend too.)
    @Test func secondWriterIsLockedOutNamingThePidAndWritesOnceTheFirstCloses() throws {
        let dir = DeckFixtures.temporaryDirectory("store-two-writers")
        defer { DeckFixtures.removeTree(dir) }
        let first = DecisionStore(dataDirectory: dir)
        first.enqueue(StoreTestSupport.record(0))
        #expect(first.flush(stalledFor: 60))
        let second = DecisionStore(dataDirectory: dir, retryInterval: 0.05)
        second.enqueue(StoreTestSupport.record(1))
        #expect(StoreTestSupport.waitFor(seconds: 10) { second.currentStatus.failing })
        let error = second.currentStatus.lastError ?? ""
        #expect(error.contains("another process (pid \(getpid())) is already writing decisions in \(dir)"), "\(error)")
        #expect(second.currentStatus.stored == 0)
        first.close()
        #expect(second.flush(stalledFor: 60))
        second.close()
        #expect(try StoreTestSupport.rows(dir).count == 2)
    }

    @Test func writerLockIsReleasedWithTheConnection() throws {
        let dir = DeckFixtures.temporaryDirectory("store-lock")
        defer { DeckFixtures.removeTree(dir) }
        do {
            let db = try DecisionDatabase.openForWriting(dataDirectory: dir)
            #expect(throws: SQLiteError.self) { _ = try DecisionDatabase.openForWriting(dataDirectory: dir) }
            _ = db
        }
        // Released with the connection. A child another test is spawning right now holds a copy
        // of every descriptor between its fork and its exec (O_CLOEXEC acts only at exec), and
        // with it the flock: so allow a moment, then it must open.
        var lastError: (any Error)?
        for _ in 0..<500 {
            do {
                _ = try DecisionDatabase.openForWriting(dataDirectory: dir)
                lastError = nil
                break
            } catch {
                lastError = error
                sleepMilliseconds(20)
            }
        }
        #expect(lastError == nil, "\(lastError.map { "\($0)" } ?? "")")
    }

    @Test func unopenableDirectoryKeepsDecisionsAndRecovers() throws {
        let dir = DeckFixtures.temporaryDirectory("store-unopenable")
        defer { DeckFixtures.removeTree(dir) }
        // A regular file where the data directory should be: a real ENOTDIR/CANTOPEN fault.
        let data = dir + "/data"
        DeckFixtures.write("not a directory", to: data)
        let store = DecisionStore(dataDirectory: data, capacity: 5, retryInterval: 0.05)
        var accepted = 0
        for n in 0..<8 where store.enqueue(StoreTestSupport.record(n)) != nil { accepted += 1 }
        #expect(accepted == 5)
        #expect(StoreTestSupport.waitFor(seconds: 10) { store.currentStatus.failing })
        var status = store.currentStatus
        #expect(status.pending == 5)
        #expect(status.dropped == 3)
        #expect(status.stored == 0)
        #expect(status.lastError?.contains(DecisionDatabase.path(dataDirectory: data)) == true)
        // Still failing a while later: nothing pretended to be stored.
        usleep(200_000)
        #expect(store.currentStatus.stored == 0)

        unlink(data)
        #expect(mkdir(data, 0o755) == 0)
        #expect(store.flush(stalledFor: 60))
        status = store.currentStatus
        #expect(status.stored == 5)
        #expect(!status.failing)
        store.close()
        #expect(try StoreTestSupport.rows(data).map(\.record) == (0..<5).map { StoreTestSupport.record($0) })
    }

    @Test(.enabled(if: StoreTestSupport.canMount, "needs CAP_SYS_ADMIN to mount a small tmpfs"))
    func diskFullKeepsDecisionsAndRecovers() throws {
        let dir = DeckFixtures.temporaryDirectory("store-full")
        defer { DeckFixtures.removeTree(dir) }
        // 2 MB: 3000 rows, their two indexes and the WAL must fit once the filler is gone; at
        // 1 MB the last rows (two more columns: accessibility mode, language) no longer did.
        try #require(StoreTestSupport.mountTmpfs(dir, kilobytes: 2048))
        defer { StoreTestSupport.unmount(dir) }
        let data = dir + "/data"
        let store = DecisionStore(dataDirectory: data, retryInterval: 0.05)
        for n in 0..<10 { store.enqueue(StoreTestSupport.record(n)) }
        #expect(store.flush(stalledFor: 60))

        // A real ENOSPC: fill the file system, then keep deciding.
        let filled = StoreTestSupport.fillDisk(dir + "/filler")
        #expect(filled > 0)
        let total = 3000
        for n in 10..<total { store.enqueue(StoreTestSupport.record(n)) }
        #expect(StoreTestSupport.waitFor(seconds: 20) { store.currentStatus.failing })
        let during = store.currentStatus
        #expect(during.pending > 0)
        #expect(during.lastError?.contains("full") == true, "\(during.lastError ?? "")")
        #expect(during.stored + during.pending == total)

        unlink(dir + "/filler")
        #expect(store.flush(stalledFor: 60))
        #expect(store.currentStatus.stored == total)
        store.close()
        let rows = try StoreTestSupport.rows(data)
        #expect(rows.count == total)
        #expect(rows.map(\.record) == (0..<total).map { StoreTestSupport.record($0) })
        #expect(try StoreTestSupport.integrityCheck(data) == "ok")
    }

    @Test(.enabled(if: StoreTestSupport.canMount, "needs CAP_SYS_ADMIN to remount a tmpfs read-only"))
    func readOnlyFileSystemKeepsDecisionsAndRecovers() throws {
        let dir = DeckFixtures.temporaryDirectory("store-ro")
        defer { DeckFixtures.removeTree(dir) }
        try #require(StoreTestSupport.mountTmpfs(dir, kilobytes: 4096))
        defer { StoreTestSupport.unmount(dir) }
        let data = dir + "/data"
        // A database written earlier, then the file system goes read-only (a real EROFS).
        do {
            let store = DecisionStore(dataDirectory: data)
            for n in 0..<3 { store.enqueue(StoreTestSupport.record(n)) }
            #expect(store.flush(stalledFor: 60))
            store.close()
        }
        try #require(StoreTestSupport.remount(dir, readOnly: true, kilobytes: 4096))
        let store = DecisionStore(dataDirectory: data, retryInterval: 0.05)
        for n in 3..<10 { store.enqueue(StoreTestSupport.record(n)) }
        #expect(StoreTestSupport.waitFor(seconds: 20) { store.currentStatus.failing })
        let during = store.currentStatus
        #expect(during.pending == 7)
        #expect(during.lastError?.contains("read-only") == true, "\(during.lastError ?? "")")

        try #require(StoreTestSupport.remount(dir, readOnly: false, kilobytes: 4096))
        #expect(store.flush(stalledFor: 60))
        store.close()
        #expect(try StoreTestSupport.rows(data).map(\.record) == (0..<10).map { StoreTestSupport.record($0) })
    }

    @Test func enqueueFromManyThreadsLosesNothing() throws {
        let dir = DeckFixtures.temporaryDirectory("store-threads")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        // Four threads enqueue at once (HelperThread waits for each when it goes away).
        func writer(_ t: Int) throws -> HelperThread {
            try HelperThread { [store] in
                for n in 0..<500 { store.enqueue(StoreTestSupport.record(t * 1000 + n)) }
            }
        }
        do {
            let a = try writer(0)
            let b = try writer(1)
            let c = try writer(2)
            let d = try writer(3)
            a.join()
            b.join()
            c.join()
            d.join()
        }
        #expect(store.flush(stalledFor: 60))
        store.close()
        let stored = Set(try StoreTestSupport.rows(dir).map(\.record.cardID))
        let expected = Set((0..<4).flatMap { t in (0..<500).map { StoreTestSupport.record(t * 1000 + $0).cardID } })
        #expect(stored == expected)
    }
}
