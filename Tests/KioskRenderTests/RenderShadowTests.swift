import CPangoCairo
import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// The shadow blur and the shadow's composite against the plain way they were drawn before
/// they were made fast: three box passes per axis, each output summed from its box afresh (the
/// reference kept here), and cairo's mask composite at the shadow's fractional offset.
@Suite struct RenderShadowTests {
    /// The blur by definition: three box passes per axis, one pixel at a time, rows then
    /// columns, each pass rounded to a byte, zeros beyond the edges.
    enum ReferenceBlur {
        static func gaussian(_ data: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, sigma: Double) {
            let rs = BoxBlur.radii(sigma: sigma)
            guard !rs.isEmpty else { return }
            let n = max(width, height)
            let line = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
            defer {
                line.deallocate()
                out.deallocate()
            }
            for y in 0..<height {
                for r in rs { pass(data + y * stride, step: 1, count: width, radius: r, line: line, out: out) }
            }
            for x in 0..<width {
                for r in rs { pass(data + x, step: stride, count: height, radius: r, line: line, out: out) }
            }
        }

        static func pass(
            _ p: UnsafeMutablePointer<UInt8>, step: Int, count: Int, radius r: Int, line: UnsafeMutablePointer<UInt8>,
            out: UnsafeMutablePointer<UInt8>
        ) {
            guard r > 0 else { return }
            for i in 0..<count { line[i] = p[i * step] }
            // The box's definition: each output the rounded mean of the 2r + 1 inputs around it,
            // summed afresh (not the running sum the renderer keeps), zeros beyond the edges.
            let width = 2 * r + 1
            for i in 0..<count {
                var sum = 0
                for j in max(0, i - r)...min(count - 1, i + r) { sum += Int(line[j]) }
                out[i] = UInt8((sum + width / 2) / width)
            }
            for i in 0..<count { p[i * step] = out[i] }
        }
    }

    /// `width`×`height` bytes `stride` apart: noise (no two neighbours alike, no equal rows) or
    /// a filled rounded rectangle (the outline a card's shadow is blurred from).
    static func image(width: Int, height: Int, stride: Int, noise: Bool, seed: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xEE, count: stride * height)
        var random = RenderFixtures.Random(state: seed)
        let corner = Double(min(width, height)) / 4
        for y in 0..<height {
            for x in 0..<width {
                let v: UInt8
                if noise {
                    v = UInt8(truncatingIfNeeded: random.next())
                } else {
                    // Inside a rectangle inset by a fifth, corners rounded, edges antialiased.
                    let (x0, y0) = (Double(width) / 5, Double(height) / 5)
                    let (x1, y1) = (Double(width) - x0, Double(height) - y0)
                    let px = min(max(Double(x) + 0.5, x0 + corner), x1 - corner)
                    let py = min(max(Double(y) + 0.5, y0 + corner), y1 - corner)
                    let d =
                        ((Double(x) + 0.5 - px) * (Double(x) + 0.5 - px) + (Double(y) + 0.5 - py)
                            * (Double(y) + 0.5 - py))
                        .squareRoot()
                    let inX = Double(x) + 0.5 >= x0 && Double(x) + 0.5 <= x1
                    let inY = Double(y) + 0.5 >= y0 && Double(y) + 0.5 <= y1
                    v = inX && inY ? UInt8(max(0, min(255, (corner - d + 0.5) * 255))) : 0
                }
                bytes[y * stride + x] = v
            }
        }
        return bytes
    }

    /// Noise and outlines at odd sizes (narrower than a box, one pixel, not a whole vector),
    /// at sigmas from none to beyond the 16-bit lanes (the plain path): the same bytes, and the
    /// bytes between rows (`stride` padding) untouched.
    @Test func blurIsTheReferenceBlur() {
        let sizes = DeckFixtures.underEmulation ? [(1, 1), (37, 23)] : [(1, 1), (5, 40), (16, 3), (37, 23), (83, 61)]
        let sigmas = DeckFixtures.underEmulation ? [0.4, 3.6, 150] : [0.4, 0.8, 1.7, 3.6, 7.2, 16.2, 40, 150]
        var seed: UInt64 = 1
        for (width, height) in sizes {
            for sigma in sigmas {
                for noise in [true, false] {
                    seed += 1
                    let stride = width + 3
                    let image = Self.image(width: width, height: height, stride: stride, noise: noise, seed: seed)
                    let differing = Self.bytesDifferingFromReference(
                        image, width: width, height: height, stride: stride, sigma: sigma)
                    #expect(
                        differing == 0, "\(width)x\(height) sigma \(sigma) noise \(noise): \(differing) bytes differ")
                }
            }
        }
    }

    /// How many bytes of `image` blurred by `BoxBlur` differ from the reference blur's.
    static func bytesDifferingFromReference(
        _ image: [UInt8], width: Int, height: Int, stride: Int, sigma: Double
    ) -> Int {
        var expected = image
        var got = image
        expected.withUnsafeMutableBufferPointer {
            ReferenceBlur.gaussian($0.baseAddress!, width: width, height: height, stride: stride, sigma: sigma)
        }
        got.withUnsafeMutableBufferPointer {
            BoxBlur.gaussian($0.baseAddress!, width: width, height: height, stride: stride, sigma: sigma)
        }
        return zip(expected, got).filter { $0 != $1 }.count
    }

    /// Outlines tall enough that their run of equal rows is longer than the passes reach, so
    /// only part of it goes down the columns (the rest is the run's middle row): the same
    /// bytes as the reference, with the run in the middle, near an edge or the whole image.
    @Test func blurOfLongRunsIsTheReferenceBlur() {
        let sizes = DeckFixtures.underEmulation ? [(40, 300)] : [(40, 300), (83, 500), (17, 200), (33, 90)]
        let sigmas = DeckFixtures.underEmulation ? [7.2] : [0.8, 1.7, 3.6, 7.2, 16.2, 40]
        for (width, height) in sizes {
            for sigma in sigmas {
                let stride = width + 5
                let outline = Self.image(width: width, height: height, stride: stride, noise: false, seed: 0)
                // The same outline moved up to the image's top edge, and an image of one row repeated.
                var top = outline
                top.removeFirst(stride * height / 5)
                top += [UInt8](repeating: 0, count: stride * height / 5)
                let flat = [UInt8]((0..<(stride * height)).map { UInt8(truncatingIfNeeded: ($0 % stride) * 7) })
                for (name, image) in [("outline", outline), ("top", top), ("flat", flat)] {
                    let differing = Self.bytesDifferingFromReference(
                        image, width: width, height: height, stride: stride, sigma: sigma)
                    #expect(differing == 0, "\(name) \(width)x\(height) sigma \(sigma): \(differing) bytes differ")
                }
            }
        }
    }

    /// The 16-bit reciprocal replaces the division for every box up to 201 pixels wide
    /// (σ ≈ 58 px; a card's dragged shadow at 4 pixels per point has σ = 36), checked over every
    /// sum; beyond that the blur takes the plain path.
    @Test func reciprocalIsExactForEveryBoxACardUses() {
        for r in [1, 2, 3, 7, 15, 31, 63, 100] {
            let d = BoxBlur.Divisor(radius: r)
            #expect(d.isExact, "radius \(r)")
            let largest = 255 * d.width + r
            for n in [0, r, d.width - 1, d.width, largest / 2, largest - d.width, largest] {
                #expect(d.divide(UInt32(n)) == UInt32(n / d.width), "radius \(r) n \(n)")
            }
        }
        #expect(!BoxBlur.Divisor(radius: 128).isExact)
    }

    /// An element drawn the old way: its outline filled into an A8 mask at the image origin,
    /// blurred by the reference, composited by cairo at the shadow's offset (fractional: cairo
    /// samples the mask bilinearly), then the element over it.
    static func referenceRender(_ card: Card, size: Size, radius: Double, k: Double) throws -> CairoImage {
        let l = ElementSurface.layout(for: size, shadowRadius: radius, pixelsPerPoint: k)
        let image = try #require(CairoImage(width: l.width, height: l.height))
        let mask = try #require(CairoImage(width: l.width, height: l.height, format: CAIRO_FORMAT_A8))
        mask.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY))
            cairo_scale(cr, k, k)
            Draw.roundedRect(cr, x: 0, y: 0, width: size.width, height: size.height, radius: 22)
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_fill(cr)
        }
        ReferenceBlur.gaussian(
            mask.data.assumingMemoryBound(to: UInt8.self), width: l.width, height: l.height, stride: mask.stride,
            sigma: radius / 2 * k)
        mask.markDirty()
        image.draw { cr in
            cairo_set_source_rgba(cr, 0, 0, 0, ElementSurface.shadowOpacity)
            cairo_mask_surface(cr, mask.surface, 0, ElementSurface.shadowOffset(radius: radius) * k)
        }
        image.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY))
            cairo_scale(cr, k, k)
            ElementPainter(background: .white).paint(.card(card), size: size, cr: cr)
        }
        return image
    }

    /// The largest difference of one channel (alpha included) between two ARGB32 images of one size.
    static func maxDifference(_ a: CairoImage, _ b: CairoImage) -> Int {
        var worst = 0
        for y in 0..<a.height {
            let p = a.data.advanced(by: y * a.stride).assumingMemoryBound(to: UInt32.self)
            let q = b.data.advanced(by: y * b.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<a.width where p[x] != q[x] {
                for shift: UInt32 in [0, 8, 16, 24] {
                    worst = max(worst, abs(Int((p[x] >> shift) & 0xFF) - Int((q[x] >> shift) & 0xFF)))
                }
            }
        }
        return worst
    }

    /// The largest channel difference allowed between a card drawn now and drawn the old way:
    /// the shadow's offset is now part of the outline blurred, not a bilinear shift of the
    /// blurred mask (see docs/PERFORMANCE.md, "The shadow").
    static let tolerance = 1

    /// Every size a stack card is drawn at on a golden test's panel (0.8 px/pt: the four resting
    /// depths 1, 0.96, 0.92, 0.88), resting and dragged shadows: within `tolerance` of the old
    /// drawing, and a second card of the size (its mask from `ShadowMasks`) drawn byte for byte
    /// the same. (At 1.8 px/pt, a 1080p panel, the difference is 1 as well; too slow for a debug
    /// test, `blurIsTheReferenceBlur` covers its σ.)
    @Test func cardShadowsMatchTheOldShadow() throws {
        let card = BuiltInCards.stack[1]
        let size = StackLayout.cardSize
        let scales: [Double] = DeckFixtures.underEmulation ? [0.704] : [0.8, 0.768, 0.736, 0.704]
        var cases: [(k: Double, radius: Double)] = []
        for k in scales {
            cases.append((k, 8))
            cases.append((k, 18))
        }
        let painter = ElementPainter(background: .white)
        for (k, radius) in cases {
            // Its own masks, apart from other tests drawing at the same time.
            let masks = ShadowMasks(capacity: 4)
            let reference = try Self.referenceRender(card, size: size, radius: radius, k: k)
            let fresh = try #require(
                ElementSurface.render(
                    .card(card), size: size, shadowRadius: radius, pixelsPerPoint: k, painter: painter, masks: masks))
            let hits = masks.hits
            let reused = try #require(
                ElementSurface.render(
                    .card(card), size: size, shadowRadius: radius, pixelsPerPoint: k, painter: painter, masks: masks))
            #expect(masks.hits == hits + 1, "k \(k) radius \(radius): the mask was not reused")
            let worst = Self.maxDifference(fresh.image, reference)
            #expect(worst <= Self.tolerance, "k \(k) radius \(radius): a channel differs by \(worst)")
            #expect(Self.maxDifference(fresh.image, reused.image) == 0, "k \(k) radius \(radius)")
        }
    }

    /// The shadow is there: below the card it is darker than above it (the offset), it fades
    /// to nothing at the image's edge, and the corners stay round (a corner pixel is lighter
    /// than the middle of an edge at the same distance).
    @Test func shadowHasItsShape() throws {
        let painter = ElementPainter(background: .white)
        let size = Size(width: 100, height: 140)
        let e = try #require(
            ElementSurface.render(
                .card(BuiltInCards.stack[0]), size: size, shadowRadius: 18, pixelsPerPoint: 1, painter: painter))
        let l = ElementSurface.layout(for: size, shadowRadius: 18, pixelsPerPoint: 1)
        func alpha(_ x: Int, _ y: Int) -> Int {
            Int(e.image.data.load(fromByteOffset: y * e.image.stride + x * 4, as: UInt32.self) >> 24)
        }
        let cx = l.originX + 50
        #expect(alpha(cx, l.originY + 140 + 6) > alpha(cx, l.originY - 6))
        #expect(alpha(cx, l.originY + 140 + 6) > 0)
        #expect(alpha(0, 0) == 0 && alpha(l.width - 1, l.height - 1) == 0)
        #expect(alpha(l.originX - 4, l.originY - 4) < alpha(l.originX - 4, l.originY + 70))
    }

    /// The row extents an element image keeps (drawn span, longest opaque run) as a plain scan
    /// of every pixel finds them: on a card with its shadow, on noise with opaque runs of every
    /// length, on an empty image.
    @Test func rowExtentsAreThoseOfAPlainScan() throws {
        func plain(_ image: CairoImage) -> [RowExtent] {
            (0..<image.height).map { y in
                var (first, last, best, runStart) = (-1, -1, (0, 0), -1)
                for x in 0..<image.width {
                    let p = image.data.load(fromByteOffset: y * image.stride + 4 * x, as: UInt32.self)
                    if p != 0 {
                        if first < 0 { first = x }
                        last = x
                    }
                    if p >> 24 == 255 {
                        if runStart < 0 { runStart = x }
                        if x + 1 - runStart > best.1 - best.0 { best = (runStart, x + 1) }
                    } else {
                        runStart = -1
                    }
                }
                guard first >= 0 else { return .empty }
                return RowExtent(
                    first: Int32(first), end: Int32(last + 1), opaqueFirst: Int32(best.0), opaqueEnd: Int32(best.1))
            }
        }
        let card = try #require(
            ElementSurface.render(
                .card(BuiltInCards.stack[2]), size: Size(width: 80, height: 110), shadowRadius: 8, pixelsPerPoint: 1,
                painter: ElementPainter(background: .white)))
        let noise = try RenderFixtures.noiseImage(width: 61, height: 40, seed: 7)
        let empty = try #require(CairoImage(width: 9, height: 3))
        for image in [card.image, noise.image, empty] {
            let got = RowExtent.measure(image)
            let expected = plain(image)
            #expect(got.count == expected.count)
            for (y, (a, b)) in zip(got, expected).enumerated() {
                #expect(
                    a.first == b.first && a.end == b.end && a.opaqueFirst == b.opaqueFirst
                        && a.opaqueEnd == b.opaqueEnd,
                    "row \(y): \(a) != \(b)")
            }
        }
    }
}

/// The shadow mask as kept (`ShadowMask`: each row without its longest run of 255) gives back
/// every byte it was made from, and a card's mask keeps far fewer bytes than its pixels.
@Suite struct RenderShadowMaskTests {
    /// Rows of noise with runs of 255 of every length, rows all 255 and rows with none.
    @Test func keptMaskExpandsToTheBytesItWasMadeFrom() {
        var random = SplitMix64(seed: 31)
        let (width, height, stride) = (37, 60, 40)
        var data = [UInt8](repeating: 7, count: stride * height)
        for y in 0..<height {
            for x in 0..<width { data[y * stride + x] = UInt8(truncatingIfNeeded: random.next() % 255) }
            switch y % 4 {
            case 0: for x in 0..<width { data[y * stride + x] = 255 }
            case 1: break
            default:
                // Two runs, the second longer unless the row says otherwise.
                let a = Int(random.next() % UInt64(width))
                let b = a + Int(random.next() % UInt64(width - a + 1))
                for x in a..<b { data[y * stride + x] = 255 }
                if y % 3 == 0 { data[y * stride] = 255 }
            }
        }
        // Rows equal to the one above (kept once).
        for y in 41..<47 { data[(y * stride)..<(y * stride + width)] = data[(40 * stride)..<(40 * stride + width)] }
        let mask = data.withUnsafeBufferPointer {
            ShadowMask($0.baseAddress!, width: width, height: height, stride: stride)
        }
        var out = [UInt8](repeating: 0, count: width)
        for y in 0..<height {
            out.withUnsafeMutableBufferPointer { mask.expand(row: y, into: $0.baseAddress!) }
            #expect(out == Array(data[(y * stride)..<(y * stride + width)]), "row \(y)")
        }
    }

    /// A card's dragged shadow on the golden tests' panel (0.8 px/pt): the mask kept expands
    /// to the blur of the card's outline done here with the reference blur, and holds under
    /// half of its bytes.
    @Test func cardMaskIsKeptExactlyInLessThanHalf() throws {
        let (size, radius, k) = (StackLayout.cardSize, StackLayout.dragShadow, 0.8)
        let card = ElementKind.card(BuiltInCards.stack[0])
        let l = ElementSurface.layout(for: size, shadowRadius: radius, pixelsPerPoint: k)
        let masks = ShadowMasks(capacity: 1)
        let mask = try #require(
            ElementSurface.shadowAlpha(card, size: size, radius: radius, k: k, layout: l, masks: masks))
        let outline = try #require(CairoImage(width: l.width, height: l.height, format: CAIRO_FORMAT_A8))
        outline.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY) + ElementSurface.shadowOffset(radius: radius) * k)
            cairo_scale(cr, k, k)
            Draw.roundedRect(
                cr, x: 0, y: 0, width: size.width, height: size.height, radius: ElementPainter.cornerRadius(card))
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_fill(cr)
        }
        let data = outline.data.assumingMemoryBound(to: UInt8.self)
        RenderShadowTests.ReferenceBlur.gaussian(
            data, width: l.width, height: l.height, stride: outline.stride, sigma: radius / 2 * k)
        var out = [UInt8](repeating: 0, count: l.width)
        var rowsDiffering = 0
        for y in 0..<l.height {
            out.withUnsafeMutableBufferPointer { mask.expand(row: y, into: $0.baseAddress!) }
            if out != Array(UnsafeBufferPointer(start: data + y * outline.stride, count: l.width)) {
                rowsDiffering += 1
            }
        }
        #expect(rowsDiffering == 0)
        #expect(mask.byteCount * 2 < l.width * l.height, "\(mask.byteCount) of \(l.width * l.height) bytes")
    }
}
