import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskSystem

@Suite struct DeckParserTests {
    /// A bad fixture and the problem it must produce.
    struct BadCase: CustomTestStringConvertible, Sendable {
        var file: String
        var kind: DeckProblem.Kind
        var path: String
        var line: Int
        var column: Int
        var mentions: String
        var testDescription: String { file }
    }

    static let badCases: [BadCase] = [
        BadCase(
            file: "unknown-colour.json", kind: .unknownColor, path: "cards[1].color", line: 8, column: 41,
            mentions: "#RRGGBB"),
        BadCase(
            file: "unknown-theme.json", kind: .unknownTheme, path: "cards[0].theme", line: 7, column: 41,
            mentions: "did you mean \"sky\""),
        BadCase(
            file: "duplicate-card-id.json", kind: .duplicateCardID, path: "cards[2].id", line: 9, column: 13,
            mentions: "line 7"),
        BadCase(
            file: "missing-image.json", kind: .missingImage, path: "cards[0].image", line: 7, column: 61,
            mentions: "img/nope.png"),
        BadCase(
            file: "image-outside.json", kind: .imageOutsideDeck, path: "cards[0].image", line: 7, column: 61,
            mentions: "outside the deck's folder"),
        BadCase(
            file: "image-absolute.json", kind: .imageOutsideDeck, path: "cards[0].image", line: 7, column: 61,
            mentions: "/etc/hostname"),
        BadCase(
            file: "image-not-png.json", kind: .unsupportedImage, path: "cards[0].image", line: 7, column: 61,
            mentions: "not a PNG"),
        BadCase(
            file: "wrong-type-title.json", kind: .wrongType, path: "cards[0].title", line: 7, column: 27,
            mentions: "found an integer"),
        BadCase(
            file: "wrong-type-tags.json", kind: .wrongType, path: "cards[0].tags", line: 7, column: 60,
            mentions: "array of strings"),
        BadCase(
            file: "wrong-type-version.json", kind: .wrongType, path: "version", line: 3, column: 14,
            mentions: "found a string"),
        BadCase(
            file: "cards-not-array.json", kind: .wrongType, path: "cards", line: 6, column: 12,
            mentions: "found an object"),
        BadCase(file: "not-an-object.json", kind: .wrongType, path: "", line: 1, column: 1, mentions: "found an array"),
        BadCase(
            file: "unknown-key.json", kind: .unknownKey, path: "idleTimout", line: 6, column: 3,
            mentions: "did you mean \"idleTimeout\""),
        BadCase(
            file: "unknown-card-key.json", kind: .unknownKey, path: "cards[0].subtitel", line: 7, column: 52,
            mentions: "did you mean \"subtitle\""),
        BadCase(
            file: "duplicate-key.json", kind: .duplicateKey, path: "cards[0].title", line: 7, column: 32,
            mentions: "twice"),
        BadCase(
            file: "color-and-theme.json", kind: .conflictingKeys, path: "cards[0].theme", line: 7, column: 52,
            mentions: "not both"),
        BadCase(
            file: "missing-colour.json", kind: .missingKey, path: "cards[0].color", line: 7, column: 5,
            mentions: "theme"),
        BadCase(
            file: "missing-title.json", kind: .missingKey, path: "title", line: 1, column: 1,
            mentions: "missing \"title\""),
        BadCase(
            file: "bad-layout.json", kind: .invalidValue, path: "layout", line: 5, column: 13,
            mentions: "\"stack\" or \"list\""),
        BadCase(
            file: "empty-stack.json", kind: .emptyDeck, path: "cards", line: 6, column: 12,
            mentions: "at least one card"),
        BadCase(
            file: "idle-out-of-range.json", kind: .invalidValue, path: "idleTimeout", line: 6, column: 18,
            mentions: "5 to 86400"),
        BadCase(
            file: "missing-comma.json", kind: .malformedJSON, path: "", line: 4, column: 3, mentions: "missing comma"),
        BadCase(
            file: "trailing-comma.json", kind: .malformedJSON, path: "", line: 6, column: 61, mentions: "trailing comma"
        ),
        BadCase(
            file: "unterminated-string.json", kind: .malformedJSON, path: "", line: 2, column: 14,
            mentions: "starts at 2:9"),
        BadCase(file: "invalid-utf8.json", kind: .invalidUTF8, path: "", line: 3, column: 14, mentions: "UTF-8"),
    ]

    @Test(arguments: badCases)
    func badDeckNamesProblemAndField(_ c: BadCase) throws {
        let result = DeckLoader.load(path: DeckFixtures.bad(c.file))
        guard case .failure(let problems) = result else {
            Issue.record("\(c.file) was accepted")
            return
        }
        let problem = try #require(problems.problems.first { $0.kind == c.kind })
        #expect(problem.path == c.path)
        #expect(problem.position == TextPosition(line: c.line, column: c.column))
        #expect(problem.message.contains(c.mentions), "\(problem.message)")
        let line = problem.formatted(file: c.file)
        #expect(line.hasPrefix("\(c.file):\(c.line):\(c.column): error: "))
        if !c.path.isEmpty { #expect(line.contains(" \(c.path): ")) }
    }

    @Test func everyBadFixtureIsCovered() {
        let covered = Set(Self.badCases.map(\.file) + ["many-problems.json"])
        #expect(Set(DeckFixtures.jsonFiles(in: DeckFixtures.decks + "/bad")) == covered)
    }

    @Test func everyProblemIsReportedInFileOrder() throws {
        let result = DeckLoader.load(path: DeckFixtures.bad("many-problems.json"))
        guard case .failure(let problems) = result else {
            Issue.record("many-problems.json was accepted")
            return
        }
        let found = problems.problems.map { "\($0.kind):\($0.path)@\($0.position!.line)" }
        #expect(
            found == [
                "invalidValue:version@3", "unknownKey:swipe.rigth@6", "unknownColor:cards[0].color@8",
                "duplicateCardID:cards[1].id@9", "invalidValue:cards[1].title@9", "missingImage:cards[2].image@10",
            ])
    }

    @Test(arguments: DeckFixtures.jsonFiles(in: DeckFixtures.decks + "/good"))
    func goodDeckLoads(_ name: String) {
        let result = DeckLoader.load(path: DeckFixtures.good(name))
        if case .failure(let problems) = result { Issue.record("\(problems)") }
    }

    @Test func fieldsBecomeCards() throws {
        let deck = try DeckLoader.load(path: DeckFixtures.good("list-themes.json")).get()
        #expect(deck.id == "list.themes_2")
        #expect(deck.version == 7)
        #expect(deck.layout == .list)
        #expect(deck.leftLabel == "Löschen")
        #expect(deck.rightLabel == DeckFile.defaultRightLabel)
        #expect(deck.emptyText == DeckFile.defaultEmptyText)
        #expect(deck.attractText == DeckFile.defaultAttractText)
        #expect(deck.idleTimeoutSeconds == 90.5)
        #expect(deck.cards.map(\.id) == ["navy", "yellow"])
        #expect(deck.cards[0].subtitle == "dark")
        #expect(deck.cards[0].tags == ["dark", "blue"])
        #expect(deck.cards[0].color == Theme.navy.mainColor)
        #expect(deck.cards[0].accent == Theme.navy.accentColor)
        #expect(deck.cards[1].color == Theme.yellow.mainColor)
    }

    @Test func plainColoursGetAReadableAccent() throws {
        let deck = try DeckLoader.load(path: DeckFixtures.good("with-image.json")).get()
        // #102030 is dark: white text; #FAFAFA is light: black text.
        #expect(deck.cards[0].accent == .white)
        #expect(deck.cards[1].accent == .black)
        for card in deck.cards {
            #expect(card.color.contrastRatio(with: card.accent) >= 4.5)
        }
    }

    @Test func imagePathsResolveInsideTheDeckFolder() throws {
        let deck = try DeckLoader.load(path: DeckFixtures.good("with-image.json")).get()
        let expected = try #require(PathName.realPath(DeckFixtures.good("img/dot.png")))
        #expect(deck.cards.map(\.imagePath) == [expected, expected])
    }

    @Test func unicodeAndEscapesSurvive() throws {
        let deck = try DeckLoader.load(path: DeckFixtures.good("bom-unicode.json")).get()
        #expect(deck.title == "Grüße 😀 aus Köln")
        #expect(deck.attractText == "\"Tippen\" / tap\n")
        #expect(deck.cards[0].id == "✓")
        #expect(deck.cards[0].title == "日本")
    }

    @Test func symlinkOutOfTheDeckFolderIsRefused() throws {
        let dir = DeckFixtures.temporaryDirectory("symlink")
        defer { DeckFixtures.removeTree(dir) }
        #expect(symlink(DeckFixtures.decks + "/outside.png", dir + "/escape.png") == 0)
        DeckFixtures.write(
            """
            {"id": "s", "version": 1, "title": "S", "layout": "stack",
             "cards": [{"id": "a", "title": "A", "color": "#000000", "image": "escape.png"}]}
            """, to: dir + "/deck.json")
        guard case .failure(let problems) = DeckLoader.load(path: dir + "/deck.json") else {
            Issue.record("a symlink out of the deck folder was accepted")
            return
        }
        #expect(problems.problems.map(\.kind) == [.imageOutsideDeck])
        #expect(problems.problems.first?.position == TextPosition(line: 2, column: 67))
    }

    @Test func unreadableFileIsAProblemNotACrash() {
        guard case .failure(let problems) = DeckLoader.load(path: "/nonexistent/deck.json") else {
            Issue.record("a missing file was accepted")
            return
        }
        #expect(problems.problems.map(\.kind) == [.unreadableFile])
        #expect(problems.description.contains("check the path"))
    }

    @Test func examplesAreValid() throws {
        let examples = DeckFixtures.packageRoot + "/examples"
        let files =
            DeckFixtures.jsonFiles(in: examples).map { examples + "/" + $0 } + [examples + "/products/products.json"]
        #expect(files.count >= 4)
        for file in files {
            switch DeckLoader.load(path: file) {
            case .success(let deck): #expect(!deck.cards.isEmpty, "\(file)")
            case .failure(let problems): Issue.record("\(problems)")
            }
        }
        let products = try DeckLoader.load(path: examples + "/products/products.json").get()
        #expect(products.imageCount == products.cards.count)
        let seed = try DeckLoader.load(path: examples + "/onboarding.json").get()
        #expect(seed.cards.count == 5)
        #expect(seed.layout == .stack)
        let list = try DeckLoader.load(path: examples + "/seed-list.json").get()
        #expect(list.title == "Color Cards")
        #expect(list.layout == .list)
    }

    @Test func checkDeckCommandReportsEveryFileAndExitsTwo() {
        let good = CheckDeckCommand.evaluate(arguments: [DeckFixtures.good("minimal-stack.json")])
        #expect(good.status == 0)
        #expect(good.problems.isEmpty)
        #expect(good.summaries.count == 1)
        #expect(good.summaries[0].contains("valid — deck 'minimal' v1"))

        let bad = CheckDeckCommand.evaluate(arguments: [
            DeckFixtures.bad("many-problems.json"), DeckFixtures.good("minimal-stack.json"),
        ])
        #expect(bad.status == 2)
        #expect(bad.problems.count == 7)  // six problems and the count line
        #expect(bad.problems.last?.hasSuffix("6 problems; the deck was not accepted") == true)
        #expect(bad.summaries.count == 1)

        #expect(CheckDeckCommand.evaluate(arguments: []).status == 2)
        #expect(CheckDeckCommand.evaluate(arguments: ["--frob"]).status == 2)
    }

    /// `seed-stack.json` is the seed's own deck: Karte 1–5 in SwiftUI's system colours.
    @Test func seedStackIsTheSeedsDeck() throws {
        let seed = try DeckLoader.load(path: RenderDeckTests.examples + "/seed-stack.json").get()
        #expect(seed.layout == .stack)
        #expect(seed.cards.map(\.title) == (1...5).map { "Karte \($0)" })
        #expect(
            seed.cards.map(\.subtitle) == [
                "Erste Information", "Zweite Information", "Dritte Information", "Vierte Information",
                "Fünfte Information",
            ])
        // .blue, .purple, .green, .orange, .pink (iOS light appearance).
        #expect(seed.cards.map(\.color) == [0x007AFF, 0xAF52DE, 0x34C759, 0xFF9500, 0xFF2D55].map { Color(rgb: $0) })
    }

    /// WCAG 1.1.1: a card's "alt" says what its image shows — in the visitor's language, read by
    /// speech after the subtitle; an image without one is a warning at its line (the deck loads).
    @Test func imageDescriptionsAreSpokenAndAMissingOneIsAWarning() throws {
        let dir = DeckFixtures.temporaryDirectory("alt")
        defer { DeckFixtures.removeTree(dir) }
        let png = try FileIO.readAll(RenderDeckTests.examples + "/products/images/bottle.png", limit: 1 << 20)
        DeckFixtures.writeBytes(png, to: dir + "/a.png")
        let path = dir + "/deck.json"
        DeckFixtures.write(
            """
            {
              "id": "alt", "version": 1, "title": "Alt", "layout": "stack", "language": "de",
              "languages": ["de", "en"],
              "cards": [
                { "id": "a", "title": "Flasche", "color": "#0277BD", "image": "a.png",
                  "alt": { "de": "Bild: eine blaue Flasche", "en": "Picture: a blue bottle" } },
                { "id": "b", "title": "Noch eine", "color": "#0277BD",
                  "image": "a.png" }
              ]
            }
            """, to: path)
        let file = try DeckLoader.load(path: path).get()
        #expect(file.cards[0].imageDescription == "Bild: eine blaue Flasche")
        #expect(file.cards[0].localized(to: "en").imageDescription == "Picture: a blue bottle")
        #expect(file.cards[1].imageDescription.isEmpty)
        let warnings = file.warnings.filter { $0.kind == .missingImageDescription }
        #expect(warnings.map(\.path) == ["cards[1].alt"] && warnings.first?.position?.line == 8)
        let panel = ScreenMetrics(size: Size(width: 800, height: 480), pointsPerMillimetre: 5.25)
        let deck = StackDeck(cards: file.localized(to: "en").cards, metrics: panel, options: StackOptions())
        #expect(deck.spokenText.hasPrefix("Flasche. Picture: a blue bottle"), "\(deck.spokenText)")
        let checked = CheckDeckCommand.evaluate(arguments: [path])
        #expect(
            checked.status == 0
                && checked.warnings.contains { $0.contains("cards[1].alt") && $0.contains("WCAG 1.1.1") })
    }

    /// A title the card would cut is a warning at its line and field; the deck stays valid.
    @Test func checkDeckWarnsAboutTextTheCardWouldCut() {
        let file = DeckFixtures.good("cut-text.json")
        let out = CheckDeckCommand.evaluate(arguments: [file])
        #expect(out.status == 0)
        #expect(out.problems.isEmpty)
        #expect(out.warnings.count == 1)
        #expect(out.warnings.first?.hasPrefix(file + ":9:16: warning: cards[1].title: ") == true, "\(out.warnings)")
        // The shipped decks fit.
        let shippedDecks = [
            "seed-stack.json", "onboarding.json", "quiz-flashcards.json", "opening-hours.json",
            "products/products.json",
        ]
        for deck in shippedDecks {
            let shipped = CheckDeckCommand.evaluate(arguments: [RenderDeckTests.examples + "/" + deck])
            #expect(shipped.warnings.isEmpty, "\(deck): \(shipped.warnings)")
        }
    }
}

@Suite struct DeckSchemaTests {
    func schema() throws -> JSONNode {
        let bytes = try FileIO.readAll(DeckFixtures.packageRoot + "/schema/deck.schema.json", limit: 16 << 20)
        return try JSONReader.parse(bytes)
    }

    @Test func schemaKeysMatchTheParser() throws {
        let s = try schema()
        let root = try #require(s["properties"]?.members).map(\.key)
        #expect(Set(root) == Set(DeckParser.rootKeys))
        let card = try #require(s["$defs"]?["card"]?["properties"]?.members).map(\.key)
        #expect(Set(card) == Set(DeckParser.cardKeys))
        let swipe = try #require(s["properties"]?["swipe"]?["properties"]?.members).map(\.key)
        #expect(Set(swipe) == Set(DeckParser.swipeKeys))
    }

    @Test func schemaThemesMatchTheModel() throws {
        let s = try schema()
        let themes = try #require(s["$defs"]?["card"]?["properties"]?["theme"]?["enum"]?.elements)
        #expect(themes.compactMap(\.stringValue) == Theme.allCases.map(\.rawValue))
        let layouts = try #require(s["properties"]?["layout"]?["enum"]?.elements)
        #expect(layouts.compactMap(\.stringValue) == DeckLayout.allCases.map(\.rawValue))
    }

    @Test func schemaDefaultsMatchTheParser() throws {
        let s = try schema()
        let p = try #require(s["properties"])
        #expect(p["emptyText"]?["default"]?.stringValue == DeckFile.defaultEmptyText)
        #expect(p["attractText"]?["default"]?.stringValue == DeckFile.defaultAttractText)
        #expect(p["swipe"]?["properties"]?["left"]?["default"]?.stringValue == DeckFile.defaultLeftLabel)
        #expect(p["swipe"]?["properties"]?["right"]?["default"]?.stringValue == DeckFile.defaultRightLabel)
    }
}
