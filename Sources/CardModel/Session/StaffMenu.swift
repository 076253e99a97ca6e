/// The staff menu over the deck: the PIN pad, then the menu with the kiosk's state and its
/// actions. Pure: taps (screen points) and time in, what to do and the elements to draw out.
public struct StaffMenu: Sendable {
    public enum Action: String, Hashable, Sendable, CaseIterable {
        case reloadDeck = "Deck neu laden"
        case restartVisit = "Besuch neu starten"
        case blankScreen = "Bildschirm aus"
        case screenshot = "Screenshot"
        case exit = "Schließen"
    }

    public enum Output: Hashable, Sendable {
        /// Check `pin` against the stored hash, then call `pinChecked`.
        case checkPIN(String)
        case perform(Action)
        /// Closed by 60 s without a touch.
        case closedIdle
    }

    public enum Page: Hashable, Sendable {
        case closed
        case pin(entered: String, message: String)
        case menu
    }

    public private(set) var page = Page.closed
    /// A `.checkPIN` is out and its answer not in yet: the pad shows "checking…" and takes no keys.
    public private(set) var isChecking = false
    public private(set) var lock = PinLock()
    public var idleSeconds = 60.0
    private var lastActivity = Instant.zero

    public init() {}

    public var isOpen: Bool { page != .closed }

    public mutating func open(at time: Instant) {
        isChecking = false
        page = .pin(entered: "", message: lock.isLocked(at: time) ? Self.lockedText : "PIN eingeben")
        lastActivity = time
    }

    static let lockedText = "Gesperrt — bitte 1 Minute warten"
    public static let checkingText = "Prüfe …"
    static let keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"]

    /// The PIN pad's keys and the menu's actions, laid out on a `screen`.
    public static func layout(_ page: Page, screen: Size) -> [(id: String, frame: Rect)] {
        switch page {
        case .closed: return []
        case .pin:
            let key = min(90, (screen.height - 160) / 4.4)
            let left = (screen.width - 3 * key - 2 * 12) / 2
            return keys.enumerated().map { i, k in
                let r = Double(i / 3)
                let c = Double(i % 3)
                return ("key:\(k)", Rect(x: left + c * (key + 12), y: 130 + r * (key + 12), width: key, height: key))
            }
        case .menu:
            let w = min(300, screen.width / 2 - 40)
            return Action.allCases.enumerated().map { i, a in
                ("action:\(a.rawValue)", Rect(x: screen.width - w - 30, y: 30 + Double(i) * 64, width: w, height: 52))
            }
        }
    }

    /// A touch landing at `p` while open.
    public mutating func tap(at p: Point, screen: Size, time: Instant) -> Output? {
        lastActivity = time
        guard let hit = Self.layout(page, screen: screen).first(where: { $0.frame.contains(p) })?.id else { return nil }
        switch page {
        case .closed: return nil
        case .pin(let entered, _):
            let k = String(hit.dropFirst(4))
            if isChecking { return nil }
            if lock.isLocked(at: time) {
                page = .pin(entered: "", message: Self.lockedText)
                return nil
            }
            switch k {
            case "⌫": page = .pin(entered: String(entered.dropLast()), message: "PIN eingeben")
            case "OK":
                guard !entered.isEmpty else { return nil }
                isChecking = true
                page = .pin(entered: entered, message: Self.checkingText)
                return .checkPIN(entered)
            default:
                if entered.count < 12 { page = .pin(entered: entered + k, message: "PIN eingeben") }
            }
            return nil
        case .menu:
            guard let a = Action.allCases.first(where: { "action:\($0.rawValue)" == hit }) else { return nil }
            if a == .exit || a == .blankScreen { page = .closed }
            return .perform(a)
        }
    }

    /// The hash check's answer for the PIN of the last `.checkPIN`; nil when no check was out
    /// (the menu closed meanwhile): the answer is dropped and counts for nothing.
    public mutating func pinChecked(correct: Bool, at time: Instant) -> PinLock.Outcome? {
        guard isChecking, isOpen else { return nil }
        isChecking = false
        let outcome = lock.attempt(correct: correct, at: time)
        switch outcome {
        case .accepted: page = .menu
        case .wrong(let left):
            page = .pin(entered: "", message: "Falsche PIN — noch \(left) Versuch\(left == 1 ? "" : "e")")
        case .locked: page = .pin(entered: "", message: Self.lockedText)
        }
        lastActivity = time
        return outcome
    }

    public mutating func close() {
        page = .closed
        isChecking = false
    }

    public var nextDeadline: Instant? { isOpen ? lastActivity.advanced(bySeconds: idleSeconds) : nil }

    public mutating func advance(to time: Instant) -> Output? {
        guard isOpen, time.seconds(since: lastActivity) >= idleSeconds else { return nil }
        close()
        return .closedIdle
    }

    /// What to draw over the deck: a panel with `info` lines (menu) or the PIN state, and the keys.
    public func elements(info: [String], screen: Size) -> [SceneElement] {
        var lines: [String]
        switch page {
        case .closed: return []
        case .pin(let entered, let message):
            lines = ["Personal", message, String(repeating: "●", count: entered.count)]
        case .menu: lines = info
        }
        var out = [
            SceneElement(
                id: "staff:panel", kind: .staffPanel(lines: lines), frame: Rect(origin: .zero, size: screen),
                zIndex: 3000)
        ]
        for (id, frame) in Self.layout(page, screen: screen) {
            let label = id.hasPrefix("key:") ? String(id.dropFirst(4)) : String(id.dropFirst(7))
            out.append(SceneElement(id: "staff:\(id)", kind: .staffKey(label: label), frame: frame, zIndex: 3001))
        }
        return out
    }
}
