/// How the stack looks beyond the SwiftUI design: texts, buttons and drag hints.
public struct StackOptions: Hashable, Sendable {
    public var emptyText: String = UIStrings.text(.allDone, in: "de")
    /// A link handed over as a QR code under `emptyText` when every card is gone; nil: none.
    public var emptyLink: String? = nil

    /// ✗ / ✓ / undo buttons next to the stack, hit-tested by taps in the model.
    public var showButtons: Bool = false
    /// A hint shown on the card while it is dragged left, e.g. "Nein".
    public var leftLabel: String? = nil
    /// A hint shown on the card while it is dragged right, e.g. "Ja".
    public var rightLabel: String? = nil
    /// Between visitors, the line inviting the next one, e.g. "Tippen zum Starten"; none when empty.
    public var attractText: String = ""
    /// A block in the top trailing corner (left-to-right coordinates) the card and the buttons
    /// keep clear of: the language keys at their largest. nil: none.
    public var reserved: Rect? = nil

    public init(
        emptyText: String = UIStrings.text(.allDone, in: "de"), showButtons: Bool = false, leftLabel: String? = nil,
        rightLabel: String? = nil, attractText: String = ""
    ) {
        self.emptyText = emptyText
        self.showButtons = showButtons
        self.leftLabel = leftLabel
        self.rightLabel = rightLabel
        self.attractText = attractText
    }

    static let leftLabelColor = Color(rgb: 0xE5484D)
    static let rightLabelColor = Color(rgb: 0x30A46C)
}
