import CardModel
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// The benchmark measures what a visitor does and compares with baselines that draw the same
/// thing: a visit that silently stopped dismissing cards, or a baseline that drew less, would
/// make its figures lie.
@Suite struct BenchScenesTests {
    static let size = Size(width: 1000, height: 600)

    static func decks() throws -> Bench.Decks {
        try #require(Bench.exampleDecks(), "examples/ is found from the package directory")
    }

    static func frames(_ steps: [ExampleScenes.Step]) -> [Scene] {
        steps.compactMap { if case .frame(let s) = $0 { s } else { nil } }
    }

    @Test func stackVisitDismissesEveryCardAndEndsSettledOnTheEmptyState() throws {
        let decks = try Self.decks()
        for file in [decks.stack, decks.photo] {
            let visit = ExampleScenes.stackVisit(file, size: Self.size)
            #expect(visit.decisions.map(\.cardID) == file.cards.map(\.id))
            let sides = visit.decisions.map(\.action)
            #expect(sides.first == .swipedRight)
            #expect(sides.dropFirst().first == .swipedLeft)
            let last = try #require(Self.frames(visit.steps).last)
            #expect(!last.isAnimating)
            #expect(!last.elements.contains { if case .card = $0.kind { true } else { false } })
            // An idle moment before every drag (the app prepares then) and after the last.
            let idles = visit.steps.filter { if case .idle = $0 { true } else { false } }.count
            #expect(idles == file.cards.count + 1)
        }
    }

    @Test func listVisitDeletesARowAndOpensAndClosesADetailPage() throws {
        let visit = ExampleScenes.listVisit(try Self.decks().list, size: Self.size)
        #expect(visit.decisions.map(\.action) == [.deleted, .opened])
        let frames = Self.frames(visit.steps)
        #expect(frames.contains { $0.elements.contains { if case .detailPage = $0.kind { true } else { false } } })
        let last = try #require(frames.last)
        #expect(!last.isAnimating)
        #expect(!last.elements.contains { if case .detailPage = $0.kind { true } else { false } })
    }

    /// Both cairo baselines draw what the real pipeline draws: same design, differing only
    /// where resampling a turned card's image differs from drawing it turned (glyph edges).
    @Test func baselinesDrawTheSameFramesAsTheRealPipeline() throws {
        let (w, h, scale) = (640, 384, 0.64)
        let size = Size(width: Double(w) / scale, height: Double(h) / scale)
        let (first, steps) = Bench.steps("photo-visit", decks: try Self.decks(), size: size, frames: 24)
        let picked = Self.frames(steps).enumerated().filter { $0.offset % 30 == 4 }.map(\.element)
        #expect(picked.count >= 5)
        // Photos decoded by drawing just the frames compared (the whole visit through a debug
        // build's compositor took most of this test's 22 s, and far longer under qemu-user).
        let images = ImageCache()
        Bench.decodePhotos(
            first: first, steps: picked.map { .frame($0) }, pixelWidth: w, pixelHeight: h, scale: scale,
            images: images)
        // Every photo decoded before any frame is compared: one still decoding draws a stand-in
        // in one pipeline and the photo in the other (aarch64 CI, busy machine).
        let photos = Set(
            picked.flatMap { $0.elements }.compactMap { e -> String? in
                if case .card(let card) = e.kind.unmirrored { card.imagePath } else { nil }
            })
        #expect(!photos.isEmpty)
        for path in photos { #expect(images.isSettled(path), "\(path) decoded before the frames are compared") }
        for name in ["cairo-redraw", "cairo-cached"] {
            let real = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: scale, images: images)
            let baseline = Bench.makePipeline(name, pixelWidth: w, pixelHeight: h, scale: scale, images: images)
            let a = PixelBuffer(width: w, height: h)
            let b = PixelBuffer(width: w, height: h)
            for scene in picked {
                real.invalidate()
                real.render(scene, into: a)
                baseline.render(scene, b)
                let d = RenderFixtures.difference(a, b, threshold: 40)
                #expect(d.mean < 1.5, "\(name): mean difference \(d.mean)")
                #expect(d.pixelsOver < w * h / 66, "\(name): \(d.pixelsOver) pixels differ by more than 40")
            }
        }
    }

    @Test func coldCopyRingSpansMoreThanTheLastLevelCache() {
        let l3 = Bench.lastLevelCacheBytes()
        #expect(l3 >= 256 << 10, "sysfs names a last-level cache (or the 32 MiB default)")
        for bytes in [800 * 480 * 4, 1920 * 1080 * 4, 64 << 20] {
            let n = Bench.coldRingCount(frameBytes: bytes)
            #expect(n >= 4)
            #expect(n * bytes > 2 * l3, "\(n) buffers of \(bytes) bytes")
        }
    }

    @Test func frameStatsCountFramesOverBudget() {
        let s = FrameStats((1...100).map(Double.init), budget: 95)
        #expect(s.median == 50)
        #expect(s.p90 == 90)
        #expect(s.p99 == 99)
        #expect(s.max == 100)
        #expect(s.overBudget == 5)
    }

    /// p99 ÷ median of the frames valgrind counted, in JSON too; none counted: no figure.
    @Test func instructionsP99OverMedianIsTheCountedFramesRatio() {
        var r = BenchResult(
            scene: "stack-drag", size: "800x480", pipeline: "real", stats: FrameStats([1, 2, 3], budget: 4))
        #expect(r.instructionsP99OverMedian == nil)
        #expect(!r.json().contains("instructions_p99_over_median"))
        // 100 frames: 1…100 M instructions, shuffled; the median is 50 M, the p99 99 M.
        r.countedFrames = (1...100).map { FrameRecord(index: $0, ms: 0, work: nil, instructions: Double($0) * 1e6) }
            .shuffled()
        #expect(r.instructionsP99OverMedian == 99.0 / 50.0)
        #expect(r.json().contains("\"instructions_p99_over_median\":1.98"))
    }
}
