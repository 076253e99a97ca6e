import CardModel
import Foundation
import KioskDeckFiles
import KioskTestSupport
import Testing

/// WCAG 2.2 AA (1.4.3): every text the renderer draws on a card, over every theme and every
/// example deck, at ≥ 4.5:1 in high contrast; the normal look's failures are listed (and
/// pinned, so a palette change that fixes or breaks one shows up here and in docs/ACCESSIBILITY.md).
@Suite struct ContrastTests {
    static let backdrop = Color(rgb: 0xF2F2F7)

    static var exampleDecks: [String] {
        let root = DeckFixtures.packageRoot + "/examples"
        let top = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return top.filter { $0.hasSuffix(".json") }.sorted().map { root + "/" + $0 } + [
            root + "/products/products.json"
        ]
    }

    static func themeCards() -> [Card] {
        Theme.allCases.map { $0.apply(to: Card(id: $0.rawValue, title: $0.rawValue, subtitle: "x", color: .white)) }
    }

    static func exampleCards() throws -> [Card] {
        var out: [Card] = []
        for path in exampleDecks {
            switch DeckLoader.load(path: path) {
            case .success(let file):
                out += file.cards.map { c in
                    var c = c
                    c.id = (path as NSString).lastPathComponent + ":" + c.id
                    return c
                }
            case .failure(let problems): Issue.record("\(path): \(problems)")
            }
        }
        return out
    }

    static func pairs(_ cards: [Card]) -> [ContrastAudit.Pair] {
        cards.flatMap { ContrastAudit.stackCard($0, backdrop: backdrop) + ContrastAudit.listRow($0) }
    }

    @Test func ratioMatchesWCAGReferenceValues() {
        expectRatio(Color.black.contrastRatio(with: .white), 21)
        expectRatio(Color.white.contrastRatio(with: .white), 1)
        // #777777 on white is the classic just-failing grey (4.48:1).
        expectRatio(Color(rgb: 0x777777).contrastRatio(with: .white), 4.48, within: 0.01)
        // 50 % black over white is #808080.
        #expect(Color.black.withAlpha(0.5).composited(over: .white).description == "#808080")
    }

    func expectRatio(_ a: Double, _ b: Double, within: Double = 1e-9, sourceLocation: SourceLocation = #_sourceLocation)
    {
        #expect(abs(a - b) <= within, "\(a) vs \(b)", sourceLocation: sourceLocation)
    }

    @Test func examplesAreAllFound() throws {
        let cards = try Self.exampleCards()
        #expect(Self.exampleDecks.count == 8)
        #expect(cards.count >= 25)
    }

    /// What fails in the normal look today (docs/ACCESSIBILITY.md lists the same).
    @Test func normalLookFailuresAreKnown() throws {
        let failing = Self.pairs(Self.themeCards() + (try Self.exampleCards())).filter { !$0.passes }
        let names = Set(failing.map { $0.what.split(separator: " ").first.map(String.init) ?? $0.what })
        for f in failing { print("contrast FAIL \(f)") }
        #expect(
            names == [
                "magenta", "purple", "onboarding.json:kaffee", "onboarding.json:willkommen", "onboarding.json:wlan",
                "products.json:backpack-trail", "products.json:bottle-steel", "products.json:headphones-calm",
                "products.json:mug-clay", "seed-stack.json:karte-1", "seed-stack.json:karte-2",
            ], "\(names.sorted())")
    }

    /// The word buttons' white words (the detail page's Delete, "Remove card") on their fill.
    @Test func wordButtonsTextPasses() {
        for fill in [ControlColors.destructiveBehindText, ControlColors.tintBehindText] {
            #expect(Color.white.contrastRatio(with: fill) >= 4.5, "\(fill)")
        }
        #expect(Color.white.contrastRatio(with: ControlColors.destructive) < 4.5, "why the fill is not systemRed")
    }

    @Test func highContrastPassesEverywhere() throws {
        let cards = Self.themeCards() + (try Self.exampleCards())
        let hc = HighContrast.apply(to: cards, backdrop: Self.backdrop)
        let failing = Self.pairs(hc).filter { !$0.passes }
        #expect(failing.isEmpty, "\(failing)")
        // Cards that already passed keep their colour.
        for (a, b) in zip(cards, hc) where Self.pairs([a]).allSatisfy(\.passes) && a.accent == b.accent {
            #expect(a.color == b.color, "\(a.id)")
        }
        #expect(VisitAccessibility(highContrast: true).cards(cards, backdrop: Self.backdrop) == hc)
        #expect(VisitAccessibility().cards(cards, backdrop: Self.backdrop) == cards)
    }
}
