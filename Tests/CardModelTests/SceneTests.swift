import Testing

@testable import CardModel

@Suite struct SceneTests {
    let card = Card(id: "a", title: "A", color: .white)

    @Test func unchangedSceneHasNoDamage() {
        let e = SceneElement(id: "card:a", kind: .card(card), frame: Rect(x: 10, y: 10, width: 100, height: 100))
        let s = Scene(size: Size(width: 800, height: 480), background: .black, elements: [e], isAnimating: false)
        #expect(s.damage(since: s).isEmpty)
        #expect(s.damage(since: nil) == Rect(x: 0, y: 0, width: 800, height: 480))
    }

    @Test func movedElementDamagesOldAndNewBounds() {
        let e = SceneElement(id: "card:a", kind: .card(card), frame: Rect(x: 10, y: 10, width: 100, height: 100))
        var moved = e
        moved.transform.translation = Point(x: 50, y: 0)
        let a = Scene(size: Size(width: 800, height: 480), background: .black, elements: [e], isAnimating: false)
        let b = Scene(size: Size(width: 800, height: 480), background: .black, elements: [moved], isAnimating: true)
        #expect(b.damage(since: a) == Rect(x: 10, y: 10, width: 150, height: 100))
    }

    @Test func rotatedBoundsGrowAndShadowAddsMargin() {
        var e = SceneElement(id: "x", kind: .deleteArea, frame: Rect(x: 0, y: 0, width: 100, height: 100))
        e.transform.rotation = Double.pi / 4
        let b = e.bounds
        #expect(abs(b.width - 100 * 2.0.squareRoot()) < 1e-9)
        e.shadowRadius = 8
        #expect(abs(e.bounds.width - (100 * 2.0.squareRoot() + 2 * SceneElement.shadowMargin(radius: 8))) < 1e-9)
    }

    @Test func elementsAreSortedByZStable() {
        let a = SceneElement(id: "a", kind: .deleteArea, frame: .null, zIndex: 2)
        let b = SceneElement(id: "b", kind: .deleteArea, frame: .null, zIndex: 1)
        let c = SceneElement(id: "c", kind: .deleteArea, frame: .null, zIndex: 1)
        let s = Scene(size: .zero, background: .black, elements: [a, b, c], isAnimating: false)
        #expect(s.elements.map(\.id) == ["b", "c", "a"])
    }
}
