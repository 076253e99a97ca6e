import CardModel
import KioskTestSupport
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

    /// `--keys`: the accessibility key opens the control with its ring on the first switch, the
    /// ring moves and Enter toggles as on the kiosk, and the deck shows the mode; with the control
    /// closed a key is the deck's.
    @Test func keysReachTheControlAndTheDeckAsOnTheKiosk() throws {
        let deck = try RenderInputs.deck(path: Self.examples + "/onboarding.json", layout: nil)
        let size = Size(width: 1000, height: 600)
        func scene(_ keys: [AccessKey], atMs: Double = 1000) throws -> Scene {
            try RenderInputs.scene(
                deck: deck, size: size, gesture: nil, scriptPath: nil, atMs: atMs, accessControl: true, keys: keys)
        }
        func switchOn(_ s: Scene, _ item: AccessibilityControl.Item) -> Bool? {
            for e in s.elements where e.id == "a11y:\(item.rawValue)" {
                if case .accessibilitySwitch(_, let isOn, _) = e.kind { return isOn }
            }
            return nil
        }
        func topCard(_ s: Scene) -> Card? {
            for e in s.elements.reversed() {
                if case .card(let c) = e.kind { return c }
            }
            return nil
        }
        let closed = try scene([])
        #expect(switchOn(closed, .largeText) == nil, "closed: only the Aa button")
        #expect(!closed.elements.contains { $0.id == "a11y:focus" })
        let control = AccessibilityControl(screen: size, pointsPerMillimetre: RenderScale.baselinePixelsPerInch / 25.4)

        let opened = try scene([.accessibility])
        #expect(switchOn(opened, .largeText) == false)
        #expect(opened.elements.first { $0.id == "a11y:focus" }?.frame == control.frame(of: .largeText).insetBy(-6))

        let large = try scene([.accessibility, .enter])
        #expect(switchOn(large, .largeText) == true)
        #expect(topCard(large)?.textScale == VisitAccessibility.largeTextScale)
        #expect(topCard(opened)?.textScale == 1)

        let contrast = try scene([.accessibility, .down, .enter])
        #expect(switchOn(contrast, .largeText) == false && switchOn(contrast, .highContrast) == true)
        #expect(
            contrast.elements.first { $0.id == "a11y:focus" }?.frame == control.frame(of: .highContrast).insetBy(-6))

        // Closed again by the same key: the keys after it are the deck's (→ dismisses the card).
        let back = try scene([.accessibility, .accessibility, .right], atMs: 3000)
        #expect(switchOn(back, .largeText) == nil)
        #expect(topCard(back)?.id == deck.cards[1].id)
        // While the control is open → is the control's: the card stays.
        #expect(topCard(try scene([.accessibility, .right], atMs: 3000))?.id == deck.cards[0].id)
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
