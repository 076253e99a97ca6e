/// A deck as the kiosk's rules need it: its identity, its cards as written, its texts in every
/// language it offers, and the rules that come with it (card order, cooldown, opening hours,
/// the visitor session's policy). The shell makes one from a deck file (`DeckFile.kioskDeck`);
/// `Kiosk` never reads a file.
public struct KioskDeck: Hashable, Sendable {
    public enum Layout: String, Hashable, Sendable {
        case stack, list
    }

    /// The deck's words as a visitor reading one language sees them.
    public struct Texts: Hashable, Sendable {
        public var title: String
        public var leftLabel: String
        public var rightLabel: String
        public var emptyText: String
        public var attractText: String
        public var warningText: String
        public var closedText: String
        /// The end state's link, handed over as a QR code (the same in every language); nil: none.
        public var emptyLink: String?

        public init(
            title: String, leftLabel: String, rightLabel: String, emptyText: String, attractText: String,
            warningText: String = InactivityWarning.defaultText, closedText: String = Schedule.defaultClosedText
        ) {
            self.title = title
            self.leftLabel = leftLabel
            self.rightLabel = rightLabel
            self.emptyText = emptyText
            self.attractText = attractText
            self.warningText = warningText
            self.closedText = closedText
        }
    }

    /// Stored with every decision.
    public var id: String
    public var version: Int
    /// Where it was read from, for logs and the flight recorder (never opened here).
    public var path: String
    /// One line for logs: "deck 'x' v3 "Title" (stack, 5 cards, 2 images)".
    public var summary: String
    public var layout: Layout
    /// The cards in file order, with every translation they carry.
    public var cards: [Card]
    /// The deck's own language (first of `languages`).
    public var language: String
    /// The languages a visitor may pick.
    public var languages: [String]
    /// The deck's words per language; `texts(in:)` falls back to the deck's own language.
    public var texts: [String: Texts]
    public var order: VisitOrder
    public var cooldownSeconds: Double
    /// Opening hours; nil: always open.
    public var schedule: Schedule?
    /// The visitor session's policy for this deck (the config's values over the deck's).
    public var policy: VisitorSession.Policy

    public init(
        id: String, version: Int, path: String = "", summary: String? = nil, layout: Layout, cards: [Card],
        language: String = "de", languages: [String]? = nil, texts: [String: Texts], order: VisitOrder = VisitOrder(),
        cooldownSeconds: Double = 0, schedule: Schedule? = nil, policy: VisitorSession.Policy = .init()
    ) {
        self.id = id
        self.version = version
        self.path = path
        self.summary = summary ?? "deck '\(id)' v\(version)"
        self.layout = layout
        self.cards = cards
        self.language = language
        self.languages = languages ?? [language]
        self.texts = texts
        self.order = order
        self.cooldownSeconds = cooldownSeconds
        self.schedule = schedule
        self.policy = policy
    }

    /// The words a visitor reading `language` sees (the deck's own language's when it has none).
    public func texts(in language: String) -> Texts {
        if let t = texts[language] ?? texts[self.language] ?? texts.values.first { return t }
        return Texts(
            title: id, leftLabel: UIStrings.text(.no, in: language), rightLabel: UIStrings.text(.yes, in: language),
            emptyText: UIStrings.text(.allDone, in: language), attractText: UIStrings.text(.tapToStart, in: language))
    }

    /// "id@version", as the heartbeat and the fleet name a deck.
    public var reference: String { "\(id)@\(version)" }
}
