/// The visible per-visit accessibility control ("Aa"), the keypad in front of the deck, the
/// one-switch scan (`switch-key`) and speech: what they do to the deck, the session and the record.
extension Kiosk {
    /// A frame of the fingers the control owns, in screen coordinates. The control is laid out
    /// left to right and mirrored on screen with the rest in a right-to-left language, so its
    /// fingers are mirrored back first (as the router's claim is). A switch that changed
    /// restyles the deck at once and, with any mode on, the countdown lasts at least 20 s. The
    /// panel opening over the deck cancels the deck's fingers.
    mutating func accessTouch(_ screenFrame: TouchFrame) {
        let frame =
            languages.direction == .rightToLeft ? screenFrame.mirrored(width: metrics.size.width) : screenFrame
        let before = accessControl.modes
        let wasOpen = accessControl.isOpen
        _ = accessControl.take(frame)
        if accessControl.modes != before { applyAccessibility(accessControl.modes, at: frame.time) }
        controlMoved(wasOpen: wasOpen, by: "touch", at: frame.time)
    }

    private mutating func applyAccessibility(_ modes: VisitAccessibility, at time: Instant) {
        deck.setAccessibility(modes, at: time)
        noteAccessibility(modes)
    }

    /// Performs `key` with the control in front of the deck: the accessibility key (F2, Menu)
    /// opens and closes it, and while it is open every key is its own.
    mutating func accessKey(_ key: AccessKey, at time: Instant) {
        guard var accessible = deck as? any AccessibleDeck else { return }
        let wasOpen = accessControl.isOpen
        let response = accessible.press(key, control: &accessControl, at: time)
        deck = accessible
        if response.byControl { log("access: key \(key.rawValue) on the control") }
        if response.modesChanged { noteAccessibility(accessControl.modes) }
        controlMoved(wasOpen: wasOpen, by: "key", at: time)
        scanner.follow(focusOf: accessControl, at: time)
        speak(response)
    }

    /// Reads what `response` asks for: its speech always, its announcement (the ringed switch and
    /// its state) only when the visitor has asked for speech this visit.
    private mutating func speak(_ response: AccessResponse) {
        if let text = response.speech {
            read(text)
        } else if let text = response.announcement, visitListens {
            read(text)
        }
    }

    /// Reads `text` aloud in the visitor's language; the visitor now listens until the next visit.
    mutating func read(_ text: String) {
        visitListens = true
        effects.append(.speak(text, language: languages.current))
    }

    /// The control opened or closed (`wasOpen` before): logged, and the scan's ring follows.
    private mutating func controlMoved(wasOpen: Bool, by input: String, at time: Instant) {
        guard accessControl.isOpen != wasOpen else { return }
        if accessControl.isOpen { coverDeck(at: time) }
        log("access: control \(accessControl.isOpen ? "opened" : "closed") by \(input)")
        if let accessible = deck as? any AccessibleDeck {
            scanner.follow(accessControl, wasOpen: wasOpen, deckChoices: accessible.scanChoices, at: time)
        }
    }

    /// The modes changed and the deck has them: the record, the session policy and the log.
    private mutating func noteAccessibility(_ modes: VisitAccessibility) {
        if modes.isAnyOn { visitUsedMode = true }
        session.policy = sessionPolicy(modes)
        log(
            "access: large text \(modes.largeText ? "on" : "off"), high contrast \(modes.highContrast ? "on" : "off"), "
                + "reduced motion \(modes.reducedMotion ? "on" : "off") for this visit")
    }

    /// The deck's policy, the accessible one (warning ≥ 20 s) while any mode is on.
    private func sessionPolicy(_ modes: VisitAccessibility) -> VisitorSession.Policy {
        modes.isAnyOn || settings.accessibleMode ? onScreen.policy.accessible() : onScreen.policy
    }

    /// The next visitor: every mode off, the scan on its first choice.
    mutating func resetAccessibility() {
        accessControl.reset()
        scanner.reset()
        visitUsedMode = false
        visitListens = false
        session.policy = sessionPolicy(accessControl.modes)
    }

    // MARK: One switch

    /// A short press of the one key moves the ring to the next of the deck's choices and then
    /// "Aa" (while the control is open: its switches and close); holding it `switch-hold`
    /// selects the ringed choice. What it decides is stored as input method `switch`.
    mutating func switchKey(pressed: Bool, at time: Instant) {
        if staffMenu.isOpen { return }
        if pressed {
            if hours?.isClosed == true {
                apply(session.handleKey(at: time).effects, at: time)
                return wakeClosedScreen(at: time)
            }
            let (deliver, sessionEffects) = session.handleKey(at: time)
            apply(sessionEffects, at: time)
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
                log("switch: ring on \(Self.name(of: ringed))")
            }
        }
        accessControl.follow(scanner)
        effects.append(.inputShown(at: time))
    }

    /// Performs the scanned `choice` on the deck or the control in front of it.
    mutating func selectScanned(_ choice: ScanChoice, at time: Instant) {
        guard var accessible = deck as? any AccessibleDeck else { return }
        log("switch: \(Self.name(of: choice)) selected")
        let wasOpen = accessControl.isOpen
        let response = accessible.select(choice, control: &accessControl, scanner: &scanner, at: time)
        deck = accessible
        if response.modesChanged { noteAccessibility(accessControl.modes) }
        controlMoved(wasOpen: wasOpen, by: "the switch", at: time)
        speak(response)
        collectDecisions(method: .switchAccess)
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

    // MARK: Languages

    /// Beside a landscape stack's card (its ✓ between them and the card), in lines above a
    /// portrait one's, clear of the staff entry's corner (`staffCorner`) as a visitor reading
    /// `direction` sees it. Without `metrics`: a column. (The list's: `ListLayout.languagePlacement`.)
    public static func languagePlacement(
        _ layout: KioskDeck.Layout, metrics: ScreenMetrics? = nil, staffCorner: StaffEntry.Rule? = nil,
        direction: LayoutDirection = .leftToRight
    ) -> LanguageChoice.Placement {
        if layout == .list { return .row(trailingInset: 56) }
        // The keys start in the top trailing corner of the layout, mirrored right to left; a
        // column keeps clear of the bottom trailing corner too, where the staff corner or "Aa"
        // (`AccessibilityControl.isTrailing`) may be.
        var leading = LanguageChoice.leadingRoom
        var trailing = 0.0
        var bottom = 0.0
        if let rule = staffCorner {
            switch rule.corner.inLayout(direction) {
            case .topLeft: leading = max(leading, rule.cornerSize)
            case .topRight: (leading, trailing) = (0, rule.cornerSize)
            case .bottomRight: bottom = rule.cornerSize
            case .bottomLeft:
                // "Aa" moves to the bottom trailing corner: its side and margin.
                let band = AccessibilityControl.bottomBand(pointsPerMillimetre: metrics?.pointsPerMillimetre ?? 0)
                bottom = band - AccessibilityControl.margin
            }
        }
        guard let metrics, metrics.safeSize.height > metrics.safeSize.width else {
            return .column(topCorner: trailing, bottomCorner: bottom)
        }
        return .lines(leadingRoom: leading, trailingRoom: trailing)
    }

    /// Where the keys are now: the list's own place for them, else `languagePlacement`.
    var currentLanguagePlacement: LanguageChoice.Placement {
        (deck as? ListDeck)?.layout.languagePlacement
            ?? Self.languagePlacement(
                onScreen.layout, metrics: metrics, staffCorner: staffRule, direction: languages.direction)
    }

    /// Warns when the config's language is not in `file` (visits start in the deck's language).
    mutating func noteConfiguredLanguage(_ file: KioskDeck) {
        if let message = languages.configuredNotOfferedMessage(deck: file.summary) { warn("language: " + message) }
    }

    /// The staff entry's rule when it is on (its corner is kept clear), else nil.
    var staffRule: StaffEntry.Rule? { settings.staffEnabled ? settings.staffGesture : nil }

    /// Puts "Aa" in the bottom corner the staff entry's corner leaves it in the visitor's direction.
    mutating func placeAccessControl() {
        accessControl.trailing = AccessibilityControl.isTrailing(
            list: onScreen.layout == .list, staffCorner: staffRule?.corner, direction: languages.direction)
    }

    /// The list's title bar height (where its row of keys is centred); the seed's elsewhere.
    var currentTitleBarHeight: Double {
        (deck as? ListDeck)?.layout.titleBarHeight ?? ListLayout.minimumTitleBarHeight
    }

    /// The list on `metrics` for `file` in `language`: its bar's controls at least 9 mm, clear
    /// of the staff entry's top corner (`staffCorner`), and its language keys in the bar when
    /// they fit beside the title, else in a band under it.
    static func listLayout(
        _ file: KioskDeck, language: String, metrics: ScreenMetrics, staffCorner: StaffEntry.Rule?
    ) -> ListLayout {
        let rtl = LayoutDirection(language: language) == .rightToLeft
        var left = 0.0
        var right = 0.0
        if let rule = staffCorner {
            // The corner as the visitor sees it; the scene is laid out left to right, then mirrored.
            switch (rule.corner, rtl) {
            case (.topLeft, false), (.topRight, true): left = rule.cornerSize
            case (.topRight, false), (.topLeft, true): right = rule.cornerSize
            default: break
            }
        }
        let side = StackLayout.targetSide(pointsPerMillimetre: metrics.pointsPerMillimetre)
        let layout = ListLayout(
            screen: metrics.safeSize,
            bottomInset: AccessibilityControl.bottomBand(pointsPerMillimetre: metrics.pointsPerMillimetre),
            pointsPerMillimetre: metrics.pointsPerMillimetre, reservedLeft: left, reservedRight: right)
        let choice = LanguageChoice(offered: file.languages, deckLanguage: file.language, configured: nil)
        if choice.fitsInRow(
            screen: metrics.safeSize, trailingInset: layout.languageRowInset, leadingRoom: layout.languageRowLead,
            minimumSide: side)
        {
            return layout
        }
        return layout.withLanguageBand(
            choice.bandHeight(screen: metrics.safeSize, top: layout.titleBarHeight, minimumSide: side))
    }

    /// The language keys' least side on this panel: 9 mm.
    var languageKeySide: Double { StackLayout.targetSide(pointsPerMillimetre: metrics.pointsPerMillimetre) }

    /// The language keys are large on the attract screen, except in the list's title bar.
    var languageProminent: Bool { session.phase == .attract && onScreen.layout == .stack }

    /// The language whose key is under `p` (screen points; the keys are mirrored with the scene).
    func language(at p: Point, prominent: Bool) -> String? {
        languages.language(
            at: visitorPoint(p), screen: metrics.size, prominent: prominent,
            placement: currentLanguagePlacement, minimumSide: languageKeySide, titleBarHeight: currentTitleBarHeight)
    }

    /// The visitor picked `language`: the deck's texts, the kiosk's words and the layout change
    /// at once. The stack keeps its state (the cards not yet decided, the undo history, the
    /// positions); the list keeps the rows not deleted.
    mutating func selectLanguage(_ language: String, at time: Instant) {
        guard language != languages.current, languages.select(language) else { return }
        log("language: visitor chose \(language) (\(UIStrings.name(of: language)))")
        collectDecisions()
        if var stack = deck as? StackDeck {
            accessControl.labels = AccessibilityControl.Labels(language: languages.current)
            // Another direction may move the keys (and the card with them) and "Aa" off the staff corner.
            var options = Self.stackOptions(texts, buttons: settings.showsButtons)
            options.reserved = Self.stackReserved(
                onScreen, metrics: metrics, staffCorner: staffRule, direction: languages.direction)
            stack.relocalize(visitOrder.map { $0.localized(to: languages.current) }, options: options, at: time)
            placeAccessControl()
            deck = stack
            effects.append(.redrawAll)
            return
        }
        let remaining = (deck as? ListDeck)?.cards ?? visitOrder
        rebuildDeck(cards: remaining, at: time)
    }
}
