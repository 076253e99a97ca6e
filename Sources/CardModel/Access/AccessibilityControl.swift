/// The visible per-visit accessibility control (EN 301 549 5.2): a round "Aa" button
/// in the bottom-left corner (bottom-right over the list), always on screen, that opens a column of three switches above
/// it — large text, high contrast, reduced motion. No menu, no PIN; the next visitor starts
/// with all three off (`reset`).
///
/// Keys and the one switch reach it too (EN 301 549 5.1.6 / 5.2): the accessibility key opens
/// it with a focus ring on its first switch, ↑/↓ move the ring, Enter toggles, Esc closes
/// (`press(_:)`); the scan offers it after the deck's choices (`scanChoices(after:)`).
///
/// The corner is this control's: the staff entry keeps the top-left corner and the language
/// control the top-right one. Every target is at least `StackLayout.minimumTargetMillimetres`
/// on the glass. A touch that begins on the control belongs to it until every finger lifts,
/// so the deck underneath never sees it.
public struct AccessibilityControl: Hashable, Sendable {
    public enum Item: String, Hashable, Sendable, CaseIterable {
        case largeText, highContrast, reducedMotion
    }

    /// The switches' words and the words for on and off, in the visitor's language
    /// (`UIStrings`; German without one, the kiosk's default UI language).
    public struct Labels: Hashable, Sendable {
        public var largeText: String
        public var highContrast: String
        public var reducedMotion: String
        public var on: String
        public var off: String
        public init(language: String? = "de") {
            largeText = UIStrings.text(.largeText, in: language)
            highContrast = UIStrings.text(.highContrast, in: language)
            reducedMotion = UIStrings.text(.reducedMotion, in: language)
            on = UIStrings.text(.switchOn, in: language)
            off = UIStrings.text(.switchOff, in: language)
        }
        func text(_ item: Item) -> String {
            switch item {
            case .largeText: largeText
            case .highContrast: highContrast
            case .reducedMotion: reducedMotion
            }
        }
    }

    public let screen: Size
    /// The targets' side in points: 56 pt, or 9 mm on the glass when that is more.
    public let side: Double
    public var labels = Labels()
    public private(set) var isOpen = false
    public private(set) var modes = VisitAccessibility()
    /// The switch the keys act on, ringed while the control is open; nil when no key has
    /// moved it (opened by touch: no ring until a key asks for one).
    public internal(set) var focus: Item?
    /// Contacts that began on the control, with what they began on (nil: the panel's background).
    private var captured: [Int: Target] = [:]

    enum Target: Hashable, Sendable {
        case button
        case item(Item)
        case panel
    }

    static let margin = 12.0
    static let panelWidth = 260.0

    /// In the bottom-right corner instead (the list: its rows' titles start on the left,
    /// only their chevrons are on the right). Before a right-to-left scene is mirrored.
    public internal(set) var trailing: Bool

    /// Whether "Aa" takes the trailing bottom corner: over the list it does (its rows' titles
    /// start at the leading side), over the stack the leading one; the other one when the staff
    /// entry's corner is there as the visitor sees it (`staffCorner`; the trailing corner is the
    /// bottom-left one right to left), so the two never overlap.
    static func isTrailing(list: Bool, staffCorner: StaffEntry.Corner?, direction: LayoutDirection) -> Bool {
        let corner = staffCorner?.inLayout(direction)
        return list ? corner != .bottomRight : corner == .bottomLeft
    }

    public init(screen: Size, pointsPerMillimetre: Double, trailing: Bool = false) {
        self.screen = screen
        self.trailing = trailing
        side = Self.side(pointsPerMillimetre: pointsPerMillimetre)
    }

    static func side(pointsPerMillimetre: Double) -> Double {
        let mm = pointsPerMillimetre.isFinite && pointsPerMillimetre > 0 ? pointsPerMillimetre : 0
        return max(56, (StackLayout.minimumTargetMillimetres * mm).rounded(.up))
    }

    /// The band along the bottom the closed control takes (its button and the margins above and
    /// below it): what a list keeps clear of rows (`ListLayout.bottomInset`).
    public static func bottomBand(pointsPerMillimetre: Double) -> Double {
        side(pointsPerMillimetre: pointsPerMillimetre) + 2 * margin
    }

    /// The "Aa" button, in the bottom-left corner.
    public var buttonFrame: Rect {
        Rect(
            x: trailing ? screen.width - Self.margin - side : Self.margin, y: screen.height - Self.margin - side,
            width: side, height: side)
    }

    /// Where `item`'s switch sits while the control is open: a column above the button, the
    /// first item on top.
    public func frame(of item: Item) -> Rect {
        let k = Double(Item.allCases.firstIndex(of: item) ?? 0)
        let count = Double(Item.allCases.count)
        let gap = 8.0
        let top = buttonFrame.minY - gap - count * (side + gap)
        let width = max(Self.panelWidth, side * 3)
        return Rect(
            x: trailing ? screen.width - Self.margin - width : Self.margin, y: top + k * (side + gap), width: width,
            height: side)
    }

    func target(at p: Point) -> Target? {
        if buttonFrame.contains(p) { return .button }
        guard isOpen else { return nil }
        for item in Item.allCases where frame(of: item).contains(p) { return .item(item) }
        return nil
    }

    /// Whether a finger landing on `p` is the control's: on "Aa", on a switch, or anywhere
    /// while the panel is open (that touch closes it and decides nothing).
    public func claims(_ p: Point) -> Bool { isOpen || target(at: p) != nil }

    /// Whether the control holds any contact of a touch in progress.
    public var isHoldingTouch: Bool { !captured.isEmpty }

    /// Takes `frame` if it belongs to the control; returns false when the deck should have it.
    /// A contact that begins on a target is the control's until it lifts; lifting it on the
    /// same target acts (a tap: toggles the panel or the switch). While the panel is open, a
    /// touch anywhere else closes it and is taken too, so it decides nothing by accident.
    public mutating func take(_ frame: TouchFrame) -> Bool {
        var mine = false
        for c in frame.contacts {
            if let t = captured[c.id] {
                mine = true
                if c.phase == .ended || c.phase == .cancelled {
                    captured[c.id] = nil
                    if c.phase == .ended, target(at: c.position) == t { act(on: t) }
                }
            } else if c.phase == .began {
                if let t = target(at: c.position) {
                    captured[c.id] = t
                    mine = true
                } else if isOpen {
                    captured[c.id] = .panel
                    close()
                    mine = true
                }
            }
        }
        return mine
    }

    /// Opens the panel; `focus` rings that switch (a key or the scan opened it).
    mutating func open(focus item: Item?) {
        isOpen = true
        focus = item
    }

    /// Closes the panel; the next opening starts without a ring, or on the first switch.
    mutating func close() {
        isOpen = false
        focus = nil
    }

    private mutating func act(on target: Target) {
        switch target {
        case .button: if isOpen { close() } else { isOpen = true }
        case .item(let item): toggle(item)
        case .panel: break
        }
    }

    /// Switches `item` (a tap on its switch, or a key).
    public mutating func toggle(_ item: Item) {
        switch item {
        case .largeText: modes.largeText.toggle()
        case .highContrast: modes.highContrast.toggle()
        case .reducedMotion: modes.reducedMotion.toggle()
        }
    }

    public func isOn(_ item: Item) -> Bool {
        switch item {
        case .largeText: modes.largeText
        case .highContrast: modes.highContrast
        case .reducedMotion: modes.reducedMotion
        }
    }

    /// The next visitor: closed, every mode off, no touch held.
    public mutating func reset() {
        close()
        modes = VisitAccessibility()
        captured = [:]
    }

    /// The control's elements, drawn over everything the deck draws.
    public var elements: [SceneElement] {
        var out = [
            SceneElement(
                id: "a11y:button", kind: .accessibilityButton(isOpen: isOpen, anyOn: modes.isAnyOn),
                frame: buttonFrame, zIndex: 1500)
        ]
        guard isOpen else { return out }
        for item in Item.allCases {
            out.append(
                SceneElement(
                    id: "a11y:" + item.rawValue,
                    kind: .accessibilitySwitch(
                        label: labels.text(item), isOn: isOn(item), state: isOn(item) ? labels.on : labels.off),
                    frame: frame(of: item),
                    zIndex: 1501))
        }
        if let focus {
            // The list's keyboard ring (`ControlColors.focusOuter` / `focusInner`), just outside the switch.
            out.append(
                SceneElement(id: "a11y:focus", kind: .focusRing, frame: frame(of: focus).insetBy(-6), zIndex: 1502))
        }
        return out
    }

    /// `scene` with the control on top.
    public func overlay(_ scene: Scene) -> Scene {
        Scene(
            size: scene.size, background: scene.background, elements: scene.elements + elements,
            isAnimating: scene.isAnimating)
    }
}
