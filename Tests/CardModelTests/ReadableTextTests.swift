import Testing

@testable import CardModel

/// The one WCAG luminance and the one readable-text rule, against published figures rather than
/// a second copy of the formula.
@Suite struct ReadableTextTests {
    static func twoDecimals(_ v: Double) -> Double { (v * 100).rounded() / 100 }

    /// Contrast ratios on white as WCAG's Understanding 1.4.3 and WebAIM's checker print them.
    @Test(arguments: [
        (0x777777, 4.48), (0x767676, 4.54), (0x000000, 21.0), (0xFFFFFF, 1.0), (0xFF0000, 4.0), (0x0000FF, 8.59),
    ])
    func publishedRatiosOnWhite(rgb: Int, ratio: Double) {
        let c = Color(rgb: UInt32(rgb))
        #expect(Self.twoDecimals(c.contrastRatio(with: .white)) == ratio)
        #expect(Self.twoDecimals(Color.white.contrastRatio(with: c)) == ratio)
    }

    @Test func luminanceEnds() {
        #expect(Color.black.relativeLuminance == 0)
        #expect(abs(Color.white.relativeLuminance - 1) < 1e-12)
    }

    /// White reads better up to #757575 and black from #767676 on (the ratios cross at a
    /// luminance of about 0.179); a rule with a fixed 0.4 threshold gave #777 white text at 4.48.
    @Test func switchesWhereTheRatiosCross() {
        #expect(Color.readableText(on: Color(rgb: 0x757575)) == .white)
        #expect(Color.readableText(on: Color(rgb: 0x767676)) == .black)
        #expect(Color.readableText(on: Color(rgb: 0x777777)) == .black)
        #expect(Color.readableText(on: Color(rgb: 0xF2F2F7)) == .black)
        #expect(Color.readableText(on: Color(rgb: 0x1C1C1E)) == .white)
        #expect(Color.readableText(on: .white, dark: Color(rgb: 0x1C1C1E)) == Color(rgb: 0x1C1C1E))
    }

    /// Black or white always reaches √21 ≈ 4.58:1 on an opaque background, so the chosen text
    /// passes WCAG AA (4.5:1) on every grey and on the primaries.
    @Test func chosenTextAlwaysPassesAA() {
        var backgrounds = (0...255).map { v in Color(rgb: UInt32(v) * 0x010101) }
        backgrounds += [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00, 0x00FFFF, 0xFF00FF].map { Color(rgb: $0) }
        for bg in backgrounds {
            let ratio = Color.readableText(on: bg).contrastRatio(with: bg)
            #expect(ratio >= 4.58, "\(bg): \(ratio)")
        }
    }
}
