import Glibc
import KioskSystem

/// The report's figures, aggregated by the database in SQL (temporary tables and GROUP BY),
/// written once for SQLite and PostgreSQL (`ReportDialect` holds what differs). Rows are keyed
/// by (kiosk, session): two kiosks may use the same session id.
package enum ReportQuery {
    /// Every aggregate the report needs. PostgreSQL callers run it inside one REPEATABLE READ
    /// transaction, so syncing kiosks never make the figures disagree with each other; `nowMs`
    /// ends the uptime window when the filter has no `untilMs`.
    package static func aggregates(_ db: some ReportDatabase, _ f: ReportFilter, nowMs: Int64) throws
        -> ReportAggregates
    {
        let q = Runner(db: db, filter: f, nowMs: nowMs)
        let sql = db.dialect
        let table = { (name: String) in sql.schema + name }
        var a = ReportAggregates()
        a.hasPositions = try db.has(table: "decisions", column: "position")
        a.hasVisits = try db.has(table: "visits", column: nil)
        a.hasEvents = try db.has(table: "kiosk_events", column: nil)
        let position = a.hasPositions ? "position" : "CAST(NULL AS INTEGER) AS position"
        let method = a.hasPositions ? "input_method" : "\(sql.nullText) AS input_method"
        // Store migrations 6 and 7, central schema 7: each decision's accessibility mode and language.
        let mode =
            try db.has(table: "decisions", column: "accessibility_mode")
            ? "accessibility_mode" : "\(sql.nullBoolean) AS accessibility_mode"
        let language = try db.has(table: "decisions", column: "language") ? "language" : "\(sql.nullText) AS language"
        let rowFilter =
            "wall_ms >= :since AND wall_ms < :until AND (:kiosk IS NULL OR kiosk_id = :kiosk) AND (:deck IS NULL OR deck_id = :deck)"
        let temp = { (name: String) in "CREATE TEMP TABLE \(name)\(sql.tempTableSuffix) AS" }
        // report_d: the decisions in range. report_m: suspected mashing visits (the first card's
        // time is left out of the speed test: decided by the visit's first touch, it counts from
        // the attract screen, docs/REPORT.md). report_f: each
        // visit's final answer per card (the last row of that card in the visit, when it is a
        // left or right swipe).
        try q.run(
            """
            \(temp("report_d")) SELECT kiosk_id, session_id, deck_id, deck_version, card_id,
                CASE action WHEN 'swipedLeft' THEN 0 WHEN 'swipedRight' THEN 1 WHEN 'removed' THEN 2
                    WHEN 'undone' THEN 3 ELSE 4 END AS a, wall_ms, dwell_ms, \(position), \(method),
                \(mode), \(language), \(sql.storageOrder.joined(separator: ", "))
            FROM \(table("decisions")) WHERE \(rowFilter)
            """)
        try q.run(
            """
            \(temp("report_m")) SELECT kiosk_id, session_id, COUNT(*) AS rows FROM report_d
            WHERE a < 2
            GROUP BY kiosk_id, session_id
            HAVING COUNT(*) >= :mashmin AND MIN(a) = MAX(a)
                AND MAX(CASE WHEN position = 0 THEN 0 ELSE dwell_ms END) < :cooldown
            """)
        for statement in sql.afterMashing { try q.run(statement) }
        let counted =
            f.includeMashing
            ? "1 = 1"
            : "NOT EXISTS (SELECT 1 FROM report_m m WHERE m.kiosk_id = x.kiosk_id AND m.session_id = x.session_id)"
        try q.run(
            """
            \(temp("report_f")) SELECT * FROM (
                SELECT *, ROW_NUMBER() OVER (PARTITION BY kiosk_id, session_id, card_id ORDER BY \(sql.newestFirst))
                    AS latest
                FROM report_d
            ) x WHERE latest = 1 AND a < 2 AND \(counted)
            """)
        // report_v: visits — recorded ones in range, and sessions seen only through their decisions.
        let recorded =
            a.hasVisits
            ? """
            SELECT kiosk_id, session_id, deck_id, deck_version, started_wall_ms AS start_ms, end_reason
            FROM \(table("visits"))
            WHERE started_wall_ms >= :since AND started_wall_ms < :until AND (:kiosk IS NULL OR kiosk_id = :kiosk)
                AND (:deck IS NULL OR deck_id = :deck)
            UNION ALL
            """ : ""
        let unrecorded =
            a.hasVisits
            ? """
            WHERE NOT EXISTS (
                SELECT 1 FROM \(table("visits")) v WHERE v.kiosk_id = x.kiosk_id AND v.session_id = x.session_id)
            """ : ""
        try q.run(
            """
            \(temp("report_v")) \(recorded)
            SELECT kiosk_id, session_id, MIN(deck_id) AS deck_id, MIN(deck_version) AS deck_version,
                MIN(wall_ms) AS start_ms, \(sql.nullText) AS end_reason
            FROM report_d x
            \(unrecorded) GROUP BY kiosk_id, session_id
            """)
        for statement in sql.afterTables { try q.run(statement) }

        if let r = try q.rows("SELECT COUNT(*), MIN(wall_ms), MAX(wall_ms) FROM report_d").first {
            a.decisionRows = int(r[0])
            if let lo = r[1].flatMap({ Int64($0) }), let hi = r[2].flatMap({ Int64($0) }) {
                a.firstMs = lo
                a.lastMs = hi
            }
        }
        if let r = try q.rows("SELECT MIN(start_ms), MAX(start_ms) FROM report_v").first,
            let lo = r[0].flatMap({ Int64($0) }), let hi = r[1].flatMap({ Int64($0) })
        {
            a.firstMs = min(a.firstMs ?? lo, lo)
            a.lastMs = max(a.lastMs ?? hi, hi)
        }

        // 1–2. Per card of each deck version: answers, approvals, too fast; median and p90 by
        // nearest rank (the ⌈p·n⌉-th smallest dwell, in integer arithmetic). Ranks from a
        // histogram (one row per card and dwell value, then running sums): the k-th smallest
        // dwell is the smallest whose running count reaches k — no sort of every answer. Each
        // visit has at most one final answer per card, so a card's answers are its visits.
        for r in try q.rows(
            """
            WITH g AS (
                SELECT deck_id, deck_version, card_id, dwell_ms, COUNT(*) AS c, COUNT(*) FILTER (WHERE a = 1) AS r
                FROM report_f GROUP BY deck_id, deck_version, card_id, dwell_ms
            ), s AS (
                SELECT *,
                    CAST(SUM(c) OVER (PARTITION BY deck_id, deck_version, card_id ORDER BY dwell_ms) AS BIGINT) AS upto,
                    CAST(SUM(c) OVER (PARTITION BY deck_id, deck_version, card_id) AS BIGINT) AS cnt
                FROM g
            )
            SELECT deck_id, deck_version, card_id, SUM(c), SUM(r),
                COALESCE(SUM(c) FILTER (WHERE dwell_ms < :toofast), 0),
                MIN(dwell_ms) FILTER (WHERE upto >= (cnt + 1) / 2), MIN(dwell_ms) FILTER (WHERE upto >= (9 * cnt + 9) / 10)
            FROM s GROUP BY deck_id, deck_version, card_id
            """)
        {
            a.cards.append(
                ReportAggregates.Card(
                    deckID: r[0] ?? "", deckVersion: int(r[1]), cardID: r[2] ?? "", n: int(r[3]), right: int(r[4]),
                    visits: int(r[3]), medianDwellMs: r[6].flatMap { Int64($0) },
                    p90DwellMs: r[7].flatMap { Int64($0) }, tooFast: int(r[5])))
        }
        // Deck order: the position each card was shown at most often (the earlier on a tie).
        var usual: [String: (position: Int, count: Int)] = [:]
        for r in try q.rows(
            """
            SELECT deck_id, deck_version, card_id, position, COUNT(*) FROM report_d
            WHERE a <> 3 AND position IS NOT NULL GROUP BY deck_id, deck_version, card_id, position
            """)
        {
            let key = "\(r[0] ?? "")@\(int(r[1]))\u{1}\(r[2] ?? "")"
            let position = int(r[3]) + 1
            let count = int(r[4])
            if let best = usual[key], best.count > count || (best.count == count && best.position < position) {
                continue
            }
            usual[key] = (position, count)
        }
        for i in a.cards.indices {
            a.cards[i].usualPosition =
                usual["\(a.cards[i].deckID)@\(a.cards[i].deckVersion)\u{1}\(a.cards[i].cardID)"]?.position
        }
        a.cards.sort { l, r in
            if l.deckID != r.deckID { return l.deckID.utf8.lexicographicallyPrecedes(r.deckID.utf8) }
            if l.deckVersion != r.deckVersion { return l.deckVersion < r.deckVersion }
            let lp = l.usualPosition ?? Int.max
            let rp = r.usualPosition ?? Int.max
            if lp != rp { return lp < rp }
            return l.cardID.utf8.lexicographicallyPrecedes(r.cardID.utf8)
        }
        if let r = try q.rows("SELECT COUNT(*), COUNT(*) FILTER (WHERE dwell_ms < :toofast) FROM report_f").first {
            a.finalAnswers = int(r[0])
            a.tooFastAnswers = int(r[1])
        }

        // 3. Funnel, drop-off by position, how visits end.
        a.visits = int(try q.rows("SELECT COUNT(*) FROM report_v").first?[0])
        a.visitsWithDecision = int(
            try q.rows(
                """
                SELECT COUNT(*) FROM report_v v WHERE EXISTS (
                    SELECT 1 FROM report_d d WHERE d.kiosk_id = v.kiosk_id AND d.session_id = v.session_id AND d.a <> 3)
                """
            ).first?[0])
        for r in try q.rows("SELECT end_reason, COUNT(*) FROM report_v GROUP BY end_reason") {
            a.endReasons[r[0]] = int(r[1])
        }
        if a.hasEvents {
            a.attractShown = int(
                try q.rows(
                    """
                    SELECT COUNT(*) FROM \(table("kiosk_events")) WHERE kind = 'attract_shown' AND wall_ms >= :since
                        AND wall_ms < :until AND (:kiosk IS NULL OR kiosk_id = :kiosk)
                    """
                ).first?[0])
        }

        if a.hasEvents { try linkCodes(q, into: &a, events: table("kiosk_events")) }

        // Per deck version: visits, and how far each got — split by whether it completed the
        // deck, so a completed visit is never counted as stopping (drop-off). Positions 1-based.
        var decks: [String: ReportAggregates.Deck] = [:]
        func deck(_ id: String?, _ version: String?) -> String {
            let d = ReportAggregates.Deck(deckID: id ?? "", version: int(version))
            if decks[d.name] == nil { decks[d.name] = d }
            return d.name
        }
        for r in try q.rows(
            """
            SELECT deck_id, deck_version, COUNT(*), COUNT(*) FILTER (WHERE end_reason = 'completed'),
                COUNT(*) FILTER (WHERE EXISTS (
                    SELECT 1 FROM report_d d WHERE d.kiosk_id = v.kiosk_id AND d.session_id = v.session_id AND d.a <> 3))
            FROM report_v v GROUP BY deck_id, deck_version
            """)
        {
            let k = deck(r[0], r[1])
            decks[k]?.visits = int(r[2])
            decks[k]?.completed = int(r[3])
            decks[k]?.visitsWithDecision = int(r[4])
        }
        for r in try q.rows(
            """
            SELECT s.deck_id, s.deck_version, s.furthest, CASE WHEN v.end_reason = 'completed' THEN 1 ELSE 0 END AS done,
                COUNT(*)
            FROM (
                SELECT kiosk_id, session_id, deck_id, deck_version, MAX(position) AS furthest FROM report_d
                WHERE a <> 3 AND position IS NOT NULL GROUP BY kiosk_id, session_id, deck_id, deck_version
            ) s LEFT JOIN report_v v ON v.kiosk_id = s.kiosk_id AND v.session_id = s.session_id
            GROUP BY s.deck_id, s.deck_version, s.furthest, done
            """)
        {
            let k = deck(r[0], r[1])
            if int(r[3]) == 1 {
                decks[k]?.completedAt[int(r[2]) + 1] = int(r[4])
            } else {
                decks[k]?.stoppedAt[int(r[2]) + 1] = int(r[4])
            }
        }
        for r in try q.rows(
            """
            SELECT deck_id, deck_version, position, SUM(n), SUM(r), COUNT(*) FROM (
                SELECT deck_id, deck_version, position, COUNT(*) AS n, COUNT(*) FILTER (WHERE a = 1) AS r FROM report_f
                WHERE position IS NOT NULL GROUP BY deck_id, deck_version, position, kiosk_id, session_id
            ) per_visit GROUP BY deck_id, deck_version, position
            """)
        {
            let k = deck(r[0], r[1])
            decks[k]?.positions[int(r[2]) + 1] = ReportAggregates.Cell(
                visits: int(r[5]), n: int(r[3]), right: int(r[4]))
        }
        a.decks = decks.values.sorted {
            $0.deckID != $1.deckID ? $0.deckID.utf8.lexicographicallyPrecedes($1.deckID.utf8) : $0.version < $1.version
        }

        // 4. When: visits by their start, answers by their time, in local time.
        for r in try q.rows("SELECT \(sql.weekdayHour("start_ms")) AS cell, COUNT(*) FROM report_v GROUP BY cell") {
            a.hourWeekday[int(r[0]), default: .init()].visits = int(r[1])
        }
        for r in try q.rows(
            """
            SELECT \(sql.weekdayHour("wall_ms")) AS cell, COUNT(*), COUNT(*) FILTER (WHERE a = 1) FROM report_f
            GROUP BY cell
            """)
        {
            a.hourWeekday[int(r[0]), default: .init()].n = int(r[1])
            a.hourWeekday[int(r[0]), default: .init()].right = int(r[2])
        }
        for r in try q.rows("SELECT \(sql.day("start_ms")) AS day, COUNT(*) FROM report_v GROUP BY day") {
            a.days[r[0] ?? "", default: .init()].visits = int(r[1])
        }
        for r in try q.rows(
            "SELECT \(sql.day("wall_ms")) AS day, COUNT(*), COUNT(*) FILTER (WHERE a = 1) FROM report_f GROUP BY day")
        {
            a.days[r[0] ?? "", default: .init()].n = int(r[1])
            a.days[r[0] ?? "", default: .init()].right = int(r[2])
        }

        // Each card's answers per local day and per kiosk (approval over time, kiosk × card).
        for (column, keyPath) in [
            (sql.day("wall_ms"), \ReportAggregates.cardDays), ("kiosk_id", \ReportAggregates.kioskCards),
        ] {
            for r in try q.rows(
                """
                SELECT deck_id, deck_version, card_id, \(column) AS segment, COUNT(*), COUNT(*) FILTER (WHERE a = 1)
                FROM report_f GROUP BY deck_id, deck_version, card_id, segment
                """)
            {
                a[keyPath: keyPath].append(
                    ReportAggregates.CardCell(
                        deckID: r[0] ?? "", deckVersion: int(r[1]), cardID: r[2] ?? "", segment: r[3] ?? "",
                        n: int(r[4]), right: int(r[5])))
            }
        }

        // 5. Per kiosk.
        var kiosks: [String: ReportAggregates.Kiosk] = [:]
        for r in try q.rows(
            """
            SELECT kiosk_id, COUNT(*), COUNT(*) FILTER (WHERE end_reason = 'completed'),
                COUNT(DISTINCT \(sql.day("start_ms"))), MAX(start_ms)
            FROM report_v GROUP BY kiosk_id
            """)
        {
            let k = r[0] ?? ""
            kiosks[k] = ReportAggregates.Kiosk(
                kioskID: k, visits: int(r[1]), completed: int(r[2]), activeDays: int(r[3]), lastSeenMs: int64(r[4]))
        }
        for r in try q.rows(
            "SELECT kiosk_id, COUNT(*), COUNT(*) FILTER (WHERE a = 1) FROM report_f GROUP BY kiosk_id")
        {
            let k = r[0] ?? ""
            kiosks[k, default: .init(kioskID: k)].n = int(r[1])
            kiosks[k, default: .init(kioskID: k)].right = int(r[2])
        }
        for r in try q.rows("SELECT kiosk_id, MAX(wall_ms) FROM report_d GROUP BY kiosk_id") {
            let k = r[0] ?? ""
            kiosks[k, default: .init(kioskID: k)].lastSeenMs = max(kiosks[k]?.lastSeenMs ?? 0, int64(r[1]))
        }
        if let cover = db.heartbeatCoverMs {
            for r in try q.rows(uptime(coverMs: cover)) {
                let k = r[0] ?? ""
                let covered = int64(r[1])
                let inService = int64(r[2])
                kiosks[k, default: .init(kioskID: k)].uptimeShare =
                    inService > 0 ? Double(covered) / Double(inService) : nil
                kiosks[k, default: .init(kioskID: k)].lastHeartbeatMs = r[3].flatMap { Int64($0) }
            }
        }
        a.kiosks = kiosks.values.sorted { $0.kioskID < $1.kioskID }

        // 6. Quality.
        if let r = try q.rows(
            "SELECT COUNT(*) FILTER (WHERE a < 3), COUNT(*) FILTER (WHERE a = 3) FROM report_d x WHERE \(counted)"
        ).first {
            a.decidedRows = int(r[0])
            a.undoRows = int(r[1])
        }
        for r in try q.rows("SELECT input_method, COUNT(*) FROM report_d WHERE a <> 3 GROUP BY input_method") {
            a.inputMethods[r[0]] = int(r[1])
        }
        for r in try q.rows("SELECT language, COUNT(*) FROM report_d WHERE a <> 3 GROUP BY language") {
            a.languages[r[0]] = int(r[1])
        }
        for r in try q.rows(
            """
            SELECT CASE WHEN accessibility_mode IS NULL THEN NULL WHEN accessibility_mode THEN 1 ELSE 0 END AS on_,
                COUNT(*)
            FROM report_d WHERE a <> 3 GROUP BY on_
            """)
        {
            a.accessibilityModes[r[0].map { $0 == "1" }, default: 0] += int(r[1])
        }
        if let r = try q.rows("SELECT COUNT(*), COALESCE(SUM(rows), 0) FROM report_m").first {
            a.mashingVisits = int(r[0])
            a.mashingDecisions = int(r[1])
        }
        return a
    }

    /// QR codes shown (`qr_shown` events), per deck version, code and kiosk: the visits that
    /// showed the code, and the visits that reached it — its card was decided on (any row,
    /// an undo included) or its code shown; for the end state's code, the visit completed the
    /// deck or its code was shown. Both count the report's visits (`report_v`: started in the
    /// period), the deck version is the visit's. Events whose code was not recorded (stored
    /// before the store's migration 8 or the central schema 12) are counted apart, never guessed.
    private static func linkCodes<Database: ReportDatabase>(
        _ q: Runner<Database>, into a: inout ReportAggregates, events: String
    ) throws {
        func inRange(_ e: String) -> String {
            "\(e)kind = 'qr_shown' AND \(e)wall_ms >= :since AND \(e)wall_ms < :until"
                + " AND (:kiosk IS NULL OR \(e)kiosk_id = :kiosk)"
        }
        let range = inRange("")
        guard try q.db.has(table: "kiosk_events", column: "code_of") else {
            a.linkShownNotRecorded = int(try q.rows("SELECT COUNT(*) FROM \(events) WHERE \(range)").first?[0])
            return
        }
        // A code this version knows: the end state's, or a card's with its id.
        let known = "(code_of = 'end' OR (code_of = 'card' AND card_id IS NOT NULL))"
        a.linkShownNotRecorded = int(
            try q.rows(
                "SELECT COUNT(*) FROM \(events) WHERE \(range) AND NOT COALESCE(\(known) AND session_id IS NOT NULL, 1 = 0)"
            ).first?[0])
        // `card` is the card's id, '' for the end state (`code_of` keeps the two apart). Only the
        // decisions on a card whose code was shown are joined: a deck without codes costs nothing.
        // `shown` has one row per visit and code, so the LEFT JOIN finds at most one.
        for r in try q.rows(
            """
            WITH shown AS (
                SELECT DISTINCT v.deck_id, v.deck_version, e.code_of, COALESCE(e.card_id, '') AS card, v.kiosk_id,
                    v.session_id
                FROM \(events) e JOIN report_v v ON v.kiosk_id = e.kiosk_id AND v.session_id = e.session_id
                WHERE \(inRange("e.")) AND \(known)
            ), codes AS (
                SELECT DISTINCT deck_id, deck_version, code_of, card FROM shown
            ), reached AS (
                SELECT deck_id, deck_version, code_of, card, kiosk_id, session_id FROM shown
                UNION
                SELECT v.deck_id, v.deck_version, c.code_of, c.card, v.kiosk_id, v.session_id
                FROM report_d d JOIN report_v v ON v.kiosk_id = d.kiosk_id AND v.session_id = d.session_id
                JOIN codes c ON c.code_of = 'card' AND c.card = d.card_id AND c.deck_id = v.deck_id
                    AND c.deck_version = v.deck_version
                UNION
                SELECT v.deck_id, v.deck_version, c.code_of, c.card, v.kiosk_id, v.session_id
                FROM report_v v JOIN codes c ON c.code_of = 'end' AND c.deck_id = v.deck_id
                    AND c.deck_version = v.deck_version
                WHERE v.end_reason = 'completed'
            )
            SELECT r.deck_id, r.deck_version, r.code_of, r.card, r.kiosk_id, COUNT(*), COUNT(s.session_id)
            FROM reached r LEFT JOIN shown s ON s.kiosk_id = r.kiosk_id AND s.session_id = r.session_id
                AND s.deck_id = r.deck_id AND s.deck_version = r.deck_version AND s.code_of = r.code_of
                AND s.card = r.card
            GROUP BY r.deck_id, r.deck_version, r.code_of, r.card, r.kiosk_id
            """)
        {
            a.linkCodes.append(
                ReportAggregates.LinkCode(
                    deckID: r[0] ?? "", deckVersion: int(r[1]), cardID: r[2] == "end" ? nil : r[3] ?? "",
                    kioskID: r[4] ?? "", shownVisits: int(r[6]), reachedVisits: int(r[5])))
        }
    }

    /// Uptime share (PostgreSQL only: heartbeats and maintenance live on the fleet server). For
    /// each kiosk with heartbeats: the window runs from the later of --since and its first
    /// heartbeat to the earlier of --until and now; each heartbeat covers `coverMs` after the
    /// server received it; out-of-service time (an 'out-of-order' maintenance entry until the
    /// next 'in-service' one) is left out of both sides.
    /// share = |covered ∩ window − out of service| / |window − out of service|.
    static func uptime(coverMs: Int64) -> String {
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
            SELECT w.kiosk_id, range_agg(int8range(hb.t, hb.t + \(coverMs))) * int8multirange(w.win) AS up
            FROM w JOIN hb ON hb.kiosk_id = w.kiosk_id
            WHERE hb.t < upper(w.win) AND hb.t + \(coverMs) > lower(w.win)
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
        """
    }

    private static func int(_ s: String?) -> Int { s.flatMap { Int($0) } ?? 0 }
    private static func int64(_ s: String?) -> Int64 { s.flatMap { Int64($0) } ?? 0 }

    /// Binds the filter's values to every query and logs each one's time with KIOSK_REPORT_TIMING.
    private struct Runner<Database: ReportDatabase> {
        let db: Database
        let filter: ReportFilter
        let nowMs: Int64

        func rows(_ sql: String) throws -> [[String?]] {
            let integers: [String: Int64] = [
                "since": filter.sinceMs ?? Int64.min, "until": filter.untilMs ?? Int64.max,
                "cooldown": filter.cooldownMs, "mashmin": Int64(filter.mashMinimum), "toofast": filter.tooFastMs,
                "now": nowMs,
            ]
            let texts: [String: String?] = ["kiosk": filter.kioskID, "deck": filter.deckID]
            let began = MonotonicClock.now()
            let result = try db.rows(sql, integers: integers, texts: texts)
            if getenv("KIOSK_REPORT_TIMING") != nil {
                let ms = MonotonicClock.now().seconds(since: began) * 1000
                Log.info("report: \(jsonNumber(ms, decimals: 0)) ms: \(sql.split(separator: "\n").first ?? "")")
            }
            return result
        }

        func run(_ sql: String) throws { _ = try rows(sql) }
    }
}
