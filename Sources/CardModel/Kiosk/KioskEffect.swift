/// What the kiosk's rules ask the shell to do. `Kiosk` decides; the shell performs each effect
/// in the order given, in one place (htop's `Action.h` reactions, swift-nio's state machines'
/// actions).
public enum KioskEffect: Hashable, Sendable {
    public enum LogLevel: Hashable, Sendable {
        case info, warning, error
    }

    /// A line for the log.
    case log(LogLevel, String)
    /// A visitor decided: store it.
    case decision(KioskDecision)
    /// A visit began, ended or the attract screen showed: record it.
    case visit(VisitorSession.VisitEvent)
    /// An idle reset under `partialVisit: discard`: mark that visit's decisions.
    case discardVisit(sessionID: String)
    /// A deck is now on screen (its decisions and visits carry its id and version).
    case deckShown(KioskDeck)
    /// Switch the panel on or off.
    case power(on: Bool)
    /// Everything on screen may have changed: draw the whole frame again.
    case redrawAll
    /// An input reached a layer on screen: the next presented frame shows it (latency).
    case inputShown(at: Instant)
    /// The first finger of a gesture on the deck (the stats count gestures).
    case gestureBegan
    /// Read `text` aloud in `language`.
    case speak(String, language: String)
    /// Check this PIN against the stored hash and answer with `.pinChecked`.
    case checkPIN(String)
    /// Look at the opening hours and the schedule's windows now and answer with `.schedule`.
    case lookAtSchedule
    /// Read the deck file at `path` (a schedule window's) and answer with `.windowDeckLoaded`.
    case loadDeck(path: String)
    /// Read the deck files again (the staff menu's reload): the kiosk's own, then the window's
    /// on screen, if any; answer with `.primaryDeckChanged` / `.windowDeckLoaded`.
    case reloadDecks(window: String?)
    /// Save a screenshot of the frame on screen.
    case screenshot
    /// Start the touch calibration on the raw device frames (answer with `.calibration`), or stop it.
    case calibration(running: Bool)
}

/// A decision with what the store needs to know about its visit.
public struct KioskDecision: Hashable, Sendable {
    public var decision: Decision
    public var sessionID: String
    public var deckID: String
    public var deckVersion: Int
    /// Inside the deck's cooldown after the previous decision (flagged, still stored).
    public var tooFast: Bool
    /// The language the visitor read the card in.
    public var language: String
    /// Whether the visit had an accessibility mode on (or the kiosk is always accessible).
    public var accessibilityMode: Bool

    public init(
        decision: Decision, sessionID: String, deckID: String, deckVersion: Int, tooFast: Bool, language: String,
        accessibilityMode: Bool
    ) {
        self.decision = decision
        self.sessionID = sessionID
        self.deckID = deckID
        self.deckVersion = deckVersion
        self.tooFast = tooFast
        self.language = language
        self.accessibilityMode = accessibilityMode
    }
}

/// What reaches the kiosk's rules, each at an explicit instant.
public enum KioskInput: Hashable, Sendable {
    /// A touch frame in screen points (the shell mapped and turned it).
    case touch(TouchFrame)
    /// A key of a keyboard or keypad.
    case key(AccessKey)
    /// The one switch (`switch-key`) went down or up.
    case switchKey(pressed: Bool)
    /// The visitor picked a language (its key; `render --lang`).
    case language(String)
    /// The staff key combination on a keyboard.
    case staffKeys
    /// Time passed (the shell's one timer at `nextDeadline`).
    case tick
    /// The PIN check's answer.
    case pinChecked(correct: Bool)
    /// The opening hours now: `open`, the deck the open window names (nil: the kiosk's own),
    /// and when to look again (nil: only when something changes).
    case schedule(open: Bool, window: String?, lookAgainAt: Instant?)
    /// The deck file changed on disk (hot reload; from the fleet when `fromFleet`).
    case deckArrived(KioskDeck, fromFleet: Bool)
    /// The kiosk's own deck file, read again (the staff menu's reload).
    case primaryDeckChanged(KioskDeck)
    /// A schedule window's deck, read.
    case windowDeckLoaded(path: String, deck: KioskDeck)
    /// The calibration's next target (nil: done) and what to say about the last tap.
    case calibration(target: Point?, step: Int?, of: Int, note: String?)
    /// The screen changed size (a new mode, a new panel).
    case resize(ScreenMetrics)
    /// The kiosk is stopping: the visit ends.
    case shutdown
}
