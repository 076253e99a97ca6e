import CardModel
import KioskDeckFiles
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDisplay
@testable import KioskInput
@testable import KioskRender
@testable import KioskStore
@testable import KioskSystem

/// The running kiosk's accessibility control by keypad and by one switch (`KioskApp`, its real
/// input path, a display in memory): the accessibility key and the scan's "Aa" open it, the
/// keys and the scan toggle the modes, the deck restyles and sees no key meanwhile, the
/// decisions are stored with the modes they were made in, and the next visitor starts closed
/// with every mode off.
@Suite(.serialized) struct AppAccessControlTests {
    func makeApp(_ data: String, deck name: String) throws -> KioskApp {
        var config = KioskConfig()
        config.dataDirectory = data
        config.kioskID = "test"
        config.switchKey = SwitchKey.parse("space")
        let file = try DeckLoader.load(path: DeckFixtures.packageRoot + "/examples/" + name).get()
        let loop = EventLoop()
        let display = try Display(
            scanout: AppLanguageTests.MemoryScanout(), rotation: nil, loop: loop, takeTerminal: false)
        return KioskApp(config: config, deck: file, display: display, loop: loop, processStart: .seconds(0))
    }

    func stack(_ app: KioskApp) throws -> StackDeck { try #require(app.kiosk.deck as? StackDeck) }

    /// A short press of the switch (steps the ring) or a long one (selects the ringed choice).
    func switchPress(_ app: KioskApp, long: Bool, at t: inout Instant) {
        app.handleInput(.switchKey(pressed: true, t))
        t = t.advanced(bySeconds: long ? 1.0 : 0.1)
        app.handleInput(.switchKey(pressed: false, t))
        t = t.advanced(bySeconds: 0.3)
    }

    func ringed(_ app: KioskApp) throws -> ScanChoice? {
        let deck = try #require(app.kiosk.deck as? any AccessibleDeck)
        return app.kiosk.scanner.highlighted(in: deck.scanChoices(with: app.kiosk.accessControl))
    }

    @Test func keysAndTheSwitchReachTheModesOnTheStackAndTheNextVisitorStartsWithThemOff() throws {
        let data = DeckFixtures.temporaryDirectory("app-access-keys")
        defer { DeckFixtures.removeTree(data) }
        let app = try makeApp(data, deck: "onboarding.json")
        defer { app.store.close() }
        let count = try stack(app).remainingCards.count
        var t = MonotonicClock.now()
        func key(_ k: KeyAction) {
            t = t.advanced(bySeconds: 0.8)
            app.handleInput(.key(k, t))
        }

        // One decision with every mode off, then F2 opens the control.
        key(.right)
        key(.accessibility)
        #expect(app.kiosk.accessControl.isOpen && app.kiosk.accessControl.focus == .largeText)
        // The scan's ring followed it onto the first switch.
        #expect(try ringed(app) == .accessibility(.toggle(.largeText)))
        // → and ← are the control's now: no card leaves.
        key(.right)
        key(.left)
        #expect(try stack(app).remainingCards.count == count - 1)
        // ↓ Enter: high contrast, on the deck at once, and the warning lasts ≥ 20 s.
        key(.down)
        #expect(try ringed(app) == .accessibility(.toggle(.highContrast)), "the scan's ring moved with the keys'")
        key(.enter)
        #expect(app.kiosk.accessControl.modes == VisitAccessibility(highContrast: true))
        #expect(try stack(app).accessibility == VisitAccessibility(highContrast: true))
        #expect(app.kiosk.session.policy.warningSeconds >= 20)
        #expect(app.kiosk.visitUsedMode)
        key(.escape)
        #expect(!app.kiosk.accessControl.isOpen)
        #expect(try ringed(app) == .accessibility(.open))
        key(.right)
        #expect(try stack(app).remainingCards.count == count - 2)

        // The switch: from "Aa" one step wraps to ✗; four more come back to "Aa"; a long press
        // opens the control, rings large text, a long press turns it on.
        switchPress(app, long: false, at: &t)
        #expect(try ringed(app) == .action(.dismissLeft))
        for _ in 0..<4 { switchPress(app, long: false, at: &t) }
        #expect(try ringed(app) == .accessibility(.open))
        switchPress(app, long: true, at: &t)
        #expect(app.kiosk.accessControl.isOpen && app.kiosk.accessControl.focus == nil)
        #expect(try ringed(app) == .accessibility(.toggle(.largeText)))
        switchPress(app, long: true, at: &t)
        #expect(app.kiosk.accessControl.modes == VisitAccessibility(highContrast: true, largeText: true))
        #expect(try stack(app).remainingCards.allSatisfy { $0.textScale == 1.5 })
        // Reduced motion is two steps on; then close, two more.
        switchPress(app, long: false, at: &t)
        switchPress(app, long: false, at: &t)
        switchPress(app, long: true, at: &t)
        #expect(
            try stack(app).accessibility == VisitAccessibility(highContrast: true, largeText: true, reducedMotion: true)
        )
        switchPress(app, long: false, at: &t)
        #expect(try ringed(app) == .accessibility(.close))
        switchPress(app, long: true, at: &t)
        #expect(!app.kiosk.accessControl.isOpen)
        #expect(try ringed(app) == .accessibility(.open))
        #expect(try stack(app).remainingCards.count == count - 2, "the control decided nothing")
        key(.left)
        #expect(try stack(app).remainingCards.count == count - 3)

        // The visitor walks away with every mode on and the control open.
        key(.accessibility)
        #expect(app.kiosk.accessControl.isOpen)
        let reset = app.advanceToIdleReset(from: t)
        t = reset.time
        #expect(reset.resets == 1, "no idle reset")
        #expect(!app.kiosk.accessControl.isOpen && app.kiosk.accessControl.focus == nil)
        #expect(
            app.kiosk.accessControl.modes == VisitAccessibility() && !app.kiosk.visitUsedMode && !app.kiosk.visitListens
        )
        #expect(try stack(app).accessibility == VisitAccessibility())
        #expect(try stack(app).remainingCards.count == count)
        #expect(try ringed(app) == .action(.dismissLeft))
        // The next visitor's → is the deck's.
        key(.right)
        #expect(try stack(app).remainingCards.count == count - 1)

        // Every decision was kept, each with the modes its visit had on by then.
        #expect(app.store.flush(stalledFor: 60))
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: data), create: false)
        let all = try db.scalarInt("SELECT count(*) FROM decisions")
        let keyed = try db.scalarInt("SELECT count(*) FROM decisions WHERE input_method = 'key'")
        let withMode = try db.scalarInt("SELECT count(*) FROM decisions WHERE accessibility_mode = 1")
        let visits = try db.scalarInt("SELECT count(DISTINCT session_id) FROM decisions")
        #expect(all == 4)
        #expect(keyed == 4)
        #expect(withMode == 2, "the second and third decision had a mode on; the first and the next visitor's not")
        #expect(visits == 2)
    }

    @Test func keysWhileTheControlIsOpenNeverReachTheList() throws {
        let data = DeckFixtures.temporaryDirectory("app-access-list")
        defer { DeckFixtures.removeTree(data) }
        let app = try makeApp(data, deck: "seed-list.json")
        defer { app.store.close() }
        var t = MonotonicClock.now()
        func key(_ k: KeyAction) {
            t = t.advanced(bySeconds: 0.5)
            app.handleInput(.key(k, t))
        }
        func list() throws -> ListDeck { try #require(app.kiosk.deck as? ListDeck) }
        let rows = try list().cards.count
        #expect(app.kiosk.accessControl.trailing)
        key(.accessibility)
        for k in [KeyAction.down, .down, .enter, .delete, .plus, .right] { key(k) }
        #expect(app.kiosk.accessControl.modes == VisitAccessibility(reducedMotion: true))
        #expect(try list().accessibility == VisitAccessibility(reducedMotion: true))
        #expect(try list().focusedRowID == nil && list().openCard == nil && list().cards.count == rows)
        key(.accessibility)
        key(.down)
        key(.delete)
        #expect(try list().cards.count == rows - 1, "closed, Delete is the list's again")
    }
}

/// The control's keyboard ring as the renderer draws it: the list's focus ring (a dark band
/// outside a white line) around the ringed switch, and not around the others.
@Suite struct AccessFocusRenderTests {
    @Test func theRingedSwitchHasTheFocusRingsDarkBandAroundIt() {
        let size = Size(width: 1000, height: 600)
        let closed = AccessibilityControl(screen: size, pointsPerMillimetre: 1000 / 154.08)
        let blank = Scene(size: size, background: Color(rgb: 0xF2F2F7), elements: [], isAnimating: false)
        // Opened by touch: no keyboard ring; by the key, then ↓: the ring on high contrast.
        var touched = closed
        let p = closed.buttonFrame.center
        _ = touched.take(TouchFrame(time: .seconds(1), contacts: [TouchContact(id: 1, position: p, phase: .began)]))
        _ = touched.take(TouchFrame(time: .seconds(1), contacts: [TouchContact(id: 1, position: p, phase: .ended)]))
        var keyed = closed
        _ = keyed.press(.accessibility)
        _ = keyed.press(.down)
        #expect(touched.isOpen && touched.focus == nil && keyed.focus == .highContrast)
        let scale = 0.8
        let ringed = RenderFixtures.render(keyed.overlay(blank), width: 800, height: 480, scale: scale)
        let plain = RenderFixtures.render(touched.overlay(blank), width: 800, height: 480, scale: scale)

        /// Pixels 4 pt outside `frame`'s left and right edges at its middle (the band's centre),
        /// and, with `vertical`, above and below its middle.
        func around(_ frame: Rect, vertical: Bool) -> [(x: Int, y: Int)] {
            let c = frame.center
            var points = [Point(x: frame.minX - 4, y: c.y), Point(x: frame.maxX + 4, y: c.y)]
            if vertical { points += [Point(x: c.x, y: frame.minY - 4), Point(x: c.x, y: frame.maxY + 4)] }
            return points.map { (Int(($0.x * scale).rounded(.down)), Int(($0.y * scale).rounded(.down))) }
        }
        func isInk(_ p: UInt32) -> Bool {
            let ink = ControlColors.focusOuter
            let channels = [(p >> 16) & 0xFF, (p >> 8) & 0xFF, p & 0xFF].map { Double($0) / 255 }
            return zip(channels, [ink.red, ink.green, ink.blue]).allSatisfy { abs($0 - $1) < 0.1 }
        }
        for (x, y) in around(keyed.frame(of: .highContrast), vertical: true) {
            #expect(isInk(ringed.pixel(x: x, y: y)), "no ring at \(x),\(y)")
            #expect(!isInk(plain.pixel(x: x, y: y)), "ink at \(x),\(y) without the ring")
        }
        // Beside the other two switches there is no ring (above and below them the gaps are
        // shared with the ringed one).
        for item in [AccessibilityControl.Item.largeText, .reducedMotion] {
            for (x, y) in around(keyed.frame(of: item), vertical: false) {
                #expect(!isInk(ringed.pixel(x: x, y: y)), "\(item) ringed at \(x),\(y)")
            }
        }
    }
}
