import CSQLite
import Glibc
import KioskSystem

/// A failed SQLite call, printed like
/// `'sqlite3_step' failed: (13) database or disk is full [/var/lib/kioskcards/decisions.sqlite3]`.
package struct SQLiteError: Error, CustomStringConvertible {
    var call: String
    /// The extended result code (the primary code is its low byte).
    var code: Int32
    var message: String
    var path: String
    /// errno of the failing system call inside SQLite (sqlite3_system_errno), 0 when none.
    var systemErrno: Int32 = 0

    var primaryCode: Int32 { code & 0xFF }

    /// The kind of fault, for the operator's fix.
    enum Fault {
        case diskFull
        case readOnly
        case cannotOpen
        case busy
        case ioError
        case corrupt
        case other
    }

    var fault: Fault {
        switch systemErrno {
        case ENOSPC, EDQUOT: return .diskFull
        case EROFS, EACCES, EPERM: return .readOnly
        default: break
        }
        return switch primaryCode {
        case SQLITE_FULL: .diskFull
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH: .readOnly
        case SQLITE_CANTOPEN: .cannotOpen
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_IOERR: .ioError
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        default: .other
        }
    }

    package var description: String {
        let system = systemErrno != 0 ? ", \(Errno(systemErrno))" : ""
        // The message may quote a foreign file's schema, the path is the operator's: shown visibly.
        return "'\(call)' failed: (\(code)) \(Escape.terminal(message))\(system) [\(Escape.terminal(path))]"
    }
}

/// One open SQLite connection (`sqlite3_open_v2` … `sqlite3_close_v2`), used from one thread.
struct SQLiteDatabase: ~Copyable {
    let handle: OpaquePointer
    let path: String
    /// SQLite's functions (libsqlite3, loaded by the first database opened).
    let sqlite: SQLiteFunctions
    /// A lock file descriptor closed with the connection (the data directory's writer lock); -1: none.
    private let heldLock: Int32

    /// Opens (and with `create`, creates) the database file at `path`. `heldLock` is an fd the
    /// connection takes over and closes when it closes (also when opening fails).
    /// With `immutable`, the file is opened read-only through a `file:` URI with
    /// `immutable=1`: SQLite takes no locks and writes nothing beside it (no -shm), so a
    /// database on a read-only file system opens. Only for a file no one can be writing.
    /// A read-only or immutable connection is set up for a file the kiosk may not have written:
    /// `SQLITE_DBCONFIG_DEFENSIVE` on, `trusted_schema` off (`DecisionDatabase.checkSchema`
    /// then refuses a forged layout).
    init(
        path: String, readOnly: Bool = false, create: Bool = true, immutable: Bool = false, heldLock: Int32 = -1
    ) throws(SQLiteError) {
        let sqlite: SQLiteFunctions
        do throws(SQLiteError) {
            sqlite = try SQLiteFunctions.loaded(path: path)
        } catch {
            if heldLock >= 0 { close(heldLock) }
            throw error
        }
        var db: OpaquePointer?
        var flags = readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly && !immutable { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            name = "file:" + Self.uriEscaped(path) + "?immutable=1"
        }
        let rc = sqlite.open(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = Self.text(db.map { sqlite.errmsg($0) } ?? sqlite.errstr(rc))
            let code = db.map { sqlite.extendedErrcode($0) } ?? rc
            let system = db.map { sqlite.systemErrno($0) } ?? 0
            if let db { _ = sqlite.closeV2(db) }
            if heldLock >= 0 { close(heldLock) }
            throw SQLiteError(call: "sqlite3_open_v2", code: code, message: message, path: path, systemErrno: system)
        }
        _ = sqlite.extendedResultCodes(db, 1)
        // Every connection waits out another's brief lock instead of failing at once with
        // "database is locked": in WAL mode readers do not wait for writers, but they do for
        // a connection that is the last to close (it checkpoints and removes the WAL under an
        // exclusive lock) or that recovers the WAL index. The sync opens one per round.
        _ = sqlite.busyTimeout(db, Self.defaultBusyMilliseconds)
        // A file opened for reading may be one the kiosk did not write (a rescued card, a file
        // sent in): defensive mode, and no function or virtual table called from its schema
        // (a view, a trigger, a default) unless SQLite marks it innocuous.
        if readOnly || immutable {
            var rc = CSQLite_db_config_int(sqlite.dbConfig, db, SQLITE_DBCONFIG_DEFENSIVE, 1)
            var call = "sqlite3_db_config(SQLITE_DBCONFIG_DEFENSIVE)"
            if rc == SQLITE_OK {
                rc = CSQLite_db_config_int(sqlite.dbConfig, db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
                call = "sqlite3_db_config(SQLITE_DBCONFIG_TRUSTED_SCHEMA)"
            }
            if rc == SQLITE_OK {
                rc = sqlite.exec(db, "PRAGMA trusted_schema = OFF", nil, nil, nil)
                call = "PRAGMA trusted_schema = OFF"
            }
            guard rc == SQLITE_OK else {
                _ = sqlite.closeV2(db)
                if heldLock >= 0 { close(heldLock) }
                throw SQLiteError(call: call, code: rc, message: Self.text(sqlite.errstr(rc)), path: path)
            }
        }
        handle = db
        self.path = path
        self.heldLock = heldLock
        self.sqlite = sqlite
    }

    /// A message SQLite returned (never nil in practice; "" if it were).
    static func text(_ message: UnsafePointer<CChar>?) -> String {
        message.map { String(cString: $0) } ?? ""
    }

    /// `path` for a `file:` URI: '%', '?' and '#' (and anything outside printable ASCII) as %XX.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            if b > 0x20 && b < 0x7f && b != UInt8(ascii: "%") && b != UInt8(ascii: "?") && b != UInt8(ascii: "#") {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 0xF)]], as: UTF8.self)
            }
        }
        return out
    }

    deinit {
        _ = sqlite.closeV2(handle)
        if heldLock >= 0 { close(heldLock) }
    }

    func error(_ call: String, _ rc: Int32) -> SQLiteError {
        SQLiteError(
            call: call, code: sqlite.extendedErrcode(handle), message: Self.text(sqlite.errmsg(handle)),
            path: path, systemErrno: sqlite.systemErrno(handle))
    }

    /// Runs one or more statements that return no rows we need.
    func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite.exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error("sqlite3_exec", rc) }
    }

    /// What every connection waits for another's lock before SQLITE_BUSY, unless set otherwise.
    static let defaultBusyMilliseconds: Int32 = 5000

    /// Milliseconds to wait for another connection's lock before SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) {
        _ = sqlite.busyTimeout(handle, milliseconds)
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite.prepare(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error("sqlite3_prepare_v2", rc) }
        return SQLiteStatement(handle: stmt, db: handle, path: path, sqlite: sqlite)
    }

    /// The first column of the first row of `sql`, as text (for PRAGMAs).
    func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let stmt = try prepare(sql)
        guard try stmt.step() else { return nil }
        return stmt.text(0)
    }

    func scalarInt(_ sql: String) throws(SQLiteError) -> Int64? {
        let stmt = try prepare(sql)
        guard try stmt.step() else { return nil }
        return stmt.int64(0)
    }
}

/// A prepared statement (`sqlite3_prepare_v2` … `sqlite3_finalize`); binds are 1-based,
/// columns 0-based, as in the C API.
struct SQLiteStatement: ~Copyable {
    let handle: OpaquePointer
    let db: OpaquePointer
    let path: String
    let sqlite: SQLiteFunctions

    deinit {
        _ = sqlite.finalize(handle)
    }

    private func error(_ call: String, _ rc: Int32) -> SQLiteError {
        SQLiteError(
            call: call, code: sqlite.extendedErrcode(db), message: SQLiteDatabase.text(sqlite.errmsg(db)), path: path,
            systemErrno: sqlite.systemErrno(db))
    }

    func bind(_ index: Int32, _ value: String) throws(SQLiteError) {
        let rc = sqlite.bindText(handle, index, value, -1, CSQLite_transient())
        guard rc == SQLITE_OK else { throw error("sqlite3_bind_text", rc) }
    }

    func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
        let rc = sqlite.bindInt64(handle, index, value)
        guard rc == SQLITE_OK else { throw error("sqlite3_bind_int64", rc) }
    }

    /// Binds NULL for nil.
    func bind(_ index: Int32, _ value: String?) throws(SQLiteError) {
        guard let value else { return try bindNull(index) }
        try bind(index, value)
    }

    func bind(_ index: Int32, _ value: Int64?) throws(SQLiteError) {
        guard let value else { return try bindNull(index) }
        try bind(index, value)
    }

    func bind(_ index: Int32, _ value: Double) throws(SQLiteError) {
        let rc = sqlite.bindDouble(handle, index, value)
        guard rc == SQLITE_OK else { throw error("sqlite3_bind_double", rc) }
    }

    func bindNull(_ index: Int32) throws(SQLiteError) {
        let rc = sqlite.bindNull(handle, index)
        guard rc == SQLITE_OK else { throw error("sqlite3_bind_null", rc) }
    }

    /// Whether the column's value is NULL.
    func isNull(_ column: Int32) -> Bool { sqlite.columnType(handle, column) == SQLITE_NULL }

    func double(_ column: Int32) -> Double { sqlite.columnDouble(handle, column) }

    /// Advances; true when a row is available, false when done.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite.step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error("sqlite3_step", rc)
        }
    }

    /// Ready for new binds and another `step`.
    func reset() {
        _ = sqlite.reset(handle)
        _ = sqlite.clearBindings(handle)
    }

    func text(_ column: Int32) -> String {
        guard let p = sqlite.columnText(handle, column) else { return "" }
        return String(cString: p)
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite.columnInt64(handle, column)
    }

    /// How many parameters (`?`, `:name`) the statement has.
    var parameterCount: Int32 { sqlite.bindParameterCount(handle) }

    /// The parameter's name with its prefix (":name"), nil for a nameless one; 1-based.
    func parameterName(_ index: Int32) -> String? {
        sqlite.bindParameterName(handle, index).map { String(cString: $0) }
    }

    /// How many columns a row of the statement has.
    var columnCount: Int32 { sqlite.columnCount(handle) }

    /// The text, or nil for NULL.
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    /// The integer, or nil for NULL.
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
}
