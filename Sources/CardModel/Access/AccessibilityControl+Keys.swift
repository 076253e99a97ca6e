/// The accessibility control by keypad and by one switch (EN 301 549 5.1.6 / 5.2): the same
/// three switches touch reaches, in front of the deck while the control is open.
extension AccessibilityControl {
    /// A choice of the one-switch scan that is the control's.
    public enum Choice: Hashable, Sendable {
        /// "Aa": opens the control (the scan offers it after the deck's choices while it is closed).
        case open
        /// Switches a mode on or off (offered while the control is open).
        case toggle(Item)
        /// Closes the control (the last choice while it is open; its ring sits on "Aa", whose tap closes it too).
        case close
    }

    /// What the visitor hears about `item`: its word and its state ("Große Schrift: Aus"), in
    /// the visitor's language.
    public func spokenText(of item: Item) -> String {
        labels.text(item) + ": " + (isOn(item) ? labels.on : labels.off)
    }

    /// What the help key reads while the control is open: the ringed switch and its state, or
    /// all three when none is ringed.
    public var spokenText: String {
        if let focus { return spokenText(of: focus) }
        return Item.allCases.map { spokenText(of: $0) }.joined(separator: ". ")
    }

    /// What `key` does to the control; nil when the key is the deck's (the control is closed and
    /// `key` is not the accessibility key). While the control is open every key is its own:
    /// - the accessibility key, Esc and Backspace close it;
    /// - ↑ / ↓ move the ring (wrapping; with no ring yet, to the last / the first switch);
    /// - Enter toggles the ringed switch (with no ring yet, rings the first one);
    /// - help reads the ringed switch and its state;
    /// - ← → Delete + do nothing: they never reach the deck behind the panel.
    ///
    /// The accessibility key opens the control with the ring on its first switch.
    public mutating func press(_ key: AccessKey) -> AccessResponse? {
        var response = AccessResponse(byControl: true)
        guard isOpen else {
            guard key == .accessibility else { return nil }
            open(focus: Item.allCases[0])
            response.announcement = spokenText
            return response
        }
        let before = modes
        switch key {
        case .accessibility, .escape, .backspace: close()
        case .up, .down:
            focus = ringed(movedBy: key == .down ? 1 : -1)
            response.announcement = spokenText
        case .enter:
            if let focus { toggle(focus) } else { focus = Item.allCases[0] }
            response.announcement = spokenText
        case .help: response.speech = spokenText
        case .left, .right, .delete, .plus: break
        }
        response.modesChanged = modes != before
        return response
    }

    private func ringed(movedBy step: Int) -> Item {
        let all = Item.allCases
        guard let focus, let i = all.firstIndex(of: focus) else { return step > 0 ? all[0] : all[all.count - 1] }
        return all[(i + step + all.count) % all.count]
    }

    /// The scan's choices with the control in front of the deck's `deck`: while it is closed
    /// the deck's, then "Aa"; while it is open its three switches, then close.
    public func scanChoices(after deck: [ScanChoice]) -> [ScanChoice] {
        guard isOpen else { return deck + [.accessibility(.open)] }
        return Item.allCases.map { .accessibility(.toggle($0)) } + [.accessibility(.close)]
    }

    /// Performs the scanned `choice`. The scan opens the panel without the keys' ring (its own
    /// ring shows the choice); a switch's choice does nothing while the panel is closed.
    public mutating func select(_ choice: Choice) -> AccessResponse {
        var response = AccessResponse(byControl: true)
        let before = modes
        switch choice {
        case .open: open(focus: nil)
        case .toggle(let item):
            guard isOpen else { break }
            toggle(item)
            response.announcement = spokenText(of: item)
        case .close: close()
        }
        response.modesChanged = modes != before
        return response
    }

    /// Where the scan's ring goes for `choice`: "Aa" for open and close, a switch while the
    /// panel shows it; nil for a switch while the panel is closed.
    public func highlightFrame(of choice: Choice) -> Rect? {
        switch choice {
        case .open, .close: buttonFrame
        case .toggle(let item): isOpen ? frame(of: item) : nil
        }
    }
}

/// What a key or a scanned choice did, with the accessibility control in front of the deck.
public struct AccessResponse: Hashable, Sendable {
    /// The control took it: the deck saw nothing.
    public var byControl: Bool
    /// The visit's modes changed; the deck has them already (`setAccessibility`).
    public var modesChanged = false
    /// What to read aloud now, because the visitor asked (the help key, the scan's "read").
    public var speech: String?
    /// What to read when the visitor listens (has asked for speech this visit): the ringed
    /// switch and its state after the control opened, the ring moved or a switch toggled.
    public var announcement: String?

    public init(byControl: Bool, modesChanged: Bool = false, speech: String? = nil, announcement: String? = nil) {
        self.byControl = byControl
        self.modesChanged = modesChanged
        self.speech = speech
        self.announcement = announcement
    }
}

extension AccessibleDeck {
    /// `key` with `control` in front of the deck: the control's while it is open, and the
    /// accessibility key always (the deck never sees them); otherwise the deck's command. A
    /// changed mode is given to the deck at once (`setAccessibility`: positions, history and
    /// decisions are kept). Decisions stay in the deck for `takeDecisions`.
    public mutating func press(_ key: AccessKey, control: inout AccessibilityControl, at time: Instant)
        -> AccessResponse
    {
        if let response = control.press(key) {
            if response.modesChanged { setAccessibility(control.modes, at: time) }
            return response
        }
        return respond(to: command(for: key), at: time)
    }

    /// The choices a one-switch scan steps through now, with `control` in front of the deck.
    public func scanChoices(with control: AccessibilityControl) -> [ScanChoice] {
        control.scanChoices(after: scanChoices)
    }

    /// Performs the scanned `choice`: the control's open it, toggle a switch (given to the deck
    /// at once) or close it; the others are the deck's. When the control opened or closed,
    /// `scanner` rings its first switch, or "Aa" again.
    public mutating func select(
        _ choice: ScanChoice, control: inout AccessibilityControl, scanner: inout SwitchScanner, at time: Instant
    ) -> AccessResponse {
        guard case .accessibility(let mine) = choice else { return respond(to: command(for: choice), at: time) }
        let wasOpen = control.isOpen
        let response = control.select(mine)
        if response.modesChanged { setAccessibility(control.modes, at: time) }
        scanner.follow(control, wasOpen: wasOpen, deckChoices: scanChoices, at: time)
        return response
    }

    /// The scan's ring for `scanner`'s current choice with `control` in front of the deck; on
    /// the control's targets it is drawn over the control.
    public func scanHighlight(_ scanner: SwitchScanner, control: AccessibilityControl, at time: Instant)
        -> SceneElement?
    {
        guard let choice = scanner.highlighted(in: scanChoices(with: control)) else { return nil }
        guard case .accessibility(let mine) = choice else { return scanRing(choice, at: time) }
        return control.highlightFrame(of: mine).map { Self.scanRing(around: $0, zIndex: 1503) }
    }

    private mutating func respond(to command: AccessCommand?, at time: Instant) -> AccessResponse {
        var response = AccessResponse(byControl: false)
        switch command {
        case .deck(let action): perform(action, at: time)
        case .speak(let text): response.speech = text
        case nil: break
        }
        return response
    }
}

extension SwitchScanner {
    /// The accessibility control opened or closed (by the scan, a key or a touch), so the
    /// choices changed under the ring: it goes to the first switch, or back to "Aa" after the
    /// deck's `deckChoices`.
    public mutating func follow(
        _ control: AccessibilityControl, wasOpen: Bool, deckChoices: [ScanChoice], at t: Instant
    ) {
        guard control.isOpen != wasOpen else { return }
        highlight(control.isOpen ? 0 : deckChoices.count, at: t)
    }

    /// The keys moved the open control's ring (↑ / ↓): the scan's ring goes to the same switch,
    /// so a visitor using a keypad and a switch together sees one ringed switch, not two.
    public mutating func follow(focusOf control: AccessibilityControl, at t: Instant) {
        guard control.isOpen, let focus = control.focus,
            let i = AccessibilityControl.Item.allCases.firstIndex(of: focus), i != index
        else { return }
        highlight(i, at: t)
    }
}

extension AccessibilityControl {
    /// The scan's ring moved over the open control: the keys' ring, where there is one, moves
    /// with it (and goes while the scan rings close), so Enter toggles the switch the visitor
    /// sees ringed.
    public mutating func follow(_ scanner: SwitchScanner) {
        guard isOpen, focus != nil else { return }
        if case .accessibility(.toggle(let item)) = scanner.highlighted(in: scanChoices(after: [])) {
            focus = item
        } else {
            focus = nil
        }
    }
}
