import CardModel
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// The swipe stamps: only the one of a drag's direction is held, drawn on the preparation
/// thread; faint and not yet drawn, it is left out of the frame.
@Suite struct RenderStampTests {
    static let (width, height, scale) = (800, 480, 0.8)
    static let size = Size(width: Double(width) / scale, height: Double(height) / scale)

    static func deck() -> StackDeck {
        StackDeck(
            cards: DeckScenes.manyCards(6), metrics: DeckScenes.metrics(size),
            options: StackOptions(leftLabel: "Später", rightLabel: "Verstanden"))
    }

    /// One finger from the top card's centre through `offsets` (points), a frame each at 60 Hz,
    /// lifted at the last one when `lift`. Each frame's scene.
    static func drag(_ deck: inout StackDeck, from origin: Point, offsets: [Double], at t: inout Instant, lift: Bool)
        -> [Scene]
    {
        offsets.enumerated().map { i, dx in
            t = t.advanced(bySeconds: 1.0 / 60)
            let phase: TouchPhase = i == 0 ? .began : lift && i == offsets.count - 1 ? .ended : .moved
            let contact = TouchContact(id: 1, position: origin + Point(x: dx, y: 0), phase: phase)
            deck.handle(TouchFrame(time: t, contacts: [contact]))
            return deck.scene(at: t)
        }
    }

    static func stampKinds(_ renderer: SceneRenderer) -> [DismissDirection] {
        renderer.cacheContents.compactMap { entry -> DismissDirection? in
            if case .stamp(_, _, let side) = entry.key.kind { side } else { nil }
        }
    }

    /// With a preparation thread, a drag's first frames show the stamp faint: not drawn yet, it
    /// is left out of the first frame that shows it (the frame's pixels are those of the scene
    /// without it, drawn by a renderer with no thread) and asked for; once the thread has drawn
    /// it, the same scene shows it (the pixels of that renderer with it). Nothing is drawn in the
    /// frame.
    @Test func aFaintStampIsLeftOutUntilPreparedThenShown() throws {
        let (w, h, s) = (Self.width, Self.height, Self.scale)
        var deck = Self.deck()
        let rest = deck.scene(at: DeckScenes.start)
        let preparer = ElementPreparer()
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s, preparer: preparer)
        let reference = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s)
        let (a, b) = (PixelBuffer(width: w, height: h), PixelBuffer(width: w, height: h))
        renderer.render(rest, into: a)
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        #expect(preparer.waitUntilIdle())
        #expect(Self.stampKinds(renderer).isEmpty, "no stamp at rest")

        var t = DeckScenes.start
        let origin = DeckScenes.origin(of: rest, size: Self.size)
        let scenes = Self.drag(&deck, from: origin, offsets: [0, 6, 12, 18, 24, 30], at: &t, lift: false)
        // The first frame that shows the stamp: nothing has asked for it before.
        let first = try #require(scenes.firstIndex { $0.elements.contains { $0.id == "label:right" } })
        let faint = scenes[first]
        let stamp = try #require(faint.elements.first { $0.id == "label:right" })
        #expect(stamp.opacity > 0 && stamp.opacity < SceneRenderer.stampLeftOutBelow)
        for scene in scenes[..<first] { renderer.render(scene, into: a) }
        #expect(preparer.waitUntilIdle())
        let drawn = renderer.stats.surfaceRenders
        let standIns = renderer.stats.placeholderFrames
        renderer.render(faint, into: a)
        #expect(renderer.lastFrame.contains(.stampLeftOut), "\(renderer.lastFrame.description)")
        #expect(renderer.stats.placeholderFrames == standIns + 1, "counted as a stand-in frame")
        #expect(renderer.isShowingStandIns)
        var without = faint
        without.elements.removeAll { $0.id == "label:right" }
        reference.render(without, into: b)
        let d1 = RenderFixtures.difference(a, b, threshold: 0)
        #expect(d1.maxChannel == 0, "left out: \(d1.pixelsOver) pixels differ")
        #expect(renderer.stats.surfaceRenders == drawn, "an image was drawn in the frame")

        #expect(preparer.waitUntilIdle())
        renderer.render(faint, into: a)
        #expect(renderer.lastFrame.contains(.adoptedPrepared) && !renderer.lastFrame.contains(.stampLeftOut))
        #expect(!renderer.isShowingStandIns)
        reference.render(faint, into: b)
        let d2 = RenderFixtures.difference(a, b, threshold: 0)
        #expect(d2.maxChannel == 0, "prepared: \(d2.pixelsOver) pixels differ")
        #expect(Self.stampKinds(renderer) == [.right])
        #expect(renderer.stats.surfaceRenders == drawn)
    }

    /// A drag left then right, released: the left stamp leaves the cache, the right one (shown
    /// last) stays, so the next drag to the right draws nothing new. Without a preparation thread,
    /// so every stamp is drawn as it is needed.
    @Test func releaseKeepsOnlyTheStampShownLast() throws {
        let (w, h, s) = (Self.width, Self.height, Self.scale)
        var deck = Self.deck()
        let rest = deck.scene(at: DeckScenes.start)
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s)
        let buffer = PixelBuffer(width: w, height: h)
        renderer.render(rest, into: buffer)
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        var t = DeckScenes.start
        let origin = DeckScenes.origin(of: rest, size: Self.size)
        let left = Self.drag(&deck, from: origin, offsets: [0, -20, -40, -60, -20, 10, 20, 40, 0], at: &t, lift: true)
        for (i, scene) in left.enumerated() {
            renderer.render(scene, into: buffer)
            if i == 7 { #expect(Set(Self.stampKinds(renderer)) == [.left, .right], "both while held") }
        }
        #expect(Self.stampKinds(renderer) == [.right], "released: only the stamp shown last")
        for _ in 0..<120 {
            t = t.advanced(bySeconds: 1.0 / 60)
            renderer.render(deck.scene(at: t), into: buffer)
        }
        let drawn = renderer.stats.surfaceRenders
        let again = Self.drag(&deck, from: origin, offsets: [0, 20, 40, 60], at: &t, lift: false)
        for scene in again { renderer.render(scene, into: buffer) }
        #expect(renderer.stats.surfaceRenders == drawn, "the next drag the same way drew an image")
        #expect(Self.stampKinds(renderer) == [.right])
    }
}
