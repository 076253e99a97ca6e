/// The hidden way into the staff menu: taps in a screen corner, the last one held — a
/// sequence a crowd does not make by accident. Any touch elsewhere, a second finger, a slow
/// tap or too long between taps starts the sequence over.
///
/// Pure: frames carry their time; `advance(to:)` at `nextDeadline` notices the hold.
public struct StaffEntry: Sendable {
    /// Which screen corner the taps go in (the screen as the visitor sees it).
    public enum Corner: String, Hashable, Sendable, CaseIterable {
        case topLeft = "top-left"
        case topRight = "top-right"
        case bottomLeft = "bottom-left"
        case bottomRight = "bottom-right"

        /// The corner as a layout made left to right sees it when `direction` mirrors it.
        public func inLayout(_ direction: LayoutDirection) -> Corner {
            guard direction == .rightToLeft else { return self }
            switch self {
            case .topLeft: return .topRight
            case .topRight: return .topLeft
            case .bottomLeft: return .bottomRight
            case .bottomRight: return .bottomLeft
            }
        }
    }

    public struct Rule: Hashable, Sendable {
        /// The corner the taps go in.
        public var corner: Corner = .topLeft
        /// The corner square's side, points.
        public var cornerSize: Double = 80
        /// Taps including the held one (default 3).
        public var taps: Int = 3
        /// All taps within this many seconds, from the first touch to the last one's landing.
        public var within: Double = 3
        /// The last touch held this long.
        public var hold: Double = 3
        /// A tap (not the last) lifts within this long.
        public var tapMax: Double = 0.6
        /// A finger moving farther than this is not a tap.
        public var slop: Double = 12

        public init(
            corner: Corner = .topLeft, cornerSize: Double = 80, taps: Int = 3, within: Double = 3, hold: Double = 3
        ) {
            self.corner = corner
            self.cornerSize = cornerSize
            self.taps = max(1, taps)
            self.within = within
            self.hold = hold
        }
    }

    public let rule: Rule
    /// The corner square's side at most (points; nil: the rule's): the list keeps it inside
    /// its title bar, so it lies over no row.
    public var cornerLimit: Double?
    /// The corner square's side in effect.
    var cornerSide: Double { min(rule.cornerSize, cornerLimit ?? rule.cornerSize) }
    /// The screen's size in points (where the right and bottom corners are).
    public var screen: Size
    private var tapTimes: [Instant] = []
    private var down: (id: Int, at: Instant, start: Point)?
    private var otherContacts: Set<Int> = []

    public init(rule: Rule = Rule(), screen: Size = Size(width: 800, height: 480)) {
        self.rule = rule
        self.screen = screen
    }

    /// The corner square the taps go in (screen points, as the visitor sees the screen).
    public var cornerRect: Rect {
        let s = cornerSide
        let x: Double
        let y: Double
        switch rule.corner {
        case .topLeft, .bottomLeft: x = 0
        case .topRight, .bottomRight: x = screen.width - s
        }
        switch rule.corner {
        case .topLeft, .topRight: y = 0
        case .bottomLeft, .bottomRight: y = screen.height - s
        }
        return Rect(x: x, y: y, width: s, height: s)
    }

    func inCorner(_ p: Point) -> Bool {
        let s = cornerSide
        let xOK: Bool
        let yOK: Bool
        switch rule.corner {
        case .topLeft, .bottomLeft: xOK = p.x >= 0 && p.x < s
        case .topRight, .bottomRight: xOK = p.x > screen.width - s && p.x <= screen.width
        }
        switch rule.corner {
        case .topLeft, .topRight: yOK = p.y >= 0 && p.y < s
        case .bottomLeft, .bottomRight: yOK = p.y > screen.height - s && p.y <= screen.height
        }
        return xOK && yOK
    }

    /// Follows a touch frame (screen points). The entry itself is made in `advance(to:)`,
    /// once the last touch has been held.
    public mutating func handle(_ frame: TouchFrame) {
        for c in frame.contacts {
            switch c.phase {
            case .began:
                if down != nil || !otherContacts.isEmpty || !inCorner(c.position) {
                    // A second finger or a touch elsewhere: not the staff gesture.
                    startOver()
                    otherContacts.insert(c.id)
                    continue
                }
                if let first = tapTimes.first, frame.time.seconds(since: first) > rule.within { startOver() }
                down = (c.id, frame.time, c.position)
            case .moved:
                if let d = down, d.id == c.id,
                    Point(x: c.position.x - d.start.x, y: c.position.y - d.start.y).length > rule.slop
                {
                    startOver()
                }
            case .ended, .cancelled:
                otherContacts.remove(c.id)
                guard let d = down, d.id == c.id else { continue }
                down = nil
                if c.phase == .ended && frame.time.seconds(since: d.at) <= rule.tapMax && tapTimes.count < rule.taps - 1
                {
                    tapTimes.append(d.at)
                } else {
                    startOver()
                }
            }
        }
    }

    /// When the held touch will have been held long enough; nil when no hold is under way.
    public var nextDeadline: Instant? {
        guard let d = holdCandidate else { return nil }
        return d.advanced(bySeconds: rule.hold)
    }

    /// The landing time of a touch that, held, completes the sequence.
    private var holdCandidate: Instant? {
        guard let d = down, tapTimes.count == rule.taps - 1 else { return nil }
        if let first = tapTimes.first, d.at.seconds(since: first) > rule.within { return nil }
        return d.at
    }

    /// True once when the held touch reaches `hold` by `now` (open the PIN pad); the sequence
    /// starts over.
    public mutating func advance(to now: Instant) -> Bool {
        guard let at = holdCandidate, now.seconds(since: at) >= rule.hold else { return false }
        startOver()
        return true
    }

    private mutating func startOver() {
        tapTimes = []
        down = nil
    }
}

/// The staff PIN's lockout: `maxAttempts` wrong PINs in a row lock the pad for `lockSeconds`.
public struct PinLock: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        case accepted
        /// Wrong; `left` more tries before the lock.
        case wrong(left: Int)
        /// Wrong for the last time, or tried while locked: no PIN is checked until `until`.
        case locked(until: Instant)
    }

    public var maxAttempts = 3
    public var lockSeconds = 60.0
    public private(set) var wrongInARow = 0
    public private(set) var lockedUntil: Instant?

    public init(maxAttempts: Int = 3, lockSeconds: Double = 60) {
        self.maxAttempts = maxAttempts
        self.lockSeconds = lockSeconds
    }

    public func isLocked(at now: Instant) -> Bool { lockedUntil.map { now < $0 } ?? false }

    /// An attempt at `now` whose PIN `correct` says matched (the caller checks the hash only when
    /// `isLocked(at:)` is false; while locked the outcome is `.locked` whatever was typed).
    public mutating func attempt(correct: Bool, at now: Instant) -> Outcome {
        if let until = lockedUntil {
            if now < until { return .locked(until: until) }
            lockedUntil = nil
            wrongInARow = 0
        }
        if correct {
            wrongInARow = 0
            return .accepted
        }
        wrongInARow += 1
        if wrongInARow >= maxAttempts {
            let until = now.advanced(bySeconds: lockSeconds)
            lockedUntil = until
            return .locked(until: until)
        }
        return .wrong(left: maxAttempts - wrongInARow)
    }
}
