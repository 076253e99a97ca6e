import CardModel
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// A first frame whose images were drawn ahead on two threads (`drawImagesAhead`): the same
/// pixels as a renderer that draws them in the frame, with nothing left for the frame to draw,
/// the covered cards bare and with their holes, on flat and photo cards, mirrored, at the
/// smallest and the largest panel; and the frames after it (a drag, at rest again) the same too.
@Suite struct RenderFirstFrameTests {
    static let panels: [(width: Int, height: Int, scale: Double)] = [(800, 480, 0.8), (1920, 1080, 1.8)]

    static func cards(photos: Bool, mirrored: Bool) -> [Card] {
        var cards = DeckScenes.manyCards(6)
        if photos {
            for i in cards.indices {
                cards[i].imagePath = RenderFixtures.images + (i % 2 == 0 ? "/photo.jpg" : "/photo.png")
            }
        }
        if mirrored {
            for i in cards.indices {
                (cards[i].title, cards[i].subtitle) = ("بطاقة رقم \(i + 1)", "اسحب إلى اليمين للمتابعة")
            }
        }
        return cards
    }

    @Test(arguments: [(false, false), (true, false), (false, true)])
    func aheadDrawnFirstFrameIsTheSame(photos: Bool, mirrored: Bool) throws {
        let cards = Self.cards(photos: photos, mirrored: mirrored)
        let images = ImageCache()
        for path in cards.compactMap(\.imagePath) { _ = images.image(at: path) }
        images.waitUntilIdle()
        for panel in Self.panels {
            let size = Size(width: Double(panel.width) / panel.scale, height: Double(panel.height) / panel.scale)
            var scenes = [
                DeckScenes.stack(cards, size: size), DeckScenes.stack(cards, size: size, drag: Point(x: 90, y: 10)),
                DeckScenes.stack(cards, size: size),
            ]
            if mirrored {
                scenes = scenes.map { scene in
                    var s = scene
                    s.elements = s.elements.map { e in
                        var e = e
                        e.kind = e.kind.mirrored
                        return e
                    }
                    return s
                }
            }
            let plain = SceneRenderer(
                pixelWidth: panel.width, pixelHeight: panel.height, scale: panel.scale, images: images)
            let ahead = SceneRenderer(
                pixelWidth: panel.width, pixelHeight: panel.height, scale: panel.scale, images: images)
            let (a, b) = (
                PixelBuffer(width: panel.width, height: panel.height),
                PixelBuffer(width: panel.width, height: panel.height)
            )
            b.populateInBackground()
            let drawnAhead = ahead.drawImagesAhead(of: scenes[0])
            let shown = scenes[0].elements.filter {
                if case .card = $0.kind.unmirrored { $0.opacity > 0 } else { false }
            }
            #expect(drawnAhead >= shown.count, "every card shown drawn ahead")
            // The card beneath the top one is placed reduced from its image on top (not on whole
            // pixels), so it is kept whole; the cards under it are framed.
            #expect(
                ahead.cachedFramed == shown.count - 2,
                "every card deeper than the one beneath the top one framed around the one above")
            let before = ahead.stats.surfaceRenders
            for (i, scene) in scenes.enumerated() {
                plain.render(scene, into: a)
                ahead.render(scene, into: b)
                if i == 0 { #expect(ahead.stats.surfaceRenders == before, "the first frame drew no image") }
                let d = RenderFixtures.difference(a, b, threshold: 0)
                #expect(
                    d.maxChannel == 0,
                    "\(panel.width)×\(panel.height) scene \(i): max difference \(d.maxChannel), \(d.pixelsOver) pixels")
            }
        }
    }

    /// The images drawn ahead are the ones the frame would draw: none when they are cached, and
    /// none at all with a preparation thread (the app's frames show stand-ins instead).
    @Test func nothingIsDrawnTwiceOrWithAPreparationThread() {
        let panel = Self.panels[0]
        let size = Size(width: Double(panel.width) / panel.scale, height: Double(panel.height) / panel.scale)
        let scene = DeckScenes.stack(DeckScenes.manyCards(6), size: size)
        let renderer = SceneRenderer(pixelWidth: panel.width, pixelHeight: panel.height, scale: panel.scale)
        #expect(renderer.drawImagesAhead(of: scene) > 0)
        #expect(renderer.drawImagesAhead(of: scene) == 0)
        let prepared = SceneRenderer(
            pixelWidth: panel.width, pixelHeight: panel.height, scale: panel.scale, preparer: ElementPreparer())
        #expect(prepared.drawImagesAhead(of: scene) == 0)
    }
}
