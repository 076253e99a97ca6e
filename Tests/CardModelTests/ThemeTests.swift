import Testing

@testable import CardModel

@Suite struct ThemeTests {
    /// The ratio's formula is checked against WCAG's published figures in `ReadableTextTests`.
    @Test(arguments: Theme.allCases)
    func accentReadsOnMainColour(theme: Theme) {
        let contrast = theme.mainColor.contrastRatio(with: theme.accentColor)
        #expect(contrast >= 4.5, "\(theme) contrast \(contrast)")
    }

    @Test func sixteenNamedThemes() {
        #expect(Theme.allCases.count == 16)
        #expect(Theme(rawValue: "seafoam") == .seafoam)
        #expect(Theme(rawValue: "Seafoam") == nil)
    }
}
