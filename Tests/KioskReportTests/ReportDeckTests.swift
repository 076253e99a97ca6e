import Glibc
import KioskTestSupport
import Testing

@testable import KioskStore
@testable import KioskSystem

/// Figures that mean what they say, each recomputed here from the raw rows of seeded
/// simulations (plain SQL, aggregated in Swift): the funnel and drop-off are per deck version and
/// never count a completed visit as stopping, and the first card's "too fast" share is no artefact
/// of when its clock starts.
@Suite(.serialized) struct ReportDeckTests {
    struct Visit {
        var deck = ""
        var furthest = -1
        var completed = false
    }

    /// Every visit with a positioned decision, by kiosk and session, from the raw tables.
    static func visits(_ dir: String) throws -> [String: Visit] {
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        var out: [String: Visit] = [:]
        let rows = try db.prepare(
            "SELECT kiosk_id, session_id, deck_id, deck_version, position FROM decisions"
                + " WHERE action <> 'undone' AND position IS NOT NULL")
        while try rows.step() {
            let key = rows.text(0) + "\u{1}" + rows.text(1)
            var v = out[key] ?? Visit()
            v.deck = rows.text(2) + "@" + String(rows.int64(3))
            v.furthest = max(v.furthest, Int(rows.int64(4)))
            out[key] = v
        }
        let ends = try db.prepare("SELECT kiosk_id, session_id FROM visits WHERE end_reason = 'completed'")
        while try ends.step() { out[ends.text(0) + "\u{1}" + ends.text(1)]?.completed = true }
        return out
    }

    @Test func dropOffIsPerDeckVersionAndNeverCountsACompletedVisit() throws {
        let dir = DeckFixtures.temporaryDirectory("report-decks")
        defer { DeckFixtures.removeTree(dir) }
        // Five cards on one kiosk, six on the other.
        try ReportRuns.simulate(dir, seed: 31, visitors: 150, kiosk: "hall-a")
        try ReportRuns.simulate(dir, seed: 32, visitors: 150, kiosk: "hall-b", deck: "quiz-flashcards.json")
        let json = try ReportRuns.report(["--data", dir])
        let visits = try Self.visits(dir)
        let decks = try #require(json["decks"]?.elements)
        #expect(decks.compactMap { $0["name"]?.stringValue } == ["quiz-hauptstaedte@1", "seed-stack@1"])
        var lengths: [Int] = []
        for deck in decks {
            let name = try #require(deck["name"]?.stringValue)
            let mine = visits.values.filter { $0.deck == name }
            let reached = try #require(deck["reached"]?.elements)
            lengths.append(reached.count)
            #expect(mine.contains { $0.completed }, "\(name): some visits completed the deck")
            for step in reached {
                let p = Int(try #require(ReportRuns.number(step["position"])))
                // Positions are 1-based: position p is the p-th card, stored as p − 1.
                let atLeast = mine.filter { $0.furthest + 1 >= p }.count
                let stopped = mine.filter { !$0.completed && $0.furthest + 1 == p }.count
                let done = mine.filter { $0.completed && $0.furthest + 1 == p }.count
                #expect(ReportRuns.number(step["visits"]) == Double(atLeast), "\(name) \(p)")
                #expect(ReportRuns.number(step["stoppedHere"]) == Double(stopped), "\(name) \(p)")
                #expect(ReportRuns.number(step["completedHere"]) == Double(done), "\(name) \(p)")
            }
            // The last card is where a completed visit stops: none of those is drop-off there.
            let last = try #require(reached.last)
            let completedAtLast = mine.filter { $0.completed && $0.furthest + 1 == reached.count }.count
            #expect(completedAtLast > 0)
            #expect(ReportRuns.number(last["stoppedHere"])! < Double(completedAtLast), "\(name)")
        }
        #expect(lengths == [6, 5])
    }

    /// Visitors who do not rush (the simulation's swipes: its button-mashers only press buttons):
    /// the first card's "too fast" share (dwell < 300 ms) is within a
    /// percentage point of the other cards', recomputed from the raw rows; and the report's
    /// share for the first card is the raw rows' (final answers outside suspected mashing).
    @Test func theFirstCardIsNotTooFastByArtefact() throws {
        let dir = DeckFixtures.temporaryDirectory("report-too-fast")
        defer { DeckFixtures.removeTree(dir) }
        try ReportRuns.simulate(dir, seed: 41, visitors: 500)
        let rows = try ReportTests.rows(dir)
        var bySession: [String: [ReportTests.Row]] = [:]
        for r in rows { bySession[r.session, default: []].append(r) }
        var last: [String: ReportTests.Row] = [:]
        for r in rows { last[r.session + "\u{1}" + r.card] = r }
        let finals = last.values.filter {
            ($0.action == "swipedLeft" || $0.action == "swipedRight") && $0.position != nil
        }
        let swiped = finals.filter { $0.method == "swipe" }
        let first = swiped.filter { $0.position == 0 }
        let others = swiped.filter { $0.position != 0 }
        #expect(first.count > 300 && others.count > 1000, "\(first.count) \(others.count)")
        let firstShare = Double(first.filter { $0.dwell < 300 }.count) / Double(first.count)
        let otherShare = Double(others.filter { $0.dwell < 300 }.count) / Double(others.count)
        #expect(abs(firstShare - otherShare) <= 0.01, "first card \(firstShare), others \(otherShare)")
        // The first card's median time to decide is a visitor's, not the attract screen's wait.
        let dwells = first.map(\.dwell).sorted()
        #expect(ReportTests.nearestRank(dwells, 0.5) < 10_000, "median \(ReportTests.nearestRank(dwells, 0.5)) ms")

        let mashing = Set(
            bySession.filter { _, list in
                let lr = list.filter { $0.action == "swipedLeft" || $0.action == "swipedRight" }
                return lr.count >= 4 && Set(lr.map(\.action)).count == 1
                    && lr.allSatisfy { $0.dwell < 700 || $0.position == 0 }
            }.keys)
        let counted = finals.filter { $0.position == 0 && !mashing.contains($0.session) }
        let json = try ReportRuns.report(["--data", dir])
        let cards = try #require(json["cards"]?.elements)
        let firstCard = try #require(cards.first { ReportRuns.number($0["position"]) == 1 })
        let share = Double(counted.filter { $0.dwell < 300 }.count) / Double(counted.count)
        #expect(abs(ReportRuns.number(firstCard["tooFastShare"])! - share) < 1e-6)
    }
}
