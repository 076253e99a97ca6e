import Glibc
import KioskTestSupport
import Testing

@testable import KioskStore
@testable import KioskSystem

/// The report's card titles, each card's approval over time, approval per kiosk × card and the
/// comparison with the previous period: every figure recomputed here from the raw rows of
/// seeded simulations (plain SQL, aggregated in Swift), the titles read from the deck file as
/// plain JSON.
@Suite(.serialized) struct ReportCardTrendTests {
    /// One stored decision, as written.
    struct Row {
        var id: Int64
        var kiosk: String
        var session: String
        var deck: String
        var card: String
        var action: String
        var wallMs: Int64
    }

    /// A final answer: the last row of a card in a visit, when it is a left or right swipe.
    struct Answer {
        var kiosk: String
        var deck: String
        var card: String
        var right: Bool
        var day: String
    }

    static let day = Int64(86_400_000)
    /// 2026-11-02T00:00Z (a Monday), the simulation's default start.
    static let start = Int64(1_793_577_600_000)

    static func report(_ arguments: [String]) throws -> JSONNode {
        let result = try #require(
            StoreTestSupport.run(["report"] + arguments + ["--format", "json"], environment: ["TZ=UTC"]))
        #expect(result.status == 0)
        return try JSONReader.parse(result.stdout)
    }

    static func simulate(_ dir: String, deck: String, seed: Int, visitors: Int, kiosk: String) throws {
        let result = try #require(
            StoreTestSupport.run([
                "simulate", "--deck", DeckFixtures.packageRoot + "/examples/" + deck, "--data", dir, "--visitors",
                String(visitors), "--seed", String(seed), "--kiosk", kiosk,
            ]))
        #expect(result.status == 0)
    }

    static func rows(_ dir: String) throws -> [Row] {
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        let stmt = try db.prepare(
            "SELECT id, kiosk_id, session_id, deck_id, card_id, action, wall_ms FROM decisions ORDER BY id")
        var out: [Row] = []
        while try stmt.step() {
            out.append(
                Row(
                    id: stmt.int64(0), kiosk: stmt.text(1), session: stmt.text(2), deck: stmt.text(3),
                    card: stmt.text(4), action: stmt.text(5), wallMs: stmt.int64(6)))
        }
        return out
    }

    /// "YYYY-MM-DD" of a Unix-ms time in UTC, by the C library (not the report's CivilDate).
    static func utcDay(_ ms: Int64) -> String {
        var t = time_t(ms / 1000)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }

    /// The final answers among the rows with wall time in [since, until).
    static func answers(_ rows: [Row], since: Int64 = .min, until: Int64 = .max) -> [Answer] {
        var last: [String: Row] = [:]
        for r in rows where r.wallMs >= since && r.wallMs < until {
            last[r.kiosk + "\u{1}" + r.session + "\u{1}" + r.card] = r
        }
        return last.values.filter { $0.action == "swipedLeft" || $0.action == "swipedRight" }.map {
            Answer(
                kiosk: $0.kiosk, deck: $0.deck, card: $0.card, right: $0.action == "swipedRight", day: utcDay($0.wallMs)
            )
        }
    }

    static func number(_ node: JSONNode?) -> Double? {
        if case .number(let x)? = node?.value { return x }
        return nil
    }

    /// A cell against the answers behind it: privacy floor k = 5 (each answer is one visit).
    static func expectCell(
        _ cell: JSONNode?, _ mine: [Answer], _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let n = mine.count
        let right = mine.filter(\.right).count
        if n > 0 && n < 5 {
            #expect(cell?["suppressed"]?.value == .bool(true), "\(what)", sourceLocation: sourceLocation)
            #expect(number(cell?["approval"]) == nil, "\(what)", sourceLocation: sourceLocation)
            return
        }
        #expect(number(cell?["n"]) == Double(n), "\(what)", sourceLocation: sourceLocation)
        #expect(number(cell?["right"]) == Double(right), "\(what)", sourceLocation: sourceLocation)
        if n == 0 {
            #expect(number(cell?["approval"]) == nil, "\(what)", sourceLocation: sourceLocation)
        } else {
            let approval = number(cell?["approval"]) ?? -1
            #expect(abs(approval - Double(right) / Double(n)) < 1e-6, "\(what)", sourceLocation: sourceLocation)
        }
    }

    /// Titles and deck order from the deck file named by --deck-file (read here as plain JSON);
    /// a deck version the report has no file for shows its cards by id, title null.
    @Test func cardTitlesComeFromTheDeckFileInDeckOrder() throws {
        let dir = DeckFixtures.temporaryDirectory("report-titles")
        defer { DeckFixtures.removeTree(dir) }
        try Self.simulate(dir, deck: "seed-stack.json", seed: 3, visitors: 80, kiosk: "a")
        try Self.simulate(dir, deck: "quiz-flashcards.json", seed: 4, visitors: 80, kiosk: "b")
        let path = DeckFixtures.packageRoot + "/examples/seed-stack.json"
        let deck = try JSONReader.parse(try FileIO.readAll(path, limit: 1 << 20, what: "deck"))
        let deckID = try #require(deck["id"]?.stringValue)
        let listed = try #require(deck["cards"]?.elements).map { ($0["id"]?.stringValue, $0["title"]?.stringValue) }
        #expect(listed.count == 5)

        let json = try Self.report(["--data", dir, "--deck-file", path])
        let cards = try #require(json["cards"]?.elements)
        let known = cards.filter { $0["deck"]?.stringValue == deckID }
        #expect(known.map { $0["card"]?.stringValue } == listed.map(\.0), "deck order")
        #expect(known.map { $0["title"]?.stringValue } == listed.map(\.1))
        let other = cards.filter { $0["deck"]?.stringValue != deckID }
        #expect(!other.isEmpty)
        for card in other {
            #expect(card["title"]?.value == .null, "no deck file for \(card["deck"]?.stringValue ?? "")")
        }

        let without = try Self.report(["--data", dir])
        for card in try #require(without["cards"]?.elements) { #expect(card["title"]?.value == .null) }
    }

    /// Approval per card per day and per kiosk × card, from two kiosks with the same deck.
    @Test func approvalOverTimeAndPerKioskMatchTheRawRows() throws {
        let dir = DeckFixtures.temporaryDirectory("report-trend")
        defer { DeckFixtures.removeTree(dir) }
        try Self.simulate(dir, deck: "seed-stack.json", seed: 7, visitors: 250, kiosk: "hall")
        try Self.simulate(dir, deck: "seed-stack.json", seed: 8, visitors: 60, kiosk: "shop")
        let json = try Self.report(["--data", dir, "--include-mashing", "yes"])
        let answers = Self.answers(try Self.rows(dir))
        #expect(answers.count > 500)

        let trend = try #require(json["approvalOverTime"])
        #expect(trend["bucket"]?.stringValue == "day")
        let series = try #require(trend["cards"]?.elements)
        #expect(Set(series.compactMap { $0["card"]?.stringValue }) == Set(answers.map(\.card)))
        var checkedDays = 0
        for card in series {
            let id = try #require(card["card"]?.stringValue)
            let points = try #require(card["points"]?.elements)
            let periods = points.compactMap { $0["period"]?.stringValue }
            #expect(periods == periods.sorted() && Set(periods).count == periods.count)
            #expect(Set(answers.filter { $0.card == id }.map(\.day)).isSubset(of: Set(periods)))
            for point in points {
                let day = try #require(point["period"]?.stringValue)
                Self.expectCell(point, answers.filter { $0.card == id && $0.day == day }, "\(id) on \(day)")
                checkedDays += 1
            }
        }
        #expect(checkedDays >= 5 * 5)
        // The days are consecutive: as many as from the first to the last, counted by the C library.
        if let first = series.first?["points"]?.elements {
            let days = first.compactMap { $0["period"]?.stringValue }
            let spans = (0..<days.count).map { Self.utcDay(Self.start + Int64($0) * Self.day) }
            let offset = (0..<60).first { Self.utcDay(Self.start + Int64($0) * Self.day) == days.first } ?? 0
            #expect(days == spans.indices.map { Self.utcDay(Self.start + Int64($0 + offset) * Self.day) })
        }

        let perKiosk = try #require(json["kioskCards"])
        let kiosks = try #require(perKiosk["kiosks"]?.elements).compactMap(\.stringValue)
        let ranked = try #require(json["kiosks"]?.elements)
        #expect(kiosks == ranked.compactMap { $0["kiosk"]?.stringValue })
        #expect(Set(kiosks) == ["hall", "shop"])
        for card in try #require(perKiosk["cards"]?.elements) {
            let id = try #require(card["card"]?.stringValue)
            let cells = try #require(card["kiosks"]?.elements)
            #expect(cells.compactMap { $0["kiosk"]?.stringValue } == kiosks)
            for cell in cells {
                let kiosk = try #require(cell["kiosk"]?.stringValue)
                Self.expectCell(cell, answers.filter { $0.card == id && $0.kiosk == kiosk }, "\(id) at \(kiosk)")
            }
        }
    }

    /// --since/--until also embed the period before, as long, ending where this one starts.
    @Test func thePreviousPeriodIsRecomputedFromTheRawRows() throws {
        let dir = DeckFixtures.temporaryDirectory("report-previous")
        defer { DeckFixtures.removeTree(dir) }
        try Self.simulate(dir, deck: "seed-stack.json", seed: 9, visitors: 400, kiosk: "hall")
        let json = try Self.report([
            "--data", dir, "--include-mashing", "yes", "--since", "2026-11-07", "--until", "2026-11-12",
        ])
        let since = Self.start + 5 * Self.day
        let until = Self.start + 10 * Self.day
        let rows = try Self.rows(dir)
        let now = Self.answers(rows, since: since, until: until)
        let before = Self.answers(rows, since: Self.start, until: since)
        #expect(now.count > 300 && before.count > 300)

        let previous = try #require(json["previousPeriod"])
        #expect(previous["since"]?.stringValue?.hasPrefix("2026-11-02T00:00:00") == true)
        #expect(previous["until"]?.stringValue?.hasPrefix("2026-11-07T00:00:00") == true)
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        let visits = try #require(
            try db.scalarInt(
                "SELECT COUNT(*) FROM visits WHERE started_wall_ms >= \(Self.start) AND started_wall_ms < \(since)"))
        #expect(Self.number(previous["visits"]) == Double(visits))
        #expect(Self.number(previous["finalAnswers"]) == Double(before.count))
        #expect(Self.number(previous["right"]) == Double(before.filter(\.right).count))
        let approvalBefore = Double(before.filter(\.right).count) / Double(before.count)
        #expect(abs((Self.number(previous["approval"]) ?? -1) - approvalBefore) < 1e-6)
        let approvalNow = Double(now.filter(\.right).count) / Double(now.count)
        #expect(abs((Self.number(json["totals"]?["approval"]) ?? -1) - approvalNow) < 1e-6)

        for card in try #require(json["cards"]?.elements) {
            let id = try #require(card["card"]?.stringValue)
            let a = now.filter { $0.card == id }
            let b = before.filter { $0.card == id }
            Self.expectCell(card["previous"], b, "\(id) before")
            let nowShare: Double = Double(a.filter(\.right).count) / Double(a.count)
            let beforeShare: Double = Double(b.filter(\.right).count) / Double(b.count)
            let reported: Double = Self.number(card["approvalChange"]) ?? -9
            #expect(abs(reported - (nowShare - beforeShare)) < 1e-6, "\(id)")
        }

        let unbounded = try Self.report(["--data", dir])
        #expect(unbounded["previousPeriod"]?.value == .null)
    }
}
