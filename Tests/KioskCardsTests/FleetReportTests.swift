import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskFleet
@testable import KioskStore
@testable import KioskSystem

/// Central schema 5 (payload 3) and `report --postgres`, against the suite's real PostgreSQL:
/// seeded `simulate` runs synced by the real worker, reported by the real executable.
extension FleetTests {
    /// An operator role (`fleet_operator`) and its password URL over TCP.
    func operatorURL(_ database: String) throws -> String {
        let name = "op_report_\(getpid())"
        let password = FleetAdmin.randomPassword()
        _ = try FleetAdmin.addOperator(name, password: password, on: try pg.admin(database))
        return "postgresql://\(name):\(password)@127.0.0.1:\(pg.port)/\(database)"
    }

    /// `report … --format json` in UTC, its exit status and parsed output (nil: not JSON).
    func reportJSON(_ arguments: [String], stderr: String = "/dev/null") throws -> (status: Int32, json: JSONNode?) {
        let result = try #require(
            StoreTestSupport.run(
                ["report"] + arguments + ["--format", "json"], stderrPath: stderr, environment: ["TZ=UTC"]))
        return (result.status, try? JSONReader.parse(result.stdout))
    }

    /// The JSON as text without what must differ between sources: the source's name, when it
    /// was made (and so the start of the previous period of a --since without --until), and the
    /// fleet-only per-kiosk fields (uptime share, last heartbeat).
    static func comparable(_ node: JSONNode, path: [String] = []) -> String {
        switch node.value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return "\(d)"
        case .string(let s): return "\"\(s)\""
        case .array(let items): return "[" + items.map { comparable($0, path: path) }.joined(separator: ",\n") + "]"
        case .object(let members):
            let kept = members.filter { m in
                !(path.isEmpty && (m.key == "generated" || m.key == "source"))
                    && !(path.first == "kiosks" && (m.key == "uptimeShare" || m.key == "lastHeartbeat"))
                    && !(path == ["previousPeriod"] && m.key == "since")
            }
            return "{"
                + kept.map { "\($0.key): " + comparable($0.value, path: path + [$0.key]) }.joined(separator: ", ")
                + "}"
        }
    }

    @Test func postgresReportEqualsTheSQLiteReportOfTheSameData() throws {
        try #require(StoreTestSupport.executableExists, "build the executable: swift build --build-tests")
        let name = try freshFleet()
        let kiosks = ["rep-a-\(getpid())", "rep-b-\(getpid())"]
        var dirs: [String] = []
        for (i, kiosk) in kiosks.enumerated() {
            let settings = try addKiosk(kiosk, database: name, group: "report-titles")
            let dir = scratch + "/" + kiosk
            // The second kiosk's deck has six languages: the decisions' languages travel too.
            try ReportRuns.simulate(
                dir, seed: 21 + i, visitors: i == 0 ? 160 : 320, kiosk: kiosk,
                deck: i == 0 ? "seed-stack.json" : "multilingual.json")
            let worker = FleetSyncWorker(settings: settings, dataDirectory: dir) { FleetHealth.standalone() }
            #expect(worker.syncOnce() == nil)
            dirs.append(dir)
        }
        // The decks as the fleet publishes them: the PostgreSQL report's titles come from
        // fleet.decks, the local one's from the same files (--deck-file).
        let deckFiles = ["seed-stack.json", "multilingual.json"].map { DeckFixtures.packageRoot + "/examples/" + $0 }
        for file in deckFiles {
            let published = try #require(
                StoreTestSupport.run([
                    "fleet", "publish", file, "--group", "report-titles", "--postgres", pg.adminURL(database: name),
                ]))
            #expect(published.status == 0, "fleet publish \(file)")
        }
        let withDecks = deckFiles.flatMap { ["--deck-file", $0] }
        let url = try operatorURL(name)
        let until = WallClock.iso8601(milliseconds: WallClock.nowMilliseconds() - 60_000)
        for (kiosk, dir) in zip(kiosks, dirs) {
            for extra in [[String](), ["--include-mashing", "yes"], ["--since", "2026-11-03", "--k", "1"]] {
                let local = try reportJSON(["--data", dir, "--kiosk", kiosk, "--until", until] + withDecks + extra)
                let fleet = try reportJSON(["--postgres", url, "--kiosk", kiosk, "--until", until] + extra)
                #expect(local.status == 0 && fleet.status == 0)
                let l = try #require(local.json)
                let f = try #require(fleet.json)
                #expect(ReportRuns.number(l["totals"]?["decisionRows"]) ?? 0 > 500)
                #expect(Self.comparable(l) == Self.comparable(f), "\(kiosk) \(extra)")
                let titles = (f["cards"]?.elements ?? []).compactMap { $0["title"]?.stringValue }
                #expect(!titles.isEmpty && titles.count == f["cards"]?.elements?.count, "titles from fleet.decks")
                let languages = f["quality"]?["languages"]?.elements ?? []
                #expect(languages.count >= (kiosk == kiosks[1] ? 3 : 1), "\(kiosk): \(languages.count) languages")
            }
        }
    }

    /// Per kiosk, recomputed here from the central rows: visits, completion, active days,
    /// approval of the final answers outside mashing visits, last seen, uptime share from
    /// "Is every kiosk working?" on the page: one healthy kiosk, one silent, one never heard
    /// from. The page's health table and `fleet status --json` agree on every kiosk's state, and
    /// the silent one makes `fleet status` exit 1.
    @Test func thePagesHealthTableAgreesWithFleetStatus() throws {
        try #require(StoreTestSupport.executableExists)
        let name = try freshFleet()
        let healthy = "hl-ok-\(getpid())"
        let silent = "hl-quiet-\(getpid())"
        let never = "hl-never-\(getpid())"
        for kiosk in [healthy, silent] {
            var beat = Heartbeat(sentAtMs: 0, appVersion: "t")
            beat.source = .app  // the running app's heartbeat: only those make a kiosk online
            try FleetUpload.send(beat, on: try connect(try addKiosk(kiosk, database: name)))
        }
        _ = try addKiosk(never, database: name)
        try pg.admin(name).execute(
            "UPDATE fleet.heartbeats SET received_at = received_at - interval '10 minutes' WHERE kiosk_id = $1",
            [silent])
        let page = scratch + "/health.html"
        let report = try #require(StoreTestSupport.run(["report", "--postgres", try operatorURL(name), "--out", page]))
        #expect(report.status == 0)
        let html = try FileIO.readText(page, limit: 16 << 20, what: page)
        let status = try #require(
            StoreTestSupport.run(["fleet", "status", "--postgres", pg.adminURL(database: name), "--json"]))
        #expect(status.status == 1)
        let json = String(decoding: status.stdout, as: UTF8.self)
        for (kiosk, statusState, pageState) in [
            (healthy, "online", "online"), (silent, "silent", "silent since "), (never, "never seen", "never seen"),
        ] {
            #expect(json.contains("\"kiosk_id\": \"\(kiosk)\", \"state\": \"\(statusState)\""), "\(json)")
            #expect(html.contains("<td>\(kiosk)</td><td>\(pageState)"), "\(kiosk)")
        }
        #expect(!html.contains("127.0.0.1") && !html.contains("op_report_"), "the header names no host or role")
    }

    /// heartbeats with out-of-order time left out, and the ranking.
    @Test func perKioskFiguresMatchAnIndependentComputation() throws {
        try #require(StoreTestSupport.executableExists)
        let name = try freshFleet()
        let kiosks = ["rk-a-\(getpid())", "rk-b-\(getpid())", "rk-c-\(getpid())"]
        for (i, kiosk) in kiosks.enumerated() where i < 2 {
            let settings = try addKiosk(kiosk, database: name, group: "report-titles")
            let dir = scratch + "/" + kiosk
            try ReportRuns.simulate(dir, seed: 31 + i, visitors: 120 + 80 * i, kiosk: kiosk)
            #expect(
                FleetSyncWorker(settings: settings, dataDirectory: dir) { FleetHealth.standalone() }.syncOnce() == nil)
        }
        _ = try addKiosk(kiosks[2], database: name)  // heartbeats only: a kiosk nobody used
        let admin = try pg.admin(name)
        // Heartbeats at chosen receive times (the trigger stamps the server's clock; the
        // superuser turns triggers off for the seed), and a maintenance log.
        let base: Int64 = 1_796_000_000_000  // 2026-11-30T…Z, after the simulated period
        let minute: Int64 = 60_000
        var beats: [String: [Int64]] = [:]
        beats[kiosks[0]] = (0..<600).map { base + Int64($0) * minute }  // 10 h, every minute
        let morning: [Int64] = (0..<300).map { base + Int64($0) * minute }
        let afternoon: [Int64] = (420..<600).map { base + Int64($0) * minute }
        beats[kiosks[1]] = morning + afternoon
        beats[kiosks[2]] = (0..<60).map { base + 5 * minute + Int64($0) * 2 * minute }  // every 2 min, then silent
        try admin.execute("DELETE FROM fleet.heartbeats")
        try admin.execute("SET session_replication_role = replica")
        for (kiosk, times) in beats {
            for t in times {
                try admin.execute(
                    """
                    INSERT INTO fleet.heartbeats (kiosk_id, sent_at, received_at, app_version, unsent, storage_failing, uptime_s)
                    VALUES ($1, to_timestamp($2::bigint / 1000.0), to_timestamp($2::bigint / 1000.0), 't', 0, false, 0)
                    """, [kiosk, String(t)])
            }
        }
        let maintenance: [(String, Int64, String)] = [
            (kiosks[1], base + 300 * minute, "out-of-order"), (kiosks[1], base + 350 * minute, "note"),
            (kiosks[1], base + 400 * minute, "in-service"), (kiosks[2], base + 100 * minute, "out-of-order"),
        ]
        for (kiosk, t, state) in maintenance {
            try admin.execute(
                "INSERT INTO fleet.maintenance (kiosk_id, wall_ms, state, note, payload_version) VALUES ($1, $2::bigint, $3, 'x', 3)",
                [kiosk, String(t), state])
        }
        try admin.execute("SET session_replication_role = origin")
        let untilMs = base + 610 * minute
        let report = try reportJSON([
            "--postgres", try operatorURL(name), "--until", WallClock.iso8601(milliseconds: untilMs),
        ])
        #expect(report.status == 0)
        let json = try #require(report.json)
        let rows = try #require(json["kiosks"]?.elements)
        #expect(rows.count == 3)

        // Uptime: covered = ∪ [t, t + 180 s) ∩ window, window = [first beat, until), minus out of service.
        func length(_ ranges: [(Int64, Int64)]) -> Int64 {
            var total: Int64 = 0
            var end = Int64.min
            for (lo, hi) in ranges.sorted(by: { $0.0 < $1.0 }) where hi > lo {
                if lo >= end {
                    total += hi - lo
                    end = hi
                } else if hi > end {
                    total += hi - end
                    end = hi
                }
            }
            return total
        }
        func minus(_ ranges: [(Int64, Int64)], _ cut: [(Int64, Int64)]) -> [(Int64, Int64)] {
            var out = ranges
            for (clo, chi) in cut {
                out = out.flatMap { lo, hi -> [(Int64, Int64)] in
                    [(lo, min(hi, clo)), (max(lo, chi), hi)].filter { $0.0 < $0.1 }
                }
            }
            return out
        }
        var expectedShare: [String: Double] = [:]
        for (kiosk, times) in beats {
            let window = (times.min()!, untilMs)
            let oos: [(Int64, Int64)] = maintenance.filter { $0.0 == kiosk && $0.2 == "out-of-order" }.map { o in
                let back = maintenance.filter { $0.0 == kiosk && $0.2 == "in-service" && $0.1 > o.1 }.map(\.1).min()
                return (o.1, back ?? Int64.max)
            }
            let covered = times.map { (max($0, window.0), min($0 + 180_000, window.1)) }
            expectedShare[kiosk] =
                Double(length(minus(covered, oos))) / Double(length(minus([window], oos)))
        }
        // Kiosk a: 600 beats a minute apart, the last covering 180 s, of 610 minutes.
        #expect(abs(expectedShare[kiosks[0]]! - (599.0 * 60 + 180) / (610 * 60)) < 1e-9)

        // Visits and answers from the central rows, the report's definitions applied here.
        let visits = try admin.execute("SELECT kiosk_id, session_id, started_wall_ms, end_reason FROM fleet.visits")
        let decisions = try admin.execute(
            "SELECT kiosk_id, session_id, card_id, action, dwell_ms, wall_ms, position FROM fleet.decisions"
                + " ORDER BY kiosk_id, local_id"
        )
        for (rank, row) in rows.enumerated() {
            let kiosk = try #require(row["kiosk"]?.stringValue)
            #expect(ReportRuns.number(row["rank"]) == Double(rank + 1))
            let share = try #require(ReportRuns.number(row["uptimeShare"]))
            #expect(abs(share - expectedShare[kiosk]!) < 1e-4, "\(kiosk): \(share) vs \(expectedShare[kiosk]!)")
            #expect(row["lastHeartbeat"]?.stringValue == WallClock.iso8601(milliseconds: beats[kiosk]!.max()!))
            let mine = visits.values.filter { $0[0] == kiosk }
            let ds = decisions.values.filter { $0[0] == kiosk }
            if mine.isEmpty {
                #expect(row["visits"]?.value == .null)
                continue
            }
            #expect(ReportRuns.number(row["visits"]) == Double(mine.count))
            let completed = mine.filter { $0[3] == "completed" }.count
            #expect(abs((ReportRuns.number(row["completion"]) ?? -1) - Double(completed) / Double(mine.count)) < 1e-3)
            let days = Set(mine.map { WallClock.iso8601(milliseconds: Int64($0[2]!)!).prefix(10) })
            #expect(ReportRuns.number(row["activeDays"]) == Double(days.count))
            #expect(
                abs((ReportRuns.number(row["visitsPerDay"]) ?? -1) - Double(mine.count) / Double(days.count)) < 1e-3)
            var bySession: [String: [[String?]]] = [:]
            for d in ds { bySession[d[1]!, default: []].append(d) }
            var n = 0
            var right = 0
            for (_, list) in bySession {
                let lr = list.filter { $0[3] == "swipedLeft" || $0[3] == "swipedRight" }
                let mashing =
                    lr.count >= 4 && Set(lr.map { $0[3]! }).count == 1
                    && lr.allSatisfy { Int64($0[4]!)! < 700 || $0[6] == "0" }
                if mashing { continue }
                var last: [String: String] = [:]
                for d in list { last[d[2]!] = d[3]! }
                for (_, action) in last where action == "swipedLeft" || action == "swipedRight" {
                    n += 1
                    if action == "swipedRight" { right += 1 }
                }
            }
            #expect(ReportRuns.number(row["n"]) == Double(n))
            #expect(ReportRuns.number(row["right"]) == Double(right))
            let lastSeen = max(
                mine.map { Int64($0[2]!)! }.max() ?? 0, ds.map { Int64($0[5]!)! }.max() ?? 0)
            #expect(row["lastSeen"]?.stringValue == WallClock.iso8601(milliseconds: lastSeen))
        }
        // Ranked by visits per active day, the unused kiosk last.
        let perDay = rows.map { ReportRuns.number($0["visitsPerDay"]) ?? 0 }
        #expect(perDay == perDay.sorted(by: >))
        #expect(rows.last?["kiosk"]?.stringValue == kiosks[2])
    }

    @Test func reportFromPostgresFailsClearlyOnBadSources() throws {
        try #require(StoreTestSupport.executableExists)
        let name = try freshFleet()
        let err = scratch + "/report-pg.err"
        func expectExit2(_ url: String, says text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let r = try reportJSON(["--postgres", url], stderr: err)
            #expect(r.status == 2, sourceLocation: sourceLocation)
            let log = String(decoding: try FileIO.readAll(err, limit: 1 << 20), as: UTF8.self)
            #expect(log.contains(text), "\(log)", sourceLocation: sourceLocation)
        }
        // Nothing listens on that port.
        try expectExit2(
            "postgresql://nobody@127.0.0.1:\(PostgresTestServer.freePort())/\(name)?connect_timeout=3",
            says: "unreachable")
        // A wrong password.
        _ = try operatorURL(name)
        try expectExit2(
            "postgresql://op_report_\(getpid()):wrong@127.0.0.1:\(pg.port)/\(name)", says: "authentication failed")
        // A database without the fleet schema, and one at schema 4 (before the report's rows).
        try expectExit2(pg.adminURL(database: "postgres"), says: "no fleet schema in this database")
        try pg.admin(name).execute("DELETE FROM fleet.schema_migrations WHERE version >= 5")
        try expectExit2(pg.adminURL(database: name), says: "the central schema is at version 4; the report needs 5")
        // Both sources, or neither.
        let both = try reportJSON(["--postgres", pg.adminURL(database: name), "--data", scratch])
        #expect(both.status == 2)
    }

    @Test func anOldPayloadKioskStillSyncsAndANewOneSendsTheReportRows() throws {
        let name = try freshFleet()
        let kiosk = "oldpay-\(getpid())"
        var settings = try addKiosk(kiosk, database: name)
        let data = scratch + "/oldpay"
        try produce(700, into: data, kiosk: kiosk)
        let local = try localUIDs(data)
        settings.maxPayloadVersion = 2
        let old = FleetSyncWorker(settings: settings, dataDirectory: data) { FleetHealth.standalone() }
        #expect(old.syncOnce() == nil)
        #expect(old.payloadVersion == 2)
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        let admin = try pg.admin(name)
        let v2 = try admin.execute(
            "SELECT count(*) FILTER (WHERE payload_version = 2 AND local_id IS NULL), count(*) FROM fleet.decisions WHERE kiosk_id = $1",
            [kiosk])
        #expect(v2.values == [["700", "700"]])
        #expect(try admin.execute("SELECT count(*) FROM fleet.visits WHERE kiosk_id = $1", [kiosk]).scalar == "0")
        // Upgraded: the decisions' cursor is at the end (they are not sent again); the visits
        // and events, which payload 2 never carried, follow now.
        settings.maxPayloadVersion = FleetSchema.payloadVersion
        let new = FleetSyncWorker(settings: settings, dataDirectory: data) { FleetHealth.standalone() }
        #expect(new.syncOnce() == nil)
        #expect(new.payloadVersion == FleetSchema.payloadVersion)
        #expect(new.sent == 0)
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        // The decisions keep what payload 2 carried (no position, method, flags); the rest arrived.
        try expectReportRowsOnce(name, kiosk: kiosk, data: data, decisionFields: false)
        #expect(
            try admin.execute(
                "SELECT count(*) FROM fleet.decisions WHERE kiosk_id = $1 AND position IS NULL AND too_fast IS NULL",
                [kiosk]
            ).scalar == "700")
    }

    /// A server whose payload list stops at 2 (as before central migration 5) or at 3 (before
    /// migration 7): the kiosk sends what it takes. Payload 2: decisions only, the visits wait on
    /// the kiosk. Payload 3: the report's rows too, the mode and the language stay on the kiosk.
    @Test(arguments: [2, 3]) func aNewKioskSendsWhatAServerNotYetMigratedTakes(newest: Int) throws {
        let name = try freshFleet()
        let kiosk = "notyet\(newest)-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let data = scratch + "/notyet\(newest)"
        try produce(300, into: data, kiosk: kiosk)
        let local = try localUIDs(data)
        let admin = try pg.admin(name)
        try admin.execute("DELETE FROM fleet.payload_versions WHERE version > $1", [String(newest)])
        let worker = FleetSyncWorker(settings: settings, dataDirectory: data) { FleetHealth.standalone() }
        #expect(worker.syncOnce() == nil)
        #expect(worker.payloadVersion == newest)
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        if newest == 2 {
            #expect(try admin.execute("SELECT count(*) FROM fleet.visits").scalar == "0")
            // The visits wait on the kiosk: their cursor has not moved.
            let target = try #require(worker.cursorTarget)
            #expect(try DecisionSync.cursor(dataDirectory: data, target: DecisionSync.visitsTarget(target)) == 0)
            return
        }
        try expectReportRowsOnce(name, kiosk: kiosk, data: data, decisionFields: false)
        let rows = try admin.execute(
            """
            SELECT count(*) FILTER (WHERE position IS NOT NULL AND input_method IS NOT NULL),
                   count(*) FILTER (WHERE accessibility_mode IS NULL AND language IS NULL), count(*)
            FROM fleet.decisions WHERE kiosk_id = $1 AND payload_version = 3
            """, [kiosk])
        #expect(rows.values == [["300", "300", "300"]])
    }

    /// Which QR code each `qr_shown` event showed travels with it (payload 5): the server's
    /// events equal the kiosk's, column by column, and `report --postgres` gives the same
    /// `linkCodes` as the kiosk's own file. A server that takes payload 4 at most gets the events
    /// without their code, and its report counts them as not recorded, never as a card's.
    @Test func theCodesShownTravelWithTheirCardAndReportTheSame() throws {
        try #require(StoreTestSupport.executableExists, "build the executable: swift build --build-tests")
        let name = try freshFleet()
        let kiosks = ["codes-a-\(getpid())", "codes-b-\(getpid())"]
        var dirs: [String] = []
        let admin = try pg.admin(name)
        // The second kiosk syncs first, to a server that does not list payload 5 yet (as before
        // central schema 12); then the server lists it again and the first kiosk syncs.
        let five = try admin.execute("SELECT description FROM fleet.payload_versions WHERE version = 5").scalar
        try admin.execute("DELETE FROM fleet.payload_versions WHERE version = 5")
        for (i, kiosk) in kiosks.enumerated().reversed() {
            let settings = try addKiosk(kiosk, database: name)
            let dir = scratch + "/" + kiosk
            try ReportRuns.simulate(dir, seed: 31 + i, visitors: 120, kiosk: kiosk, deck: "take-it-with-you.json")
            if i == 0 { try admin.execute("INSERT INTO fleet.payload_versions VALUES (5, $1)", [five]) }
            let worker = FleetSyncWorker(settings: settings, dataDirectory: dir) { FleetHealth.standalone() }
            #expect(worker.syncOnce() == nil)
            #expect(worker.payloadVersion == (i == 0 ? FleetSchema.payloadVersion : 4))
            dirs.insert(dir, at: 0)
        }
        func rows(_ dir: String) throws -> [String] {
            let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
            let stmt = try db.prepare(
                "SELECT uid || ' ' || kind || ' ' || COALESCE(session_id, '-') || ' ' || COALESCE(code_of, '-') || ' '"
                    + " || COALESCE(card_id, '-') FROM kiosk_events")
            var out: [String] = []
            while try stmt.step() { out.append(stmt.text(0)) }
            return out.sorted()
        }
        let central = { (kiosk: String) in
            try admin.execute(
                """
                SELECT event_uid || ' ' || kind || ' ' || COALESCE(session_id, '-') || ' ' || COALESCE(code_of, '-')
                    || ' ' || COALESCE(card_id, '-')
                FROM fleet.kiosk_events WHERE kiosk_id = $1
                """, [kiosk]
            ).values.map { $0[0] ?? "" }.sorted()
        }
        let sent = try rows(dirs[0])
        #expect(sent.contains { $0.hasSuffix(" card lageplan") } && sent.contains { $0.hasSuffix(" end -") })
        #expect(try central(kiosks[0]) == sent)
        let url = try operatorURL(name)
        let until = WallClock.iso8601(milliseconds: WallClock.nowMilliseconds() - 60_000)
        let local = try #require(try reportJSON(["--data", dirs[0], "--kiosk", kiosks[0], "--until", until]).json)
        let fleet = try #require(try reportJSON(["--postgres", url, "--kiosk", kiosks[0], "--until", until]).json)
        let codes = try #require(local["linkCodes"])
        #expect(codes["codes"]?.elements?.count == 3)
        let fleetCodes = try #require(fleet["linkCodes"])
        #expect(Self.comparable(codes) == Self.comparable(fleetCodes))
        // Payload 4: the events arrived, their codes did not.
        let old = try central(kiosks[1])
        let there = try rows(dirs[1])
        let shownThere = there.filter { $0.contains(" qr_shown ") }.count
        #expect(old.count == there.count && shownThere > 0)
        #expect(old.allSatisfy { $0.hasSuffix(" - - -") })
        let oldReport = try #require(try reportJSON(["--postgres", url, "--kiosk", kiosks[1], "--until", until]).json)
        #expect(oldReport["linkCodes"]?["codes"]?.elements?.isEmpty == true)
        #expect(ReportRuns.number(oldReport["linkCodes"]?["notRecorded"]) == Double(shownThere))
    }

    @Test func theReportRowsArePrivateToTheirKiosk() throws {
        let name = try freshFleet()
        let a = "priv-a-\(getpid())"
        let b = "priv-b-\(getpid())"
        let asA = try connect(try addKiosk(a, database: name))
        let asB = try connect(try addKiosk(b, database: name))
        let visit = VisitRecord(
            sessionID: "s", kioskID: "ignored", deckID: "d", deckVersion: 1, startedWallMs: 1, startedMonotonicNs: 1,
            endedWallMs: 2, endReason: "completed", cardsShown: 1, accessibilityUsed: false)
        let event = KioskEventRecord(kioskID: "ignored", kind: "attract_shown", wallMs: 1, monotonicNs: 1)
        let batch = UploadBatch(
            visits: [visit], events: [StoredEvent(id: 1, uid: "e1", event: event)],
            maintenance: [MaintenanceUpload(wallMs: 1, state: "out-of-order", note: "n")])
        try FleetUpload.send(batch, on: asA)
        try FleetUpload.send(batch, on: asA)  // again: nothing doubled
        try FleetUpload.send(batch, on: asB)
        for table in ["visits", "kiosk_events", "maintenance"] {
            #expect(try asA.execute("SELECT DISTINCT kiosk_id FROM fleet.\(table)").values == [[a]], "\(table)")
            #expect(try asB.execute("SELECT count(*) FROM fleet.\(table)").scalar == "1", "\(table)")
            for sql in [
                "UPDATE fleet.\(table) SET kiosk_id = kiosk_id", "DELETE FROM fleet.\(table)",
                "DROP TABLE fleet.\(table)",
            ] {
                #expect(throws: FleetError.self, "\(sql)") { try asA.execute(sql) }
            }
        }
        // Inserting as another kiosk is refused by the policy.
        #expect(throws: FleetError.self) {
            try asA.execute(
                """
                INSERT INTO fleet.visits (kiosk_id, session_id, payload_version, deck_id, deck_version, started_wall_ms,
                    started_monotonic_ns) VALUES ($1, 'x', 3, 'd', 1, 0, 0)
                """, [b])
        }
        #expect(try pg.admin(name).execute("SELECT count(*) FROM fleet.visits").scalar == "2")
    }
}
