import CardModel
import KioskDeckFiles
import KioskSystem

/// The visitor's language (docs/LANGUAGES.md): the control in the top-right corner, the deck
/// shown in the chosen language, right-to-left layout, and the reset for the next visitor.
extension KioskApp {
    /// The list's "+" sits in the title bar's right end; the control stays left of it.
    var languageControlInset: Double { deckFile.layout == .list ? 56 : 0 }

    /// The language keys as drawn now (larger on the attract screen).
    func languageElements() -> [SceneElement] {
        languages.elements(
            screen: surface.metrics.size, prominent: session.phase == .attract, trailingInset: languageControlInset)
    }

    /// `scene` laid out in the visitor's direction, with the language control on top (never
    /// mirrored: it stays in its corner for every language).
    func composed(_ scene: Scene) -> Scene {
        let laidOut = scene.laidOut(languages.direction)
        let keys = languageElements()
        guard !keys.isEmpty else { return laidOut }
        return Scene(
            size: laidOut.size, background: laidOut.background, elements: laidOut.elements + keys,
            isAnimating: laidOut.isAnimating)
    }

    /// Takes the contacts that begin on a language key (they pick the language and reach no
    /// card) and what is left of `frame` for the deck, mirrored for a right-to-left language.
    func languageFilter(_ frame: TouchFrame) -> TouchFrame? {
        for c in frame.contacts where c.phase == .began {
            if let l = languages.language(
                at: c.position, screen: surface.metrics.size, prominent: session.phase == .attract,
                trailingInset: languageControlInset)
            {
                languageSwallowed.insert(c.id)
                selectLanguage(l, at: frame.time)
            }
        }
        let rest = frame.contacts.filter { !languageSwallowed.contains($0.id) }
        for c in frame.contacts where c.phase == .ended || c.phase == .cancelled { languageSwallowed.remove(c.id) }
        if rest.isEmpty && !frame.contacts.isEmpty { return nil }
        let kept = TouchFrame(time: frame.time, contacts: rest)
        return languages.direction == .rightToLeft ? kept.mirrored(width: surface.metrics.size.width) : kept
    }

    /// The visitor picked `language`: the deck's texts, the kiosk's words and the layout change
    /// at once; the cards not yet decided stay.
    func selectLanguage(_ language: String, at time: Instant) {
        guard language != languages.current, languages.select(language) else { return }
        Log.info("language: visitor chose \(language) (\(UIStrings.name(of: language)))")
        collectDecisions()
        let remaining = (deck as? StackDeck)?.remainingCards ?? (deck as? ListDeck)?.cards ?? visitOrder
        rebuildDeck(cards: remaining, at: time)
    }

    /// The deck made again in the current language, with `cards` (by default the visit's order).
    func rebuildDeck(cards: [Card]? = nil, at time: Instant) {
        shownDeck = deckFile.localized(to: languages.current)
        let cards = (cards ?? visitOrder).map { $0.localized(to: languages.current) }
        let attract = attractShownSince
        deck = KioskApp.makeDeck(shownDeck, cards: cards, metrics: surface.metrics, buttons: config.buttons, at: time)
        if let attract { deck.setAttract(since: attract, at: time) }
        redrawAll()
    }

    /// The next visitor starts in the kiosk's language again; true when that changed it.
    func resetLanguageForNextVisitor() -> Bool {
        let before = languages.current
        languages.resetForNextVisitor()
        return before != languages.current
    }

    static func languageChoice(_ file: DeckFile, config: KioskConfig) -> LanguageChoice {
        LanguageChoice(offered: file.languages, deckLanguage: file.language, configured: config.language)
    }
}
