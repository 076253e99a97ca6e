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

    /// Where the control goes: a column down the screen's trailing edge (beside the stack's
    /// card) or a row along the top (in the list's title bar, left of its "+").
    public enum Placement: Hashable, Sendable {
        case column
        case row(trailingInset: Double)
    }

    /// The language control: one key per offered language, by its own name, in the top-right
    /// corner of the deck's left-to-right scene, so in the top-left (trailing) corner once a
    /// right-to-left scene is mirrored, like every control. Larger on the attract screen
    /// (`prominent`), smaller during the visit; the current language is marked.
    public func elements(screen: Size, prominent: Bool, placement: Placement = .column) -> [SceneElement] {
        guard isChoice else { return [] }
        let height = prominent ? 52.0 : 40.0
        let gap = 8.0
        let margin = 12.0
        var labels = offered.map { UIStrings.name(of: $0) }
        var widths = labels.map { Self.keyWidth(for: $0, prominent: prominent) }
        if case .row(let inset) = placement,
            widths.reduce(0, +) + gap * Double(widths.count) > screen.width - inset - 2 * margin - Self.titleRoom
        {
            // A narrow screen: the tags ("DE", "AR") instead of the names, so the title keeps room.
            labels = offered.map { $0.uppercased() }
            widths = labels.map { _ in prominent ? 64.0 : 56.0 }
        }
        var frames: [Rect] = []
        switch placement {
        case .column:
            let w = widths.max() ?? 0
            for i in widths.indices {
                frames.append(
                    Rect(x: screen.width - margin - w, y: margin + Double(i) * (height + gap), width: w, height: height)
                )
            }
        case .row(let inset):
            var x = screen.width - inset - margin - widths.reduce(0, +) - gap * Double(widths.count - 1)
            for w in widths {
                frames.append(Rect(x: x, y: (56 - height) / 2, width: w, height: height))
                x += w + gap
            }
        }
        return offered.indices.map { i in
            SceneElement(
                id: "language:\(offered[i])", kind: .languageKey(label: labels[i], selected: offered[i] == current),
                frame: frames[i], zIndex: 2500)
        }
    }

    /// The language whose key is at `point` (in screen points, as drawn), if any.
    public func language(at point: Point, screen: Size, prominent: Bool, placement: Placement = .column) -> String? {
        for e in elements(screen: screen, prominent: prominent, placement: placement)
        where e.frame.insetBy(-4).contains(point) {
            return String(e.id.dropFirst("language:".count))
        }
        return nil
    }

    /// What a row of keys leaves the list's title, at least (points).
    static let titleRoom = 220.0

    /// Wide enough for the name at the key's type size (an estimate: CJK and Arabic glyphs
    /// count wider); at least 9 mm at 160 dpi-ish densities.
    static func keyWidth(for name: String, prominent: Bool) -> Double {
        let units = name.unicodeScalars.reduce(0.0) { $0 + ($1.value >= 0x2E80 ? 1.0 : 0.62) }
        return max(prominent ? 64 : 56, units * (prominent ? 20 : 16) + 28)
    }
}
