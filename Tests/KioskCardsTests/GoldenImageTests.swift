import CardModel
import Testing

@testable import KioskCards
@testable import KioskSystem

/// The seed designs rendered headlessly and compared with reviewed images in
/// `Fixtures/golden` (regenerate with KIOSK_WRITE_GOLDEN=1, then look at every image).
@Suite struct GoldenImageTests {
    /// An 800×480 panel at 0.8 pixels per point: 1000×600 points.
    static let width = 800
    static let height = 480
    static let scale = 0.8
    static var size: Size { Size(width: Double(width) / scale, height: Double(height) / scale) }

    func check(_ scene: Scene, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let image = RenderFixtures.render(scene, width: Self.width, height: Self.height, scale: Self.scale)
        RenderFixtures.expectMatchesGolden(image, name, sourceLocation: sourceLocation)
    }

    @Test func stackAtRest() {
        check(SampleScenes.stack(SampleScenes.germanCards, size: Self.size, buttons: true), "stack-rest")
    }

    @Test func stackMidDragLeft() {
        check(
            SampleScenes.stack(SampleScenes.germanCards, size: Self.size, drag: Point(x: -140, y: 36), dragging: true),
            "stack-drag-left")
    }

    @Test func stackMidDragRight() {
        check(
            SampleScenes.stack(SampleScenes.germanCards, size: Self.size, drag: Point(x: 170, y: -24), dragging: true),
            "stack-drag-right")
    }

    @Test func emptyState() {
        check(SampleScenes.stack([], size: Self.size), "stack-empty")
    }

    @Test func list() {
        check(SampleScenes.list(SampleScenes.themedCards, size: Self.size), "list")
    }

    @Test func listRowMidDelete() {
        check(SampleScenes.list(SampleScenes.themedCards, size: Self.size, swipe: (1, -96)), "list-row-delete")
    }

    @Test func detailPage() {
        check(SampleScenes.detail(SampleScenes.themedCards[4], size: Self.size), "detail")
    }

    @Test func cardWithImage() {
        var card = SampleScenes.germanCards[1]
        card.title = "Frühstücksbox"
        card.subtitle = "Zwei Brötchen, Butter und Marmelade."
        card.imagePath = RenderFixtures.images + "/photo.png"
        check(SampleScenes.stack([card] + SampleScenes.germanCards.suffix(2), size: Self.size), "card-image")
    }

    static let texts: [(name: String, title: String, subtitle: String)] = [
        ("text-german", "Größe & Übermaß", "Äpfel, Öl und süße Grüße aus Düsseldorf – straßenfrisch."),
        ("text-arabic", "مرحبا بكم في متجرنا", "اسحب يمينًا للموافقة ويسارًا للرفض. שלום וברוכים הבאים!"),
        ("text-japanese", "ようこそ！新しいカード", "右にスワイプで「はい」、左で「いいえ」。"),
        ("text-emoji", "Party 🎉🥳 Zeit!", "Kuchen 🍰, Kaffee ☕ und Musik 🎶 für alle 👍🏽"),
        (
            "text-ellipsis",
            "Ein ausgesprochen langer Titel, der auf keine Karte passt und darum gekürzt wird",
            "Auch der Untertitel ist viel zu lang für den Platz, den eine Karte ihm lässt: "
                + String(
                    repeating: "Noch mehr Text, der umbricht und am Ende mit Auslassungspunkten endet. ", count: 8)
        ),
    ]

    @Test(arguments: texts.map(\.name))
    func text(_ name: String) throws {
        let t = try #require(Self.texts.first { $0.name == name })
        let card = Card(id: name, title: t.title, subtitle: t.subtitle, color: Color(rgb: 0x3A3A8C))
        check(SampleScenes.stack([card], size: Self.size), name)
    }

    /// An 800×480 panel mounted portrait: the scene is laid out in 480×800 pixels (600×1000
    /// points) and the PNG shows the panel as it is scanned out.
    @Test func rotation90() {
        let rotation = Rotation.deg90
        let logical = rotation.logicalSize(physical: Size(width: 800, height: 480))
        let scene = SampleScenes.stack(
            SampleScenes.germanCards,
            size: Size(width: logical.width / Self.scale, height: logical.height / Self.scale),
            drag: Point(x: 60, y: 0), dragging: true, buttons: true)
        let image = RenderFixtures.render(
            scene, width: Int(logical.width), height: Int(logical.height), scale: Self.scale)
        let panel = panelImage(image, rotation: rotation)
        #expect(panel.width == 800 && panel.height == 480)
        RenderFixtures.expectMatchesGolden(panel, "rotation-90")
    }
}
