/// The between-visitors policy: who is using the kiosk, when to reset for the next visitor,
/// when to switch the panel off, and which touches may reach the deck.
///
/// Pure: time comes in with every call (`TouchFrame.time`, `advance(to:)`), so tests drive the
/// clock. Like libinput's tap state machine, one method per input, each returning what to do.
///
/// - After `idleTimeout` seconds without a touch (and no finger down) an active session ends:
///   `.reset(sessionID:)` — the deck goes back to its first card, the attract screen shows,
///   and decisions from now carry the new session id.
/// - After `blankTimeout` seconds without a touch the panel is switched off (`.blank`). The next
///   touch wakes it (`.wake`) and is swallowed up to its lift — every contact that begins
///   before all fingers are up — so the waking touch never acts on a card.
public struct VisitorSession {
    public struct Policy: Hashable, Sendable {
        /// Seconds without a touch before the reset; the config's or deck's value (default 60).
        public var idleTimeout: Double = 60
        /// Seconds without a touch before the panel goes dark; nil: never.
        public var blankTimeout: Double?

        public init(idleTimeout: Double = 60, blankTimeout: Double? = nil) {
            self.idleTimeout = idleTimeout
            self.blankTimeout = blankTimeout
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
    }

    public let policy: Policy
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
        lastActivity = max(lastActivity, frame.time)
        let waking = phase == .blanked && frame.contacts.contains { $0.phase == .began }
        if waking {
            effects.append(.wake)
            phase = .attract
            attractSince = frame.time
            visitEvents.append(.attractShown(at: frame.time))
        }
        // While a waking contact is down, new contacts belong to the waking touch too.
        let swallowing = waking || !swallowed.isEmpty || phase == .blanked
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
        if phase == .attract {
            phase = .active
            attractSince = nil
            visitEvents.append(.started(sessionID: sessionID, at: time))
        }
    }

    /// What the passage of time does by `now`: call it at `nextDeadline` (or on every frame).
    public mutating func advance(to now: Instant) -> [Effect] {
        guard contactsDown.isEmpty else { return [] }
        let idle = now.seconds(since: lastActivity)
        var effects: [Effect] = []
        if phase == .active && idle >= policy.idleTimeout {
            effects.append(resetForNextVisitor(at: now))
        }
        if let blank = policy.blankTimeout, phase != .blanked, idle >= blank {
            if phase == .active { effects.append(resetForNextVisitor(at: now)) }
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
        if phase == .active { deadlines.append(lastActivity.advanced(bySeconds: policy.idleTimeout)) }
        if let blank = policy.blankTimeout, phase != .blanked {
            deadlines.append(lastActivity.advanced(bySeconds: blank))
        }
        return deadlines.min()
    }

    private mutating func resetForNextVisitor(at now: Instant) -> Effect {
        visitEvents.append(
            .ended(sessionID: sessionID, at: lastActivity, reason: deckCompleted ? .completed : .idle))
        sessionID = newSessionID()
        deckCompleted = false
        phase = .attract
        attractSince = now
        visitEvents.append(.attractShown(at: now))
        return .reset(sessionID: sessionID)
    }
}
