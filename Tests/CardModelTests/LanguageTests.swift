import CardModel
import Testing

/// Texts in several languages, the visitor's choice, the UI's own words and right-to-left layout.
@Suite struct LanguageTests {
    let coffee = LocalizedText(texts: ["de": "Kaffee", "en": "Coffee", "zh-Hans": "咖啡"], defaultLanguage: "de")

    @Test func resolvesTheVisitorsLanguageElseTheDecksDefault() {
        #expect(coffee.resolved(for: "en") == "Coffee")
        #expect(coffee.resolved(for: "en-GB") == "Coffee")
        #expect(coffee.resolved(for: "EN") == "Coffee")
        #expect(coffee.resolved(for: "zh") == "咖啡")
        #expect(coffee.resolved(for: "fr") == "Kaffee")
        #expect(coffee.resolved(for: nil) == "Kaffee")
        #expect(coffee.has("en-US"))
        #expect(!coffee.has("ar"))
        let plain = LocalizedText("Tee", language: "de")
        #expect(plain.resolved(for: "ar") == "Tee")
    }

    @Test func aCardIsLocalizedFromItsOwnTranslationsEveryTime() {
        var card = Card(id: "c", title: "Kaffee", subtitle: "heiß", color: .white)
        card.localizedTitle = coffee
        card.localizedSubtitle = LocalizedText(texts: ["de": "heiß", "en": "hot"], defaultLanguage: "de")
        let en = card.localized(to: "en")
        #expect(en.title == "Coffee" && en.subtitle == "hot")
        // Localizing a localized card again still finds every language.
        let back = en.localized(to: "fr")
        #expect(back.title == "Kaffee" && back.subtitle == "heiß")
        let untranslated = Card(id: "u", title: "Nur Deutsch", color: .white)
        #expect(untranslated.localized(to: "en") == untranslated)
    }

    @Test func theChoiceStartsFromTheConfigAndResetsForTheNextVisitor() {
        var choice = LanguageChoice(offered: ["de", "en", "ar"], deckLanguage: "de", configured: "en")
        #expect(choice.current == "en")
        #expect(choice.offered == ["de", "en", "ar"])
        let pickedArabic = choice.select("ar")
        #expect(pickedArabic)
        #expect(choice.current == "ar" && choice.direction == .rightToLeft)
        let pickedFrench = choice.select("fr")
        #expect(!pickedFrench)
        #expect(choice.current == "ar")
        choice.resetForNextVisitor()
        #expect(choice.current == "en" && choice.direction == .leftToRight)
        let fallback = LanguageChoice(offered: ["de"], deckLanguage: "de", configured: nil)
        #expect(fallback.current == "de" && !fallback.isChoice)
        // "en-GB" in kiosk.conf finds the deck's "en".
        #expect(LanguageChoice(offered: ["de", "en"], deckLanguage: "de", configured: "en-GB").current == "en")
    }

    /// Arabic configured on a one-language German deck: the visitor reads German, so the screen
    /// is German and left to right (not a German card mirrored), the log names the language,
    /// the deck and the fix, and the staff menu still speaks Arabic. A deck that offers Arabic
    /// then starts its visits in Arabic, right to left, without the warning.
    @Test func aConfiguredLanguageTheDeckDoesNotOfferLeavesTheScreenInTheDecksLanguage() throws {
        let choice = LanguageChoice(offered: ["de"], deckLanguage: "de", configured: "ar")
        #expect(choice.current == "de" && choice.direction == .leftToRight)
        #expect(choice.configuredNotOffered == "ar" && choice.kioskLanguage == "ar")
        let offered = LanguageChoice(offered: ["de", "ar"], deckLanguage: "de", configured: "ar")
        #expect(offered.configuredNotOffered == nil && offered.configuredNotOfferedMessage(deck: "d") == nil)

        var rig = KioskTests.Rig(
            KioskTests.deck(languages: ["de"]), settings: .init(staffEnabled: true, configuredLanguage: "ar"))
        func warnings() -> [String] { rig.all.compactMap { if case .log(.warning, let t) = $0 { t } else { nil } } }
        #expect(rig.kiosk.languages.current == "de" && rig.kiosk.languages.direction == .leftToRight)
        let scene = rig.kiosk.scene(at: rig.t)
        #expect(!scene.elements.contains { if case .mirrored = $0.kind { true } else { false } })
        #expect(scene.elements.contains { if case .label("tap-de", _) = $0.kind { true } else { false } })
        #expect(rig.kiosk.accessControl.labels == AccessibilityControl.Labels(language: "de"))
        let warned = try #require(warnings().first { $0.hasPrefix("language: ") }, "\(rig.all)")
        #expect(warned.contains("\"ar\"") && warned.contains("deck 'lobby' v1"), "\(warned)")
        #expect(warned.contains("add \"ar\" texts") && warned.contains("set language = de"), "\(warned)")
        rig.feed(.staffKeys)
        #expect(rig.kiosk.staffMenu.language == "ar")

        // The deck now offers Arabic: the next visits start in it, mirrored, and nothing is warned.
        let before = warnings().count
        rig.feed(.primaryDeckChanged(KioskTests.deck(version: 2, languages: ["de", "ar"])))
        #expect(rig.kiosk.languages.current == "ar" && rig.kiosk.languages.direction == .rightToLeft)
        #expect(rig.kiosk.scene(at: rig.t).elements.contains { if case .mirrored = $0.kind { true } else { false } })
        #expect(warnings().count == before, "\(warnings())")
    }

    @Test func theControlHasAKeyPerLanguageAndFindsTheTappedOne() throws {
        var choice = LanguageChoice(offered: ["de", "en", "ar", "zh"], deckLanguage: "de", configured: nil)
        let screen = Size(width: 1000, height: 600)
        let keys = choice.elements(screen: screen, prominent: true)
        #expect(keys.map(\.id) == ["language:de", "language:en", "language:ar", "language:zh"])
        #expect(keys.allSatisfy { $0.frame.maxX <= screen.width && $0.frame.minY >= 0 })
        #expect(keys.first?.kind == .languageKey(label: "Deutsch", selected: true))
        let ar = try #require(keys.first { $0.id == "language:ar" })
        #expect(choice.language(at: ar.frame.center, screen: screen, prominent: true) == "ar")
        #expect(choice.language(at: Point(x: 500, y: 300), screen: screen, prominent: true) == nil)
        choice.select("ar")
        let after = choice.elements(screen: screen, prominent: false)
        #expect(after.first { $0.id == "language:ar" }?.kind == .languageKey(label: "العربية", selected: true))
        #expect(
            LanguageChoice(offered: ["de"], deckLanguage: "de", configured: nil).elements(
                screen: screen, prominent: true
            ).isEmpty)
        // A row in a narrow title bar falls back to the tags and stays on the screen.
        let narrow = Size(width: 400, height: 240)
        let row = choice.elements(screen: narrow, prominent: false, placement: .row(trailingInset: 56))
        #expect(row.allSatisfy { $0.frame.minX >= 0 && $0.frame.maxX <= narrow.width - 56 })
        #expect(row.first?.kind == .languageKey(label: "DE", selected: false))
    }

    @Test func uiStringsCoverSixLanguagesAndFallBackToEnglish() {
        for l in UIStrings.languages { #expect(UIStrings.isComplete(l), "\(l) lacks UI strings") }
        #expect(UIStrings.text(.yes, in: "fr") == "Oui")
        #expect(UIStrings.text(.tapToStart, in: "de-AT") == "Tippen zum Starten")
        #expect(UIStrings.text(.stillThere, in: "ar") == "هل ما زلت هنا؟ المس للمتابعة")
        #expect(UIStrings.text(.yes, in: "sv") == "Yes")
        #expect(UIStrings.text(.no, in: nil) == "No")
        #expect(UIStrings.name(of: "tr") == "Türkçe")
        #expect(UIStrings.name(of: "xx") == "xx")
    }

    @Test func arabicAndHebrewAreRightToLeft() {
        #expect(LayoutDirection(language: "ar") == .rightToLeft)
        #expect(LayoutDirection(language: "ar-EG") == .rightToLeft)
        #expect(LayoutDirection(language: "he") == .rightToLeft)
        #expect(LayoutDirection(language: "de") == .leftToRight)
        #expect(LayoutDirection(language: "zh") == .leftToRight)
    }

    /// ← and → act on the side drawn there: swapped right to left, every other key unchanged.
    @Test func arrowKeysFollowTheLayoutDirection() {
        #expect(AccessKey.left.inDirection(.rightToLeft) == .right)
        #expect(AccessKey.right.inDirection(.rightToLeft) == .left)
        for key in AccessKey.allCases {
            #expect(key.inDirection(.leftToRight) == key)
            if key != .left && key != .right { #expect(key.inDirection(.rightToLeft) == key) }
        }
    }

    @Test func aMirroredSceneSwapsSidesAndTouchesFollow() {
        let cards = [Card(id: "a", title: "A", color: .white), Card(id: "b", title: "B", color: .black)]
        let metrics = ScreenMetrics(size: Size(width: 1000, height: 600), pointsPerMillimetre: 4)
        var deck = StackDeck(cards: cards, metrics: metrics, options: StackOptions(showButtons: true))
        let scene = deck.scene(at: Instant(nanoseconds: 0))
        let mirrored = scene.mirrored()
        #expect(mirrored.elements.count == scene.elements.count)
        for (a, m) in zip(scene.elements, mirrored.elements) {
            #expect(m.frame.minX == 1000 - a.frame.maxX && m.frame.minY == a.frame.minY)
            #expect(m.kind == .mirrored(a.kind) && m.kind.unmirrored == a.kind)
        }
        let left = scene.elements.first { $0.kind == .button(.dismissLeft) }!
        let mLeft = mirrored.elements.first { $0.kind.unmirrored == .button(.dismissLeft) }!
        #expect(left.frame.center.x < 500 && mLeft.frame.center.x > 500)
        #expect(mirrored.mirrored() == scene)
        let frame = TouchFrame(
            time: Instant(nanoseconds: 0),
            contacts: [TouchContact(id: 1, position: Point(x: 100, y: 50), phase: .began)])
        #expect(frame.mirrored(width: 1000).contacts[0].position == Point(x: 900, y: 50))
    }

    /// A language switch mid-visit (`StackDeck.relocalize`): the cards decided so far still
    /// undo, and come back in the new language; the words follow it too.
    @Test func aStackSwitchedToAnotherLanguageKeepsItsUndoHistory() throws {
        let titles = ["de": ["Eins", "Zwei", "Drei"], "en": ["One", "Two", "Three"]]
        func cards(_ l: String) -> [Card] {
            titles[l]!.enumerated().map { Card(id: "c\($0.offset)", title: $0.element, color: .white) }
        }
        var deck = StackDeck(
            cards: cards("de"), metrics: panel7, options: StackOptions(showButtons: true, leftLabel: "Nein"))
        deck.setAccessibility(VisitAccessibility(largeText: true), at: .seconds(0))
        deck.perform(.dismissRight, at: .seconds(1))
        deck.perform(.dismissLeft, at: .seconds(2))
        #expect(deck.takeDecisions().map(\.cardID) == ["c0", "c1"])
        deck.relocalize(cards("en"), options: StackOptions(emptyText: "Done", leftLabel: "No"), at: .seconds(3))
        #expect(deck.remainingCards.map(\.title) == ["Three"])
        #expect(deck.options.leftLabel == "No" && deck.options.emptyText == "Done")
        #expect(deck.options.showButtons, "the layout's buttons stay")
        #expect(deck.accessibility.largeText)
        #expect(deck.canUndo)
        deck.perform(.undo, at: .seconds(4))
        deck.perform(.undo, at: .seconds(5))
        #expect(deck.remainingCards.map(\.title) == ["One", "Two", "Three"])
        #expect(!deck.canUndo)
        // The position counts on from the visit's start, not from the switch.
        deck.perform(.dismissRight, at: .seconds(6))
        deck.perform(.dismissRight, at: .seconds(7))
        let positions = deck.takeDecisions().filter { $0.action == .swipedRight }.map(\.position)
        #expect(positions == [0, 1])
    }
}
