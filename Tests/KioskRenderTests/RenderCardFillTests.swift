import CPangoCairo
import CardModel
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// A card's fill with its inside rows filled directly (`ElementPainter.fillCard`) against
/// cairo's own fill of the whole outline: byte for byte, on every stack card, at the scales the
/// panels draw them (the resting depths at 0.8 and 1.8 px/pt, a dragged card's), mirrored, on
/// a coloured background, with and without a shadow beneath; and not at all where a row is not
/// one value (a turned context) or where cairo would not draw every pixel (a clip).
@Suite struct RenderCardFillTests {
    static let size = Size(width: 360, height: 480)

    /// Every pixel of `a` and `b`; the first that differs, as "x,y a b".
    static func firstDifference(_ a: CairoImage, _ b: CairoImage) -> String? {
        guard a.width == b.width, a.height == b.height else {
            return "sizes \(a.width)x\(a.height) \(b.width)x\(b.height)"
        }
        for y in 0..<a.height {
            let p = a.data.advanced(by: y * a.stride).assumingMemoryBound(to: UInt32.self)
            let q = b.data.advanced(by: y * b.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<a.width where p[x] != q[x] {
                return "\(x),\(y) \(String(p[x], radix: 16)) \(String(q[x], radix: 16))"
            }
        }
        return nil
    }

    static let cases: [(k: Double, shadow: Double, mirrored: Bool, background: Color)] = [
        (0.8, 8, false, .white), (0.768, 8, false, .white), (0.736, 8, true, .white), (0.704, 8, false, .white),
        (1.8, 8, false, .white), (1.728, 8, false, Color(rgb: 0x1C1C1E)), (1.656, 0, true, .white),
        (1.584, 18, false, Color(rgb: 0xF2F2F7)), (1.333, 18, true, Color(rgb: 0x20406A)), (0.5, 0, false, .white),
    ]

    @Test(arguments: 0..<cases.count)
    func cardsMatchCairosFill(_ index: Int) throws {
        let c = Self.cases[index]
        for card in BuiltInCards.stack {
            let kind: ElementKind = c.mirrored ? ElementKind.card(card).mirrored : .card(card)
            var plain = ElementPainter(background: c.background)
            plain.fillsRowsDirectly = false
            let fast = ElementPainter(background: c.background)
            let masks = ShadowMasks(capacity: 2)
            let expected = try #require(
                ElementSurface.render(
                    kind, size: Self.size, shadowRadius: c.shadow, pixelsPerPoint: c.k, painter: plain, masks: masks))
            let got = try #require(
                ElementSurface.render(
                    kind, size: Self.size, shadowRadius: c.shadow, pixelsPerPoint: c.k, painter: fast, masks: masks))
            let difference = Self.firstDifference(got.image, expected.image)
            #expect(difference == nil, "\(card.id) at \(c.k) px/pt, shadow \(c.shadow), mirrored \(c.mirrored)")
        }
    }

    /// The rows filled directly cover most of a card at rest (the fast path runs), and lie at
    /// least a pixel inside the outline, clear of the corners.
    @Test func rowsLieInsideTheOutline() throws {
        let k = 1.8
        let image = try #require(CairoImage(width: 700, height: 900))
        let rows = image.draw { cr in
            cairo_translate(cr, 10, 12)
            cairo_scale(cr, k, k)
            return ElementPainter.uniformRows(cr, w: Self.size.width, h: Self.size.height, radius: 22)
        }
        let area = rows.reduce(0) { $0 + $1.width * $1.height }
        #expect(Double(area) > 0.8 * Self.size.width * Self.size.height * k * k)
        // Every band's corners inside the outline inset by a pixel.
        let centre = Point(x: 10 + Self.size.width * k / 2, y: 12 + Self.size.height * k / 2)
        let half = Size(width: Self.size.width * k / 2 - 1, height: Self.size.height * k / 2 - 1)
        for band in rows {
            for (x, y) in [(band.x, band.y), (band.maxX, band.y), (band.x, band.maxY), (band.maxX, band.maxY)] {
                let p = Point(x: Double(x), y: Double(y))
                #expect(
                    SceneRenderer.insideRoundedRect(p, centre: centre, half: half, radius: 22 * k - 1),
                    "\(band) corner \(x),\(y)")
            }
        }
    }

    /// A card drawn framed (a covered card's image, drawn with a hole): its strips cover every
    /// pixel outside the hole once and hold the pixels drawn without the hole there, for holes
    /// inside the card, across its edge and in its shadow; the whole image's row extents are
    /// its own outside the hole's rows.
    @Test func aFramedCardHoldsEveryOtherPixelAsItWas() throws {
        let k = 1.8
        let kind = ElementKind.card(BuiltInCards.stack[2])
        let painter = ElementPainter(background: .white)
        let l = ElementSurface.layout(for: Self.size, shadowRadius: 8, pixelsPerPoint: k)
        let whole = try #require(
            ElementSurface.render(kind, size: Self.size, shadowRadius: 8, pixelsPerPoint: k, painter: painter))
        let holes = [
            PixelRect(x: l.originX + 30, y: l.originY - 5, width: 500, height: 700),
            PixelRect(x: 0, y: 100, width: l.originX + 3, height: 50),
            PixelRect(x: l.originX + 1, y: l.originY + 60, width: 3, height: 600),
            PixelRect(x: l.originX + 20, y: l.originY + 20, width: 560, height: 800),
        ]
        for hole in holes {
            let framed = try #require(
                ElementSurface.renderFramed(
                    kind, size: Self.size, shadowRadius: 8, pixelsPerPoint: k, painter: painter, hole: hole))
            #expect(framed.hole == hole)
            #expect(framed.width == l.width && framed.height == l.height)
            #expect(framed.anchorX == whole.anchorX && framed.anchorY == whole.anchorY)
            var held = [Int](repeating: 0, count: l.width * l.height)
            var differing = 0
            for piece in framed.pieces {
                let strip = piece.image.image
                for y in 0..<strip.height {
                    let p = strip.data.advanced(by: y * strip.stride).assumingMemoryBound(to: UInt32.self)
                    let q = whole.image.data.advanced(by: (piece.y + y) * whole.image.stride)
                        .assumingMemoryBound(to: UInt32.self)
                    for x in 0..<strip.width {
                        held[(piece.y + y) * l.width + piece.x + x] += 1
                        if p[x] != q[piece.x + x] { differing += 1 }
                    }
                }
            }
            #expect(differing == 0, "hole \(hole): \(differing) pixels outside it differ")
            var wrong = 0
            for y in 0..<l.height {
                for x in 0..<l.width {
                    let inside = x >= hole.x && x < hole.maxX && y >= hole.y && y < hole.maxY
                    if held[y * l.width + x] != (inside ? 0 : 1) { wrong += 1 }
                }
            }
            #expect(wrong == 0, "hole \(hole): \(wrong) pixels held other than once outside it")
            for y in 0..<l.height where y < hole.y || y >= hole.maxY {
                let (a, b) = (framed.extents[y], whole.rows[y])
                #expect(
                    a.first == b.first && a.end == b.end && a.opaqueFirst == b.opaqueFirst
                        && a.opaqueEnd == b.opaqueEnd,
                    "hole \(hole), row \(y): extents differ")
            }
        }
    }

    /// A framed card counts its hole opaque (the card above writes it): with the hole inside
    /// the card's opaque inside, every row's drawn span and opaque run are the whole image's.
    @Test func aFramedCardCountsItsHoleOpaque() throws {
        let k = 1.8
        let kind = ElementKind.card(BuiltInCards.stack[1])
        let painter = ElementPainter(background: .white)
        let l = ElementSurface.layout(for: Self.size, shadowRadius: 8, pixelsPerPoint: k)
        let whole = try #require(
            ElementSurface.render(kind, size: Self.size, shadowRadius: 8, pixelsPerPoint: k, painter: painter))
        let hole = PixelRect(x: l.originX + 40, y: l.originY + 40, width: 400, height: 600)
        let framed = try #require(FramedImage(whole, hole: hole))
        var differing: [Int] = []
        for y in 0..<l.height {
            let (a, b) = (framed.extents[y], whole.rows[y])
            if a.first != b.first || a.end != b.end || a.opaqueFirst != b.opaqueFirst || a.opaqueEnd != b.opaqueEnd {
                differing.append(y)
            }
        }
        #expect(differing.isEmpty, "rows whose extents differ: \(differing.prefix(10))")
        #expect(framed.byteCount == (l.width * l.height - hole.width * hole.height) * 4, "the strips hold the rest")
    }

    /// What `subtracting` leaves of an area: disjoint pieces inside it that, with the
    /// rectangles taken away, cover every pixel of it once.
    @Test func subtractingCoversTheRestOnce() {
        let area = PixelRect(x: 3, y: 2, width: 40, height: 30)
        let cases: [[PixelRect]] = [
            [], [PixelRect(x: 10, y: 8, width: 20, height: 10)],
            [PixelRect(x: 0, y: 5, width: 60, height: 4), PixelRect(x: 20, y: 12, width: 5, height: 40)],
            [PixelRect(x: 10, y: 8, width: 20, height: 10), PixelRect(x: 15, y: 4, width: 10, height: 20)],
        ]
        for rects in cases {
            let pieces = ElementPainter.subtracting(rects, from: area)
            for y in area.y..<area.maxY {
                for x in area.x..<area.maxX {
                    let inside = { (r: PixelRect) in x >= r.x && x < r.maxX && y >= r.y && y < r.maxY }
                    let covers = pieces.filter(inside).count + (rects.contains(where: inside) ? 1 : 0)
                    #expect(covers == 1, "\(rects): pixel \(x),\(y) covered \(covers) times")
                }
            }
            #expect(pieces.allSatisfy { $0.intersection(area) == $0 })
        }
    }

    /// A turned context (the gradient is not one colour along a row) and a clipped one (cairo
    /// draws only inside the clip) are left to cairo: no rows.
    @Test func turnedOrClippedContextsAreCairos() throws {
        let image = try #require(CairoImage(width: 400, height: 500))
        image.draw { cr in
            cairo_translate(cr, 200, 250)
            cairo_rotate(cr, 0.05)
            #expect(ElementPainter.uniformRows(cr, w: 300, h: 400, radius: 22).isEmpty)
        }
        image.draw { cr in
            cairo_rectangle(cr, 0, 0, 100, 100)
            cairo_clip(cr)
            #expect(ElementPainter.uniformRows(cr, w: 300, h: 400, radius: 22).isEmpty)
        }
        image.draw { cr in
            #expect(!ElementPainter.uniformRows(cr, w: 300, h: 400, radius: 22).isEmpty)
        }
    }
}
