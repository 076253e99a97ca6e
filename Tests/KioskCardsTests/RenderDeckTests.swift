import CardModel
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskRender

/// `render` draws what the kiosk would: the deck file through the real CardModel decks.
@Suite struct RenderDeckTests {
    static let examples: String = {
        var root = #filePath
        for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
        return root + "/examples"
    }()

    func topCardID(_ scene: Scene) -> String? {
        for e in scene.elements.reversed() {
            if case .card(let c) = e.kind { return c.id }
        }
        return nil
    }

    @Test func deckFileCardsAreOnTheStackInOrder() throws {
        let deck = try RenderInputs.deck(path: Self.examples + "/onboarding.json", layout: nil)
        let scene = try RenderInputs.scene(
            deck: deck, size: Size(width: 800, height: 480), gesture: nil, scriptPath: nil, atMs: 0)
        #expect(topCardID(scene) == deck.cards.first?.id)
    }

    @Test func releasedBeyondTheThresholdOrFlickedShowsTheNextCard() throws {
        let deck = try RenderInputs.deck(path: Self.examples + "/onboarding.json", layout: nil)
        let size = Size(width: 800, height: 480)
        let held = try RenderInputs.scene(deck: deck, size: size, gesture: "drag 200 0", scriptPath: nil, atMs: 0)
        let dragged = try #require(held.elements.first { $0.id == "card:\(deck.cards[0].id)" })
        #expect(abs(dragged.transform.translation.x - 200) < 1)
        let gone = try RenderInputs.scene(deck: deck, size: size, gesture: "release 200 0", scriptPath: nil, atMs: 3000)
        #expect(topCardID(gone) == deck.cards[1].id)
        let back = try RenderInputs.scene(deck: deck, size: size, gesture: "release 100 0", scriptPath: nil, atMs: 3000)
        #expect(topCardID(back) == deck.cards[0].id)
        let flicked = try RenderInputs.scene(
            deck: deck, size: size, gesture: "flick 100 0", scriptPath: nil, atMs: 3000)
        #expect(topCardID(flicked) == deck.cards[1].id)
    }

    @Test func listLayoutAndBadInput() throws {
        let deck = try RenderInputs.deck(path: Self.examples + "/seed-list.json", layout: nil)
        #expect(deck.layout == .list)
        let scene = try RenderInputs.scene(
            deck: deck, size: Size(width: 800, height: 480), gesture: nil, scriptPath: nil, atMs: 0)
        #expect(scene.elements.contains { if case .titleBar = $0.kind { true } else { false } })
        #expect(throws: RenderError.self) { try RenderInputs.deck(path: "/nonexistent.json", layout: nil) }
        #expect(throws: RenderError.self) {
            try RenderInputs.scene(
                deck: deck, size: Size(width: 800, height: 480), gesture: "pinch 2", scriptPath: nil, atMs: 0)
        }
    }
}

/// A recording made on a turned panel renders as that panel showed it.
@Suite struct RenderScriptRotationTests {
    @Test func scriptIsMappedThroughTheRotation() throws {
        let dir = try TouchTestData.requireDirectory()
        let path = dir + "/wacom-isdv4-e6-finger-two-finger-swipe.evemu"
        let deck = try RenderInputs.deck(path: RenderDeckTests.examples + "/onboarding.json", layout: nil)
        // Upright the swipe runs left → right and dismisses the top card to the right.
        let upright = try RenderInputs.deck(path: RenderDeckTests.examples + "/onboarding.json", layout: nil)
        let flat = try RenderInputs.scene(
            deck: upright, size: Size(width: 800, height: 480), gesture: nil, scriptPath: path, atMs: 3000)
        #expect(RenderDeckTests().topCardID(flat) == deck.cards[1].id)
        // On a panel turned 180° the same device motion is a swipe to the left on screen.
        var turned = TouchReplayOptions()
        turned.screen = Size(width: 800, height: 480)
        turned.rotation = .deg180
        var frames: [TouchFrame] = []
        try RenderInputs.feedScript(path: path, options: turned, startingAt: .seconds(1)) { frames.append($0) }
        let xs = frames.compactMap { $0.contacts.first?.position.x }
        #expect(try #require(xs.first) > (try #require(xs.last)))
    }
}
