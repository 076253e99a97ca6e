import CardModel
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// The renderer's memory: the still layer keeps pixels only where still elements are, and
/// the card image cache stays within a budget sized from the panel.
@Suite struct RenderMemoryTests {
    // Small, so a debug build draws the cards quickly; the stack's layout is the same.
    static let width = 560
    static let height = 336
    static let scale = 0.56
    static var size: Size { Size(width: Double(width) / scale, height: Double(height) / scale) }

    /// Frames drawn over the partial layer are the frames a whole-screen layer gives, pixel
    /// for pixel: a drag that takes the card out of the layer's box and back, and a list
    /// scrolled and swiped (whose rows fill the screen).
    @Test func partialStillLayerGivesTheSamePixels() {
        let steps = DeckFixtures.underEmulation ? 6 : 10
        let stack = DeckScenes.sweep(size: Size(width: 800, height: 500), steps: steps)  // the pipeline tests' sweep
        let list =
            (0...(steps / 2)).map { DeckScenes.list(BuiltInCards.list, size: Self.size, scroll: Double($0) * 7.3) }
            + (0...(steps / 2)).map { DeckScenes.list(BuiltInCards.list, size: Self.size, swipe: -Double($0) * 9.7) }
        let frame = Self.width * Self.height * 4
        for (name, scenes) in [("stack", stack), ("list", list)] {
            let partial = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
            let whole = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
            whole.wholeScreenLayer = true
            let a = PixelBuffer(width: Self.width, height: Self.height)
            let b = PixelBuffer(width: Self.width, height: Self.height)
            for (i, scene) in scenes.enumerated() {
                #expect(partial.render(scene, into: a) == whole.render(scene, into: b), "\(name) \(i): damage")
                let d = RenderFixtures.difference(a, b, threshold: 0)
                #expect(d.maxChannel == 0, "\(name) \(i): max difference \(d.maxChannel), \(d.pixelsOver) pixels")
                #expect(whole.layerBytes >= frame)
                if name == "stack" {
                    // The resting stack's cards cover the middle of the screen only.
                    #expect(partial.layerBytes < frame / 2, "frame \(i): layer \(partial.layerBytes) bytes")
                }
            }
            #expect(partial.stats.layerRebuilds == whole.stats.layerRebuilds)
        }
    }

    /// Outside its box the layer is the background colour; a layer without still elements
    /// holds no box at all.
    @Test func layerOutsideTheBoxIsTheBackground() {
        let layer = StillLayer(width: 64, height: 32)
        layer.reset(box: PixelRect(x: 10, y: 5, width: 20, height: 10), colour: 0xFF12_3456)
        if let rows = layer.rows {
            Compositor.fill(PixelRect(x: 12, y: 6, width: 4, height: 4), with: 0xFFAB_CDEF, in: rows)
        }
        let target = PixelBuffer(width: 64, height: 32)
        layer.copy(target.bounds, to: Compositor.Rows(target))
        for y in 0..<32 {
            for x in 0..<64 {
                let inPainted = x >= 12 && x < 16 && y >= 6 && y < 10
                #expect(target.pixel(x: x, y: y) == (inPainted ? 0xFFAB_CDEF : 0xFF12_3456), "pixel \(x),\(y)")
                if target.pixel(x: x, y: y) != (inPainted ? 0xFFAB_CDEF : 0xFF12_3456) { return }
            }
        }
        layer.reset(box: .empty, colour: 0xFF00_0000)
        #expect(layer.bytes == 64 * 4)
        #expect(layer.rows == nil)
    }

    /// The panel's budget holds a resting stack and what is prepared ahead of a drag: no
    /// image is drawn twice. Also turned to portrait, where the card grows into the width
    /// (`StackLayout`): a budget sized for an unscaled card evicted the cards the screen showed,
    /// and the app showed their text-less stand-ins for good.
    @Test(arguments: [false, true]) func budgetHoldsWhatTheStackShows(portrait: Bool) {
        let (width, height) = portrait ? (Self.height, Self.width) : (Self.width, Self.height)
        let size = Size(width: Double(width) / Self.scale, height: Double(height) / Self.scale)
        let renderer = SceneRenderer(pixelWidth: width, pixelHeight: height, scale: Self.scale)
        var deck = StackDeck(
            cards: DeckScenes.manyCards(12), metrics: DeckScenes.metrics(size), options: StackOptions(showButtons: true)
        )
        let rest = deck.scene(at: DeckScenes.start)
        #expect(portrait == (deck.layout.fit > 1), "the portrait card grows, the landscape one does not")
        let buffer = PixelBuffer(width: width, height: height)
        renderer.render(rest, into: buffer)
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        let drawn = renderer.stats.surfaceRenders
        renderer.invalidate()
        renderer.render(rest, into: buffer)
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        #expect(renderer.stats.surfaceRenders == drawn, "an image the stack needs was evicted")
        #expect(renderer.cachedBytesPeak <= renderer.cacheBudget)
    }

    /// A deck far bigger than the budget never holds more than the budget, and a card whose
    /// images were evicted is drawn again pixel for pixel as before.
    @Test func evictedCardsAreRedrawnIdentically() {
        let renderer = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let cards = DeckScenes.manyCards(DeckFixtures.underEmulation ? 12 : 18)
        let first = DeckScenes.stack(cards, size: Self.size, drag: Point(x: 90, y: 10))
        let before = PixelBuffer(width: Self.width, height: Self.height)
        renderer.render(first, into: before)
        var rest = cards
        for _ in 0..<(cards.count - 8) {
            rest.removeFirst()
            let buffer = PixelBuffer(width: Self.width, height: Self.height)
            renderer.render(DeckScenes.stack(rest, size: Self.size), into: buffer)
            renderer.render(DeckScenes.stack(rest, size: Self.size, drag: Point(x: 150, y: 0)), into: buffer)
        }
        #expect(renderer.cachedBytesPeak <= renderer.cacheBudget)
        #expect(renderer.cachedBytes <= renderer.cacheBudget)
        let drawn = renderer.stats.surfaceRenders
        let again = PixelBuffer(width: Self.width, height: Self.height)
        renderer.render(first, into: again)
        #expect(renderer.stats.surfaceRenders > drawn, "the first cards' images were evicted and drawn again")
        let d = RenderFixtures.difference(before, again, threshold: 0)
        #expect(d.maxChannel == 0, "max difference \(d.maxChannel), \(d.pixelsOver) pixels")
    }

    /// A buffer made after another was freed often gets its address back; the renderer must
    /// still see a new target and draw it whole (it tells buffers apart by `identity`, which is
    /// never reused, not by the object's address). With the address as the key, the same scene
    /// drawn into a reused address changed nothing and left the new buffer black.
    @Test func aNewBufferAtAFreedOnesAddressIsDrawnWhole() {
        let renderer = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let scene = DeckScenes.stack(DeckScenes.manyCards(3), size: Self.size)
        var addresses: Set<ObjectIdentifier> = []
        var identities: Set<UInt64> = []
        for _ in 0..<40 {
            let buffer = PixelBuffer(width: Self.width, height: Self.height)
            addresses.insert(ObjectIdentifier(buffer))
            identities.insert(buffer.identity)
            renderer.render(scene, into: buffer)
            #expect(buffer.pixels.load(as: UInt32.self) != 0, "the new buffer's corner was left undrawn")
        }
        #expect(identities.count == 40)
    }

    /// The budgets grow with the panel's pixels. A list's holds two frames (its rows and its
    /// detail page) and more than the 3.09 MB under which VM scenario 52's list at 800×480
    /// found no room for its detail page; a stack's holds what the stack shows whole at once,
    /// and at 1080p it is below a list's: a stack does not carry a list's bound.
    @Test func budgetFollowsThePanelAndTheDeck() {
        let small = SurfaceCache.budget(pixelWidth: 800, pixelHeight: 480, scale: 0.8)
        let large = SurfaceCache.budget(pixelWidth: 1920, pixelHeight: 1080, scale: 1.8)
        #expect(small.list >= 2 * 800 * 480 * 4)
        #expect(small.list > 3_240_000, "more than scenario 52's list found too little")
        #expect(large.list >= 2 * 1920 * 1080 * 4)
        #expect(large.list > 4 * small.list)
        #expect(large.stack > 4 * small.stack)
        for (budget, scale) in [(small.stack, 0.8), (large.stack, 1.8)] {
            let l = ElementSurface.layout(
                for: StackLayout.cardSize, shadowRadius: StackLayout.dragShadow, pixelsPerPoint: scale)
            let card = l.width * l.height * 4
            // What a stack shows whole at once with both stamps is 5.7 such cards at 1.8 px/pt
            // (`RenderCardMemoryTests` prints them); the deeper cards are framed, a few tenths
            // of a card more.
            #expect(Double(budget) >= 5.7 * Double(card), "the stack's whole images fit at \(scale) px/pt")
            #expect(budget < 7 * card, "the framed cards are counted framed at \(scale) px/pt")
        }
        #expect(large.stack < large.list)
    }

    /// The renderer holds to the budget of the deck it shows: a list's while a list is on
    /// screen, a stack's (evicting down to it) once a stack is, and the one before for a scene
    /// of neither (the attract screen).
    @Test func budgetFollowsTheDeckShown() throws {
        let renderer = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let budgets = try #require(renderer.budgets)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        let cards = DeckScenes.manyCards(30)
        renderer.render(DeckScenes.list(cards, size: Self.size), into: buffer)
        #expect(renderer.cacheBudget == budgets.list)
        let listBytes = renderer.cachedBytes
        renderer.render(DeckScenes.stack(cards, size: Self.size), into: buffer)
        #expect(renderer.cacheBudget == budgets.stack)
        #expect(renderer.cachedBytes <= budgets.stack)
        renderer.render(Scene(size: Self.size, background: .black, elements: [], isAnimating: false), into: buffer)
        #expect(renderer.cacheBudget == budgets.stack)
        renderer.render(DeckScenes.list(cards, size: Self.size), into: buffer)
        #expect(renderer.cacheBudget == budgets.list)
        #expect(listBytes > 0)
        let fixed = SceneRenderer(
            pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale, cacheBytes: 1 << 20)
        fixed.render(DeckScenes.stack(cards, size: Self.size), into: buffer)
        #expect(fixed.budgets == nil)
        #expect(fixed.cacheBudget == 1 << 20)
    }

    /// Lowering the bound evicts the least recently used images until the rest fit, and
    /// keeps the most recently used.
    @Test func aLowerBoundEvictsTheLeastRecentlyUsed() throws {
        var cache = SurfaceCache(maxBytes: 1 << 20, maxCount: 16)
        func key(_ i: Int) -> SurfaceCache.Key {
            SurfaceCache.Key(
                kind: .label(text: "\(i)", color: .black), size: Size(width: 10, height: 10), pixelsPerPoint: 1000,
                shadowRadius: 0, background: .black)
        }
        for i in 0..<4 {
            let image = try #require(CairoImage(width: 64, height: 64))
            cache.insert(
                ElementImage(image: image, anchorX: 0, anchorY: 0), for: key(i), imagePending: nil,
                protectedSince: cache.now)
        }
        let each = 64 * 64 * 4
        #expect(cache.bytes == 4 * each)
        _ = cache.lookup(key(0))
        cache.setMaxBytes(2 * each + each / 2)
        #expect(cache.bytes == 2 * each)
        #expect(cache.maxBytes == 2 * each + each / 2)
        #expect(cache.contains(key(0)), "used last: kept")
        #expect(cache.contains(key(3)), "inserted last: kept")
        #expect(!cache.contains(key(1)) && !cache.contains(key(2)))
        cache.setMaxBytes(1 << 20)
        #expect(cache.bytes == 2 * each, "a higher bound evicts nothing")
    }

    /// `smaps` text sorted into kinds of mapping.
    @Test func residentMemoryByKind() {
        let smaps = """
            55d0c000-55d0d000 r-xp 00000000 08:01 123 /opt/kioskcards/bin/KioskCards
            Rss:                 400 kB
            Private_Dirty:         0 kB
            7f00a000-7f00b000 rw-p 00010000 08:01 124 /usr/lib/x86_64-linux-gnu/libcairo.so.2.11600.0
            Rss:                  64 kB
            Private_Dirty:        60 kB
            7f00c000-7f00d000 r--p 00000000 08:01 125 /usr/share/fonts/truetype/noto/NotoSans-Regular.ttf
            Rss:                 448 kB
            7f00e000-7f00f000 rw-p 00000000 00:00 0
            Rss:                8100 kB
            55d0e000-55d0f000 rw-p 00000000 00:00 0 [heap]
            Rss:                2400 kB
            7ffd0000-7ffd1000 rw-p 00000000 00:00 0 [stack]
            Rss:                 132 kB
            7ffd2000-7ffd3000 r--p 00000000 00:00 0 [vvar]
            Rss:                   0 kB
            7f010000-7f011000 r--p 00000000 08:01 126 /usr/lib/locale/C.utf8/LC_CTYPE
            Rss:                  12 kB
            """
        let r = ProcessMemory.parse(
            smaps + "\n7f020000-7f021000 r-xp 00000000 08:01 127 /tmp/kc\nRss: 8 kB", executable: "/tmp/kc")
        #expect(r.libraries == 472, "the executable, wherever it is, with the libraries")
        #expect(r.librariesWritten == 60)
        #expect(r.fonts == 448)
        #expect(r.anonymous == 10_500)
        #expect(r.stack == 132)
        #expect(r.otherFiles == 12)
        #expect(r.total == 472 + 448 + 10_500 + 132 + 12)
    }
}
