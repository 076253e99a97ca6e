import Testing

@testable import CardModel

/// The attract screen's line and the cards to draw ahead are the model's, so the kiosk and
/// headless `render` show the same thing.
@Suite struct AttractLineTests {
    let metrics = ScreenMetrics(size: Size(width: 800, height: 480), pointsPerMillimetre: 5)
    let cards = (0..<3).map { Card(id: "c\($0)", title: "C\($0)", color: .white) }

    func line(_ scene: Scene) -> SceneElement? { scene.elements.first { $0.id == "label:attract" } }

    @Test func stackShowsTheLineOnlyWhileAttracting() throws {
        var deck = StackDeck(cards: cards, metrics: metrics, options: StackOptions(attractText: "Tippen zum Starten"))
        let start = Instant.seconds(10)
        #expect(line(deck.scene(at: start)) == nil)
        deck.setAttract(since: start, at: start)
        let shown = try #require(line(deck.scene(at: start)))
        #expect(shown.kind == .label(text: "Tippen zum Starten", color: Color(rgb: 0x3A3A3C)))
        #expect(shown.frame == Rect(x: 0, y: 480 - 34, width: 800, height: 28))
        #expect(deck.scene(at: start).elements.last?.id == "label:attract", "drawn above everything")
        deck.attractText = "Touch to start"
        #expect(line(deck.scene(at: start))?.kind == .label(text: "Touch to start", color: Color(rgb: 0x3A3A3C)))
        deck.setAttract(since: nil, at: start.advanced(bySeconds: 1))
        #expect(line(deck.scene(at: start.advanced(bySeconds: 1))) == nil)
    }

    @Test func listShowsTheLineWhileAttractingAndNoneWhenEmpty() {
        var deck = ListDeck(cards: cards, metrics: metrics, attractText: "Tap to start", randomSeed: 1)
        let start = Instant.seconds(10)
        deck.setAttract(since: start, at: start)
        #expect(line(deck.scene(at: start))?.kind == .label(text: "Tap to start", color: Color(rgb: 0x3A3A3C)))
        deck.setAttract(since: nil, at: start)
        #expect(line(deck.scene(at: start)) == nil)
        var silent = ListDeck(cards: cards, metrics: metrics, randomSeed: 1)
        silent.setAttract(since: start, at: start)
        #expect(line(silent.scene(at: start)) == nil)
    }

    @Test func stackPreparesTheTopCardGrabbedAndTheNextOneOnTop() throws {
        var deck = StackDeck(cards: cards, metrics: metrics)
        let scene = deck.scene(at: .seconds(1))
        let prepared = deck.elementsToPrepare(in: scene)
        #expect(prepared.map(\.id) == ["card:c0", "card:c1", "card:c1"])
        #expect(prepared[0].shadowRadius == StackLayout.dragShadow)
        let top = try #require(scene.elements.first { $0.id == "card:c0" })
        #expect(prepared[0].transform == top.transform)
        // The card beneath as it lies (a drag uncovers it), then as it will look on top.
        let beneath = try #require(scene.elements.first { $0.id == "card:c1" })
        #expect(prepared[1] == beneath)
        #expect(prepared[2].transform == .identity && prepared[2].shadowRadius == StackLayout.restShadow)
        var last = StackDeck(cards: [cards[0]], metrics: metrics)
        #expect(last.elementsToPrepare(in: last.scene(at: .seconds(1))).map(\.id) == ["card:c0"])
        var empty = StackDeck(cards: [], metrics: metrics)
        #expect(empty.elementsToPrepare(in: empty.scene(at: .seconds(1))).isEmpty)
        var list = ListDeck(cards: cards, metrics: metrics, randomSeed: 1)
        #expect(list.elementsToPrepare(in: list.scene(at: .seconds(1))).isEmpty)
    }

    /// The card a swipe reveals at the bottom is prepared as the stack shows it once settled,
    /// so the first frame after a swipe draws no stand-in.
    @Test func stackPreparesTheCardASwipeReveals() throws {
        let six = (0..<6).map { Card(id: "c\($0)", title: "C\($0)", color: .white) }
        var deck = StackDeck(cards: six, metrics: metrics)
        let prepared = deck.elementsToPrepare(in: deck.scene(at: .seconds(1)))
        #expect(prepared.map(\.id) == ["card:c0", "card:c1", "card:c1", "card:c4"])
        var after = StackDeck(cards: Array(six.dropFirst()), metrics: metrics)
        let shown = try #require(after.scene(at: .seconds(1)).elements.first { $0.id == "card:c4" })
        let revealed = try #require(prepared.last)
        #expect(revealed.kind == shown.kind && revealed.frame == shown.frame)
        #expect(revealed.transform == shown.transform && revealed.shadowRadius == shown.shadowRadius)
    }

    /// No stamp at rest (both would be held for a drag that shows one); while a card is held
    /// and dragged, the stamp of that direction only, as the drag draws it (kind, size, scale);
    /// none again once released.
    @Test func stackPreparesOnlyTheStampOfTheDragsDirection() throws {
        let options = StackOptions(leftLabel: "Nein", rightLabel: "Ja")
        var deck = StackDeck(cards: cards, metrics: metrics, options: options)
        let scene = deck.scene(at: .seconds(1))
        #expect(deck.elementsToPrepare(in: scene).map(\.id) == ["card:c0", "card:c1", "card:c1"])

        let start = try #require(scene.elements.first { $0.id == "card:c0" }).frame.center
        for (dx, id) in [(-80.0, "label:left"), (80.0, "label:right")] {
            var d = StackDeck(cards: cards, metrics: metrics, options: options)
            _ = d.scene(at: .seconds(1))
            d.handle(TouchFrame(time: .seconds(1), contacts: [TouchContact(id: 1, position: start, phase: .began)]))
            let held = d.scene(at: .seconds(1))
            #expect(d.elementsToPrepare(in: held).map(\.id) == ["card:c0", "card:c1", "card:c1"], "held, not moved")
            let moved = start + Point(x: dx, y: 0)
            d.handle(TouchFrame(time: .seconds(1.1), contacts: [TouchContact(id: 1, position: moved, phase: .moved)]))
            let drag = d.scene(at: .seconds(1.1))
            let prepared = d.elementsToPrepare(in: drag)
            #expect(prepared.map(\.id) == ["card:c0", "card:c1", "card:c1", id])
            let shown = try #require(drag.elements.first { $0.id == id })
            let ready = try #require(prepared.first { $0.id == id })
            #expect(ready.kind == shown.kind && ready.frame.size == shown.frame.size)
            #expect(ready.transform.scale == shown.transform.scale)
            // Back where it began, then let go: the card returns and nothing is held.
            d.handle(TouchFrame(time: .seconds(1.2), contacts: [TouchContact(id: 1, position: start, phase: .ended)]))
            let released = d.scene(at: .seconds(1.2))
            #expect(!d.elementsToPrepare(in: released).contains { $0.id.hasPrefix("label:") })
        }
    }
}
