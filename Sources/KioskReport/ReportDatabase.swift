/// How the report reaches a database: one kiosk's SQLite file or the fleet's PostgreSQL. The
/// executable adapts KioskStore's `SQLiteReportReader` and KioskFleet's `PostgresReportReader`
/// to it, so this target never imports a pipeline target and they never import each other.
/// The SQL itself is written once, in `ReportQuery`, with the few places where the two
/// dialects differ side by side in `ReportDialect`.
package protocol ReportDatabase {
    var dialect: ReportDialect { get }
    /// Runs `sql` with its named parameters (`:since`…) bound — integers from `integers`, texts
    /// (nil: NULL) from `texts` — and returns every row, each value as text (nil: SQL NULL).
    /// Errors are the back end's own (SQLiteError, FleetError), with their fix.
    func rows(_ sql: String, integers: [String: Int64], texts: [String: String?]) throws -> [[String?]]
    /// Whether `table` (unqualified, in the report's schema) exists, and has `column` when given.
    func has(table: String, column: String?) throws -> Bool
    /// How long a heartbeat counts for, in ms; nil: the source has no heartbeats (a kiosk's SQLite).
    var heartbeatCoverMs: Int64? { get }
}

/// The two SQL dialects side by side: only what differs between SQLite and PostgreSQL. Every
/// query is written once against these.
package struct ReportDialect: Sendable {
    /// The schema of the recorded tables ("" or "fleet.").
    package var schema: String
    /// What follows CREATE TEMP TABLE name (PostgreSQL drops its temporary tables at COMMIT).
    package var tempTableSuffix: String
    /// The columns that order one kiosk's decisions as stored, newest first.
    package var storageOrder: [String]
    package var newestFirst: String
    /// Statements run once the temporary tables exist (an index for SQLite, statistics for PostgreSQL).
    package var afterMashing: [String]
    package var afterTables: [String]
    /// A NULL that stands for a missing column of this type.
    package var nullBoolean: String
    package var nullText: String
    /// SQL for the weekday (0 = Monday) × 24 + hour and the date "YYYY-MM-DD" of a Unix-ms column,
    /// in the report's local time zone.
    package var weekdayHour: @Sendable (String) -> String
    package var day: @Sendable (String) -> String

    package static let sqlite = ReportDialect(
        schema: "", tempTableSuffix: "", storageOrder: ["id"], newestFirst: "id DESC",
        afterMashing: ["CREATE UNIQUE INDEX temp.report_m_visit ON report_m (kiosk_id, session_id)"],
        // SQLite builds no automatic index for a correlated subquery: without the visit indexes
        // each visit's EXISTS over report_d scanned every decision (quadratic).
        afterTables: [
            "CREATE INDEX temp.report_f_card ON report_f (deck_id, card_id, dwell_ms)",
            "CREATE INDEX temp.report_d_visit ON report_d (kiosk_id, session_id)",
            "CREATE INDEX temp.report_v_visit ON report_v (kiosk_id, session_id)",
        ],
        nullBoolean: "NULL", nullText: "NULL",
        weekdayHour: { column in
            "((CAST(strftime('%w', \(column) / 1000, 'unixepoch', 'localtime') AS INTEGER) + 6) % 7) * 24"
                + " + CAST(strftime('%H', \(column) / 1000, 'unixepoch', 'localtime') AS INTEGER)"
        },
        day: { column in "strftime('%Y-%m-%d', \(column) / 1000, 'unixepoch', 'localtime')" })

    /// Rows are ordered by each kiosk's storage order (local_id; older payloads have none and
    /// fall back to the monotonic time); the connection's TIME ZONE is the report's.
    package static let postgres = ReportDialect(
        schema: "fleet.", tempTableSuffix: " ON COMMIT DROP",
        storageOrder: ["local_id", "monotonic_ns", "decision_uid"],
        newestFirst: "local_id DESC NULLS LAST, monotonic_ns DESC, decision_uid DESC",
        afterMashing: ["ANALYZE report_m"], afterTables: ["ANALYZE report_d", "ANALYZE report_f"],
        nullBoolean: "NULL::boolean", nullText: "NULL::text",
        weekdayHour: { column in
            "((extract(isodow FROM to_timestamp(\(column) / 1000))::int - 1) * 24"
                + " + extract(hour FROM to_timestamp(\(column) / 1000))::int)"
        },
        day: { column in "to_char(to_timestamp(\(column) / 1000), 'YYYY-MM-DD')" })
}
