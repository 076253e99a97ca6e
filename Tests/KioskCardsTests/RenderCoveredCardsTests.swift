import CardModel
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// A card whose contents the card above hides is drawn bare (no text, photo or watermark)
/// while its whole image is not cached: the screen must be the one drawing everything gives,
/// pixel for pixel, at the smallest panel (where a card's edge lies least inside the one
/// above) and the largest, at rest, dragged (the card beneath uncovered) and back at rest.
@Suite struct RenderCoveredCardsTests {
    static let panels: [(width: Int, height: Int, scale: Double)] = [(800, 480, 0.8), (1920, 1080, 1.8)]

    static func drawn(
        _ scenes: [Scene], panel: (width: Int, height: Int, scale: Double), images: ImageCache?, bare: Bool
    )
        -> (PixelBuffer, SceneRenderer)
    {
        let renderer = SceneRenderer(
            pixelWidth: panel.width, pixelHeight: panel.height, scale: panel.scale, images: images)
        renderer.skipsCoveredContents = bare
        let buffer = PixelBuffer(width: panel.width, height: panel.height)
        for s in scenes { renderer.render(s, into: buffer) }
        return (buffer, renderer)
    }

    static func isBareCard(_ kind: ElementKind) -> Bool {
        if case .card(let card) = kind.unmirrored { card.title.isEmpty && card.subtitle.isEmpty } else { false }
    }

    @Test(arguments: [false, true]) func coveredCardsAreBareAndTheScreenIsTheSame(photos: Bool) throws {
        var cards = DeckScenes.manyCards(6)
        var images: ImageCache?
        if photos {
            cards = Array(try GoldenImageTests.example("products/products.json").cards.prefix(6))
            let cache = ImageCache()
            for path in cards.compactMap(\.imagePath) { _ = cache.image(at: path) }
            cache.waitUntilIdle()
            images = cache
            #expect(cards.contains { $0.imagePath != nil })
        }
        for panel in Self.panels {
            let size = Size(width: Double(panel.width) / panel.scale, height: Double(panel.height) / panel.scale)
            let scenes = [
                DeckScenes.stack(cards, size: size), DeckScenes.stack(cards, size: size, drag: Point(x: 90, y: 10)),
                DeckScenes.stack(cards, size: size),
            ]
            for n in 1...scenes.count {
                let (bare, renderer) = Self.drawn(Array(scenes.prefix(n)), panel: panel, images: images, bare: true)
                let (whole, _) = Self.drawn(Array(scenes.prefix(n)), panel: panel, images: images, bare: false)
                let d = RenderFixtures.difference(bare, whole, threshold: 0)
                #expect(
                    d.maxChannel == 0,
                    "\(panel.width)×\(panel.height), \(n) scenes: max difference \(d.maxChannel), \(d.pixelsOver) pixels"
                )
                if n == 1 {
                    let shown = scenes[0].elements.filter { if case .card = $0.kind { $0.opacity > 0 } else { false } }
                    let bareCards = renderer.cachedKinds.filter(Self.isBareCard).count
                    #expect(bareCards == shown.count - 1, "every card but the top one drawn bare at rest")
                    // The card beneath the top one is placed reduced from its image on top,
                    // not on whole pixels, so it is kept whole.
                    #expect(
                        renderer.cacheContents.filter(\.framed).count == shown.count - 2,
                        "every card deeper than the one beneath the top one kept framed under it")
                }
            }
        }
    }

    /// A covered card drawn here leaves out what the card above covers, and only where that
    /// card is opaque and unturned on whole pixels: with the top card faded, turned, scaled,
    /// moved by a fraction of a pixel or dragged, at rest again, and a deck that changes its
    /// top card between frames, the screen is the one drawing every card whole gives.
    @Test func coveredCardsLeaveOutOnlyWhatIsCovered() throws {
        let cards = DeckScenes.manyCards(6)
        for panel in Self.panels {
            let size = Size(width: Double(panel.width) / panel.scale, height: Double(panel.height) / panel.scale)
            let rest = DeckScenes.stack(cards, size: size)
            let top = try #require(rest.elements.lastIndex { if case .card = $0.kind { true } else { false } })
            func changed(_ body: (inout SceneElement) -> Void) -> Scene {
                var scene = rest
                body(&scene.elements[top])
                return scene
            }
            let variants: [(String, [Scene])] = [
                ("faded", [changed { $0.opacity = 0.9 }]),
                ("turned", [changed { $0.transform.rotation = 0.03 }]),
                ("scaled", [changed { $0.transform.scale = 1.03 }]),
                ("moved", [changed { $0.transform.translation = Point(x: 0.3 / panel.scale, y: 0) }]),
                (
                    "dragged and back",
                    [
                        rest, DeckScenes.stack(cards, size: size, drag: Point(x: 90, y: 10)), rest,
                        DeckScenes.stack(cards, size: size, drag: Point(x: -60, y: 30)),
                    ]
                ),
                ("next card on top", [rest, DeckScenes.stack(Array(cards.dropFirst()), size: size), rest]),
            ]
            for (name, scenes) in variants {
                for n in 1...scenes.count {
                    let (bare, _) = Self.drawn(Array(scenes.prefix(n)), panel: panel, images: nil, bare: true)
                    let (whole, _) = Self.drawn(Array(scenes.prefix(n)), panel: panel, images: nil, bare: false)
                    let d = RenderFixtures.difference(bare, whole, threshold: 0)
                    #expect(
                        d.maxChannel == 0,
                        "\(name), \(panel.width)×\(panel.height), \(n) scenes: max difference \(d.maxChannel)")
                }
            }
        }
    }

    /// Only an unturned, opaque card over an opaque background covers the card beneath.
    @Test func onlyAnUnturnedOpaqueCardCovers() throws {
        let size = Size(width: 1000, height: 600)
        let cards = DeckScenes.manyCards(6)
        let rest = DeckScenes.stack(cards, size: size).elements
        let shown = rest.indices.filter { if case .card = rest[$0].kind { rest[$0].opacity > 0 } else { false } }
        let top = try #require(shown.last)
        for scale in [0.8, 1.8] {
            for i in shown {
                #expect(
                    SceneRenderer.contentsCovered(rest, at: i, scale: scale, background: .white) == (i != top),
                    "card \(i) at \(scale) px/pt")
            }
        }
        var faded = rest
        faded[top].opacity = 0.9
        #expect(!SceneRenderer.contentsCovered(faded, at: shown[shown.count - 2], scale: 1, background: .white))
        #expect(!SceneRenderer.contentsCovered(rest, at: shown[0], scale: 1, background: Color.white.withAlpha(0.5)))
        let dragged = DeckScenes.stack(cards, size: size, drag: Point(x: 90, y: 10)).elements
        let turned = dragged.indices.filter {
            if case .card = dragged[$0].kind { dragged[$0].opacity > 0 } else { false }
        }
        #expect(turned.count >= 3)
        #expect(!SceneRenderer.contentsCovered(dragged, at: turned[turned.count - 2], scale: 1, background: .white))
        #expect(SceneRenderer.contentsCovered(dragged, at: turned[turned.count - 3], scale: 1, background: .white))
    }
}
