import Glibc
import KioskTestSupport
import Testing

@testable import KioskStore
@testable import KioskSystem

/// Which QR codes visitors saw: the report's `linkCodes` recomputed here from the raw
/// `visits`, `decisions` and `kiosk_events` rows of seeded simulations of a deck with two
/// cards' codes and the end state's (plain SQL, aggregated in Swift); old rows without the
/// code; a hostile card id on the page.
@Suite(.serialized) struct ReportCodeTests {
    struct Visit: Hashable {
        var kiosk: String
        var session: String
    }

    static let deck = "take-it-with-you.json"

    /// Per "deck@version|code|kiosk" (code "card:<id>" or "end"): the visits that showed the code
    /// and those that reached it (decided on its card or shown it; for the end state, completed
    /// the deck or shown it).
    static func expected(_ dir: String) throws -> [String: (shown: Set<Visit>, reached: Set<Visit>)] {
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        var deckOf: [Visit: String] = [:]
        var completed: Set<Visit> = []
        let v = try db.prepare("SELECT kiosk_id, session_id, deck_id, deck_version, end_reason FROM visits")
        while try v.step() {
            let visit = Visit(kiosk: v.text(0), session: v.text(1))
            deckOf[visit] = "\(v.text(2))@\(v.int64(3))"
            if !v.isNull(4) && v.text(4) == "completed" { completed.insert(visit) }
        }
        var shown: [String: Set<Visit>] = [:]
        let e = try db.prepare(
            "SELECT kiosk_id, session_id, card_id, code_of FROM kiosk_events WHERE kind = 'qr_shown'")
        while try e.step() {
            let visit = Visit(kiosk: e.text(0), session: e.text(1))
            let code = e.text(3) == "end" ? "end" : "card:" + e.text(2)
            shown["\(deckOf[visit]!)|\(code)", default: []].insert(visit)
        }
        var decided: [String: Set<Visit>] = [:]
        let d = try db.prepare("SELECT kiosk_id, session_id, card_id FROM decisions")
        while try d.step() {
            let visit = Visit(kiosk: d.text(0), session: d.text(1))
            decided["\(deckOf[visit]!)|card:\(d.text(2))", default: []].insert(visit)
        }
        var out: [String: (shown: Set<Visit>, reached: Set<Visit>)] = [:]
        for (key, visits) in shown {
            let others =
                key.hasSuffix("|end")
                ? completed.filter { deckOf[$0] == String(key.dropLast(4)) } : decided[key] ?? []
            for kiosk in Set(visits.map(\.kiosk)).union(others.map(\.kiosk)) {
                let mine = visits.filter { $0.kiosk == kiosk }
                out["\(key)|\(kiosk)"] = (mine, mine.union(others.filter { $0.kiosk == kiosk }))
            }
        }
        return out
    }

    static func number(_ node: JSONNode?) -> Int? {
        if case .number(let x)? = node?.value { return Int(x) }
        return nil
    }

    @Test func codesShownMatchTheRawRows() throws {
        let dir = DeckFixtures.temporaryDirectory("report-codes")
        defer { DeckFixtures.removeTree(dir) }
        try ReportRuns.simulate(dir, seed: 21, visitors: 240, kiosk: "lobby", deck: Self.deck)
        try ReportRuns.simulate(dir, seed: 22, visitors: 160, kiosk: "garden", deck: Self.deck)
        let expected = try Self.expected(dir)
        let json = try ReportRuns.report([
            "--data", dir, "--deck-file", DeckFixtures.packageRoot + "/examples/" + Self.deck,
        ])
        let codes = try #require(json["linkCodes"]?["codes"]?.elements)
        // The deck's two cards with a code, in deck order, then the end state's.
        #expect(codes.map { $0["card"]?.stringValue ?? "end" } == ["lageplan", "gutschein", "end"])
        #expect(codes.map { $0["endState"]?.value } == [.bool(false), .bool(false), .bool(true)])
        #expect(codes.first?["title"]?.stringValue != nil)
        #expect(Self.number(json["linkCodes"]?["notRecorded"]) == 0)
        var checked = 0
        for code in codes {
            let which = code["card"]?.stringValue.map { "card:" + $0 } ?? "end"
            let key = "take-it-with-you@\(Self.number(code["version"]) ?? -1)|" + which
            var shown = 0
            var reached = 0
            for kiosk in try #require(code["kiosks"]?.elements) {
                let id = try #require(kiosk["kiosk"]?.stringValue)
                let want = try #require(expected["\(key)|\(id)"], "\(key) at \(id)")
                shown += want.shown.count
                reached += want.reached.count
                if want.reached.count < 5 {
                    #expect(kiosk["suppressed"]?.value == .bool(true), "\(key) at \(id)")
                    continue
                }
                #expect(Self.number(kiosk["shownVisits"]) == want.shown.count, "\(key) at \(id)")
                #expect(Self.number(kiosk["reachedVisits"]) == want.reached.count, "\(key) at \(id)")
                checked += 1
            }
            #expect(code["kiosks"]?.elements?.count == expected.keys.filter { $0.hasPrefix(key + "|") }.count)
            #expect(Self.number(code["shownVisits"]) == shown, "\(key)")
            #expect(Self.number(code["reachedVisits"]) == reached, "\(key)")
            #expect(shown > 0 && shown <= reached, "\(key)")
        }
        #expect(checked == 6, "both kiosks' cells of all three codes are above the privacy floor")
    }

    /// A database from before the store kept the code: its `qr_shown` row survives the migration
    /// with no card, and the report counts it as not recorded, never as one of the codes.
    @Test func oldRowsStayUnknownThroughTheMigration() throws {
        let dir = DeckFixtures.temporaryDirectory("report-codes-old")
        defer { DeckFixtures.removeTree(dir) }
        do {
            let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir))
            for sql in DecisionDatabase.migrations.prefix(7) { try db.execute(sql) }
            try db.execute("PRAGMA user_version = 7")
            try db.execute(
                """
                INSERT INTO visits (session_id, kiosk_id, deck_id, deck_version, started_wall_ms, started_monotonic_ns,
                    ended_wall_ms, end_reason, cards_shown)
                VALUES ('s1', 'lobby', 'take-it-with-you', 1, 1800000000000, 1, 1800000060000, 'completed', 3);
                INSERT INTO kiosk_events (uid, kiosk_id, kind, wall_ms, monotonic_ns)
                VALUES ('e1', 'lobby', 'qr_shown', 1800000010000, 2), ('e2', 'lobby', 'attract_shown', 1800000000000, 1);
                """)
        }
        do { _ = try DecisionDatabase.openForWriting(dataDirectory: dir) }
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        #expect(try db.scalarInt("PRAGMA user_version") == Int64(DecisionDatabase.schemaVersion))
        let row = try db.prepare("SELECT session_id, card_id, code_of FROM kiosk_events WHERE uid = 'e1'")
        #expect(try row.step())
        #expect(row.isNull(0) && row.isNull(1) && row.isNull(2))
        let json = try ReportRuns.report(["--data", dir])
        #expect(Self.number(json["linkCodes"]?["notRecorded"]) == 1)
        #expect(json["linkCodes"]?["codes"]?.elements?.isEmpty == true)
        let page = dir + "/report.html"
        let result = try #require(StoreTestSupport.run(["report", "--data", dir, "--out", page]))
        #expect(result.status == 0)
        let html = try FileIO.readText(page, limit: 8 << 20)
        #expect(html.contains("<span data-k=\"linkCodes.notRecorded\" data-f=\"int\">1</span> codes were shown"))
    }

    /// A card id and a kiosk id from a kiosk are data: on the page they are escaped text, never
    /// markup; in the JSON they read back as written.
    @Test func aHostileCardIDIsTextOnThePage() throws {
        let dir = DeckFixtures.temporaryDirectory("report-codes-hostile")
        defer { DeckFixtures.removeTree(dir) }
        let card = "</td></table><script>alert(1)</script><img src=x onerror=alert(2)>&amp;"
        let kiosk = "k\"><b>bold</b>"
        do {
            let db = try DecisionDatabase.openForWriting(dataDirectory: dir)
            try db.execute("BEGIN")
            let visit = try db.prepare(
                """
                INSERT INTO visits (session_id, kiosk_id, deck_id, deck_version, started_wall_ms, started_monotonic_ns,
                    end_reason, cards_shown)
                VALUES (?1, ?2, 'd<i>', 1, ?3, ?4, 'idle', 1)
                """)
            let event = try db.prepare(
                """
                INSERT INTO kiosk_events (uid, kiosk_id, kind, wall_ms, monotonic_ns, session_id, card_id, code_of)
                VALUES (?1, ?2, 'qr_shown', ?3, ?4, ?5, ?6, 'card')
                """)
            for n in 0..<6 {
                try visit.bind(1, "s\(n)")
                try visit.bind(2, kiosk)
                try visit.bind(3, Int64(1_800_000_000_000 + n * 60_000))
                try visit.bind(4, Int64(n))
                _ = try visit.step()
                visit.reset()
                try event.bind(1, "e\(n)")
                try event.bind(2, kiosk)
                try event.bind(3, Int64(1_800_000_001_000 + n * 60_000))
                try event.bind(4, Int64(n + 1))
                try event.bind(5, "s\(n)")
                try event.bind(6, card)
                _ = try event.step()
                event.reset()
            }
            try db.execute("COMMIT")
        }
        let json = try ReportRuns.report(["--data", dir])
        let code = try #require(json["linkCodes"]?["codes"]?.elements?.first)
        #expect(code["card"]?.stringValue == card)
        #expect(code["kiosks"]?.elements?.first?["kiosk"]?.stringValue == kiosk)
        #expect(Self.number(code["shownVisits"]) == 6 && Self.number(code["reachedVisits"]) == 6)
        let page = dir + "/report.html"
        let result = try #require(StoreTestSupport.run(["report", "--data", dir, "--out", page]))
        #expect(result.status == 0)
        let html = try FileIO.readText(page, limit: 8 << 20)
        let section = try #require(html.firstRange(of: "<section id=\"codes\">"))
        let end = try #require(html[section.lowerBound...].firstRange(of: "</section>"))
        let codes = String(html[section.lowerBound..<end.upperBound])
        #expect(!codes.contains("<script") && !codes.contains("<img") && !codes.contains("<b>"))
        #expect(codes.contains(Escape.htmlText(card)))
        #expect(codes.contains(Escape.htmlText(kiosk)))
        #expect(codes.contains(Escape.htmlText("d<i>@1")))
        // The table keeps its rows: one for all kiosks, one for the kiosk.
        #expect(codes.ranges(of: "<tr").count == 3)
    }
}
