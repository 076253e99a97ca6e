import Testing

@testable import CardModel

@Suite struct StaffEntryTests {
    func touch(_ e: inout StaffEntry, _ id: Int, _ t: Double, _ x: Double, _ y: Double, _ phase: TouchPhase) {
        e.handle(
            TouchFrame(time: .seconds(t), contacts: [TouchContact(id: id, position: Point(x: x, y: y), phase: phase)]))
    }

    func opens(_ e: inout StaffEntry, _ t: Double) -> Bool { e.advance(to: .seconds(t)) }

    func tap(_ e: inout StaffEntry, _ id: Int, at t: Double, x: Double = 20, y: Double = 20, length: Double = 0.15) {
        touch(&e, id, t, x, y, .began)
        touch(&e, id, t + length, x, y, .ended)
    }

    @Test func threeCornerTapsTheLastHeldThreeSecondsOpen() {
        var e = StaffEntry()
        tap(&e, 1, at: 0)
        tap(&e, 2, at: 0.5)
        touch(&e, 3, 1.0, 30, 25, .began)
        #expect(e.nextDeadline == .seconds(4.0))
        #expect(!opens(&e, 3.9))
        #expect(opens(&e, 4.0))
        #expect(!opens(&e, 5))  // once
        touch(&e, 3, 5, 30, 25, .ended)
        #expect(e.nextDeadline == nil)
    }

    @Test func liftingTooEarlyTooSlowOrElsewhereStartsOver() {
        // Held only 2 s.
        var a = StaffEntry()
        tap(&a, 1, at: 0)
        tap(&a, 2, at: 0.5)
        touch(&a, 3, 1, 20, 20, .began)
        touch(&a, 3, 3, 20, 20, .ended)
        #expect(!opens(&a, 10))
        // The taps spread over more than 3 s.
        var b = StaffEntry()
        tap(&b, 1, at: 0)
        tap(&b, 2, at: 2)
        touch(&b, 3, 3.5, 20, 20, .began)
        #expect(b.nextDeadline == nil)
        #expect(!opens(&b, 7))
        // A tap outside the corner between them.
        var c = StaffEntry()
        tap(&c, 1, at: 0)
        tap(&c, 2, at: 0.4, x: 400, y: 300)
        tap(&c, 3, at: 0.8)
        touch(&c, 4, 1.2, 20, 20, .began)
        #expect(!opens(&c, 5))
        // A second finger during the hold.
        var d = StaffEntry()
        tap(&d, 1, at: 0)
        tap(&d, 2, at: 0.4)
        touch(&d, 3, 0.8, 20, 20, .began)
        touch(&d, 4, 1.5, 500, 300, .began)
        #expect(!opens(&d, 5))
        // A slow "tap" (0.9 s) does not count as a tap.
        var f = StaffEntry()
        tap(&f, 1, at: 0, length: 0.9)
        tap(&f, 2, at: 1.0)
        touch(&f, 3, 1.4, 20, 20, .began)
        #expect(!opens(&f, 5))
    }

    @Test func aCrowdsRandomTapsNeverOpenIt() {
        // Seeded: 200 000 touches by up to four hands at once, all over an 800×480 screen, many
        // in the corner, each lasting up to 1.2 s.
        var rng = SplitMix64(seed: 2026)
        func uniform(_ r: Double) -> Double { Double(rng.next() % 1_000_000) / 1_000_000 * r }
        var e = StaffEntry()
        var t = 0.0
        var opened = 0
        var nextID = 1
        var down: [(id: Int, until: Double, x: Double, y: Double)] = []
        for _ in 0..<200_000 {
            t += uniform(0.4)
            // Lift whatever is due.
            for d in down where d.until <= t {
                touch(&e, d.id, d.until, d.x, d.y, .ended)
            }
            down.removeAll { $0.until <= t }
            if e.advance(to: .seconds(t)) { opened += 1 }
            if down.count < 4 {
                let corner = uniform(1) < 0.3
                let x = corner ? uniform(90) : uniform(800)
                let y = corner ? uniform(90) : uniform(480)
                down.append((nextID, t + uniform(1.2), x, y))
                touch(&e, nextID, t, x, y, .began)
                nextID += 1
            }
        }
        #expect(opened == 0)
    }

    @Test func theRuleIsConfigurable() {
        var e = StaffEntry(rule: .init(cornerSize: 120, taps: 2, within: 2, hold: 1))
        tap(&e, 1, at: 0, x: 110, y: 110)
        touch(&e, 2, 0.5, 100, 100, .began)
        #expect(opens(&e, 1.5))
    }
}

@Suite struct PinLockTests {
    func attempt(_ p: inout PinLock, _ correct: Bool, _ t: Double) -> PinLock.Outcome {
        p.attempt(correct: correct, at: .seconds(t))
    }

    @Test func threeWrongPINsLockForSixtySeconds() {
        var p = PinLock()
        #expect(attempt(&p, false, 0) == .wrong(left: 2))
        #expect(attempt(&p, false, 5) == .wrong(left: 1))
        #expect(attempt(&p, false, 10) == .locked(until: .seconds(70)))
        #expect(p.isLocked(at: .seconds(69.9)))
        // Even the right PIN is refused while locked, and does not extend the lock.
        #expect(attempt(&p, true, 30) == .locked(until: .seconds(70)))
        #expect(!p.isLocked(at: .seconds(70)))
        #expect(attempt(&p, false, 71) == .wrong(left: 2))  // a fresh count
        #expect(attempt(&p, true, 72) == .accepted)
        #expect(attempt(&p, false, 73) == .wrong(left: 2))  // reset by success
    }
}

@Suite struct StaffMenuTests {
    let screen = Size(width: 1000, height: 600)

    func press(_ m: inout StaffMenu, _ key: String, at t: Double) -> StaffMenu.Output? {
        let frame = StaffMenu.layout(m.page, screen: screen, direction: m.direction).first { $0.id == key }!.frame
        return m.tap(at: frame.center, screen: screen, time: .seconds(t))
    }

    /// Every word the menu draws (panel lines and keys) on each page, in `language`.
    func drawnWords(_ m: StaffMenu) -> [String] {
        m.elements(info: [], screen: screen).flatMap { e -> [String] in
            switch e.kind.unmirrored {
            case .staffPanel(let lines): lines
            case .staffKey(let label): [label]
            default: []
            }
        }
    }

    @Test(arguments: ["en", "fr", "tr", "ar", "zh"])
    func theMenuSpeaksTheKiosksLanguageOnEveryPage(language: String) {
        var m = StaffMenu(language: language)
        m.open(at: .seconds(0))
        var seen = drawnWords(m)
        _ = press(&m, "key:1", at: 1)
        _ = press(&m, "key:OK", at: 1)
        seen += drawnWords(m)  // checking
        _ = m.pinChecked(correct: false, at: .seconds(1))
        seen += drawnWords(m)  // wrong, 2 left
        _ = press(&m, "key:1", at: 2)
        _ = press(&m, "key:OK", at: 2)
        _ = m.pinChecked(correct: true, at: .seconds(2))
        seen += drawnWords(m)  // the menu's actions
        _ = press(&m, "action:touchTest", at: 3)
        seen += drawnWords(m)
        _ = press(&m, "key:done", at: 4)
        _ = press(&m, "action:calibrate", at: 5)
        seen += drawnWords(m)
        let expected: [UIString] = [
            .staffTitle, .enterPIN, .checking, .reloadDeck, .restartVisit, .blankScreen, .screenshot, .touchTest,
            .calibrate, .close, .done, .cancel, .calibrateWait,
        ]
        for key in expected {
            #expect(seen.contains(UIStrings.text(key, in: language)), "\(key) not drawn in \(language)")
        }
        #expect(seen.contains(UIStrings.text(.wrongPINLeft, in: language, "2")))
        #expect(seen.contains(UIStrings.text(.touchTestLine, in: language, "0", "0")))
        // Nothing German is left on any page (the table's German words are not these languages').
        let german = Set(UIString.allCases.map { UIStrings.text($0, in: "de") })
        let mine = Set(UIString.allCases.map { UIStrings.text($0, in: language) })
        for word in seen where word.count > 1 && !word.allSatisfy({ $0 == "●" }) {
            #expect(!german.contains(word) || mine.contains(word), "German \"\(word)\" on the \(language) menu")
        }
    }

    @Test func wrongPINsLockThenTheRightOneOpensTheMenu() {
        var m = StaffMenu(language: "de")
        m.open(at: .seconds(0))
        for k in ["key:1", "key:2", "key:3", "key:5", "key:⌫", "key:4"] { #expect(press(&m, k, at: 1) == nil) }
        #expect(press(&m, "key:OK", at: 2) == .checkPIN("1234"))
        #expect(m.pinChecked(correct: false, at: .seconds(2)) == .wrong(left: 2))
        #expect(m.page == .pin(entered: "", message: "Falsche PIN — noch 2 Versuche"))
        for i in 1..<3 {
            _ = press(&m, "key:9", at: 3 + Double(i))
            #expect(press(&m, "key:OK", at: 3 + Double(i)) == .checkPIN("9"))
            _ = m.pinChecked(correct: false, at: .seconds(3 + Double(i)))
        }
        #expect(m.page == .pin(entered: "", message: "Gesperrt — bitte 1 Minute warten"))
        // Locked: keys do nothing for 60 s.
        #expect(press(&m, "key:1", at: 30) == nil)
        #expect(m.page == .pin(entered: "", message: "Gesperrt — bitte 1 Minute warten"))
        _ = press(&m, "key:1", at: 66)
        #expect(m.page == .pin(entered: "1", message: "PIN eingeben"))
        #expect(press(&m, "key:OK", at: 67) == .checkPIN("1"))
        #expect(m.pinChecked(correct: true, at: .seconds(67)) == .accepted)
        #expect(m.page == .menu)
        #expect(press(&m, "action:screenshot", at: 68) == .perform(.screenshot))
        #expect(m.isOpen)
        #expect(press(&m, "action:exit", at: 69) == .perform(.exit))
        #expect(!m.isOpen)
    }

    /// Right to left (Arabic) the menu's actions and the touch test's "Done" swap sides and are
    /// drawn mirrored, the panel's lines read from the right; the PIN pad keeps its keys where
    /// they are (1 2 3 from left to right) and the fingers are drawn where they touch.
    @Test func rightToLeftTheActionsSwapSidesAndThePadStays() {
        var ar = StaffMenu(language: "ar")
        var de = StaffMenu(language: "de")
        #expect(ar.direction == .rightToLeft && de.direction == .leftToRight)
        #expect(StaffMenu(language: nil).direction == .leftToRight)
        for m in [ar, de] { #expect(m.elements(info: [], screen: screen).isEmpty, "closed: nothing drawn") }
        ar.open(at: .seconds(0))
        de.open(at: .seconds(0))
        func frames(_ m: StaffMenu) -> [String: Rect] {
            Dictionary(uniqueKeysWithValues: StaffMenu.layout(m.page, screen: screen, direction: m.direction))
        }
        #expect(frames(ar) == frames(de), "the PIN pad is the same right to left")
        #expect(frames(ar)["key:1"]!.origin.x < frames(ar)["key:3"]!.origin.x, "1 2 3 from left to right")
        let pinKeys = ar.elements(info: [], screen: screen).filter { $0.id.hasPrefix("staff:key:") }
        #expect(pinKeys.count == 12 && pinKeys.allSatisfy { if case .staffKey = $0.kind { true } else { false } })
        #expect(
            ar.elements(info: [], screen: screen).first?.kind.unmirrored
                != ar.elements(info: [], screen: screen).first?.kind)

        for i in 0..<2 {
            _ = press(&ar, "key:1", at: 1 + Double(i))
            _ = press(&de, "key:1", at: 1 + Double(i))
        }
        #expect(press(&ar, "key:OK", at: 2) == .checkPIN("11") && press(&de, "key:OK", at: 2) == .checkPIN("11"))
        _ = ar.pinChecked(correct: true, at: .seconds(2))
        _ = de.pinChecked(correct: true, at: .seconds(2))
        #expect(ar.page == .menu)
        let (left, right) = (frames(ar), frames(de))
        for a in StaffMenu.Action.allCases {
            let id = "action:\(a.rawValue)"
            let l = left[id]!, r = right[id]!
            #expect(l.origin.x == screen.width - r.maxX && l.origin.y == r.origin.y && l.size == r.size, "\(id)")
            #expect(
                l.maxX < screen.width / 2 && r.origin.x > screen.width / 2, "\(id): left in Arabic, right in German")
        }
        // Where German has the actions, Arabic has the kiosk's state: a tap there does nothing.
        #expect(ar.tap(at: right["action:screenshot"]!.center, screen: screen, time: .seconds(3)) == nil)
        let drawn = ar.elements(info: ["IP: 192.0.2.10 (eth0)"], screen: screen)
        #expect(drawn.first?.kind == .mirrored(.staffPanel(lines: ["IP: 192.0.2.10 (eth0)"])))
        #expect(
            drawn.first { $0.id == "staff:action:screenshot" }?.kind
                == .mirrored(.staffKey(label: UIStrings.text(.screenshot, in: "ar"))))
        #expect(
            de.elements(info: [], screen: screen).allSatisfy { $0.kind.unmirrored == $0.kind }, "German: none mirrored")

        #expect(press(&ar, "action:touchTest", at: 4) == .perform(.touchTest))
        #expect(ar.page == .touchTest)
        #expect(frames(ar)["key:done"]!.origin.x < screen.width / 2, "Done at the top left")
        let finger = Point(x: 700, y: 300)
        ar.follow(TouchFrame(time: .seconds(5), contacts: [TouchContact(id: 7, position: finger, phase: .began)]))
        let shown = ar.elements(info: [], screen: screen).first { $0.id == "staff:finger:7" }
        #expect(shown?.frame.center == finger && shown?.kind == .staffKey(label: "1"), "a finger is where it touches")
        _ = press(&ar, "key:done", at: 6)
        #expect(ar.page == .menu)
    }

    @Test func closesItselfAfterSixtySecondsIdle() {
        var m = StaffMenu(language: "de")
        m.open(at: .seconds(10))
        _ = press(&m, "key:1", at: 20)
        #expect(m.nextDeadline == .seconds(80))
        #expect(m.advance(to: .seconds(79)) == nil)
        #expect(m.advance(to: .seconds(80)) == .closedIdle)
        #expect(!m.isOpen)
        #expect(m.elements(info: [], screen: screen).isEmpty)
    }

    @Test func whileThePINIsCheckedThePadSaysSoAndTakesNoKeys() {
        var m = StaffMenu(language: "de")
        m.open(at: .seconds(0))
        _ = press(&m, "key:4", at: 1)
        #expect(press(&m, "key:OK", at: 1) == .checkPIN("4"))
        #expect(m.isChecking)
        #expect(m.page == .pin(entered: "4", message: m.checkingText))
        // Keys and a second OK while the worker checks do nothing: no second check goes out.
        #expect(press(&m, "key:7", at: 1.01) == nil)
        #expect(press(&m, "key:OK", at: 1.02) == nil)
        #expect(m.page == .pin(entered: "4", message: m.checkingText))
        #expect(m.pinChecked(correct: false, at: .seconds(1.05)) == .wrong(left: 2))
        #expect(!m.isChecking)
        // An answer with no check out is dropped and counts for nothing.
        #expect(m.pinChecked(correct: false, at: .seconds(1.1)) == nil)
        #expect(m.lock.wrongInARow == 1)
        // The pad closed (idle) while a check was out: the late answer opens nothing.
        _ = press(&m, "key:1", at: 2)
        #expect(press(&m, "key:OK", at: 2) == .checkPIN("1"))
        #expect(m.advance(to: .seconds(62)) == .closedIdle)
        #expect(m.pinChecked(correct: true, at: .seconds(62.1)) == nil)
        #expect(!m.isOpen)
    }

    @Test func theTouchTestDrawsEveryFingerAndFertigGoesBack() throws {
        var m = StaffMenu(language: "de")
        m.open(at: .seconds(0))
        _ = press(&m, "key:1", at: 0)
        _ = press(&m, "key:OK", at: 0)
        _ = m.pinChecked(correct: true, at: .seconds(0.1))
        #expect(press(&m, "action:touchTest", at: 1) == .perform(.touchTest))
        #expect(m.page == .touchTest && m.isOpen)
        func frame(_ t: Double, _ contacts: [TouchContact]) -> TouchFrame {
            TouchFrame(time: .seconds(t), contacts: contacts)
        }
        m.follow(frame(1.5, [TouchContact(id: 1_000_007, position: Point(x: 9, y: 9), phase: .began)]))
        m.follow(frame(1.6, [TouchContact(id: 1_000_007, position: Point(x: 9, y: 9), phase: .ended)]))
        m.follow(frame(2, [TouchContact(id: 1, position: Point(x: 100, y: 200), phase: .began)]))
        m.follow(
            frame(
                2.1,
                [
                    TouchContact(id: 1, position: Point(x: 110, y: 205), phase: .moved),
                    TouchContact(id: 2, position: Point(x: 500, y: 300), phase: .began),
                ]))
        #expect(m.testContacts == [1: Point(x: 110, y: 205), 2: Point(x: 500, y: 300)])
        let elements = m.elements(info: [], screen: screen)
        let finger = try #require(elements.first { $0.id == "staff:finger:1" })
        #expect(finger.frame.center == Point(x: 110, y: 205))
        guard case .staffPanel(let lines) = elements[0].kind else {
            Issue.record("no panel")
            return
        }
        // Fingers are numbered by the test (the third and second touch), not by device contact id.
        #expect(lines == ["Touch-Test: 2 Finger, 3 Berührungen", "Finger 2: 110, 205", "Finger 3: 500, 300"])
        m.follow(frame(2.2, [TouchContact(id: 1, position: Point(x: 110, y: 205), phase: .ended)]))
        #expect(m.testContacts.keys.sorted() == [2])
        // A touch elsewhere stays in the test; "Fertig" goes back to the menu.
        #expect(m.tap(at: Point(x: 400, y: 400), screen: screen, time: .seconds(3)) == nil)
        #expect(m.page == .touchTest)
        #expect(press(&m, "key:done", at: 4) == nil)
        #expect(m.page == .menu)
        // The idle close counts from the touch test's last touch.
        #expect(m.nextDeadline == .seconds(64))
    }

    @Test func theCalibrationPageShowsTheAppsTargetAndAbbrechenGoesBack() {
        var m = StaffMenu(language: "de")
        m.open(at: .seconds(0))
        _ = press(&m, "key:1", at: 0)
        _ = press(&m, "key:OK", at: 0)
        _ = m.pinChecked(correct: true, at: .seconds(0.1))
        #expect(press(&m, "action:calibrate", at: 1) == .perform(.calibrate))
        #expect(m.page == .calibrate)
        m.showCalibration(
            target: Point(x: 100, y: 60), lines: ["Kalibrieren", "Ziel 1 von 4 antippen"], at: .seconds(2))
        let target = m.elements(info: [], screen: screen).first { $0.id == "staff:target" }
        #expect(target?.frame.center == Point(x: 100, y: 60))
        #expect(m.nextDeadline == .seconds(62))  // the sequence's progress keeps the menu open
        // A tap on the target is the sequence's (raw frames), not the menu's.
        #expect(m.tap(at: Point(x: 100, y: 60), screen: screen, time: .seconds(3)) == nil)
        #expect(m.page == .calibrate)
        #expect(press(&m, "key:cancel", at: 4) == .calibrationCancelled)
        #expect(m.page == .menu)
        // Finished: back to the menu; a late update to a page no longer shown changes nothing.
        _ = press(&m, "action:calibrate", at: 5)
        m.endCalibration()
        #expect(m.page == .menu)
        m.showCalibration(target: Point(x: 1, y: 1), lines: ["x"], at: .seconds(6))
        #expect(m.calibrationTarget == nil)
    }
}
