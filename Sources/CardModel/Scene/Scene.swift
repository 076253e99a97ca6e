#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Translation, rotation and scale of an element, applied about the centre of its frame:
/// scale first, then rotate, then translate.
public struct Transform: Hashable, Sendable {
    public var translation: Point
    /// Radians, clockwise on screen (y grows downwards).
    public var rotation: Double
    public var scale: Double

    public init(translation: Point = .zero, rotation: Double = 0, scale: Double = 1) {
        self.translation = translation
        self.rotation = rotation
        self.scale = scale
    }

    public static let identity = Transform()

    public var isIdentity: Bool { translation == .zero && rotation == 0 && scale == 1 }
}

/// A control a person can press.
public enum ButtonRole: String, Hashable, Sendable {
    /// The list's "+" in the title bar.
    case add
    /// The detail page's back control.
    case back
    /// Under the stack: ✗, ✓ and undo, for people who cannot swipe.
    case dismissLeft
    case dismissRight
    case undo
    /// The accessible "remove card" (drawn as `.wordButton` with its words).
    case remove

    /// What a tap on the button does.
    public var action: DeckAction {
        switch self {
        case .dismissLeft: .dismissLeft
        case .dismissRight: .dismissRight
        case .undo: .undo
        case .remove: .remove
        case .add: .add
        case .back: .back
        }
    }
}

/// What an element is; the renderer draws each kind its own way.
public indirect enum ElementKind: Hashable, Sendable {
    /// A card of the stack.
    case card(Card)
    /// A row of the list.
    case row(Card)
    /// The red area with a trash icon behind a row being swiped left.
    case deleteArea
    /// The list's title bar with its title.
    case titleBar(title: String)
    /// The list's band along the bottom that rows scroll under (the "Aa" control's place).
    case bottomBar
    case button(ButtonRole)
    /// A control drawn as a capsule with `label`, in the visitor's language (the accessible
    /// "Remove card").
    case wordButton(ButtonRole, label: String)
    /// A check-seal icon and the text under it, when the stack is empty.
    case emptyState(text: String)
    /// A link as a QR code at least `side` points wide with its quiet zone, dark on a white
    /// plate, its text beneath (`LinkCode`): the end state's link.
    case linkCode(link: String, side: Double)
    /// A row's detail page as in the seed: the card's colour under a navigation bar
    /// `barHeight` points high, whose "‹ `backTitle`" back control (the list's title) is at
    /// `back` (page coordinates).
    case detailPage(Card, backTitle: String, barHeight: Double, back: Rect)
    /// A line of text, e.g. "Tippen zum Starten".
    case label(text: String, color: Color)
    /// The swipe hint while dragging, drawn over the card it belongs to (same frame and
    /// transform): a tint along the card's edge and a rotated, bordered "Nein"/"Ja" stamp in
    /// the card's lower corner away from the swipe, clear of the title and subtitle.
    case stamp(text: String, color: Color, side: DismissDirection)
    /// The inactivity warning: a dimmed panel with the seconds left and its line
    /// ("Tippen zum Fortfahren").
    case countdown(secondsLeft: Int, text: String)
    /// Centred lines of large text on the background (the closed-hours screen).
    case notice(text: String)
    /// The staff menu's backdrop: the whole screen dark, `lines` of text top-left.
    case staffPanel(lines: [String])
    /// A key of the staff PIN pad or a menu action.
    case staffKey(label: String)
    /// The keyboard / switch focus: a ring drawn just inside `frame` around the focused thing.
    case focusRing
    /// A key of the language control: a language's own name ("Français"); `selected` marks
    /// the visitor's current language.
    case languageKey(label: String, selected: Bool)
    /// `kind` drawn mirrored left to right, for a right-to-left language (`Scene.mirrored`):
    /// its insides swap sides, while text and photos stay readable.
    case mirrored(ElementKind)
    /// The per-visit accessibility control's round "Aa" button (`AccessibilityControl`);
    /// `anyOn` adds a check badge, so a mode left on is visible without colour.
    case accessibilityButton(isOpen: Bool, anyOn: Bool)
    /// One of its switches: the label and an on/off switch whose knob position (and `state`,
    /// the word for on or off in the visitor's language) shows the state.
    case accessibilitySwitch(label: String, isOn: Bool, state: String)
}

/// One thing to draw.
public struct SceneElement: Hashable, Sendable {
    /// Stable across scenes for the same thing (e.g. "card:<id>"), so damage can be found.
    public var id: String
    public var kind: ElementKind
    /// Untransformed frame in screen points.
    public var frame: Rect
    public var transform: Transform
    public var opacity: Double
    /// Blur radius of the drop shadow in points; 0 for none.
    public var shadowRadius: Double
    /// Larger is drawn later (on top).
    public var zIndex: Int

    public init(
        id: String, kind: ElementKind, frame: Rect, transform: Transform = .identity,
        opacity: Double = 1, shadowRadius: Double = 0, zIndex: Int = 0
    ) {
        self.id = id
        self.kind = kind
        self.frame = frame
        self.transform = transform
        self.opacity = opacity
        self.shadowRadius = shadowRadius
        self.zIndex = zIndex
    }

    /// Extra room a shadow of `radius` needs around its shape (blur plus offset).
    public static func shadowMargin(radius: Double) -> Double { radius > 0 ? radius * 2 + 2 : 0 }

    /// The axis-aligned box, in screen points, that drawing this element can touch
    /// (the transformed frame grown by the shadow).
    public var bounds: Rect {
        let c = frame.center
        let hw = frame.width / 2 * transform.scale
        let hh = frame.height / 2 * transform.scale
        let cosA = cos(transform.rotation)
        let sinA = sin(transform.rotation)
        let ex = abs(hw * cosA) + abs(hh * sinA)
        let ey = abs(hw * sinA) + abs(hh * cosA)
        let cx = c.x + transform.translation.x
        let cy = c.y + transform.translation.y
        let m = SceneElement.shadowMargin(radius: shadowRadius)
        return Rect(x: cx - ex - m, y: cy - ey - m, width: 2 * (ex + m), height: 2 * (ey + m))
    }
}

/// Everything to draw at one instant, bottom to top, in logical screen points.
public struct Scene: Hashable, Sendable {
    /// The logical (rotated) screen size.
    public var size: Size
    public var background: Color
    /// Sorted by `zIndex` (stable for equal values).
    public var elements: [SceneElement]
    /// True while anything still moves (a spring not at rest, a fling): the app keeps
    /// drawing frames; when false it may sleep until the next input.
    public var isAnimating: Bool

    public init(size: Size, background: Color, elements: [SceneElement], isAnimating: Bool) {
        self.size = size
        self.background = background
        self.elements = elements.enumerated()
            .sorted { ($0.element.zIndex, $0.offset) < ($1.element.zIndex, $1.offset) }
            .map(\.element)
        self.isAnimating = isAnimating
    }

    /// The region that differs between `previous` and `self`, clipped to the screen:
    /// the old and new bounds of every element that appeared, vanished or changed.
    /// The whole screen when there is no previous scene or the size or background changed.
    /// `Rect.null` when nothing changed, so a frame can be skipped.
    public func damage(since previous: Scene?) -> Rect {
        let screen = Rect(origin: .zero, size: size)
        guard let previous, previous.size == size, previous.background == background else {
            return screen
        }
        var old: [String: SceneElement] = [:]
        for e in previous.elements { old[e.id] = e }
        var damage = Rect.null
        var orderChanged = previous.elements.map(\.id) != elements.map(\.id)
        for e in elements {
            if let o = old.removeValue(forKey: e.id) {
                if o != e { damage = damage.union(o.bounds).union(e.bounds) }
            } else {
                damage = damage.union(e.bounds)
                orderChanged = false
            }
        }
        for o in old.values {
            damage = damage.union(o.bounds)
            orderChanged = false
        }
        if orderChanged {
            // Same elements, new stacking: every element whose position in the order moved.
            let before = previous.elements.map(\.id)
            for (i, e) in elements.enumerated() where i >= before.count || before[i] != e.id {
                damage = damage.union(e.bounds)
            }
        }
        return damage.intersection(screen)
    }
}
