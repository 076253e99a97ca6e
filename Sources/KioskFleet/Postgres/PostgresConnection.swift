import CLibPQ
import Glibc

/// One libpq connection (`PGconn`), used from one thread at a time; `PQfinish` on deinit.
///
/// Queries go through `PQexecParams` with text parameters only, so no value is ever spliced
/// into SQL. Failures come back as `FleetError` with their kind decided here, once. libpq is
/// loaded by the first connection (`LibPQ`); without it the connection fails as
/// `clientLibraryMissing`, which the sync worker treats like an unreachable server.
package final class PostgresConnection {
    private let conn: OpaquePointer
    private let pq: LibPQ

    /// The rows of a result, every value as text (nil: SQL NULL).
    package struct Rows: Sendable, Hashable {
        package var columns: [String]
        package var values: [[String?]]
        /// `PQcmdTuples`: rows affected by INSERT/UPDATE/DELETE (0 when none or not applicable).
        package var affected: Int

        package var count: Int { values.count }
        /// The first column of the first row.
        package var scalar: String? { values.first?.first ?? nil }
    }

    /// Connects with `conninfo` (a `postgresql://` URL or `key=value` pairs, passed through to
    /// libpq untouched, so `sslmode=verify-full`, `sslrootcert=…`, `host=/socket/dir` all work).
    /// `password` (from a credentials file) is used unless the conninfo carries one.
    /// Adds `connect_timeout` and TCP keepalives unless the conninfo sets them, so a dead network
    /// shows up as an error instead of a hang.
    package init(
        conninfo: String, password: String? = nil, applicationName: String = "KioskCards",
        connectTimeoutSeconds: Int = 10
    ) throws(FleetError) {
        let pq = try LibPQ.loaded()
        // Earlier keywords are defaults; the expanded dbname (the URL) overrides them.
        var pairs: [(String, String)] = [
            ("connect_timeout", String(connectTimeoutSeconds)),
            ("keepalives", "1"),
            ("keepalives_idle", "20"),
            ("keepalives_interval", "5"),
            ("keepalives_count", "3"),
            // Unacknowledged data (a cable pulled mid-INSERT) fails the send after 30 s.
            ("tcp_user_timeout", "30000"),
            ("application_name", applicationName),
        ]
        if let password { pairs.append(("password", password)) }
        pairs.append(("dbname", conninfo))
        let keywords = pairs.map { strdup($0.0) } + [nil]
        let values = pairs.map { strdup($0.1) } + [nil]
        defer {
            for p in keywords { free(p) }
            for p in values { free(p) }
        }
        let made: OpaquePointer? = keywords.withUnsafeBufferPointer { k in
            values.withUnsafeBufferPointer { v in
                k.withMemoryRebound(to: UnsafePointer<CChar>?.self) { kk in
                    v.withMemoryRebound(to: UnsafePointer<CChar>?.self) { vv in
                        pq.connectdbParams(kk.baseAddress, vv.baseAddress, 1)
                    }
                }
            }
        }
        guard let made else {
            throw FleetError(kind: .unreachable, message: "PQconnectdbParams: out of memory")
        }
        guard pq.status(made) == CONNECTION_OK else {
            let message = Self.text(pq.errorMessage(made))
            pq.finish(made)
            throw FleetError.connectFailure(message)
        }
        conn = made
        self.pq = pq
        // Server notices (e.g. "relation already exists, skipping") are not for the kiosk's log.
        _ = pq.setNoticeProcessor(conn, { _, _ in }, nil)
    }

    deinit { pq.finish(conn) }

    /// A string libpq returned (never NULL for a valid connection or result; "" if it were).
    private static func text(_ p: UnsafeMutablePointer<CChar>?) -> String {
        p.map { String(cString: $0) } ?? ""
    }

    /// Whether libpq still considers the connection usable.
    package var isOK: Bool { pq.status(conn) == CONNECTION_OK }

    /// The connection's socket (`PQsocket`), to wait on for notifications with poll(2).
    package var socket: Int32 { pq.socket(conn) }

    /// The channels of the notifications that arrived (`PQconsumeInput` + `PQnotifies`),
    /// without waiting. Throws `connectionLost` when the socket is closed or broken.
    package func takeNotifications() throws(FleetError) -> [String] {
        guard pq.consumeInput(conn) == 1 else {
            throw FleetError(kind: .connectionLost, message: Self.text(pq.errorMessage(conn)))
        }
        var channels: [String] = []
        while let note = pq.notifies(conn) {
            channels.append(String(cString: note.pointee.relname))
            pq.freemem(note)
        }
        return channels
    }

    /// The server's process id for this connection (`pg_backend_pid()`), for tests and logs.
    package var backendPID: Int32 { pq.backendPID(conn) }

    /// The connection's parameters as libpq resolved them (`PQconninfo`): host, port, dbname,
    /// user, sslmode, sslrootcert… (empty values left out).
    package var resolvedParameters: [String: String] {
        guard let options = pq.conninfo(conn) else { return [:] }
        defer { pq.conninfoFree(options) }
        return Self.parameters(options)
    }

    /// What `conninfo` (a URL or key=value pairs) sets, parsed by libpq (`PQconninfoParse`)
    /// without connecting: no defaults, no environment.
    package static func parse(conninfo: String) throws(FleetError) -> [String: String] {
        let pq = try LibPQ.loaded()
        var error: UnsafeMutablePointer<CChar>?
        guard let options = pq.conninfoParse(conninfo, &error) else {
            let message = error.map { String(cString: $0) } ?? "out of memory"
            if let error { pq.freemem(error) }
            throw FleetError(kind: .badURL, message: message)
        }
        defer { pq.conninfoFree(options) }
        return parameters(options)
    }

    private static func parameters(_ options: UnsafeMutablePointer<PQconninfoOption>) -> [String: String] {
        var out: [String: String] = [:]
        var p = options
        while let keyword = p.pointee.keyword {
            if let value = p.pointee.val, value.pointee != 0 { out[String(cString: keyword)] = String(cString: value) }
            p += 1
        }
        return out
    }

    /// Runs `sql` with `$1…$n` bound to `parameters` (text format; nil binds NULL) through
    /// `PQexecParams`, and returns the rows. Without parameters it goes through `PQexec`, which
    /// also takes several statements separated by semicolons (a migration).
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String?] = []) throws(FleetError) -> Rows {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for p in copies { free(p) } }
        let result: OpaquePointer?
        if parameters.isEmpty {
            result = pq.exec(conn, sql)
        } else {
            result = copies.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                    pq.execParams(conn, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
                }
            }
        }
        guard let result else {
            throw failure(result: nil)
        }
        defer { pq.clear(result) }
        switch pq.resultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            break
        default:
            throw failure(result: result)
        }
        let rowCount = Int(pq.ntuples(result))
        let columnCount = Int(pq.nfields(result))
        var columns: [String] = []
        for c in 0..<columnCount { columns.append(Self.text(pq.fname(result, Int32(c)))) }
        var values: [[String?]] = []
        values.reserveCapacity(rowCount)
        for r in 0..<rowCount {
            var row: [String?] = []
            row.reserveCapacity(columnCount)
            for c in 0..<columnCount {
                if pq.getisnull(result, Int32(r), Int32(c)) != 0 {
                    row.append(nil)
                } else {
                    row.append(Self.text(pq.getvalue(result, Int32(r), Int32(c))))
                }
            }
            values.append(row)
        }
        let affected = Int(Self.text(pq.cmdTuples(result))) ?? 0
        return Rows(columns: columns, values: values, affected: affected)
    }

    /// Runs a one-value query with `$1…$n` bound to `parameters` and hands the value's bytes in
    /// binary format (no hex text: a bytea arrives as the bytes themselves) to `body` while
    /// libpq's result still holds them; nil: no row, or NULL. Memory: the one value, so callers
    /// bound it in SQL (a `substring` of a blob).
    package func withBinaryValue<T>(
        _ sql: String, _ parameters: [String], _ body: (UnsafeRawBufferPointer?) throws -> T
    ) throws -> T {
        let copies = parameters.map { strdup($0) }
        defer { for p in copies { free(p) } }
        let result = copies.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                pq.execParams(conn, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 1)
            }
        }
        guard let result else { throw failure(result: nil) }
        defer { pq.clear(result) }
        guard pq.resultStatus(result) == PGRES_TUPLES_OK else { throw failure(result: result) }
        guard pq.ntuples(result) > 0, pq.nfields(result) > 0, pq.getisnull(result, 0, 0) == 0,
            let value = pq.getvalue(result, 0, 0)
        else { return try body(nil) }
        return try body(UnsafeRawBufferPointer(start: value, count: Int(pq.getlength(result, 0, 0))))
    }

    /// Runs `body` between BEGIN and COMMIT; ROLLBACK (best effort) when it throws. When the
    /// COMMIT itself fails on a lost connection the outcome is unknown to the caller: callers
    /// must make the body idempotent (the sync does, with ON CONFLICT DO NOTHING).
    package func transaction<T>(_ body: (PostgresConnection) throws -> T) throws(FleetError) -> T {
        try execute("BEGIN")
        let value: T
        do {
            value = try body(self)
        } catch {
            if isOK { _ = try? execute("ROLLBACK") }
            throw error as? FleetError ?? FleetError(kind: .query, message: "\(error)")
        }
        try execute("COMMIT")
        return value
    }

    /// Hashes `password` for `user` the way the server wants it (`PQencryptPasswordConn`,
    /// SCRAM-SHA-256 by default), so the clear password never travels in a CREATE ROLE.
    package func encryptPassword(_ password: String, user: String) throws(FleetError) -> String {
        guard let hashed = pq.encryptPasswordConn(conn, password, user, nil) else {
            throw FleetError(kind: .query, message: Self.text(pq.errorMessage(conn)))
        }
        defer { pq.freemem(hashed) }
        return String(cString: hashed)
    }

    /// Classifies a failed result: by SQLSTATE when the server sent one, else by the
    /// connection's state (a broken socket has no SQLSTATE).
    private func failure(result: OpaquePointer?) -> FleetError {
        let message =
            result.map { Self.text(pq.resultErrorMessage($0)) } ?? Self.text(pq.errorMessage(conn))
        let sqlState = result.flatMap { r -> String? in
            guard let s = pq.resultErrorField(r, CLibPQ_diagSQLState()) else { return nil }
            return String(cString: s)
        }
        let text = message.isEmpty ? Self.text(pq.errorMessage(conn)) : message
        if pq.status(conn) != CONNECTION_OK {
            return FleetError(kind: .connectionLost, message: text, sqlState: sqlState)
        }
        switch sqlState {
        case .some(let s) where s.hasPrefix("08") || s.hasPrefix("57P"):
            return FleetError(kind: .connectionLost, message: text, sqlState: sqlState)
        case "42501":
            return FleetError(kind: .permissionDenied, message: text, sqlState: sqlState)
        case "28000", "28P01":
            return FleetError(kind: .authenticationFailed, message: text, sqlState: sqlState)
        default:
            return FleetError(kind: .query, message: text, sqlState: sqlState)
        }
    }
}

extension PostgresConnection {
    /// Quotes an identifier for SQL (`PQescapeIdentifier`), e.g. a role name in CREATE ROLE,
    /// which cannot be a bound parameter.
    package func quoteIdentifier(_ name: String) throws(FleetError) -> String {
        let bytes = Array(name.utf8)
        guard let quoted = pq.escapeIdentifier(conn, name, bytes.count) else {
            throw FleetError(kind: .query, message: Self.text(pq.errorMessage(conn)))
        }
        defer { pq.freemem(quoted) }
        return String(cString: quoted)
    }

    /// Quotes a string literal (`PQescapeLiteral`), for utility statements that take no parameters.
    package func quoteLiteral(_ text: String) throws(FleetError) -> String {
        let bytes = Array(text.utf8)
        guard let quoted = pq.escapeLiteral(conn, text, bytes.count) else {
            throw FleetError(kind: .query, message: Self.text(pq.errorMessage(conn)))
        }
        defer { pq.freemem(quoted) }
        return String(cString: quoted)
    }
}
