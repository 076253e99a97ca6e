import CardModel
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskStore
@testable import KioskSystem

/// Deck texts in several languages: both JSON shapes, their errors, the missing-translation
/// warnings of `check-deck`, the deck as a visitor sees it, and the language stored per decision.
@Suite struct DeckTranslationTests {
    func parse(_ json: String) -> Result<DeckFile, DeckProblems> {
        DeckParser.parse(bytes: Array(json.utf8), path: "d.json", checkImage: { .ok($0) })
    }

    static let twoLanguages = twoLanguages(listing: "")

    static func twoLanguages(listing: String) -> String {
        """
        {"id": "d", "version": 1, "layout": "stack", "language": "de",\(listing)
         "title": {"de": "Willkommen", "en": "Welcome"},
         "swipe": {"left": {"de": "Später", "en": "Later"}, "right": "Verstanden"},
         "cards": [
          {"id": "a", "title": {"de": "Kaffee", "en": "Coffee"}, "subtitle": {"de": "heiß", "en": "hot"}, "color": "#336699"},
          {"id": "b", "title": "Nur Deutsch", "color": "#336699"}
         ]}
        """
    }

    @Test func readsBothShapesAndKeepsTheDefaultLanguageAsTheBase() throws {
        let deck = try parse(Self.twoLanguages).get()
        #expect(deck.title == "Willkommen" && deck.leftLabel == "Später" && deck.rightLabel == "Verstanden")
        #expect(deck.languages == ["de", "en"])
        #expect(deck.cards[0].title == "Kaffee")
        #expect(deck.cards[0].localizedTitle?.texts == ["de": "Kaffee", "en": "Coffee"])
        #expect(deck.cards[1].localizedTitle == nil)
        let en = deck.localized(to: "en")
        #expect(en.title == "Welcome" && en.leftLabel == "Later")
        #expect(en.rightLabel == "Verstanden")  // not translated: the deck's own language
        #expect(en.cards.map(\.title) == ["Coffee", "Nur Deutsch"] && en.cards[0].subtitle == "hot")
        // Texts the deck leaves out are the kiosk's own words in the visitor's language.
        #expect(en.emptyText == "All cards done!" && en.attractText == "Tap to start")
        #expect(deck.localized(to: "de").emptyText == "Alle Karten erledigt!")
        #expect(deck.localized(to: "sv").emptyText == "All cards done!")
        #expect(deck.localized(to: "fr").title == "Willkommen")
    }

    @Test func anOldOneLanguageDeckIsUnchanged() throws {
        let json = """
            {"id": "d", "version": 1, "title": "T", "layout": "stack",
             "cards": [{"id": "a", "title": "A", "subtitle": "s", "color": "#336699"}]}
            """
        let deck = try parse(json).get()
        #expect(deck.languages == ["de"] && deck.warnings.isEmpty)
        #expect(deck.localized(to: "de").cards == deck.cards)
        #expect(deck.localized(to: "de").leftLabel == DeckFile.defaultLeftLabel)
        #expect(deck.localized(to: "de").warningText == InactivityWarning.defaultText)
    }

    @Test func warnsWithLineAndFieldAboutMissingTranslations() throws {
        let deck = try parse(Self.twoLanguages).get()
        let w = deck.warnings.map { $0.formatted(file: "d.json") }
        #expect(w.contains { $0.hasPrefix("d.json:3:62: warning: swipe.right: no text in \"en\"") })
        #expect(w.contains { $0.hasPrefix("d.json:6:24: warning: cards[1].title: no text in \"en\"") })
        #expect(!w.contains { $0.contains("cards[0].title") })
        #expect(w.count == 2)
        // "languages" lists one more: every text lacks it.
        // title, swipe.left, cards[0].title and .subtitle lack "fr"; swipe.right, cards[1].title lack both.
        let more = try parse(Self.twoLanguages(listing: " \"languages\": [\"en\", \"fr\"],")).get()
        #expect(more.languages == ["de", "en", "fr"])
        #expect(more.warnings.count == 6)
        #expect(more.warnings.allSatisfy { $0.message.contains("\"fr\"") && $0.isWarning })
    }

    @Test func reportsBadTranslationsWithLineAndField() {
        let json = """
            {"id": "d", "version": 1, "layout": "stack", "language": "de",
             "title": {"en": "Welcome"},
             "cards": [{"id": "a", "title": {"de": "A", "english": "B", "fr": 3}, "color": "#336699"},
                       {"id": "b", "title": {"de": "A", "de": "B"}, "color": "#336699"},
                       {"id": "c", "title": ["A"], "subtitle": {"de": ""}, "color": "#336699"}]}
            """
        guard case .failure(let problems) = parse(json) else {
            Issue.record("accepted")
            return
        }
        let lines = problems.problems.map { $0.formatted(file: "d.json") }
        #expect(lines.contains { $0.hasPrefix("d.json:2:11: error: title: no \"de\" text (the deck's language") })
        #expect(
            lines.contains {
                $0.hasPrefix("d.json:3:45: error: cards[0].title.english: \"english\" is no language tag")
            })
        #expect(lines.contains { $0.hasPrefix("d.json:3:67: error: cards[0].title.fr: expected a string") })
        #expect(lines.contains { $0.hasPrefix("d.json:4:45: error: cards[1].title.de: language \"de\" appears twice") })
        #expect(lines.contains { $0.contains("cards[2].title: expected a string or an object of texts by language") })
        #expect(!lines.contains { $0.contains("cards[2].subtitle") })  // an empty body is allowed
    }

    @Test func checkDeckPrintsTheWarningsAndStillAccepts() {
        let dir = DeckFixtures.temporaryDirectory("translations")
        defer { DeckFixtures.removeTree(dir) }
        DeckFixtures.write(Self.twoLanguages, to: dir + "/d.json")
        let outcome = CheckDeckCommand.evaluate(arguments: [dir + "/d.json"])
        #expect(outcome.status == 0)
        #expect(outcome.warnings.filter { $0.contains(": warning: ") && $0.contains("no text in") }.count == 2)
        let example = CheckDeckCommand.evaluate(arguments: [RenderDeckTests.examples + "/multilingual.json"])
        #expect(example.status == 0 && example.warnings.isEmpty, "\(example.warnings)")
    }

    /// `check-deck --language TAG` warns about a deck that does not offer the kiosk's language,
    /// naming the language, the file and the fix, and still accepts it.
    @Test func checkDeckWarnsWhenTheKiosksLanguageIsNotInTheDeck() {
        let german = RenderDeckTests.examples + "/onboarding.json"
        let outcome = CheckDeckCommand.evaluate(arguments: ["--language", "ar", german])
        #expect(outcome.status == 0)
        let lines = outcome.warnings.filter { $0.hasPrefix(german + ": warning: language: ") }
        #expect(lines.count == 1, "\(outcome.warnings)")
        #expect(lines.first?.contains("\"ar\" is not in this deck, which offers de") == true, "\(lines)")
        #expect(lines.first?.contains("set language = de") == true, "\(lines)")
        let offered = CheckDeckCommand.evaluate(
            arguments: ["--language", "ar", RenderDeckTests.examples + "/multilingual.json"])
        #expect(offered.status == 0 && offered.warnings.isEmpty, "\(offered.warnings)")
        #expect(CheckDeckCommand.evaluate(arguments: ["--language", "arabic", german]).status == 2)
    }

    @Test func theMultilingualExampleCarriesSixLanguages() throws {
        let deck = try GoldenImageTests.example("multilingual.json")
        #expect(deck.languages == ["de", "en", "fr", "tr", "ar", "zh"])
        #expect(deck.localized(to: "ar").cards[0].title == "مرحباً بك!")
        #expect(deck.localized(to: "zh").leftLabel == "稍后")
    }

    @Test func eachDecisionStoresTheVisitorsLanguage() throws {
        let dir = DeckFixtures.temporaryDirectory("store-language")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir + "/data")
        var ar = StoreTestSupport.record(0)
        ar.language = "ar"
        let unknown = StoreTestSupport.record(1)
        _ = try #require(store.enqueue(ar))
        _ = try #require(store.enqueue(unknown))
        #expect(store.flush(stalledFor: 60))
        store.close()
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir + "/data"), create: false)
        #expect(try db.scalarText("SELECT language FROM decisions WHERE id = 1") == "ar")
        #expect(try db.scalarText("SELECT coalesce(language, 'null') FROM decisions WHERE id = 2") == "null")
        #expect(try db.scalarInt("PRAGMA user_version") == Int64(DecisionDatabase.migrations.count))
    }
}
