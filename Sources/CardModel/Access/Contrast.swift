#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Color {
    /// WCAG 2.x relative luminance (0 black … 1 white) of the opaque colour.
    public var relativeLuminance: Double {
        func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG contrast ratio (1…21) of two opaque colours.
    public func contrastRatio(with other: Color) -> Double {
        let (a, b) = (relativeLuminance, other.relativeLuminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// The one rule for text drawn on `background`: `light` or `dark`, whichever has the higher
    /// contrast ratio with it (a tie goes to `light`). With white and black the switch lies
    /// where both ratios are equal, at a luminance of √(1.05 × 0.05) − 0.05 ≈ 0.179.
    public static func readableText(on background: Color, light: Color = .white, dark: Color = .black) -> Color {
        light.contrastRatio(with: background) >= dark.contrastRatio(with: background) ? light : dark
    }

    /// This colour, at its alpha, painted over opaque `background` (cairo's OVER in straight sRGB).
    public func composited(over background: Color) -> Color {
        let a = max(0, min(1, alpha))
        return Color(
            red: red * a + background.red * (1 - a), green: green * a + background.green * (1 - a),
            blue: blue * a + background.blue * (1 - a))
    }

    /// `t` of the way from this colour to `other` (alpha kept).
    public func mixed(with other: Color, _ t: Double) -> Color {
        Color(
            red: red + (other.red - red) * t, green: green + (other.green - green) * t,
            blue: blue + (other.blue - blue) * t, alpha: alpha)
    }
}

extension Card {
    /// The stack card's vertical gradient as the renderer paints it: 18 % towards white at
    /// the top, 12 % towards black at the bottom, each at 92 % opacity over the scene background.
    public var stackGradient: (top: Color, bottom: Color) {
        (color.mixed(with: .white, 0.18).withAlpha(0.92), color.mixed(with: .black, 0.12).withAlpha(0.92))
    }

    /// The subtitle's colour: the accent at 90 % of its opacity.
    public var subtitleColor: Color { accent.withAlpha(accent.alpha * 0.9) }
}

/// WCAG 1.4.3 (AA) text contrast of what the renderer draws, and the high-contrast variant
/// that always passes.
public enum ContrastAudit {
    /// WCAG 2.2 AA for body text.
    public static let minimumRatio = 4.5

    /// One text colour over one (opaque) background colour it is drawn on.
    public struct Pair: Hashable, Sendable, CustomStringConvertible {
        public var what: String
        public var text: Color
        public var background: Color
        public var ratio: Double { text.contrastRatio(with: background) }
        public var passes: Bool { ratio >= ContrastAudit.minimumRatio }
        /// "4.50": the ratio to two decimals (no Foundation in the model).
        static func twoDecimals(_ v: Double) -> String {
            let hundredths = Int((v * 100).rounded())
            let fraction = hundredths % 100
            return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
        }

        public var description: String {
            "\(what): \(text) on \(background) = " + Self.twoDecimals(ratio) + ":1"
        }
    }

    /// The stack card's title and subtitle over both ends of its gradient (the worst places,
    /// as the gradient is linear), the card composited over `backdrop`.
    public static func stackCard(_ card: Card, backdrop: Color) -> [Pair] {
        let (top, bottom) = card.stackGradient
        let ends = [("top", top.composited(over: backdrop)), ("bottom", bottom.composited(over: backdrop))]
        var out: [Pair] = []
        for (name, bg) in ends {
            out.append(Pair(what: "\(card.id) title/\(name)", text: card.accent.composited(over: bg), background: bg))
            if !card.subtitle.isEmpty {
                out.append(
                    Pair(
                        what: "\(card.id) subtitle/\(name)", text: card.subtitleColor.composited(over: bg),
                        background: bg))
            }
        }
        return out
    }

    /// The list row's title (and the detail page has no other card text) on the row colour.
    public static func listRow(_ card: Card) -> [Pair] {
        [Pair(what: "\(card.id) row title", text: card.accent.composited(over: card.color), background: card.color)]
    }
}

/// The high-contrast look (switchable per visit): text black or white, whichever reads
/// better, and the card colour darkened (white text) or lightened (black text) in 5 % steps
/// until every text on it has at least `ContrastAudit.minimumRatio` — on the stack's gradient
/// over `backdrop` and as a list row.
public enum HighContrast {
    public static func apply(to card: Card, backdrop: Color) -> Card {
        func worst(_ c: Card) -> Double {
            (ContrastAudit.stackCard(c, backdrop: backdrop) + ContrastAudit.listRow(c)).map(\.ratio).min() ?? 21
        }
        var best = card
        var bestRatio = -1.0
        for text in [Color.black, .white] {
            var c = card
            c.accent = text
            let toward: Color = text == .white ? .black : .white
            var k = 0
            while worst(c) < ContrastAudit.minimumRatio && k < 20 {
                k += 1
                c.color = card.color.mixed(with: toward, 0.05 * Double(k))
            }
            let r = worst(c)
            // Prefer the variant that changes the colour least, then the higher ratio.
            if r >= ContrastAudit.minimumRatio
                && (bestRatio < ContrastAudit.minimumRatio || distance(c, card) < distance(best, card))
            {
                best = c
                bestRatio = r
            } else if bestRatio < ContrastAudit.minimumRatio && r > bestRatio {
                best = c
                bestRatio = r
            }
        }
        return best
    }

    public static func apply(to cards: [Card], backdrop: Color) -> [Card] {
        cards.map { apply(to: $0, backdrop: backdrop) }
    }

    private static func distance(_ a: Card, _ b: Card) -> Double {
        abs(a.color.red - b.color.red) + abs(a.color.green - b.color.green) + abs(a.color.blue - b.color.blue)
    }
}

/// What a visitor switched on for their visit; the app resets it for the next visitor.
public struct VisitAccessibility: Hashable, Sendable {
    public var highContrast = false
    public var largeText = false
    public var reducedMotion = false
    public init(highContrast: Bool = false, largeText: Bool = false, reducedMotion: Bool = false) {
        self.highContrast = highContrast
        self.largeText = largeText
        self.reducedMotion = reducedMotion
    }
    /// Whether any mode is on (stored with the visit as its accessibility flag).
    public var isAnyOn: Bool { highContrast || largeText || reducedMotion }
    /// The cards as this visit shows them.
    public func cards(_ cards: [Card], backdrop: Color) -> [Card] {
        cards.map { card($0, backdrop: backdrop) }
    }
    /// One card as this visit shows it: `original` (as the deck file has it) in the
    /// high-contrast look and/or with its text ×`largeTextScale`.
    public func card(_ original: Card, backdrop: Color) -> Card {
        var c = highContrast ? HighContrast.apply(to: original, backdrop: backdrop) : original
        c.textScale = largeText ? Self.largeTextScale : 1
        return c
    }
    /// Text ×1.5 in the large-text mode.
    public static let largeTextScale = 1.5
    /// The reduced-motion spring: critically damped (ζ = 1), so released from rest it never
    /// passes its target, and a little quicker than the default so nothing lingers.
    public static let calmSpring = Spring(response: 0.4, dampingFraction: 1)
}
