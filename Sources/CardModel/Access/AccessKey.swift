/// A key of a keyboard or keypad, as the accessible paths see it (the app maps evdev codes to these).
public enum AccessKey: String, Hashable, Sendable, CaseIterable {
    case left, right, up, down, enter, backspace, escape, delete, plus
    /// The help key (F1 / Help / keypad "?"): reads the card aloud.
    case help
    /// Opens and closes the per-visit accessibility control (F2, the Menu key; the app maps
    /// them): while it is open every key is the control's (`AccessibleDeck.press(_:control:at:)`).
    case accessibility

    /// The key in the visitor's `direction`: ← and → swapped for a right-to-left layout, so ←
    /// acts on the side drawn on the left (the ✓ button there).
    public func inDirection(_ direction: LayoutDirection) -> AccessKey {
        guard direction == .rightToLeft else { return self }
        switch self {
        case .left: return .right
        case .right: return .left
        default: return self
        }
    }
}

/// What an accessible input asks for: a deck action, or a text to be read aloud.
public enum AccessCommand: Hashable, Sendable {
    case deck(DeckAction)
    /// Read `text` aloud (the app hands it to its speech worker; the model only says what).
    case speak(String)
}

/// One choice a one-switch scan steps through.
public enum ScanChoice: Hashable, Sendable {
    case action(DeckAction)
    /// Read the card aloud.
    case read
    /// The accessibility control's: open it, toggle one of its switches, close it
    /// (`AccessibleDeck.scanChoices(with:)`; never among a deck's own `scanChoices`).
    case accessibility(AccessibilityControl.Choice)
}

/// A deck that keys and a switch can drive as fully as touch: every action the touch path
/// reaches has a key and a scan choice.
public protocol AccessibleDeck: CardDeck {
    /// The command for `key` in the deck's current state; nil when the key does nothing here.
    func command(for key: AccessKey) -> AccessCommand?
    /// The choices a one-switch scan steps through now, in scan order (never empty).
    var scanChoices: [ScanChoice] { get }
    /// What "read the card" says now: the focused card's title, subtitle and the choices.
    var spokenText: String { get }
    /// Where the scan highlight is drawn for `choice` at `time`; nil when it has no place.
    func highlightFrame(of choice: ScanChoice, at time: Instant) -> Rect?
}

extension AccessibleDeck {
    /// The command a scan choice stands for now; nil for the accessibility control's choices,
    /// which are the control's (`select(_:control:scanner:at:)`).
    public func command(for choice: ScanChoice) -> AccessCommand? {
        switch choice {
        case .action(let a): .deck(a)
        case .read: .speak(spokenText)
        case .accessibility: nil
        }
    }

    /// Performs `command` given by `method` (`.key` or `.switchAccess`) and returns the decisions it
    /// completed, stamped with `method`, and the text to speak, if any. Decisions a touch completed
    /// before keep their own method.
    public mutating func perform(_ command: AccessCommand, at time: Instant, method: InputMethod)
        -> (decisions: [Decision], speech: String?)
    {
        switch command {
        case .deck(let action):
            perform(action, at: time)
            let stamped = takeDecisions().map { d -> Decision in
                var d = d
                if d.method == nil { d.method = method }
                return d
            }
            return (stamped, nil)
        case .speak(let text):
            return ([], text)
        }
    }

    /// The scan highlight for `scanner`'s current choice, a focus ring to add to the scene.
    public func scanHighlight(_ scanner: SwitchScanner, at time: Instant) -> SceneElement? {
        guard let choice = scanner.highlighted(in: scanChoices) else { return nil }
        return scanRing(choice, at: time)
    }

    /// The scan's ring around the deck's target for `choice`.
    func scanRing(_ choice: ScanChoice, at time: Instant) -> SceneElement? {
        highlightFrame(of: choice, at: time).map { Self.scanRing(around: $0, zIndex: 900) }
    }

    /// The scan's focus ring just outside `frame`.
    static func scanRing(around frame: Rect, zIndex: Int) -> SceneElement {
        SceneElement(id: "scan", kind: .focusRing, frame: frame.insetBy(-4), zIndex: zIndex)
    }
}

/// The sentences of a spoken card: non-empty parts joined with ". ".
func spoken(_ parts: [String?]) -> String {
    parts.compactMap { $0 }.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }.joined(separator: ". ")
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
