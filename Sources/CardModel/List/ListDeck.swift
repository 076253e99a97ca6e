/// The "Color Cards" list (the SwiftUI design's list): rows that scroll with momentum and a rubber band, a tap
/// opens its detail page, "+" appends a card with a random theme. iOS's swipe to delete: a partial left swipe
/// leaves the row open on its Delete button (a tap on it deletes, a touch elsewhere closes it), a full swipe
/// deletes at once. With no rows the deck's empty text shows.
public struct ListDeck: CardDeck, IntakeDrivenDeck {
    struct Row: Hashable, Sendable {
        var card: Card
        /// Horizontal swipe translation (≤ 0, rubber-banded when pulled right).
        var swipe = AnimatedValue(0, restDistance: 0.05)
        /// Vertical offset from the row's slot; springs to 0 when rows above are deleted.
        var shift = AnimatedValue(0, restDistance: 0.05)
        var opacity = AnimatedValue(1, restDistance: 0.002)
        /// When the row appeared (the first call with a time for the initial rows).
        var since: Instant?

        init(card: Card, since: Instant? = nil) {
            self.card = card
            self.since = since
        }

        func isMoving(at t: Instant) -> Bool {
            swipe.isMoving(at: t) || shift.isMoving(at: t) || opacity.isMoving(at: t)
        }
    }

    /// A deleted row sliding out to the left at its last place.
    struct DepartingRow: Hashable, Sendable {
        var card: Card
        var contentY: Double
        var swipe: AnimatedValue
    }

    struct Detail: Hashable, Sendable {
        var card: Card
        /// 0 when shown, the screen width when hidden.
        var slide: AnimatedValue
        var closing = false
    }

    enum Grab: Hashable, Sendable {
        case none
        /// Down, not yet a drag. `caughtScroll`: the touch stopped a moving list, so it is no tap.
        case pending(rowID: String?, caughtScroll: Bool)
        /// Scrolling: the raw (un-rubber-banded) offset is `rawStart` − (dy − `dyAtStart`).
        case scrolling(rawStart: Double, dyAtStart: Double)
        case swiping(rowID: String, base: Double, dxAtStart: Double)
        case button(ButtonRole)
        /// Down on the open row's Delete button.
        case deleteButton(rowID: String)
        case ignored
    }

    public let metrics: ScreenMetrics
    public let title: String
    /// The detail page's Delete, in the visitor's language.
    public let deleteLabel: String
    public let layout: ListLayout
    private(set) var rows: [Row] = []
    private(set) var departing: [DepartingRow] = []
    private(set) var detail: Detail?
    private var scroll = ListScroll.rest(0)
    var intake: GestureIntake
    var recognizer: DragRecognizer { intake.recognizer }
    private(set) var grab: Grab = .none
    /// The row left open on its Delete button by a partial swipe.
    public private(set) var openRowID: String?
    /// The row the keyboard or switch acts on (drawn with a focus ring); nil until a key moves it.
    public private(set) var focusedRowID: String?
    private var decisions: [Decision] = []
    private var random: SplitMix64
    private var addedCount = 0
    /// How the action being taken was given (set around a tap, a swipe or a button press).
    private var performMethod: InputMethod?
    private var now: Instant = .zero
    /// What the visitor switched on for this visit (`setAccessibility`); reset with the deck.
    public private(set) var accessibility = VisitAccessibility()
    /// Each card as the deck file (or "+") made it, by id, so a mode switched off restores it.
    private var originals: [String: Card] = [:]

    /// Between visitors, the line inviting the next one (none when empty).
    public var attractText: String
    /// Shown in the middle of the list when it has no rows (the deck's `emptyText`).
    public var emptyText: String
    /// When the attract screen appeared; nil while a visitor uses the deck.
    private(set) var attractSince: Instant?

    /// `randomSeed` seeds the generator that picks the theme of each card "+" adds, so a test
    /// (or a replay) sees the same themes again.
    public init(
        cards: [Card], metrics: ScreenMetrics, title: String = "Color Cards", attractText: String = "",
        emptyText: String = "", randomSeed: UInt64, bottomInset: Double = 0, layout: ListLayout? = nil,
        deleteLabel: String = UIStrings.text(.delete, in: "de")
    ) {
        self.metrics = metrics
        self.deleteLabel = deleteLabel
        self.title = title
        self.attractText = attractText
        self.emptyText = emptyText
        self.layout =
            layout
            ?? ListLayout(
                screen: metrics.safeSize, bottomInset: bottomInset, pointsPerMillimetre: metrics.pointsPerMillimetre)
        intake = GestureIntake(slop: metrics.touchSlop)
        random = SplitMix64(seed: randomSeed)
        rows = uniquingIDs(cards).map { Row(card: $0) }
        originals = Dictionary(rows.map { ($0.card.id, $0.card) }, uniquingKeysWith: { a, _ in a })
        checkInvariants()
    }

    /// Switches the visit's modes: rows and the detail page are shown again from their
    /// originals with `VisitAccessibility.card` (large text, high contrast).
    public mutating func setAccessibility(_ modes: VisitAccessibility, at time: Instant) {
        note(time)
        accessibility = modes
        func restyle(_ c: Card) -> Card { modes.card(originals[c.id] ?? c, backdrop: Self.background) }
        for i in rows.indices { rows[i].card = restyle(rows[i].card) }
        for i in departing.indices { departing[i].card = restyle(departing[i].card) }
        if let d = detail { detail?.card = restyle(d.card) }
        checkInvariants()
    }

    /// Reduced motion (WCAG 2.3.3): every spring is critically damped and starts from standstill,
    /// so a released swipe, a row closing up and the scroll's end never overshoot or bounce.
    var calm: Bool { accessibility.reducedMotion }
    var spring: Spring { calm ? VisitAccessibility.calmSpring : .default }
    /// The finger's velocity handed to a spring, or none with reduced motion (nil: keep the current one).
    func carried(_ v: Double?) -> Double? { calm ? 0 : v }

    /// The cards in the list, top to bottom.
    public var cards: [Card] { rows.map(\.card) }

    /// The card whose detail page is open (or opening).
    public var openCard: Card? { detail.flatMap { $0.closing ? nil : $0.card } }

    /// The scroll offset shown at `t` (0 = top; negative or beyond the end while rubber-banding).
    public func scrollOffset(at t: Instant) -> Double {
        if case .scrolling(let rawStart, let dyAtStart) = grab {
            let raw = rawStart - (recognizer.shownTranslation(at: t).y - dyAtStart)
            return RubberBand.clamp(raw, lower: 0, upper: maxOffset, dimension: layout.viewport.height)
        }
        return scroll.offset(at: t)
    }

    var maxOffset: Double { layout.maxOffset(rows: rows.count) }

    // MARK: Input

    public mutating func handle(_ frame: TouchFrame) {
        note(frame.time)
        drainIntake { $0.take(frame) }
    }

    public mutating func cancelTouches(at time: Instant) {
        note(time)
        drainIntake { $0.cancel(at: time) }
    }

    /// The row under `p` at `t`, if any.
    func rowIndex(at p: Point, time t: Instant) -> Int? {
        guard layout.viewport.contains(p) else { return nil }
        let offset = scrollOffset(at: t)
        return rows.indices.first { i in
            rowFrame(i, offset: offset, at: t).contains(p)
        }
    }

    func rowFrame(_ i: Int, offset: Double, at t: Instant) -> Rect {
        layout.rowFrame(contentY: Double(i) * ListLayout.slotHeight + rows[i].shift.value(at: t), offset: offset)
    }

    mutating func apply(_ event: DragRecognizer.Event) {
        switch event {
        case .down(let p, let t):
            if let detail, !detail.closing {
                grab =
                    layout.backButton.contains(p)
                    ? .button(.back) : layout.detailDeleteButton.contains(p) ? .button(.remove) : .ignored
            } else if layout.addButton.contains(p) {
                grab = .button(.add)
            } else if let open = openRowID {
                // An open row: its Delete button takes the touch; anywhere else closes it.
                if let i = rows.firstIndex(where: { $0.card.id == open }),
                    deleteButtonFrame(i, offset: scrollOffset(at: t), at: t).contains(p)
                {
                    grab = .deleteButton(rowID: open)
                } else {
                    close(at: t)
                    grab = .ignored
                }
            } else if layout.titleBar.contains(p) {
                grab = .ignored
            } else {
                let caught = scroll.isMoving(at: t)
                scroll = .rest(scroll.offset(at: t))
                grab = .pending(rowID: rowIndex(at: p, time: t).map { rows[$0].card.id }, caughtScroll: caught)
            }
        case .dragBegan(let axis, let t):
            guard case .pending(let rowID, _) = grab else { return }
            let shown = recognizer.shownTranslation(at: t)
            if axis == .horizontal, let rowID, let i = rows.firstIndex(where: { $0.card.id == rowID }) {
                let x = rows[i].swipe.value(at: t)
                rows[i].swipe.set(x)
                grab = .swiping(rowID: rowID, base: x, dxAtStart: shown.x)
            } else if axis == .vertical {
                let offset = scroll.offset(at: t)
                let raw = RubberBand.unclamp(offset, lower: 0, upper: maxOffset, dimension: layout.viewport.height)
                grab = .scrolling(rawStart: raw, dyAtStart: shown.y)
            } else {
                grab = .ignored
            }
        case .moved:
            break
        case .ended(let end):
            finish(end)
        case .cancelled(let t):
            switch grab {
            case .scrolling:
                let offset = scrollOffset(at: t)
                grab = .none
                scroll = ListScroll.released(at: offset, velocity: 0, maxOffset: maxOffset, time: t, calm: calm)
            case .swiping(let id, _, _):
                let x = swipeX(at: t)
                grab = .none
                if let i = rows.firstIndex(where: { $0.card.id == id }) {
                    rows[i].swipe.set(x)
                    rows[i].swipe.animate(to: 0, at: t, spring: spring, velocity: 0)
                }
            default:
                grab = .none
            }
        }
    }

    /// The swiped row's translation shown at `t` (rubber-banded when pulled right).
    func swipeX(at t: Instant) -> Double {
        guard case .swiping(_, let base, let dxAtStart) = grab else { return 0 }
        return swipeX(base: base, dxAtStart: dxAtStart, at: t)
    }

    private func swipeX(base: Double, dxAtStart: Double, at t: Instant) -> Double {
        let raw = base + recognizer.shownTranslation(at: t).x - dxAtStart
        return RubberBand.clamp(raw, lower: -.infinity, upper: 0, dimension: layout.rowWidth)
    }

    private mutating func finish(_ end: DragEnd) {
        let t = end.time
        let held = grab
        grab = .none
        // A touch may have caught the list while it was rubber-banding; let go, it springs back.
        if case .rest(let offset) = scroll, offset < 0 || offset > maxOffset {
            scroll = ListScroll.released(at: offset, velocity: 0, maxOffset: maxOffset, time: t, calm: calm)
        }
        switch held {
        case .pending(let rowID, let caught):
            guard end.isTap, !caught, let rowID, let i = rowIndex(at: end.location, time: t),
                rows[i].card.id == rowID
            else { return }
            performMethod = .tap
            open(i, at: t)
            performMethod = nil
        case .button(let role):
            let frame =
                role == .back ? layout.backButton : role == .remove ? layout.detailDeleteButton : layout.addButton
            if end.isTap && frame.contains(end.location) {
                performMethod = .button
                perform(role.action, at: t)
                performMethod = nil
            }
        case .scrolling(let rawStart, let dyAtStart):
            let raw = rawStart - (recognizer.shownTranslation(at: t).y - dyAtStart)
            let offset = RubberBand.clamp(raw, lower: 0, upper: maxOffset, dimension: layout.viewport.height)
            scroll = ListScroll.released(
                at: offset, velocity: -end.velocity.y, maxOffset: maxOffset, time: t, calm: calm)
        case .swiping(let id, let base, let dxAtStart):
            guard let i = rows.firstIndex(where: { $0.card.id == id }) else { return }
            let shownX = swipeX(base: base, dxAtStart: dxAtStart, at: t)
            let x = base + end.translation.x - dxAtStart
            let predicted = x + end.velocity.x * DragRecognizer.projectionTime
            rows[i].swipe.set(shownX)
            if x < -layout.deleteThreshold || predicted < -layout.deleteThreshold {
                performMethod = .swipe
                delete(i, at: t, velocity: min(0, end.velocity.x))
                performMethod = nil
            } else if x < -ListLayout.revealThreshold && predicted < -ListLayout.revealThreshold {
                rows[i].swipe.animate(
                    to: -ListLayout.deleteButtonWidth, at: t, spring: spring, velocity: carried(end.velocity.x))
                openRowID = id
            } else {
                rows[i].swipe.animate(to: 0, at: t, spring: spring, velocity: carried(end.velocity.x))
                if openRowID == id { openRowID = nil }
            }
        case .deleteButton(let id):
            guard let i = rows.firstIndex(where: { $0.card.id == id }) else { return }
            if end.isTap && deleteButtonFrame(i, offset: scrollOffset(at: t), at: t).contains(end.location) {
                performMethod = .button
                delete(i, at: t, velocity: 0)
                performMethod = nil
            } else {
                close(at: t)
            }
        case .none, .ignored:
            break
        }
    }

    /// Where row `i`'s Delete button shows while the row is open.
    func deleteButtonFrame(_ i: Int, offset: Double, at t: Instant) -> Rect {
        let f = rowFrame(i, offset: offset, at: t)
        let w = ListLayout.deleteButtonWidth
        return Rect(x: f.maxX - w, y: f.minY, width: w, height: f.height)
    }

    /// The open row slides shut.
    private mutating func close(at t: Instant) {
        guard let id = openRowID else { return }
        openRowID = nil
        if let i = rows.firstIndex(where: { $0.card.id == id }) {
            rows[i].swipe.animate(to: 0, at: t, spring: spring, velocity: carried(nil))
        }
    }

    // MARK: Actions

    public mutating func perform(_ action: DeckAction, at time: Instant) {
        note(time)
        switch action {
        case .add:
            add(at: time)
        case .back:
            if var d = detail, !d.closing {
                d.closing = true
                d.slide.animate(to: layout.screen.width, at: time, spring: spring, velocity: carried(nil))
                detail = d
            }
        case .open:
            if detail == nil || detail?.closing == true, let i = keyTargetRow(at: time) { open(i, at: time) }
        case .remove, .dismissLeft:
            // On a detail page: that card is deleted and the page closes over the list.
            if let d = detail, !d.closing {
                if let i = rows.firstIndex(where: { $0.card.id == d.card.id }) { delete(i, at: time, velocity: 0) }
                perform(.back, at: time)
                return
            }
            if detail == nil, let i = keyTargetRow(at: time) {
                releaseGrab(at: time)
                let next = rows.indices.contains(i + 1) ? rows[i + 1].card.id : (i > 0 ? rows[i - 1].card.id : nil)
                delete(i, at: time, velocity: 0)
                if focusedRowID != nil { focusedRowID = next }
            }
        case .focusNext, .focusPrevious:
            if detail == nil || detail?.closing == true { moveFocus(by: action == .focusNext ? 1 : -1, at: time) }
        case .dismissRight, .undo:
            break
        }
        checkInvariants()
    }

    /// An action takes over from the finger: whatever it held goes back to rest.
    private mutating func releaseGrab(at t: Instant) {
        switch grab {
        case .scrolling:
            scroll = ListScroll.released(
                at: scrollOffset(at: t), velocity: 0, maxOffset: maxOffset, time: t, calm: calm)
        case .swiping(let id, _, _):
            let x = swipeX(at: t)
            if let i = rows.firstIndex(where: { $0.card.id == id }) {
                rows[i].swipe.set(x)
                rows[i].swipe.animate(to: 0, at: t, spring: spring, velocity: carried(nil))
            }
        default:
            break
        }
        if grab != .none { grab = .ignored }
    }

    /// The focused row, else the first row entirely inside the viewport (the keyboard's target).
    private func keyTargetRow(at t: Instant) -> Int? {
        if let id = focusedRowID, let i = rows.firstIndex(where: { $0.card.id == id }) { return i }
        return firstVisibleRow(at: t)
    }

    /// Moves the focus ring `step` rows, wrapping at the ends so a single switch reaches every row
    /// (the first key press lands on the first visible row), and scrolls so the focused row is
    /// entirely inside the viewport.
    private mutating func moveFocus(by step: Int, at t: Instant) {
        guard !rows.isEmpty else { return }
        let i: Int
        if let id = focusedRowID, let k = rows.firstIndex(where: { $0.card.id == id }) {
            i = ((k + step) % rows.count + rows.count) % rows.count
        } else {
            i = firstVisibleRow(at: t) ?? 0
        }
        focusedRowID = rows[i].card.id
        releaseGrab(at: t)
        let v = layout.viewport
        let offset = scrollOffset(at: t)
        let top = Double(i) * ListLayout.slotHeight
        var target = offset
        if top < offset { target = top }
        if top + ListLayout.slotHeight > offset + v.height { target = top + ListLayout.slotHeight - v.height }
        target = min(maxOffset, max(0, target))
        if target != offset { scroll = scroll.springing(to: target, at: t, calm: calm) }
    }

    /// The first row entirely inside the viewport (the keyboard's target).
    func firstVisibleRow(at t: Instant) -> Int? {
        let offset = scrollOffset(at: t)
        let v = layout.viewport
        return rows.indices.first { i in
            let f = rowFrame(i, offset: offset, at: t)
            return f.minY >= v.minY && f.maxY <= v.maxY
        } ?? (rows.isEmpty ? nil : 0)
    }

    private mutating func open(_ i: Int, at t: Instant) {
        close(at: t)
        var slide = AnimatedValue(layout.screen.width, restDistance: 0.05)
        slide.animate(to: 0, at: t, spring: spring, velocity: carried(nil))
        detail = Detail(card: rows[i].card, slide: slide)
        decisions.append(
            Decision(
                cardID: rows[i].card.id, action: .opened, time: t, dwellSeconds: dwell(rows[i], t), position: i,
                method: performMethod))
    }

    private mutating func delete(_ i: Int, at t: Instant, velocity: Double) {
        let row = rows.remove(at: i)
        if openRowID == row.card.id { openRowID = nil }
        var swipe = row.swipe
        swipe.animate(to: -(layout.screen.width + 10), at: t, spring: spring, velocity: carried(velocity))
        departing.append(
            DepartingRow(
                card: row.card, contentY: Double(i) * ListLayout.slotHeight + row.shift.value(at: t), swipe: swipe))
        for k in i..<rows.count {
            rows[k].shift.displace(by: ListLayout.slotHeight, at: t)
            // Reduced motion: the rows below glide up from standstill, critically damped.
            if calm { rows[k].shift.animate(to: 0, at: t, spring: spring, velocity: 0) }
        }
        decisions.append(
            Decision(
                cardID: row.card.id, action: .deleted, time: t, dwellSeconds: dwell(row, t), position: i,
                method: performMethod))
        if case .scrolling = grab { return }
        let offset = scroll.offset(at: t)
        if offset > maxOffset { scroll = scroll.springing(to: maxOffset, at: t, calm: calm) }
    }

    private mutating func add(at t: Instant) {
        let theme = Theme.allCases.randomElement(using: &random)!
        var id: String
        let taken = Set(rows.map(\.card.id) + departing.map(\.card.id))
        repeat {
            addedCount += 1
            id = "added-" + String(addedCount)
        } while taken.contains(id)
        let name = theme.rawValue
        let card = theme.apply(
            to: Card(id: id, title: name.prefix(1).uppercased() + name.dropFirst(), color: .white))
        originals[id] = card
        var row = Row(card: accessibility.card(card, backdrop: Self.background), since: t)
        row.opacity.set(0)
        row.opacity.animate(to: 1, at: t, spring: spring, velocity: carried(nil))
        rows.append(row)
        decisions.append(
            Decision(
                cardID: id, action: .added, time: t, dwellSeconds: 0, position: rows.count - 1, method: performMethod))
        if case .scrolling = grab { return }
        let target = layout.offsetShowingLast(rows: rows.count)
        if scroll.offset(at: t) < target { scroll = scroll.springing(to: target, at: t, calm: calm) }
    }

    private func dwell(_ row: Row, _ t: Instant) -> Double { max(0, t.seconds(since: row.since ?? t)) }

    // MARK: Output

    public mutating func takeDecisions() -> [Decision] {
        defer { decisions.removeAll() }
        return decisions
    }

    public mutating func reset(cards: [Card], at time: Instant) {
        note(time)
        rows = uniquingIDs(cards).map { Row(card: $0, since: time) }
        originals = Dictionary(rows.map { ($0.card.id, $0.card) }, uniquingKeysWith: { a, _ in a })
        accessibility = VisitAccessibility()
        departing.removeAll()
        detail = nil
        openRowID = nil
        focusedRowID = nil
        scroll = .rest(0)
        if grab != .none { grab = .ignored }
        checkInvariants()
    }

    public var nextWakeup: Instant? { isAnimating(at: now) ? now : nil }

    public mutating func setAttract(since start: Instant?, at time: Instant) {
        note(time)
        attractSince = start
    }

    /// While a finger rests on a row and may still tap it, that row's detail page and its
    /// back and Delete controls as the frame that opens it shows them (just off the right
    /// edge, the page with its sliding shadow), page first: a tap then opens a page already
    /// drawn, and the opening frame draws no stand-in of the whole screen and lays out no
    /// text (`bench --worst`). Empty otherwise: once the touch scrolls or swipes, or caught a
    /// moving list (no tap then), the page is no longer wanted. Rows are drawn as they scroll
    /// into view. `scene` is not needed: the touch in progress decides.
    public func elementsToPrepare(in scene: Scene) -> [SceneElement] {
        guard let card = cardUnderPendingTap else { return [] }
        return detailPageElements(card, slide: layout.screen.width)
    }

    /// The row a finger is down on, not yet moved past the slop, while a tap would open it.
    public var cardUnderPendingTap: Card? {
        guard case .pending(rowID: let rowID?, caughtScroll: false) = grab, detail == nil || detail?.closing == true
        else { return nil }
        return rows.first { $0.card.id == rowID }?.card
    }

    private mutating func note(_ t: Instant) {
        for i in rows.indices where rows[i].since == nil { rows[i].since = t }
        if t > now { now = t }
    }

    func isAnimating(at t: Instant) -> Bool {
        if !departing.isEmpty || scroll.isMoving(at: t) { return true }
        if let detail, detail.slide.isMoving(at: t) { return true }
        switch grab {
        case .scrolling, .swiping: if recognizer.resampler.isMoving(at: t) { return true }
        default: break
        }
        return rows.contains { $0.isMoving(at: t) }
    }

    static let background = Color(rgb: 0xF2F2F7)

    public mutating func scene(at time: Instant) -> Scene {
        note(time)
        scroll = scroll.settled(at: time)
        let offset = scrollOffset(at: time)
        let screen = Rect(origin: .zero, size: layout.screen)
        let layout = self.layout
        departing.removeAll { d in
            let frame = layout.rowFrame(contentY: d.contentY, offset: offset)
            return !d.swipe.isMoving(at: time) || frame.maxX + d.swipe.value(at: time) <= 0
                || frame.intersection(screen).isEmpty
        }
        if let d = detail, d.closing, !d.slide.isMoving(at: time) { detail = nil }
        for i in rows.indices {
            rows[i].swipe.settle(at: time)
            rows[i].shift.settle(at: time)
            rows[i].opacity.settle(at: time)
        }
        checkInvariants()
        var elements = elements(at: time, offset: offset)
        if attractSince != nil, let line = attractLine(attractText, screen: layout.screen) { elements.append(line) }
        return Scene(
            size: layout.screen, background: Self.background, elements: elements, isAnimating: isAnimating(at: time))
    }

    private func elements(at t: Instant, offset: Double) -> [SceneElement] {
        var out: [SceneElement] = [
            SceneElement(id: "titlebar", kind: .titleBar(title: title), frame: layout.titleBar, zIndex: 300),
            SceneElement(id: "button:add", kind: .button(.add), frame: layout.addButton, zIndex: 301),
        ]
        if let band = layout.bottomBar {
            out.append(SceneElement(id: "bottombar", kind: .bottomBar, frame: band, zIndex: 300))
        }
        if let band = layout.languageBar {
            // Under the title bar where the language keys do not fit in it; rows scroll under it.
            out.append(SceneElement(id: "languagebar", kind: .bottomBar, frame: band, zIndex: 300))
        }
        let viewport = layout.viewport
        if rows.isEmpty && departing.isEmpty && !emptyText.isEmpty {
            out.append(
                SceneElement(
                    id: "empty", kind: .label(text: emptyText, color: Color(rgb: 0x8E8E93)),
                    frame: viewport,
                    zIndex: 5))
        }
        var swiped: String?
        if case .swiping(let id, _, _) = grab { swiped = id }
        for i in rows.indices {
            let frame = rowFrame(i, offset: offset, at: t)
            guard !frame.intersection(viewport).isEmpty else { continue }
            let row = rows[i]
            let x = row.card.id == swiped ? swipeX(at: t) : row.swipe.value(at: t)
            out += rowElements(row.card, frame: frame, x: x, opacity: row.opacity.value(at: t), z: 10)
            if row.card.id == focusedRowID, detail == nil {
                out.append(
                    SceneElement(
                        id: "focus:" + row.card.id, kind: .focusRing, frame: frame.insetBy(-6),
                        transform: Transform(translation: Point(x: x, y: 0)), zIndex: 11))
            }
        }
        for d in departing {
            let frame = layout.rowFrame(contentY: d.contentY, offset: offset)
            guard !frame.intersection(viewport).isEmpty else { continue }
            out += rowElements(d.card, frame: frame, x: d.swipe.value(at: t), opacity: 1, z: 8)
        }
        if let detail {
            out += detailPageElements(detail.card, slide: detail.slide.value(at: t))
        }
        return out
    }

    /// `card`'s detail page slid `x` points to the right (0: open), with its back and Delete
    /// controls. Its shadow shows while it slides; open, the page covers the screen and the
    /// shadow lies wholly off it, so the page keeps it: one image serves the page's whole life
    /// (a second, shadowless one cost a whole-screen image and its arrival frame when the page
    /// came to rest, `bench --worst`).
    private func detailPageElements(_ card: Card, slide x: Double) -> [SceneElement] {
        let slid = Transform(translation: Point(x: x, y: 0))
        return [
            SceneElement(
                id: "detail:" + card.id,
                kind: .detailPage(card, backTitle: title, barHeight: layout.titleBarHeight, back: layout.backButton),
                frame: Rect(origin: .zero, size: layout.screen), transform: slid, shadowRadius: Self.detailShadow,
                zIndex: 400),
            SceneElement(
                id: "button:back", kind: .button(.back), frame: layout.backButton, transform: slid, zIndex: 401),
            SceneElement(
                id: "button:detail-delete", kind: .wordButton(.remove, label: deleteLabel),
                frame: layout.detailDeleteButton, transform: slid, zIndex: 401),
        ]
    }

    /// The detail page's shadow radius in points.
    public static let detailShadow = 8.0

    /// A row and, while it is swiped left, the delete area it uncovers.
    private func rowElements(_ card: Card, frame: Rect, x: Double, opacity: Double, z: Int) -> [SceneElement] {
        var out = [
            SceneElement(
                id: "row:" + card.id, kind: .row(card), frame: frame,
                transform: Transform(translation: Point(x: x, y: 0)),
                opacity: min(1, max(0, opacity)), zIndex: z)
        ]
        if x < 0 {
            let uncovered = min(-x, frame.width)
            out.append(
                SceneElement(
                    id: "delete:" + card.id, kind: .deleteArea,
                    frame: Rect(x: frame.maxX - uncovered, y: frame.minY, width: uncovered, height: frame.height),
                    zIndex: z - 5))
        }
        return out
    }
}
