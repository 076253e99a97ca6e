import Testing

@testable import CardModel

/// The per-visit accessibility control by keypad and by one switch (EN 301 549 5.1.6 / 5.2):
/// the accessibility key and the scan's "Aa" choice open it, ↑/↓ and the scan move among its
/// three switches, Enter and a selection toggle them (the deck restyles at once), and while it
/// is open no key and no scan choice reaches the deck.
@Suite struct AccessControlKeysTests {
    func stack(_ n: Int = 4) -> StackDeck { buttonStack(n) }

    func list(_ n: Int = 4) -> ListDeck { ListDeck(cards: sampleCards(n), metrics: panel7, randomSeed: 11) }

    func control(trailing: Bool = false) -> AccessibilityControl {
        AccessibilityControl(screen: panel7.size, pointsPerMillimetre: panel7.pointsPerMillimetre, trailing: trailing)
    }

    /// The control's keyboard ring, if it draws one.
    static func ring(_ c: AccessibilityControl) -> SceneElement? { c.elements.first { $0.id == "a11y:focus" } }

    // MARK: Keys

    @Test func keysOpenMoveToggleEachModeAndCloseOnTheStack() throws {
        var deck = stack()
        var c = control()
        let cards = deck.remainingCards
        var t = Instant.seconds(1)
        func press(_ key: AccessKey) -> AccessResponse {
            t = t.advanced(bySeconds: 0.5)
            return deck.press(key, control: &c, at: t)
        }

        // The accessibility key opens the control with the ring on its first switch.
        let opened = press(.accessibility)
        #expect(opened.byControl && !opened.modesChanged && c.isOpen && c.focus == .largeText)
        #expect(opened.announcement == "Große Schrift: Aus" && opened.speech == nil)
        let ring = try #require(Self.ring(c))
        #expect(ring.kind == .focusRing && ring.frame.encloses(c.frame(of: .largeText)))
        #expect(ring.zIndex > c.elements.filter { $0.id != "a11y:focus" }.map(\.zIndex).max()!)

        // ↓ to high contrast, Enter: on, and the deck has it at once.
        #expect(press(.down).announcement == "Hoher Kontrast: Aus")
        let contrast = press(.enter)
        #expect(contrast.byControl && contrast.modesChanged && contrast.announcement == "Hoher Kontrast: Ein")
        #expect(deck.accessibility == VisitAccessibility(highContrast: true))
        #expect(deck.remainingCards == HighContrast.apply(to: cards, backdrop: StackDeck.background))
        #expect(try #require(Self.ring(c)).frame.encloses(c.frame(of: .highContrast)))

        // ↑ twice wraps to reduced motion; Enter.
        #expect(press(.up).announcement == "Große Schrift: Aus")
        #expect(press(.up).announcement == "Wenig Bewegung: Aus")
        #expect(press(.enter).modesChanged)
        #expect(deck.accessibility == VisitAccessibility(highContrast: true, reducedMotion: true))

        // ↓ wraps to large text; Enter; help reads the ringed switch and its state.
        #expect(press(.down).announcement == "Große Schrift: Aus")
        #expect(press(.enter).modesChanged)
        #expect(deck.accessibility == VisitAccessibility(highContrast: true, largeText: true, reducedMotion: true))
        #expect(deck.remainingCards.allSatisfy { $0.textScale == 1.5 })
        #expect(press(.help).speech == "Große Schrift: Ein")

        // The deck's keys do nothing while the control is open: no decision, no undo, no removal.
        for key in [AccessKey.right, .left, .delete, .plus] {
            let r = press(key)
            #expect(r.byControl && !r.modesChanged && r.speech == nil, "\(key)")
        }
        #expect(deck.remainingCards.count == cards.count && deck.takeDecisions().isEmpty && !deck.canUndo)

        // Enter toggles back off.
        #expect(press(.enter).announcement == "Große Schrift: Aus")
        #expect(!deck.accessibility.largeText && deck.remainingCards.allSatisfy { $0.textScale == 1 })

        // Esc closes (no ring left); then → is the deck's again.
        #expect(press(.escape).byControl)
        #expect(!c.isOpen && c.focus == nil && Self.ring(c) == nil)
        let decided = press(.right)
        #expect(!decided.byControl)
        #expect(deck.takeDecisions().map(\.cardID) == ["c0"])

        // The accessibility key opens and closes it again; Backspace closes it too.
        _ = press(.accessibility)
        #expect(c.isOpen && c.focus == .largeText)
        _ = press(.accessibility)
        #expect(!c.isOpen)
        _ = press(.accessibility)
        _ = press(.backspace)
        #expect(!c.isOpen && deck.canUndo, "Backspace closed the control and undid nothing")
        #expect(c.modes == VisitAccessibility(highContrast: true, reducedMotion: true))
    }

    @Test func keysWhileTheControlIsOpenNeverReachTheList() {
        var deck = list()
        var c = control(trailing: true)
        var t = Instant.seconds(1)
        func press(_ key: AccessKey) -> AccessResponse {
            t = t.advanced(bySeconds: 0.5)
            return deck.press(key, control: &c, at: t)
        }
        _ = press(.accessibility)
        #expect(c.isOpen)
        // ↓ moves the control's ring, not the list's focus; Enter toggles, it opens no row;
        // Delete deletes no row, + adds none.
        _ = press(.down)
        _ = press(.enter)
        _ = press(.delete)
        _ = press(.plus)
        _ = press(.right)
        #expect(c.focus == .highContrast && c.modes == VisitAccessibility(highContrast: true))
        #expect(deck.accessibility == VisitAccessibility(highContrast: true))
        #expect(deck.focusedRowID == nil && deck.openCard == nil && deck.cards.count == 4)
        #expect(deck.takeDecisions().isEmpty)
        // Each mode by key on the list, too.
        _ = press(.down)
        _ = press(.enter)
        _ = press(.down)
        _ = press(.enter)
        #expect(deck.accessibility == VisitAccessibility(highContrast: true, largeText: true, reducedMotion: true))
        #expect(deck.cards.allSatisfy { $0.textScale == 1.5 })
        _ = press(.escape)
        #expect(!c.isOpen)
        // Closed: the list's keys again.
        _ = press(.down)
        #expect(deck.focusedRowID == deck.cards.first?.id)
        _ = press(.enter)
        #expect(deck.openCard != nil)
    }

    @Test func aControlOpenedByTouchTakesKeysAndRingsOnTheFirstOne() {
        var deck = stack()
        var c = control()
        let p = c.buttonFrame.center
        _ = c.take(TouchFrame(time: .seconds(1), contacts: [TouchContact(id: 1, position: p, phase: .began)]))
        _ = c.take(TouchFrame(time: .seconds(1.1), contacts: [TouchContact(id: 1, position: p, phase: .ended)]))
        #expect(c.isOpen && c.focus == nil && Self.ring(c) == nil, "a touch draws no keyboard ring")
        // Help with no ring reads all three; Enter rings the first before it toggles anything.
        #expect(
            deck.press(.help, control: &c, at: .seconds(2)).speech
                == "Große Schrift: Aus. Hoher Kontrast: Aus. Wenig Bewegung: Aus")
        #expect(!deck.press(.enter, control: &c, at: .seconds(2.5)).modesChanged)
        #expect(c.focus == .largeText && Self.ring(c) != nil)
        #expect(deck.press(.enter, control: &c, at: .seconds(3)).modesChanged)
        #expect(deck.accessibility.largeText)
        // ↑ from no ring goes to the last switch.
        _ = deck.press(.escape, control: &c, at: .seconds(3.5))
        _ = c.take(TouchFrame(time: .seconds(4), contacts: [TouchContact(id: 2, position: p, phase: .began)]))
        _ = c.take(TouchFrame(time: .seconds(4.1), contacts: [TouchContact(id: 2, position: p, phase: .ended)]))
        _ = deck.press(.up, control: &c, at: .seconds(5))
        #expect(c.focus == .reducedMotion)
        // A touch outside closes it and takes the ring away.
        let outside = Point(x: 400, y: 200)
        _ = c.take(TouchFrame(time: .seconds(6), contacts: [TouchContact(id: 3, position: outside, phase: .began)]))
        #expect(!c.isOpen && c.focus == nil)
    }

    @Test func theControlSpeaksInTheVisitorsLanguage() {
        var c = control()
        c.labels = AccessibilityControl.Labels(language: "en")
        #expect(c.press(.accessibility)?.announcement == "Large text: Off")
        c.toggle(.largeText)
        #expect(c.press(.help)?.speech == "Large text: On")
    }

    // MARK: One switch

    /// Steps `scanner` to `wanted` among `choices()` and selects it, as a visitor with one switch
    /// does; returns the selected choice.
    static func scanTo(
        _ wanted: ScanChoice, scanner: inout SwitchScanner, choices: () -> [ScanChoice], t: inout Instant,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ScanChoice {
        try #require(
            choices().contains(wanted), "\(wanted) not offered in \(choices())", sourceLocation: sourceLocation)
        var steps = 0
        switch scanner.stepping {
        case .perPress:
            while scanner.highlighted(in: choices()) != wanted {
                _ = scanner.press(at: t, choices: choices())
                t = t.advanced(bySeconds: 0.2)
                #expect(scanner.release(at: t, choices: choices()) == nil, sourceLocation: sourceLocation)
                t = t.advanced(bySeconds: 0.3)
                steps += 1
                try #require(steps < 12, sourceLocation: sourceLocation)
            }
            _ = scanner.press(at: t, choices: choices())
            t = try #require(scanner.nextWakeup, sourceLocation: sourceLocation)
            let fired = scanner.advance(to: t, choices: choices())
            return try #require(fired, sourceLocation: sourceLocation)
        case .automatic:
            while scanner.highlighted(in: choices()) != wanted {
                t = try #require(scanner.nextWakeup, sourceLocation: sourceLocation)
                #expect(scanner.advance(to: t, choices: choices()) == nil, sourceLocation: sourceLocation)
                steps += 1
                try #require(steps < 12, sourceLocation: sourceLocation)
            }
            t = t.advanced(bySeconds: 0.1)
            let pressed = scanner.press(at: t, choices: choices())
            return try #require(pressed, sourceLocation: sourceLocation)
        }
    }

    /// The release after a selection: it selects nothing more and does not step.
    static func lift(_ scanner: inout SwitchScanner, choices: [ScanChoice], t: inout Instant) {
        t = t.advanced(bySeconds: 0.1)
        #expect(scanner.release(at: t, choices: choices) == nil)
        t = t.advanced(bySeconds: 0.3)
    }

    @Test(arguments: [SwitchScanner.Stepping.perPress, .automatic(interval: 1.2)])
    func oneSwitchOpensTogglesEachModeAndClosesOnTheStack(stepping: SwitchScanner.Stepping) throws {
        var deck = stack()
        var c = control()
        var scanner = SwitchScanner(stepping: stepping, longPress: 0.8)
        var t = Instant.seconds(1)
        _ = scanner.advance(to: t, choices: deck.scanChoices(with: c))
        // Closed: the deck's choices, then "Aa", whose ring sits on the button, over the control.
        #expect(deck.scanChoices(with: c) == deck.scanChoices + [.accessibility(.open)])
        func choices() -> [ScanChoice] { deck.scanChoices(with: c) }
        func select(_ wanted: ScanChoice) throws -> AccessResponse {
            let chosen = try Self.scanTo(wanted, scanner: &scanner, choices: choices, t: &t)
            #expect(chosen == wanted)
            let r = deck.select(chosen, control: &c, scanner: &scanner, at: t)
            Self.lift(&scanner, choices: choices(), t: &t)
            return r
        }
        func ring() throws -> SceneElement { try #require(deck.scanHighlight(scanner, control: c, at: t)) }

        let open = try Self.scanTo(.accessibility(.open), scanner: &scanner, choices: choices, t: &t)
        let aa = try ring()
        #expect(aa.frame.encloses(c.buttonFrame) && aa.zIndex > 1500, "the ring sits on Aa, over the control")
        let opened = deck.select(open, control: &c, scanner: &scanner, at: t)
        Self.lift(&scanner, choices: choices(), t: &t)
        #expect(opened.byControl && c.isOpen && c.focus == nil, "the scan's own ring, no keyboard ring")
        #expect(deck.takeDecisions().isEmpty && deck.remainingCards.count == 4)
        // Open: the three switches and close; the ring went to the first switch.
        #expect(
            choices() == [
                .accessibility(.toggle(.largeText)), .accessibility(.toggle(.highContrast)),
                .accessibility(.toggle(.reducedMotion)), .accessibility(.close),
            ])
        #expect(scanner.highlighted(in: choices()) == .accessibility(.toggle(.largeText)))
        for item in AccessibilityControl.Item.allCases {
            let r = try select(.accessibility(.toggle(item)))
            #expect(r.byControl && r.modesChanged && r.announcement?.hasSuffix(": Ein") == true, "\(item)")
            #expect(deck.accessibility == c.modes && c.isOn(item))
            // The ring stays on the switch just toggled, drawn over the panel.
            let on = try ring()
            #expect(on.frame.encloses(c.frame(of: item)) && on.zIndex > 1502, "\(item)")
        }
        #expect(deck.accessibility == VisitAccessibility(highContrast: true, largeText: true, reducedMotion: true))
        #expect(deck.remainingCards.allSatisfy { $0.textScale == 1.5 })

        // Close rings the Aa button (its tap closes the panel too); after it the deck's choices
        // come back, the ring on "Aa" again.
        let close = try Self.scanTo(.accessibility(.close), scanner: &scanner, choices: choices, t: &t)
        #expect(try ring().frame.encloses(c.buttonFrame))
        #expect(deck.select(close, control: &c, scanner: &scanner, at: t).byControl)
        Self.lift(&scanner, choices: choices(), t: &t)
        #expect(!c.isOpen && choices() == deck.scanChoices + [.accessibility(.open)])
        #expect(scanner.highlighted(in: choices()) == .accessibility(.open))
        #expect(try ring().frame.encloses(c.buttonFrame))
        #expect(deck.takeDecisions().isEmpty && deck.remainingCards.count == 4, "the control decided nothing")

        // The scan wraps on to the deck's ✗, which decides in the visit's look.
        let left = try select(.action(.dismissLeft))
        #expect(!left.byControl)
        #expect(deck.takeDecisions().map(\.action) == [.swipedLeft])
        #expect(deck.remainingCards.allSatisfy { $0.textScale == 1.5 })
    }

    @Test func oneSwitchTogglesAModeOnTheListAndItsRingSitsOnTheTrailingControl() throws {
        var deck = list()
        var c = control(trailing: true)
        var scanner = SwitchScanner()
        var t = Instant.seconds(1)
        func choices() -> [ScanChoice] { deck.scanChoices(with: c) }
        let chosen = try Self.scanTo(.accessibility(.open), scanner: &scanner, choices: choices, t: &t)
        let aa = try #require(deck.scanHighlight(scanner, control: c, at: t))
        #expect(aa.frame.encloses(c.buttonFrame) && aa.frame.maxX <= panel7.size.width + 4)
        _ = deck.select(chosen, control: &c, scanner: &scanner, at: t)
        Self.lift(&scanner, choices: choices(), t: &t)
        let reduced = try Self.scanTo(
            .accessibility(.toggle(.reducedMotion)), scanner: &scanner, choices: choices, t: &t)
        let ring = try #require(deck.scanHighlight(scanner, control: c, at: t))
        #expect(ring.frame.encloses(c.frame(of: .reducedMotion)))
        _ = deck.select(reduced, control: &c, scanner: &scanner, at: t)
        #expect(deck.accessibility == VisitAccessibility(reducedMotion: true))
        #expect(deck.focusedRowID == nil && deck.openCard == nil && deck.cards.count == 4)
    }

    @Test func aKeyOpeningTheControlMovesTheScanToItsFirstSwitch() {
        var deck = stack()
        var c = control()
        var scanner = SwitchScanner()
        _ = scanner.press(at: .seconds(1), choices: deck.scanChoices(with: c))
        _ = scanner.release(at: .seconds(1.1), choices: deck.scanChoices(with: c))
        #expect(scanner.highlighted(in: deck.scanChoices(with: c)) == .action(.dismissRight))
        _ = deck.press(.accessibility, control: &c, at: .seconds(2))
        scanner.follow(c, wasOpen: false, deckChoices: deck.scanChoices, at: .seconds(2))
        #expect(scanner.highlighted(in: deck.scanChoices(with: c)) == .accessibility(.toggle(.largeText)))
        _ = deck.press(.escape, control: &c, at: .seconds(3))
        scanner.follow(c, wasOpen: true, deckChoices: deck.scanChoices, at: .seconds(3))
        #expect(scanner.highlighted(in: deck.scanChoices(with: c)) == .accessibility(.open))
        // Nothing opened or closed: the ring stays.
        scanner.follow(c, wasOpen: false, deckChoices: deck.scanChoices, at: .seconds(4))
        #expect(scanner.highlighted(in: deck.scanChoices(with: c)) == .accessibility(.open))
    }

    /// A keypad and a switch used together ring one switch: ↑ / ↓ take the scan's ring along,
    /// the scan's steps take the keys' ring along (and Enter then toggles what the visitor sees
    /// ringed); a control opened by the scan keeps no keys' ring.
    @Test func theKeysRingAndTheScansRingStayOnOneSwitch() {
        var deck = stack()
        var c = control()
        var scanner = SwitchScanner()
        var t = Instant.seconds(1)
        func ringed() -> ScanChoice? { scanner.highlighted(in: deck.scanChoices(with: c)) }
        func key(_ k: AccessKey) {
            t = t.advanced(bySeconds: 0.5)
            let wasOpen = c.isOpen
            _ = deck.press(k, control: &c, at: t)
            scanner.follow(c, wasOpen: wasOpen, deckChoices: deck.scanChoices, at: t)
            scanner.follow(focusOf: c, at: t)
        }
        func step() {
            t = t.advanced(bySeconds: 0.5)
            _ = scanner.press(at: t, choices: deck.scanChoices(with: c))
            _ = scanner.release(at: t.advanced(bySeconds: 0.1), choices: deck.scanChoices(with: c))
            c.follow(scanner)
        }
        key(.accessibility)
        key(.down)
        #expect(c.focus == .highContrast && ringed() == .accessibility(.toggle(.highContrast)))
        key(.up)
        key(.up)
        #expect(c.focus == .reducedMotion && ringed() == .accessibility(.toggle(.reducedMotion)))
        // The scan steps on to close (the keys' ring goes), then wraps to large text.
        step()
        #expect(ringed() == .accessibility(.close) && c.focus == nil)
        key(.down)
        #expect(c.focus == .largeText && ringed() == .accessibility(.toggle(.largeText)))
        step()
        #expect(c.focus == .highContrast && ringed() == .accessibility(.toggle(.highContrast)))
        key(.enter)
        #expect(c.modes == VisitAccessibility(highContrast: true), "Enter toggled the switch both rings are on")
        // Opened by the scan: its own ring alone, steps add no keys' ring.
        key(.escape)
        _ = deck.select(.accessibility(.open), control: &c, scanner: &scanner, at: t)
        step()
        #expect(c.isOpen && c.focus == nil && ringed() == .accessibility(.toggle(.highContrast)))
    }

    // MARK: The next visitor

    /// Decisions made before, between and after the control's use are all kept; the next
    /// visitor's reset closes the control, takes the ring away and turns every mode off.
    @Test func theNextVisitorStartsClosedWithEveryModeOffAndTheDecisionsAreKept() {
        var deck = stack(6)
        var c = control()
        var scanner = SwitchScanner()
        var t = Instant.seconds(1)
        func press(_ key: AccessKey) {
            t = t.advanced(bySeconds: 0.8)
            _ = deck.press(key, control: &c, at: t)
            _ = deck.scene(at: t)
        }
        press(.right)
        press(.accessibility)
        press(.enter)  // large text
        press(.escape)
        press(.left)
        press(.accessibility)
        press(.down)
        press(.down)
        press(.enter)  // reduced motion, left open
        #expect(c.isOpen && c.focus == .reducedMotion)
        #expect(deck.accessibility == VisitAccessibility(largeText: true, reducedMotion: true))
        let decisions = deck.takeDecisions()
        #expect(decisions.map(\.cardID) == ["c0", "c1"])
        #expect(decisions.map(\.action) == [.swipedRight, .swipedLeft])

        c.reset()
        scanner.reset()
        deck.reset(cards: sampleCards(6), at: t.advanced(bySeconds: 60))
        #expect(!c.isOpen && c.focus == nil && c.modes == VisitAccessibility() && Self.ring(c) == nil)
        #expect(deck.accessibility == VisitAccessibility() && deck.remainingCards == sampleCards(6))
        #expect(deck.scanChoices(with: c).last == .accessibility(.open))
        #expect(scanner.highlighted(in: deck.scanChoices(with: c)) == .action(.dismissLeft))
        // The next visitor's keys are the deck's again.
        t = t.advanced(bySeconds: 61)
        press(.right)
        #expect(deck.takeDecisions().map(\.cardID) == ["c0"])
    }
}

extension Rect {
    /// Whether `other` lies wholly inside this rectangle.
    fileprivate func encloses(_ other: Rect) -> Bool { intersection(other) == other }
}
