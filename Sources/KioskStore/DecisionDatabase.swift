import CSQLite
import CardModel
import Glibc
import KioskSystem

/// The decisions database file: schema, migrations, inserts and reads.
///
/// One file `decisions.sqlite3` in the data directory, in WAL mode with synchronous=FULL:
/// once a COMMIT returns, the decision survives a power cut (the WAL is fsynced on commit).
package enum DecisionDatabase {
    static let fileName = "decisions.sqlite3"

    static func path(dataDirectory: String) -> String {
        (dataDirectory.hasSuffix("/") ? dataDirectory : dataDirectory + "/") + fileName
    }

    /// Schema migrations; entry k brings `PRAGMA user_version` from k to k + 1.
    /// Append only: never edit a shipped migration.
    static let migrations: [String] = [
        // 1: the decisions table. `uid` makes a retried batch idempotent when a COMMIT's
        // outcome was unknown (an I/O error after the WAL write).
        """
        CREATE TABLE decisions (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            kiosk_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            deck_id TEXT NOT NULL,
            deck_version INTEGER NOT NULL,
            card_id TEXT NOT NULL,
            action TEXT NOT NULL,
            wall_time TEXT NOT NULL,
            wall_ms INTEGER NOT NULL,
            monotonic_ns INTEGER NOT NULL,
            dwell_ms INTEGER NOT NULL
        );
        """,
        // 2: `export --since` filters by wall time.
        "CREATE INDEX decisions_wall_ms ON decisions (wall_ms);",
        // 3: what the report needs — the
        // position and input method of each decision (NULL on older rows), visits with their
        // end reason, and events such as the attract screen appearing. No new index on
        // decisions: the report sorts its own temporary copy, and a kiosk's small SD card
        // keeps room for more decisions.
        """
        ALTER TABLE decisions ADD COLUMN position INTEGER;
        ALTER TABLE decisions ADD COLUMN input_method TEXT;
        CREATE TABLE visits (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL UNIQUE,
            kiosk_id TEXT NOT NULL,
            deck_id TEXT NOT NULL,
            deck_version INTEGER NOT NULL,
            started_wall_ms INTEGER NOT NULL,
            started_monotonic_ns INTEGER NOT NULL,
            ended_wall_ms INTEGER,
            end_reason TEXT,
            cards_shown INTEGER,
            accessibility_used INTEGER
        );
        CREATE INDEX visits_started ON visits (started_wall_ms);
        CREATE TABLE kiosk_events (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            kiosk_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            wall_ms INTEGER NOT NULL,
            monotonic_ns INTEGER NOT NULL
        );
        CREATE INDEX kiosk_events_wall_ms ON kiosk_events (wall_ms);
        """,
        // 4: what the fleet sync needs (docs/FLEET.md). Which boot a monotonic time belongs to,
        // whether the wall clock was synchronised, which decision an undo takes back (an undo
        // is a row of its own, never a delete), and how far each sync target has got.
        """
        ALTER TABLE decisions ADD COLUMN boot_id TEXT;
        ALTER TABLE decisions ADD COLUMN clock_synced INTEGER;
        ALTER TABLE decisions ADD COLUMN retracts_uid TEXT;
        CREATE INDEX decisions_retracts ON decisions (retracts_uid) WHERE retracts_uid IS NOT NULL;
        CREATE TABLE sync_cursor (
            target TEXT PRIMARY KEY,
            last_id INTEGER NOT NULL,
            updated_ms INTEGER NOT NULL
        );
        """,
        // 5: `discarded` marks a visit's decisions under the deck's `discard`
        // partial-visit policy (never deleted); `too_fast` flags a decision inside the deck's
        // cooldown; `maintenance` is the out-of-order / in-service log.
        """
        ALTER TABLE decisions ADD COLUMN discarded INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE decisions ADD COLUMN too_fast INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE maintenance (
            id INTEGER PRIMARY KEY,
            kiosk_id TEXT NOT NULL,
            wall_ms INTEGER NOT NULL,
            wall_time TEXT NOT NULL,
            state TEXT NOT NULL,
            note TEXT NOT NULL
        );
        """,
        // 6 (index 5): whether the visit had an accessibility mode on by this decision
        // (docs/ACCESSIBILITY.md; NULL on older rows).
        "ALTER TABLE decisions ADD COLUMN accessibility_mode INTEGER;",
        // 7 (index 6): the language the visitor read the card in (a BCP 47 tag;
        // NULL on older rows).
        "ALTER TABLE decisions ADD COLUMN language TEXT;",
        // 8 (index 7): which QR code a `qr_shown` event showed, and in which visit: `code_of`
        // 'card' (its id in `card_id`) or 'end' (the end state's). Older rows keep NULL in all
        // three: the code is unknown, and the report shows them as such.
        """
        ALTER TABLE kiosk_events ADD COLUMN session_id TEXT;
        ALTER TABLE kiosk_events ADD COLUMN card_id TEXT;
        ALTER TABLE kiosk_events ADD COLUMN code_of TEXT;
        """,
    ]

    static var schemaVersion: Int { migrations.count }

    /// Opens the database for writing: WAL, synchronous=FULL, migrated to `schemaVersion`.
    /// The connection holds the data directory's writer lock (`lockWriter`), so two writers
    /// never migrate at once ("table decisions already exists").
    static func openForWriting(dataDirectory: String) throws(SQLiteError) -> SQLiteDatabase {
        let path = path(dataDirectory: dataDirectory)
        let lock = try lockWriter(dataDirectory: dataDirectory)
        let db = try SQLiteDatabase(path: path, heldLock: lock)
        db.setBusyTimeout(milliseconds: 2000)
        let mode = try db.scalarText("PRAGMA journal_mode=WAL")
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(
                call: "PRAGMA journal_mode=WAL", code: SQLITE_ERROR,
                message: "the file system refused WAL mode (got '\(mode ?? "nothing")')", path: path)
        }
        try db.execute("PRAGMA synchronous=FULL")
        try migrate(db)
        return db
    }

    /// The lock file beside the database; it holds the pid of the writer that has it locked.
    static func lockPath(dataDirectory: String) -> String { dataDirectory + "/decisions.lock" }

    /// Takes the data directory's exclusive writer lock (`flock(LOCK_EX | LOCK_NB)` on
    /// `decisions.lock`) and writes this process's pid into it; returns the fd, which holds the
    /// lock until it is closed (the kernel releases it when the process dies, even by kill -9).
    /// Throws SQLITE_BUSY naming the holder's pid when another writer has it.
    static func lockWriter(dataDirectory: String) throws(SQLiteError) -> Int32 {
        let lockPath = lockPath(dataDirectory: dataDirectory)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            let e = errno
            throw SQLiteError(
                call: "open", code: SQLITE_CANTOPEN, message: "cannot open the writer lock file", path: lockPath,
                systemErrno: e)
        }
        var rc: Int32
        repeat { rc = flock(fd, LOCK_EX | LOCK_NB) } while rc != 0 && errno == EINTR
        guard rc == 0 else {
            let e = errno
            var text = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &text, text.count, 0)
            close(fd)
            let holder = n > 0 ? Int32(String(decoding: text[0..<n], as: UTF8.self).filter(\.isNumber)) : nil
            guard e == EWOULDBLOCK else {
                throw SQLiteError(
                    call: "flock", code: SQLITE_IOERR, message: "cannot lock the data directory", path: lockPath,
                    systemErrno: e)
            }
            let who = holder.map { "another process (pid \($0))" } ?? "another process"
            throw SQLiteError(
                call: "flock", code: SQLITE_BUSY,
                message:
                    "\(who) is already writing decisions in \(dataDirectory); stop it, "
                    + "or give this one its own data directory (--data)",
                path: lockPath)
        }
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
        return fd
    }

    /// Applies the missing migrations, each in its own transaction with its version bump.
    static func migrate(_ db: borrowing SQLiteDatabase) throws(SQLiteError) {
        let current = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        if current > schemaVersion {
            throw SQLiteError(
                call: "migrate", code: SQLITE_ERROR,
                message: "the database has schema version \(current), newer than this KioskCards knows"
                    + " (\(schemaVersion)); install the newer KioskCards or move the file away",
                path: db.path)
        }
        for version in current..<schemaVersion {
            try db.execute("BEGIN IMMEDIATE")
            do {
                try db.execute(migrations[version])
                try db.execute("PRAGMA user_version = \(version + 1)")
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// An `undone` row's `retracts_uid` is the latest decision on the same card in the same
    /// session that is not an undo and not already taken back (earlier rows of the same batch
    /// included: the statement runs row by row inside the transaction). The search walks back
    /// from the newest row by id, no index needed (an undo follows its decision closely), and
    /// stops after the last 10,000 rows.
    static let insertSQL = """
        INSERT OR IGNORE INTO decisions
            (uid, kiosk_id, session_id, deck_id, deck_version, card_id, action, wall_time, wall_ms,
             monotonic_ns, dwell_ms, position, input_method, boot_id, clock_synced, retracts_uid, too_fast,
             accessibility_mode, language)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
            CASE WHEN ?7 = 'undone' THEN (
                SELECT d.uid FROM decisions d
                WHERE d.id > (SELECT coalesce(max(id), 0) - 10000 FROM decisions)
                  AND d.session_id = ?3 AND d.card_id = ?6 AND d.action <> 'undone'
                  AND NOT EXISTS (SELECT 1 FROM decisions r WHERE r.retracts_uid = d.uid)
                ORDER BY d.id DESC LIMIT 1)
            END, ?16, ?17, ?18)
        """

    /// A visit's start inserts it; its end (or a retried start) completes it. Only set fields
    /// overwrite, so a replayed start never erases an end.
    static let visitSQL = """
        INSERT INTO visits
            (session_id, kiosk_id, deck_id, deck_version, started_wall_ms, started_monotonic_ns,
             ended_wall_ms, end_reason, cards_shown, accessibility_used)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        ON CONFLICT (session_id) DO UPDATE SET
            ended_wall_ms = COALESCE(excluded.ended_wall_ms, ended_wall_ms),
            end_reason = COALESCE(excluded.end_reason, end_reason),
            cards_shown = COALESCE(excluded.cards_shown, cards_shown),
            accessibility_used = COALESCE(excluded.accessibility_used, accessibility_used)
        """

    static let eventSQL = """
        INSERT OR IGNORE INTO kiosk_events (uid, kiosk_id, kind, wall_ms, monotonic_ns, session_id, card_id, code_of)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
        """

    /// Writes `batch` in one transaction; when this returns, every record is durable.
    static func insert(_ batch: [(uid: String, record: DecisionRecord)], into db: borrowing SQLiteDatabase)
        throws(SQLiteError)
    {
        try insert(items: batch.map { (uid: $0.uid, item: StoreItem.decision($0.record)) }, into: db)
    }

    /// Writes decisions, visits and events in one transaction, then marks the decisions of the
    /// `discarding` visits discarded in the same transaction; when this returns, all are durable.
    static func insert(
        items batch: [(uid: String, item: StoreItem)], discarding: [String] = [], into db: borrowing SQLiteDatabase
    ) throws(SQLiteError) {
        let bootID = BootID.current
        let synced = ClockSync.isSynchronised()
        try db.execute("BEGIN IMMEDIATE")
        do {
            let stmt = try db.prepare(insertSQL)
            let visit = try db.prepare(visitSQL)
            let event = try db.prepare(eventSQL)
            for (uid, item) in batch {
                let r: DecisionRecord
                switch item {
                case .decision(let d): r = d
                case .visit(let v):
                    try visit.bind(1, v.sessionID)
                    try visit.bind(2, v.kioskID)
                    try visit.bind(3, v.deckID)
                    try visit.bind(4, Int64(v.deckVersion))
                    try visit.bind(5, v.startedWallMs)
                    try visit.bind(6, v.startedMonotonicNs)
                    try visit.bind(7, v.endedWallMs)
                    try visit.bind(8, v.endReason)
                    try visit.bind(9, v.cardsShown.map(Int64.init))
                    try visit.bind(10, v.accessibilityUsed.map { $0 ? Int64(1) : 0 })
                    _ = try visit.step()
                    visit.reset()
                    continue
                case .event(let e):
                    try event.bind(1, uid)
                    try event.bind(2, e.kioskID)
                    try event.bind(3, e.kind)
                    try event.bind(4, e.wallMs)
                    try event.bind(5, e.monotonicNs)
                    try event.bind(6, e.sessionID)
                    try event.bind(7, e.code?.cardID)
                    try event.bind(8, e.code?.codeOf)
                    _ = try event.step()
                    event.reset()
                    continue
                }
                try stmt.bind(1, uid)
                try stmt.bind(2, r.kioskID)
                try stmt.bind(3, r.sessionID)
                try stmt.bind(4, r.deckID)
                try stmt.bind(5, Int64(r.deckVersion))
                try stmt.bind(6, r.cardID)
                try stmt.bind(7, r.action.rawValue)
                try stmt.bind(8, r.wallTimeISO)
                try stmt.bind(9, r.wallTimeMs)
                try stmt.bind(10, r.monotonicNs)
                try stmt.bind(11, r.dwellMs)
                try stmt.bind(12, r.position.map(Int64.init))
                try stmt.bind(13, r.inputMethod?.rawValue)
                try stmt.bind(14, r.bootID ?? bootID)
                try stmt.bind(15, (r.clockSynced ?? synced).map { Int64($0 ? 1 : 0) })
                try stmt.bind(16, Int64(r.tooFast ? 1 : 0))
                try stmt.bind(17, r.accessibilityMode.map { Int64($0 ? 1 : 0) })
                try stmt.bind(18, r.language)
                _ = try stmt.step()
                stmt.reset()
            }
            if !discarding.isEmpty {
                let mark = try db.prepare("UPDATE decisions SET discarded = 1 WHERE session_id = ?1")
                for session in discarding {
                    try mark.bind(1, session)
                    _ = try mark.step()
                    mark.reset()
                }
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// A stored row as exported.
    package struct Row: Hashable, Sendable {
        package var id: Int64
        package var record: DecisionRecord
        /// The action as stored (kept verbatim, in case a newer version wrote one this one does not know).
        package var actionName: String
        /// The columns added after schema 1, as stored (nil: NULL, or a schema without them).
        /// `record` keeps schema 1's fields only, as it always has.
        package var uid: String?
        package var position: Int?
        package var inputMethodName: String?
        package var bootID: String?
        package var clockSynced: Bool?
        package var discarded: Bool?
        package var tooFast: Bool?
        package var retractsUID: String?
        package var accessibilityMode: Bool?
        package var language: String?
    }

    /// The columns each table has from each schema version on (migrations 1–8).
    static let columnsByVersion: [(version: Int, table: String, columns: [String])] = [
        (
            1, "decisions",
            [
                "id", "uid", "kiosk_id", "session_id", "deck_id", "deck_version", "card_id", "action", "wall_time",
                "wall_ms", "monotonic_ns", "dwell_ms",
            ]
        ),
        (3, "decisions", ["position", "input_method"]),
        (
            3, "visits",
            [
                "session_id", "kiosk_id", "deck_id", "deck_version", "started_wall_ms", "started_monotonic_ns",
                "ended_wall_ms", "end_reason", "cards_shown",
            ]
        ),
        (3, "kiosk_events", ["uid", "kiosk_id", "kind", "wall_ms", "monotonic_ns"]),
        (4, "decisions", ["boot_id", "clock_synced", "retracts_uid"]),
        (5, "decisions", ["discarded", "too_fast"]),
        (6, "decisions", ["accessibility_mode"]),
        (7, "decisions", ["language"]),
        (8, "kiosk_events", ["session_id", "card_id", "code_of"]),
    ]

    /// Refuses a file (one `export` or `report` is given, perhaps rescued, perhaps forged) whose
    /// `decisions`, `visits` or `kiosk_events` is not a table (a view could compute anything)
    /// or lacks a column its `user_version` promises. The message names the file and the fix.
    static func checkSchema(_ db: borrowing SQLiteDatabase, path: String) throws(SQLiteError) {
        let version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        try checkSchema(try schemaObjects(db), version: version, path: path)
    }

    /// Every table and view in `db`'s schema by its lower-cased name: its type and columns.
    /// (Read in one statement: Swift 6.0.3's move checker crashes on a borrowed database used in
    /// a loop that throws.)
    private static func schemaObjects(
        _ db: borrowing SQLiteDatabase
    ) throws(SQLiteError) -> [String: (type: String, columns: Set<String>)] {
        var objects: [String: (type: String, columns: Set<String>)] = [:]
        let rows = try db.prepare(
            "SELECT m.name, m.type, p.name FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) p"
                + " WHERE m.type IN ('table', 'view')")
        while try rows.step() {
            let name = rows.text(0).lowercased()
            var object = objects[name] ?? (type: rows.text(1), columns: [])
            if !rows.isNull(2) { object.columns.insert(rows.text(2)) }
            objects[name] = object
        }
        return objects
    }

    /// `checkSchema` on the schema's objects.
    private static func checkSchema(
        _ objects: [String: (type: String, columns: Set<String>)], version: Int, path: String
    ) throws(SQLiteError) {
        var required: [String: [String]] = [:]
        for entry in columnsByVersion where entry.version <= version {
            required[entry.table, default: []] += entry.columns
        }
        let fix =
            "this is not a decisions database a kiosk wrote (forged or altered); export from the kiosk's own"
            + " file, or check this one with 'sqlite3 FILE .schema'"
        for table in ["decisions", "visits", "kiosk_events"] {
            let object = objects[table]
            if let type = object?.type, type != "table" {
                throw SQLiteError(
                    call: "schema check", code: SQLITE_ERROR, message: "'\(table)' is a \(type), not a table: \(fix)",
                    path: path)
            }
            guard let columns = required[table] else { continue }
            guard let present = object?.columns else {
                throw SQLiteError(
                    call: "schema check", code: SQLITE_ERROR,
                    message: "no '\(table)' table, which schema version \(version) has: \(fix)", path: path)
            }
            let missing = columns.filter { !present.contains($0) }
            guard missing.isEmpty else {
                throw SQLiteError(
                    call: "schema check", code: SQLITE_ERROR,
                    message:
                        "'\(table)' lacks \(missing.joined(separator: ", ")), which schema version \(version) has: \(fix)",
                    path: path)
            }
        }
    }

    /// Calls `body` for every decision with wall time ≥ `sinceMs`, in storage order.
    package static func forEachRow(
        dataDirectory: String, sinceMs: Int64?, _ body: (Row) -> Void
    ) throws(SQLiteError) {
        let path = path(dataDirectory: dataDirectory)
        if access(path, F_OK) != 0 {
            throw SQLiteError(
                call: "open", code: SQLITE_CANTOPEN,
                message: "no decisions database here; check --data (the kiosk's data directory)", path: path)
        }
        // A rescue from a dying SD card: a read-only file system (or a file this process may
        // not write) cannot take the -shm file a WAL reader needs.
        if !canWriteBeside(path) {
            try forEachRowReadOnlyMedium(path: path, sinceMs: sinceMs, body)
            return
        }
        let db = try SQLiteDatabase(path: path, readOnly: true, create: false)
        try forEachRow(in: db, path: path, sinceMs: sinceMs, body)
    }

    /// Whether SQLite may create and write the -shm/-wal files beside `path` (a writable
    /// file system, and the directory and file writable for this process).
    static func canWriteBeside(_ path: String) -> Bool {
        var fs = statvfs()
        if statvfs(path, &fs) == 0 && fs.f_flag & UInt(ST_RDONLY) != 0 { return false }
        return access(PathName.directory(of: path), W_OK) == 0 && access(path, W_OK) == 0
    }

    /// Reads a database that cannot be written beside. Without a -wal file (or an empty one)
    /// every committed row is in the main file: open it `immutable`. With one, committed rows
    /// may be only in the WAL, which `immutable` would ignore: copy both files to a fresh
    /// directory under /tmp and read the copy (SQLite replays the WAL there), then remove it.
    static func forEachRowReadOnlyMedium(
        path: String, sinceMs: Int64?, _ body: (Row) -> Void
    ) throws(SQLiteError) {
        var st = stat()
        let walHasData = stat(path + "-wal", &st) == 0 && st.st_size > 0
        guard walHasData else {
            let db = try SQLiteDatabase(path: path, immutable: true)
            try forEachRow(in: db, path: path, sinceMs: sinceMs, body)
            return
        }
        var template = Array("/tmp/kioskcards-export-XXXXXX".utf8CString)
        // The name is read inside the closure: the pointer mkdtemp returns is the template's
        // storage, which need not outlive the closure (an optimized build freed it early).
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let scratch = made else {
            throw SQLiteError(
                call: "mkdtemp", code: SQLITE_CANTOPEN,
                message: "cannot make a directory under /tmp to read a copy of the database and its WAL", path: path,
                systemErrno: errno)
        }
        let copy = scratch + "/decisions.sqlite3"
        defer {
            unlink(copy + "-wal")
            unlink(copy + "-shm")
            unlink(copy)
            rmdir(scratch)
        }
        try copyFile(path, to: copy)
        try copyFile(path + "-wal", to: copy + "-wal")
        let db = try SQLiteDatabase(path: copy, readOnly: true, create: false)
        try forEachRow(in: db, path: path, sinceMs: sinceMs, body)
    }

    /// Copies a file byte for byte (for the read-only rescue); errors name the file.
    private static func copyFile(_ from: String, to: String) throws(SQLiteError) {
        let input = open(from, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw SQLiteError(
                call: "open", code: SQLITE_CANTOPEN, message: "cannot read", path: from, systemErrno: errno)
        }
        defer { close(input) }
        let output = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else {
            throw SQLiteError(
                call: "open", code: SQLITE_CANTOPEN, message: "cannot write", path: to, systemErrno: errno)
        }
        defer { close(output) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                throw SQLiteError(
                    call: "read", code: SQLITE_IOERR, message: "cannot read", path: from, systemErrno: errno)
            }
            if n == 0 { return }
            do { try FileIO.writeAll(fd: output, bytes: Array(chunk[0..<n]), detail: to) } catch {
                throw SQLiteError(
                    call: "write", code: SQLITE_IOERR, message: "cannot copy the database to /tmp: \(error)", path: to)
            }
        }
    }

    private static func forEachRow(
        in db: borrowing SQLiteDatabase, path: String, sinceMs: Int64?, _ body: (Row) -> Void
    ) throws(SQLiteError) {
        db.setBusyTimeout(milliseconds: 5000)
        let version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        guard version >= 1 else {
            throw SQLiteError(
                call: "open", code: SQLITE_ERROR, message: "not a KioskCards decisions database (no schema)",
                path: path)
        }
        try checkSchema(db, path: path)
        // Columns by the migration that added them (3: position, input method; 4: boot id,
        // clock flag, retraction; 5: the flags; 6: accessibility mode; 7: language); NULL on
        // an older file.
        let later = [
            version >= 3 ? "position, input_method" : "NULL, NULL",
            version >= 4 ? "boot_id, clock_synced, retracts_uid" : "NULL, NULL, NULL",
            version >= 5 ? "discarded, too_fast" : "NULL, NULL",
            version >= 6 ? "accessibility_mode" : "NULL",
            version >= 7 ? "language" : "NULL",
        ].joined(separator: ", ")
        let stmt = try db.prepare(
            """
            SELECT id, kiosk_id, session_id, deck_id, deck_version, card_id, action, wall_ms, monotonic_ns, dwell_ms,
                   uid, \(later)
            FROM decisions WHERE wall_ms >= ?1 ORDER BY id
            """)
        try stmt.bind(1, sinceMs ?? Int64.min)
        while try stmt.step() {
            let record = DecisionRecord(
                kioskID: stmt.text(1), sessionID: stmt.text(2), deckID: stmt.text(3),
                deckVersion: Int(stmt.int64(4)), cardID: stmt.text(5),
                action: DecisionAction(rawValue: stmt.text(6)) ?? .removed, wallTimeMs: stmt.int64(7),
                monotonicNs: stmt.int64(8), dwellMs: stmt.int64(9))
            body(
                Row(
                    id: stmt.int64(0), record: record, actionName: stmt.text(6), uid: stmt.optionalText(10),
                    position: stmt.optionalInt64(11).map { Int($0) }, inputMethodName: stmt.optionalText(12),
                    bootID: stmt.optionalText(13), clockSynced: stmt.optionalInt64(14).map { $0 != 0 },
                    discarded: stmt.optionalInt64(16).map { $0 != 0 }, tooFast: stmt.optionalInt64(17).map { $0 != 0 },
                    retractsUID: stmt.optionalText(15), accessibilityMode: stmt.optionalInt64(18).map { $0 != 0 },
                    language: stmt.optionalText(19)))
        }
    }
}
