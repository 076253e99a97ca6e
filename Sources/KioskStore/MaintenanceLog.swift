import CSQLite
import Glibc
import KioskSystem

/// The maintenance log: "out of order" / "back in service" entries with a note, in the
/// decisions database (table `maintenance`), so an uptime share can leave out-of-order time.
package enum MaintenanceLog {
    package enum State: String, CaseIterable, Hashable, Sendable {
        case outOfOrder = "out-of-order"
        case inService = "in-service"
        /// A note that changes nothing (cleaned the screen, swapped the SD card).
        case note
    }

    package struct Entry: Hashable, Sendable {
        package var kioskID: String
        package var wallTimeMs: Int64
        package var state: State
        package var note: String

        package init(kioskID: String, wallTimeMs: Int64, state: State, note: String) {
            self.kioskID = kioskID
            self.wallTimeMs = wallTimeMs
            self.state = state
            self.note = note
        }
    }

    /// Appends `entry` durably. While the kiosk runs it holds the data directory's writer lock
    /// and has migrated the file; then this writes beside it through SQLite's own locking
    /// (busy timeout 5 s), provided the schema already has the table.
    package static func append(_ entry: Entry, dataDirectory: String) throws(SQLiteError) {
        let db: SQLiteDatabase
        do {
            db = try DecisionDatabase.openForWriting(dataDirectory: dataDirectory)
        } catch let e where e.call == "flock" && e.code == SQLITE_BUSY {
            let path = DecisionDatabase.path(dataDirectory: dataDirectory)
            db = try SQLiteDatabase(path: path, create: false)
            db.setBusyTimeout(milliseconds: 5000)
            let version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
            guard version >= DecisionDatabase.schemaVersion else {
                throw SQLiteError(
                    call: "migrate", code: SQLITE_BUSY,
                    message: "the running kiosk uses an older database schema (\(version)) without the maintenance"
                        + " table; update and restart the kiosk first",
                    path: path)
            }
        }
        try db.execute("BEGIN IMMEDIATE")
        do {
            let stmt = try db.prepare(
                "INSERT INTO maintenance (kiosk_id, wall_ms, wall_time, state, note) VALUES (?1, ?2, ?3, ?4, ?5)")
            try stmt.bind(1, entry.kioskID)
            try stmt.bind(2, entry.wallTimeMs)
            try stmt.bind(3, WallClock.iso8601(milliseconds: entry.wallTimeMs))
            try stmt.bind(4, entry.state.rawValue)
            try stmt.bind(5, entry.note)
            _ = try stmt.step()
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Every entry in storage order.
    package static func entries(dataDirectory: String) throws(SQLiteError) -> [Entry] {
        let path = DecisionDatabase.path(dataDirectory: dataDirectory)
        let db = try SQLiteDatabase(path: path, readOnly: true, create: false)
        db.setBusyTimeout(milliseconds: 5000)
        let stmt = try db.prepare("SELECT kiosk_id, wall_ms, state, note FROM maintenance ORDER BY id")
        var out: [Entry] = []
        while try stmt.step() {
            out.append(
                Entry(
                    kioskID: stmt.text(0), wallTimeMs: stmt.int64(1), state: State(rawValue: stmt.text(2)) ?? .note,
                    note: stmt.text(3)))
        }
        return out
    }

    /// The share of `[from, to)` (wall ms) the kiosk was in service: out-of-order time, from an
    /// out-of-order entry to the next in-service one, is left out. `entries` in time order;
    /// the state before the first entry is in service.
    package static func inServiceShare(_ entries: [Entry], from: Int64, to: Int64) -> Double {
        guard to > from else { return 1 }
        var outSince: Int64? = nil
        var out: Int64 = 0
        for e in entries.sorted(by: { $0.wallTimeMs < $1.wallTimeMs }) {
            let t = min(max(e.wallTimeMs, from), to)
            switch e.state {
            case .outOfOrder: if outSince == nil { outSince = t }
            case .inService:
                if let s = outSince { out += t - s }
                outSince = nil
            case .note: break
            }
        }
        if let s = outSince { out += to - s }
        return 1 - Double(out) / Double(to - from)
    }
}
