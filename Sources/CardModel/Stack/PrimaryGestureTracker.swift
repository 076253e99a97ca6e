/// One completed primary-contact gesture, as the stack would judge it.
public struct GestureSummary: Hashable, Sendable {
    public enum Kind: String, Sendable {
        case tap, drag
        /// Stayed within the slop past the long-press limit: acts as nothing.
        case hold
        /// Ended without a lift (palm, too many contacts, unplug, SYN_DROPPED): acts as nothing.
        case cancelled
    }

    public var kind: Kind
    /// From touch-down to lift, in points (zero for a cancel).
    public var translation: Point
    /// Points per second at the lift.
    public var velocity: Point
    public var predictedEndTranslation: Point
    /// The side the stack would dismiss a card to; nil for a tap or a drag that springs back.
    public var dismiss: DismissDirection?

    public init(
        kind: Kind, translation: Point, velocity: Point, predictedEndTranslation: Point, dismiss: DismissDirection?
    ) {
        self.kind = kind
        self.translation = translation
        self.velocity = velocity
        self.predictedEndTranslation = predictedEndTranslation
        self.dismiss = dismiss
    }
}

/// Follows the primary contact through touch frames and summarises each gesture when it ends
/// (for `KioskCards replay`): the same slop, velocity and dismiss rule as `StackDeck`.
public struct PrimaryGestureTracker {
    private var intake: GestureIntake

    public init(metrics: ScreenMetrics) {
        intake = GestureIntake(slop: metrics.touchSlop)
    }

    /// Non-nil when the primary contact's gesture ends in `frame` (a lift or a cancel).
    public mutating func handle(_ frame: TouchFrame) -> GestureSummary? {
        var summary: GestureSummary?
        intake.take(frame)
        while let e = intake.nextEvent() {
            switch e {
            case .ended(let end):
                let kind: GestureSummary.Kind = end.isTap ? .tap : end.isHold ? .hold : .drag
                summary = GestureSummary(
                    kind: kind, translation: end.translation, velocity: end.velocity,
                    predictedEndTranslation: end.predictedEndTranslation,
                    dismiss: kind == .drag
                        ? StackLayout.dismissDirection(
                            translation: end.translation, predictedEnd: end.predictedEndTranslation)
                        : nil)
            case .cancelled:
                summary = GestureSummary(
                    kind: .cancelled, translation: .zero, velocity: .zero, predictedEndTranslation: .zero, dismiss: nil)
            default:
                break
            }
        }
        return summary
    }
}
