import CardModel
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// `RowMeasure` (eight pixels a step) gives exactly what `RowExtent.measure` and
/// `RowRun.measure` (one pixel at a time) give: the compositor's shortcuts read these, so a
/// wrong extent or band would move pixels.
@Suite struct RenderRowMeasureTests {
    static func expectSame(_ image: CairoImage, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = RowMeasure.measure(image)
        let extents = RowExtent.measure(image)
        let runs = RowRun.measure(image)
        #expect(fast.extents.count == image.height, sourceLocation: sourceLocation)
        #expect(fast.runs.count == image.height, sourceLocation: sourceLocation)
        func same(_ a: RowExtent, _ b: RowExtent) -> Bool {
            (a.first, a.end, a.opaqueFirst, a.opaqueEnd) == (b.first, b.end, b.opaqueFirst, b.opaqueEnd)
        }
        func same(_ a: RowRun.Band, _ b: RowRun.Band) -> Bool {
            (a.color, a.first, a.last, a.end) == (b.color, b.first, b.last, b.end)
        }
        let badExtent = extents.indices.first { !same(fast.extents[$0], extents[$0]) }
        let badRun = runs.indices.first {
            !same(fast.runs[$0].down, runs[$0].down) || !same(fast.runs[$0].up, runs[$0].up)
        }
        #expect(badExtent == nil, "\(what): row \(badExtent ?? -1)'s extent differs", sourceLocation: sourceLocation)
        #expect(badRun == nil, "\(what): row \(badRun ?? -1)'s band differs", sourceLocation: sourceLocation)
    }

    /// Every kind of element the decks show, drawn as the renderer draws them (shadows, text,
    /// gradients, the photo placeholder, a detail page), at two densities.
    @Test func elementImagesMeasureTheSame() throws {
        let size = Size(width: 800, height: 480)
        let stack = DeckScenes.stack(BuiltInCards.stack, size: size, drag: Point(x: 80, y: 0), buttons: true)
        let list = DeckScenes.list(BuiltInCards.stack, size: size, swipe: -60)
        var elements = stack.elements + list.elements
        let card = try #require(BuiltInCards.stack.first)
        elements.append(
            SceneElement(
                id: "detail",
                kind: .detailPage(
                    card, backTitle: "Back", barHeight: 56, back: Rect(x: 8, y: 6, width: 220, height: 44)),
                frame: Rect(origin: .zero, size: size),
                zIndex: 0))
        #expect(elements.count >= 8)
        let densities = DeckFixtures.underEmulation ? [0.5] : [0.8]
        for k in densities {
            for e in elements {
                let painter = ElementPainter(background: stack.background, images: nil)
                let drawn = ElementSurface.render(
                    e.kind, size: e.frame.size, shadowRadius: e.shadowRadius, pixelsPerPoint: k, painter: painter)
                let image = try #require(drawn)
                Self.expectSame(image.image, "\(e.id) at \(k) px/pt")
            }
        }
    }

    /// Rows of random runs: lengths across the eight-pixel steps, ties between equal runs,
    /// transparent, opaque and translucent pixels, odd widths, rows with nothing.
    @Test func randomRunsMeasureTheSame() throws {
        var rng = SplitMix64(seed: 14)
        let values: [UInt32] = [0, 0xFF00_0000, 0xFF12_3456, 0x8000_0000, 0x4010_2030, 0xFF12_3457, 0x0000_0001]
        for trial in 0..<(DeckFixtures.underEmulation ? 12 : 60) {
            let w = 1 + Int(rng.next() % 70)
            let h = 1 + Int(rng.next() % 12)
            let image = try #require(CairoImage(width: w, height: h))
            let pixels = image.data.assumingMemoryBound(to: UInt32.self)
            for y in 0..<h {
                let row = pixels + y * image.stride / 4
                var x = 0
                // Some rows empty, the others runs of 1 to 20 pixels of a few values.
                let empty = rng.next() % 5 == 0
                while x < w {
                    let n = min(w - x, 1 + Int(rng.next() % 20))
                    let v = empty ? 0 : values[Int(rng.next() % UInt64(values.count))]
                    for i in 0..<n { row[x + i] = v }
                    x += n
                }
            }
            Self.expectSame(image, "random image \(trial) (\(w)×\(h))")
        }
    }
}
