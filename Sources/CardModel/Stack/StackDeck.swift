#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The swipeable card stack (the SwiftUI design's stack): touches and commands in, a scene and decisions out.
///
/// Cards are kept top first. Each card carries its own springs (drag translation, depth in the
/// stack, opacity), so a card grabbed mid-flight, a stack closing up under a flying card and an
/// undo that catches a card still on its way out all continue from where they are.
public struct StackDeck: CardDeck, IntakeDrivenDeck {
    struct Entry: Hashable, Sendable {
        var card: Card
        /// The SwiftUI design's drag translation (finger space): the card shows (x, y/12), x/20 degrees.
        var drag: AnimatedPoint
        /// 0 for the top card; springs to the card's index when the stack changes.
        var depth: AnimatedValue
        var opacity: AnimatedValue

        init(card: Card, depth: Int) {
            self.card = card
            drag = AnimatedPoint(.zero, restDistance: 0.05)
            self.depth = AnimatedValue(Double(depth), restDistance: 0.001)
            opacity = AnimatedValue(1, restDistance: 0.002)
        }

        func isMoving(at t: Instant) -> Bool {
            drag.isMoving(at: t) || depth.isMoving(at: t) || opacity.isMoving(at: t)
        }

        mutating func settle(at t: Instant) {
            drag.settle(at: t)
            depth.settle(at: t)
            opacity.settle(at: t)
        }
    }

    /// A card on its way out (flying to a side, or fading when removed).
    struct Departure: Hashable, Sendable {
        var entry: Entry
        var action: DecisionAction
    }

    struct UndoRecord: Hashable, Sendable {
        var card: Card
        var action: DecisionAction
        var time: Instant
    }

    enum Grab: Hashable, Sendable {
        case none
        /// The finger holds the top card, which was at `base` when touched.
        case card(id: String, base: Point)
        case button(ButtonRole)
        /// The finger is down but acts on nothing until it lifts.
        case ignored
    }

    public let metrics: ScreenMetrics
    public private(set) var options: StackOptions
    public private(set) var layout: StackLayout
    private(set) var cards: [Entry] = []
    private(set) var departures: [Departure] = []
    private var history: [UndoRecord] = []
    var intake: GestureIntake
    var recognizer: DragRecognizer { intake.recognizer }
    private(set) var grab: Grab = .none
    private var decisions: [Decision] = []
    /// When the current top card became top; set by the first call that carries a time.
    private var topSince: Instant?
    private var now: Instant = .zero
    /// Cards in the stack at the last reset: the top card's position is this minus the stack's size.
    private var visitCardCount = 0
    /// How the action being performed was given (set around `perform` from a button tap).
    private var performMethod: InputMethod?
    /// When the attract screen appeared; nil while a visitor uses the deck.
    private(set) var attractSince: Instant?
    /// When the attract screen this visit began on appeared, until the visitor has done anything
    /// but decide the first card: the first card was on show to this visitor from then, so a
    /// decision that is the visit's very first gesture counts its time to decide from here, not
    /// from the touch that made it (which would make every such answer look instant).
    private var firstCardShownSince: Instant?
    /// When the attract screen ended (the visit's first touch or action, wherever it went); nil
    /// while attracting. A touch or action after it means the visit's first gesture was not the
    /// decision on the first card.
    private var visitBeganAt: Instant?
    static let historyLimit = 100
    /// What the visitor switched on for this visit (`setAccessibility`); reset with the deck.
    public private(set) var accessibility = VisitAccessibility()
    /// The cards as the deck file has them, by (uniqued) id, so a mode switched off restores them.
    private var originals: [String: Card] = [:]

    /// The spring every card motion uses: the SwiftUI default, or in reduced motion a
    /// critically damped one (WCAG 2.3.3: no overshoot, no bounce).
    var spring: Spring { accessibility.reducedMotion ? VisitAccessibility.calmSpring : .default }
    /// A release's velocity, or none in reduced motion (a flung card would overshoot even a
    /// critically damped spring).
    func carried(_ v: Point) -> Point { accessibility.reducedMotion ? .zero : v }

    public init(cards: [Card], metrics: ScreenMetrics, options: StackOptions = .init()) {
        self.metrics = metrics
        self.options = options
        layout = StackLayout(
            screen: metrics.safeSize, showButtons: options.showButtons,
            pointsPerMillimetre: metrics.pointsPerMillimetre, reserved: options.reserved)
        intake = GestureIntake(slop: metrics.touchSlop)
        self.cards = Self.entries(cards)
        originals = Dictionary(self.cards.map { ($0.card.id, $0.card) }, uniquingKeysWith: { a, _ in a })
        visitCardCount = self.cards.count
        checkInvariants()
    }

    /// Switches the visit's modes: the cards are shown again from their originals with
    /// `VisitAccessibility.card` (large text, high contrast) and from now on the motion follows
    /// `reducedMotion`; positions, history and decisions are kept.
    public mutating func setAccessibility(_ modes: VisitAccessibility, at time: Instant) {
        note(time)
        accessibility = modes
        func restyle(_ c: Card) -> Card { modes.card(originals[c.id] ?? c, backdrop: Self.background) }
        for i in cards.indices { cards[i].card = restyle(cards[i].card) }
        for i in departures.indices { departures[i].entry.card = restyle(departures[i].entry.card) }
        for i in history.indices { history[i].card = restyle(history[i].card) }
        checkInvariants()
    }

    /// The same visit in another language: each card — in the stack, flying out, in the undo
    /// history — takes the texts of the card with its id in `visitCards` (the visit's cards in
    /// their order, translated), shown through the visit's modes; the swipe labels and the
    /// empty and attract texts come from `options` (its `showButtons` is the deck's own; another
    /// `reserved`, the keys of another direction, lays the stack out again).
    /// Positions, springs, the undo history and decisions not yet taken are kept.
    public mutating func relocalize(_ visitCards: [Card], options newOptions: StackOptions, at time: Instant) {
        note(time)
        for card in uniquingIDs(visitCards) where originals[card.id] != nil { originals[card.id] = card }
        let modes = accessibility
        func restyle(_ c: Card) -> Card { modes.card(originals[c.id] ?? c, backdrop: Self.background) }
        for i in cards.indices { cards[i].card = restyle(cards[i].card) }
        for i in departures.indices { departures[i].entry.card = restyle(departures[i].entry.card) }
        for i in history.indices { history[i].card = restyle(history[i].card) }
        var kept = newOptions
        kept.showButtons = options.showButtons
        if kept.reserved != options.reserved {
            // The language keys moved (another direction): the card and buttons move with them.
            layout = StackLayout(
                screen: metrics.safeSize, showButtons: kept.showButtons,
                pointsPerMillimetre: metrics.pointsPerMillimetre, reserved: kept.reserved)
        }
        options = kept
        checkInvariants()
    }

    private static func entries(_ cards: [Card]) -> [Entry] {
        uniquingIDs(cards).enumerated().map { Entry(card: $0.element, depth: $0.offset) }
    }

    /// The cards still in the stack, top first.
    public var remainingCards: [Card] { cards.map(\.card) }

    public var canUndo: Bool { !history.isEmpty }

    public var isCompleted: Bool { cards.isEmpty && visitCardCount > 0 }

    // MARK: Input

    public mutating func handle(_ frame: TouchFrame) {
        note(frame.time)
        drainIntake { $0.take(frame) }
    }

    public mutating func cancelTouches(at time: Instant) {
        note(time)
        drainIntake { $0.cancel(at: time) }
    }

    mutating func apply(_ event: DragRecognizer.Event) {
        switch event {
        case .down(let p, let t):
            if let began = visitBeganAt, t > began { firstCardShownSince = nil }
            if let role = layout.button(at: p) {
                grab = .button(role)
            } else if !cards.isEmpty {
                // A card caught mid-nudge stays under the finger; the visitor ends the hint.
                let base = cards[0].drag.value(at: t) + Point(x: hintOffset(at: t), y: 0)
                attractSince = nil
                cards[0].drag.set(base)
                grab = .card(id: cards[0].card.id, base: base)
            } else {
                grab = .ignored
            }
        case .dragBegan, .moved:
            break
        case .ended(let end):
            switch grab {
            case .card(let id, let base) where cards.first?.card.id == id:
                let shown = base + recognizer.shownTranslation(at: end.time)
                let side = StackLayout.dismissDirection(
                    translation: base + end.translation, predictedEnd: base + end.predictedEndTranslation)
                cards[0].drag.set(shown)
                grab = .none
                if let side {
                    performMethod = .swipe
                    dismissTop(side, at: end.time, velocity: end.velocity)
                    performMethod = nil
                } else {
                    cards[0].drag.animate(to: .zero, at: end.time, spring: spring, velocity: carried(end.velocity))
                }
            case .button(let role):
                grab = .none
                if end.isTap, layout.frame(of: role)?.contains(end.location) == true {
                    performMethod = .button
                    perform(role.action, at: end.time)
                    performMethod = nil
                }
            default:
                grab = .none
            }
            // A touch that ended without deciding (a tap to start): the visitor is here from now.
            firstCardShownSince = nil
        case .cancelled(let t):
            if case .card(let id, let base) = grab, cards.first?.card.id == id {
                cards[0].drag.set(base + recognizer.shownTranslation(at: t))
                cards[0].drag.animate(to: .zero, at: t, spring: spring, velocity: .zero)
            }
            grab = .none
            firstCardShownSince = nil
        }
    }

    // MARK: Commands

    public mutating func perform(_ action: DeckAction, at time: Instant) {
        note(time)
        // A key or switch after the visit began (a button tap's own touch was judged at its down).
        if performMethod == nil, let began = visitBeganAt, time > began { firstCardShownSince = nil }
        // An action takes the card from the finger: it springs back and the finger acts on
        // nothing more until it lifts.
        if case .card(let id, let base) = grab {
            if cards.first?.card.id == id {
                cards[0].drag.set(base + recognizer.shownTranslation(at: time))
                cards[0].drag.animate(to: .zero, at: time, spring: spring, velocity: .zero)
            }
            grab = .ignored
        }
        switch action {
        case .dismissLeft:
            if !cards.isEmpty { dismissTop(.left, at: time, velocity: .zero) }
        case .dismissRight:
            if !cards.isEmpty { dismissTop(.right, at: time, velocity: .zero) }
        case .remove:
            if !cards.isEmpty { removeTop(at: time) }
        case .undo:
            undo(at: time)
        case .open, .back, .add, .focusNext, .focusPrevious:
            break
        }
        checkInvariants()
    }

    private mutating func dismissTop(_ side: DismissDirection, at t: Instant, velocity: Point) {
        var e = cards.removeFirst()
        let from = e.drag.value(at: t)
        let x = side == .right ? layout.flyOutDistance : -layout.flyOutDistance
        e.drag.animate(to: Point(x: x, y: from.y), at: t, spring: spring, velocity: carried(velocity))
        e.depth.animate(to: 0, at: t, spring: spring)
        depart(e, action: side == .right ? .swipedRight : .swipedLeft, at: t)
    }

    private mutating func removeTop(at t: Instant) {
        var e = cards.removeFirst()
        e.drag.animate(to: e.drag.value(at: t), at: t, spring: spring, velocity: .zero)
        e.depth.animate(to: 0, at: t, spring: spring)
        e.opacity.animate(to: 0, at: t, spring: spring)
        depart(e, action: .removed, at: t)
    }

    private mutating func depart(_ e: Entry, action: DecisionAction, at t: Instant) {
        departures.append(Departure(entry: e, action: action))
        // `e` has left `cards` already: it was shown at the position one past what is left.
        let position = max(0, visitCardCount - cards.count - 1)
        // Time to decide counts from when the card was shown to this visitor: when it became the
        // top card, or for a first card decided by the visit's first gesture, when the attract
        // screen showing it appeared.
        let dwellSeconds = firstCardShownSince.map { max(0, t.seconds(since: $0)) } ?? dwell(until: t)
        firstCardShownSince = nil
        decisions.append(
            Decision(
                cardID: e.card.id, action: action, time: t, dwellSeconds: dwellSeconds, position: position,
                method: performMethod))
        history.append(UndoRecord(card: e.card, action: action, time: t))
        if history.count > Self.historyLimit { history.removeFirst() }
        topSince = t
        restack(at: t)
    }

    private mutating func undo(at t: Instant) {
        guard let record = history.popLast() else { return }
        var entry: Entry
        if let k = departures.firstIndex(where: { $0.entry.card.id == record.card.id }) {
            entry = departures.remove(at: k).entry
        } else {
            entry = Entry(card: record.card, depth: 0)
            switch record.action {
            case .swipedLeft: entry.drag.set(Point(x: -layout.flyOutDistance, y: 0))
            case .swipedRight: entry.drag.set(Point(x: layout.flyOutDistance, y: 0))
            default: entry.opacity.set(0)
            }
        }
        entry.drag.animate(to: .zero, at: t, spring: spring, velocity: carried(entry.drag.velocity(at: t)))
        entry.opacity.animate(to: 1, at: t, spring: spring)
        cards.insert(entry, at: 0)
        decisions.append(
            Decision(
                cardID: record.card.id, action: .undone, time: t, dwellSeconds: max(0, t.seconds(since: record.time)),
                position: max(0, visitCardCount - cards.count), method: performMethod))
        topSince = t
        firstCardShownSince = nil
        restack(at: t)
    }

    /// Every card springs to its new depth.
    private mutating func restack(at t: Instant) {
        for i in cards.indices where cards[i].depth.target != Double(i) {
            if i <= StackLayout.visibleDepth {
                cards[i].depth.animate(to: Double(i), at: t, spring: spring)
            } else {
                cards[i].depth.set(Double(i))
            }
        }
    }

    private func dwell(until t: Instant) -> Double { max(0, t.seconds(since: topSince ?? t)) }

    // MARK: Output

    public mutating func takeDecisions() -> [Decision] {
        defer { decisions.removeAll() }
        return decisions
    }

    public mutating func reset(cards newCards: [Card], at time: Instant) {
        note(time)
        cards = Self.entries(newCards)
        originals = Dictionary(cards.map { ($0.card.id, $0.card) }, uniquingKeysWith: { a, _ in a })
        // The next visitor starts with every mode off (the modes last one visit).
        accessibility = VisitAccessibility()
        visitCardCount = cards.count
        departures.removeAll()
        history.removeAll()
        if grab != .none { grab = .ignored }
        topSince = time
        checkInvariants()
    }

    public var nextWakeup: Instant? {
        if isAnimating(at: now) { return now }
        return nextHint(after: now)
    }

    // MARK: Attract hint

    /// Between visitors the top card nudges to the right and back now and then, hinting that
    /// it can be swiped: first `hintDelay` seconds after the attract screen appears, then every
    /// `hintPeriod` seconds, each nudge lasting `hintDuration` seconds and peaking near
    /// `hintAmplitude` points.
    static let hintDelay = 1.5
    static let hintPeriod = 6.0
    static let hintDuration = 1.4
    static let hintAmplitude = 40.0

    public mutating func setAttract(since start: Instant?, at time: Instant) {
        note(time)
        if start == nil, !cards.isEmpty {
            // Whatever the nudge shows now springs home from where it is (no jump).
            let h = hintOffset(at: time)
            if h != 0 {
                cards[0].drag.set(Point(x: h, y: 0))
                cards[0].drag.animate(to: .zero, at: time, spring: spring)
            }
        }
        // The visitor's first touch or action ends the attract screen: the top card's dwell
        // (time to decide) counts from then, not from the reset before the attract screen —
        // unless that first touch itself decides the card (`firstCardShownSince`). The deck may
        // have seen that touch already (and stopped its nudge): what it was told decides.
        if let start {
            firstCardShownSince = start
            visitBeganAt = nil
        } else if visitBeganAt == nil {
            visitBeganAt = time
            topSince = time
        }
        attractSince = start
        checkInvariants()
    }

    public var attractText: String {
        get { options.attractText }
        set { options.attractText = newValue }
    }

    /// The nudge's horizontal offset at `t`: sin(2πu)·(1−u)·A over the nudge (out to the right,
    /// a smaller swing back to the left, home), 0 between nudges or while anything else moves.
    func hintOffset(at t: Instant) -> Double {
        guard let start = attractSince, grab == .none, departures.isEmpty, !cards.isEmpty else { return 0 }
        let e = t.seconds(since: start) - Self.hintDelay
        guard e >= 0 else { return 0 }
        let phase = e.truncatingRemainder(dividingBy: Self.hintPeriod)
        guard phase < Self.hintDuration else { return 0 }
        let u = phase / Self.hintDuration
        return Self.hintAmplitude * sin(2 * Double.pi * u) * (1 - u) * 1.5
    }

    /// Whether a nudge is under way at `t`.
    func isHinting(at t: Instant) -> Bool {
        guard let start = attractSince, grab == .none, departures.isEmpty, !cards.isEmpty else { return false }
        let e = t.seconds(since: start) - Self.hintDelay
        return e >= 0 && e.truncatingRemainder(dividingBy: Self.hintPeriod) < Self.hintDuration
    }

    /// The start of the next nudge after `t`, when attracting.
    func nextHint(after t: Instant) -> Instant? {
        guard let start = attractSince, grab == .none, departures.isEmpty, !cards.isEmpty else { return nil }
        let first = start.advanced(bySeconds: Self.hintDelay)
        if t < first { return first }
        let n = (t.seconds(since: first) / Self.hintPeriod).rounded(.down) + 1
        return first.advanced(bySeconds: n * Self.hintPeriod)
    }

    private mutating func note(_ t: Instant) {
        if topSince == nil { topSince = t }
        if t > now { now = t }
    }

    /// The drag translation the top card shows at `t` (the finger's, resampled, while held).
    func shownDrag(of index: Int, at t: Instant) -> Point {
        if index == 0, case .card(let id, let base) = grab, cards[0].card.id == id {
            return base + recognizer.shownTranslation(at: t)
        }
        let hint = index == 0 ? Point(x: hintOffset(at: t), y: 0) : .zero
        return cards[index].drag.value(at: t) + hint
    }

    var isHoldingCard: Bool {
        if case .card(let id, _) = grab { return cards.first?.card.id == id }
        return false
    }

    func isAnimating(at t: Instant) -> Bool {
        if !departures.isEmpty || isHinting(at: t) { return true }
        if isHoldingCard && recognizer.resampler.isMoving(at: t) { return true }
        return cards.prefix(StackLayout.visibleDepth + 1).contains { $0.isMoving(at: t) }
    }

    public mutating func scene(at time: Instant) -> Scene {
        note(time)
        let screen = Rect(origin: .zero, size: layout.screen)
        let layout = self.layout
        departures.removeAll { d in
            let e = d.entry
            if !e.isMoving(at: time) { return true }
            if e.opacity.target == 0 && e.opacity.value(at: time) <= 0 { return true }
            let element = Self.cardElement(
                e.card, layout: layout, drag: e.drag.value(at: time), depth: e.depth.value(at: time), z: 0,
                turns: !accessibility.reducedMotion)
            return element.bounds.intersection(screen).isEmpty
        }
        for i in cards.indices.prefix(StackLayout.visibleDepth + 1) { cards[i].settle(at: time) }
        checkInvariants()
        return Scene(
            size: layout.screen, background: Self.background, elements: elements(at: time),
            isAnimating: isAnimating(at: time))
    }

    static let background = Color(rgb: 0xF2F2F7)

    private func cardElement(_ card: Card, drag: Point, depth: Double, z: Int) -> SceneElement {
        Self.cardElement(card, layout: layout, drag: drag, depth: depth, z: z, turns: !accessibility.reducedMotion)
    }

    private static func cardElement(
        _ card: Card, layout: StackLayout, drag: Point, depth: Double, z: Int, turns: Bool
    )
        -> SceneElement
    {
        var card = card
        if card.link != nil { card.linkCodeSide = layout.linkCodeSide }
        return SceneElement(
            id: "card:" + card.id, kind: .card(card), frame: layout.cardFrame,
            transform: layout.cardTransform(drag: drag, depth: depth, turns: turns),
            shadowRadius: StackLayout.restShadow, zIndex: z)
    }

    /// "Alle Karten erledigt!", and under it the end state's link as a QR code when the deck
    /// has one: the code's element is 25 mm and the room its modules need to round up to whole
    /// pixels, with its caption, at the foot of the card's place.
    private func emptyState() -> [SceneElement] {
        guard let link = options.emptyLink else {
            return [SceneElement(id: "empty", kind: .emptyState(text: options.emptyText), frame: layout.cardFrame)]
        }
        let f = layout.cardFrame
        let box = Rect(
            x: f.center.x - f.width * layout.fit / 2, y: f.center.y - f.height * layout.fit / 2,
            width: f.width * layout.fit, height: f.height * layout.fit)
        let side = layout.screenLinkCodeSide
        let codeHeight = min(box.height * 0.75, LinkCode.frameHeight(side: side))
        let codeWidth = max(box.width, side + LinkCode.roundingRoom)
        return [
            SceneElement(
                id: "empty", kind: .emptyState(text: options.emptyText),
                frame: Rect(x: box.minX, y: box.minY, width: box.width, height: box.height - codeHeight)),
            SceneElement(
                id: "empty-link", kind: .linkCode(link: link, side: side),
                frame: Rect(
                    x: box.center.x - codeWidth / 2, y: box.maxY - codeHeight, width: codeWidth, height: codeHeight)),
        ]
    }

    private func elements(at t: Instant) -> [SceneElement] {
        var out: [SceneElement] = []
        if cards.isEmpty { out += emptyState() }
        for b in layout.buttons {
            let available =
                switch b.role {
                case .undo: !history.isEmpty
                default: !cards.isEmpty
                }
            var e = SceneElement(id: "button:" + b.role.rawValue, kind: .button(b.role), frame: b.frame, zIndex: 10)
            e.opacity = available ? 1 : 0.35
            if case .button(let held) = grab, held == b.role { e.transform.scale = 0.92 }
            out.append(e)
        }
        for i in cards.indices.prefix(StackLayout.visibleDepth) {
            let entry = cards[i]
            var e = cardElement(
                entry.card, drag: shownDrag(of: i, at: t), depth: entry.depth.value(at: t), z: 100 - i)
            e.opacity = min(1, max(0, entry.opacity.value(at: t)))
            if i == 0 && isHoldingCard { e.shadowRadius = StackLayout.dragShadow }
            out.append(e)
        }
        for (k, d) in departures.enumerated() {
            var e = cardElement(
                d.entry.card, drag: d.entry.drag.value(at: t), depth: d.entry.depth.value(at: t),
                z: 200 + max(0, 99 - k))
            e.opacity = min(1, max(0, d.entry.opacity.value(at: t)))
            out.append(e)
        }
        if isHoldingCard { out += labels(drag: shownDrag(of: 0, at: t), depth: cards[0].depth.value(at: t)) }
        if attractSince != nil, let line = attractLine(options.attractText, screen: layout.screen) { out.append(line) }
        return out
    }

    /// The top card as it looks when grabbed (the larger shadow), so the first frame of the
    /// next drag only places it; the card beneath as it lies, whole (at rest the top card hides
    /// its contents and the renderer draws it bare: a drag uncovers it), and as it will look on
    /// top, so the close-up after a swipe draws nothing new either; while a card is held and
    /// dragged sideways, the stamp of that direction ("Später"/"Verstanden", card-sized: only
    /// the one a drag shows is held, never both at rest); last the card a swipe reveals at the
    /// bottom of the stack. Top first.
    public func elementsToPrepare(in scene: Scene) -> [SceneElement] {
        let cards = scene.elements.filter { if case .card = $0.kind { true } else { false } }
        guard var top = cards.last else { return [] }
        top.shadowRadius = StackLayout.dragShadow
        // The scene shows a stamp only while its card is held and dragged sideways.
        let side = scene.elements.lazy.compactMap { e -> DismissDirection? in
            if case .stamp(_, _, let side) = e.kind { side } else { nil }
        }.first
        let stamps = side.map { labels(drag: Point(x: $0 == .left ? -1 : 1, y: 0), depth: 0) } ?? []
        guard cards.count >= 2 else { return [top] + stamps }
        let beneath = cards[cards.count - 2]
        var next = beneath
        next.transform = .identity
        next.shadowRadius = StackLayout.restShadow
        // The card a swipe reveals at the bottom, at the level it settles on: without it the
        // first frame after a swipe drew a stand-in on the frame path (`bench --worst`).
        guard self.cards.count > StackLayout.visibleDepth else { return [top, beneath, next] + stamps }
        let revealed = cardElement(
            self.cards[StackLayout.visibleDepth].card, drag: .zero, depth: Double(StackLayout.visibleDepth - 1), z: 0)
        return [top, beneath, next] + stamps + [revealed]

    }

    /// The "Nein"/"Ja" stamp over the top card (its frame and transform, so it turns with
    /// it), fading in over the first 120 pt of the drag.
    private func labels(drag: Point, depth: Double) -> [SceneElement] {
        let side: (id: String, text: String, color: Color, side: DismissDirection)?
        if drag.x < 0, let text = options.leftLabel {
            side = ("label:left", text, StackOptions.leftLabelColor, .left)
        } else if drag.x > 0, let text = options.rightLabel {
            side = ("label:right", text, StackOptions.rightLabelColor, .right)
        } else {
            side = nil
        }
        guard let side else { return [] }
        return [
            SceneElement(
                id: side.id, kind: .stamp(text: side.text, color: side.color, side: side.side),
                frame: layout.cardFrame,
                transform: layout.cardTransform(drag: drag, depth: depth, turns: !accessibility.reducedMotion),
                opacity: min(1, abs(drag.x) / StackLayout.dismissThreshold), zIndex: 150)
        ]
    }
}
