import CardModel
import KioskDeckFiles
import KioskSystem

/// The visitor's language (docs/LANGUAGES.md): the control in the top-right corner, the deck
/// shown in the chosen language, right-to-left layout, and the reset for the next visitor.
extension KioskApp {
    /// Beside the stack's card; in the list's title bar, left of its "+".
    var languagePlacement: LanguageChoice.Placement { Self.languagePlacement(deckFile.layout) }

    static func languagePlacement(_ layout: DeckLayout) -> LanguageChoice.Placement {
        layout == .list ? .row(trailingInset: 56) : .column
    }

    /// The control is large on the attract screen, except in the list's title bar.
    var languageProminent: Bool { session.phase == .attract && deckFile.layout == .stack }

    /// The deck's scene laid out in the visitor's direction, with the language control on top.
    func composed(_ scene: Scene) -> Scene {
        Self.composed(scene, languages: languages, prominent: languageProminent, placement: languagePlacement)
    }

    /// `scene` with the language control on top (larger when `prominent`), laid out in
    /// `languages`' direction: mirrored with the rest for a right-to-left language, so the
    /// control sits in the trailing corner. `render --lang` draws the same.
    static func composed(
        _ scene: Scene, languages: LanguageChoice, prominent: Bool, placement: LanguageChoice.Placement
    ) -> Scene {
        let keys = languages.elements(screen: scene.size, prominent: prominent, placement: placement)
        let withKeys =
            keys.isEmpty
            ? scene
            : Scene(
                size: scene.size, background: scene.background, elements: scene.elements + keys,
                isAnimating: scene.isAnimating)
        return withKeys.laidOut(languages.direction)
    }

    /// Takes the contacts that begin on a language key (they pick the language and reach no
    /// card) and what is left of `frame` for the deck, mirrored for a right-to-left language.
    func languageFilter(_ frame: TouchFrame, prominent: Bool) -> TouchFrame? {
        let width = surface.metrics.size.width
        let rtl = languages.direction == .rightToLeft
        for c in frame.contacts where c.phase == .began {
            // The control is laid out left to right and mirrored with the scene.
            let p = rtl ? Point(x: width - c.position.x, y: c.position.y) : c.position
            if let l = languages.language(
                at: p, screen: surface.metrics.size, prominent: prominent, placement: languagePlacement)
            {
                languageSwallowed.insert(c.id)
                selectLanguage(l, at: frame.time)
            }
        }
        let rest = frame.contacts.filter { !languageSwallowed.contains($0.id) }
        for c in frame.contacts where c.phase == .ended || c.phase == .cancelled { languageSwallowed.remove(c.id) }
        if rest.isEmpty && !frame.contacts.isEmpty { return nil }
        let kept = TouchFrame(time: frame.time, contacts: rest)
        return rtl ? kept.mirrored(width: width) : kept
    }

    /// The visitor picked `language`: the deck's texts, the kiosk's words and the layout change
    /// at once. The stack keeps its state (the cards not yet decided, the undo history, the
    /// positions); the list keeps the rows not deleted.
    func selectLanguage(_ language: String, at time: Instant) {
        guard language != languages.current, languages.select(language) else { return }
        Log.info("language: visitor chose \(language) (\(UIStrings.name(of: language)))")
        collectDecisions()
        if var stack = deck as? StackDeck {
            shownDeck = deckFile.localized(to: languages.current)
            accessControl.labels = AccessibilityControl.Labels(language: languages.current)
            stack.relocalize(
                visitOrder.map { $0.localized(to: languages.current) },
                options: Self.stackOptions(shownDeck, buttons: config.showsButtons), at: time)
            deck = stack
            redrawAll()
            return
        }
        let remaining = (deck as? ListDeck)?.cards ?? visitOrder
        rebuildDeck(cards: remaining, at: time)
    }

    /// The deck made again in the current language, with `cards` (by default the visit's order).
    func rebuildDeck(cards: [Card]? = nil, at time: Instant) {
        shownDeck = deckFile.localized(to: languages.current)
        accessControl.labels = AccessibilityControl.Labels(language: languages.current)
        let cards = (cards ?? visitOrder).map { $0.localized(to: languages.current) }
        let attract = attractShownSince
        deck = KioskApp.makeDeck(
            shownDeck, cards: cards, metrics: surface.metrics, buttons: config.showsButtons, at: time)
        // The visitor's accessibility modes stay on in the new language.
        if accessControl.modes.isAnyOn { deck.setAccessibility(accessControl.modes, at: time) }
        if let attract { deck.setAttract(since: attract, at: time) }
        redrawAll()
    }

    /// The next visitor starts in the kiosk's language again; true when that changed it.
    func resetLanguageForNextVisitor() -> Bool {
        let before = languages.current
        languages.resetForNextVisitor()
        return before != languages.current
    }

    /// ← and → in the visitor's direction (`AccessKey.inDirection`).
    func languageKey(_ key: AccessKey) -> AccessKey { key.inDirection(languages.direction) }

    static func languageChoice(_ file: DeckFile, config: KioskConfig) -> LanguageChoice {
        LanguageChoice(offered: file.languages, deckLanguage: file.language, configured: config.language)
    }
}
