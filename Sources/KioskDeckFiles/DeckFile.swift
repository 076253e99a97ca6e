import CardModel
import KioskSystem

/// How a deck is shown: the SwiftUI design's swipeable card stack or its "Color Cards" list.
package enum DeckLayout: String, CaseIterable, Hashable, Sendable {
    case stack
    case list
}

/// A deck as the operator wrote it: the CardModel cards plus everything around them.
///
/// Made by `DeckLoader` from a JSON deck file (format: `schema/deck.schema.json`).
package struct DeckFile: Hashable, Sendable {
    /// The file it was read from (as given, not resolved).
    package var path: String
    /// Stable identifier stored with every decision (e.g. "lobby-onboarding").
    package var id: String
    /// Bumped by the operator when the cards change; stored with every decision.
    package var version: Int
    package var title: String
    package var layout: DeckLayout
    /// Cards in file order; image paths are resolved to absolute paths inside the deck's folder.
    package var cards: [Card]
    /// What a left swipe means, shown as a hint while dragging ("Nein").
    package var leftLabel: String
    /// What a right swipe means ("Ja").
    package var rightLabel: String
    /// Shown when every card is gone.
    package var emptyText: String
    /// Handed over as a QR code under `emptyText` ("emptyLink"); nil: none.
    package var emptyLink: String?
    /// The attract screen's line between visitors.
    package var attractText: String
    /// Seconds without a touch before the deck resets for the next visitor; nil: the config's
    /// `idle-timeout` (60 s by default).
    package var idleTimeoutSeconds: Double?
    /// Seconds of countdown before the idle reset ("warning"); nil: the config's (10 s).
    package var warningSeconds: Double?
    /// The countdown's line ("warningText").
    package var warningText = InactivityWarning.defaultText
    /// What an idle reset does with the visit's decisions ("partialVisit": "keep" | "discard").
    package var partialVisit = VisitorSession.PartialVisitPolicy.keep
    /// Decisions faster than this after the previous one are flagged ("cooldown", s; 0: off).
    package var cooldownSeconds = 0.0
    /// The cards' order per visit ("shuffle"): file order unless it says shuffle.
    package var order = VisitOrder()
    /// Opening hours ("schedule"); nil: always open.
    package var schedule: Schedule?
    /// The language the texts are in (a BCP 47 tag, "de" by default): speech reads them with its voice.
    package var language = DeckFile.defaultLanguage
    /// The languages the deck offers visitors, its own `language` first: its "languages" key,
    /// else every language its texts carry, in the order they first appear.
    package var languages: [String] = [DeckFile.defaultLanguage]
    /// The visitor's language `localized(to:)` made this copy for; nil: the file as written.
    package var shownLanguage: String?
    /// The deck-level texts the file wrote, in every language it carries them in (a field the
    /// file leaves out is absent: the kiosk's own words for it, in the visitor's language).
    package var texts: [TextField: LocalizedText] = [:]
    /// Problems that do not stop the deck: translations missing for an offered language.
    package var warnings: [DeckProblem] = []

    /// A deck-level text that may carry translations.
    package enum TextField: String, CaseIterable, Hashable, Sendable {
        case title, leftLabel, rightLabel, emptyText, attractText, warningText, closedText

        /// The kiosk's own word for the field when the deck has none (nil: the field is required).
        var uiString: UIString? {
            switch self {
            case .title: nil
            case .leftLabel: .no
            case .rightLabel: .yes
            case .emptyText: .allDone
            case .attractText: .tapToStart
            case .warningText: .stillThere
            case .closedText: .closed
            }
        }
    }

    /// The deck as a visitor who reads `language` sees it: every text in that language, else
    /// the deck's `language`; a text the deck leaves out is the kiosk's own word in `language`
    /// (`UIStrings`, English when it has no such language).
    package func localized(to visitorLanguage: String) -> DeckFile {
        var d = self
        d.shownLanguage = visitorLanguage
        func text(_ field: TextField) -> String? {
            if let t = texts[field] { return t.resolved(for: visitorLanguage) }
            return field.uiString.map { UIStrings.text($0, in: visitorLanguage) }
        }
        d.title = text(.title) ?? title
        d.leftLabel = text(.leftLabel) ?? leftLabel
        d.rightLabel = text(.rightLabel) ?? rightLabel
        d.emptyText = text(.emptyText) ?? emptyText
        d.attractText = text(.attractText) ?? attractText
        d.warningText = text(.warningText) ?? warningText
        if let closed = text(.closedText) { d.schedule?.closedText = closed }
        d.cards = cards.map { $0.localized(to: visitorLanguage) }
        return d
    }

    package init(
        path: String, id: String, version: Int, title: String, layout: DeckLayout, cards: [Card], leftLabel: String,
        rightLabel: String, emptyText: String, attractText: String, idleTimeoutSeconds: Double? = nil
    ) {
        self.path = path
        self.id = id
        self.version = version
        self.title = title
        self.layout = layout
        self.cards = cards
        self.leftLabel = leftLabel
        self.rightLabel = rightLabel
        self.emptyText = emptyText
        self.attractText = attractText
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }

    // The kiosk's own words in the default deck language (a visitor's language replaces them, `localized`).
    package static let defaultLeftLabel = UIStrings.text(.no, in: defaultLanguage)
    package static let defaultRightLabel = UIStrings.text(.yes, in: defaultLanguage)
    package static let defaultEmptyText = UIStrings.text(.allDone, in: defaultLanguage)
    package static let defaultAttractText = UIStrings.text(.tapToStart, in: defaultLanguage)
    package static let defaultLanguage = "de"

    /// What a command-line or config value that must be a language tag should be (`isLanguageTag`).
    package static let languageTagExpected = "a language tag such as de, en, fr, tr, ar or zh"

    /// A BCP 47-ish tag: 2–3 letters, then "-" parts of 2–8 letters or digits ("de", "en-GB", "zh-Hans").
    package static func isLanguageTag(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy { p in
            (2...8).contains(p.count) && p.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// Cards that show a product image.
    var imageCount: Int { cards.filter { $0.imagePath != nil }.count }

    /// One line for logs and `check-deck`: "deck 'x' v3 (stack, 5 cards, 2 images)".
    package var summary: String {
        let images = imageCount == 1 ? "1 image" : "\(imageCount) images"
        let count = cards.count == 1 ? "1 card" : "\(cards.count) cards"
        return "deck '\(id)' v\(version) \"\(title)\" (\(layout.rawValue), \(count), \(images))"
    }
}

/// One thing wrong with a deck file, with where it is and how to fix it.
package struct DeckProblem: Hashable, Sendable, CustomStringConvertible {
    enum Kind: String, Hashable, Sendable {
        case unreadableFile
        case invalidUTF8
        case malformedJSON
        case wrongType
        case unknownKey
        case duplicateKey
        case missingKey
        case conflictingKeys
        case invalidValue
        case unknownColor
        case unknownTheme
        case duplicateCardID
        case missingImage
        case imageOutsideDeck
        case unsupportedImage
        case corruptImage
        case imageTooLarge
        case emptyDeck
        case missingTranslation
        case missingImageDescription
    }

    var kind: Kind
    /// JSON path of the field, e.g. `cards[2].color`; empty for the whole document.
    var path: String
    /// Where in the file; nil when the file could not be read at all.
    var position: TextPosition?
    var message: String
    /// A warning (the deck is still accepted), not an error.
    var isWarning = false

    /// `deck.json:12:14: cards[2].color: unknown colour "#12G" — …`, the form editors and CI
    /// logs turn into links.
    package func formatted(file: String) -> String {
        let place = position.map { "\(file):\($0.line):\($0.column)" } ?? file
        let field = path.isEmpty ? "" : "\(path): "
        return "\(place): \(isWarning ? "warning" : "error"): \(field)\(message)"
    }

    package var description: String { formatted(file: "deck") }
}

/// Every problem found in one deck file, in file order.
package struct DeckProblems: Error, Hashable, Sendable, CustomStringConvertible {
    var file: String
    package var problems: [DeckProblem]

    package var description: String {
        problems.map { $0.formatted(file: file) }.joined(separator: "\n")
    }
}
