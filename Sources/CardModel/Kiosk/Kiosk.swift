/// The kiosk's rules in one pure place: who gets a touch, what a key does, when a visit starts
/// and ends, which deck shows, what is stored, and what the screen shows.
///
/// It owns the visit's parts (the visitor session, the deck, the language choice, the
/// accessibility control and the switch scan, the staff entry and menu, the opening hours, the
/// held touch, the cooldown), takes inputs at explicit instants (`handle(_:at:)`) and returns
/// effects for the shell to perform (`KioskEffect`), and says when it next needs to be woken
/// (`nextDeadline(after:)`). No clock, no I/O: the app, `render`, `simulate` and the tests
/// drive the same rules (swift-nio's `ProtocolNegotiationHandlerStateMachine`: one mutating
/// function per input returning actions).
///
/// Touches go through one router (`TouchRouter`): each finger's owner is chosen at touch-down
/// from the layers front to back — staff menu › closed screen › language keys › accessibility
/// control › deck — and keeps it until it lifts. The visitor session sees every frame once.
/// Two fingers on two layers each reach their own: a finger resting on "Aa" does not stop a
/// second finger dragging a card. A layer that opens over the deck (the staff menu, the
/// accessibility panel) cancels the deck's fingers: the card springs back, and those fingers
/// reach nobody until they lift.
public struct Kiosk {
    /// What the kiosk's configuration says about its rules.
    public struct Settings: Hashable, Sendable {
        /// The stack shows its ✗ / ✓ / undo buttons.
        public var showsButtons: Bool
        /// A one-switch key is configured: the scan's ring is drawn and the switch scans.
        public var scansSwitch: Bool
        /// How long a held switch takes to select.
        public var switchHold: Double
        /// A staff PIN is set: the hidden corner gesture and the key combination open the menu.
        public var staffEnabled: Bool
        public var staffGesture: StaffEntry.Rule
        /// Every visit counts as accessible (the config's `accessible-mode`).
        public var accessibleMode: Bool
        /// The language the kiosk starts each visit in (nil: the deck's).
        public var configuredLanguage: String?
        /// Decks come from a fleet: one that arrives mid-visit waits for the visit to end.
        public var fleetDecks: Bool

        public init(
            showsButtons: Bool = true, scansSwitch: Bool = false, switchHold: Double = 0.8, staffEnabled: Bool = false,
            staffGesture: StaffEntry.Rule = .init(), accessibleMode: Bool = false, configuredLanguage: String? = nil,
            fleetDecks: Bool = false
        ) {
            self.showsButtons = showsButtons
            self.scansSwitch = scansSwitch
            self.switchHold = switchHold
            self.staffEnabled = staffEnabled
            self.staffGesture = staffGesture
            self.accessibleMode = accessibleMode
            self.configuredLanguage = configuredLanguage
            self.fleetDecks = fleetDecks
        }
    }

    public let settings: Settings
    public internal(set) var metrics: ScreenMetrics
    /// The deck file the kiosk runs (its schedule rules).
    public internal(set) var primary: KioskDeck
    /// The deck on screen: `primary`, or the deck a schedule window names.
    public internal(set) var onScreen: KioskDeck
    public internal(set) var languages: LanguageChoice
    public internal(set) var deck: any CardDeck
    public internal(set) var session: VisitorSession
    public internal(set) var accessControl: AccessibilityControl
    public internal(set) var scanner: SwitchScanner
    public internal(set) var staffEntry: StaffEntry
    public internal(set) var staffMenu = StaffMenu()
    /// Blanked from the staff menu: the next touch lights the panel and decides nothing.
    public internal(set) var staffBlanked = false
    /// The opening hours applied (nil: no schedule, always open).
    public internal(set) var hours: OpeningHours?
    /// Which deck the schedule's window wants shown, and whether it is.
    public internal(set) var rotation = DeckRotation()
    /// A window's deck read while a visitor was busy: shown when the visit ends.
    var readyDeck: KioskDeck?
    /// A fleet deck that arrived mid-visit: it replaces the deck when the visit ends.
    var fleetHeld: KioskDeck?
    /// The cards in the order this visit sees them; a decision's position is its index here.
    public internal(set) var visitOrder: [Card]
    var cooldown: DecisionCooldown
    /// Whether this visit had a mode of the accessibility control on.
    public internal(set) var visitUsedMode = false
    /// Whether this visitor asked for speech: the control then reads what its keys ring.
    public internal(set) var visitListens = false
    var heldTouch: HeldTouch
    var heldDue: Instant?
    var scheduleLookAt: Instant?
    /// What the deck was last told about the attract screen (nil: a visitor is here).
    var attractShownSince: Instant?
    /// The visit and the code last recorded as shown (`noteLinkShown`).
    var linkShown: LinkShown?
    var router = TouchRouter()
    /// The deck's fingers down (a gesture begins when the first lands).
    var deckContacts: Set<Int> = []
    var random: SplitMix64
    var effects: [KioskEffect] = []

    /// A kiosk showing `deck` on a screen of `metrics` at `time`; `seed` seeds every random
    /// choice it makes (card orders, the list's "+"), `newSessionID` names each visit.
    public init(
        deck file: KioskDeck, metrics: ScreenMetrics, settings: Settings, seed: UInt64, at time: Instant,
        newSessionID: @escaping () -> String
    ) {
        self.settings = settings
        self.metrics = metrics
        primary = file
        onScreen = file
        random = SplitMix64(seed: seed)
        let languages = LanguageChoice(
            offered: file.languages, deckLanguage: file.language, configured: settings.configuredLanguage)
        self.languages = languages
        cooldown = DecisionCooldown(seconds: file.cooldownSeconds)
        scanner = SwitchScanner(stepping: .perPress, longPress: settings.switchHold)
        staffEntry = StaffEntry(rule: settings.staffGesture, screen: metrics.size)
        heldTouch = HeldTouch(slop: metrics.touchSlop)
        accessControl = Self.control(for: file, metrics: metrics, language: languages.current)
        let policy = settings.accessibleMode ? file.policy.accessible() : file.policy
        session = VisitorSession(policy: policy, now: time, newSessionID: newSessionID)
        visitOrder = file.cards
        deck = StackDeck(cards: [], metrics: metrics)
        visitOrder = nextOrder(file)
        deck = makeDeck(cards: visitOrder, at: time)
        syncAttract(at: time)
        noteConfiguredLanguage(file)
        // Its log lines and the session's first event come with the first `handle`.
    }

    // MARK: Inputs

    /// Takes `input` at `time`; returns what the shell must do, in order.
    public mutating func handle(_ input: KioskInput, at time: Instant) -> [KioskEffect] {
        switch input {
        case .touch(let frame): touch(frame)
        case .key(let key): self.key(key, at: time)
        case .switchKey(let pressed): switchKey(pressed: pressed, at: time)
        case .language(let language): selectLanguage(language, at: time)
        case .staffKeys: staffKeysPressed(at: time)
        case .tick: advance(to: time)
        case .pinChecked(let correct): pinAnswered(correct, at: time)
        case .schedule(let open, let window, let again):
            applySchedule(open: open, window: window, again: again, at: time)
        case .deckArrived(let file, let fromFleet): deckArrived(file, fromFleet: fromFleet, at: time)
        case .primaryDeckChanged(let file): deckChanged(file, at: time)
        case .windowDeckLoaded(let path, let file): windowDeckLoaded(path: path, file, at: time)
        case .calibration(let target, let step, let count, let note):
            calibrationProgress(target: target, step: step, of: count, note: note, at: time)
        case .resize(let metrics): resize(metrics, at: time)
        case .shutdown:
            collectDecisions()
            session.endVisit(reason: .shutdown, at: time)
        }
        syncAttract(at: time)
        collectDecisions()
        flushVisits()
        noteLinkShown(at: time)
        return takeEffects()
    }

    /// When the kiosk next needs `handle(.tick)` (or a frame) without input: the session's
    /// timers and countdown, the deck's next attract nudge, the staff menu's, the opening
    /// hours', the switch's long press, the held touch and the schedule's next look.
    public func nextDeadline(after now: Instant) -> Instant? {
        var all: [Instant?] = [
            session.nextDeadline, session.warningTick(after: now), deck.nextWakeup, hours?.nextDeadline,
            scanner.nextWakeup, heldDue, scheduleLookAt,
        ]
        if settings.staffEnabled || staffMenu.isOpen { all += [staffEntry.nextDeadline, staffMenu.nextDeadline] }
        return all.compactMap { $0 }.min()
    }

    /// Whether a visitor is mid-visit.
    public var visitActive: Bool { session.phase == .active }

    /// The deck's words in the visitor's language.
    public var texts: KioskDeck.Texts { onScreen.texts(in: languages.current) }

    private mutating func takeEffects() -> [KioskEffect] {
        defer { effects = [] }
        return effects
    }

    mutating func log(_ text: String) { effects.append(.log(.info, text)) }
    mutating func warn(_ text: String) { effects.append(.log(.warning, text)) }

    // MARK: Touches

    private mutating func touch(_ frame: TouchFrame) {
        // The language keys are hit where they were drawn: large on the attract screen.
        let prominent = languageProminent
        var waking: Set<Int> = []
        let began = frame.contacts.filter { $0.phase == .began }
        if staffBlanked, !began.isEmpty {
            staffBlanked = false
            log("staff: touch, switching the panel on (blanked from the staff menu)")
            effects += [.power(on: true), .redrawAll]
            waking = Set(began.map(\.id))
        }
        // The session sees every frame once: visits, the countdown, the panel's power.
        let (deliver, sessionEffects) = session.handle(frame)
        apply(sessionEffects, at: frame.time)
        if settings.staffEnabled, !staffMenu.isOpen, waking.isEmpty { staffEntry.handle(frame) }
        let delivered = Set(deliver?.contacts.map(\.id) ?? [])
        // The owner each finger would get if it landed now, front to back (the router asks only
        // for fingers that begin); chosen before any layer acts on this frame.
        var candidates: [Int: TouchLayer] = [:]
        for c in frame.contacts {
            candidates[c.id] = layer(for: c, waking: waking, delivered: delivered, prominent: prominent)
        }
        let frames = router.route(frame) { candidates[$0.id] ?? .nobody }
        for layer in TouchLayer.allCases {
            guard let f = frames[layer] else { continue }
            switch layer {
            case .staff: staffTouch(f)
            case .closed: closedTouch(f)
            case .language:
                for c in f.contacts where c.phase == .began {
                    if let l = language(at: c.position, prominent: prominent) { selectLanguage(l, at: f.time) }
                }
            case .access:
                accessTouch(f)
                effects.append(.inputShown(at: f.time))
            case .deck:
                deckTouch(f)
                effects.append(.inputShown(at: f.time))
            case .nobody: break
            }
        }
    }

    /// The layer a finger landing as `c` belongs to, front to back.
    private func layer(for c: TouchContact, waking: Set<Int>, delivered: Set<Int>, prominent: Bool) -> TouchLayer {
        if waking.contains(c.id) { return .nobody }
        if staffMenu.isOpen { return .staff }
        if hours?.isClosed == true { return .closed }
        if !delivered.contains(c.id) { return .nobody }
        if language(at: c.position, prominent: prominent) != nil { return .language }
        if accessControl.claims(visitorPoint(c.position)) { return .access }
        return .deck
    }

    /// A point on the screen as the visitor's layout sees it (mirrored right to left).
    func visitorPoint(_ p: Point) -> Point {
        languages.direction == .rightToLeft ? Point(x: metrics.size.width - p.x, y: p.y) : p
    }

    mutating func deckTouch(_ frame: TouchFrame) {
        noteHeldTouch(frame)
        for c in frame.contacts {
            switch c.phase {
            case .began:
                if deckContacts.isEmpty { effects.append(.gestureBegan) }
                deckContacts.insert(c.id)
            case .moved: deckContacts.insert(c.id)
            case .ended, .cancelled: deckContacts.remove(c.id)
            }
        }
        if frame.contacts.allSatisfy({ $0.phase == .cancelled }) {
            deck.cancelTouches(at: frame.time)
        } else {
            deck.handle(languages.direction == .rightToLeft ? frame.mirrored(width: metrics.size.width) : frame)
        }
    }

    /// The deck's fingers are cancelled: a layer opened in front of it.
    mutating func coverDeck(at time: Instant) {
        deck.cancelTouches(at: time)
        router.release(.deck)
        router.release(.access)
        router.release(.language)
        deckContacts = []
        heldDue = nil
    }

    /// A finger held still on the deck for `HeldTouch.holdSeconds` reads the card.
    mutating func noteHeldTouch(_ frame: TouchFrame) {
        if heldTouch.slop != metrics.touchSlop { heldTouch = HeldTouch(slop: metrics.touchSlop) }
        heldDue = heldTouch.take(frame)
    }

    // MARK: Time

    private mutating func advance(to now: Instant) {
        apply(session.advance(to: now), at: now)
        if settings.staffEnabled || staffMenu.isOpen {
            if staffEntry.advance(to: now) {
                log("staff: hidden gesture made, showing the PIN pad")
                openStaffMenu(at: now)
            }
            if let output = staffMenu.advance(to: now) { staffApply(output, at: now) }
        }
        if var h = hours {
            let e = h.advance(to: now)
            hours = h
            applyHours(e, at: now)
        }
        if scanner.nextWakeup.map({ $0 <= now }) == true, let accessible = deck as? any AccessibleDeck {
            if let chosen = scanner.advance(to: now, choices: accessible.scanChoices(with: accessControl)) {
                selectScanned(chosen, at: now)
            } else {
                accessControl.follow(scanner)
            }
        }
        if let due = heldDue, due <= now {
            heldDue = nil
            if heldTouch.fire(at: now), let accessible = deck as? any AccessibleDeck {
                log("speech: finger held still \(Int(HeldTouch.holdSeconds)) s, reading the card")
                read(accessible.spokenText)
            }
        }
        if let at = scheduleLookAt, at <= now {
            scheduleLookAt = nil
            effects.append(.lookAtSchedule)
        }
    }

    // MARK: The visit

    mutating func apply(_ sessionEffects: [VisitorSession.Effect], at time: Instant) {
        for effect in sessionEffects {
            switch effect {
            case .reset(let id):
                log("session: idle, resetting for the next visitor (session \(id))")
                let fleetNext = fleetHeld  // a fleet deck that waited for this visit
                fleetHeld = nil
                if let ready = readyDeck {
                    readyDeck = nil
                    log("schedule: the visit ended, switching to \(ready.summary)")
                    show(ready, at: time)
                } else {
                    startVisit(at: time)
                }
                if let next = fleetNext { deckChanged(next, at: time) }
                effects.append(.lookAtSchedule)  // a closing or a deck switch that waited for this visit
            case .warningShown(let resetAt):
                log(
                    "session: idle, countdown shown (\(decimalText(resetAt.seconds(since: time), decimals: 1)) s to the reset)"
                )
            case .warningExtended(let count):
                log("session: countdown extended by a touch or key (\(count) time\(count == 1 ? "" : "s") this visit)")
            case .discardVisit(let id):
                log("session: visit \(id) timed out; its decisions are marked discarded (partialVisit: discard)")
                collectDecisions()
                effects.append(.discardVisit(sessionID: id))
            case .blank:
                log("session: idle, switching the panel off")
                effects.append(.power(on: false))
            case .wake:
                log("session: touch, switching the panel on")
                effects += [.power(on: true), .redrawAll]
            }
        }
    }

    /// The next visitor's deck: a fresh card order, cooldown, language and modes.
    mutating func startVisit(at time: Instant) {
        visitOrder = nextOrder(onScreen)
        cooldown = DecisionCooldown(seconds: onScreen.cooldownSeconds)
        resetAccessibility()  // before a rebuild, which carries the control's modes over
        let before = languages.current
        languages.resetForNextVisitor()
        if before != languages.current {
            rebuildDeck(at: time)
        } else {
            deck.reset(cards: visitOrder.map { $0.localized(to: languages.current) }, at: time)
        }
    }

    /// A new visit's card order: the deck's order with a fresh seed (logged, so the order can
    /// be reproduced with `VisitOrder.order(_:seed:)`).
    private mutating func nextOrder(_ file: KioskDeck) -> [Card] {
        guard file.order.shuffle else { return file.cards }
        let seed = random.next()
        let order = file.order.order(file.cards, seed: seed)
        log("deck: visit order seed \(seed): \(order.map(\.id).joined(separator: " "))")
        return order
    }

    /// Tells the deck whether the attract screen is up, when the session's phase changed.
    mutating func syncAttract(at time: Instant) {
        let since = session.phase == .attract ? (session.attractSince ?? time) : nil
        guard since != attractShownSince else { return }
        attractShownSince = since
        deck.setAttract(since: since, at: time)
    }

    /// The decisions the deck completed, with their visit's context; `method` is how they were
    /// given when the deck cannot tell.
    mutating func collectDecisions(method: InputMethod? = nil) {
        let decisions = deck.takeDecisions()
        guard !decisions.isEmpty else { return }
        for var d in decisions {
            if d.method == nil { d.method = method }
            session.noteActivity(at: d.time)
            flushVisits()
            syncAttract(at: d.time)
            effects.append(
                .decision(
                    KioskDecision(
                        decision: d, sessionID: session.sessionID, deckID: onScreen.id, deckVersion: onScreen.version,
                        tooFast: cooldown.isTooFast(d), language: languages.current,
                        accessibilityMode: visitUsedMode || settings.accessibleMode)))
        }
        session.deckCompleted = deck.isCompleted
    }

    /// The session's visit events, in order, for the store.
    private mutating func flushVisits() {
        effects += session.takeVisitEvents().map { .visit($0) }
    }

    // MARK: Decks

    /// A deck of `cards` (the visit's order by default) in the visitor's language, for this screen.
    private mutating func makeDeck(cards: [Card]? = nil, at time: Instant) -> any CardDeck {
        let language = languages.current
        let made = Self.makeDeck(
            onScreen, language: language, cards: (cards ?? visitOrder).map { $0.localized(to: language) },
            metrics: metrics, buttons: settings.showsButtons, seed: random.next(),
            staffCorner: settings.staffEnabled ? settings.staffGesture : nil)
        // In the list the staff corner stays inside the title bar, beside its controls (or in
        // the bottom band, where "Aa" takes the other corner).
        staffEntry.cornerLimit = (made as? ListDeck)?.layout.titleBarHeight
        placeAccessControl()
        return made
    }

    /// The deck model for `file` as a visitor reading `language` sees it: `cards` (already in
    /// that language; default: the file's), laid out for `metrics`. `seed` seeds the list's "+".
    /// `staffCorner`: the staff entry's rule, whose corner the list's bar controls and the
    /// stack's language keys keep clear of.
    public static func makeDeck(
        _ file: KioskDeck, language: String? = nil, cards: [Card]? = nil, metrics: ScreenMetrics, buttons: Bool,
        seed: UInt64 = 0, staffCorner: StaffEntry.Rule? = nil
    ) -> any CardDeck {
        let language = language ?? file.language
        let texts = file.texts(in: language)
        let cards = cards ?? file.cards.map { $0.localized(to: language) }
        switch file.layout {
        case .stack:
            var options = stackOptions(texts, buttons: buttons)
            options.reserved = stackReserved(
                file, metrics: metrics, staffCorner: staffCorner, direction: LayoutDirection(language: language))
            return StackDeck(cards: cards, metrics: metrics, options: options)
        case .list:
            return ListDeck(
                cards: cards, metrics: metrics, title: texts.title, attractText: texts.attractText,
                emptyText: texts.emptyText, randomSeed: seed,
                layout: listLayout(file, language: language, metrics: metrics, staffCorner: staffCorner),
                deleteLabel: UIStrings.text(.delete, in: language))
        }
    }

    /// What the stack's card and buttons keep clear of: the language keys at their largest, as
    /// a visitor reading `direction` sees them (they keep clear of the staff corner).
    static func stackReserved(
        _ file: KioskDeck, metrics: ScreenMetrics, staffCorner: StaffEntry.Rule?, direction: LayoutDirection
    ) -> Rect? {
        let choice = LanguageChoice(offered: file.languages, deckLanguage: file.language, configured: nil)
        return choice.block(
            screen: metrics.safeSize,
            placement: languagePlacement(.stack, metrics: metrics, staffCorner: staffCorner, direction: direction),
            minimumSide: StackLayout.targetSide(pointsPerMillimetre: metrics.pointsPerMillimetre))
    }

    /// The stack's words and whether it shows buttons.
    static func stackOptions(_ texts: KioskDeck.Texts, buttons: Bool) -> StackOptions {
        var options = StackOptions(
            emptyText: texts.emptyText, showButtons: buttons, leftLabel: texts.leftLabel,
            rightLabel: texts.rightLabel, attractText: texts.attractText)
        options.emptyLink = texts.emptyLink
        return options
    }

    static func control(for file: KioskDeck, metrics: ScreenMetrics, language: String) -> AccessibilityControl {
        var c = AccessibilityControl(
            screen: metrics.size, pointsPerMillimetre: metrics.pointsPerMillimetre, trailing: file.layout == .list)
        c.labels = AccessibilityControl.Labels(language: language)
        return c
    }

    /// The deck made again in the current language, with `cards` (by default the visit's order).
    mutating func rebuildDeck(cards: [Card]? = nil, at time: Instant) {
        accessControl.labels = AccessibilityControl.Labels(language: languages.current)
        let attract = attractShownSince
        deck = makeDeck(cards: cards, at: time)
        router.release(.deck)
        deckContacts = []
        // The visitor's accessibility modes stay on in the new language.
        if accessControl.modes.isAnyOn { deck.setAccessibility(accessControl.modes, at: time) }
        if let attract { deck.setAttract(since: attract, at: time) }
        effects.append(.redrawAll)
    }

    /// Puts `file` on screen: the visit in progress ends, the next one sees the new deck.
    mutating func show(_ file: KioskDeck, at time: Instant) {
        collectDecisions()
        session.endVisit(reason: .reset, at: time)
        flushVisits()
        effects.append(.deckShown(file))
        onScreen = file
        visitOrder = nextOrder(file)
        cooldown = DecisionCooldown(seconds: file.cooldownSeconds)
        languages = LanguageChoice(
            offered: file.languages, deckLanguage: file.language, configured: settings.configuredLanguage)
        noteConfiguredLanguage(file)
        accessControl = Self.control(for: file, metrics: metrics, language: languages.current)
        rebuildDeck(at: time)
        attractShownSince = nil
        syncAttract(at: time)
        resetAccessibility()  // also the session policy for the new deck
        effects.append(.lookAtSchedule)
    }

    /// A changed deck file: a fleet deck waits while a visitor is mid-visit (the visit ends on
    /// the deck it began with, like a closing time); a local edit applies at once.
    private mutating func deckArrived(_ file: KioskDeck, fromFleet: Bool, at time: Instant) {
        guard fromFleet, settings.fleetDecks else { return deckChanged(file, at: time) }
        if file == primary {
            fleetHeld = nil  // e.g. a rollback while the newer deck was still waiting
        } else if visitActive {
            fleetHeld = file
            log("deck: \(file.summary) arrived from the fleet; it replaces the deck when this visit ends")
        } else {
            fleetHeld = nil
            deckChanged(file, at: time)
        }
    }

    /// The kiosk's own deck changed (hot reload, the staff menu's reload): its schedule may want
    /// another deck now; without a window deck on screen it is shown at once.
    private mutating func deckChanged(_ file: KioskDeck, at time: Instant) {
        log("deck: reloaded \(file.summary)")
        primary = file
        if rotation.shown == nil {
            show(file, at: time)
        } else {
            effects.append(.lookAtSchedule)
        }
    }

    private mutating func resize(_ newMetrics: ScreenMetrics, at time: Instant) {
        collectDecisions()
        session.endVisit(reason: .reset, at: time)
        flushVisits()
        metrics = newMetrics
        staffEntry.screen = newMetrics.size
        router.reset()
        accessControl = Self.control(for: onScreen, metrics: metrics, language: languages.current)
        rebuildDeck(at: time)
        resetAccessibility()
        attractShownSince = nil
        syncAttract(at: time)
    }

    // MARK: Opening hours

    private mutating func applySchedule(open: Bool, window: String?, again: Instant?, at time: Instant) {
        scheduleLookAt = again
        guard let schedule = primary.schedule else {
            if hours?.isClosed == true { applyHours([.open], at: time) }
            hours = nil
            rotate(to: nil, at: time)
            return
        }
        var h = hours ?? OpeningHours(blankWhenClosed: schedule.blankWhenClosed, wakeOnTouch: schedule.wakeOnTouch)
        h.blankWhenClosed = schedule.blankWhenClosed
        h.wakeOnTouch = schedule.wakeOnTouch
        if open { rotate(to: window, at: time) }
        let e = h.update(open: open, visitActive: visitActive, at: time)
        hours = h
        applyHours(e, at: time)
        if !open && visitActive && !h.isClosed { log("schedule: closing time; waiting for the visitor to finish") }
    }

    /// Shows the deck the open window names (`wanted`, nil: the kiosk's own) when no visit is
    /// under way; otherwise the visit's end looks again. A named deck is read by the shell.
    private mutating func rotate(to wanted: String?, at time: Instant) {
        switch rotation.update(wanted: wanted, visitActive: visitActive) {
        case .keep: break
        case .wait(let path):
            if readyDeck == nil {
                log("schedule: next window shows \(path ?? primary.path); waiting for the visitor to finish")
            }
        case .switchTo(nil):
            readyDeck = nil
            log("schedule: window without a deck of its own, showing \(primary.summary)")
            show(primary, at: time)
        case .switchTo(let path?):
            readyDeck = nil
            log("schedule: window for \(path), reading it")
            effects.append(.loadDeck(path: path))
        }
    }

    /// A window's deck, read: shown now, or at the end of the visit that began while it was read.
    private mutating func windowDeckLoaded(path: String, _ file: KioskDeck, at time: Instant) {
        guard rotation.shown == path else { return }  // another window came meanwhile
        if visitActive {
            readyDeck = file
            log("schedule: \(file.summary) ready; waiting for the visitor to finish")
        } else {
            log("schedule: switching to \(file.summary)")
            show(file, at: time)
        }
    }

    /// While closed every touch is the closed screen's: it may wake the panel, it decides nothing.
    mutating func closedTouch(_ frame: TouchFrame) {
        guard frame.contacts.contains(where: { $0.phase == .began }) else { return }
        wakeClosedScreen(at: frame.time)
    }

    mutating func wakeClosedScreen(at time: Instant) {
        guard var h = hours, h.isClosed else { return }
        let (_, e) = h.touch(at: time)
        hours = h
        applyHours(e, at: time)
        effects.append(.lookAtSchedule)
    }

    private mutating func applyHours(_ hourEffects: [OpeningHours.Effect], at time: Instant) {
        for effect in hourEffects {
            switch effect {
            case .close(let blank):
                log("schedule: closed — \(blank ? "switching the panel off" : "showing the closed-hours screen")")
                if blank { effects.append(.power(on: false)) }
                coverDeck(at: time)
                effects.append(.redrawAll)
            case .open:
                log("schedule: open — \(onScreen.summary)")
                effects.append(.power(on: true))
                startVisit(at: time)
                effects.append(.redrawAll)
            case .wake:
                log("schedule: touch while closed, showing the closed-hours screen")
                effects += [.power(on: true), .redrawAll]
            case .blank:
                log("schedule: closed screen left alone, switching the panel off")
                effects.append(.power(on: false))
            }
        }
    }

    // MARK: Keys

    private mutating func key(_ key: AccessKey, at time: Instant) {
        if staffMenu.isOpen {
            // Every key is the menu's: Escape closes it, the others do nothing.
            if key == .escape {
                log("staff: Escape, menu closed")
                staffMenu.close()
            }
            return
        }
        if hours?.isClosed == true {
            apply(session.handleKey(at: time).effects, at: time)
            wakeClosedScreen(at: time)
            return
        }
        let (deliver, sessionEffects) = session.handleKey(at: time)
        apply(sessionEffects, at: time)
        syncAttract(at: time)
        guard deliver else { return }
        flushVisits()
        // The accessibility control first: its key opens it, and while it is open it has every key.
        accessKey(key.inDirection(languages.direction), at: time)
        collectDecisions(method: .key)
        effects.append(.inputShown(at: time))
    }
}
