/// The visitor's language: the kiosk's default until a visitor picks another from the
/// language control, and the default again for the next visitor.
public struct LanguageChoice: Hashable, Sendable {
    /// What the deck offers, in the control's order (the deck's default language first).
    public private(set) var offered: [String]
    /// What every visit starts in: the config's `language` when the deck offers it, else the
    /// deck's default language.
    public private(set) var startLanguage: String
    /// The current visitor's language.
    public private(set) var current: String

    /// `configured`: kiosk.conf's `language` (nil: the deck's). A configured language the deck
    /// does not carry still counts when the UI strings have it (the deck's texts then fall back).
    public init(offered: [String], deckLanguage: String, configured: String?) {
        var list = [deckLanguage]
        for l in offered where !list.contains(l) { list.append(l) }
        self.offered = list
        let start = configured.flatMap { LocalizedText.match($0, in: list) ?? $0 } ?? deckLanguage
        startLanguage = start
        current = start
    }

    /// The visitor picked `language` from the control; false (nothing changes) when it is not offered.
    @discardableResult
    public mutating func select(_ language: String) -> Bool {
        guard offered.contains(language) || language == startLanguage else { return false }
        current = language
        return true
    }

    /// A new visitor: back to the start language.
    public mutating func resetForNextVisitor() {
        current = startLanguage
    }

    /// Whether the screen shows a language control at all (only when there is a choice).
    public var isChoice: Bool { offered.count > 1 }

    public var direction: LayoutDirection { LayoutDirection(language: current) }

    // MARK: The control

    /// The language control: one key per offered language, by its own name, in a row in the
    /// top-right corner (`trailingInset` points from the right edge: the list's "+" is there),
    /// in the same place in every language (it is added after a right-to-left scene is
    /// mirrored). Larger on the attract screen (`prominent`), smaller during the visit; the
    /// current language is marked.
    public func elements(screen: Size, prominent: Bool, trailingInset: Double = 0) -> [SceneElement] {
        guard isChoice else { return [] }
        let height = prominent ? 52.0 : 40.0
        let gap = 8.0
        let margin = 12.0
        let widths = offered.map { Self.keyWidth(for: $0, prominent: prominent) }
        var x = screen.width - trailingInset - margin - widths.reduce(0, +) - gap * Double(widths.count - 1)
        let y = margin
        var out: [SceneElement] = []
        for (l, w) in zip(offered, widths) {
            out.append(
                SceneElement(
                    id: "language:\(l)",
                    kind: .languageKey(label: UIStrings.name(of: l), selected: l == current),
                    frame: Rect(x: x, y: y, width: w, height: height), zIndex: 2500))
            x += w + gap
        }
        return out
    }

    /// The language whose key is at `point` (in screen points, as drawn), if any.
    public func language(at point: Point, screen: Size, prominent: Bool, trailingInset: Double = 0) -> String? {
        for e in elements(screen: screen, prominent: prominent, trailingInset: trailingInset) where e.frame.insetBy(-4).contains(point) {
            return String(e.id.dropFirst("language:".count))
        }
        return nil
    }

    /// Wide enough for the name at the key's type size (an estimate: CJK and Arabic glyphs
    /// count wider); at least 9 mm at 160 dpi-ish densities.
    static func keyWidth(for language: String, prominent: Bool) -> Double {
        let name = UIStrings.name(of: language)
        let units = name.unicodeScalars.reduce(0.0) { $0 + ($1.value >= 0x2E80 ? 1.0 : 0.62) }
        return max(prominent ? 64 : 56, units * (prominent ? 20 : 16) + 28)
    }
}
