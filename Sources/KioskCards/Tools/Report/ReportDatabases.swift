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
    /// Titles and deck order of the deck versions found (ReportDecks).
    var decks: [String: ReportFigures.DeckCards] = [:]
    /// The period before --since, as long as the report's (nil without --since).
    var previous: ReportFigures.Previous?
}

extension ReportCommand {
    /// The aggregates from the kiosk's SQLite file (`--data`) or the fleet (`--postgres`).
    static func read(_ options: Options, _ filter: ReportFilter, nowMs: Int64) throws -> ReportRead {
        // The previous period: the same filter, as long, ending where this one starts.
        let period = ReportFigures.previousPeriod(sinceMs: filter.sinceMs, untilMs: filter.untilMs, nowMs: nowMs)
        var before = filter
        before.sinceMs = period?.since
        before.untilMs = period?.until
        if options.postgresURL.isEmpty {
            let reader = try SQLiteReportReader(dataDirectory: options.dataDirectory)
            let aggregates = try ReportQuery.aggregates(SQLiteReportDatabase(reader: reader), filter, nowMs: nowMs)
            var read = ReportRead(aggregates: aggregates, label: reader.path, health: nil)
            read.decks = ReportDecks.fromFiles(options.deckFiles, dataDirectory: options.dataDirectory)
            if let period {
                // A second connection: the first one's temporary tables live until it closes.
                let second = try SQLiteReportReader(dataDirectory: options.dataDirectory)
                read.previous = .init(
                    aggregates: try ReportQuery.aggregates(SQLiteReportDatabase(reader: second), before, nowMs: nowMs),
                    sinceMs: period.since, untilMs: period.until)
            }
            return read
        }
        let reader = try PostgresReportReader(conninfo: options.postgresURL)
        let (aggregates, previous): (ReportAggregates, ReportFigures.Previous?) = try reader.read {
            let database = PostgresReportDatabase(reader: reader)
            let now = try ReportQuery.aggregates(database, filter, nowMs: nowMs)
            guard let period else { return (now, nil) }
            // The same transaction, so both periods see the same rows; the first one's temporary tables dropped.
            for table in ["report_d", "report_m", "report_f", "report_v"] {
                _ = try reader.rows("DROP TABLE \(table)", integers: [:], texts: [:])
            }
            let then = try ReportQuery.aggregates(database, before, nowMs: nowMs)
            return (now, ReportFigures.Previous(aggregates: then, sinceMs: period.since, untilMs: period.until))
        }
        // Outside the report's transaction: a role that may not read the fleet's health still gets the figures.
        var health: [KioskStatus]?
        do {
            health = try reader.kioskStatus()
        } catch {
            Log.warning("report: the page has no kiosk health table: \(error)")
        }
        return ReportRead(
            aggregates: aggregates, label: PostgresReportReader.label(conninfo: options.postgresURL), health: health,
            decks: ReportDecks.fromFleet(reader), previous: previous)
    }
}
