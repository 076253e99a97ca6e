import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// Cards drawn off the frame loop: a frame never waits for one, shows a stand-in instead, and
/// the frame after it arrives is exactly what a renderer drawing in the frame would show.
@Suite struct RenderPreparerTests {
    static let (width, height, scale) = (640, 400, 0.8)
    static var size: Size { Size(width: Double(width) / scale, height: Double(height) / scale) }

    static func restScene() -> Scene {
        DeckScenes.stack(BuiltInCards.stack, size: size, drag: .zero)
    }

    static func checksum(_ b: PixelBuffer) -> UInt64 {
        var h: UInt64 = 1_469_598_103_934_665_603
        for y in 0..<b.height {
            for x in stride(from: 0, to: b.width, by: 3) {
                h = (h ^ UInt64(b.pixel(x: x, y: y) & 0xFF_FFFF)) &* 1_099_511_628_211
            }
        }
        return h
    }

    @Test func firstFrameShowsStandInsThenTheRealCardsOnceReady() throws {
        let preparer = ElementPreparer()
        #expect(preparer.isRunning)
        let renderer = SceneRenderer(
            pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale, preparer: preparer)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        let scene = Self.restScene()
        renderer.render(scene, into: buffer)
        #expect(renderer.stats.placeholderFrames == 1, "no card was drawn on the frame loop")
        let synchronous = RenderFixtures.render(scene, width: Self.width, height: Self.height, scale: Self.scale)
        let early = RenderFixtures.difference(buffer, synchronous, threshold: 40)
        #expect(early.pixelsOver > 1000, "the stand-ins carry no text: the first frame differs")

        #expect(preparer.waitUntilIdle())
        // The app's loop sees readyFD readable and draws the unchanged scene again.
        var fds = pollfd(fd: preparer.readyFD, events: Int16(POLLIN), revents: 0)
        #expect(poll(&fds, 1, 1000) == 1)
        preparer.drainReady()
        // Only where stand-ins were shown: every card's rectangle, not the whole screen.
        let redrawn = renderer.render(scene, into: buffer)
        #expect(redrawn != buffer.bounds && !redrawn.isEmpty, "redrawn \(redrawn)")
        #expect(!renderer.lastFrame.contains(.wholeScreen) && renderer.lastFrame.contains(.adoptedPrepared))
        for e in scene.elements where SceneRenderer.drawnAhead(e.kind) {
            let b = e.bounds
            let inside = PixelRect(
                x: Int(b.minX * Self.scale) + 1, y: Int(b.minY * Self.scale) + 1,
                width: Int(b.width * Self.scale) - 2, height: Int(b.height * Self.scale) - 2
            ).intersection(buffer.bounds)
            #expect(redrawn.union(inside) == redrawn, "\(e.id) at \(inside) was not redrawn (\(redrawn))")
        }
        #expect(renderer.stats.placeholderFrames == 1)
        let later = RenderFixtures.difference(buffer, synchronous, threshold: 1)
        #expect(later.maxChannel <= 1, "max difference \(later.maxChannel)")
    }

    /// The thread draws into images of its own: while it works, neither the frame the loop
    /// drew nor anything the loop holds changes.
    @Test func preparationNeverWritesTheLoopsBuffers() {
        let preparer = ElementPreparer()
        let renderer = SceneRenderer(
            pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale, preparer: preparer)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        renderer.render(Self.restScene(), into: buffer)
        let before = Self.checksum(buffer)
        #expect(preparer.waitUntilIdle())
        #expect(Self.checksum(buffer) == before)
    }

    /// Idle preparation only queues: the caller draws nothing, and the next gesture's first
    /// frames then need no stand-in.
    @Test func idlePreparationQueuesAndTheDragNeedsNoStandIn() {
        let preparer = ElementPreparer()
        let renderer = SceneRenderer(
            pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale, preparer: preparer)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        var deck = StackDeck(cards: BuiltInCards.stack, metrics: DeckScenes.metrics(Self.size))
        let rest = deck.scene(at: DeckScenes.start)
        renderer.render(rest, into: buffer)
        #expect(preparer.waitUntilIdle())
        renderer.render(rest, into: buffer)
        let standInsAtRest = renderer.stats.placeholderFrames
        let drawnHere = renderer.stats.surfaceRenders
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        #expect(renderer.stats.surfaceRenders == drawnHere, "prepare() draws nothing on the calling thread")
        #expect(preparer.waitUntilIdle())
        let origin = DeckScenes.origin(of: rest, size: Self.size)
        for i in 1...12 {
            let t = DeckScenes.start.advanced(bySeconds: Double(i) / 60)
            let p = origin + Point(x: Double(i) * 6, y: 0)
            deck.handle(
                TouchFrame(time: t, contacts: [TouchContact(id: 1, position: p, phase: i == 1 ? .began : .moved)]))
            renderer.render(deck.scene(at: t), into: buffer)
        }
        #expect(renderer.stats.placeholderFrames == standInsAtRest, "the dragged card was ready")
    }

    /// What the thread finishes goes into the cache between frames, as the app's loop takes it
    /// in when the thread signals, and the cache evicts down to its budget as each arrives: a
    /// resting stack prepares more images than a small budget has room for, and never more
    /// than the budget is held. The next frame redraws where a stand-in was replaced.
    @Test func preparedImagesGoIntoTheCacheBetweenFrames() {
        /// The cache's bytes after a first frame and after everything a resting stack prepares
        /// was taken in, with `budget`, and the most it held on the way.
        func rest(budget: Int) -> (afterFrame: Int, afterPrepared: Int, largest: Int, redraw: Bool) {
            let preparer = ElementPreparer()
            let renderer = SceneRenderer(
                pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale, cacheBytes: budget,
                preparer: preparer)
            let buffer = PixelBuffer(width: Self.width, height: Self.height)
            var deck = StackDeck(cards: BuiltInCards.stack, metrics: DeckScenes.metrics(Self.size))
            let rest = deck.scene(at: DeckScenes.start)
            renderer.render(rest, into: buffer)
            let afterFrame = renderer.cachedBytes
            for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
            var largest = afterFrame
            // The loop's part when the thread signals.
            _ = preparer.waitUntilIdle {
                renderer.takeInPrepared()
                largest = max(largest, renderer.cachedBytes)
            }
            renderer.takeInPrepared()
            largest = max(largest, renderer.cachedBytes)
            let afterPrepared = renderer.cachedBytes
            renderer.render(rest, into: buffer)
            return (afterFrame, afterPrepared, largest, renderer.lastFrame.contains(.adoptedPrepared))
        }
        let unbounded = rest(budget: 1 << 30)
        #expect(unbounded.afterPrepared > unbounded.afterFrame, "taken in before the next frame")
        #expect(unbounded.redraw, "the frame after redraws the stand-ins the first one showed")
        // Room for all but about two of the images: they are evicted as the others arrive.
        let budget = unbounded.afterPrepared * 2 / 3
        let bounded = rest(budget: budget)
        #expect(bounded.largest <= budget, "the cache held \(bounded.largest) bytes, over its budget of \(budget)")
        #expect(bounded.afterPrepared > bounded.afterFrame)
    }

    /// Without a preparer (headless `render`, goldens) everything is drawn in the frame.
    @Test func withoutPreparerNothingIsDeferred() {
        let renderer = SceneRenderer(pixelWidth: Self.width, pixelHeight: Self.height, scale: Self.scale)
        let buffer = PixelBuffer(width: Self.width, height: Self.height)
        renderer.render(Self.restScene(), into: buffer)
        #expect(renderer.stats.placeholderFrames == 0)
        #expect(renderer.stats.surfaceRenders > 0)
    }
}
