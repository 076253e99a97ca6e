import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// The cached, damage-limited pipeline against full redraws, and its "no change, no work" rule.
@Suite struct RenderPipelineTests {
    static let width = 640
    static let height = 400
    static let scale = 0.8
    static var size: Size { Size(width: Double(width) / scale, height: Double(height) / scale) }

    @Test func damageLimitedFramesEqualFullRedraws() {
        let incremental = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        // Each frame is also drawn whole by a fresh renderer: 12 steps of the drag under
        // qemu-user (24 here), the same path.
        for (i, scene) in DeckScenes.sweep(size: Self.size, steps: DeckFixtures.underEmulation ? 12 : 24).enumerated() {
            incremental.render(scene, into: buffer)
            let full = RenderFixtures.render(scene, width: Self.width, height: Self.height, scale: Self.scale)
            let d = RenderFixtures.difference(buffer, full, threshold: 1)
            #expect(d.maxChannel <= 1, "frame \(i): max difference \(d.maxChannel), \(d.pixelsOver) pixels")
        }
        #expect(incremental.stats.layerRebuilds <= 3, "the still layer is reused while only the top card moves")
    }

    @Test func listFramesEqualFullRedraws() {
        let incremental = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        let scenes =
            (0...10).map { DeckScenes.list(BuiltInCards.list, size: Self.size, scroll: Double($0) * 7.3) }
            + (0...10).map { DeckScenes.list(BuiltInCards.list, size: Self.size, swipe: -Double($0) * 9.7) }
        for (i, scene) in scenes.enumerated() {
            incremental.render(scene, into: buffer)
            let full = RenderFixtures.render(scene, width: Self.width, height: Self.height, scale: Self.scale)
            let d = RenderFixtures.difference(buffer, full, threshold: 1)
            #expect(d.maxChannel <= 1, "frame \(i): max difference \(d.maxChannel)")
        }
    }

    /// The naive cairo redraw and the cached pipeline draw the same design; they differ only
    /// where a turned card's text is resampled (bilinear) instead of drawn turned: glyph edges.
    @Test func cachedPipelineLooksLikeNaiveRedraw() {
        let naive = NaiveRenderer(scale: Self.scale)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        for scene in DeckScenes.sweep(size: Self.size, steps: 6) {
            naive.render(scene, into: buffer)
            let cached = RenderFixtures.render(scene, width: Self.width, height: Self.height, scale: Self.scale)
            let d = RenderFixtures.difference(buffer, cached, threshold: 40)
            #expect(d.mean < 1.5, "mean difference \(d.mean)")
            #expect(d.pixelsOver < Self.width * Self.height / 66, "\(d.pixelsOver) pixels differ by more than 40")
        }
    }

    @Test func unchangedSceneDoesNoWork() {
        let renderer = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        let scene = DeckScenes.stack(BuiltInCards.stack, size: Self.size, drag: Point(x: 40, y: 0))
        #expect(renderer.render(scene, into: buffer) == buffer.bounds)
        let before = renderer.stats
        // A sentinel: any write to the buffer would overwrite it.
        buffer.setPixel(x: 320, y: 200, 0x0012_3456)
        #expect(renderer.render(scene, into: buffer) == .empty)
        #expect(buffer.pixel(x: 320, y: 200) == 0x0012_3456)
        #expect(renderer.stats.drawnFrames == before.drawnFrames)
        #expect(renderer.stats.pixelsWritten == before.pixelsWritten)
        #expect(renderer.stats.surfaceRenders == before.surfaceRenders)
    }

    /// Every pixel that changed lies inside the rectangle `render` returns (what the display
    /// copies), and a drag frame writes much less than the screen.
    @Test func returnedDamageCoversEveryChangedPixel() {
        let renderer = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        let copy = PixelBuffer(width: Self.width, height: Self.height)
        var previous: PixelRect?
        for scene in DeckScenes.sweep(size: Self.size, steps: 12) {
            Compositor.copy(buffer.bounds, from: buffer, to: copy)
            let damage = renderer.render(scene, into: buffer)
            for y in 0..<buffer.height {
                for x in 0..<buffer.width
                where buffer.pixel(x: x, y: y) & 0xFF_FFFF != copy.pixel(x: x, y: y) & 0xFF_FFFF {
                    let inside = x >= damage.x && x < damage.maxX && y >= damage.y && y < damage.maxY
                    #expect(inside, "pixel \(x),\(y) changed outside the damage \(damage)")
                    if !inside { return }
                }
            }
            if previous != nil {
                #expect(damage.width * damage.height < buffer.width * buffer.height, "damage \(damage)")
            }
            previous = damage
        }
    }

    /// A deck of 10,000 cards (1,000 under qemu-user, where each scene over the whole deck is
    /// slow in a debug build; still 60 times what the cache holds), worked through card by card,
    /// keeps the image cache bounded.
    @Test func cacheStaysBoundedForHugeDecks() {
        let renderer = SceneRenderer(
            pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale, cacheBytes: 4 << 20)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        // Thousands of cards: the renderer only ever sees the few on screen, whatever the deck's
        // length (a debug build's StackDeck checks its invariants over every card at each
        // step, so 10,000 cost 40 s here and say nothing more than 2,000).
        var deck = DeckScenes.manyCards(DeckFixtures.underEmulation ? 1_000 : 2_000)
        var peak = 0
        // 40 cards worked through (20 under qemu-user, where a debug build draws slowly).
        let rounds = DeckFixtures.underEmulation ? 20 : 40
        for _ in 0..<rounds {
            renderer.render(DeckScenes.stack(deck, size: Self.size), into: buffer)
            renderer.render(DeckScenes.stack(deck, size: Self.size, drag: Point(x: 200, y: 0)), into: buffer)
            deck.removeFirst()
            peak = max(peak, renderer.cachedBytes)
        }
        #expect(peak <= 4 << 20)
        #expect(renderer.cachedSurfaces <= 16)
        #expect(renderer.stats.surfaceRenders >= rounds, "each new top card was drawn")
    }

    @Test func anotherTargetBufferIsDrawnWhole() {
        let renderer = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let scene = DeckScenes.stack(BuiltInCards.stack, size: Self.size)
        let a = PixelBuffer(width: Self.width, height: Self.height)
        let b = PixelBuffer(width: Self.width, height: Self.height)
        #expect(renderer.render(scene, into: a) == a.bounds)
        #expect(renderer.render(scene, into: b) == b.bounds)
        #expect(RenderFixtures.difference(a, b).maxChannel == 0)
    }
}
