import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// The card images a stack keeps: covered cards framed (`FramedImage`), the bytes held after
/// the start-up probe's drag, and the pixels of framed cards against cards kept whole.
@Suite struct RenderCardMemoryTests {
    static func deck(cards: Int, size: Size) -> StackDeck {
        StackDeck(
            cards: DeckScenes.manyCards(cards), metrics: DeckScenes.metrics(size),
            options: StackOptions(leftLabel: "Später", rightLabel: "Verstanden"))
    }

    /// The stack at rest, what the deck prepares, then a drag to the right 0 → 300 pt and back,
    /// held, over `frames` frames at 60 Hz (`bench --probe`'s drag). Each frame's scene.
    static func probeScenes(_ deck: inout StackDeck, size: Size, frames: Int) -> (rest: Scene, drag: [Scene]) {
        let rest = deck.scene(at: DeckScenes.start)
        let origin = DeckScenes.origin(of: rest, size: size)
        var t = DeckScenes.start
        let half = frames / 2
        let drag = (0..<frames).map { i in
            let k = i < half ? Double(i) / Double(half) : Double(frames - 1 - i) / Double(max(1, frames - 1 - half))
            t = t.advanced(bySeconds: 1.0 / 60)
            let p = origin + Point(x: 300 * k, y: 0)
            deck.handle(
                TouchFrame(time: t, contacts: [TouchContact(id: 1, position: p, phase: i == 0 ? .began : .moved)]))
            return deck.scene(at: t)
        }
        return (rest, drag)
    }

    /// Bytes of a 320×440 pt card's image at `k` pixels per point with a shadow of `radius`
    /// points, bounded from the blur: a Gaussian of σ = radius/2 · k reaches no further than 3σ,
    /// plus the shadow's offset (at most 2 pt) and one transparent pixel.
    static func cardImageBound(k: Double, radius: Double) -> (width: Int, height: Int) {
        let sigma = radius / 2 * k
        let margin = radius > 0 ? Int((3 * sigma + min(2, radius / 4) * k).rounded(.up)) + 1 : 1
        return (Int((320 * k).rounded(.up)) + 2 * margin, Int((440 * k).rounded(.up)) + 2 * margin)
    }

    /// After the probe's drag at 1920×1080 the cache holds what the drag and the next gestures
    /// show whole — the top card at rest and dragged, the card beneath (as on top, which serves
    /// its level too), the card a swipe brings up to the bottom, the stamp of the drag's
    /// direction (not the other) — and of each card deeper than the one beneath only what the
    /// card above leaves: its image less the straight-sided band of the card above (inset by its
    /// corner radius and a few pixels). The bound comes from the stack's geometry, not from the
    /// cache's budget; and the drag draws no image but its stamp (without a preparation thread,
    /// as the probe runs).
    @Test func cardImagesAfterTheProbeDragFitTheGeometry() {
        let (w, h, s) = (1920, 1080, 1.8)
        let size = Size(width: Double(w) / s, height: 600)
        var deck = Self.deck(cards: 50, size: size)
        let (rest, drag) = Self.probeScenes(&deck, size: size, frames: 8)
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s)
        let buffer = PixelBuffer(width: w, height: h)
        renderer.render(rest, into: buffer)
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        let drawn = renderer.stats.surfaceRenders
        for scene in drag { renderer.render(scene, into: buffer) }
        #expect(renderer.stats.surfaceRenders == drawn + 1, "the drag drew an image besides its stamp")
        let stamps = renderer.cacheContents.map(\.key.kind).filter { if case .stamp = $0 { true } else { false } }
        let right = stamps.first.map { if case .stamp(_, _, .right) = $0 { true } else { false } } ?? false
        #expect(stamps.count == 1 && right, "only the stamp of the drag's direction (right)")

        func bytes(_ d: (width: Int, height: Int)) -> Int { d.width * d.height * 4 }
        let depthScale = { (i: Int) in 1 - 0.04 * Double(i) }
        // Whole: the top card at rest and dragged, the card beneath as on top, the card a swipe
        // brings up to the bottom (depth 3), one stamp (no shadow).
        let whole: [(level: Int, radius: Double)] = [(0, 8), (0, 18), (0, 8), (3, 8), (0, 0)]
        var bound = whole.reduce(0) { $0 + bytes(Self.cardImageBound(k: s * depthScale($1.level), radius: $1.radius)) }
        let cards = rest.elements.filter { if case .card = $0.kind { true } else { false } }.reversed().map { $0 }
        var rings = 0
        for depth in 2...4 where depth < cards.count {
            let (card, cover) = (cards[depth], cards[depth - 1])
            let image = Self.cardImageBound(k: s * card.transform.scale, radius: 8)
            let centre = (
                x: (card.frame.center.x + card.transform.translation.x) * s,
                y: (card.frame.center.y + card.transform.translation.y) * s
            )
            let cs = cover.transform.scale * s
            let cc = (
                x: (cover.frame.center.x + cover.transform.translation.x) * s,
                y: (cover.frame.center.y + cover.transform.translation.y) * s
            )
            let slack = 6.0
            let band = (
                x0: max(cc.x - 160 * cs + slack, centre.x - Double(image.width) / 2),
                x1: min(cc.x + 160 * cs - slack, centre.x + Double(image.width) / 2),
                y0: max(cc.y - 220 * cs + 22 * cs + slack, centre.y - Double(image.height) / 2),
                y1: min(cc.y + 220 * cs - 22 * cs - slack, centre.y + Double(image.height) / 2)
            )
            let hidden = Int(max(0, band.x1 - band.x0).rounded(.down) * max(0, band.y1 - band.y0).rounded(.down))
            rings += 4 * (image.width * image.height - hidden)
        }
        bound += rings
        let held = renderer.cacheContents
        for c in held {
            print(
                "cached after the drag: \(c.key.kind.unmirrored) at \(c.key.pixelsPerPoint) ‰ px/pt, shadow \(c.key.shadowRadius): \(c.bytes) bytes\(c.framed ? " (framed)" : "")"
            )
        }
        print(
            "card images after the probe's drag at 1920×1080: \(renderer.cachedBytes) bytes, bound \(bound) (the covered cards' rings \(rings))"
        )
        #expect(renderer.cachedBytes <= bound)
        #expect(held.filter(\.framed).count == 2, "the cards at depths 2 and 3 are kept framed")
    }

    /// The card beneath the top one (depth 1, scale 0.96) is placed from its image on top: at
    /// rest, through a drag, after the release, through a swipe's close-up and on the settled
    /// stack, no card has an image at 0.96 of the panel's density, nor a bare image beside its
    /// whole one; with a preparation thread (each scene drawn again once it is idle) and
    /// without. Every key the cache held is listed.
    @Test(arguments: [false, true]) func theCardBeneathHasOneImageForBothLevels(prepared: Bool) throws {
        let (w, h, s) = (560, 336, 0.56)
        let size = Size(width: Double(w) / s, height: Double(h) / s)
        var deck = Self.deck(cards: 9, size: size)
        let (rest, drag) = Self.probeScenes(&deck, size: size, frames: 6)
        let origin = DeckScenes.origin(of: rest, size: size)
        var t = DeckScenes.start.advanced(bySeconds: 0.5)
        deck.handle(TouchFrame(time: t, contacts: [TouchContact(id: 1, position: origin, phase: .ended)]))
        t = t.advanced(bySeconds: 2)
        let released = deck.scene(at: t)
        var swipe: [Scene] = []
        for i in 0...30 {
            t = t.advanced(bySeconds: 1.0 / 60)
            if i <= 6 {
                let phase: TouchPhase = i == 0 ? .began : i < 6 ? .moved : .ended
                let p = origin + Point(x: Double(i) * 60, y: 0)
                deck.handle(TouchFrame(time: t, contacts: [TouchContact(id: 2, position: p, phase: phase)]))
            }
            swipe.append(deck.scene(at: t))
        }
        let settled = deck.scene(at: t.advanced(bySeconds: 5))
        let preparer = prepared ? ElementPreparer() : nil
        if let preparer { try #require(preparer.isRunning) }
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s, preparer: preparer)
        let buffer = PixelBuffer(width: w, height: h)
        let depth1 = Int((s * 0.96 * 1000).rounded())
        var seen: Set<String> = []
        func show(_ scene: Scene, _ what: String, prepare: Bool = false) {
            renderer.render(scene, into: buffer)
            if let preparer {
                #expect(preparer.waitUntilIdle())
                renderer.render(scene, into: buffer)
            }
            if prepare {
                for e in deck.elementsToPrepare(in: scene) { renderer.prepare(e, background: scene.background) }
                if let preparer {
                    #expect(preparer.waitUntilIdle())
                    renderer.invalidate()
                    renderer.render(scene, into: buffer)
                }
            }
            let keys = renderer.cacheContents.map(\.key)
            for key in keys {
                guard case .card(let card) = key.kind.unmirrored else { continue }
                let name = card.title.isEmpty ? "bare \(card.color)" : card.title
                seen.insert("\(name) at \(key.pixelsPerPoint) ‰ px/pt, shadow \(key.shadowRadius)")
                #expect(key.pixelsPerPoint != depth1, "\(what): \(name) has an image at the card beneath's scale")
                if let bare = SceneRenderer.bareKey(key) {
                    #expect(!keys.contains(bare), "\(what): \(name) is cached whole and bare")
                }
            }
        }
        show(rest, "at rest", prepare: true)
        for scene in drag { show(scene, "dragged") }
        show(released, "released", prepare: true)
        for (i, scene) in swipe.enumerated() { show(scene, "swipe frame \(i)") }
        show(settled, "settled", prepare: true)
        for line in seen.sorted() { print("cached \(prepared ? "with" : "without") a preparation thread: \(line)") }
        #expect(seen.contains { $0.hasPrefix("bare") } || prepared, "drawn in the frame, covered cards are bare")
    }

    /// A renderer keeping covered cards framed draws what one keeping them whole draws, pixel for
    /// pixel: at rest, through a drag and back, a swipe's close-up and the settled stack; with the
    /// cache too small to keep them, so framed images are evicted and drawn again.
    @Test(arguments: [nil, 600_000]) func framedCardsGiveTheSamePixels(cacheBytes: Int?) {
        let (w, h, s) = (560, 336, 0.56)
        let size = Size(width: Double(w) / s, height: Double(h) / s)
        var deck = Self.deck(cards: 9, size: size)
        let (rest, drag) = Self.probeScenes(&deck, size: size, frames: 6)
        // Then a swipe: the held finger flicked right and lifted, the close-up, the settled stack.
        var t = DeckScenes.start.advanced(bySeconds: 1)
        let origin = DeckScenes.origin(of: rest, size: size)
        var swipe: [Scene] = []
        for i in 1...30 {
            t = t.advanced(bySeconds: 1.0 / 60)
            let phase: TouchPhase = i < 6 ? .moved : .ended
            if i <= 6 {
                let p = origin + Point(x: Double(i) * 60, y: 0)
                deck.handle(TouchFrame(time: t, contacts: [TouchContact(id: 1, position: p, phase: phase)]))
            }
            swipe.append(deck.scene(at: t))
        }
        swipe.append(deck.scene(at: t.advanced(bySeconds: 5)))
        let framed = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s, cacheBytes: cacheBytes)
        let whole = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s, cacheBytes: cacheBytes)
        whole.keepsCoveredFramed = false
        let a = PixelBuffer(width: w, height: h)
        let b = PixelBuffer(width: w, height: h)
        for (i, scene) in ([rest] + drag + swipe).enumerated() {
            #expect(framed.render(scene, into: a) == whole.render(scene, into: b), "frame \(i): damage")
            let d = RenderFixtures.difference(a, b, threshold: 0)
            #expect(d.maxChannel == 0, "frame \(i): max difference \(d.maxChannel), \(d.pixelsOver) pixels")
            if i == 0 {
                for e in deck.elementsToPrepare(in: rest) {
                    framed.prepare(e, background: rest.background)
                    whole.prepare(e, background: rest.background)
                }
                if cacheBytes == nil {
                    #expect(framed.cacheContents.filter(\.framed).count == 2, "the cards at depths 2, 3 are framed")
                }
            }
        }
        #expect(framed.stats.surfaceRenders <= whole.stats.surfaceRenders, "framing cost a redraw")
    }

    /// Drawn in the frame (no preparation thread), every covered card deeper than the one
    /// beneath the top card is drawn framed at once, none left to frame when idle. A framed card whose hole the card above no longer hides
    /// (it moved) is drawn whole again, as a renderer that never framed it draws it.
    @Test func aFramedCardIsDrawnAgainWhenItsHoleShows() {
        let (w, h, s) = (560, 336, 0.56)
        let size = Size(width: Double(w) / s, height: Double(h) / s)
        var deck = Self.deck(cards: 6, size: size)
        let rest = deck.scene(at: DeckScenes.start)
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s)
        let buffer = PixelBuffer(width: w, height: h)
        renderer.render(rest, into: buffer)
        // Every covered card but the one beneath the top card, which is placed reduced from its
        // image on top (not on whole pixels: strips would blend differently at their seams).
        let covered = rest.elements.filter { if case .card = $0.kind { $0.opacity > 0 } else { false } }.count - 2
        #expect(renderer.pendingFrames.isEmpty, "drawn framed, nothing left to frame")
        #expect(renderer.cacheContents.filter(\.framed).count == covered)
        // The card under the top one moved 16 pt to the right: it still covers the contents of
        // the card under it, but no longer the left columns of its hole.
        var moved = rest
        let cards = moved.elements.indices.filter { if case .card = moved.elements[$0].kind { true } else { false } }
        let beneath = cards[cards.count - 2]
        moved.elements[beneath].transform.translation.x += 16
        let drawn = renderer.stats.surfaceRenders
        renderer.invalidate()
        renderer.render(moved, into: buffer)
        #expect(renderer.stats.surfaceRenders > drawn, "the uncovered card was drawn again")
        let reference = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s)
        reference.keepsCoveredFramed = false
        let expected = PixelBuffer(width: w, height: h)
        reference.render(moved, into: expected)
        let d = RenderFixtures.difference(buffer, expected, threshold: 0)
        #expect(d.maxChannel == 0, "max difference \(d.maxChannel), \(d.pixelsOver) pixels")
    }

    /// With a preparation thread covered cards arrive whole; once the still layer holds them,
    /// the ones not under the top card are framed when the app is idle (`prepare`), not in a
    /// frame, and the screen drawn from them is the one whole cards give.
    @Test func preparedCoveredCardsAreFramedWhenIdle() throws {
        let (w, h, s) = (560, 336, 0.56)
        let size = Size(width: Double(w) / s, height: Double(h) / s)
        var deck = Self.deck(cards: 6, size: size)
        let rest = deck.scene(at: DeckScenes.start)
        let preparer = ElementPreparer()
        try #require(preparer.isRunning)
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s, preparer: preparer)
        let buffer = PixelBuffer(width: w, height: h)
        renderer.render(rest, into: buffer)
        #expect(preparer.waitUntilIdle())
        renderer.render(rest, into: buffer)
        #expect(!renderer.isShowingStandIns)
        #expect(renderer.pendingFrames.count == 2, "the cards at depths 2 and 3, framed when idle")
        #expect(renderer.cacheContents.filter(\.framed).isEmpty)
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        #expect(renderer.pendingFrames.isEmpty)
        #expect(renderer.cacheContents.filter(\.framed).count == 2)
        let drawn = renderer.stats.surfaceRenders
        renderer.invalidate()
        renderer.render(rest, into: buffer)
        #expect(renderer.stats.surfaceRenders == drawn, "the framed cards served the layer")
        let reference = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s)
        reference.keepsCoveredFramed = false
        let expected = PixelBuffer(width: w, height: h)
        reference.render(rest, into: expected)
        let d = RenderFixtures.difference(buffer, expected, threshold: 0)
        #expect(d.maxChannel == 0, "max difference \(d.maxChannel), \(d.pixelsOver) pixels")
    }
}
