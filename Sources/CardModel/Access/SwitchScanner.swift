/// One-switch scanning (for visitors with limited motor control): a single key moves a
/// highlight through the deck's `scanChoices`, and selecting gives the highlighted choice.
///
/// - `.perPress`: a short press steps to the next choice; holding the key `longPress` seconds
///   selects (at that moment, without waiting for the release).
/// - `.automatic(interval:)`: the highlight steps by itself every `interval` seconds; any press selects.
///
/// Pure: every call carries its time; `nextWakeup` says when the app must call `advance` again.
public struct SwitchScanner: Hashable, Sendable {
    public enum Stepping: Hashable, Sendable {
        case perPress
        case automatic(interval: Double)
    }

    public var stepping: Stepping
    /// Seconds a press must last to select in `.perPress`.
    public var longPress: Double
    /// The highlighted position (taken modulo the current number of choices).
    public private(set) var index = 0
    private var pressedAt: Instant?
    private var firedDuringPress = false
    /// `.automatic`: when the highlight last moved (or scanning began).
    private var lastStep: Instant?

    public init(stepping: Stepping = .perPress, longPress: Double = 0.8) {
        self.stepping = stepping
        self.longPress = longPress
    }

    /// The highlighted choice of `choices`.
    public func highlighted(in choices: [ScanChoice]) -> ScanChoice? {
        choices.isEmpty ? nil : choices[index % choices.count]
    }

    /// The switch went down; returns the selected choice in `.automatic`.
    public mutating func press(at t: Instant, choices: [ScanChoice]) -> ScanChoice? {
        _ = advance(to: t, choices: choices)
        pressedAt = t
        firedDuringPress = false
        guard case .automatic = stepping else { return nil }
        firedDuringPress = true
        lastStep = t
        return highlighted(in: choices)
    }

    /// The switch came up; in `.perPress` a short press steps to the next choice.
    public mutating func release(at t: Instant, choices: [ScanChoice]) -> ScanChoice? {
        let selected = advance(to: t, choices: choices)
        defer {
            pressedAt = nil
            firedDuringPress = false
        }
        guard pressedAt != nil, !firedDuringPress, selected == nil, case .perPress = stepping else { return selected }
        if !choices.isEmpty { index = (index % choices.count + 1) % choices.count }
        return nil
    }

    /// Time passes: a held switch may reach `longPress` (the choice is returned once), and the
    /// automatic highlight steps.
    public mutating func advance(to t: Instant, choices: [ScanChoice]) -> ScanChoice? {
        switch stepping {
        case .perPress:
            if let p = pressedAt, !firedDuringPress, t.seconds(since: p) >= longPress {
                firedDuringPress = true
                return highlighted(in: choices)
            }
        case .automatic(let interval):
            guard interval > 0, !choices.isEmpty else { return nil }
            guard var last = lastStep else {
                lastStep = t
                return nil
            }
            while t.seconds(since: last) >= interval {
                index = (index % choices.count + 1) % choices.count
                last = last.advanced(bySeconds: interval)
            }
            lastStep = last
        }
        return nil
    }

    /// When `advance` has something to do next without input; nil when it may sleep.
    public var nextWakeup: Instant? {
        switch stepping {
        case .perPress:
            guard let p = pressedAt, !firedDuringPress else { return nil }
            return p.advanced(bySeconds: longPress)
        case .automatic(let interval):
            return lastStep?.advanced(bySeconds: interval)
        }
    }

    /// Rings the choice at `position` now, because the choices changed under the ring (the
    /// accessibility control opened or closed); in `.automatic` it stays there a whole interval.
    /// A press in progress carries on: the release after a long press still selects nothing.
    public mutating func highlight(_ position: Int, at t: Instant) {
        index = max(0, position)
        if case .automatic = stepping { lastStep = t }
    }

    /// Back to the first choice (the next visitor).
    public mutating func reset() {
        index = 0
        pressedAt = nil
        firedDuringPress = false
        lastStep = nil
    }
}
