/// The staff menu over the deck: the PIN pad, then the menu with the kiosk's state and its
/// actions. Pure: taps (screen points) and time in, what to do and the elements to draw out.
public struct StaffMenu: Sendable {
    /// The menu's actions; the raw value is the action's id (its key is "action:<raw value>"),
    /// `word` what the button says.
    public enum Action: String, Hashable, Sendable, CaseIterable {
        case reloadDeck, restartVisit, blankScreen, screenshot, touchTest, calibrate, exit

        public var word: UIString {
            switch self {
            case .reloadDeck: .reloadDeck
            case .restartVisit: .restartVisit
            case .blankScreen: .blankScreen
            case .screenshot: .screenshot
            case .touchTest: .touchTest
            case .calibrate: .calibrate
            case .exit: .close
            }
        }
    }

    public enum Output: Hashable, Sendable {
        /// Check `pin` against the stored hash, then call `pinChecked`.
        case checkPIN(String)
        case perform(Action)
        /// Closed by 60 s without a touch.
        case closedIdle
        /// "Cancel" on the calibration page: nothing changes.
        case calibrationCancelled
    }

    public enum Page: Hashable, Sendable {
        case closed
        case pin(entered: String, message: String)
        case menu
        /// Every finger drawn where the panel reports it, with its position; "Done" goes back.
        case touchTest
        /// The calibration's targets, one at a time (the app runs the tap sequence on raw
        /// device frames and says what to show with `showCalibration`); "Cancel" goes back.
        case calibrate
    }

    public private(set) var page = Page.closed
    /// A `.checkPIN` is out and its answer not in yet: the pad shows "checking…" and takes no keys.
    public private(set) var isChecking = false
    /// The touch test's fingers down now (screen points) and how many touches it has seen.
    public private(set) var testContacts: [Int: Point] = [:]
    public private(set) var testTouches = 0
    /// Each finger's number in this touch test (1, 2, …), not the device's large contact ids.
    private var testNumbers: [Int: Int] = [:]
    /// What the calibration page shows: the target to tap (screen points) and its lines.
    public private(set) var calibrationTarget: Point?
    public private(set) var calibrationLines: [String] = []
    public private(set) var lock = PinLock()
    public var idleSeconds = 60.0
    /// The language of every word the menu shows: the kiosk's configured language (staff are
    /// not visitors, so the visitor's pick does not change it); English for one without a table.
    public var language: String?
    private var lastActivity = Instant.zero

    public init(language: String? = nil) {
        self.language = language
    }

    func word(_ key: UIString, _ values: String...) -> String {
        UIStrings.text(key, in: language, filling: values)
    }

    var enterPINText: String { word(.enterPIN) }
    var lockedText: String { word(.locked) }
    /// What the pad says while the PIN is checked.
    public var checkingText: String { word(.checking) }

    public var isOpen: Bool { page != .closed }

    public mutating func open(at time: Instant) {
        isChecking = false
        page = .pin(entered: "", message: lock.isLocked(at: time) ? lockedText : enterPINText)
        lastActivity = time
    }

    static let keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"]

    /// Which way the menu is laid out: right to left in a right-to-left language (Arabic,
    /// Hebrew, Persian…), as the deck is for a visitor who reads one.
    public var direction: LayoutDirection { language.map(LayoutDirection.init(language:)) ?? .leftToRight }

    /// The PIN pad's keys and the menu's actions, laid out on a `screen` in `direction`. Right to
    /// left, the menu's actions and the touch test's "Done" swap sides (the kiosk's state is
    /// read from the right, the actions sit on the left); the PIN pad stays as it is — 1 2 3
    /// from left to right, as phone and payment keypads keep it in Arabic and Hebrew — and
    /// calibration's "Cancel" is in the middle either way.
    public static func layout(
        _ page: Page, screen: Size, direction: LayoutDirection = .leftToRight
    ) -> [(id: String, frame: Rect)] {
        let frames = leftToRightLayout(page, screen: screen)
        guard direction == .rightToLeft, page == .menu || page == .touchTest else { return frames }
        return frames.map { id, f in
            (id, Rect(x: screen.width - f.maxX, y: f.origin.y, width: f.size.width, height: f.size.height))
        }
    }

    /// `layout` left to right.
    private static func leftToRightLayout(_ page: Page, screen: Size) -> [(id: String, frame: Rect)] {
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
        case .touchTest:
            return [("key:done", Rect(x: screen.width - 160, y: 20, width: 140, height: 52))]
        case .calibrate:
            // In the middle: the targets sit near the corners.
            return [
                ("key:cancel", Rect(x: screen.width / 2 - 80, y: screen.height / 2 + 40, width: 160, height: 52))
            ]
        case .menu:
            let w = min(300, screen.width / 2 - 40)
            return Action.allCases.enumerated().map { i, a in
                ("action:\(a.rawValue)", Rect(x: screen.width - w - 30, y: 30 + Double(i) * 64, width: w, height: 52))
            }
        }
    }

    /// What the key or action `id` (from `layout`) says: the digits, ⌫ and OK as they are,
    /// everything else in `language`.
    func label(of id: String) -> String {
        if id == "key:done" { return word(.done) }
        if id == "key:cancel" { return word(.cancel) }
        if id.hasPrefix("action:"), let a = Action(rawValue: String(id.dropFirst(7))) { return word(a.word) }
        return String(id.dropFirst(4))
    }

    /// A touch landing at `p` while open.
    public mutating func tap(at p: Point, screen: Size, time: Instant) -> Output? {
        lastActivity = time
        guard
            let hit = Self.layout(page, screen: screen, direction: direction).first(where: { $0.frame.contains(p) })?.id
        else { return nil }
        switch page {
        case .closed: return nil
        case .pin(let entered, _):
            let k = String(hit.dropFirst(4))
            if isChecking { return nil }
            if lock.isLocked(at: time) {
                page = .pin(entered: "", message: lockedText)
                return nil
            }
            switch k {
            case "⌫": page = .pin(entered: String(entered.dropLast()), message: enterPINText)
            case "OK":
                guard !entered.isEmpty else { return nil }
                isChecking = true
                page = .pin(entered: entered, message: checkingText)
                return .checkPIN(entered)
            default:
                if entered.count < 12 { page = .pin(entered: entered + k, message: enterPINText) }
            }
            return nil
        case .touchTest:
            page = .menu  // "Done"
            testContacts = [:]
            return nil
        case .calibrate:
            page = .menu  // "Cancel"
            calibrationTarget = nil
            return .calibrationCancelled
        case .menu:
            guard let a = Action.allCases.first(where: { "action:\($0.rawValue)" == hit }) else { return nil }
            if a == .exit || a == .blankScreen { page = .closed }
            if a == .touchTest {
                page = .touchTest
                testContacts = [:]
                testTouches = 0
            }
            if a == .calibrate {
                page = .calibrate
                calibrationTarget = nil
                calibrationLines = [word(.calibrateWait)]
            }
            return .perform(a)
        }
    }

    /// Follows every finger while the touch test shows (call with each frame, before `tap`).
    public mutating func follow(_ frame: TouchFrame) {
        guard page == .touchTest else { return }
        lastActivity = frame.time
        for c in frame.contacts {
            switch c.phase {
            case .began:
                testTouches += 1
                testNumbers[c.id] = testTouches
                testContacts[c.id] = c.position
            case .moved: testContacts[c.id] = c.position
            case .ended, .cancelled:
                testContacts[c.id] = nil
                testNumbers[c.id] = nil
            }
        }
    }

    /// The calibration page's state from the app's tap sequence: `target` to tap next (nil:
    /// none, e.g. finished), the lines to show. Counts as activity (the idle close waits).
    public mutating func showCalibration(target: Point?, lines: [String], at time: Instant) {
        guard page == .calibrate else { return }
        calibrationTarget = target
        calibrationLines = lines
        lastActivity = time
    }

    /// Back from the calibration page to the menu (the sequence finished).
    public mutating func endCalibration() {
        guard page == .calibrate else { return }
        page = .menu
        calibrationTarget = nil
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
            page = .pin(entered: "", message: left == 1 ? word(.wrongPINOneLeft) : word(.wrongPINLeft, "\(left)"))
        case .locked: page = .pin(entered: "", message: lockedText)
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
            lines = [word(.staffTitle), message, String(repeating: "●", count: entered.count)]
        case .menu: lines = info
        case .touchTest:
            lines =
                [word(.touchTestLine, "\(testContacts.count)", "\(testTouches)")]
                + testContacts.keys.sorted().map { id in
                    let p = testContacts[id]!
                    return word(
                        .touchTestFinger, "\(testNumbers[id] ?? 0)", "\(Int(p.x.rounded()))", "\(Int(p.y.rounded()))")
                }
        case .calibrate: lines = calibrationLines
        }
        // Right to left the panel's lines read from the right edge, and the menu's and the touch
        // test's buttons are drawn mirrored (their words laid out right to left); the PIN pad's
        // keys, the calibration target and the fingers are where they are on the glass.
        let rtl = direction == .rightToLeft
        let mirrorKeys = rtl && (page == .menu || page == .touchTest)
        let panel = ElementKind.staffPanel(lines: lines)
        var out = [
            SceneElement(
                id: "staff:panel", kind: rtl ? panel.mirrored : panel, frame: Rect(origin: .zero, size: screen),
                zIndex: 3000)
        ]
        for (id, frame) in Self.layout(page, screen: screen, direction: direction) {
            let key = ElementKind.staffKey(label: label(of: id))
            out.append(
                SceneElement(id: "staff:\(id)", kind: mirrorKeys ? key.mirrored : key, frame: frame, zIndex: 3001))
        }
        if page == .calibrate, let t = calibrationTarget {
            out.append(
                SceneElement(
                    id: "staff:target", kind: .staffKey(label: "+"),
                    frame: Rect(x: t.x - 22, y: t.y - 22, width: 44, height: 44), zIndex: 3002))
        }
        if page == .touchTest {
            for (id, p) in testContacts.sorted(by: { $0.key < $1.key }) {
                out.append(
                    SceneElement(
                        id: "staff:finger:\(id)", kind: .staffKey(label: "\(testNumbers[id] ?? 0)"),
                        frame: Rect(x: p.x - 30, y: p.y - 30, width: 60, height: 60), zIndex: 3002))
            }
        }
        return out
    }
}
