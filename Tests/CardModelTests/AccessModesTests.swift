import Testing

@testable import CardModel

/// The per-visit accessibility modes in the model: the visible control, large text, reduced motion
/// (no fly-out spin, no spring overshoot) and the longer inactivity warning.
@Suite struct AccessModesTests {
    func stack(_ n: Int = 4) -> StackDeck { buttonStack(n) }

    static func tap(_ p: Point, at t: Double, id: Int = 7) -> [TouchFrame] {
        [
            TouchFrame(time: .seconds(t), contacts: [TouchContact(id: id, position: p, phase: .began)]),
            TouchFrame(time: .seconds(t + 0.05), contacts: [TouchContact(id: id, position: p, phase: .ended)]),
        ]
    }

    // MARK: The control

    @Test func controlOpensTogglesAndKeepsItsTouchesFromTheDeck() {
        var c = AccessibilityControl(screen: Size(width: 1000, height: 600), pointsPerMillimetre: 6.5)
        #expect(c.buttonFrame.minX >= 0 && c.buttonFrame.maxY <= 600)
        // Closed: a touch in the middle is the deck's.
        #expect(Self.tap(Point(x: 500, y: 300), at: 1).map { c.take($0) } == [false, false])
        // The button opens it; the switch for large text turns it on, then off.
        #expect(Self.tap(c.buttonFrame.center, at: 2).allSatisfy { c.take($0) })
        #expect(c.isOpen)
        let large = c.frame(of: .largeText)
        #expect(Self.tap(large.center, at: 3).allSatisfy { c.take($0) })
        #expect(c.modes == VisitAccessibility(largeText: true))
        #expect(Self.tap(c.frame(of: .highContrast).center, at: 4).allSatisfy { c.take($0) })
        #expect(Self.tap(c.frame(of: .reducedMotion).center, at: 5).allSatisfy { c.take($0) })
        #expect(c.modes == VisitAccessibility(highContrast: true, largeText: true, reducedMotion: true))
        #expect(c.elements.count == 4)
        #expect(
            c.elements.contains { $0.kind == .accessibilitySwitch(label: "Große Schrift", isOn: true, state: "Ein") })
        // A touch outside while open closes it and decides nothing on the deck.
        #expect(Self.tap(Point(x: 500, y: 300), at: 6).allSatisfy { c.take($0) })
        #expect(!c.isOpen)
        #expect(c.modes.isAnyOn)
        #expect(
            c.elements == [
                SceneElement(
                    id: "a11y:button", kind: .accessibilityButton(isOpen: false, anyOn: true), frame: c.buttonFrame,
                    zIndex: 1500)
            ])
        // Slid off the switch before lifting: nothing toggles.
        _ = Self.tap(c.buttonFrame.center, at: 7).map { c.take($0) }
        let f = large.center
        _ = c.take(TouchFrame(time: .seconds(8), contacts: [TouchContact(id: 3, position: f, phase: .began)]))
        _ = c.take(
            TouchFrame(
                time: .seconds(8.2), contacts: [TouchContact(id: 3, position: Point(x: 600, y: 50), phase: .ended)]))
        #expect(c.modes.largeText)
        c.reset()
        #expect(c.modes == VisitAccessibility() && !c.isOpen)
    }

    @Test func controlSitsInTheBottomLeftClearOfTheStackButtonsAndTheStaffCorner() {
        for size in [Size(width: 1000, height: 600), Size(width: 600, height: 1000), Size(width: 1066, height: 600)] {
            let c = AccessibilityControl(screen: size, pointsPerMillimetre: 6.5)
            let layout = StackLayout(screen: size, showButtons: true, pointsPerMillimetre: 6.5)
            var targets = [c.buttonFrame] + AccessibilityControl.Item.allCases.map { c.frame(of: $0) }
            #expect(targets.allSatisfy { $0.minY >= StaffEntry.Rule().cornerSize && $0.maxX < size.width / 2 })
            targets.removeFirst(0)
            for b in layout.buttons { #expect(b.frame.intersection(c.buttonFrame).isEmpty, "\(size) \(b.role)") }
        }
    }

    // MARK: Large text, high contrast

    @Test func largeTextAndHighContrastRestyleTheVisitAndResetForTheNext() {
        var deck = stack()
        let before = deck.remainingCards
        deck.perform(.dismissRight, at: .seconds(1))
        deck.setAccessibility(VisitAccessibility(highContrast: true, largeText: true), at: .seconds(1.1))
        #expect(deck.remainingCards.allSatisfy { $0.textScale == 1.5 })
        #expect(deck.remainingCards.map(\.id) == Array(before.dropFirst()).map(\.id))
        #expect(
            deck.remainingCards
                == HighContrast.apply(to: Array(before.dropFirst()), backdrop: StackDeck.background).map {
                    var c = $0
                    c.textScale = 1.5
                    return c
                })
        // Undo brings the decided card back in the visit's look.
        deck.perform(.undo, at: .seconds(1.2))
        #expect(deck.remainingCards.first?.textScale == 1.5)
        let cardsInScene = deck.scene(at: .seconds(3)).elements.compactMap { e -> Card? in
            if case .card(let c) = e.kind { c } else { nil }
        }
        #expect(!cardsInScene.isEmpty && cardsInScene.allSatisfy { $0.textScale == 1.5 })
        // Off again: the deck file's cards.
        deck.setAccessibility(VisitAccessibility(), at: .seconds(4))
        #expect(deck.remainingCards == before)
        deck.setAccessibility(VisitAccessibility(largeText: true), at: .seconds(5))
        deck.reset(cards: before, at: .seconds(6))
        #expect(deck.accessibility == VisitAccessibility())
        #expect(deck.remainingCards == before)
    }

    @Test func theListTakesLargeTextOnRowsAndAddedCards() {
        var deck = ListDeck(cards: sampleCards(3), metrics: panel7, randomSeed: 5)
        deck.setAccessibility(VisitAccessibility(largeText: true), at: .seconds(1))
        deck.perform(.add, at: .seconds(1.1))
        #expect(deck.cards.count == 4 && deck.cards.allSatisfy { $0.textScale == 1.5 })
        deck.setAccessibility(VisitAccessibility(), at: .seconds(2))
        #expect(deck.cards.allSatisfy { $0.textScale == 1 })
        deck.setAccessibility(VisitAccessibility(largeText: true), at: .seconds(3))
        deck.reset(cards: sampleCards(2), at: .seconds(4))
        #expect(deck.accessibility == VisitAccessibility() && deck.cards.allSatisfy { $0.textScale == 1 })
    }

    // MARK: Reduced motion

    /// The top card's drag x and rotation sampled at 120 Hz for 1.5 s after `act`.
    func samples(reduced: Bool, act: (inout StackDeck) -> Void) -> [(x: Double, rotation: Double)] {
        var deck = stack()
        deck.setAccessibility(VisitAccessibility(reducedMotion: reduced), at: .seconds(0.5))
        act(&deck)
        var out: [(Double, Double)] = []
        for k in 0..<180 {
            let s = deck.scene(at: .seconds(1 + Double(k) / 120))
            if let e = s.elements.first(where: { $0.id == "card:c0" }) {
                out.append((e.transform.translation.x, e.transform.rotation))
            }
        }
        return out
    }

    @Test func reducedMotionFliesOutWithoutSpinning() {
        let normal = samples(reduced: false) { $0.perform(.dismissRight, at: .seconds(1)) }
        let calm = samples(reduced: true) { $0.perform(.dismissRight, at: .seconds(1)) }
        #expect(normal.contains { abs($0.rotation) > 0.1 })  // the default spins (x/20 degrees)
        #expect(!calm.isEmpty && calm.allSatisfy { $0.rotation == 0 })
        #expect(calm.last.map { $0.x > 500 } == true)  // it still leaves
    }

    @Test func reducedMotionNeverOvershoots() {
        // A card dragged 80 pt and let go springs home: the default overshoots past 0.
        func release(_ deck: inout StackDeck) {
            var script = TouchScript(at: .seconds(0.6))
            script.drag(from: Point(x: 400, y: 240), by: Point(x: 80, y: 0), over: 150, holdMs: 200)
            deck.play(&script)
        }
        let normal = samples(reduced: false, act: release)
        let calm = samples(reduced: true, act: release)
        #expect(normal.contains { $0.x < -0.5 })
        #expect(calm.allSatisfy { $0.x >= -0.001 })
        #expect(calm.last.map { abs($0.x) < 0.5 } == true)
        // An undo brings the card back from the side: the default overshoots it, reduced motion not.
        func undo(_ deck: inout StackDeck) {
            deck.perform(.dismissLeft, at: .seconds(0.6))
            _ = deck.scene(at: .seconds(0.9))
            deck.perform(.undo, at: .seconds(1))
        }
        #expect(samples(reduced: false, act: undo).contains { $0.x > 0.5 })
        #expect(samples(reduced: true, act: undo).allSatisfy { $0.x <= 0.001 })
    }

    @Test func calmSpringFromRestNeverPassesItsTarget() {
        let s = VisitAccessibility.calmSpring
        for k in 1...400 {
            #expect(s.evaluate(displacement: 100, velocity: 0, after: Double(k) / 200).displacement >= 0)
        }
    }

    // MARK: The warning

    /// A mode switched on mid-visit: the session's policy becomes the accessible one and the
    /// countdown that follows shows 20 s.
    @Test func aModeSwitchedOnMidVisitWarnsTwentySeconds() {
        let base = VisitorSession.Policy(idleTimeout: 60, warningSeconds: 10)
        var s = VisitorSession(policy: base, now: .zero) { "s" }
        _ = s.handle(TouchFrame(time: .seconds(1), contacts: [TouchContact(id: 1, position: .zero, phase: .began)]))
        _ = s.handle(TouchFrame(time: .seconds(1.1), contacts: [TouchContact(id: 1, position: .zero, phase: .ended)]))
        #expect(s.nextDeadline == .seconds(51.1))
        s.policy = VisitAccessibility(largeText: true).isAnyOn ? base.accessible() : base
        #expect(s.nextDeadline == .seconds(41.1))
        #expect(s.warning(at: .seconds(41.1))?.secondsLeft == 20)
    }
}
