import CSQLite
import Glibc
import KioskSystem

/// A kiosk's `decisions.sqlite3` opened for the report: read-only, safe while the kiosk is
/// writing (WAL), its schema checked. The report's SQL (KioskReport's `ReportQuery`) runs
/// through `rows`; the executable adapts this reader to `ReportDatabase`.
package final class SQLiteReportReader {
    package let path: String
    private let db: SQLiteDatabase

    /// Opens the database in `dataDirectory`; the error names the file and the fix.
    package init(dataDirectory: String) throws(SQLiteError) {
        let path = DecisionDatabase.path(dataDirectory: dataDirectory)
        if access(path, F_OK) != 0 {
            throw SQLiteError(
                call: "open", code: SQLITE_CANTOPEN,
                message: "no decisions database here; check --data (the kiosk's data directory)", path: path)
        }
        let db = try SQLiteDatabase(path: path, readOnly: true, create: false)
        db.setBusyTimeout(milliseconds: 5000)
        guard (try db.scalarInt("PRAGMA user_version") ?? 0) >= 1 else {
            throw SQLiteError(
                call: "open", code: SQLITE_ERROR, message: "not a KioskCards decisions database (no schema)", path: path
            )
        }
        try DecisionDatabase.checkSchema(db, path: path)
        // Temporary tables spill to a file beyond a 64 MiB cache: 1M decisions stay near 150 MB RSS.
        try db.execute("PRAGMA temp_store = FILE")
        try db.execute("PRAGMA cache_size = -65536")
        self.path = path
        self.db = db
    }

    /// Runs `sql`, binding the named parameters it uses (`:name`) from `integers` and `texts`,
    /// and returns every row as text (nil: NULL).
    package func rows(_ sql: String, integers: [String: Int64], texts: [String: String?]) throws(SQLiteError)
        -> [[String?]]
    {
        let stmt = try db.prepare(sql)
        let count = stmt.parameterCount
        if count > 0 {
            for i in 1...count {
                guard let prefixed = stmt.parameterName(i) else { continue }
                let name = String(prefixed.dropFirst())
                if let value = integers[name] {
                    try stmt.bind(i, value)
                } else if let value = texts[name] {
                    try stmt.bind(i, value)
                } else {
                    throw SQLiteError(
                        call: "bind", code: SQLITE_RANGE, message: "no value for the parameter :\(name)", path: path)
                }
            }
        }
        let columns = stmt.columnCount
        var rows: [[String?]] = []
        while try stmt.step() {
            var row: [String?] = []
            row.reserveCapacity(Int(columns))
            for c in 0..<columns { row.append(stmt.optionalText(c)) }
            rows.append(row)
        }
        return rows
    }

    /// Whether `table` exists, and has `column` when one is given.
    package func has(table: String, column: String?) throws(SQLiteError) -> Bool {
        let stmt = try db.prepare(
            "SELECT 1 FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) p"
                + " WHERE m.type = 'table' AND m.name = ?1 AND (?2 IS NULL OR p.name = ?2)")
        try stmt.bind(1, table)
        try stmt.bind(2, column)
        return try stmt.step()
    }
}
