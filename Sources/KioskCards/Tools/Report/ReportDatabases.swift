import KioskFleet
import KioskReport
import KioskStore

/// The report's two back ends adapted to KioskReport's `ReportDatabase`: the SQL is the
/// report's, the connection the store's or the fleet's.
struct SQLiteReportDatabase: ReportDatabase {
    let reader: SQLiteReportReader
    var dialect: ReportDialect { .sqlite }
    var heartbeatCoverMs: Int64? { nil }

    func rows(_ sql: String, integers: [String: Int64], texts: [String: String?]) throws -> [[String?]] {
        try reader.rows(sql, integers: integers, texts: texts)
    }

    func has(table: String, column: String?) throws -> Bool { try reader.has(table: table, column: column) }
}

struct PostgresReportDatabase: ReportDatabase {
    let reader: PostgresReportReader
    var dialect: ReportDialect { .postgres }
    var heartbeatCoverMs: Int64? { PostgresReportReader.heartbeatCoverMs }

    func rows(_ sql: String, integers: [String: Int64], texts: [String: String?]) throws -> [[String?]] {
        try reader.rows(sql, integers: integers, texts: texts)
    }

    func has(table: String, column: String?) throws -> Bool { try reader.has(table: table, column: column) }
}

extension ReportCommand {
    /// The aggregates from the kiosk's SQLite file (`--data`) or the fleet (`--postgres`), and
    /// the source's name for the page.
    static func aggregates(_ options: Options, _ filter: ReportFilter, nowMs: Int64) throws
        -> (ReportAggregates, label: String)
    {
        if options.postgresURL.isEmpty {
            let reader = try SQLiteReportReader(dataDirectory: options.dataDirectory)
            return (try ReportQuery.aggregates(SQLiteReportDatabase(reader: reader), filter, nowMs: nowMs), reader.path)
        }
        let reader = try PostgresReportReader(conninfo: options.postgresURL)
        let aggregates = try reader.read {
            try ReportQuery.aggregates(PostgresReportDatabase(reader: reader), filter, nowMs: nowMs)
        }
        return (aggregates, PostgresReportReader.label(conninfo: options.postgresURL))
    }
}
