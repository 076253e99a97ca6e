/// The named colour themes of Apple's Scrumdinger tutorial, which the "Color Cards" list
/// of the SwiftUI design builds on: a main colour and an accent colour that reads on it.
public enum Theme: String, CaseIterable, Hashable, Sendable {
    case bubblegum, buttercup, indigo, lavender, magenta, navy, orange, oxblood
    case periwinkle, poppy, purple, seafoam, sky, tan, teal, yellow

    /// The row / detail-page background.
    public var mainColor: Color {
        switch self {
        case .bubblegum: Color(rgb: 0xEF8AD1)
        case .buttercup: Color(rgb: 0xFFE68F)
        case .indigo: Color(rgb: 0x3F1B8C)
        case .lavender: Color(rgb: 0xCDB5FF)
        case .magenta: Color(rgb: 0xA6268C)
        case .navy: Color(rgb: 0x00235A)
        case .orange: Color(rgb: 0xFF8A33)
        case .oxblood: Color(rgb: 0x4C0F13)
        case .periwinkle: Color(rgb: 0x8A8CFF)
        case .poppy: Color(rgb: 0xFF5E5E)
        case .purple: Color(rgb: 0x914DD6)
        case .seafoam: Color(rgb: 0xCCECE0)
        case .sky: Color(rgb: 0x6EB5FF)
        case .tan: Color(rgb: 0xC7A37A)
        case .teal: Color(rgb: 0x199E94)
        case .yellow: Color(rgb: 0xFFDF4D)
        }
    }

    /// Text colour on `mainColor`: black on the light themes, white on the dark ones
    /// (Scrumdinger's `accentColor`).
    public var accentColor: Color {
        switch self {
        case .indigo, .magenta, .navy, .oxblood, .purple: .white
        default: .black
        }
    }

    /// A card's colours in this theme.
    public func apply(to card: Card) -> Card {
        var c = card
        c.color = mainColor
        c.accent = accentColor
        return c
    }
}
