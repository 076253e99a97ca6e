import CSQLite
import CardModel
import Glibc
import KioskSystem

/// The local half of the fleet sync: which stored decisions a target has not received yet,
/// and the cursor that says so (table `sync_cursor`, migration 3).
///
/// The cursor is the highest `decisions.id` the target has committed. It is advanced only
/// after the target's COMMIT returned, and never moves back, so a crash between the two
/// re-sends a batch (the target ignores rows it has) and never skips one. This uses its own
/// connection, not the decision writer's lock: the kiosk keeps writing while this reads.
package enum DecisionSync {
    /// One decision as the sync sends it.
    package struct Row: Hashable, Sendable {
        /// `decisions.id`: storage order, what the cursor counts.
        package var id: Int64
        /// `decisions.uid`: unique across runs and kiosks' restarts; the target's conflict key.
        package var uid: String
        package var record: DecisionRecord
        /// The action as stored (verbatim, in case a newer version wrote one this one does not know).
        package var actionName: String
        /// For an `undone` row: the uid of the decision it takes back.
        package var retractsUID: String?
    }

    /// Opens the database for the sync: it must exist; an older schema is migrated first
    /// (briefly taking the writer lock, which fails only if an older writer holds it).
    static func open(dataDirectory: String) throws(SQLiteError) -> SQLiteDatabase {
        let path = DecisionDatabase.path(dataDirectory: dataDirectory)
        if access(path, F_OK) != 0 {
            throw SQLiteError(
                call: "open", code: SQLITE_CANTOPEN,
                message: "no decisions database here yet; check --data (the kiosk's data directory)", path: path)
        }
        do {
            let db = try SQLiteDatabase(path: path, create: false)
            db.setBusyTimeout(milliseconds: 5000)
            let version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
            if version >= 3 { return db }
        }
        _ = try DecisionDatabase.openForWriting(dataDirectory: dataDirectory)  // migrates, then closes
        let db = try SQLiteDatabase(path: path, create: false)
        db.setBusyTimeout(milliseconds: 5000)
        return db
    }

    /// Whether the kiosk has stored anything yet (a fresh kiosk has no database until its first
    /// decision; for the sync that is "nothing to send", not an error).
    package static func databaseExists(dataDirectory: String) -> Bool {
        access(DecisionDatabase.path(dataDirectory: dataDirectory), F_OK) == 0
    }

    /// The target's cursor (0: nothing sent yet).
    package static func cursor(dataDirectory: String, target: String) throws(SQLiteError) -> Int64 {
        let db = try open(dataDirectory: dataDirectory)
        return try cursor(db, target: target)
    }

    static func cursor(_ db: borrowing SQLiteDatabase, target: String) throws(SQLiteError) -> Int64 {
        let stmt = try db.prepare("SELECT last_id FROM sync_cursor WHERE target = ?1")
        try stmt.bind(1, target)
        return try stmt.step() ? stmt.int64(0) : 0
    }

    /// Up to `limit` decisions after the target's cursor, in storage order, and how many are
    /// unsent in all (these included).
    package static func pending(dataDirectory: String, target: String, limit: Int) throws(SQLiteError) -> (
        rows: [Row], unsent: Int
    ) {
        let db = try open(dataDirectory: dataDirectory)
        try db.execute("BEGIN")  // one snapshot for the rows and the count
        defer { try? db.execute("COMMIT") }
        let after = try cursor(db, target: target)
        let stmt = try db.prepare(
            """
            SELECT id, uid, kiosk_id, session_id, deck_id, deck_version, card_id, action, wall_ms, monotonic_ns,
                   dwell_ms, boot_id, clock_synced, retracts_uid
            FROM decisions WHERE id > ?1 ORDER BY id LIMIT ?2
            """)
        try stmt.bind(1, after)
        try stmt.bind(2, Int64(max(1, limit)))
        var rows: [Row] = []
        while try stmt.step() {
            let record = DecisionRecord(
                kioskID: stmt.text(2), sessionID: stmt.text(3), deckID: stmt.text(4),
                deckVersion: Int(stmt.int64(5)), cardID: stmt.text(6),
                action: DecisionAction(rawValue: stmt.text(7)) ?? .removed, wallTimeMs: stmt.int64(8),
                monotonicNs: stmt.int64(9), dwellMs: stmt.int64(10), bootID: stmt.optionalText(11),
                clockSynced: stmt.optionalInt64(12).map { $0 != 0 })
            rows.append(
                Row(
                    id: stmt.int64(0), uid: stmt.text(1), record: record, actionName: stmt.text(7),
                    retractsUID: stmt.optionalText(13)))
        }
        let count = try db.prepare("SELECT count(*) FROM decisions WHERE id > ?1")
        try count.bind(1, after)
        let unsent = try count.step() ? Int(count.int64(0)) : rows.count
        return (rows, unsent)
    }

    /// Moves the target's cursor forward to `id` (never back).
    package static func advance(dataDirectory: String, target: String, to id: Int64) throws(SQLiteError) {
        let db = try open(dataDirectory: dataDirectory)
        let stmt = try db.prepare(
            """
            INSERT INTO sync_cursor (target, last_id, updated_ms) VALUES (?1, ?2, ?3)
            ON CONFLICT (target) DO UPDATE SET last_id = max(last_id, excluded.last_id), updated_ms = excluded.updated_ms
            """)
        try stmt.bind(1, target)
        try stmt.bind(2, id)
        try stmt.bind(3, WallClock.nowMilliseconds())
        _ = try stmt.step()
    }
}
