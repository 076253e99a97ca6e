import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// Scale, photos, the `render` command's options and its output.
@Suite struct RenderSupportTests {
    /// The layout fills a panel as the seed's 400×600 frame fills a phone: the shorter side is
    /// 600 points on a 10" and a 15.6" panel, so the card grows with the panel (it no longer
    /// stays phone-sized in the middle of a large screen).
    @Test func layoutFillsThePanelAsTheSeedFillsAPhone() {
        let tenInch = PanelGeometry(pixelWidth: 1280, pixelHeight: 800, millimetres: Size(width: 217, height: 136))
        expectClose(tenInch.scale, 800.0 / 600)
        expectClose(tenInch.metrics.size.height, 600)
        let large = PanelGeometry(pixelWidth: 1920, pixelHeight: 1080, millimetres: Size(width: 344, height: 194))
        expectClose(large.metrics.size.height, 600)
        func cardWidthMM(_ p: PanelGeometry, _ mm: Double) -> Double { 320 / p.metrics.size.width * mm }
        #expect(cardWidthMM(large, 344) > 1.5 * cardWidthMM(tenInch, 217) * 0.9)
        // Portrait: the same rule on the shorter side.
        let portrait = PanelGeometry(pixelWidth: 1080, pixelHeight: 1920, millimetres: Size(width: 194, height: 344))
        expectClose(portrait.metrics.size.width, 600)
    }

    /// On the Pi's 7" panel 600 points would make a point 0.154 mm; the physical floor (0.17 mm)
    /// wins there, and the stack still fits in 480 px.
    @Test func aSevenInchPanelGetsThePhysicalFloor() {
        let pi = PanelGeometry(pixelWidth: 800, pixelHeight: 480, millimetres: Size(width: 154, height: 86))
        let mmPerPoint = 154 / pi.metrics.size.width
        #expect(mmPerPoint >= RenderScale.minimumPointMillimetres - 1e-9)
        #expect(pi.scale > 800.0 / 1000)
        #expect(pi.metrics.size.height >= RenderScale.minimumShortSidePoints - 1e-9)
        // The slop stays 2 mm on the glass whatever the scale.
        expectClose(pi.metrics.touchSlop / pi.metrics.pointsPerMillimetre, ScreenMetrics.touchSlopMillimetres)
        let scaled = PanelGeometry(
            pixelWidth: 800, pixelHeight: 480, millimetres: Size(width: 154, height: 86), scale: 0.6)
        expectClose(scaled.scale, 0.6)
        expectClose(scaled.metrics.touchSlop / scaled.metrics.pointsPerMillimetre, ScreenMetrics.touchSlopMillimetres)
    }

    /// `render --panel-mm` takes the panel's millimetres; nonsense is a usage error naming the form.
    @Test func panelMillimetresOption() throws {
        let ok = RenderOptions.table.parse(["--panel-mm", "154x86", "--out", "x.png"], from: RenderOptions())
        guard case .success(let o) = ok else {
            Issue.record("\(ok)")
            return
        }
        #expect(o.panelMM == Size(width: 154, height: 86))
        for bad in ["0x86", "154", "154x-1", "nanx5", "1e9x5"] {
            let r = RenderOptions.table.parse(["--panel-mm", bad, "--out", "x.png"], from: RenderOptions())
            guard case .failure(let e) = r else {
                Issue.record("\(bad) accepted")
                continue
            }
            #expect("\(e)".contains("154x86"), "\(e)")
        }
    }

    @Test(arguments: [(0.0, 0.0), (1.0, 1.0), (160.0, 90.0), (-5.0, 3.0)])
    func unknownOrImplausibleSizesFallBackToSixHundredPointsHigh(_ mm: (Double, Double)) {
        let s = RenderScale.pixelsPerPoint(pixelWidth: 1280, pixelHeight: 800, widthMM: mm.0, heightMM: mm.1)
        // 160×90 mm on a 1280×800 panel would be 203 ppi, plausible, and is used as such.
        if mm == (160, 90) {
            #expect(s > 1.2 && s <= 800 / RenderScale.minimumShortSidePoints)
        } else {
            #expect(abs(s - 800.0 / RenderScale.layoutShortSidePoints) < 1e-9)
        }
    }

    @Test func denseSmallPanelsStillFitTheStack() {
        // A 5" 800×480 panel (108×65 mm, ~188 ppi) would leave only 408 points; clamped.
        let s = RenderScale.pixelsPerPoint(pixelWidth: 800, pixelHeight: 480, widthMM: 108, heightMM: 65)
        #expect(480 / s >= RenderScale.minimumShortSidePoints - 1e-9)
    }

    @Test(arguments: ["photo.png", "photo.jpg"])
    func photosDecodeOffTheFramePath(_ name: String) throws {
        let cache = ImageCache()
        let path = RenderFixtures.images + "/" + name
        #expect(cache.image(at: path) == nil, "the first ask only starts the decode")
        cache.waitUntilIdle()
        let image = try #require(cache.image(at: path))
        #expect(image.width == 240 && image.height == 160)
        // The fixture's white disc is at its centre.
        let p = image.data.load(fromByteOffset: 80 * image.stride + 120 * 4, as: UInt32.self)
        #expect(p & 0xFF_FFFF > 0xF0_F0F0, "pixel \(String(p, radix: 16))")
        var byte: UInt8 = 0
        #expect(read(cache.readyFD, &byte, 1) == 1, "the poll loop is told")
        cache.drainReady()
    }

    @Test(arguments: ["photo.png", "photo.jpg"])
    func largePhotosAreReducedOnDecode(_ name: String) throws {
        let image = try ImageCache.decode(path: RenderFixtures.images + "/" + name, maxDimension: 100).get()
        #expect(max(image.width, image.height) <= 120, "\(image.width)×\(image.height)")
        #expect(max(image.width, image.height) >= 100)
    }

    @Test func unreadableImagesFailOnceWithoutCrashing() {
        let cache = ImageCache()
        let missing = RenderFixtures.images + "/no-such-photo.png"
        let bogus = RenderFixtures.images + "/not-an-image.png"
        _ = cache.image(at: missing)
        _ = cache.image(at: bogus)
        cache.waitUntilIdle()
        #expect(cache.image(at: missing) == nil && cache.isSettled(missing))
        #expect(cache.image(at: bogus) == nil && cache.isSettled(bogus))
        guard case .failure(let e) = ImageCache.decode(path: bogus, maxDimension: 100) else {
            Issue.record("a text file decoded as an image")
            return
        }
        #expect(e.description.contains("neither PNG nor JPEG"))
    }

    /// Whether the first frame caught the photo or drew the placeholder (a race with the
    /// decoder), once the decode is done the card shows the photo and then rests.
    @Test func cardShowsItsPhotoOnceDecoded() {
        let images = ImageCache()
        var card = BuiltInCards.stack[0]
        card.imagePath = RenderFixtures.images + "/photo.png"
        let size = Size(width: 500, height: 600)
        let renderer = SceneRenderer(pixelWidth: 500, pixelHeight: 600, scale: 1, images: images)
        let buffer = PixelBuffer(width: 500, height: 600)
        let scene = DeckScenes.stack([card], size: size)
        renderer.render(scene, into: buffer)
        images.waitUntilIdle()
        renderer.render(scene, into: buffer)
        let expected = RenderFixtures.render(scene, width: 500, height: 600, scale: 1)
        #expect(RenderFixtures.difference(buffer, expected).maxChannel == 0)
        // The fixture's blue block shows at the card's top left.
        let p = buffer.pixel(x: 130, y: 250)
        #expect((p & 0xFF) > 0xB0 && ((p >> 16) & 0xFF) < 0x60, "pixel \(String(p, radix: 16))")
        #expect(renderer.render(scene, into: buffer) == .empty)
    }

    @Test func optionsParseAndBadOnesExplainTheFix() throws {
        let o = try RenderOptions.parse([
            "--size", "1280x800", "--out", "/tmp/x.png", "--layout", "list", "--at", "120",
        ])
        #expect(o.width == 1280 && o.height == 800 && o.layout == "list" && o.atMs == 120)
        #expect(throws: RenderError.self) { try RenderOptions.parse(["--size", "12x", "--out", "a.png"]) }
        #expect(throws: RenderError.self) { try RenderOptions.parse(["--size", "800x480"]) }
        #expect(throws: RenderError.self) { try RenderOptions.parse(["--out", "a.png", "--layout", "grid"]) }
        #expect(throws: RenderError.self) {
            try RenderOptions.parse(["--out", "a.png", "--gesture", "drag 1 2", "--script", "s.txt"])
        }
        let keyed = try RenderOptions.parse(["--out", "a.png", "--keys", "accessibility down  enter"])
        #expect(keyed.keys == [.accessibility, .down, .enter])
        for bad in ["", "accessibility F2", "enter,down"] {
            #expect(throws: RenderError.self, "--keys '\(bad)'") {
                try RenderOptions.parse(["--out", "a.png", "--keys", bad])
            }
        }
    }

    @Test func renderCommandWritesThePanelPicture() throws {
        let out = RenderFixtures.failureDirectory + "/command.png"
        let status = CommandLine.runKiosk(arguments: [
            "render", "--size", "480x320", "--out", out, "--rotation", "90", "--gesture", "drag -80 0",
        ])
        #expect(status == 0)
        let image = try PixelBuffer.readPNG(out)
        #expect(image.width == 480 && image.height == 320)
        #expect(CommandLine.runKiosk(arguments: ["render", "--size", "480x320"]) == 2)
        #expect(CommandLine.runKiosk(arguments: ["render", "--out", out, "--deck", "/nonexistent.json"]) == 2)
    }
}

private func expectClose(
    _ a: Double, _ b: Double, within tolerance: Double = 1e-6, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(abs(a - b) <= tolerance, "\(a) is not within \(tolerance) of \(b)", sourceLocation: sourceLocation)
}
