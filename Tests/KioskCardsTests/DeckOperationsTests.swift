import CardModel
import Glibc
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
