/// How the stack looks beyond the seed: texts, buttons and drag hints.
public struct StackOptions: Hashable, Sendable {
    public var emptyText: String = "Alle Karten erledigt!"
    /// ✗ / ✓ / undo buttons next to the stack, hit-tested by taps in the model.
    public var showButtons: Bool = false
    /// A hint shown on the card while it is dragged left, e.g. "Nein".
    public var leftLabel: String? = nil
    /// A hint shown on the card while it is dragged right, e.g. "Ja".
    public var rightLabel: String? = nil

    public init(
        emptyText: String = "Alle Karten erledigt!", showButtons: Bool = false, leftLabel: String? = nil,
        rightLabel: String? = nil
    ) {
        self.emptyText = emptyText
        self.showButtons = showButtons
        self.leftLabel = leftLabel
        self.rightLabel = rightLabel
    }

    static let leftLabelColor = Color(rgb: 0xE5484D)
    static let rightLabelColor = Color(rgb: 0x30A46C)
}
