import CardModel
import KioskDeckFiles
import KioskTestSupport
import Testing

@testable import KioskRender

/// The list as `run` lays it out, on every supported panel: the "Aa" control sits in a band
/// along the bottom that rows scroll under, so it never covers a row's hit target or its
/// chevron, and the last row scrolls fully clear of it.
@Suite struct ListControlOverlapTests {
    /// A list deck with `n` rows (more than any panel shows at once).
    static func longList(_ n: Int) throws -> DeckFile {
        var file = try DeckLoader.load(path: DeckFixtures.packageRoot + "/examples/seed-list.json").get()
        let base = file.cards
        file.cards = (0..<n).map { i in
            var c = base[i % base.count]
            c.id = "row\(i)"
            return c
        }
        return file
    }

    @Test(arguments: AccessPanelTests.panels)
    func theControlCoversNoRowOrChevronAtAnyScroll(panel: AccessPanelTests.Panel) throws {
        let g = PanelGeometry(pixelWidth: panel.pixels.0, pixelHeight: panel.pixels.1, millimetres: panel.millimetres)
        let perMM = g.metrics.pointsPerMillimetre
        let file = try Self.longList(DeckFixtures.underEmulation ? 30 : 40)
        var deck = try #require(
            Kiosk.makeDeck(file.kioskDeck(), metrics: g.metrics, buttons: true) as? ListDeck)
        let control = AccessibilityControl(screen: g.metrics.size, pointsPerMillimetre: perMM, trailing: true)
        let button = control.buttonFrame
        // Taps on the control never reach a row: it is outside where rows are hit.
        #expect(deck.layout.viewport.intersection(button).isEmpty, "\(panel): the control is inside the rows' area")
        let band = try #require(deck.layout.bottomBar)
        #expect(band.intersection(button) == button, "\(panel): the control is outside the bottom band")

        var t = Instant.seconds(1)
        for step in 0..<file.cards.count {
            let scene = deck.scene(at: t)
            let bar = try #require(scene.elements.first { $0.kind == .bottomBar })
            let rows = scene.elements.filter { if case .row = $0.kind { true } else { false } }
            #expect(!rows.isEmpty)
            for row in rows {
                #expect(row.zIndex < bar.zIndex, "\(panel): a row is drawn over the bottom band")
                // What shows of the row is above the band (the band is drawn over the rest).
                let shown = row.frame.intersection(deck.layout.viewport)
                #expect(shown.intersection(button).isEmpty, "\(panel) step \(step): \(row.id) under the control")
                let chevron = Rect(x: row.frame.maxX - 27, y: row.frame.center.y - 7, width: 14, height: 14)
                if chevron.maxY <= band.minY {
                    #expect(chevron.intersection(button).isEmpty, "\(panel) step \(step): \(row.id)'s chevron covered")
                }
            }
            deck.perform(.focusNext, at: t)
            t = t.advanced(bySeconds: 2)
        }
        // At the end the last row is wholly above the band.
        let last = try #require(deck.scene(at: t).elements.first { $0.id.hasSuffix("row\(file.cards.count - 1)") })
        #expect(last.frame.maxY <= band.minY, "\(panel): the last row cannot scroll clear of the control")
    }
}
