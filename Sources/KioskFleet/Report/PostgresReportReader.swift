import Glibc
import KioskSystem

/// The fleet's PostgreSQL opened for the report: schema checked, the session's time zone the
/// report's. The report's SQL (KioskReport's `ReportQuery`) runs through `rows`, inside `read`
/// (one REPEATABLE READ transaction, so syncing kiosks never make the figures disagree with
/// each other); the executable adapts this reader to `ReportDatabase`.
package final class PostgresReportReader {
    private let db: PostgresConnection

    /// A heartbeat covers this long after the server received it (`KioskStatus.staleAfter`: a
    /// kiosk counts as online for 180 s after a heartbeat).
    package static let heartbeatCoverMs = KioskStatus.staleAfter * 1000

    /// Connects with `conninfo`; hours, weekdays and days are counted in `timeZone` (an IANA
    /// name; nil: the process's — TZ, else /etc/localtime, else UTC — as the SQLite report uses).
    package init(conninfo: String, timeZone: String? = nil) throws(FleetError) {
        let db = try PostgresConnection(conninfo: conninfo, applicationName: "KioskCards report")
        try Self.checkSchema(db)
        try db.execute("SET TIME ZONE " + (try db.quoteLiteral(timeZone ?? Self.localTimeZoneName())))
        self.db = db
    }

    /// Runs `body` in one REPEATABLE READ transaction (its temporary tables dropped at COMMIT).
    package func read<T>(_ body: () throws -> T) throws -> T {
        try db.transaction { db in
            try db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            try db.execute("SET LOCAL work_mem = '64MB'")
            return try body()
        }
    }

    /// Runs `sql` with its named parameters (`:name`) bound as `$n` text parameters (integers
    /// cast to bigint, texts to text), and returns the rows.
    package func rows(_ sql: String, integers: [String: Int64], texts: [String: String?]) throws(FleetError)
        -> [[String?]]
    {
        var text = sql
        var values: [String?] = []
        // Longest names first, so no name is replaced inside a longer one.
        for (name, value) in integers.sorted(by: { $0.key.count > $1.key.count }) where text.contains(":" + name) {
            values.append(String(value))
            text = text.replacing(":" + name, with: "$\(values.count)::bigint")
        }
        for (name, value) in texts.sorted(by: { $0.key.count > $1.key.count }) where text.contains(":" + name) {
            values.append(value)
            text = text.replacing(":" + name, with: "$\(values.count)::text")
        }
        return try db.execute(text, values).values
    }

    /// Whether `table` exists in the fleet schema, and has `column` when one is given.
    package func has(table: String, column: String?) throws(FleetError) -> Bool {
        try db.execute(
            """
            SELECT 1 FROM information_schema.columns WHERE table_schema = 'fleet' AND table_name = $1
                AND ($2::text IS NULL OR column_name = $2) LIMIT 1
            """, [table, column]
        ).count > 0
    }

    /// The source for messages and the page: the database's name only — no host, port, role,
    /// password or CA path on a page that gets passed around.
    package static func label(conninfo: String) -> String {
        var name: String?
        if let scheme = conninfo.firstRange(of: "://") {
            let rest = conninfo[scheme.upperBound...]
            if let slash = rest.firstIndex(of: "/") {
                let path = rest[rest.index(after: slash)...].prefix { $0 != "?" }
                if !path.isEmpty { name = String(path) }
            }
            if let query = rest.firstIndex(of: "?") {
                for pair in rest[rest.index(after: query)...].split(separator: "&") where pair.hasPrefix("dbname=") {
                    name = String(pair.dropFirst(7))
                }
            }
        } else {
            for pair in conninfo.split(separator: " ") where pair.hasPrefix("dbname=") {
                name = String(pair.dropFirst(7))
            }
        }
        return "PostgreSQL database " + (name.map { "'\($0)'" } ?? "(the role's default)")
    }

    /// Every registered kiosk's health: `fleet status`'s rows, from its one query.
    package func kioskStatus() throws(FleetError) -> [KioskStatus] { try KioskStatus.all(on: db) }

    /// The process's zone name: TZ (without a leading ':'), else the target of /etc/localtime
    /// below `zoneinfo/`, else UTC.
    package static func localTimeZoneName() -> String {
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            return tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if n > 0 {
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let r = target.firstRange(of: "zoneinfo/") { return String(target[r.upperBound...]) }
        }
        return "UTC"
    }

    /// The report needs central schema `FleetSchema.reportSchemaVersion`; the error says which side to upgrade.
    static func checkSchema(_ db: PostgresConnection) throws(FleetError) {
        let exists = try db.execute("SELECT to_regclass('fleet.schema_migrations') IS NOT NULL").scalar == "t"
        guard exists else {
            throw FleetError(
                kind: .schemaTooOld,
                message:
                    "no fleet schema in this database; check the URL, or run 'KioskCards fleet init --postgres URL'")
        }
        let version = try FleetSchema.currentVersion(db)
        if version < FleetSchema.reportSchemaVersion {
            throw FleetError(
                kind: .schemaTooOld,
                message:
                    "the central schema is at version \(version); the report needs \(FleetSchema.reportSchemaVersion)"
                    + " (visits, positions): run 'KioskCards fleet init --postgres URL' with this KioskCards")
        }
        if version > FleetSchema.schemaVersion {
            throw FleetError(
                kind: .schemaTooNew,
                message:
                    "the central schema is at version \(version), newer than this KioskCards knows (\(FleetSchema.schemaVersion));"
                    + " use the newer KioskCards for the report")
        }
    }

}
