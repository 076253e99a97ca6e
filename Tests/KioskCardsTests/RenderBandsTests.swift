import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// Composing in bands (`SceneRenderer.compose(_:bandRows:_:)`): any region of the current scene,
/// band by band into the renderer's small buffer, is the frame `render(_:into:)` leaves in a
/// whole buffer, pixel for pixel, for bands 1, 7 and 32 rows high and as high as the screen.
/// The band buffer is filled with garbage before each band, so a pixel a compose path leaves
/// unwritten (a restore that skips an opaque run nobody draws, a clip that misses the band)
/// shows. The whole-buffer frames are themselves checked against full redraws and the goldens
/// (`RenderPipelineTests`, `GoldenImageTests`).
@Suite struct RenderBandsTests {
    static let heights = [1, 7, 32, Int.max]

    /// Composes `region` of `renderer`'s current scene in bands of `rows` and compares every
    /// band with `frame`; returns the first difference.
    static func difference(
        _ renderer: SceneRenderer, _ region: PixelRect, rows: Int, frame: PixelBuffer
    ) -> String? {
        var found: String?
        var covered = 0
        renderer.compose(region, bandRows: rows == Int.max ? frame.height : rows) { band, origin, stride in
            covered += band.width * band.height
            guard found == nil else { return }
            for y in band.y..<band.maxY {
                let row = (origin + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in band.x..<band.maxX where Self.channelDifference(row[x], frame.pixel(x: x, y: y)) > 0 {
                    found =
                        "pixel \(x),\(y) of band \(band): \(String(row[x], radix: 16)) "
                        + "≠ \(String(frame.pixel(x: x, y: y), radix: 16))"
                    return
                }
            }
        }
        let want = region.intersection(frame.bounds)
        if found == nil && covered != want.width * want.height { found = "bands cover \(covered) pixels of \(want)" }
        return found
    }

    /// The largest difference of a channel between two pixels.
    static func channelDifference(_ a: UInt32, _ b: UInt32) -> Int {
        if a == b { return 0 }
        let x = SIMD4<Int32>(Int32(a & 0xFF), Int32((a >> 8) & 0xFF), Int32((a >> 16) & 0xFF), Int32(a >> 24))
        let y = SIMD4<Int32>(Int32(b & 0xFF), Int32((b >> 8) & 0xFF), Int32((b >> 16) & 0xFF), Int32(b >> 24))
        let d = x &- y
        return Int(max(abs(d[0]), abs(d[1]), abs(d[2]), abs(d[3])))
    }

    /// Every frame of a visit (a drag, the swipe's close-up with hidden pixels, the empty state;
    /// the list's flick, row delete and detail page), with the app's preparation thread (stand-ins,
    /// flat stand-ins) and without it, landscape and portrait: each frame's damage ∪ the previous
    /// frame's (what the display asks for) in bands, and every fifth frame the whole screen.
    /// Every pixel is exact: the damage against the whole frame; beyond it, with the
    /// preparation thread, against the whole screen composed at once from the same state. There
    /// an element partly in the damage may have got an image of the same look from the thread
    /// (a card at its own scale for the level above's, a whole card for a bare one), which the
    /// whole frame shows inside the damage only (seen: 4 levels of a channel at the damage's
    /// edge, aarch64 under qemu).
    @Test(arguments: ["onboarding.json", "products/products.json", "seed-list.json"])
    func bandsAreTheFrame(_ deck: String) throws {
        let file = try GoldenImageTests.example(deck)
        let sizes = DeckFixtures.underEmulation ? [(300, 180)] : [(300, 180), (180, 300)]
        for (w, h) in sizes {
            let scale = Double(min(w, h)) / 600
            let size = Size(width: Double(w) / scale, height: Double(h) / scale)
            let visit =
                deck == "seed-list.json"
                ? ExampleScenes.listVisit(file, size: size) : ExampleScenes.stackVisit(file, size: size)
            let frames = visit.steps.compactMap { if case .frame(let s) = $0 { s } else { nil } }
            let images = ImageCache()
            for scene in frames {
                for e in scene.elements {
                    if case .card(let c) = e.kind.unmirrored, let path = c.imagePath { _ = images.image(at: path) }
                }
            }
            images.waitUntilIdle()
            for preparer in [nil, ElementPreparer()] {
                let renderer = SceneRenderer(
                    pixelWidth: w, pixelHeight: h, scale: scale, images: images, preparer: preparer)
                renderer.poisonsBands = true
                let frame = PixelBuffer(width: w, height: h)
                var previous = PixelRect.empty
                var standIns = 0
                for (n, scene) in ([visit.first] + frames).enumerated() {
                    let damage = renderer.render(scene, into: frame)
                    if renderer.lastFrame.contains(.standInShown) || renderer.lastFrame.contains(.flatStandIn) {
                        standIns += 1
                    }
                    let rows = Self.heights[n % Self.heights.count]
                    let region = damage.union(previous)
                    previous = damage
                    let what = "\(deck) \(w)x\(h) \(preparer == nil ? "" : "prepared ")frame \(n) rows \(rows)"
                    // Beyond the damage the whole frame keeps what it drew before. With the
                    // preparation thread an element partly in the damage may have got a new image
                    // of the same look, which the frame shows inside the damage only: there the
                    // oracle is the whole screen composed at once from the same state.
                    let beyond = preparer == nil ? frame : renderer.composedScreen()
                    if let d = Self.difference(renderer, damage, rows: rows, frame: frame)
                        ?? Self.difference(renderer, region, rows: rows, frame: beyond)
                    {
                        let slots = renderer.moving.map { m -> String in
                            switch m {
                            case .none: "none"
                            case .unplaced(let e, let box): "unplaced \(e.id) \(box)"
                            case .placed(_, let layers):
                                "placed "
                                    + layers.map { p in
                                        "\(p.box) \(p.image.map { "\($0.image.width)x\($0.image.height)" } ?? "fill")"
                                    }.joined(separator: " + ")
                            }
                        }
                        Issue.record("\(what): \(d) damage \(damage) work \(renderer.lastFrame.description) \(slots)")
                        return
                    }
                    if n % 5 == 0, let d = Self.difference(renderer, frame.bounds, rows: rows, frame: beyond) {
                        Issue.record("\(what), whole screen: \(d)")
                        return
                    }
                }
                if preparer != nil { #expect(standIns > 0, "\(deck): the visit showed stand-ins") }
            }
        }
    }

    /// A translucent moving element (a card fading out over the stack), turned and upright, with
    /// both kernels.
    @Test(arguments: Compositor.Kernel.allCases)
    func aTranslucentElementComposesAlike(_ kernel: Compositor.Kernel) throws {
        let file = try GoldenImageTests.example("onboarding.json")
        let (w, h) = (300, 180)
        let scale = Double(h) / 600
        var deck = ExampleScenes.makeDeck(file, size: Size(width: Double(w) / scale, height: 600))
        let rest = deck.scene(at: ExampleScenes.start)
        let drag = ExampleScenes.drag(&deck, from: ExampleScenes.origin(of: rest), offsets: [Point(x: 40, y: 10)])
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: scale)
        renderer.poisonsBands = true
        renderer.kernel = kernel
        let frame = PixelBuffer(width: w, height: h)
        for (n, base) in [rest, try #require(drag.last)].enumerated() {
            var scene = base
            let top = try #require(scene.elements.indices.last)
            scene.elements[top].opacity = 0.55
            renderer.render(scene, into: frame)
            for rows in Self.heights {
                let d = Self.difference(renderer, frame.bounds, rows: rows, frame: frame)
                #expect(d == nil, "\(kernel) scene \(n), rows \(rows): \(d ?? "")")
            }
        }
    }

    /// The app's path: `takeIn` and bands only, never a whole buffer; each band put together
    /// into a picture equals `render` of the same scenes by another renderer.
    @Test func takingInAndComposingIsRendering() throws {
        let file = try GoldenImageTests.example("products/products.json")
        let (w, h) = (180, 300)
        let scale = Double(w) / 600
        let size = Size(width: Double(w) / scale, height: Double(h) / scale)
        let visit = ExampleScenes.stackVisit(file, size: size)
        let frames = visit.steps.compactMap { if case .frame(let s) = $0 { s } else { nil } }
        let reference = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: scale)
        let banded = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: scale)
        banded.poisonsBands = true
        let want = PixelBuffer(width: w, height: h)
        let got = PixelBuffer(width: w, height: h)
        for (n, scene) in ([visit.first] + frames.prefix(40)).enumerated() {
            let damage = reference.render(scene, into: want)
            #expect(banded.takeIn(scene) == damage, "frame \(n)")
            banded.compose(damage) { band, origin, stride in
                for y in band.y..<band.maxY {
                    let row = (origin + y * stride).assumingMemoryBound(to: UInt32.self)
                    for x in band.x..<band.maxX { got.setPixel(x: x, y: y, row[x]) }
                }
            }
            let d = RenderFixtures.difference(want, got, threshold: 0)
            #expect(d.maxChannel == 0, "frame \(n): \(d.pixelsOver) pixels differ")
        }
        #expect(banded.bandBytes > 0 && banded.bandBytes <= w * 32 * 4 * 2)
    }
}
