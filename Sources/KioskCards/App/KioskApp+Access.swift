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
        let wasOpen = accessControl.isOpen
        guard accessControl.take(frame) else { return false }
        let modes = accessControl.modes
        if modes != before { applyAccessibility(modes, at: frame.time) }
        controlMoved(wasOpen: wasOpen, by: "touch", at: frame.time)
        return true
    }

    func applyAccessibility(_ modes: VisitAccessibility, at time: Instant) {
        deck.setAccessibility(modes, at: time)
        noteAccessibility(modes)
    }

    /// Performs `key` with the control in front of the deck (`AccessibleDeck.press(_:control:at:)`):
    /// the accessibility key (F2, Menu) opens and closes it, and while it is open every key is
    /// its own. Returns whether the control took the key.
    @discardableResult
    func accessKey(_ key: AccessKey, at time: Instant) -> Bool {
        guard var accessible = deck as? any AccessibleDeck else { return false }
        let wasOpen = accessControl.isOpen
        let response = accessible.press(key, control: &accessControl, at: time)
        deck = accessible
        if response.byControl { Log.info("access: key \(key.rawValue) on the control") }
        if response.modesChanged { noteAccessibility(accessControl.modes) }
        controlMoved(wasOpen: wasOpen, by: "key", at: time)
        scanner.follow(focusOf: accessControl, at: time)
        speak(response)
        return response.byControl
    }

    /// Reads what `response` asks for: its speech always, its announcement (the ringed switch and
    /// its state) only when the visitor has asked for speech this visit (`visitListens`).
    func speak(_ response: AccessResponse) {
        if let text = response.speech {
            read(text)
        } else if let text = response.announcement, visitListens {
            read(text)
        }
    }

    /// The control opened or closed (`wasOpen` before): logged, and the scan's ring follows
    /// (its first switch, or "Aa" again).
    func controlMoved(wasOpen: Bool, by input: String, at time: Instant) {
        guard accessControl.isOpen != wasOpen else { return }
        Log.info("access: control \(accessControl.isOpen ? "opened" : "closed") by \(input)")
        if let accessible = deck as? any AccessibleDeck {
            scanner.follow(accessControl, wasOpen: wasOpen, deckChoices: accessible.scanChoices, at: time)
        }
    }

    /// The modes changed and the deck has them: the record, the session policy and the log.
    func noteAccessibility(_ modes: VisitAccessibility) {
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
        visitListens = false
        session.policy = sessionPolicy(accessControl.modes)
    }
}

/// One-switch scanning (kiosk.conf `switch-key`, `SwitchScanner`): a short press of the one key
/// moves the focus ring to the next of the deck's `scanChoices` and then "Aa" (while the control
/// is open: its three switches and close), holding it `switch-hold` selects the ringed choice at
/// that moment. What it decides is stored as input method `switch`.
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
            let choices = accessible.scanChoices(with: accessControl)
            if let chosen = scanner.press(at: time, choices: choices) { selectScanned(chosen, at: time) }
        } else if let accessible = deck as? any AccessibleDeck {
            let before = scanner.index
            let choices = accessible.scanChoices(with: accessControl)
            if let chosen = scanner.release(at: time, choices: choices) {
                selectScanned(chosen, at: time)
            } else if scanner.index != before, let ringed = scanner.highlighted(in: choices) {
                Log.info("switch: ring on \(Self.name(of: ringed))")
            }
        }
        accessControl.follow(scanner)
        rescheduleScan()
        display.requestFrame()
    }

    /// Performs the scanned `choice` on the deck or the control in front of it
    /// (`AccessibleDeck.select(_:control:scanner:at:)`); what it decides is stamped `switch`.
    func selectScanned(_ choice: ScanChoice, at time: Instant) {
        guard var accessible = deck as? any AccessibleDeck else { return }
        Log.info("switch: \(Self.name(of: choice)) selected")
        let wasOpen = accessControl.isOpen
        let response = accessible.select(choice, control: &accessControl, scanner: &scanner, at: time)
        deck = accessible
        if response.modesChanged { noteAccessibility(accessControl.modes) }
        controlMoved(wasOpen: wasOpen, by: "the switch", at: time)
        speak(response)
        collectDecisions(method: .switchAccess)
        display.requestFrame()
    }

    static func name(of choice: ScanChoice) -> String {
        switch choice {
        case .action(let a): "\(a)"
        case .read: "read"
        case .accessibility(.open): "accessibility"
        case .accessibility(.toggle(let item)): item.rawValue
        case .accessibility(.close): "close accessibility"
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
                let chosen = self.scanner.advance(to: now, choices: accessible.scanChoices(with: self.accessControl))
            else {
                self.accessControl.follow(self.scanner)
                return self.rescheduleScan()
            }
            self.selectScanned(chosen, at: now)
            self.rescheduleScan()
        }
    }

    /// `scene` with the scan's focus ring on the highlighted choice, while a switch key is set.
    func scanned(_ scene: Scene, at time: Instant) -> Scene {
        guard config.switchKey != nil else { return scene }
        return Self.scanned(scene, deck: deck, scanner: scanner, control: accessControl, at: time)
    }

    /// `scene` of `deck` with `scanner`'s focus ring (the golden `stack-switch-scan` draws it so
    /// too), its choices with `control` in front of the deck's (nil: the deck's alone).
    static func scanned(
        _ scene: Scene, deck: any CardDeck, scanner: SwitchScanner, control: AccessibilityControl? = nil,
        at time: Instant
    ) -> Scene {
        guard let accessible = deck as? any AccessibleDeck else { return scene }
        let highlight: SceneElement?
        if let control {
            highlight = accessible.scanHighlight(scanner, control: control, at: time)
        } else {
            highlight = accessible.scanHighlight(scanner, at: time)
        }
        guard let ring = highlight else { return scene }
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
