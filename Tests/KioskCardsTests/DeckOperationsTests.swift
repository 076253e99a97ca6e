import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskSystem

/// The deck keys of the operations issue: warning, partialVisit, cooldown, shuffle, schedule.
@Suite struct DeckOperationsTests {
    static let cards = """
        "cards": [
            {"id": "intro", "title": "Hallo", "theme": "sky"},
            {"id": "a", "title": "A", "theme": "teal"},
            {"id": "b", "title": "B", "theme": "teal"},
            {"id": "thanks", "title": "Danke", "theme": "sky"}
          ]
        """

    /// Loads a deck whose root holds `extra` (JSON members with a trailing comma) before the cards.
    func load(_ extra: String) -> Result<DeckFile, DeckProblems> {
        let dir = DeckFixtures.temporaryDirectory("deck-ops")
        defer { DeckFixtures.removeTree(dir) }
        let text = """
            {
              "id": "ops", "version": 1, "title": "Ops", "layout": "stack",
              \(extra)
              \(Self.cards)
            }
            """
        DeckFixtures.write(text, to: dir + "/deck.json")
        return DeckLoader.load(path: dir + "/deck.json")
    }

    func problems(_ extra: String) -> [DeckProblem] {
        guard case .failure(let p) = load(extra) else { return [] }
        return p.problems
    }

    @Test func defaultsKeepFileOrderAndAllVisits() throws {
        let deck = try load("").get()
        #expect(deck.warningSeconds == nil)
        #expect(deck.warningText == InactivityWarning.defaultText)
        #expect(deck.partialVisit == .keep)
        #expect(deck.cooldownSeconds == 0)
        #expect(deck.order == VisitOrder())
    }

    @Test func readsWarningPolicyCooldownAndShuffleWithPins() throws {
        let deck = try load(
            """
            "idleTimeout": 45, "warning": 15, "warningText": "Weiter?", "partialVisit": "discard", "cooldown": 0.8,
            "shuffle": {"pinFirst": ["intro"], "pinLast": ["thanks"]},
            """
        ).get()
        #expect(deck.warningSeconds == 15)
        #expect(deck.warningText == "Weiter?")
        #expect(deck.partialVisit == .discard)
        #expect(deck.cooldownSeconds == 0.8)
        #expect(deck.order == VisitOrder(shuffle: true, pinnedFirst: ["intro"], pinnedLast: ["thanks"]))
        #expect(try load("\"shuffle\": true,").get().order == VisitOrder(shuffle: true))
        let config = KioskConfig()
        let policy = config.sessionPolicy(deck: deck)
        #expect(policy.warningSeconds == 15)
        #expect(policy.idleTimeout == 45)
        #expect(policy.partialVisit == .discard)
        var accessible = config
        accessible.accessibleMode = true
        #expect(accessible.sessionPolicy(deck: deck).warningSeconds == 20)
    }

    @Test func badOperationsKeysNameLineAndField() {
        let p = problems(
            """
            "idleTimeout": 20, "warning": 30, "partialVisit": "toss",
            "cooldown": -1, "shuffle": {"pinFirst": ["intro", "nope"], "pinLast": ["intro"]},
            """)
        let byPath = Dictionary(p.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byPath["warning"]?.message.contains("longer than idleTimeout") == true)
        #expect(byPath["warning"]?.position?.line == 3)
        #expect(byPath["partialVisit"]?.message.contains("\"keep\"") == true)
        #expect(byPath["cooldown"]?.message.contains("0 to 60") == true)
        #expect(byPath["cooldown"]?.position?.line == 4)
        #expect(byPath["shuffle.pinFirst[1]"]?.message.contains("no card has the id \"nope\"") == true)
        #expect(byPath["shuffle.pinLast[0]"]?.message.contains("already pinned at line 4") == true)
    }
}

@Suite struct DeckScheduleTests {
    func load(_ schedule: String) -> Result<DeckFile, DeckProblems> {
        DeckOperationsTests().load("\"schedule\": \(schedule),\n")
    }

    @Test func readsWindowsDatesAndClosedScreen() throws {
        let deck = try load(
            """
            {"open": [{"days": ["mon-fri"], "from": "08:00", "to": "18:00"},
                      {"days": ["sat", "sun"], "from": "22:00", "to": "02:00"},
                      {"dates": ["2026-12-26", "2026-12-26"], "days": ["sat"], "from": "09:00", "to": "12:00"}],
             "closedDates": ["2026-12-25"], "closedText": "Ab 8 Uhr wieder da", "blank": true, "wakeOnTouch": false}
            """
        ).get()
        let s = try #require(deck.schedule)
        #expect(s.windows.count == 3)
        #expect(s.windows[0].days == [.mon, .tue, .wed, .thu, .fri])
        #expect(s.windows[1].spansMidnight)
        #expect(
            s.windows[2].dates == CivilDate(year: 2026, month: 12, day: 26)...CivilDate(year: 2026, month: 12, day: 26))
        #expect(s.closedDates == [CivilDate(year: 2026, month: 12, day: 25)])
        #expect(s.closedText == "Ab 8 Uhr wieder da")
        #expect(s.blankWhenClosed && !s.wakeOnTouch)
        #expect(DeckParser.dayNames("fri-mon") == [.fri, .sat, .sun, .mon])
        #expect(DeckParser.dayNames("daily")?.count == 7)
    }

    @Test func badSchedulesNameLineAndField() throws {
        guard
            case .failure(let p) = load(
                """
                {"open": [{"days": ["mon-fri"], "from": "08:00", "to": "18:00"},
                          {"days": ["fri"], "from": "17:00", "to": "20:00"},
                          {"days": ["sunday"], "from": "25:00", "to": "08:00"},
                          {"from": "09:00", "to": "09:00", "dates": ["2026-12-24", "2026-12-01"]}],
                 "closedDates": ["2026-02-30"]}
                """)
        else {
            Issue.record("a bad schedule was accepted")
            return
        }
        func problem(_ path: String) -> DeckProblem? { p.problems.first { $0.path == path } }
        let overlap = try #require(problem("schedule.open[1]"))
        #expect(overlap.message.contains("overlaps window 0 (line 3) on fri"))
        #expect(overlap.position?.line == 4)
        #expect(problem("schedule.open[2].days[0]")?.message.contains("unknown day \"sunday\"") == true)
        #expect(problem("schedule.open[2].from")?.message.contains("not a time of day") == true)
        #expect(problem("schedule.open[3].to")?.message.contains("empty window") == true)
        #expect(problem("schedule.open[3].dates")?.message.contains("backwards") == true)
        #expect(problem("schedule.closedDates[0]")?.message.contains("does not exist") == true)
        let line = p.description.split(separator: "\n").first { $0.contains("overlaps") }
        #expect(line?.contains(":4:") == true && line?.contains("error: schedule.open[1]: ") == true)
    }

    @Test func anOverlapAfterABadWindowNamesTheWindowsAsWritten() {
        guard
            case .failure(let p) = load(
                """
                {"open": [{"from": "25:00", "to": "08:00"},
                          {"from": "08:00", "to": "12:00"},
                          {"from": "11:00", "to": "13:00"}]}
                """)
        else {
            Issue.record("accepted")
            return
        }
        let overlap = p.problems.first { $0.message.contains("overlaps") }
        #expect(overlap?.path == "schedule.open[2]")
        #expect(overlap?.message.contains("overlaps window 1 (line 4)") == true)
    }

    @Test func checkDeckRejectsAnOverlappingSchedule() throws {
        let dir = DeckFixtures.temporaryDirectory("check-schedule")
        defer { DeckFixtures.removeTree(dir) }
        DeckFixtures.write(
            """
            {"id": "s", "version": 1, "title": "S", "layout": "stack",
             "schedule": {"open": [{"from": "08:00", "to": "12:00"}, {"from": "11:00", "to": "13:00"}]},
             "cards": [{"id": "a", "title": "A", "theme": "sky"}]}
            """, to: dir + "/deck.json")
        let r = CheckDeckCommand.evaluate(arguments: [dir + "/deck.json"])
        #expect(r.status == 2)
        let text = r.problems.joined(separator: "\n")
        #expect(text.contains("deck.json:2:") && text.contains("schedule.open[1]"), "\(text)")
    }
}
