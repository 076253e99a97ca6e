import Glibc
import KioskSystem

/// The report's figures from the fleet's PostgreSQL (central schema 5: visits, positions,
/// input methods), aggregated by the server in SQL: the same definitions as
/// `SQLiteReportSource`, over every kiosk at once, plus the fleet's own per-kiosk figures
/// (uptime share from heartbeats, last heartbeat). Read in one REPEATABLE READ transaction,
/// so syncing kiosks never make the figures disagree with each other.
///
/// Rows are keyed by (kiosk, session): two kiosks may use the same session id.
package struct PostgresReportSource: ReportSource {
    package let conninfo: String
    /// The report's "now" (Unix ms): the uptime window ends here when no `untilMs` is given.
    package var nowMs: Int64
    /// The time zone for hours, weekdays and days (an IANA name); nil: the process's (TZ, else
    /// /etc/localtime, else UTC), as the SQLite report uses.
    package var timeZone: String?

    /// A heartbeat covers this long after the server received it (`KioskStatus.staleAfter`: a
    /// kiosk counts as online for 180 s after a heartbeat).
    package static let heartbeatCoverMs = KioskStatus.staleAfter * 1000

    package init(conninfo: String, nowMs: Int64, timeZone: String? = nil) {
        self.conninfo = conninfo
        self.nowMs = nowMs
        self.timeZone = timeZone
    }

    package var label: String {
        // The URL without a password, for the page: postgresql://user:secret@… and password=… pairs.
        var text = conninfo
        if let at = text.firstIndex(of: "@"), let scheme = text.firstRange(of: "://"), scheme.upperBound < at {
            let user = text[scheme.upperBound..<at]
            if let colon = user.firstIndex(of: ":") { text.replaceSubrange(colon..<at, with: "") }
        }
        if let p = text.firstRange(of: "password=") {
            let end = text[p.upperBound...].firstIndex(where: { $0 == "&" || $0 == " " }) ?? text.endIndex
            text.replaceSubrange(p.upperBound..<end, with: "…")
        }
        return "PostgreSQL " + text
    }

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

    package func aggregates(_ filter: ReportFilter) throws -> ReportAggregates {
        let db = try PostgresConnection(conninfo: conninfo, applicationName: "KioskCards report")
        try Self.checkSchema(db)
        try db.execute("SET TIME ZONE " + (try db.quoteLiteral(timeZone ?? Self.localTimeZoneName())))
        return try db.transaction { db in
            try db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            try db.execute("SET LOCAL work_mem = '64MB'")
            return try Self.aggregate(db, filter, nowMs: nowMs)
        }
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

    /// `sql` with the filter's values in place of :since, :until, :kiosk, :deck, :cooldown,
    /// :mashmin, :toofast, :now (numbers as literals, texts quoted by libpq).
    private static func bind(_ sql: String, _ f: ReportFilter, nowMs: Int64, _ db: PostgresConnection)
        throws(FleetError) -> String
    {
        var kiosk = "NULL::text"
        if let k = f.kioskID { kiosk = try db.quoteLiteral(k) }
        var deck = "NULL::text"
        if let d = f.deckID { deck = try db.quoteLiteral(d) }
        let values: [(String, String)] = [
            (":since", "(\(f.sinceMs ?? Int64.min))::bigint"), (":until", "(\(f.untilMs ?? Int64.max))::bigint"),
            (":kiosk", kiosk), (":deck", deck), (":cooldown", String(f.cooldownMs)),
            (":mashmin", String(f.mashMinimum)), (":toofast", String(f.tooFastMs)), (":now", "(\(nowMs))::bigint"),
        ]
        var out = sql
        for (name, value) in values { out = out.replacing(name, with: value) }
        return out
    }

    private static func rows(_ db: PostgresConnection, _ sql: String, _ f: ReportFilter, nowMs: Int64)
        throws(FleetError) -> [[String?]]
    {
        let began = MonotonicClock.now()
        let result = try db.execute(try bind(sql, f, nowMs: nowMs, db)).values
        if getenv("KIOSK_REPORT_TIMING") != nil {
            let ms = MonotonicClock.now().seconds(since: began) * 1000
            Log.info("report: \(jsonNumber(ms, decimals: 0)) ms: \(sql.split(separator: "\n").first ?? "")")
        }
        return result
    }

    private static func int(_ s: String?) -> Int { s.flatMap { Int($0) } ?? 0 }
    private static func int64(_ s: String?) -> Int64 { s.flatMap { Int64($0) } ?? 0 }

    static func aggregate(_ db: PostgresConnection, _ f: ReportFilter, nowMs: Int64) throws(FleetError)
        -> ReportAggregates
    {
        var a = ReportAggregates()
        a.hasPositions = true
        a.hasVisits = true
        a.hasEvents = true
        func run(_ sql: String) throws(FleetError) -> [[String?]] { try rows(db, sql, f, nowMs: nowMs) }
        let rowFilter =
            "wall_ms >= :since AND wall_ms < :until AND (:kiosk IS NULL OR kiosk_id = :kiosk) AND (:deck IS NULL OR deck_id = :deck)"
        // d: the decisions in range, in each kiosk's storage order (local_id; older payloads
        // have none and fall back to the monotonic time). m: suspected mashing visits. f: each
        // visit's final answer per card.
        // Central schema 7 (payload 4): each decision's accessibility mode and language.
        let modeAndLanguage =
            try FleetSchema.currentVersion(db) >= 7
            ? "accessibility_mode, language" : "NULL::boolean AS accessibility_mode, NULL::text AS language"
        _ = try run(
            """
            CREATE TEMP TABLE report_d ON COMMIT DROP AS SELECT kiosk_id, session_id, deck_id, card_id,
                CASE action WHEN 'swipedLeft' THEN 0 WHEN 'swipedRight' THEN 1 WHEN 'removed' THEN 2
                    WHEN 'undone' THEN 3 ELSE 4 END AS a, wall_ms, dwell_ms, position, input_method,
                local_id, monotonic_ns, decision_uid, \(modeAndLanguage)
            FROM fleet.decisions WHERE \(rowFilter)
            """)
        _ = try run(
            """
            CREATE TEMP TABLE report_m ON COMMIT DROP AS SELECT kiosk_id, session_id, COUNT(*) AS rows FROM report_d
            WHERE a < 2
            GROUP BY kiosk_id, session_id
            HAVING COUNT(*) >= :mashmin AND MIN(a) = MAX(a) AND MAX(dwell_ms) < :cooldown
            """)
        let counted =
            f.includeMashing
            ? "true"
            : "NOT EXISTS (SELECT 1 FROM report_m m WHERE m.kiosk_id = x.kiosk_id AND m.session_id = x.session_id)"
        _ = try run(
            """
            CREATE TEMP TABLE report_f ON COMMIT DROP AS SELECT * FROM (
                SELECT *, ROW_NUMBER() OVER (
                    PARTITION BY kiosk_id, session_id, card_id
                    ORDER BY local_id DESC NULLS LAST, monotonic_ns DESC, decision_uid DESC) AS latest
                FROM report_d
            ) x WHERE latest = 1 AND a < 2 AND \(counted)
            """)
        // v: visits — recorded ones in range, and sessions seen only through their decisions.
        _ = try run(
            """
            CREATE TEMP TABLE report_v ON COMMIT DROP AS
            SELECT kiosk_id, session_id, started_wall_ms AS start_ms, end_reason FROM fleet.visits
            WHERE started_wall_ms >= :since AND started_wall_ms < :until AND (:kiosk IS NULL OR kiosk_id = :kiosk)
                AND (:deck IS NULL OR deck_id = :deck)
            UNION ALL
            SELECT kiosk_id, session_id, MIN(wall_ms), NULL FROM report_d x
            WHERE NOT EXISTS (SELECT 1 FROM fleet.visits v WHERE v.kiosk_id = x.kiosk_id AND v.session_id = x.session_id)
            GROUP BY kiosk_id, session_id
            """)
        _ = try run("ANALYZE report_d")
        _ = try run("ANALYZE report_f")

        if let r = try run("SELECT COUNT(*), MIN(wall_ms), MAX(wall_ms) FROM report_d").first {
            a.decisionRows = int(r[0])
            if let lo = r[1], let hi = r[2] {
                a.firstMs = Int64(lo)
                a.lastMs = Int64(hi)
            }
        }
        if let r = try run("SELECT MIN(start_ms), MAX(start_ms) FROM report_v").first,
            let lo = r[0].flatMap({ Int64($0) }),
            let hi = r[1].flatMap({ Int64($0) })
        {
            a.firstMs = min(a.firstMs ?? lo, lo)
            a.lastMs = max(a.lastMs ?? hi, hi)
        }

        // 1–2. Per card: answers, approvals, too fast; median and p90 by nearest rank (the
        // ⌈p·n⌉-th smallest dwell, in integer arithmetic as the SQLite report does).
        // Ranks from a histogram (one row per card and dwell value, then running sums): the
        // k-th smallest dwell is the smallest whose running count reaches k — no sort of every answer.
        // (SUM is numeric in PostgreSQL: cast, so (cnt + 1) / 2 divides as integers, as in SQLite.)
        for r in try run(
            """
            WITH g AS (
                SELECT deck_id, card_id, dwell_ms, COUNT(*) AS c, COUNT(*) FILTER (WHERE a = 1) AS r
                FROM report_f GROUP BY deck_id, card_id, dwell_ms
            ), s AS (
                SELECT *, (SUM(c) OVER (PARTITION BY deck_id, card_id ORDER BY dwell_ms))::bigint AS upto,
                    (SUM(c) OVER (PARTITION BY deck_id, card_id))::bigint AS cnt
                FROM g
            )
            SELECT deck_id, card_id, SUM(c), SUM(r), COALESCE(SUM(c) FILTER (WHERE dwell_ms < :toofast), 0),
                MIN(dwell_ms) FILTER (WHERE upto >= (cnt + 1) / 2), MIN(dwell_ms) FILTER (WHERE upto >= (9 * cnt + 9) / 10)
            FROM s GROUP BY deck_id, card_id ORDER BY deck_id COLLATE "C", card_id COLLATE "C"
            """)
        {
            a.cards.append(
                ReportAggregates.Card(
                    deckID: r[0] ?? "", cardID: r[1] ?? "", n: int(r[2]), right: int(r[3]), visits: int(r[2]),
                    medianDwellMs: r[5].flatMap { Int64($0) }, p90DwellMs: r[6].flatMap { Int64($0) },
                    tooFast: int(r[4])))
        }
        if let r = try run("SELECT COUNT(*), COUNT(*) FILTER (WHERE dwell_ms < :toofast) FROM report_f").first {
            a.finalAnswers = int(r[0])
            a.tooFastAnswers = int(r[1])
        }

        // 3. Funnel, drop-off by position, how visits end.
        a.visits = int(try run("SELECT COUNT(*) FROM report_v").first?[0])
        a.visitsWithDecision = int(
            try run(
                """
                SELECT COUNT(*) FROM report_v v WHERE EXISTS (
                    SELECT 1 FROM report_d d WHERE d.kiosk_id = v.kiosk_id AND d.session_id = v.session_id AND d.a <> 3)
                """
            ).first?[0])
        for r in try run("SELECT end_reason, COUNT(*) FROM report_v GROUP BY end_reason") {
            a.endReasons[r[0]] = int(r[1])
        }
        a.attractShown = int(
            try run(
                """
                SELECT COUNT(*) FROM fleet.kiosk_events WHERE kind = 'attract_shown' AND wall_ms >= :since
                    AND wall_ms < :until AND (:kiosk IS NULL OR kiosk_id = :kiosk)
                """
            ).first?[0])
        for r in try run(
            """
            SELECT furthest, COUNT(*) FROM (
                SELECT MAX(position) AS furthest FROM report_d
                WHERE a <> 3 AND position IS NOT NULL GROUP BY kiosk_id, session_id
            ) s GROUP BY furthest
            """)
        {
            a.furthestPosition[int(r[0])] = int(r[1])
        }

        // 4. When: in the session's time zone (set from the report's).
        let weekdayHour = { (column: String) in
            "((extract(isodow FROM to_timestamp(\(column) / 1000))::int - 1) * 24"
                + " + extract(hour FROM to_timestamp(\(column) / 1000))::int)"
        }
        let day = { (column: String) in "to_char(to_timestamp(\(column) / 1000), 'YYYY-MM-DD')" }
        for r in try run("SELECT \(weekdayHour("start_ms")) AS cell, COUNT(*) FROM report_v GROUP BY cell") {
            a.hourWeekday[int(r[0]), default: .init()].visits = int(r[1])
        }
        for r in try run(
            "SELECT \(weekdayHour("wall_ms")) AS cell, COUNT(*), COUNT(*) FILTER (WHERE a = 1) FROM report_f GROUP BY cell"
        ) {
            a.hourWeekday[int(r[0]), default: .init()].n = int(r[1])
            a.hourWeekday[int(r[0]), default: .init()].right = int(r[2])
        }
        for r in try run("SELECT \(day("start_ms")) AS day, COUNT(*) FROM report_v GROUP BY day") {
            a.days[r[0] ?? "", default: .init()].visits = int(r[1])
        }
        for r in try run(
            "SELECT \(day("wall_ms")) AS day, COUNT(*), COUNT(*) FILTER (WHERE a = 1) FROM report_f GROUP BY day")
        {
            a.days[r[0] ?? "", default: .init()].n = int(r[1])
            a.days[r[0] ?? "", default: .init()].right = int(r[2])
        }

        // 5. Per kiosk.
        var kiosks: [String: ReportAggregates.Kiosk] = [:]
        for r in try run(
            """
            SELECT kiosk_id, COUNT(*), COUNT(*) FILTER (WHERE end_reason = 'completed'),
                COUNT(DISTINCT \(day("start_ms"))), MAX(start_ms)
            FROM report_v GROUP BY kiosk_id
            """)
        {
            let k = r[0] ?? ""
            kiosks[k] = ReportAggregates.Kiosk(
                kioskID: k, visits: int(r[1]), completed: int(r[2]), activeDays: int(r[3]), lastSeenMs: int64(r[4]))
        }
        for r in try run("SELECT kiosk_id, COUNT(*), COUNT(*) FILTER (WHERE a = 1) FROM report_f GROUP BY kiosk_id") {
            let k = r[0] ?? ""
            kiosks[k, default: .init(kioskID: k)].n = int(r[1])
            kiosks[k, default: .init(kioskID: k)].right = int(r[2])
        }
        for r in try run("SELECT kiosk_id, MAX(wall_ms) FROM report_d GROUP BY kiosk_id") {
            let k = r[0] ?? ""
            kiosks[k, default: .init(kioskID: k)].lastSeenMs = max(kiosks[k]?.lastSeenMs ?? 0, int64(r[1]))
        }
        // Uptime share. For each kiosk with heartbeats: the window runs from the later of
        // --since and its first heartbeat to the earlier of --until and now; each heartbeat
        // covers 180 s after the server received it; out-of-service time (an 'out-of-order'
        // maintenance entry until the next 'in-service' one) is left out of both sides.
        // share = |covered ∩ window − out of service| / |window − out of service|.
        for r in try run(
            """
            WITH hb AS (
                SELECT kiosk_id, (extract(epoch FROM received_at) * 1000)::bigint AS t FROM fleet.heartbeats
                WHERE (:kiosk IS NULL OR kiosk_id = :kiosk)
            ), bounds AS (
                SELECT kiosk_id, greatest(MIN(t), :since) AS lo, least(:until, :now) AS hi,
                    MAX(t) FILTER (WHERE t >= :since AND t < :until) AS last_t
                FROM hb GROUP BY kiosk_id
            ), w AS (
                SELECT kiosk_id, int8range(lo, hi) AS win, last_t FROM bounds WHERE lo < hi
            ), up AS (
                SELECT w.kiosk_id, range_agg(int8range(hb.t, hb.t + \(heartbeatCoverMs))) * int8multirange(w.win) AS up
                FROM w JOIN hb ON hb.kiosk_id = w.kiosk_id
                WHERE hb.t < upper(w.win) AND hb.t + \(heartbeatCoverMs) > lower(w.win)
                GROUP BY w.kiosk_id, w.win
            ), mo AS (
                SELECT kiosk_id, wall_ms, state FROM fleet.maintenance WHERE state IN ('out-of-order', 'in-service')
            ), oos AS (
                SELECT o.kiosk_id, range_agg(int8range(o.wall_ms, (
                    SELECT MIN(i.wall_ms) FROM mo i
                    WHERE i.kiosk_id = o.kiosk_id AND i.state = 'in-service' AND i.wall_ms > o.wall_ms))) AS oos
                FROM mo o WHERE o.state = 'out-of-order' GROUP BY o.kiosk_id
            )
            SELECT w.kiosk_id,
                (SELECT COALESCE(SUM(upper(x) - lower(x)), 0)
                    FROM unnest(COALESCE(up.up, '{}'::int8multirange) - COALESCE(oos.oos, '{}'::int8multirange)) x),
                (SELECT COALESCE(SUM(upper(x) - lower(x)), 0)
                    FROM unnest(int8multirange(w.win) - COALESCE(oos.oos, '{}'::int8multirange)) x),
                w.last_t
            FROM w LEFT JOIN up ON up.kiosk_id = w.kiosk_id LEFT JOIN oos ON oos.kiosk_id = w.kiosk_id
            """)
        {
            let k = r[0] ?? ""
            let covered = int64(r[1])
            let inService = int64(r[2])
            kiosks[k, default: .init(kioskID: k)].uptimeShare =
                inService > 0 ? Double(covered) / Double(inService) : nil
            kiosks[k, default: .init(kioskID: k)].lastHeartbeatMs = r[3].flatMap { Int64($0) }
        }
        a.kiosks = kiosks.values.sorted { $0.kioskID < $1.kioskID }

        // 6. Quality.
        let countedD =
            f.includeMashing
            ? "true"
            : "NOT EXISTS (SELECT 1 FROM report_m m WHERE m.kiosk_id = x.kiosk_id AND m.session_id = x.session_id)"
        if let r = try run(
            "SELECT COUNT(*) FILTER (WHERE a < 3), COUNT(*) FILTER (WHERE a = 3) FROM report_d x WHERE \(countedD)"
        ).first {
            a.decidedRows = int(r[0])
            a.undoRows = int(r[1])
        }
        for r in try run("SELECT input_method, COUNT(*) FROM report_d WHERE a <> 3 GROUP BY input_method") {
            a.inputMethods[r[0]] = int(r[1])
        }
        for r in try run("SELECT language, COUNT(*) FROM report_d WHERE a <> 3 GROUP BY language") {
            a.languages[r[0]] = int(r[1])
        }
        for r in try run("SELECT accessibility_mode, COUNT(*) FROM report_d WHERE a <> 3 GROUP BY accessibility_mode") {
            a.accessibilityModes[r[0].map { $0 == "t" }, default: 0] += int(r[1])
        }
        if let r = try run("SELECT COUNT(*), COALESCE(SUM(rows), 0) FROM report_m").first {
            a.mashingVisits = int(r[0])
            a.mashingDecisions = int(r[1])
        }
        for r in try run(
            """
            SELECT position, SUM(n), SUM(r), COUNT(*) FROM (
                SELECT position, COUNT(*) AS n, COUNT(*) FILTER (WHERE a = 1) AS r FROM report_f
                WHERE position IS NOT NULL GROUP BY position, kiosk_id, session_id
            ) per_visit GROUP BY position
            """)
        {
            a.positions[int(r[0])] = ReportAggregates.Cell(visits: int(r[3]), n: int(r[1]), right: int(r[2]))
        }
        return a
    }
}
