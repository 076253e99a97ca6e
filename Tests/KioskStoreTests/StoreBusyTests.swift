import CSQLite
import Glibc
import KioskTestSupport
import Testing

@testable import KioskStore
@testable import KioskSystem

/// A reader never fails at once on another connection's brief lock. The fleet test that read
/// the decisions file while the sync worker ran once failed with "database is locked": the
/// worker opens a connection per call, and the last connection to close checkpoints the WAL and
/// removes it under an exclusive lock on the database file; the test's reader had no busy
/// timeout (SQLite's default is 0), as had `export`'s.
@Suite struct StoreBusyTests {
    /// Paths and pipes for the thread that holds the lock.
    final class Holder: Sendable {
        let path: String
        let locked: [Int32]
        let release: [Int32]
        init(path: String, locked: [Int32], release: [Int32]) {
            self.path = path
            self.locked = locked
            self.release = release
        }
    }

    @Test func aReaderWaitsOutAnotherConnectionsExclusiveLock() throws {
        let dir = DeckFixtures.temporaryDirectory("store-busy")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/busy.sqlite3"
        do {
            let db = try SQLiteDatabase(path: path)
            _ = try db.scalarText("PRAGMA journal_mode=WAL")
            try db.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
        }
        var locked: [Int32] = [0, 0]
        var release: [Int32] = [0, 0]
        try #require(pipe(&locked) == 0 && pipe(&release) == 0)
        defer { for fd in locked + release { close(fd) } }
        // Another connection takes the exclusive lock a closing connection's checkpoint takes,
        // and keeps it until told, then a little longer (the reader below is waiting by then).
        let holder = Holder(path: path, locked: locked, release: release)
        let thread = try HelperThread {
            var byte: UInt8 = 1
            do {
                let db = try SQLiteDatabase(path: holder.path, create: false)
                try db.execute("PRAGMA locking_mode=EXCLUSIVE; BEGIN IMMEDIATE; INSERT INTO t VALUES (2); COMMIT")
                _ = write(holder.locked[1], &byte, 1)
                _ = read(holder.release[0], &byte, 1)
                usleep(200_000)
            } catch {
                byte = 0
                _ = write(holder.locked[1], &byte, 1)
            }
        }
        var byte: UInt8 = 0
        _ = read(locked[0], &byte, 1)
        try #require(byte == 1, "the holder could not take its lock")
        // The lock is real: a reader told not to wait fails with SQLITE_BUSY.
        var busy: Int32 = -1
        do throws(SQLiteError) {
            let impatient = try SQLiteDatabase(path: path, readOnly: true, create: false)
            impatient.setBusyTimeout(milliseconds: 0)
            _ = try impatient.scalarText("SELECT count(*) FROM t")
            busy = SQLITE_OK
        } catch {
            busy = error.code & 0xff
        }
        #expect(busy == SQLITE_BUSY)
        // A reader opened as every reader is (the test helpers, `export`) waits, then reads.
        _ = write(release[1], &byte, 1)
        let reader = try SQLiteDatabase(path: path, readOnly: true, create: false)
        let count = try reader.scalarText("SELECT count(*) FROM t")
        #expect(count == "2")
        thread.join()
    }
}
