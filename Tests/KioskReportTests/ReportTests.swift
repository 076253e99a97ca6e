import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskStore
@testable import KioskSystem

/// `simulate` and `report`: every figure of `report --format json` recomputed here from the
/// raw rows of a seeded simulation (read with plain SQL, aggregated in Swift), and bad input.
@Suite(.serialized) struct ReportTests {
    struct Row {
        var id: Int64
        var session: String
        var card: String
        var action: String
        var dwell: Int64
        var position: Int64?
        var method: String?
    }

    static func rows(_ dir: String) throws -> [Row] {
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        let stmt = try db.prepare(
            "SELECT id, session_id, card_id, action, dwell_ms, position, input_method FROM decisions ORDER BY id")
        var out: [Row] = []
        while try stmt.step() {
            out.append(
                Row(
                    id: stmt.int64(0), session: stmt.text(1), card: stmt.text(2), action: stmt.text(3),
                    dwell: stmt.int64(4), position: stmt.isNull(5) ? nil : stmt.int64(5),
                    method: stmt.isNull(6) ? nil : stmt.text(6)))
        }
        return out
    }

    static func nearestRank(_ sorted: [Int64], _ p: Double) -> Int64 {
        sorted[max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
    }

    /// Decisions by language and by accessibility mode, from a multilingual deck's simulation
    /// (visits in three languages, some with a mode on), counted again from the raw rows.
    @Test func languagesAndAccessibilityModesMatchTheRawRows() throws {
        let dir = DeckFixtures.temporaryDirectory("report-languages")
        defer { DeckFixtures.removeTree(dir) }
        try ReportRuns.simulate(dir, seed: 5, visitors: 150, deck: "multilingual.json")
        let json = try ReportRuns.report(["--data", dir])
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        var byLanguage: [String: Int] = [:]
        var byMode: [Bool: Int] = [:]
        let stmt = try db.prepare("SELECT language, accessibility_mode FROM decisions WHERE action <> 'undone'")
        while try stmt.step() {
            byLanguage[stmt.text(0), default: 0] += 1
            byMode[stmt.int64(1) != 0, default: 0] += 1
        }
        #expect(byLanguage.count >= 3, "\(byLanguage)")
        #expect((byMode[true] ?? 0) > 0 && (byMode[false] ?? 0) > 0, "\(byMode)")
        let listed = try #require(json["quality"]?["languages"]?.elements)
        var reported: [String: Int] = [:]
        for entry in listed {
            guard case .string(let tag)? = entry["language"]?.value else {
                Issue.record("a language without a tag: every simulated decision has one")
                continue
            }
            reported[tag] = Int(try #require(ReportRuns.number(entry["decisions"])))
        }
        #expect(reported == byLanguage)
        let counts = listed.compactMap { ReportRuns.number($0["decisions"]) }
        #expect(counts == counts.sorted(by: >), "most decisions first")
        let modes = json["quality"]?["accessibilityMode"]
        #expect(ReportRuns.number(modes?["on"]) == Double(byMode[true] ?? 0))
        #expect(ReportRuns.number(modes?["off"]) == Double(byMode[false] ?? 0))
        #expect(ReportRuns.number(modes?["unknown"]) == 0)
    }

    @Test func everyFigureMatchesAnIndependentComputationFromTheRawRows() throws {
        let dir = DeckFixtures.temporaryDirectory("report-figures")
        defer { DeckFixtures.removeTree(dir) }
        try ReportRuns.simulate(dir, seed: 11, visitors: 400)
        let json = try ReportRuns.report(["--data", dir])
        let rows = try Self.rows(dir)
        #expect(rows.count > 1000)

        // Mashing: ≥ 4 left/right decisions, one direction, each under 700 ms (the first card's
        // time aside: decided by the visit's first touch, it counts from the attract screen).
        var bySession: [String: [Row]] = [:]
        for r in rows { bySession[r.session, default: []].append(r) }
        var mashing: Set<String> = []
        var mashingRows = 0
        for (session, list) in bySession {
            let lr = list.filter { $0.action == "swipedLeft" || $0.action == "swipedRight" }
            if lr.count >= 4 && Set(lr.map(\.action)).count == 1
                && lr.allSatisfy({ $0.dwell < 700 || $0.position == 0 })
            {
                mashing.insert(session)
                mashingRows += lr.count
            }
        }
        #expect(!mashing.isEmpty)
        let quality = try #require(json["quality"])
        #expect(ReportRuns.number(quality["mashing"]?["visits"]) == Double(mashing.count))
        #expect(ReportRuns.number(quality["mashing"]?["decisions"]) == Double(mashingRows))

        // Final answers: the last row per (visit, card) when it is left/right, outside mashing visits.
        var last: [String: Row] = [:]
        for r in rows { last[r.session + "\u{1}" + r.card] = r }
        let finals = last.values.filter {
            ($0.action == "swipedLeft" || $0.action == "swipedRight") && !mashing.contains($0.session)
        }
        #expect(ReportRuns.number(json["totals"]?["finalAnswers"]) == Double(finals.count))
        #expect(ReportRuns.number(json["totals"]?["decisionRows"]) == Double(rows.count))

        let cards = try #require(json["cards"]?.elements)
        #expect(cards.count == Set(finals.map(\.card)).count)
        for card in cards {
            let id = try #require(card["card"]?.stringValue)
            let mine = finals.filter { $0.card == id }
            let right = mine.filter { $0.action == "swipedRight" }.count
            #expect(ReportRuns.number(card["n"]) == Double(mine.count), "\(id)")
            #expect(ReportRuns.number(card["right"]) == Double(right), "\(id)")
            #expect(ReportRuns.number(card["visits"]) == Double(Set(mine.map(\.session)).count))
            let p = Double(right) / Double(mine.count)
            #expect(abs(ReportRuns.number(card["approval"])! - p) < 1e-6)
            // Wilson 95 %, written out again here.
            let n = Double(mine.count)
            let z = 1.959963984540054
            let centre = (p + z * z / (2 * n)) / (1 + z * z / n)
            let half = z * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot() / (1 + z * z / n)
            #expect(abs(ReportRuns.number(card["low"])! - (centre - half)) < 1e-6)
            #expect(abs(ReportRuns.number(card["high"])! - (centre + half)) < 1e-6)
            let dwells = mine.map(\.dwell).sorted()
            #expect(ReportRuns.number(card["medianDwellMs"]) == Double(Self.nearestRank(dwells, 0.5)))
            #expect(ReportRuns.number(card["p90DwellMs"]) == Double(Self.nearestRank(dwells, 0.9)))
            let fast = Double(mine.filter { $0.dwell < 300 }.count) / n
            #expect(abs(ReportRuns.number(card["tooFastShare"])! - fast) < 1e-6)
        }

        // Funnel: visits, visits with a decision, furthest position reached, end reasons.
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        let visits = try #require(try db.scalarInt("SELECT COUNT(*) FROM visits"))
        let funnel = try #require(json["funnel"])
        #expect(ReportRuns.number(funnel["visitsStarted"]) == Double(visits))
        let attract = try #require(try db.scalarInt("SELECT COUNT(*) FROM kiosk_events WHERE kind = 'attract_shown'"))
        #expect(ReportRuns.number(funnel["attractShown"]) == Double(attract))
        let completed = try #require(try db.scalarInt("SELECT COUNT(*) FROM visits WHERE end_reason = 'completed'"))
        let idle = try #require(try db.scalarInt("SELECT COUNT(*) FROM visits WHERE end_reason = 'idle'"))
        #expect(completed > 0 && idle > 0)
        #expect(ReportRuns.number(funnel["completed"]) == Double(completed))
        #expect(ReportRuns.number(funnel["endReasons"]?["idle"]) == Double(idle))
        let decidedSessions = Set(rows.filter { $0.action != "undone" }.map(\.session))
        #expect(ReportRuns.number(funnel["firstDecision"]) == Double(decidedSessions.count))
        // The funnel by position and drop-off are per deck version: ReportDeckTests.
        let decks = try #require(json["decks"]?.elements)
        #expect(decks.count == 1)
        #expect(decks.first?["name"]?.stringValue == "seed-stack@1")
        #expect(ReportRuns.number(decks.first?["visitsStarted"]) == Double(visits))
        #expect(ReportRuns.number(decks.first?["completed"]) == Double(completed))

        // Quality: undo rate, input methods.
        let counted = rows.filter { !mashing.contains($0.session) }
        let decided = counted.filter { ["swipedLeft", "swipedRight", "removed"].contains($0.action) }.count
        let undone = counted.filter { $0.action == "undone" }.count
        #expect(undone > 0)
        #expect(abs(ReportRuns.number(quality["undoRate"])! - Double(undone) / Double(decided)) < 1e-6)
        for method in ["swipe", "button", "key"] {
            let n = rows.filter { $0.action != "undone" && $0.method == method }.count
            #expect(n > 0, "\(method)")
            #expect(ReportRuns.number(quality["inputMethods"]?[method]) == Double(n), "\(method)")
        }

        // Position bias: final answers by position (1-based: the first card is 1, stored as 0).
        for entry in try #require(decks.first?["positionBias"]?.elements) {
            let p = Int64(try #require(ReportRuns.number(entry["position"]))) - 1
            let at = finals.filter { $0.position == p }
            #expect(ReportRuns.number(entry["n"]) == Double(at.count))
            #expect(ReportRuns.number(entry["right"]) == Double(at.filter { $0.action == "swipedRight" }.count))
        }
    }

    @Test func kioskAndTimeFiltersSelectTheRows() throws {
        let dir = DeckFixtures.temporaryDirectory("report-filter")
        defer { DeckFixtures.removeTree(dir) }
        try ReportRuns.simulate(dir, seed: 21, visitors: 80, kiosk: "lobby-1")
        try ReportRuns.simulate(dir, seed: 22, visitors: 50, kiosk: "lobby-2")
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        let second = try #require(try db.scalarInt("SELECT COUNT(*) FROM decisions WHERE kiosk_id = 'lobby-2'"))
        let all = try ReportRuns.report(["--data", dir])
        #expect(all["kiosks"]?.elements?.count == 2)
        let one = try ReportRuns.report(["--data", dir, "--kiosk", "lobby-2"])
        #expect(ReportRuns.number(one["totals"]?["decisionRows"]) == Double(second))
        #expect(one["kiosks"]?.elements?.count == 1)
        // 2026-11-03 00:00Z to 2026-11-04 00:00Z: one day, since inclusive and until exclusive.
        let from: Int64 = 1_793_664_000_000
        let to: Int64 = 1_793_750_400_000
        let inDay = try #require(
            try db.scalarInt("SELECT COUNT(*) FROM decisions WHERE wall_ms >= \(from) AND wall_ms < \(to)"))
        #expect(inDay > 0)
        let day = try ReportRuns.report(["--data", dir, "--since", "2026-11-03", "--until", "2026-11-04"])
        #expect(ReportRuns.number(day["totals"]?["decisionRows"]) == Double(inDay))
        #expect(day["days"]?.elements?.map { $0["date"]?.stringValue } == ["2026-11-03"])
    }

    @Test func simulateIsDeterministicForASeed() throws {
        let a = DeckFixtures.temporaryDirectory("report-seed-a")
        let b = DeckFixtures.temporaryDirectory("report-seed-b")
        defer {
            DeckFixtures.removeTree(a)
            DeckFixtures.removeTree(b)
        }
        try ReportRuns.simulate(a, seed: 3, visitors: 60)
        try ReportRuns.simulate(b, seed: 3, visitors: 60)
        let ra = try Self.rows(a).map { "\($0.session) \($0.card) \($0.action) \($0.dwell) \($0.position ?? -1)" }
        let rb = try Self.rows(b).map { "\($0.session) \($0.card) \($0.action) \($0.dwell) \($0.position ?? -1)" }
        #expect(!ra.isEmpty)
        #expect(ra == rb)
    }

    @Test func privacyFloorHidesSmallSegments() throws {
        let dir = DeckFixtures.temporaryDirectory("report-k")
        defer { DeckFixtures.removeTree(dir) }
        try ReportRuns.simulate(dir, seed: 5, visitors: 40)
        let json = try ReportRuns.report(["--data", dir, "--k", "1000"])
        for card in try #require(json["cards"]?.elements) {
            #expect(card["suppressed"]?.value == .bool(true))
            #expect(card["approval"]?.value == .null)
        }
        for cell in try #require(json["hourWeekday"]?.elements) { #expect(cell["visits"]?.value == .null) }
    }

    @Test func emptyDatabaseGivesAnHonestEmptyReport() throws {
        let dir = DeckFixtures.temporaryDirectory("report-empty")
        defer { DeckFixtures.removeTree(dir) }
        do { _ = try DecisionDatabase.openForWriting(dataDirectory: dir) }
        let json = try ReportRuns.report(["--data", dir])
        #expect(ReportRuns.number(json["totals"]?["decisionRows"]) == 0)
        #expect(ReportRuns.number(json["totals"]?["visits"]) == 0)
        #expect(json["cards"]?.elements?.isEmpty == true)
        let html = dir + "/report.html"
        let result = try #require(StoreTestSupport.run(["report", "--data", dir, "--out", html]))
        #expect(result.status == 0)
        let page = try FileIO.readText(html, limit: 5 << 20)
        #expect(page.contains("No decisions or visits in this period"))
    }

    @Test func databaseFromSchemaTwoReportsWhatItHas() throws {
        let dir = DeckFixtures.temporaryDirectory("report-v2")
        defer { DeckFixtures.removeTree(dir) }
        do {
            let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir))
            try db.execute(DecisionDatabase.migrations[0])
            try db.execute(DecisionDatabase.migrations[1])
            try db.execute("PRAGMA user_version = 2")
            for i in 0..<30 {
                try db.execute(
                    """
                    INSERT INTO decisions (uid, kiosk_id, session_id, deck_id, deck_version, card_id, action,
                        wall_time, wall_ms, monotonic_ns, dwell_ms)
                    VALUES ('u\(i)', 'old', 's\(i % 10)', 'd', 1, 'c\(i % 3)', '\(i % 4 == 0 ? "swipedLeft" : "swipedRight")',
                        '', \(1_700_000_000_000 + Int64(i) * 60_000), 0, \(1000 + i * 10))
                    """)
            }
        }
        let json = try ReportRuns.report(["--data", dir, "--k", "1"])
        #expect(json["schema"]?["visits"]?.value == .bool(false))
        #expect(json["schema"]?["positions"]?.value == .bool(false))
        #expect(ReportRuns.number(json["totals"]?["visits"]) == 10)
        #expect(ReportRuns.number(json["totals"]?["finalAnswers"]) == 30)
        #expect(ReportRuns.number(json["quality"]?["inputMethods"]?["unknown"]) == 30)
        // No language or mode column: all unknown.
        #expect(ReportRuns.number(json["quality"]?["accessibilityMode"]?["unknown"]) == 30)
        let languages = try #require(json["quality"]?["languages"]?.elements)
        #expect(languages.count == 1 && languages.first?["language"]?.value == .null)
        #expect(ReportRuns.number(languages.first?["decisions"]) == 30)
        #expect(ReportRuns.number(json["funnel"]?["endReasons"]?["unknown"]) == 10)
        #expect(json["funnel"]?["attractShown"]?.value == .null)
        // The report only reads: the old file keeps its schema.
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        let version = try db.scalarInt("PRAGMA user_version")
        #expect(version == 2)
    }

    @Test func badInputExitsTwoWithTheFix() throws {
        let dir = DeckFixtures.temporaryDirectory("report-bad")
        defer { DeckFixtures.removeTree(dir) }
        let log = dir + "/stderr"
        let swapped = try #require(
            StoreTestSupport.run(
                ["report", "--data", dir, "--since", "2026-11-05", "--until", "2026-11-01", "--format", "json"],
                stderrPath: log))
        #expect(swapped.status == 2)
        let swappedLog = try FileIO.readText(log, limit: 1 << 16)
        #expect(swappedLog.contains("is not before --until"))
        let missing = try #require(StoreTestSupport.run(["report", "--data", dir + "/nothing", "--format", "json"]))
        #expect(missing.status == 2)
        let noChart = try #require(
            StoreTestSupport.run(
                ["report", "--data", dir, "--out", dir + "/r.html", "--chart-js", dir + "/none.js"], stderrPath: log))
        #expect(noChart.status == 2)
        let chartLog = try FileIO.readText(log, limit: 1 << 16)
        #expect(chartLog.contains("libjs-chart.js"))
        let noOut = try #require(StoreTestSupport.run(["report", "--data", dir]))
        #expect(noOut.status == 2)
    }
}
