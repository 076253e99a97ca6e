import CSQLite
import Glibc
import KioskSystem

/// The report's figures from a kiosk's `decisions.sqlite3`, aggregated in SQL (temporary tables
/// and GROUP BY), read-only, safe while the kiosk is writing (WAL).
package struct SQLiteReportSource: ReportSource {
    package let dataDirectory: String
    package var label: String { DecisionDatabase.path(dataDirectory: dataDirectory) }

    package init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    package func aggregates(_ filter: ReportFilter) throws(SQLiteError) -> ReportAggregates {
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
        return try Self.aggregate(db, filter)
    }

    private static func tableExists(_ db: borrowing SQLiteDatabase, _ name: String) throws(SQLiteError) -> Bool {
        let stmt = try db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :since")
        try stmt.bind(1, name)
        return try stmt.step()
    }

    private static func columnExists(_ db: borrowing SQLiteDatabase, _ table: String, _ column: String)
        throws(SQLiteError) -> Bool
    {
        let stmt = try db.prepare("SELECT 1 FROM pragma_table_info(:since) WHERE name = :until")
        try stmt.bind(1, table)
        try stmt.bind(2, column)
        return try stmt.step()
    }

    /// Runs `sql`, binding the filter's values to the named parameters it uses (:since, :until,
    /// :kiosk, :deck, :cooldown, :mashmin, :toofast), and calls `row` for each result row.
    private static func query(
        _ db: borrowing SQLiteDatabase, _ sql: String, _ f: ReportFilter, _ row: (borrowing SQLiteStatement) -> Void
    ) throws(SQLiteError) {
        let stmt = try db.prepare(sql)
        func index(_ name: String) -> Int32 { sqlite3_bind_parameter_index(stmt.handle, name) }
        if case let i = index(":since"), i > 0 { try stmt.bind(i, f.sinceMs ?? Int64.min) }
        if case let i = index(":until"), i > 0 { try stmt.bind(i, f.untilMs ?? Int64.max) }
        if case let i = index(":kiosk"), i > 0 { try stmt.bind(i, f.kioskID) }
        if case let i = index(":deck"), i > 0 { try stmt.bind(i, f.deckID) }
        if case let i = index(":cooldown"), i > 0 { try stmt.bind(i, f.cooldownMs) }
        if case let i = index(":mashmin"), i > 0 { try stmt.bind(i, Int64(f.mashMinimum)) }
        if case let i = index(":toofast"), i > 0 { try stmt.bind(i, f.tooFastMs) }
        let began = MonotonicClock.now()
        while try stmt.step() { row(stmt) }
        if getenv("KIOSK_REPORT_TIMING") != nil {
            let ms = MonotonicClock.now().seconds(since: began) * 1000
            Log.info("report: \(jsonNumber(ms, decimals: 0)) ms: \(sql.split(separator: "\n").first ?? "")")
        }
    }

    static func aggregate(_ db: borrowing SQLiteDatabase, _ f: ReportFilter) throws(SQLiteError) -> ReportAggregates {
        var a = ReportAggregates()
        a.hasPositions = try columnExists(db, "decisions", "position")
        a.hasVisits = try tableExists(db, "visits")
        a.hasEvents = try tableExists(db, "kiosk_events")
        let positionColumn = a.hasPositions ? "position" : "NULL"
        let methodColumn = a.hasPositions ? "input_method" : "NULL"
        // Store migrations 6 and 7.
        let modeColumn = try columnExists(db, "decisions", "accessibility_mode") ? "accessibility_mode" : "NULL"
        let languageColumn = try columnExists(db, "decisions", "language") ? "language" : "NULL"
        let rowFilter =
            "wall_ms >= :since AND wall_ms < :until AND (:kiosk IS NULL OR kiosk_id = :kiosk) AND (:deck IS NULL OR deck_id = :deck)"
        // d: the decisions in range. m: suspected mashing visits. f: each visit's final answer
        // per card (the last row of that card in the visit, when it is a left or right swipe).
        try query(
            db,
            """
            CREATE TEMP TABLE d AS SELECT id, kiosk_id, session_id, deck_id, card_id,
                CASE action WHEN 'swipedLeft' THEN 0 WHEN 'swipedRight' THEN 1 WHEN 'removed' THEN 2
                    WHEN 'undone' THEN 3 ELSE 4 END AS a, wall_ms, dwell_ms,
                \(positionColumn) AS position, \(methodColumn) AS input_method,
                \(modeColumn) AS accessibility_mode, \(languageColumn) AS language
            FROM decisions WHERE \(rowFilter)
            """, f
        ) { _ in }
        try query(
            db,
            """
            CREATE TEMP TABLE m AS SELECT session_id, COUNT(*) AS rows FROM d
            WHERE a < 2
            GROUP BY session_id
            HAVING COUNT(*) >= :mashmin AND MIN(a) = MAX(a) AND MAX(dwell_ms) < :cooldown
            """, f
        ) { _ in }
        try db.execute("CREATE UNIQUE INDEX temp.m_session ON m (session_id)")
        let counted = f.includeMashing ? "1" : "session_id NOT IN (SELECT session_id FROM m)"
        try db.execute(
            """
            CREATE TEMP TABLE f AS SELECT * FROM (
                SELECT *, ROW_NUMBER() OVER (PARTITION BY session_id, card_id ORDER BY id DESC) AS latest FROM d
            ) WHERE latest = 1 AND a < 2 AND \(counted)
            """)
        // v: visits — recorded ones in range, and sessions seen only through their decisions.
        let recorded =
            a.hasVisits
            ? """
            SELECT session_id, kiosk_id, started_wall_ms AS start_ms, end_reason FROM visits
            WHERE started_wall_ms >= :since AND started_wall_ms < :until AND (:kiosk IS NULL OR kiosk_id = :kiosk)
                AND (:deck IS NULL OR deck_id = :deck)
            UNION ALL
            """ : ""
        let unrecorded = a.hasVisits ? "WHERE session_id NOT IN (SELECT session_id FROM visits)" : ""
        try query(
            db,
            """
            CREATE TEMP TABLE v AS \(recorded)
            SELECT session_id, MIN(kiosk_id) AS kiosk_id, MIN(wall_ms) AS start_ms, NULL AS end_reason
            FROM d \(unrecorded) GROUP BY session_id
            """, f
        ) { _ in }

        try query(db, "SELECT COUNT(*), MIN(wall_ms), MAX(wall_ms) FROM d", f) { s in
            a.decisionRows = Int(s.int64(0))
            if !s.isNull(1) {
                a.firstMs = s.int64(1)
                a.lastMs = s.int64(2)
            }
        }
        if a.hasVisits {
            try query(db, "SELECT MIN(start_ms), MAX(start_ms) FROM v", f) { s in
                if !s.isNull(0) {
                    a.firstMs = min(a.firstMs ?? s.int64(0), s.int64(0))
                    a.lastMs = max(a.lastMs ?? s.int64(1), s.int64(1))
                }
            }
        }

        // 1–2. Per card: answers, approval counts, dwell median and p90 (nearest rank).
        // Each visit has at most one final answer per card, so a card's answers are its visits.
        try query(
            db,
            """
            SELECT deck_id, card_id, COUNT(*), SUM(a = 1), SUM(dwell_ms < :toofast) FROM f
            GROUP BY deck_id, card_id ORDER BY deck_id, card_id
            """, f
        ) { s in
            a.cards.append(
                ReportAggregates.Card(
                    deckID: s.text(0), cardID: s.text(1), n: Int(s.int64(2)), right: Int(s.int64(3)),
                    visits: Int(s.int64(2)), tooFast: Int(s.int64(4))))
        }
        // Median and p90 by nearest rank (the ⌈p·n⌉-th smallest dwell), read off an index.
        try db.execute("CREATE INDEX temp.f_dwell ON f (deck_id, card_id, dwell_ms)")
        let rank = try db.prepare(
            "SELECT dwell_ms FROM f WHERE deck_id = ?1 AND card_id = ?2 ORDER BY dwell_ms LIMIT 1 OFFSET ?3")
        for i in a.cards.indices {
            let n = a.cards[i].n
            for (isMedian, offset) in [(true, (n + 1) / 2 - 1), (false, (9 * n + 9) / 10 - 1)] {
                try rank.bind(1, a.cards[i].deckID)
                try rank.bind(2, a.cards[i].cardID)
                try rank.bind(3, Int64(offset))
                if try rank.step() {
                    if isMedian {
                        a.cards[i].medianDwellMs = rank.int64(0)
                    } else {
                        a.cards[i].p90DwellMs = rank.int64(0)
                    }
                }
                rank.reset()
            }
        }
        try query(db, "SELECT COUNT(*), SUM(dwell_ms < :toofast) FROM f", f) { s in
            a.finalAnswers = Int(s.int64(0))
            a.tooFastAnswers = Int(s.int64(1))
        }

        // 3. Funnel, drop-off by position, how visits end.
        try query(db, "SELECT COUNT(*) FROM v", f) { s in a.visits = Int(s.int64(0)) }
        try query(
            db, "SELECT COUNT(*) FROM v WHERE session_id IN (SELECT session_id FROM d WHERE a <> 3)", f
        ) { s in a.visitsWithDecision = Int(s.int64(0)) }
        try query(db, "SELECT end_reason, COUNT(*) FROM v GROUP BY end_reason", f) { s in
            a.endReasons[s.isNull(0) ? nil : s.text(0)] = Int(s.int64(1))
        }
        if a.hasEvents {
            try query(
                db,
                """
                SELECT COUNT(*) FROM kiosk_events WHERE kind = 'attract_shown' AND wall_ms >= :since AND wall_ms < :until
                    AND (:kiosk IS NULL OR kiosk_id = :kiosk)
                """, f
            ) { s in a.attractShown = Int(s.int64(0)) }
        }
        try query(
            db,
            """
            SELECT furthest, COUNT(*) FROM (
                SELECT session_id, MAX(position) AS furthest FROM d
                WHERE a <> 3 AND position IS NOT NULL GROUP BY session_id
            ) GROUP BY furthest
            """, f
        ) { s in a.furthestPosition[Int(s.int64(0))] = Int(s.int64(1)) }

        // 4. When: visits by their start, answers by their time, in local time.
        let weekdayHour = { (column: String) in
            "((CAST(strftime('%w', \(column) / 1000, 'unixepoch', 'localtime') AS INTEGER) + 6) % 7) * 24"
                + " + CAST(strftime('%H', \(column) / 1000, 'unixepoch', 'localtime') AS INTEGER)"
        }
        let day = { (column: String) in "strftime('%Y-%m-%d', \(column) / 1000, 'unixepoch', 'localtime')" }
        try query(db, "SELECT \(weekdayHour("start_ms")) AS cell, COUNT(*) FROM v GROUP BY cell", f) { s in
            let key = Int(s.int64(0))
            a.hourWeekday[key, default: .init()].visits = Int(s.int64(1))
        }
        try query(
            db, "SELECT \(weekdayHour("wall_ms")) AS cell, COUNT(*), SUM(a = 1) FROM f GROUP BY cell",
            f
        ) { s in
            let key = Int(s.int64(0))
            a.hourWeekday[key, default: .init()].n = Int(s.int64(1))
            a.hourWeekday[key, default: .init()].right = Int(s.int64(2))
        }
        try query(db, "SELECT \(day("start_ms")) AS day, COUNT(*) FROM v GROUP BY day", f) { s in
            let day = s.text(0)
            a.days[day, default: .init()].visits = Int(s.int64(1))
        }
        try query(
            db, "SELECT \(day("wall_ms")) AS day, COUNT(*), SUM(a = 1) FROM f GROUP BY day", f
        ) { s in
            let day = s.text(0)
            a.days[day, default: .init()].n = Int(s.int64(1))
            a.days[day, default: .init()].right = Int(s.int64(2))
        }

        // 5. Per kiosk.
        var kiosks: [String: ReportAggregates.Kiosk] = [:]
        try query(
            db,
            """
            SELECT kiosk_id, COUNT(*), SUM(end_reason = 'completed'), COUNT(DISTINCT \(day("start_ms"))), MAX(start_ms)
            FROM v GROUP BY kiosk_id
            """, f
        ) { s in
            kiosks[s.text(0)] = ReportAggregates.Kiosk(
                kioskID: s.text(0), visits: Int(s.int64(1)), completed: Int(s.int64(2)), activeDays: Int(s.int64(3)),
                lastSeenMs: s.int64(4))
        }
        try query(
            db, "SELECT kiosk_id, COUNT(*), SUM(a = 1) FROM f GROUP BY kiosk_id", f
        ) { s in
            let k = s.text(0)
            kiosks[k, default: .init(kioskID: k)].n = Int(s.int64(1))
            kiosks[k, default: .init(kioskID: k)].right = Int(s.int64(2))
        }
        try query(db, "SELECT kiosk_id, MAX(wall_ms) FROM d GROUP BY kiosk_id", f) { s in
            let k = s.text(0)
            kiosks[k, default: .init(kioskID: k)].lastSeenMs = max(kiosks[k]?.lastSeenMs ?? 0, s.int64(1))
        }
        a.kiosks = kiosks.values.sorted { $0.kioskID < $1.kioskID }

        // 6. Quality.
        try query(
            db,
            """
            SELECT SUM(a < 3), SUM(a = 3) FROM d
            WHERE \(counted)
            """, f
        ) { s in
            a.decidedRows = Int(s.int64(0))
            a.undoRows = Int(s.int64(1))
        }
        try query(db, "SELECT input_method, COUNT(*) FROM d WHERE a <> 3 GROUP BY input_method", f) { s in
            a.inputMethods[s.isNull(0) ? nil : s.text(0)] = Int(s.int64(1))
        }
        try query(db, "SELECT language, COUNT(*) FROM d WHERE a <> 3 GROUP BY language", f) { s in
            a.languages[s.isNull(0) ? nil : s.text(0)] = Int(s.int64(1))
        }
        try query(db, "SELECT accessibility_mode, COUNT(*) FROM d WHERE a <> 3 GROUP BY accessibility_mode", f) { s in
            a.accessibilityModes[s.isNull(0) ? nil : s.int64(0) != 0, default: 0] += Int(s.int64(1))
        }
        try query(db, "SELECT COUNT(*), COALESCE(SUM(rows), 0) FROM m", f) { s in
            a.mashingVisits = Int(s.int64(0))
            a.mashingDecisions = Int(s.int64(1))
        }
        try query(
            db,
            """
            SELECT position, COUNT(*), SUM(a = 1), COUNT(DISTINCT session_id) FROM f
            WHERE position IS NOT NULL GROUP BY position
            """, f
        ) { s in
            a.positions[Int(s.int64(0))] = ReportAggregates.Cell(
                visits: Int(s.int64(3)), n: Int(s.int64(1)), right: Int(s.int64(2)))
        }
        return a
    }
}
