import CardModel
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// The list's large title fits its 56 pt bar in every script: Noto Sans Arabic's line at
/// 34 pt is taller than the bar leaves, so the painter takes a smaller size instead of
/// letting the line start above the bar (its tops were cut off).
@Suite struct TitleBarFitTests {
    /// Rows of `image` (y) holding dark ink: the title's glyphs on the light bar.
    static func inkRows(_ image: PixelBuffer) -> [Int] {
        (0..<image.height).filter { y in
            (0..<image.width).contains { x in
                let p = image.pixel(x: x, y: y)
                return (p & 0xFF) < 96 && (p >> 8 & 0xFF) < 96 && (p >> 16 & 0xFF) < 96
            }
        }
    }

    @Test(arguments: ["أهلاً وسهلاً", "Color Cards", "Grüße aus Köln", "欢迎光临"])
    func theTitlesWholeLineIsInsideTheBar(title: String) throws {
        let bar = Rect(x: 0, y: 0, width: 800, height: ListLayout.minimumTitleBarHeight)
        let scene = Scene(
            size: Size(width: 800, height: 120), background: Color(rgb: 0xF2F2F7),
            elements: [SceneElement(id: "titlebar", kind: .titleBar(title: title), frame: bar, zIndex: 300)],
            isAnimating: false)
        let image = RenderFixtures.render(scene, width: 800, height: 120, scale: 1)
        let rows = Self.inkRows(image)
        let first = try #require(rows.first, "\(title): nothing drawn")
        let last = try #require(rows.last)
        // Ink starts below the bar's top edge (a cut glyph has ink in the very first row) and
        // ends inside the bar.
        #expect(first >= 2, "\(title): ink from row \(first), cut at the top")
        #expect(last < Int(ListLayout.minimumTitleBarHeight), "\(title): ink down to row \(last)")
        // Legible: at least 20 pt tall lines, so the glyphs span well over 14 rows.
        #expect(last - first >= 14, "\(title): only \(last - first + 1) rows of ink")
    }
}
