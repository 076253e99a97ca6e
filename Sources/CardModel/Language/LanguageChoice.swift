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
    /// The config's `language` when the deck does not offer it (nil: none set, or offered).
    public let configuredNotOffered: String?
    /// The kiosk's own language, whatever the deck offers: the config's `language` (as the deck
    /// spells it where it offers it), else the deck's. The staff menu speaks it.
    public let kioskLanguage: String

    /// `configured`: kiosk.conf's `language` (nil: the deck's). A configured language the deck
    /// does not offer is no visitor's: its texts would fall back to the deck's language, so
    /// visits start in the deck's language — its texts, the kiosk's words and its direction
    /// agree (an Arabic layout never carries a German deck); `configuredNotOffered` says so.
    public init(offered: [String], deckLanguage: String, configured: String?) {
        var list = [deckLanguage]
        for l in offered where !list.contains(l) { list.append(l) }
        self.offered = list
        let matched = LocalizedText.match(configured, in: list)
        let start = matched ?? deckLanguage
        startLanguage = start
        current = start
        configuredNotOffered = matched == nil ? configured : nil
        kioskLanguage = matched ?? configured ?? deckLanguage
    }

    /// What the log and `check-deck` say when the config's `language` is not in the deck called
    /// `deck`: the language, the deck, what visitors see instead and the fix; nil when it is.
    public func configuredNotOfferedMessage(deck: String) -> String? {
        guard let missing = configuredNotOffered else { return nil }
        let direction = LayoutDirection(language: startLanguage) == .rightToLeft ? "right to left" : "left to right"
        return "the configured language \"\(missing)\" is not in \(deck), which offers "
            + offered.joined(separator: ", ") + "; visitors see it in \"\(startLanguage)\" (\(direction)) — add"
            + " \"\(missing)\" texts to the deck and its \"languages\", or set language = \(startLanguage)"
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

    /// Where the control goes: a column down the screen's trailing edge (beside a landscape
    /// stack's card), lines along the top from the trailing corner (above a portrait stack's
    /// card), or a row in the list's title bar, left of its "+".
    public enum Placement: Hashable, Sendable {
        /// `topCorner`, `bottomCorner`: the sides of squares in the top and bottom trailing
        /// corners the column keeps clear of (the staff entry's; at the bottom also "Aa"'s; 0:
        /// none): it runs between them, or beside them where it would not fit between them.
        case column(topCorner: Double, bottomCorner: Double)
        /// `leadingRoom` and `trailingRoom`: what the lines leave free in the top corners (the
        /// staff entry's square where it is).
        case lines(leadingRoom: Double, trailingRoom: Double)
        /// `leadingRoom`: what the keys leave free at the bar's leading end (the title, and on a
        /// detail page its back control), at least `titleRoom`.
        case row(trailingInset: Double, leadingRoom: Double = 220)
        /// Lines from the trailing corner of a band whose top is `top` (the list's band under
        /// its title bar, where the keys do not fit in the bar).
        case band(top: Double)
    }

    /// The language control: one key per offered language, by its own name, in the top-right
    /// corner of the deck's left-to-right scene, so in the top-left (trailing) corner once a
    /// right-to-left scene is mirrored, like every control. Larger on the attract screen
    /// (`prominent`), smaller during the visit; the current language is marked.
    /// `minimumSide`: no key is narrower or lower than this (the panel's 9 mm, in points).
    public func elements(
        screen: Size, prominent: Bool, placement: Placement = .column(topCorner: 0, bottomCorner: 0),
        minimumSide: Double = 0, titleBarHeight: Double = 56
    ) -> [SceneElement] {
        guard isChoice else { return [] }
        let height = max(prominent ? 52.0 : 40.0, minimumSide)
        let gap = 8.0
        let margin = 12.0
        var labels = offered.map { UIStrings.name(of: $0) }
        var widths = labels.map { max(Self.keyWidth(for: $0, prominent: prominent), minimumSide) }
        if case .row(let inset, let lead) = placement,
            widths.reduce(0, +) + gap * Double(widths.count)
                > screen.width - inset - 2 * margin - max(lead, Self.titleRoom)
        {
            // A narrow screen: the tags ("DE", "AR") instead of the names, so the title keeps room.
            labels = offered.map { $0.uppercased() }
            widths = labels.map { _ in max(prominent ? 64.0 : 56.0, minimumSide) }
        }
        var frames: [Rect] = []
        switch placement {
        case .column(let topCorner, let bottomCorner):
            let w = widths.max() ?? 0
            var top = margin
            var right = screen.width - margin
            if topCorner > 0 || bottomCorner > 0 {
                // Decided by the keys at their largest, so the attract screen's and the visit's agree.
                let below = topCorner > 0 ? topCorner + margin : margin
                let columnHeight = Double(widths.count) * (max(52, minimumSide) + gap) - gap
                if below + columnHeight <= screen.height - bottomCorner - margin {
                    top = below
                } else {
                    right -= max(topCorner, bottomCorner)
                }
            }
            for i in widths.indices {
                frames.append(Rect(x: right - w, y: top + Double(i) * (height + gap), width: w, height: height))
            }
        case .lines, .band:
            // Filled from the trailing corner leftwards, a new line when the next key would pass
            // the room left in the leading corner (the staff entry's square; a band is below it).
            var top = margin
            var trailing = 0.0
            var limit = max(0, screen.width - 2 * margin)
            if case .lines(let leadingRoom, let trailingRoom) = placement {
                trailing = trailingRoom
                limit = max(0, screen.width - 2 * margin - leadingRoom - trailingRoom)
            }
            if case .band(let bandTop) = placement { top = bandTop + margin }
            var lines: [[Int]] = [[]]
            var used = 0.0
            for i in widths.indices {
                let need = widths[i] + (lines[lines.count - 1].isEmpty ? 0 : gap)
                if !lines[lines.count - 1].isEmpty && used + need > limit {
                    lines.append([])
                    used = 0
                }
                lines[lines.count - 1].append(i)
                used += widths[i] + (lines[lines.count - 1].count > 1 ? gap : 0)
            }
            frames = Array(repeating: Rect(x: 0, y: 0, width: 0, height: 0), count: widths.count)
            for (n, line) in lines.enumerated() {
                let lineWidth = line.map { widths[$0] }.reduce(0, +) + gap * Double(line.count - 1)
                var x = screen.width - margin - trailing - lineWidth
                for i in line {
                    frames[i] = Rect(x: x, y: top + Double(n) * (height + gap), width: widths[i], height: height)
                    x += widths[i] + gap
                }
            }
        case .row(let inset, _):
            var x = screen.width - inset - margin - widths.reduce(0, +) - gap * Double(widths.count - 1)
            for w in widths {
                frames.append(Rect(x: x, y: (titleBarHeight - height) / 2, width: w, height: height))
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
    public func language(
        at point: Point, screen: Size, prominent: Bool,
        placement: Placement = .column(topCorner: 0, bottomCorner: 0), minimumSide: Double = 0,
        titleBarHeight: Double = 56
    ) -> String? {
        for e in elements(
            screen: screen, prominent: prominent, placement: placement, minimumSide: minimumSide,
            titleBarHeight: titleBarHeight)
        where e.frame.insetBy(-4).contains(point) {
            return String(e.id.dropFirst("language:".count))
        }
        return nil
    }

    /// Whether the keys fit in a row in the list's title bar, left of `trailingInset` points,
    /// leaving `leadingRoom` (at least `titleRoom`) free at its leading end (by their tags when
    /// their names do not fit).
    public func fitsInRow(screen: Size, trailingInset: Double, leadingRoom: Double, minimumSide: Double) -> Bool {
        guard isChoice else { return true }
        let gap = 8.0
        let w = max(56.0, minimumSide)
        return Double(offered.count) * (w + gap)
            <= screen.width - trailingInset - 24 - max(leadingRoom, Self.titleRoom)
    }

    /// The height of the list's language band at `top` on `screen`: the keys' lines and a
    /// 12 pt margin above and below them (0 without a choice).
    public func bandHeight(screen: Size, top: Double, minimumSide: Double) -> Double {
        guard let block = block(screen: screen, placement: .band(top: top), minimumSide: minimumSide, prominent: false)
        else { return 0 }
        return block.maxY - top + 12
    }

    /// What a row of keys leaves the list's title, at least (points).
    static let titleRoom = 220.0
    /// What lines of keys leave free in the leading top corner by default (the staff entry's
    /// square where it is not configured elsewhere).
    static let leadingRoom = 80.0

    /// The block the keys take at their largest (the attract screen's), nil without a choice:
    /// what a stack keeps its card and buttons clear of.
    public func block(screen: Size, placement: Placement, minimumSide: Double, prominent: Bool = true) -> Rect? {
        let frames = elements(screen: screen, prominent: prominent, placement: placement, minimumSide: minimumSide)
            .map(\.frame)
        guard var r = frames.first else { return nil }
        for f in frames.dropFirst() { r = r.union(f) }
        return r
    }

    /// Wide enough for the name at the key's type size (an estimate: CJK and Arabic glyphs
    /// count wider); at least 9 mm at 160 dpi-ish densities.
    static func keyWidth(for name: String, prominent: Bool) -> Double {
        let units = name.unicodeScalars.reduce(0.0) { $0 + ($1.value >= 0x2E80 ? 1.0 : 0.62) }
        return max(prominent ? 64 : 56, units * (prominent ? 20 : 16) + 28)
    }
}
