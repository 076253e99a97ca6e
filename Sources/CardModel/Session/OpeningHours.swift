/// Applies a `Schedule` to the running kiosk: when to show the closed-hours screen or switch
/// the panel off, and when to open again — never in the middle of a visit.
///
/// Pure: the app passes what the schedule says now (from the local civil time) and whether a
/// visitor is busy; time comes in with every call.
public struct OpeningHours: Hashable, Sendable {
    public enum Effect: Hashable, Sendable {
        /// Closed: show the closed screen, or switch the panel off when `blank`.
        case close(blank: Bool)
        /// Open again: panel on, a fresh visit.
        case open
        /// A touch while closed and dark lit the panel on the closed screen (decides nothing).
        case wake
        /// The woken closed screen has been left alone long enough: dark again.
        case blank
    }

    public var blankWhenClosed: Bool
    public var wakeOnTouch: Bool
    /// Seconds a touch-woken closed screen stays lit.
    public var wakeSeconds: Double
    public private(set) var isClosed = false
    /// The panel is off because of the schedule.
    public private(set) var isDark = false
    private var litUntil: Instant?

    public init(blankWhenClosed: Bool, wakeOnTouch: Bool, wakeSeconds: Double = 30) {
        self.blankWhenClosed = blankWhenClosed
        self.wakeOnTouch = wakeOnTouch
        self.wakeSeconds = wakeSeconds
    }

    /// What the schedule says at `time` (`open`), with whether a visit is under way: closing
    /// waits for the visit to end (call again when it does).
    public mutating func update(open: Bool, visitActive: Bool, at time: Instant) -> [Effect] {
        if open && isClosed {
            isClosed = false
            isDark = false
            litUntil = nil
            return [.open]
        }
        if !open && !isClosed && !visitActive {
            isClosed = true
            isDark = blankWhenClosed
            return [.close(blank: blankWhenClosed)]
        }
        return []
    }

    /// A touch (or key) while closed: returns whether to swallow it (always, while closed —
    /// the closed screen has nothing to decide) and what to do.
    public mutating func touch(at time: Instant) -> (swallow: Bool, effects: [Effect]) {
        guard isClosed else { return (false, []) }
        guard blankWhenClosed else { return (true, []) }
        if isDark {
            guard wakeOnTouch else { return (true, []) }
            isDark = false
            litUntil = time.advanced(bySeconds: wakeSeconds)
            return (true, [.wake])
        }
        litUntil = time.advanced(bySeconds: wakeSeconds)
        return (true, [])
    }

    /// When `advance(to:)` has something to do.
    public var nextDeadline: Instant? { isClosed && !isDark ? litUntil : nil }

    public mutating func advance(to time: Instant) -> [Effect] {
        guard isClosed, !isDark, let until = litUntil, time >= until else { return [] }
        isDark = true
        litUntil = nil
        return [.blank]
    }

    /// The closed-hours screen: `text` in the middle of a `screen`-sized scene.
    public static func closedScene(text: String, screen: Size) -> Scene {
        Scene(
            size: screen, background: Color(rgb: 0x1C1C1E),
            elements: [
                SceneElement(
                    id: "closed:text", kind: .notice(text: text),
                    frame: Rect(x: 40, y: 0, width: screen.width - 80, height: screen.height))
            ], isAnimating: false)
    }
}
