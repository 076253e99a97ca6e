/// The between-visitors policy: who is using the kiosk, when to reset for the next visitor,
/// when to switch the panel off, and which touches may reach the deck.
///
/// Pure: time comes in with every call (`TouchFrame.time`, `advance(to:)`), so tests drive the
/// clock. Like libinput's tap state machine, one method per input, each returning what to do.
///
/// - After `idleTimeout` seconds without a touch (and no finger down) an active session ends:
///   `.reset(sessionID:)` — the deck goes back to its first card, the attract screen shows,
///   and decisions from now carry the new session id.
/// - For the last `warningSeconds` before that reset the visitor is warned (`warning(at:)`: a
///   countdown with "tap to continue"). Any touch or key then extends the visit
///   (`.warningExtended`), as often as the visitor likes (WCAG 2.2.1 asks for at least ten), and
///   that touch or key is swallowed: it decides nothing. On timeout a `discard` policy first
///   asks for the visit's decisions to be marked (`.discardVisit`), never deleted.
/// - After `blankTimeout` seconds without a touch the panel is switched off (`.blank`). The next
///   touch wakes it (`.wake`) and is swallowed up to its lift — every contact that begins
///   before all fingers are up — so the waking touch never acts on a card.
public struct VisitorSession {
    public struct Policy: Hashable, Sendable {
        /// Seconds without a touch before the reset; the config's or deck's value (default 60).
        public var idleTimeout: Double = 60
        /// Seconds without a touch before the panel goes dark; nil: never.
        public var blankTimeout: Double?
        /// Seconds before the idle reset in which the countdown shows; 0: no warning. Capped
        /// at `idleTimeout` (a visitor is never warned from the first second).
        public var warningSeconds: Double = 10
        /// What an idle reset does with the visit's decisions.
        public var partialVisit: PartialVisitPolicy = .keep

        public init(
            idleTimeout: Double = 60, blankTimeout: Double? = nil, warningSeconds: Double = 10,
            partialVisit: PartialVisitPolicy = .keep
        ) {
            self.idleTimeout = idleTimeout
            self.blankTimeout = blankTimeout
            self.warningSeconds = warningSeconds
            self.partialVisit = partialVisit
        }

        /// The accessible mode's hook: a warning of at least `accessibleWarningSeconds`, and an
        /// idle timeout long enough to hold it and 10 s of use before it.
        public func accessible() -> Policy {
            var p = self
            p.warningSeconds = max(p.warningSeconds, Self.accessibleWarningSeconds)
            p.idleTimeout = max(p.idleTimeout, p.warningSeconds + 10)
            return p
        }

        public static let accessibleWarningSeconds = 20.0

        /// The warning's length as used: within 0…idleTimeout.
        var effectiveWarning: Double { min(max(0, warningSeconds), idleTimeout) }
    }

    /// What happens to a visit's decisions when the visitor walks away (the idle reset).
    public enum PartialVisitPolicy: String, Hashable, Sendable, CaseIterable {
        /// They count like any other (the default).
        case keep
        /// They stay stored but are marked discarded (`.discardVisit`), so analyses can leave
        /// them out. A visit that ends by the stack running empty is never discarded.
        case discard
    }

    /// The countdown before the idle reset, as the scene shows it.
    public struct Warning: Hashable, Sendable {
        /// When the visit ends unless someone touches.
        public var resetAt: Instant
        /// Whole seconds left, rounded up (10, 9, … 1).
        public var secondsLeft: Int
        /// How often this visit has been extended so far.
        public var extensions: Int

        public init(resetAt: Instant, secondsLeft: Int, extensions: Int) {
            self.resetAt = resetAt
            self.secondsLeft = secondsLeft
            self.extensions = extensions
        }
    }

    public enum Phase: Hashable, Sendable {
        /// Waiting for a visitor: the attract screen ("Tippen zum Starten", a hinting swipe).
        case attract
        /// A visitor is using the deck.
        case active
        /// The panel is off.
        case blanked
    }

    public enum Effect: Hashable, Sendable {
        /// Reset the deck for the next visitor and show the attract screen.
        case reset(sessionID: String)
        /// Switch the panel off (DPMS off).
        case blank
        /// Switch the panel on (the deck is already in attract mode).
        case wake
        /// The countdown before the idle reset begins (draw it; redraw every second).
        case warningShown(resetAt: Instant)
        /// A touch or key during the countdown extended the visit (hide the countdown).
        case warningExtended(count: Int)
        /// Mark the decisions of the visit `sessionID` discarded (the `discard` policy); comes
        /// just before that visit's `.reset`.
        case discardVisit(sessionID: String)
    }

    /// Why a visit ended.
    public enum VisitEndReason: String, Hashable, Sendable, CaseIterable {
        /// The idle timeout passed after the visitor had decided every card (`deckCompleted`).
        case completed
        /// The idle timeout passed with cards left: the visitor walked away.
        case idle
        /// The app started over (a reloaded deck file, a new display mode).
        case reset
        /// The kiosk stopped while a visitor was there.
        case shutdown
    }

    /// What happened to visits, for the store; `takeVisitEvents()` hands each out once.
    public enum VisitEvent: Hashable, Sendable {
        /// The attract screen appeared (at start, after a visit, after the panel woke).
        case attractShown(at: Instant)
        /// A visitor began: the first touch or action after the attract screen.
        case started(sessionID: String, at: Instant)
        /// The visit ended; `at` is its last activity (idle, completed) or the moment it was cut
        /// short (reset, shutdown).
        case ended(sessionID: String, at: Instant, reason: VisitEndReason)
        /// A link's QR code came on screen during the visit (a card's, `card` its id, or the
        /// end state's, `card` nil); from `Kiosk`, once per code and visit.
        case linkShown(sessionID: String, card: String?, at: Instant)
    }

    /// Settable: a reloaded deck file brings its own timeouts (they count from the last touch).
    public var policy: Policy
    public private(set) var phase = Phase.attract
    /// The current (or, in attract mode, the next) visitor's session id.
    public private(set) var sessionID: String
    /// The last touch or decision.
    package private(set) var lastActivity: Instant
    /// When the attract screen appeared (drives its hint animation); nil unless attracting.
    public private(set) var attractSince: Instant?
    private var contactsDown: Set<Int> = []
    /// Contacts of the waking touch, never delivered.
    private var swallowed: Set<Int> = []
    private let newSessionID: () -> String
    private var visitEvents: [VisitEvent] = []
    /// Whether the visitor has decided every card; the app keeps it current (a stack with no
    /// cards left), so an idle end says `.completed` instead of `.idle`.
    public var deckCompleted = false
    /// The countdown is on screen (a `.warningShown` was returned and nothing extended it yet).
    public private(set) var warningShowing = false
    /// How often the current visit was extended from the countdown.
    public private(set) var extensions = 0

    /// Starts in attract mode with a fresh session id; `newSessionID` makes ids (the app
    /// passes `RandomID.uuid`).
    public init(policy: Policy, now: Instant, newSessionID: @escaping () -> String) {
        self.policy = policy
        self.newSessionID = newSessionID
        sessionID = newSessionID()
        lastActivity = now
        attractSince = now
        visitEvents.append(.attractShown(at: now))
    }

    /// The visit events since the last call, in order, each returned once.
    public mutating func takeVisitEvents() -> [VisitEvent] {
        defer { visitEvents.removeAll() }
        return visitEvents
    }

    /// Ends the current visit for `reason` (the app starting over, or stopping) and shows the
    /// attract screen with a fresh session id; nothing when no visitor is here.
    public mutating func endVisit(reason: VisitEndReason, at now: Instant) {
        guard phase == .active else { return }
        visitEvents.append(.ended(sessionID: sessionID, at: now, reason: reason))
        sessionID = newSessionID()
        deckCompleted = false
        phase = .attract
        attractSince = now
        visitEvents.append(.attractShown(at: now))
    }

    /// Routes one touch frame: returns the frame to give the deck (nil: nothing to deliver) and
    /// what to do first.
    public mutating func handle(_ frame: TouchFrame) -> (deliver: TouchFrame?, effects: [Effect]) {
        var effects: [Effect] = []
        guard !frame.contacts.isEmpty else { return (frame, []) }
        let began = frame.contacts.contains { $0.phase == .began }
        let extending = began && isWarning(at: frame.time)
        if extending { effects.append(extend()) }
        lastActivity = max(lastActivity, frame.time)
        warningShowing = false
        let waking = phase == .blanked && began
        if waking {
            effects.append(.wake)
            phase = .attract
            attractSince = frame.time
            visitEvents.append(.attractShown(at: frame.time))
        }
        // While a waking (or extending) contact is down, new contacts belong to that touch too.
        let swallowing = waking || extending || !swallowed.isEmpty || phase == .blanked
        var delivered: [TouchContact] = []
        for c in frame.contacts {
            switch c.phase {
            case .began:
                contactsDown.insert(c.id)
                if swallowing { swallowed.insert(c.id) }
            case .moved:
                contactsDown.insert(c.id)
            case .ended, .cancelled:
                contactsDown.remove(c.id)
            }
            if !swallowed.contains(c.id) { delivered.append(c) }
            if c.phase == .ended || c.phase == .cancelled { swallowed.remove(c.id) }
        }
        if phase == .attract && delivered.contains(where: { $0.phase == .began }) {
            phase = .active
            attractSince = nil
            visitEvents.append(.started(sessionID: sessionID, at: frame.time))
        }
        let out = delivered.isEmpty ? nil : TouchFrame(time: frame.time, contacts: delivered)
        return (out, effects)
    }

    /// A decision or an on-screen button press: activity that is not a touch frame.
    public mutating func noteActivity(at time: Instant) {
        lastActivity = max(lastActivity, time)
        warningShowing = false
        if phase == .attract {
            phase = .active
            attractSince = nil
            visitEvents.append(.started(sessionID: sessionID, at: time))
        }
    }

    /// A key press: activity like a touch. Returns whether the key may act on the deck — false
    /// for the key that extends the visit from the countdown — and what to do first.
    public mutating func handleKey(at time: Instant) -> (deliver: Bool, effects: [Effect]) {
        let extending = isWarning(at: time)
        let effects = extending ? [extend()] : []
        noteActivity(at: time)
        return (!extending, effects)
    }

    /// The countdown to draw at `now`; nil when none shows.
    public func warning(at now: Instant) -> Warning? {
        guard isWarning(at: now) else { return nil }
        let resetAt = lastActivity.advanced(bySeconds: policy.idleTimeout)
        let left = max(0, resetAt.seconds(since: now))
        return Warning(resetAt: resetAt, secondsLeft: max(1, Int(left.rounded(.up))), extensions: extensions)
    }

    /// When the countdown's number next changes after `now` (to redraw then); nil: no countdown.
    public func warningTick(after now: Instant) -> Instant? {
        guard let w = warning(at: now) else { return nil }
        let left = w.resetAt.seconds(since: now)
        let step = left - (left.rounded(.up) - 1)
        return now.advanced(bySeconds: step > 0 ? step : 1)
    }

    private func isWarning(at now: Instant) -> Bool {
        guard phase == .active, contactsDown.isEmpty, policy.effectiveWarning > 0 else { return false }
        let idle = now.seconds(since: lastActivity)
        return idle >= policy.idleTimeout - policy.effectiveWarning && idle < policy.idleTimeout
    }

    private mutating func extend() -> Effect {
        extensions += 1
        warningShowing = false
        return .warningExtended(count: extensions)
    }

    /// What the passage of time does by `now`: call it at `nextDeadline` (or on every frame).
    public mutating func advance(to now: Instant) -> [Effect] {
        guard contactsDown.isEmpty else { return [] }
        let idle = now.seconds(since: lastActivity)
        var effects: [Effect] = []
        if !warningShowing, isWarning(at: now) {
            warningShowing = true
            effects.append(.warningShown(resetAt: lastActivity.advanced(bySeconds: policy.idleTimeout)))
        }
        if phase == .active && idle >= policy.idleTimeout {
            effects += endVisitOnTimeout(at: now)
        }
        if let blank = policy.blankTimeout, phase != .blanked, idle >= blank {
            if phase == .active { effects += endVisitOnTimeout(at: now) }
            phase = .blanked
            attractSince = nil
            effects.append(.blank)
        }
        return effects
    }

    /// When `advance(to:)` will next have something to do; nil: only a touch changes anything.
    public var nextDeadline: Instant? {
        guard contactsDown.isEmpty else { return nil }
        var deadlines: [Instant] = []
        if phase == .active {
            let reset = lastActivity.advanced(bySeconds: policy.idleTimeout)
            deadlines.append(warningShowing ? reset : reset.advanced(bySeconds: -policy.effectiveWarning))
        }
        if let blank = policy.blankTimeout, phase != .blanked {
            deadlines.append(lastActivity.advanced(bySeconds: blank))
        }
        return deadlines.min()
    }

    /// The idle timeout ends the visit: the policy's `.discardVisit`, then `.reset`.
    private mutating func endVisitOnTimeout(at now: Instant) -> [Effect] {
        // Only a partial visit: one that decided every card is complete whatever the policy.
        let discard: [Effect] =
            policy.partialVisit == .discard && !deckCompleted ? [.discardVisit(sessionID: sessionID)] : []
        return discard + [resetForNextVisitor(at: now)]
    }

    private mutating func resetForNextVisitor(at now: Instant) -> Effect {
        visitEvents.append(
            .ended(sessionID: sessionID, at: lastActivity, reason: deckCompleted ? .completed : .idle))
        warningShowing = false
        extensions = 0
        sessionID = newSessionID()
        deckCompleted = false
        phase = .attract
        attractSince = now
        visitEvents.append(.attractShown(at: now))
        return .reset(sessionID: sessionID)
    }
}
