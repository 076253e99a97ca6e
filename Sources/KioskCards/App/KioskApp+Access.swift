import CardModel
import KioskSystem

/// The visible per-visit accessibility control (`AccessibilityControl`, bottom-left corner):
/// what it does to the deck, the session and the record.
extension KioskApp {
    /// Gives `frame` to the control first; true when the control took it (the deck must not
    /// see it). A switch that changed restyles the deck at once and, with any mode on, the
    /// inactivity warning lasts at least 20 s (`VisitorSession.Policy.accessible`).
    func accessTake(_ frame: TouchFrame) -> Bool {
        let before = accessControl.modes
        guard accessControl.take(frame) else { return false }
        let modes = accessControl.modes
        if modes != before { applyAccessibility(modes, at: frame.time) }
        return true
    }

    func applyAccessibility(_ modes: VisitAccessibility, at time: Instant) {
        deck.setAccessibility(modes, at: time)
        if modes.isAnyOn { visitUsedMode = true }
        session.policy = sessionPolicy(modes)
        rescheduleSession()
        Log.info(
            "access: large text \(modes.largeText ? "on" : "off"), high contrast \(modes.highContrast ? "on" : "off"), "
                + "reduced motion \(modes.reducedMotion ? "on" : "off") for this visit")
    }

    /// The policy for the deck with `modes`: the accessible one (warning ≥ 20 s) while any is on.
    func sessionPolicy(_ modes: VisitAccessibility) -> VisitorSession.Policy {
        let base = config.sessionPolicy(deck: deckFile)
        return modes.isAnyOn ? base.accessible() : base
    }

    /// The next visitor: every mode off (the deck's `reset` already turned its own off).
    func resetAccessibility() {
        accessControl.reset()
        resetScan()
        visitUsedMode = false
        session.policy = sessionPolicy(accessControl.modes)
    }
}

/// One-switch scanning (kiosk.conf `switch-key`, `SwitchScanner`): a short press of the one key
/// moves the focus ring to the next of the deck's `scanChoices`, holding it `switch-hold`
/// selects the ringed choice at that moment. What it decides is stored as input method `switch`.
extension KioskApp {
    /// The switch key went down (`pressed`) or up.
    func switchKey(pressed: Bool, at time: Instant) {
        if staffMenu.isOpen { return }
        if pressed {
            if closedHoursTakeKey(at: time) { return }
            let (deliver, effects) = session.handleKey(at: time)
            apply(effects, at: time)
            syncAttract(at: time)
            // A press that only woke the panel is not the scan's; its release then steps nothing.
            guard deliver, let accessible = deck as? any AccessibleDeck else { return }
            if let chosen = scanner.press(at: time, choices: accessible.scanChoices) { selectScanned(chosen, at: time) }
        } else if let accessible = deck as? any AccessibleDeck {
            let before = scanner.index
            if let chosen = scanner.release(at: time, choices: accessible.scanChoices) {
                selectScanned(chosen, at: time)
            } else if scanner.index != before, let ringed = scanner.highlighted(in: accessible.scanChoices) {
                Log.info("switch: ring on \(Self.name(of: ringed))")
            }
        }
        rescheduleScan()
        display.requestFrame()
    }

    /// Performs the scanned `choice` on the deck; what it decides is stamped `switch`.
    func selectScanned(_ choice: ScanChoice, at time: Instant) {
        guard var accessible = deck as? any AccessibleDeck else { return }
        Log.info("switch: \(Self.name(of: choice)) selected")
        let text = Self.select(choice, on: &accessible, at: time)
        deck = accessible
        if let text { read(text) }
        collectDecisions(method: .switchAccess)
        display.requestFrame()
    }

    private static func select<D: AccessibleDeck>(_ choice: ScanChoice, on deck: inout D, at time: Instant) -> String? {
        switch deck.command(for: choice) {
        case .deck(let action):
            deck.perform(action, at: time)
            return nil
        case .speak(let text):
            return text
        }
    }

    static func name(of choice: ScanChoice) -> String {
        switch choice {
        case .action(let a): "\(a)"
        case .read: "read"
        }
    }

    /// A held switch selects at `switch-hold` without a release: wake the loop then.
    func rescheduleScan() {
        if let scanTimer { loop.cancelTimer(scanTimer) }
        scanTimer = nil
        guard let due = scanner.nextWakeup else { return }
        scanTimer = loop.schedule(at: due) { [unowned self] in
            self.scanTimer = nil
            let now = MonotonicClock.now()
            guard let accessible = self.deck as? any AccessibleDeck,
                let chosen = self.scanner.advance(to: now, choices: accessible.scanChoices)
            else { return self.rescheduleScan() }
            self.selectScanned(chosen, at: now)
            self.rescheduleScan()
        }
    }

    /// `scene` with the scan's focus ring on the highlighted choice, while a switch key is set.
    func scanned(_ scene: Scene, at time: Instant) -> Scene {
        guard config.switchKey != nil else { return scene }
        return Self.scanned(scene, deck: deck, scanner: scanner, at: time)
    }

    /// `scene` of `deck` with `scanner`'s focus ring (the golden `stack-switch-scan` draws it so too).
    static func scanned(_ scene: Scene, deck: any CardDeck, scanner: SwitchScanner, at time: Instant) -> Scene {
        guard let accessible = deck as? any AccessibleDeck, let ring = accessible.scanHighlight(scanner, at: time)
        else { return scene }
        return Scene(
            size: scene.size, background: scene.background, elements: scene.elements + [ring],
            isAnimating: scene.isAnimating)
    }

    /// The next visitor starts on the first choice.
    func resetScan() {
        scanner.reset()
        if let scanTimer { loop.cancelTimer(scanTimer) }
        scanTimer = nil
    }
}
