import KioskFleet
import KioskReport
import KioskStore
import KioskSystem

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

/// What the report read: the aggregates, the source's name for the page, and for the fleet
/// every registered kiosk's health.
struct ReportRead {
    var aggregates: ReportAggregates
    var label: String
    var health: [KioskStatus]?
}

extension ReportCommand {
    /// The aggregates from the kiosk's SQLite file (`--data`) or the fleet (`--postgres`).
    static func read(_ options: Options, _ filter: ReportFilter, nowMs: Int64) throws -> ReportRead {
        if options.postgresURL.isEmpty {
            let reader = try SQLiteReportReader(dataDirectory: options.dataDirectory)
            let aggregates = try ReportQuery.aggregates(SQLiteReportDatabase(reader: reader), filter, nowMs: nowMs)
            return ReportRead(aggregates: aggregates, label: reader.path, health: nil)
        }
        let reader = try PostgresReportReader(conninfo: options.postgresURL)
        let aggregates = try reader.read {
            try ReportQuery.aggregates(PostgresReportDatabase(reader: reader), filter, nowMs: nowMs)
        }
        // Outside the report's transaction: a role that may not read the fleet's health still gets the figures.
        var health: [KioskStatus]?
        do {
            health = try reader.kioskStatus()
        } catch {
            Log.warning("report: the page has no kiosk health table: \(error)")
        }
        return ReportRead(
            aggregates: aggregates, label: PostgresReportReader.label(conninfo: options.postgresURL), health: health)
    }
}
