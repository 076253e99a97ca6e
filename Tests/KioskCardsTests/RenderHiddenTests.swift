import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// Pixels a moving element leaves undrawn because one drawn later covers them opaquely
/// (`Compositor.Hidden`): the frame must equal the one drawn without skipping, for both kernels,
/// flat and photo cards, scaled, unturned and turned elements — and every skipped pixel must be
/// written by the cover (the targets start as garbage where the frame draws).
@Suite struct RenderHiddenTests {
    /// Draws `layers` bottom first (the lowest over `base`, the rest blended), with or without
    /// the hidden spans, into a copy of `start`; returns the pixels and how many were hidden.
    static func drawn(
        _ layers: [Compositor.Layer], base: PixelBuffer, start: PixelBuffer, skipping: Bool,
        kernel: Compositor.Kernel
    ) -> ([UInt32], Int) {
        let target = PixelBuffer(width: start.width, height: start.height)
        Compositor.copy(target.bounds, from: start, to: target)
        let hidden = skipping ? Compositor.hidden(layers, bounds: target.bounds) : []
        for (i, l) in layers.enumerated() {
            Compositor.draw(
                l.image, at: l.placement, opacity: l.opacity, into: target, base: i == 0 ? base : nil, clip: l.clip,
                hidden: i < hidden.count ? hidden[i] : nil, kernel: kernel)
        }
        // Row by row, raw (the buffer's stride may pad rows).
        var pixels: [UInt32] = []
        pixels.reserveCapacity(target.width * target.height)
        for y in 0..<target.height {
            let row = (target.pixels + y * target.stride).assumingMemoryBound(to: UInt32.self)
            pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: target.width))
        }
        return (pixels, hidden.reduce(0) { $0 + ($1?.pixels ?? 0) })
    }

    static func card(_ card: Card, images: ImageCache?, scale: Double) throws -> ElementImage {
        let painter = ElementPainter(background: .white, images: images)
        return try #require(
            ElementSurface.render(
                .card(card), size: Size(width: 100, height: 130), shadowRadius: 10, pixelsPerPoint: scale,
                painter: painter))
    }

    /// A stack closing up as after a swipe: three cards each a little lower and smaller, scaled
    /// by odd factors (or unscaled: offsets), the top one turned or not, over a garbage target.
    @Test func skippedPixelsAreTheOnesDrawingEverythingGives() throws {
        let photos = try GoldenImageTests.example("products/products.json")
        let photoCard = try #require(photos.cards.first { $0.imagePath != nil })
        let images = ImageCache()
        _ = images.image(at: try #require(photoCard.imagePath))
        images.waitUntilIdle()
        let cards = [
            try Self.card(BuiltInCards.stack[2], images: nil, scale: 1),
            try Self.card(photoCard, images: images, scale: 1),
        ]
        let (w, h) = (200, 220)
        var random = RenderFixtures.Random(state: 41)
        let base = PixelBuffer(width: w, height: h)
        let start = PixelBuffer(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                base.setPixel(x: x, y: y, UInt32(truncatingIfNeeded: random.next()) | 0xFF00_0000)
                start.setPixel(x: x, y: y, UInt32(truncatingIfNeeded: random.next()))
            }
        }
        let turns = DeckFixtures.underEmulation ? [0.0, 13] : [0.0, 13, 180]
        let scales =
            DeckFixtures.underEmulation
            ? [[0.93, 0.96, 1.0]] : [[0.93, 0.96, 1.0], [1.0, 1.0, 1.03], [0.9, 1.04, 0.97]]
        for top in cards {
            for degrees in turns {
                for levels in scales {
                    var layers: [Compositor.Layer] = []
                    for (i, s) in levels.enumerated() {
                        let image = i == 2 ? top : cards[i % 2]
                        let placement = Placement(
                            anchorX: image.anchorX, anchorY: image.anchorY,
                            centerX: 100 + random.unit() * 4 - 2 + (i == 2 ? degrees / 3 : 0),
                            centerY: 115 - Double(i) * 9 + random.unit() * 2,
                            rotation: i == 2 ? degrees * .pi / 180 : 0,
                            scale: s)
                        let clip = Compositor.footprint(image, at: placement).intersection(base.bounds)
                        layers.append(Compositor.Layer(image: image, placement: placement, opacity: 1, clip: clip))
                    }
                    layers[0].clip = base.bounds
                    for kernel in [Compositor.Kernel.simd, .scalar] {
                        let (all, none) = Self.drawn(layers, base: base, start: start, skipping: false, kernel: kernel)
                        let (skipped, hidden) = Self.drawn(
                            layers, base: base, start: start, skipping: true, kernel: kernel)
                        #expect(none == 0)
                        // Not vacuous: the lower cards lie mostly under the ones above.
                        #expect(hidden > 8_000, "\(degrees)° \(levels) \(kernel): \(hidden) pixels hidden")
                        let i = (0..<(w * h)).first { all[$0] != skipped[$0] }
                        let at = i.map {
                            "pixel (\($0 % w), \($0 / w)) \(String(all[$0], radix: 16)) ≠ \(String(skipped[$0], radix: 16))"
                        }
                        #expect(i == nil, "\(degrees)° \(levels) \(kernel): \(at ?? "")")
                    }
                }
            }
        }
    }

    /// The close-up after the first swipe of the flat deck and the photo deck, landscape and
    /// portrait, through the renderer: skipping changes no pixel, and it does skip. Before each
    /// frame the skipping renderer's damaged rectangle is filled with garbage, so a skipped pixel
    /// no cover writes shows.
    @Test(arguments: ["onboarding.json", "products/products.json"])
    func closeUpFramesAreIdentical(_ deck: String) throws {
        let file = try GoldenImageTests.example(deck)
        let sizes = DeckFixtures.underEmulation ? [(300, 180)] : [(300, 180), (180, 300)]
        for (w, h) in sizes {
            let scale = Double(min(w, h)) / 600
            let size = Size(width: Double(w) / scale, height: Double(h) / scale)
            let visit = ExampleScenes.stackVisit(file, size: size)
            let frames = visit.steps.compactMap { if case .frame(let s) = $0 { s } else { nil } }
            // The release (drawn whole), then the first frames of the close-up.
            let picked = Array(frames[19...(DeckFixtures.underEmulation ? 21 : 23)])
            let images = ImageCache()
            for scene in frames.prefix(40) {
                for e in scene.elements {
                    if case .card(let c) = e.kind.unmirrored, let path = c.imagePath { _ = images.image(at: path) }
                }
            }
            images.waitUntilIdle()
            for kernel in DeckFixtures.underEmulation ? [Compositor.Kernel.simd] : [.simd, .scalar] {
                let plain = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: scale, images: images)
                let skipping = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: scale, images: images)
                (plain.kernel, skipping.kernel, plain.skipsHidden) = (kernel, kernel, false)
                let a = PixelBuffer(width: w, height: h)
                let b = PixelBuffer(width: w, height: h)
                for (n, scene) in picked.enumerated() {
                    let damage = plain.render(scene, into: a)
                    if n > 0 { Compositor.fill(damage, with: 0x00FF_00FF, in: b) }
                    #expect(skipping.render(scene, into: b) == damage)
                    let d = RenderFixtures.difference(a, b, threshold: 0)
                    #expect(d.maxChannel == 0, "\(deck) \(w)x\(h) \(kernel) frame \(n): \(d.pixelsOver) pixels differ")
                }
                #expect(skipping.stats.framesWithHidden >= picked.count - 1)
                #expect(plain.stats.framesWithHidden == 0)
            }
        }
    }
}
