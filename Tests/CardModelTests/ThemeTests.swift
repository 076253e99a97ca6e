import Testing

@testable import CardModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct ThemeTests {
    /// Relative luminance (WCAG) of an sRGB colour.
    func luminance(_ c: Color) -> Double {
        func lin(_ v: Double) -> Double { v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        return 0.2126 * lin(c.red) + 0.7152 * lin(c.green) + 0.0722 * lin(c.blue)
    }

    @Test(arguments: Theme.allCases)
    func accentReadsOnMainColour(theme: Theme) {
        let l1 = luminance(theme.mainColor)
        let l2 = luminance(theme.accentColor)
        let contrast = (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
        #expect(contrast >= 4.5, "\(theme) contrast \(contrast)")
    }

    @Test func sixteenNamedThemes() {
        #expect(Theme.allCases.count == 16)
        #expect(Theme(rawValue: "seafoam") == .seafoam)
        #expect(Theme(rawValue: "Seafoam") == nil)
    }
}
