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
    /// A stored visit as the sync sends it (`visits.id` is its cursor's count).
    package struct VisitRow: Hashable, Sendable {
        package var id: Int64
        package var visit: VisitRecord
    }

    /// A maintenance log entry (`maintenance.id`).
    package struct MaintenanceRow: Hashable, Sendable {
        package var id: Int64
        package var entry: MaintenanceLog.Entry
    }

    /// The cursor names of the report's rows beside a target's decisions cursor.
    package static func visitsTarget(_ target: String) -> String { target + ":visits" }
    package static func eventsTarget(_ target: String) -> String { target + ":events" }
    package static func maintenanceTarget(_ target: String) -> String { target + ":maintenance" }

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
        rows: [StoredDecision], unsent: Int
    ) {
        let db = try open(dataDirectory: dataDirectory)
        try db.execute("BEGIN")  // one snapshot for the rows and the count
        defer { try? db.execute("COMMIT") }
        let after = try cursor(db, target: target)
        let version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        let flags = version >= 5 ? "discarded, too_fast" : "NULL, NULL"
        let mode = version >= 6 ? "accessibility_mode" : "NULL"
        let language = version >= 7 ? "language" : "NULL"
        let stmt = try db.prepare(
            """
            SELECT id, uid, kiosk_id, session_id, deck_id, deck_version, card_id, action, wall_ms, monotonic_ns,
                   dwell_ms, boot_id, clock_synced, retracts_uid, position, input_method, \(flags), \(mode), \(language)
            FROM decisions WHERE id > ?1 ORDER BY id LIMIT ?2
            """)
        try stmt.bind(1, after)
        try stmt.bind(2, Int64(max(1, limit)))
        var rows: [StoredDecision] = []
        while try stmt.step() {
            let method = stmt.optionalText(15)
            var record = DecisionRecord(
                kioskID: stmt.text(2), sessionID: stmt.text(3), deckID: stmt.text(4),
                deckVersion: Int(stmt.int64(5)), cardID: stmt.text(6),
                action: DecisionAction(rawValue: stmt.text(7)) ?? .removed, wallTimeMs: stmt.int64(8),
                monotonicNs: stmt.int64(9), dwellMs: stmt.int64(10), position: stmt.optionalInt64(14).map { Int($0) },
                inputMethod: method.flatMap(InputMethod.init(rawValue:)), bootID: stmt.optionalText(11),
                clockSynced: stmt.optionalInt64(12).map { $0 != 0 })
            let tooFast = stmt.optionalInt64(17).map { $0 != 0 }
            record.tooFast = tooFast ?? false
            record.accessibilityMode = stmt.optionalInt64(18).map { $0 != 0 }
            record.language = stmt.optionalText(19)
            rows.append(
                StoredDecision(
                    id: stmt.int64(0), uid: stmt.text(1), record: record, actionName: stmt.text(7),
                    retractsUID: stmt.optionalText(13), inputMethodName: method,
                    discarded: stmt.optionalInt64(16).map { $0 != 0 }, tooFast: tooFast))
        }
        let count = try db.prepare("SELECT count(*) FROM decisions WHERE id > ?1")
        try count.bind(1, after)
        let unsent = try count.step() ? Int(count.int64(0)) : rows.count
        return (rows, unsent)
    }

    /// The report's rows after the target's cursors (`visitsTarget` etc.), up to `limit` of each,
    /// in storage order. A visit is held back while it is the newest one and still open (its
    /// end will complete the row): a visit, once sent, never changes on the kiosk again. A
    /// visit left open by a crash is sent open once a newer visit exists.
    package static func pendingReportRows(dataDirectory: String, target: String, limit: Int) throws(SQLiteError) -> (
        visits: [VisitRow], events: [StoredEvent], maintenance: [MaintenanceRow]
    ) {
        let db = try open(dataDirectory: dataDirectory)
        try db.execute("BEGIN")  // one snapshot for all three
        defer { try? db.execute("COMMIT") }
        let version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        var visits: [VisitRow] = []
        let v = try db.prepare(
            """
            SELECT id, session_id, kiosk_id, deck_id, deck_version, started_wall_ms, started_monotonic_ns,
                   ended_wall_ms, end_reason, cards_shown, accessibility_used
            FROM visits WHERE id > ?1 AND (end_reason IS NOT NULL OR id < (SELECT max(id) FROM visits))
            ORDER BY id LIMIT ?2
            """)
        try v.bind(1, try cursor(db, target: visitsTarget(target)))
        try v.bind(2, Int64(max(1, limit)))
        while try v.step() {
            visits.append(
                VisitRow(
                    id: v.int64(0),
                    visit: VisitRecord(
                        sessionID: v.text(1), kioskID: v.text(2), deckID: v.text(3), deckVersion: Int(v.int64(4)),
                        startedWallMs: v.int64(5), startedMonotonicNs: v.int64(6), endedWallMs: v.optionalInt64(7),
                        endReason: v.optionalText(8), cardsShown: v.optionalInt64(9).map { Int($0) },
                        accessibilityUsed: v.optionalInt64(10).map { $0 != 0 })))
        }
        var events: [StoredEvent] = []
        // Store migration 8: the visit and the code of a `qr_shown` event (NULL on older rows).
        let code = version >= 8 ? "session_id, card_id, code_of" : "NULL, NULL, NULL"
        let e = try db.prepare(
            "SELECT id, uid, kiosk_id, kind, wall_ms, monotonic_ns, \(code) FROM kiosk_events WHERE id > ?1 ORDER BY id LIMIT ?2"
        )
        try e.bind(1, try cursor(db, target: eventsTarget(target)))
        try e.bind(2, Int64(max(1, limit)))
        while try e.step() {
            events.append(
                StoredEvent(
                    id: e.int64(0), uid: e.text(1),
                    event: KioskEventRecord(
                        kioskID: e.text(2), kind: e.text(3), wallMs: e.int64(4), monotonicNs: e.int64(5),
                        sessionID: e.optionalText(6),
                        code: ShownCode(codeOf: e.optionalText(8), cardID: e.optionalText(7)))))
        }
        var maintenance: [MaintenanceRow] = []
        if version >= 5 {
            let m = try db.prepare(
                "SELECT id, kiosk_id, wall_ms, state, note FROM maintenance WHERE id > ?1 ORDER BY id LIMIT ?2")
            try m.bind(1, try cursor(db, target: maintenanceTarget(target)))
            try m.bind(2, Int64(max(1, limit)))
            while try m.step() {
                maintenance.append(
                    MaintenanceRow(
                        id: m.int64(0),
                        entry: MaintenanceLog.Entry(
                            kioskID: m.text(1), wallTimeMs: m.int64(2),
                            state: MaintenanceLog.State(rawValue: m.text(3)) ?? .note,
                            note: m.text(4))))
            }
        }
        return (visits, events, maintenance)
    }

    /// Moves several cursors forward (never back) in one transaction: after one round's COMMIT
    /// on the server, all of its parts count as sent together.
    package static func advance(dataDirectory: String, cursors: [(target: String, id: Int64)]) throws(SQLiteError) {
        if cursors.isEmpty { return }
        let db = try open(dataDirectory: dataDirectory)
        try db.execute("BEGIN IMMEDIATE")
        do {
            let stmt = try db.prepare(
                """
                INSERT INTO sync_cursor (target, last_id, updated_ms) VALUES (?1, ?2, ?3)
                ON CONFLICT (target) DO UPDATE SET last_id = max(last_id, excluded.last_id), updated_ms = excluded.updated_ms
                """)
            for c in cursors {
                try stmt.bind(1, c.target)
                try stmt.bind(2, c.id)
                try stmt.bind(3, WallClock.nowMilliseconds())
                _ = try stmt.step()
                stmt.reset()
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
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
