/// Where the stack, its buttons and its hints sit on a screen of any size, and the SwiftUI design's numbers.
public struct StackLayout: Hashable, Sendable {
    public static let cardSize = Size(width: 320, height: 440)
    /// Card i below the top sits `depthOffset`·i lower and is scaled 1 − `depthScale`·i.
    public static let depthOffset = 8.0
    public static let depthScale = 0.04
    /// Released beyond this (or flicked beyond it), the card flies out.
    public static let dismissThreshold = 120.0
    /// A dismissed card flies to ±800 pt (more on screens wider than 800 − 2·310 pt, so it
    /// always leaves the screen).
    public static let flyOutDistance = 800.0
    public static let restShadow = 8.0
    public static let dragShadow = 18.0
    /// The buttons' side on a dense panel; bigger where 9 mm need more points.
    public static let buttonSize = 64.0
    /// Every target at least this wide and high on the glass (WCAG 2.5.8 asks
    /// 24 CSS px, EN 301 549's closed devices and airport rules ask about 9 mm).
    public static let minimumTargetMillimetres = 9.0
    /// Cards below this depth are entirely covered by the ones above and are not drawn.
    public static let visibleDepth = 4

    public let screen: Size
    /// The top card's untransformed frame: 320×440, centred horizontally.
    public let cardFrame: Rect
    /// 1, or less when the screen is too small for the card (applied through the transform).
    public let fit: Double
    /// In drawing order: ✗, undo, ✓ (empty without buttons).
    public let buttons: [LaidOutButton]
    /// A link's QR code side in the card's own points: 25 mm on the glass once the card is
    /// scaled by `fit` (`LinkCode`).
    public let linkCodeSide: Double
    /// The same on the screen, unscaled (the end state's code).
    public let screenLinkCodeSide: Double
    /// Half a card's diagonal plus its drag shadow: how far its centre must go to leave.
    static let exitMargin = 310.0

    /// The buttons' side on a panel with `pointsPerMillimetre`: 64 pt, or 9 mm when that is more.
    public static func buttonSide(pointsPerMillimetre: Double?) -> Double {
        max(buttonSize, targetSide(pointsPerMillimetre: pointsPerMillimetre))
    }

    /// `minimumTargetMillimetres` in points on a panel with `pointsPerMillimetre` (0 when unknown).
    public static func targetSide(pointsPerMillimetre: Double?) -> Double {
        guard let p = pointsPerMillimetre, p.isFinite, p > 0 else { return 0 }
        return (minimumTargetMillimetres * p).rounded(.up)
    }

    static let gap = 24.0

    /// Whether the buttons go in a row under the card (portrait and tall screens) rather than
    /// beside it.
    public static func buttonsBelow(screen: Size, buttonSide b: Double) -> Bool {
        screen.height >= cardSize.height + gap + b + 24 || screen.width < cardSize.width + 2 * (b + 32)
    }

    /// The layout on `screen`; `pointsPerMillimetre` (the panel's, `ScreenMetrics`) sizes the
    /// buttons to at least `minimumTargetMillimetres`; nil: 64 pt. `reserved` is a block in the
    /// top trailing corner (the language keys) the card and the buttons keep clear of.
    public init(screen: Size, showButtons: Bool, pointsPerMillimetre: Double? = nil, reserved: Rect? = nil) {
        self.screen = screen
        let w = screen.width
        let h = screen.height
        let card = Self.cardSize
        let b = Self.buttonSide(pointsPerMillimetre: pointsPerMillimetre)
        let gap = Self.gap
        screenLinkCodeSide = LinkCode.side(pointsPerMillimetre: pointsPerMillimetre)
        func button(_ role: ButtonRole, _ cx: Double, _ cy: Double) -> LaidOutButton {
            LaidOutButton(role: role, frame: Rect(x: cx - b / 2, y: cy - b / 2, width: b, height: b))
        }
        if !showButtons {
            fit = max(0.1, min(1, (w - 16) / card.width, (h - 16) / card.height))
            cardFrame = Rect(x: (w - card.width) / 2, y: (h - card.height) / 2, width: card.width, height: card.height)
            buttons = []
        } else if Self.buttonsBelow(screen: screen, buttonSide: b) {
            // Portrait and tall screens: a row under the stack. On a portrait panel the card
            // grows where the width has room for it (so the panel's height is used); it shrinks
            // if even the row fails. Language keys in its way push it down below them.
            let portrait = h > w
            let across =
                portrait && (w - 48) / card.width > 1 ? (w - 48) / card.width : min(1, (w - 16) / card.width)
            // A portrait panel keeps the attract line's band at the bottom clear too.
            let below = portrait ? 34.0 : 0
            func fitted(below above: Double) -> Double {
                max(0.1, min(across, (h - above - below - 24 - gap - b) / card.height))
            }
            var above = 0.0
            if let r = reserved, r.minX < (w + card.width * fitted(below: 0)) / 2 + 12 { above = r.maxY + 12 }
            // Grown, the card keeps to the renderer's 1/50 grid of image scales, so the image drawn
            // for it is placed 1:1: its text stays sharp and a QR module whole pixels.
            let grown = fitted(below: above)
            fit = grown > 1 ? (grown * 50).rounded(.down) / 50 : grown
            let top = above + (h - above - below - (card.height * fit + gap + b)) / 2
            let cy = top + card.height * fit / 2
            cardFrame = Rect(x: (w - card.width) / 2, y: cy - card.height / 2, width: card.width, height: card.height)
            let by = top + card.height * fit + gap + b / 2
            buttons = [
                button(.dismissLeft, w / 2 - 1.5 * b, by),
                button(.undo, w / 2, by),
                button(.dismissRight, w / 2 + 1.5 * b, by),
            ]
        } else {
            // Landscape panels such as 800×480: ✗ left of the stack, ✓ right of it, on the
            // sides the card flies to; undo under ✗.
            var scaled = max(0.1, min(1, (h - 16) / card.height))
            var rightX = w - (w - card.width * scaled) / 4
            let check = Rect(x: rightX - b / 2 - 8, y: h / 2 - b / 2 - 8, width: b + 16, height: b + 16)
            if let r = reserved, !r.intersection(check).isEmpty {
                // ✓ between the card's edge and the language keys, the card narrower if need be;
                // ✗ mirrors it.
                let room = r.minX - (w + card.width * scaled) / 2
                if room < b + 32 { scaled = max(0.1, min(scaled, 2 * (r.minX - b - 32 - w / 2) / card.width)) }
                rightX = ((w + card.width * scaled) / 2 + r.minX) / 2
            }
            fit = scaled
            cardFrame = Rect(x: (w - card.width) / 2, y: (h - card.height) / 2, width: card.width, height: card.height)
            let leftX = w - rightX
            buttons = [
                button(.dismissLeft, leftX, h / 2),
                button(.undo, leftX, min(h / 2 + 1.5 * b, h - b / 2 - 8)),
                button(.dismissRight, rightX, h / 2),
            ]
        }
        linkCodeSide = screenLinkCodeSide / fit
    }

    /// Where a dismissed card's drag translation goes on this screen.
    public var flyOutDistance: Double { max(Self.flyOutDistance, screen.width / 2 + Self.exitMargin) }

    public func button(at p: Point) -> ButtonRole? {
        buttons.first(where: { $0.frame.contains(p) })?.role
    }

    public func frame(of role: ButtonRole) -> Rect? { buttons.first(where: { $0.role == role })?.frame }

    /// The transform of a card with drag translation `drag` (finger space) at stack depth
    /// `depth` (0 = top; fractional while the stack closes up): the SwiftUI design's
    /// `.offset(x: dx, y: dy / 12 + 8·i)`, `.rotationEffect(.degrees(dx / 20))`,
    /// `.scaleEffect(1 − 0.04·i)`.
    /// With `turns` false (reduced motion) the card never rotates: it slides.
    public func cardTransform(drag: Point, depth: Double, turns: Bool = true) -> Transform {
        Transform(
            translation: Point(x: drag.x, y: drag.y / 12 + Self.depthOffset * depth * fit),
            rotation: turns ? drag.x / 20 * Double.pi / 180 : 0,
            scale: max(0, 1 - Self.depthScale * depth) * fit)
    }

    /// A flick dismisses only after the card has travelled this far (Tinder-style stacks
    /// ask for about half of the seed's threshold): a short jab must not store a decision.
    public static let flickMinimumDistance = 60.0
    /// …and only when the finger still moves at least this fast towards that side at the lift
    /// (points per second, least squares over the last ~100 ms).
    public static let flickMinimumSpeed = 300.0

    /// The side a released drag dismisses to. Beyond the seed's 120 pt the drag's own side
    /// wins. Short of it, a flick dismisses when it has travelled at least
    /// `flickMinimumDistance`, is faster than `flickMinimumSpeed` towards the same side, and
    /// its predicted end (translation + velocity · 0.25 s) lies beyond 120 pt on that side.
    public static func dismissDirection(translation: Point, predictedEnd: Point) -> DismissDirection? {
        if translation.x > dismissThreshold { return .right }
        if translation.x < -dismissThreshold { return .left }
        let speed = (predictedEnd.x - translation.x) / DragRecognizer.projectionTime
        if translation.x >= flickMinimumDistance && speed >= flickMinimumSpeed && predictedEnd.x > dismissThreshold {
            return .right
        }
        if translation.x <= -flickMinimumDistance && speed <= -flickMinimumSpeed
            && predictedEnd.x < -dismissThreshold
        {
            return .left
        }
        return nil
    }
}

/// A button and where it sits.
public struct LaidOutButton: Hashable, Sendable {
    public var role: ButtonRole
    public var frame: Rect
}
