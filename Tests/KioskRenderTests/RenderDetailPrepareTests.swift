import CardModel
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// The list's detail page drawn ahead while a finger rests on its row: the frame that opens the
/// page only places it (no stand-in, the same pixels as drawing it there), and a touch that
/// opens nothing leaves nothing behind.
@Suite struct RenderDetailPrepareTests {
    static let (width, height, scale) = (640, 400, 0.8)
    static var size: Size { Size(width: Double(width) / scale, height: Double(height) / scale) }
    static let start = DeckScenes.start

    /// Row 2's centre at rest (rows are 76 pt slots under the 56 pt title bar).
    static let row2 = Point(x: size.width / 2, y: 56 + 76 * 2 + 38)

    struct Setup {
        var deck: ListDeck
        let renderer: SceneRenderer
        let preparer: ElementPreparer
        let buffer: PixelBuffer
        var t: Instant
        var finger: Point

        /// The list at rest, its rows drawn; the finger then down on row 2. `cacheBytes`: the
        /// cache's bound (nil: the panel's budget).
        init(cacheBytes: Int? = nil) {
            deck = ListDeck(
                cards: BuiltInCards.list, metrics: DeckScenes.metrics(RenderDetailPrepareTests.size), randomSeed: 1)
            preparer = ElementPreparer()
            renderer = SceneRenderer(
                pixelWidth: RenderDetailPrepareTests.width, pixelHeight: RenderDetailPrepareTests.height,
                scale: RenderDetailPrepareTests.scale, cacheBytes: cacheBytes, preparer: preparer)
            buffer = PixelBuffer(width: RenderDetailPrepareTests.width, height: RenderDetailPrepareTests.height)
            t = RenderDetailPrepareTests.start
            finger = RenderDetailPrepareTests.row2
            renderer.render(deck.scene(at: t), into: buffer)
        }

        /// One touch report 1/60 s later, and the frame drawn for it.
        @discardableResult
        mutating func touch(_ phase: TouchPhase, at p: Point? = nil) -> Scene {
            t = t.advanced(bySeconds: 1.0 / 60)
            if let p { finger = p }
            deck.handle(TouchFrame(time: t, contacts: [TouchContact(id: 1, position: finger, phase: phase)]))
            let scene = deck.scene(at: t)
            renderer.render(scene, into: buffer)
            return scene
        }

        /// A frame 1/60 s later with no touch report.
        @discardableResult
        mutating func frame() -> Scene {
            t = t.advanced(bySeconds: 1.0 / 60)
            let scene = deck.scene(at: t)
            renderer.render(scene, into: buffer)
            return scene
        }

        /// What the app does when a frame leaves nothing moving: prepare what the deck lists,
        /// or discard what was prepared and never shown.
        func idle(_ scene: Scene) {
            let elements = deck.elementsToPrepare(in: scene)
            if elements.isEmpty { renderer.discardPreparedAhead() }
            for e in elements { renderer.prepare(e, background: scene.background) }
        }
    }

    @Test func thePagePreparedAtTouchDownIsTheOneTheTapOpens() throws {
        var s = Setup()
        let down = s.touch(.began)
        let page = try #require(s.deck.elementsToPrepare(in: down).first)
        #expect(page.id.hasPrefix("detail:"))
        s.idle(down)
        #expect(s.preparer.waitUntilIdle())
        let standIns = s.renderer.stats.placeholderFrames
        let drawnHere = s.renderer.stats.surfaceRenders
        let opening = s.touch(.ended)
        #expect(s.deck.openCard?.id == BuiltInCards.list[2].id)
        let shown = try #require(opening.elements.first { $0.id == page.id })
        #expect(shown == page)
        #expect(s.renderer.isCached(shown, background: opening.background))
        let work = s.renderer.lastFrame
        #expect(
            work.isDisjoint(with: [.standInDrawn, .standInShown, .flatStandIn]), "opening frame: \(work.description)")
        #expect(s.renderer.stats.placeholderFrames == standIns)
        #expect(s.renderer.stats.surfaceRenders == drawnHere, "nothing drawn on the frame path")
        // The page slides in over the next frames: each placed from the prepared image,
        // pixel for pixel what a renderer drawing in the frame shows.
        for _ in 0..<(DeckFixtures.underEmulation ? 2 : 6) {
            let scene = s.frame()
            let direct = RenderFixtures.render(scene, width: Self.width, height: Self.height, scale: Self.scale)
            let d = RenderFixtures.difference(s.buffer, direct, threshold: 1)
            #expect(d.maxChannel <= 1, "max difference \(d.maxChannel)")
            #expect(s.renderer.lastFrame.isDisjoint(with: [.standInDrawn, .standInShown, .flatStandIn]))
            #expect(s.renderer.stats.surfaceRenders == drawnHere, "the page's controls were prepared too")
        }
    }

    /// Without it (a tap faster than the thread) the page slides in as a flat fill of its
    /// colour, drawn without an image (the test above can fail), until the page arrives; then
    /// the screen is what drawing it in the frame shows.
    @Test func anUnpreparedPageSlidesInFlatThenAsItself() throws {
        var s = Setup()
        s.touch(.began)
        let drawnHere = s.renderer.stats.surfaceRenders
        s.touch(.ended)
        #expect(s.deck.openCard != nil)
        #expect(s.renderer.lastFrame.contains(.flatStandIn), "\(s.renderer.lastFrame.description)")
        #expect(s.renderer.stats.surfaceRenders == drawnHere, "no image drawn on the frame path")
        let card = try #require(s.deck.openCard)
        let sliding = s.frame()
        #expect(s.renderer.lastFrame.contains(.flatStandIn) || s.renderer.lastFrame.contains(.adoptedPrepared))
        if s.renderer.lastFrame.contains(.flatStandIn) {
            // The page's left edge, a few pixels in: its colour, flat.
            let page = try #require(sliding.elements.first { $0.id == "detail:" + card.id })
            let x = Int(((page.frame.minX + page.transform.translation.x) * Self.scale).rounded()) + 2
            if x < Self.width {
                #expect(
                    s.buffer.pixel(x: x, y: Self.height - 3) & 0xFF_FFFF == SceneRenderer.xrgb(card.color) & 0xFF_FFFF)
            }
        }
        #expect(s.preparer.waitUntilIdle())
        let scene = s.frame()
        #expect(!s.renderer.lastFrame.contains(.flatStandIn))
        let direct = RenderFixtures.render(scene, width: Self.width, height: Self.height, scale: Self.scale)
        let d = RenderFixtures.difference(s.buffer, direct, threshold: 1)
        #expect(d.maxChannel <= 1, "max difference \(d.maxChannel)")
    }

    /// A touch that scrolls (here a pull down into the rubber band, which draws no new image)
    /// or is held past a tap and lifted opens nothing: once the list rests, the page it
    /// prepared is dropped. (A swipe's delete area draws an image a frame, so the cache's
    /// count bound usually evicts the page even before.)
    @Test(arguments: [Point(x: 0, y: 40), Point.zero])
    func aTouchThatOpensNothingDiscardsThePreparedPage(by d: Point) throws {
        // A cache that evicts nothing here: the page goes because it is discarded.
        var s = Setup(cacheBytes: 64 << 20)
        let down = s.touch(.began)
        let page = try #require(s.deck.elementsToPrepare(in: down).first)
        s.idle(down)
        #expect(s.preparer.waitUntilIdle())
        let origin = s.finger
        var scene = down
        for i in 1...4 { scene = s.touch(.moved, at: origin + d * (Double(i) / 4)) }
        if d == .zero { s.t = s.t.advanced(bySeconds: DragRecognizer.longPressSeconds) }
        #expect(s.renderer.isCached(page, background: scene.background), "arrived while the finger is down")
        scene = s.touch(.ended)
        while scene.isAnimating && s.t < Self.start.advanced(bySeconds: 5) { scene = s.frame() }
        #expect(s.deck.openCard == nil)
        #expect(s.renderer.isCached(page, background: scene.background))
        let bytesWithPage = s.renderer.cachedBytes
        s.idle(scene)
        #expect(!s.renderer.isCached(page, background: scene.background), "discarded once the list rests")
        #expect(s.renderer.cachedBytes < bytesWithPage)
    }

    /// Discarded before the thread drew it, or while it drew it: it never reaches the cache.
    @Test func aPageDiscardedInFlightNeverArrives() throws {
        var s = Setup()
        let down = s.touch(.began)
        let page = try #require(s.deck.elementsToPrepare(in: down).first)
        s.idle(down)
        s.renderer.discardPreparedAhead()
        #expect(s.preparer.waitUntilIdle())
        s.renderer.render(down, into: s.buffer)
        #expect(!s.renderer.isCached(page, background: down.background))
        // Asked for again, it arrives.
        s.idle(down)
        #expect(s.preparer.waitUntilIdle())
        s.renderer.render(down, into: s.buffer)
        #expect(s.renderer.isCached(page, background: down.background))
    }
}
