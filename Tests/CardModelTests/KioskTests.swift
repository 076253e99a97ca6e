import Testing

@testable import CardModel

/// The kiosk's rules (`Kiosk`) at explicit instants, with no loop, clock, store or screen: who
/// gets each finger, what keys and the switch do, the countdown and the reset, closed hours,
/// the staff menu, decks that arrive, and what the screen shows.
@Suite struct KioskTests {
    static let screen = Size(width: 800, height: 480)
    static let metrics = ScreenMetrics(size: screen, pointsPerMillimetre: 800 / 154.0)

    static func deck(id: String = "lobby", version: Int = 1, languages: [String] = ["de"], idle: Double = 60)
        -> KioskDeck
    {
        var texts: [String: KioskDeck.Texts] = [:]
        for l in languages {
            texts[l] = KioskDeck.Texts(
                title: "T-\(l)", leftLabel: "no-\(l)", rightLabel: "yes-\(l)", emptyText: "done-\(l)",
                attractText: "tap-\(l)", warningText: "still-\(l)", closedText: "closed-\(l)")
        }
        return KioskDeck(
            id: id, version: version, layout: .stack,
            cards: ["a", "b", "c"].map { Card(id: $0, title: $0.uppercased(), color: .white) },
            language: languages[0], languages: languages, texts: texts,
            policy: VisitorSession.Policy(idleTimeout: idle, warningSeconds: 10))
    }

    /// A kiosk and its clock; every call returns the effects.
    struct Rig {
        var kiosk: Kiosk
        var t = Instant.seconds(100)
        var nextID = 1
        var all: [KioskEffect] = []

        init(_ deck: KioskDeck = KioskTests.deck(), settings: Kiosk.Settings = .init()) {
            var n = 0
            kiosk = Kiosk(
                deck: deck, metrics: KioskTests.metrics, settings: settings, seed: 7, at: .seconds(100),
                newSessionID: {
                    n += 1
                    return "s\(n)"
                })
            feed(.tick)
        }

        @discardableResult
        mutating func feed(_ input: KioskInput) -> [KioskEffect] {
            _ = kiosk.scene(at: t)
            let e = kiosk.handle(input, at: t)
            all += e
            return e
        }

        mutating func wait(_ seconds: Double) { t = t.advanced(bySeconds: seconds) }

        /// Runs every deadline up to `seconds` from now.
        mutating func pass(_ seconds: Double) {
            let end = t.advanced(bySeconds: seconds)
            for _ in 0..<10_000 {
                guard let due = kiosk.nextDeadline(after: t), due <= end else { break }
                t = max(due, t.advanced(bySeconds: 0.001))
                feed(.tick)
            }
            t = end
        }

        mutating func frame(_ contacts: [TouchContact]) { feed(.touch(TouchFrame(time: t, contacts: contacts))) }

        /// A finger from `from` moved by `by` over 300 ms, then lifted.
        mutating func drag(from: Point, by: Point, id: Int? = nil) {
            let id = id ?? next()
            frame([TouchContact(id: id, position: from, phase: .began)])
            for i in 1...10 {
                wait(0.03)
                let k = Double(i) / 10
                frame([TouchContact(id: id, position: from + Point(x: by.x * k, y: by.y * k), phase: .moved)])
            }
            wait(0.2)
            frame([TouchContact(id: id, position: from + by, phase: .ended)])
        }

        mutating func tap(_ p: Point) {
            let id = next()
            frame([TouchContact(id: id, position: p, phase: .began)])
            wait(0.06)
            frame([TouchContact(id: id, position: p, phase: .ended)])
        }

        mutating func next() -> Int {
            nextID += 1
            return nextID
        }

        var cardCentre: Point { (kiosk.deck as? StackDeck)?.layout.cardFrame.center ?? .zero }
        var remaining: Int { (kiosk.deck as? StackDeck)?.remainingCards.count ?? -1 }
        var decisions: [KioskDecision] {
            all.compactMap { if case .decision(let d) = $0 { d } else { nil } }
        }
        var aa: Point { kiosk.accessControl.buttonFrame.center }

        mutating func ids() -> Set<String> { Set(kiosk.scene(at: t).elements.map(\.id)) }
    }

    // MARK: Routing

    @Test func aDragOnTheCardDecidesAndCarriesItsVisit() throws {
        var r = Rig()
        r.tap(r.cardCentre)  // the visit begins
        r.wait(1)
        r.drag(from: r.cardCentre, by: Point(x: 250, y: 0))
        #expect(r.remaining == 2)
        let d = try #require(r.decisions.first)
        #expect(d.decision.action == .swipedRight && d.decision.cardID == "a")
        #expect(d.sessionID == r.kiosk.session.sessionID && d.deckID == "lobby" && d.language == "de")
        #expect(r.all.contains(.gestureBegan))
    }

    /// Decided: each finger reaches the layer it landed on. A finger resting on "Aa" does not stop
    /// a second finger from swiping a card; the control acts when its own finger lifts.
    @Test func aFingerOnAaAndAFingerOnACardEachReachTheirOwnLayer() {
        var r = Rig()
        let card = r.cardCentre
        r.frame([TouchContact(id: 1, position: r.aa, phase: .began)])
        #expect(r.kiosk.router.owner(of: 1) == .access)
        r.frame([
            TouchContact(id: 1, position: r.aa, phase: .moved), TouchContact(id: 2, position: card, phase: .began),
        ])
        #expect(r.kiosk.router.owner(of: 2) == .deck)
        for i in 1...10 {
            r.wait(0.03)
            let p = card + Point(x: 25 * Double(i), y: 0)
            r.frame([
                TouchContact(id: 1, position: r.aa, phase: .moved), TouchContact(id: 2, position: p, phase: .moved),
            ])
        }
        r.wait(0.1)
        r.frame([TouchContact(id: 2, position: card + Point(x: 250, y: 0), phase: .ended)])
        #expect(r.remaining == 2, "the card swiped by the second finger is gone")
        #expect(!r.kiosk.accessControl.isOpen)
        r.frame([TouchContact(id: 1, position: r.aa, phase: .ended)])
        #expect(r.kiosk.accessControl.isOpen, "the first finger's tap on Aa opened the control")
    }

    @Test func thePanelOpeningOverADragCancelsTheCard() {
        var r = Rig()
        let card = r.cardCentre
        r.frame([TouchContact(id: 1, position: card, phase: .began)])
        r.wait(0.05)
        r.frame([TouchContact(id: 1, position: card + Point(x: 200, y: 0), phase: .moved)])
        r.feed(.key(.accessibility))  // a keypad opens the panel over the dragged card
        r.wait(0.05)
        r.frame([TouchContact(id: 1, position: card + Point(x: 300, y: 0), phase: .ended)])
        #expect(r.remaining == 3 && r.decisions.isEmpty, "a finger the panel covered decides nothing")
    }

    @Test func aTouchWhileThePanelIsOpenClosesItAndDecidesNothing() {
        var r = Rig()
        r.tap(r.aa)
        #expect(r.kiosk.accessControl.isOpen)
        r.drag(from: r.cardCentre, by: Point(x: 250, y: 0))
        #expect(!r.kiosk.accessControl.isOpen && r.remaining == 3)
    }

    @Test func theRouterKeepsAnOwnerUntilLift() {
        var router = TouchRouter()
        let down = TouchFrame(time: .zero, contacts: [TouchContact(id: 5, position: .zero, phase: .began)])
        #expect(router.route(down) { _ in .language }.keys.sorted() == [.language])
        let moved = TouchFrame(time: .zero, contacts: [TouchContact(id: 5, position: .zero, phase: .moved)])
        #expect(router.route(moved) { _ in .deck }.keys.sorted() == [.language], "chosen once, at touch-down")
        router.release(.language)
        #expect(router.route(moved) { _ in .deck }.keys.sorted() == [.nobody])
        let up = TouchFrame(time: .zero, contacts: [TouchContact(id: 5, position: .zero, phase: .ended)])
        _ = router.route(up) { _ in .deck }
        #expect(router.owner(of: 5) == nil)
    }

    // MARK: Languages

    @Test func aLanguageKeyPicksTheLanguageAndReachesNoCard() throws {
        var r = Rig(Self.deck(languages: ["de", "en", "ar"]))
        let keys = r.kiosk.languages.elements(
            screen: Self.screen, prominent: true, placement: Kiosk.languagePlacement(.stack))
        let en = try #require(keys.first { $0.id == "language:en" })
        r.tap(en.frame.center)
        #expect(r.kiosk.languages.current == "en" && r.kiosk.texts.leftLabel == "no-en")
        #expect(r.remaining == 3 && r.decisions.isEmpty)
        r.drag(from: r.cardCentre, by: Point(x: -250, y: 0))
        #expect(r.decisions.first?.language == "en")
    }

    @Test func rightToLeftMirrorsTheDrag() {
        var r = Rig(Self.deck(languages: ["de", "ar"]))
        r.feed(.language("ar"))
        r.drag(from: r.cardCentre, by: Point(x: -250, y: 0))
        #expect(r.decisions.first?.decision.action == .swipedRight, "a swipe to the left is forward in Arabic")
    }

    /// Right to left, "Aa" sits in the mirrored corner: a tap where the screen shows it opens the
    /// control, and a tap on a switch where the screen shows that switch turns it on.
    @Test func rightToLeftAaOpensWhereTheScreenShowsIt() throws {
        var r = Rig(Self.deck(languages: ["de", "ar"]))
        r.feed(.language("ar"))
        func shown(_ id: String) throws -> Rect {
            try #require(r.kiosk.scene(at: r.t).elements.first { $0.id == id }).frame
        }
        let button = try shown("a11y:button")
        #expect(button.center.x > Self.screen.width / 2, "mirrored into the right-hand corner")
        r.tap(button.center)
        #expect(r.kiosk.accessControl.isOpen)
        r.tap(try shown("a11y:largeText").center)
        #expect(r.kiosk.accessControl.modes.largeText && r.decisions.isEmpty)
    }

    @Test func theNextVisitorStartsInTheDecksLanguage() {
        var r = Rig(Self.deck(languages: ["de", "en"], idle: 20))
        r.feed(.language("en"))
        r.drag(from: r.cardCentre, by: Point(x: 250, y: 0))
        r.pass(25)
        #expect(r.kiosk.languages.current == "de")
    }

    // MARK: Keys and the switch

    @Test func keysDecideWithMethodKey() {
        var r = Rig()
        r.feed(.key(.right))
        #expect(r.decisions.first?.decision.method == .key && r.remaining == 2)
    }

    @Test func theAccessibilityKeyOpensTheControlAndTheArrowsNoLongerReachTheDeck() {
        var r = Rig()
        r.feed(.key(.accessibility))
        #expect(r.kiosk.accessControl.isOpen)
        r.wait(0.5)
        r.feed(.key(.right))
        #expect(r.remaining == 3)
        r.feed(.key(.down))
        r.feed(.key(.enter))
        #expect(r.kiosk.accessControl.modes.highContrast && r.kiosk.visitUsedMode)
        #expect(r.kiosk.session.policy.warningSeconds >= VisitorSession.Policy.accessibleWarningSeconds)
        r.feed(.key(.escape))
        r.feed(.key(.right))
        #expect(r.decisions.first?.accessibilityMode == true)
    }

    @Test func theSwitchStepsWithShortPressesAndSelectsWithALongOne() {
        var r = Rig(settings: Kiosk.Settings(scansSwitch: true, switchHold: 0.8))
        func press(long: Bool) {
            r.feed(.switchKey(pressed: true))
            if long { r.pass(1.0) } else { r.wait(0.1) }
            r.feed(.switchKey(pressed: false))
            r.wait(0.3)
        }
        press(long: false)  // the ring on the first choice
        press(long: true)  // selects it
        #expect(r.decisions.count == 1 && r.decisions[0].decision.method == .switchAccess)
        #expect(r.ids().contains("scan"), "the ring is drawn while a switch is configured")
    }

    // MARK: Countdown and reset

    @Test func theCountdownShowsThenTheResetStartsANewVisit() {
        var r = Rig(Self.deck(idle: 30))
        r.drag(from: r.cardCentre, by: Point(x: 250, y: 0))
        let first = r.kiosk.session.sessionID
        r.pass(21)
        #expect(r.ids().contains("warning:countdown"))
        r.pass(10)
        #expect(!r.ids().contains("warning:countdown"))
        #expect(r.kiosk.session.sessionID != first && r.kiosk.session.phase == .attract)
        #expect(r.remaining == 3, "the deck starts again for the next visitor")
        #expect(r.all.contains { if case .visit(.ended(first, _, .idle)) = $0 { true } else { false } })
    }

    @Test func aTouchDuringTheCountdownExtendsTheVisitAndDecidesNothing() {
        var r = Rig(Self.deck(idle: 30))
        r.drag(from: r.cardCentre, by: Point(x: 250, y: 0))
        r.pass(22)
        r.drag(from: r.cardCentre, by: Point(x: 250, y: 0))
        #expect(r.decisions.count == 1 && r.remaining == 2)
        #expect(!r.ids().contains("warning:countdown"))
    }

    @Test func aFingerHeldStillReadsTheCard() {
        var r = Rig()
        let id = r.next()
        r.frame([TouchContact(id: id, position: r.cardCentre, phase: .began)])
        r.pass(2.5)
        #expect(r.all.contains { if case .speak = $0 { true } else { false } })
        #expect(r.kiosk.visitListens)
    }

    @Test func theCooldownFlagsADecisionTooSoonAfterTheLast() {
        var deck = Self.deck()
        deck.cooldownSeconds = 2
        var r = Rig(deck)
        r.feed(.key(.right))
        r.wait(0.5)
        r.feed(.key(.right))
        #expect(r.decisions.map(\.tooFast) == [false, true])
    }

    // MARK: Closed hours

    @Test func whileClosedEveryTouchIsTheClosedScreensAndDecidesNothing() {
        var deck = Self.deck()
        deck.schedule = Schedule(windows: [])
        var r = Rig(deck)
        r.feed(.schedule(open: false, window: nil, lookAgainAt: nil))
        #expect(r.ids().contains("closed:text"))
        r.drag(from: r.cardCentre, by: Point(x: 250, y: 0))
        r.feed(.key(.right))
        #expect(r.decisions.isEmpty && r.remaining == 3)
        r.feed(.schedule(open: true, window: nil, lookAgainAt: nil))
        #expect(!r.ids().contains("closed:text"))
        r.feed(.key(.right))
        #expect(r.decisions.count == 1)
    }

    @Test func closingWaitsForTheVisitorToFinish() {
        var deck = Self.deck()
        deck.schedule = Schedule(windows: [])
        var r = Rig(deck)
        r.feed(.key(.right))  // a visit is under way
        r.feed(.schedule(open: false, window: nil, lookAgainAt: nil))
        #expect(!r.ids().contains("closed:text"))
    }

    @Test func theScheduleLooksAgainWhenAsked() {
        var deck = Self.deck()
        deck.schedule = Schedule(windows: [])
        var r = Rig(deck)
        r.feed(.schedule(open: true, window: nil, lookAgainAt: r.t.advanced(bySeconds: 5)))
        #expect(r.kiosk.nextDeadline(after: r.t).map { $0 <= r.t.advanced(bySeconds: 5) } == true)
        r.pass(4.9)
        #expect(!r.all.contains(.lookAtSchedule))
        r.pass(0.2)
        #expect(r.all.contains(.lookAtSchedule))
    }

    // MARK: Staff

    @Test func theStaffMenuTakesEveryFingerAndCancelsTheDecksDrag() {
        var r = Rig(settings: Kiosk.Settings(staffEnabled: true))
        let card = r.cardCentre
        r.frame([TouchContact(id: 1, position: card, phase: .began)])
        r.wait(0.05)
        r.frame([TouchContact(id: 1, position: card + Point(x: 200, y: 0), phase: .moved)])
        r.feed(.staffKeys)
        #expect(r.kiosk.staffMenu.isOpen)
        r.frame([TouchContact(id: 1, position: card + Point(x: 300, y: 0), phase: .ended)])
        r.drag(from: card, by: Point(x: 250, y: 0))
        #expect(r.decisions.isEmpty && r.remaining == 3)
        #expect(r.ids().contains("staff:panel"))
    }

    @Test func thePinPadAsksTheShellAndOpensTheMenuOnItsAnswer() throws {
        var r = Rig(settings: Kiosk.Settings(staffEnabled: true))
        r.feed(.staffKeys)
        for id in ["key:1", "key:2", "key:3", "key:4", "key:5", "key:6", "key:OK"] {
            let key = try #require(StaffMenu.layout(r.kiosk.staffMenu.page, screen: Self.screen).first { $0.id == id })
            r.tap(key.frame.center)
        }
        #expect(r.all.contains(.checkPIN("123456")))
        r.feed(.pinChecked(correct: true))
        #expect(r.kiosk.staffMenu.page == .menu && r.kiosk.showsStaffInfo)
        let scene = r.kiosk.scene(at: r.t, staffInfo: ["Kiosk: x"])
        #expect(scene.elements.contains { $0.id.hasPrefix("staff:") })
        r.feed(.key(.escape))
        #expect(!r.kiosk.staffMenu.isOpen)
    }

    @Test func threeTapsInTheCornerAndAHoldOpenThePinPad() {
        var r = Rig(settings: Kiosk.Settings(staffEnabled: true))
        let corner = Point(x: 20, y: 20)
        r.tap(corner)
        r.wait(0.3)
        r.tap(corner)
        r.wait(0.3)
        let id = r.next()
        r.frame([TouchContact(id: id, position: corner, phase: .began)])
        r.pass(3.2)
        #expect(r.kiosk.staffMenu.isOpen)
        r.frame([TouchContact(id: id, position: corner, phase: .ended)])
        #expect(r.decisions.isEmpty)
    }

    @Test func withoutAPinTheStaffKeysDoNothing() {
        var r = Rig()
        r.feed(.staffKeys)
        #expect(!r.kiosk.staffMenu.isOpen)
    }

    // MARK: Decks

    @Test func aFleetDeckArrivingMidVisitWaitsForTheVisitToEnd() {
        var r = Rig(Self.deck(idle: 20), settings: Kiosk.Settings(fleetDecks: true))
        r.feed(.key(.right))
        r.feed(.deckArrived(Self.deck(id: "new", version: 2), fromFleet: true))
        #expect(r.kiosk.onScreen.id == "lobby")
        r.feed(.deckArrived(Self.deck(id: "newer", version: 3), fromFleet: true))
        r.pass(25)
        #expect(r.kiosk.onScreen.id == "newer", "the newest arrival follows the visit")
        r.feed(.deckArrived(Self.deck(id: "idle", version: 4), fromFleet: true))
        #expect(r.kiosk.onScreen.id == "idle", "nobody at the kiosk: at once")
    }

    @Test func aLocalEditAppliesAtOnceAndEndsTheVisit() {
        var r = Rig()
        r.feed(.key(.right))
        let visit = r.kiosk.session.sessionID
        r.feed(.deckArrived(Self.deck(id: "edited", version: 2), fromFleet: false))
        #expect(r.kiosk.onScreen.id == "edited" && r.remaining == 3)
        #expect(r.all.contains(.deckShown(Self.deck(id: "edited", version: 2))))
        #expect(r.all.contains { if case .visit(.ended(visit, _, .reset)) = $0 { true } else { false } })
    }

    @Test func aWindowsDeckIsReadByTheShellAndShownWhenNobodyIsThere() {
        var deck = Self.deck()
        deck.schedule = Schedule(windows: [])
        var r = Rig(deck)
        let asked = r.feed(.schedule(open: true, window: "/decks/noon.json", lookAgainAt: nil))
        #expect(asked.contains(.loadDeck(path: "/decks/noon.json")))
        r.feed(.windowDeckLoaded(path: "/decks/noon.json", deck: Self.deck(id: "noon")))
        #expect(r.kiosk.onScreen.id == "noon")
    }

    // MARK: The scene

    @Test func theSceneStacksTheLayersInTheRoutersOrder() throws {
        var r = Rig(Self.deck(languages: ["de", "en"]), settings: Kiosk.Settings(staffEnabled: true))
        r.feed(.staffKeys)
        let ids = r.kiosk.scene(at: r.t).elements.map(\.id)
        let card = try #require(ids.firstIndex { $0.hasPrefix("card:") })
        let aa = try #require(ids.firstIndex(of: "a11y:button"))
        let key = try #require(ids.firstIndex(of: "language:en"))
        let staff = try #require(ids.firstIndex(of: "staff:panel"))
        #expect(card < aa && aa < key && key < staff)
    }

    @Test func theDeadlineIsTheEarliestTimerAndNothingWhenIdleForever() {
        var deck = Self.deck()
        deck.policy = VisitorSession.Policy(idleTimeout: 30, warningSeconds: 0)
        var r = Rig(deck)
        r.feed(.key(.right))
        let due = r.kiosk.nextDeadline(after: r.t)
        #expect(due != nil && due! <= r.t.advanced(bySeconds: 30))
    }
}
