import CardModel
import Glibc
import KioskSystem

/// Why a schedule window's "deck" cannot be shown (the loader reads the file to know).
package struct DeckReferenceProblem: Error, Hashable, Sendable {
    package var message: String
    package init(_ message: String) { self.message = message }
}

/// What the file system says about a card's image path (see `DeckLoader.checkImage`).
enum DeckImageCheck: Hashable, Sendable {
    /// Usable; the absolute path to hand to the renderer.
    case ok(String)
    case missing(String)
    /// Absolute, or escapes the deck's folder through ".." or a symlink.
    case outsideDeck(String)
    /// Exists but is neither a PNG nor a JPEG file (or not a regular file).
    case unsupported(String)
    /// A PNG or JPEG that is corrupt, cut short or over the pixel limit.
    case invalid(String, ImageFile.Problem)
}

/// Turns deck-file bytes into a `DeckFile`, collecting every problem instead of stopping at
/// the first. Pure apart from `checkImage`, which the loader backs with the file system.
struct DeckParser {
    static let rootKeys = [
        "$schema", "id", "version", "title", "layout", "cards", "swipe", "emptyText", "attractText",
        "idleTimeout", "warning", "warningText", "partialVisit", "cooldown", "shuffle", "schedule", "language",
        "languages", "emptyLink",
    ]
    static let shuffleKeys = ["pinFirst", "pinLast"]
    static let scheduleKeys = ["open", "closedDates", "closedText", "blank", "wakeOnTouch"]
    static let windowKeys = ["days", "from", "to", "dates", "deck"]
    static let cardKeys = ["id", "title", "subtitle", "body", "color", "theme", "image", "alt", "tags", "link"]
    static let swipeKeys = ["left", "right"]

    private var problems: [DeckProblem] = []
    /// The deck's default language ("language"), known before any text is read.
    private var language = DeckFile.defaultLanguage
    /// Every language a text carries, in the order first seen.
    private var seenLanguages: [String] = []
    /// Every text field the file wrote, for the missing-translation warnings.
    private var textFields: [(path: String, position: TextPosition, text: LocalizedText)] = []
    /// Cards whose image has no "alt" (warnings: the deck still loads).
    private var imagesWithoutAlt: [DeckProblem] = []
    /// The deck-level texts read so far.
    private var deckTexts: [DeckFile.TextField: LocalizedText] = [:]
    private let checkImage: (String) -> DeckImageCheck
    /// A schedule window's "deck": its resolved path, or what is wrong with it.
    private let checkDeck: (String) -> Result<String, DeckReferenceProblem>

    private init(
        checkImage: @escaping (String) -> DeckImageCheck,
        checkDeck: @escaping (String) -> Result<String, DeckReferenceProblem>
    ) {
        self.checkImage = checkImage
        self.checkDeck = checkDeck
    }

    /// Parses and checks a deck; `path` is only recorded in the result.
    static func parse(
        bytes: [UInt8], path: String, checkImage: @escaping (String) -> DeckImageCheck,
        checkDeck: @escaping (String) -> Result<String, DeckReferenceProblem> = { .success($0) }
    ) -> Result<DeckFile, DeckProblems> {
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            let kind: DeckProblem.Kind = error.kind == .invalidUTF8 ? .invalidUTF8 : .malformedJSON
            let problem = DeckProblem(kind: kind, path: "", position: error.position, message: error.message)
            return .failure(DeckProblems(file: path, problems: [problem]))
        }
        var parser = DeckParser(checkImage: checkImage, checkDeck: checkDeck)
        let deck = parser.deck(root, path: path)
        if parser.problems.isEmpty, let deck { return .success(deck) }
        let sorted = parser.problems.enumerated().sorted {
            let a = $0.element.position ?? TextPosition(line: 0, column: 0)
            let b = $1.element.position ?? TextPosition(line: 0, column: 0)
            return a != b ? a < b : $0.offset < $1.offset
        }.map(\.element)
        return .failure(DeckProblems(file: path, problems: sorted))
    }

    // MARK: - Reporting

    private mutating func report(
        _ kind: DeckProblem.Kind, _ path: String, _ position: TextPosition, _ message: String
    ) {
        problems.append(DeckProblem(kind: kind, path: path, position: position, message: message))
    }

    private mutating func wrongType(_ node: JSONNode, _ path: String, expected: String) {
        report(.wrongType, path, node.position, "expected \(expected), found \(node.typeName)")
    }

    /// The members of an object by key, after reporting unknown and duplicate keys.
    private mutating func object(
        _ node: JSONNode, _ path: String, keys: [String], what: String
    ) -> [String: JSONNode.Member]? {
        guard let members = node.members else {
            wrongType(node, path, expected: "an object (\(what))")
            return nil
        }
        var byKey: [String: JSONNode.Member] = [:]
        for m in members {
            let memberPath = Self.join(path, m.key)
            guard keys.contains(m.key) else {
                report(
                    .unknownKey, memberPath, m.keyPosition,
                    "unknown key \"\(Excerpt.of(m.key))\" in \(what); "
                        + ClosestMatch.hint(for: m.key, among: keys.filter { $0 != "$schema" }, quote: "\""))
                continue
            }
            if let first = byKey[m.key] {
                report(
                    .duplicateKey, memberPath, m.keyPosition,
                    "key \"\(Excerpt.of(m.key))\" appears twice (first at line \(first.keyPosition.line)); remove one")
                continue
            }
            byKey[m.key] = m
        }
        return byKey
    }

    private static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    private mutating func string(
        _ members: [String: JSONNode.Member], _ key: String, in path: String, at objectPosition: TextPosition,
        required: Bool, allowEmpty: Bool = false, what: String
    ) -> String? {
        let p = Self.join(path, key)
        guard let m = members[key] else {
            if required { report(.missingKey, p, objectPosition, "missing \"\(key)\" (\(what))") }
            return nil
        }
        guard let s = m.value.stringValue else {
            wrongType(m.value, p, expected: "a string (\(what))")
            return nil
        }
        return checkedText(s, key: key, path: p, at: m.value.position, allowEmpty: allowEmpty, what: what)
    }

    /// `s` when it is a usable text (not blank unless `allowEmpty`, no control characters).
    private mutating func checkedText(
        _ s: String, key: String, path p: String, at position: TextPosition, allowEmpty: Bool, what: String
    ) -> String? {
        if !allowEmpty && s.allSatisfy({ $0.isWhitespace }) {
            report(.invalidValue, p, position, "\"\(key)\" is empty; write \(what)")
            return nil
        }
        if s.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" }) {
            report(.invalidValue, p, position, "\"\(key)\" contains a control character; remove it")
            return nil
        }
        return s
    }

    /// A text a visitor reads: a string in the deck's language, or an object of strings by
    /// language tag ({"de": "Kaffee", "en": "Coffee"}) that includes the deck's language.
    private mutating func text(
        _ members: [String: JSONNode.Member], _ key: String, in path: String, at objectPosition: TextPosition,
        required: Bool, allowEmpty: Bool = false, what: String
    ) -> LocalizedText? {
        let p = Self.join(path, key)
        guard let m = members[key], let entries = m.value.members else {
            if let m = members[key], m.value.stringValue == nil {
                wrongType(
                    m.value, p,
                    expected: "a string or an object of texts by language, e.g. {\"de\": …, \"en\": …} (\(what))")
                return nil
            }
            guard
                let s = string(
                    members, key, in: path, at: objectPosition, required: required, allowEmpty: allowEmpty, what: what)
            else { return nil }
            let t = LocalizedText(s, language: language)
            textFields.append((p, members[key]!.value.position, t))
            return t
        }
        var texts: [String: String] = [:]
        var firstLine: [String: Int] = [:]
        var valid = true
        for e in entries {
            let ep = "\(p).\(e.key)"
            guard Self.isLanguageTag(e.key) else {
                report(
                    .invalidValue, ep, e.keyPosition,
                    "\"\(Excerpt.of(e.key))\" is no language tag; write a code such as \"de\", \"en-GB\" or \"ar\"")
                valid = false
                continue
            }
            if let line = firstLine[e.key] {
                report(
                    .duplicateKey, ep, e.keyPosition,
                    "language \"\(e.key)\" appears twice (first at line \(line)); remove one")
                valid = false
                continue
            }
            firstLine[e.key] = e.keyPosition.line
            guard let s = e.value.stringValue else {
                wrongType(e.value, ep, expected: "a string (\(what) in \(e.key))")
                valid = false
                continue
            }
            guard
                let checked = checkedText(
                    s, key: key, path: ep, at: e.value.position, allowEmpty: allowEmpty, what: what)
            else {
                valid = false
                continue
            }
            texts[e.key] = checked
            if !seenLanguages.contains(e.key) { seenLanguages.append(e.key) }
        }
        if texts[language] == nil && valid {
            report(
                .missingKey, p, m.value.position,
                "no \"\(language)\" text (the deck's language, which every other language falls back to); add \"\(language)\": \"…\""
            )
            valid = false
        }
        guard valid else { return nil }
        let t = LocalizedText(texts: texts, defaultLanguage: language)
        textFields.append((p, m.value.position, t))
        return t
    }

    /// The "languages" the deck offers: its own first, then the listed ones, else the ones its texts carry.
    private mutating func offeredLanguages(_ m: [String: JSONNode.Member]) -> [String] {
        var out = [language]
        guard let node = m["languages"]?.value else {
            for l in seenLanguages where !out.contains(l) { out.append(l) }
            return out
        }
        guard let elements = node.elements else {
            wrongType(node, "languages", expected: "an array of language tags, e.g. [\"de\", \"en\", \"ar\"]")
            return out
        }
        for (i, e) in elements.enumerated() {
            guard let tag = e.stringValue, Self.isLanguageTag(tag) else {
                report(
                    .invalidValue, "languages[\(i)]", e.position,
                    "expected a language tag such as \"en\", \"fr\" or \"zh\"")
                continue
            }
            if !out.contains(tag) { out.append(tag) }
        }
        return out
    }

    /// A warning for every text that lacks an offered language (its visitors read the fallback).
    private func missingTranslations(offered: [String]) -> [DeckProblem] {
        guard offered.count > 1 else { return [] }
        return textFields.compactMap { f in
            let missing = offered.filter { !f.text.has($0) }
            guard !missing.isEmpty else { return nil }
            let names = missing.map { "\"\($0)\"" }.joined(separator: ", ")
            return DeckProblem(
                kind: .missingTranslation, path: f.path, position: f.position,
                message: "no text in \(names); visitors who pick \(missing.count == 1 ? "it" : "them") read the"
                    + " \"\(language)\" text — add \(missing.map { "\"\($0)\": \"…\"" }.joined(separator: ", "))",
                isWarning: true)
        }
    }

    // MARK: - Deck

    private mutating func deck(_ root: JSONNode, path filePath: String) -> DeckFile? {
        guard let m = object(root, "", keys: Self.rootKeys, what: "the deck") else { return nil }
        let at = root.position
        let id = string(m, "id", in: "", at: at, required: true, what: "the deck's identifier, e.g. \"lobby\"")
        if let id, !id.unicodeScalars.allSatisfy(Self.isIdentifierScalar) || id.count > 64 {
            report(
                .invalidValue, "id", m["id"]!.value.position,
                "deck id \"\(Excerpt.of(id))\" may use only letters, digits, '-', '_' and '.', at most 64 characters")
        }
        let version = integer(m, "version", in: "", at: at, range: 1...Int(Int32.max), what: "the deck's version")
        if let l = string(m, "language", in: "", at: at, required: false, what: "the deck's language, e.g. \"de\"") {
            if Self.isLanguageTag(l) {
                language = l
            } else if let node = m["language"] {
                report(
                    .invalidValue, "language", node.value.position,
                    "language \"\(Excerpt.of(l))\" is no language tag; write a code such as \"de\", \"en-GB\" or \"ar\""
                )
            }
        }

        let title = text(m, "title", in: "", at: at, required: true, what: "the deck's title")
        deckTexts[.title] = title

        var layout: DeckLayout?
        if let l = m["layout"] {
            if let s = l.value.stringValue {
                layout = DeckLayout(rawValue: s)
                if layout == nil {
                    let names = DeckLayout.allCases.map(\.rawValue)
                    report(
                        .invalidValue, "layout", l.value.position,
                        "unknown layout \"\(Excerpt.of(s))\"; use \"stack\" or \"list\""
                            + (ClosestMatch.suggestion(for: s, among: names).map { " (did you mean \"\($0)\"?)" } ?? "")
                    )
                }
            } else {
                wrongType(l.value, "layout", expected: "a string (\"stack\" or \"list\")")
            }
        } else {
            report(.missingKey, "layout", at, "missing \"layout\" (\"stack\" or \"list\")")
        }

        if let s = m["swipe"], let sm = object(s.value, "swipe", keys: Self.swipeKeys, what: "the swipe labels") {
            let what = "the label shown while dragging, e.g. \"Ja\""
            deckTexts[.leftLabel] = text(sm, "left", in: "swipe", at: s.value.position, required: false, what: what)
            deckTexts[.rightLabel] = text(sm, "right", in: "swipe", at: s.value.position, required: false, what: what)
        }
        deckTexts[.emptyText] = text(
            m, "emptyText", in: "", at: at, required: false, what: "the text when all cards are gone")
        deckTexts[.attractText] = text(
            m, "attractText", in: "", at: at, required: false, what: "the attract screen's line")
        let emptyLink = m["emptyLink"].flatMap { link($0.value, path: "emptyLink", owner: "the end state") }
        var idleTimeout: Double?
        if let t = m["idleTimeout"] {
            if case .number(let v) = t.value.value {
                if v >= 5 && v <= 86_400 {
                    idleTimeout = v
                } else {
                    report(
                        .invalidValue, "idleTimeout", t.value.position,
                        "idleTimeout \(jsonNumber(v, decimals: 6)) is out of range; use seconds from 5 to 86400")
                }
            } else {
                wrongType(t.value, "idleTimeout", expected: "a number of seconds")
            }
        }

        var cards: [Card] = []
        if let c = m["cards"] {
            if let elements = c.value.elements {
                var seen: [String: TextPosition] = [:]
                for (i, element) in elements.enumerated() {
                    // Duplicates are checked on every card with a string id, valid or not.
                    var duplicate = false
                    if let idNode = element["id"], let cardID = idNode.stringValue {
                        if let first = seen[cardID] {
                            report(
                                .duplicateCardID, "cards[\(i)].id", idNode.position,
                                "card id \"\(Excerpt.of(cardID))\" is already used by the card at line \(first.line);"
                                    + " card ids must be unique (decisions refer to them)")
                            duplicate = true
                        } else {
                            seen[cardID] = element.position
                        }
                    }
                    guard let card = card(element, index: i), !duplicate else { continue }
                    cards.append(card)
                }
                if elements.isEmpty && layout == .stack {
                    report(.emptyDeck, "cards", c.value.position, "a stack deck needs at least one card")
                }
            } else {
                wrongType(c.value, "cards", expected: "an array of cards")
            }
        } else {
            report(.missingKey, "cards", at, "missing \"cards\" (an array of cards)")
        }

        let warning = seconds(m, "warning", range: 0...600, what: "seconds of countdown before the idle reset")
        if let warning, let t = idleTimeout, warning > t {
            report(
                .invalidValue, "warning", m["warning"]!.value.position,
                "warning \(jsonNumber(warning, decimals: 6)) s is longer than idleTimeout \(jsonNumber(t, decimals: 6)) s;"
                    + " make it shorter or raise idleTimeout")
        }
        deckTexts[.warningText] = text(m, "warningText", in: "", at: at, required: false, what: "the countdown's line")
        var partialVisit = VisitorSession.PartialVisitPolicy.keep
        if let p = m["partialVisit"] {
            if let s = p.value.stringValue, let policy = VisitorSession.PartialVisitPolicy(rawValue: s) {
                partialVisit = policy
            } else {
                report(
                    .invalidValue, "partialVisit", p.value.position,
                    "partialVisit must be \"keep\" (the default) or \"discard\" (mark a timed-out visit's decisions)")
            }
        }
        let cooldown = seconds(
            m, "cooldown", range: 0...60, what: "seconds between decisions below which one is flagged")
        let order = shuffle(m, cards: cards)
        let schedule = m["schedule"].flatMap { self.schedule($0.value) }

        let languages = offeredLanguages(m)
        guard let id, let version, let title, let layout else { return nil }
        func base(_ field: DeckFile.TextField, _ fallback: String) -> String {
            deckTexts[field]?.resolved(for: language) ?? fallback
        }
        var deck = DeckFile(
            path: filePath, id: id, version: version, title: title.resolved(for: language), layout: layout,
            cards: cards, leftLabel: base(.leftLabel, DeckFile.defaultLeftLabel),
            rightLabel: base(.rightLabel, DeckFile.defaultRightLabel),
            emptyText: base(.emptyText, DeckFile.defaultEmptyText),
            attractText: base(.attractText, DeckFile.defaultAttractText), idleTimeoutSeconds: idleTimeout)
        deck.emptyLink = emptyLink
        deck.warningSeconds = warning
        deck.warningText = base(.warningText, InactivityWarning.defaultText)
        deck.languages = languages
        deck.texts = deckTexts
        deck.warnings = missingTranslations(offered: languages) + imagesWithoutAlt + Self.unshownLinks(root, layout)
        deck.partialVisit = partialVisit
        deck.cooldownSeconds = cooldown ?? 0
        deck.order = order
        deck.schedule = schedule
        deck.language = language
        return deck
    }

    /// An optional number of seconds within `range`.
    private mutating func seconds(
        _ members: [String: JSONNode.Member], _ key: String, range: ClosedRange<Double>, what: String
    ) -> Double? {
        guard let t = members[key] else { return nil }
        guard case .number(let v) = t.value.value else {
            wrongType(t.value, key, expected: "a number (\(what))")
            return nil
        }
        guard range.contains(v) else {
            report(
                .invalidValue, key, t.value.position,
                "\(key) \(jsonNumber(v, decimals: 6)) is out of range; use seconds from"
                    + " \(jsonNumber(range.lowerBound, decimals: 0)) to \(jsonNumber(range.upperBound, decimals: 0))")
            return nil
        }
        return v
    }

    // MARK: - Schedule

    /// "schedule": {"open": [windows], "closedDates": [...], "closedText", "blank", "wakeOnTouch"}.
    private mutating func schedule(_ node: JSONNode) -> Schedule? {
        guard let m = object(node, "schedule", keys: Self.scheduleKeys, what: "the opening hours") else { return nil }
        var windows: [Schedule.Window] = []
        var windowNodes: [(index: Int, node: JSONNode)] = []
        var valid = true
        if let open = m["open"] {
            if let elements = open.value.elements, !elements.isEmpty {
                for (i, e) in elements.enumerated() {
                    if let w = window(e, path: "schedule.open[\(i)]") {
                        windows.append(w)
                        windowNodes.append((i, e))
                    } else {
                        valid = false
                    }
                }
            } else if open.value.elements != nil {
                report(
                    .invalidValue, "schedule.open", open.value.position,
                    "no opening windows; add one or remove \"schedule\"")
                valid = false
            } else {
                wrongType(open.value, "schedule.open", expected: "an array of windows {\"days\", \"from\", \"to\"}")
                valid = false
            }
        } else {
            report(
                .missingKey, "schedule.open", node.position,
                "missing \"open\" (the opening windows, e.g. [{\"days\": [\"mon-fri\"], \"from\": \"08:00\", \"to\": \"18:00\"}])"
            )
            valid = false
        }
        var closedDates = Set<CivilDate>()
        if let c = m["closedDates"] {
            if let elements = c.value.elements {
                for (i, e) in elements.enumerated() {
                    if let d = date(e, path: "schedule.closedDates[\(i)]") {
                        closedDates.insert(d)
                    } else {
                        valid = false
                    }
                }
            } else {
                wrongType(c.value, "schedule.closedDates", expected: "an array of dates \"YYYY-MM-DD\"")
                valid = false
            }
        }
        let closedTexts = text(
            m, "closedText", in: "schedule", at: node.position, required: false, what: "the closed-hours screen's text")
        deckTexts[.closedText] = closedTexts
        let closedText = closedTexts?.resolved(for: language) ?? Schedule.defaultClosedText
        let blank = bool(m, "blank", path: "schedule.blank") ?? false
        let wake = bool(m, "wakeOnTouch", path: "schedule.wakeOnTouch") ?? true
        let schedule = Schedule(
            windows: windows, closedDates: closedDates, closedText: closedText, blankWhenClosed: blank,
            wakeOnTouch: wake)
        for o in schedule.overlaps() {
            let (a, b) = (windowNodes[o.first], windowNodes[o.second])
            report(
                .invalidValue, "schedule.open[\(b.index)]", b.node.position,
                "window \(b.index) overlaps window \(a.index) (line \(a.node.position.line)) on "
                    + o.days.map(\.rawValue).joined(separator: ", ") + "; make them follow each other")
            valid = false
        }
        return valid ? schedule : nil
    }

    private mutating func bool(_ m: [String: JSONNode.Member], _ key: String, path: String) -> Bool? {
        guard let n = m[key]?.value else { return nil }
        guard case .bool(let b) = n.value else {
            wrongType(n, path, expected: "true or false")
            return nil
        }
        return b
    }

    private mutating func window(_ node: JSONNode, path: String) -> Schedule.Window? {
        guard let m = object(node, path, keys: Self.windowKeys, what: "an opening window") else { return nil }
        var valid = true
        var days = Set(Weekday.allCases)
        if let d = m["days"] {
            if let elements = d.value.elements, !elements.isEmpty {
                days = []
                for (i, e) in elements.enumerated() {
                    if let s = e.stringValue, let set = Self.dayNames(s) {
                        days.formUnion(set)
                    } else {
                        report(
                            .invalidValue, "\(path).days[\(i)]", e.position,
                            "unknown day \(e.stringValue.map { "\"\(Excerpt.of($0))\"" } ?? e.typeName); use mon, tue, wed,"
                                + " thu, fri, sat, sun, a range such as \"mon-fri\", or \"daily\"")
                        valid = false
                    }
                }
            } else {
                wrongType(d.value, "\(path).days", expected: "a non-empty array of days, e.g. [\"mon-fri\"]")
                valid = false
            }
        }
        let from = clock(m, "from", path: path, at: node.position, allowMidnightEnd: false)
        let to = clock(m, "to", path: path, at: node.position, allowMidnightEnd: true)
        if let from, let to, from == to {
            report(
                .invalidValue, "\(path).to", m["to"]!.value.position,
                "\"to\" equals \"from\": an empty window; for all day write \"from\": \"00:00\", \"to\": \"24:00\"")
            valid = false
        }
        var dates: ClosedRange<CivilDate>?
        if let d = m["dates"] {
            if let e = d.value.elements, e.count == 2, let a = date(e[0], path: "\(path).dates[0]"),
                let b = date(e[1], path: "\(path).dates[1]")
            {
                if b < a {
                    report(
                        .invalidValue, "\(path).dates", d.value.position,
                        "the dates run backwards (\(e[1].stringValue ?? "") is before \(e[0].stringValue ?? "")); write [first, last]"
                    )
                    valid = false
                } else {
                    dates = a...b
                }
            } else {
                if d.value.elements?.count != 2 {
                    wrongType(d.value, "\(path).dates", expected: "[first, last] dates \"YYYY-MM-DD\"")
                }
                valid = false
            }
        }
        var deck: String?
        if let d = m["deck"] {
            if let name = d.value.stringValue, !name.isEmpty {
                switch checkDeck(name) {
                case .success(let resolved): deck = resolved
                case .failure(let problem):
                    report(.invalidValue, "\(path).deck", d.value.position, problem.message)
                    valid = false
                }
            } else {
                wrongType(
                    d.value, "\(path).deck", expected: "a deck file's path next to this deck, e.g. \"evening.json\"")
                valid = false
            }
        }
        guard valid, let from, let to else { return nil }
        return Schedule.Window(days: days, from: from, to: to, dates: dates, deck: deck)
    }

    /// "mon", "mon-fri", "sat-sun", "daily".
    static func dayNames(_ s: String) -> Set<Weekday>? {
        let all = Weekday.allCases
        let t = s.lowercased()
        if t == "daily" { return Set(all) }
        if let d = Weekday(rawValue: t) { return [d] }
        let parts = t.split(separator: "-").map(String.init)
        guard parts.count == 2, let a = Weekday(rawValue: parts[0]), let b = Weekday(rawValue: parts[1]) else {
            return nil
        }
        let i = all.firstIndex(of: a)!
        let j = all.firstIndex(of: b)!
        return Set((0...((j - i + 7) % 7)).map { all[(i + $0) % 7] })
    }

    /// "HH:MM" as minutes since midnight; "24:00" only as an end.
    private mutating func clock(
        _ m: [String: JSONNode.Member], _ key: String, path: String, at: TextPosition, allowMidnightEnd: Bool
    ) -> Int? {
        let p = "\(path).\(key)"
        guard let n = m[key]?.value else {
            report(.missingKey, p, at, "missing \"\(key)\" (a local time \"HH:MM\")")
            return nil
        }
        guard let s = n.stringValue else {
            wrongType(n, p, expected: "a local time \"HH:MM\"")
            return nil
        }
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let mi = Int(parts[1]),
            h >= 0, mi >= 0, mi < 60, h < 24 || (allowMidnightEnd && h == 24 && mi == 0)
        {
            return h * 60 + mi
        }
        report(
            .invalidValue, p, n.position,
            "\"\(Excerpt.of(s))\" is not a time of day; write \"HH:MM\" from 00:00 to 23:59"
                + (allowMidnightEnd ? " (or 24:00 for midnight)" : ""))
        return nil
    }

    /// "YYYY-MM-DD", a day that exists.
    private mutating func date(_ n: JSONNode, path: String) -> CivilDate? {
        guard let s = n.stringValue else {
            wrongType(n, path, expected: "a date \"YYYY-MM-DD\"")
            return nil
        }
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2, let y = Int(parts[0]),
            let mo = Int(parts[1]), let d = Int(parts[2])
        {
            let date = CivilDate(year: y, month: mo, day: d)
            if date.isValid { return date }
            report(.invalidValue, path, n.position, "\(s) does not exist; check the month and day")
            return nil
        }
        report(.invalidValue, path, n.position, "\"\(Excerpt.of(s))\" is not a date; write \"YYYY-MM-DD\"")
        return nil
    }

    /// "shuffle": true, false or {"pinFirst": [ids], "pinLast": [ids]} (shuffled, with pins).
    private mutating func shuffle(_ m: [String: JSONNode.Member], cards: [Card]) -> VisitOrder {
        guard let s = m["shuffle"] else { return VisitOrder() }
        if case .bool(let b) = s.value.value { return VisitOrder(shuffle: b) }
        guard let sm = object(s.value, "shuffle", keys: Self.shuffleKeys, what: "the shuffle settings") else {
            return VisitOrder()
        }
        let known = Set(cards.map(\.id))
        var pinned: [String: TextPosition] = [:]
        func ids(_ key: String) -> [String] {
            guard let node = sm[key]?.value else { return [] }
            guard let elements = node.elements else {
                wrongType(node, "shuffle.\(key)", expected: "an array of card ids")
                return []
            }
            var out: [String] = []
            for (i, e) in elements.enumerated() {
                let p = "shuffle.\(key)[\(i)]"
                guard let id = e.stringValue else {
                    wrongType(e, p, expected: "a card id (a string)")
                    continue
                }
                if !known.contains(id) {
                    report(
                        .invalidValue, p, e.position,
                        "no card has the id \"\(Excerpt.of(id))\"; "
                            + ClosestMatch.hint(for: id, among: cards.map(\.id), quote: "\""))
                } else if let first = pinned[id] {
                    report(
                        .invalidValue, p, e.position,
                        "card \"\(Excerpt.of(id))\" is already pinned at line \(first.line); pin a card once")
                } else {
                    pinned[id] = e.position
                    out.append(id)
                }
            }
            return out
        }
        let first = ids("pinFirst")
        let last = ids("pinLast")
        return VisitOrder(shuffle: true, pinnedFirst: first, pinnedLast: last)
    }

    static func isLanguageTag(_ s: String) -> Bool { DeckFile.isLanguageTag(s) }

    private mutating func integer(
        _ members: [String: JSONNode.Member], _ key: String, in path: String, at objectPosition: TextPosition,
        range: ClosedRange<Int>, what: String
    ) -> Int? {
        let p = Self.join(path, key)
        guard let m = members[key] else {
            report(.missingKey, p, objectPosition, "missing \"\(key)\" (\(what), an integer from \(range.lowerBound))")
            return nil
        }
        guard case .number(let v) = m.value.value, v == v.rounded(), abs(v) < 1e15 else {
            wrongType(m.value, p, expected: "an integer (\(what))")
            return nil
        }
        guard range.contains(Int(v)) else {
            report(
                .invalidValue, p, m.value.position, "\(key) \(Int(v)) is out of range; use \(range.lowerBound) or more")
            return nil
        }
        return Int(v)
    }

    private static func isIdentifierScalar(_ u: Unicode.Scalar) -> Bool {
        (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || (u >= "0" && u <= "9") || u == "-" || u == "_"
            || u == "."
    }

    // MARK: - Cards

    private mutating func card(_ node: JSONNode, index: Int) -> Card? {
        let path = "cards[\(index)]"
        guard let m = object(node, path, keys: Self.cardKeys, what: "a card") else { return nil }
        let at = node.position
        var valid = true

        let id = string(m, "id", in: path, at: at, required: true, what: "the card's unique identifier")
        if let id, id.count > 128 {
            report(.invalidValue, "\(path).id", m["id"]!.value.position, "card id is longer than 128 characters")
            valid = false
        }
        let title = text(m, "title", in: path, at: at, required: true, what: "the card's title")

        var subtitle: LocalizedText?
        if m["subtitle"] != nil && m["body"] != nil {
            report(
                .conflictingKeys, "\(path).body", m["body"]!.keyPosition,
                "a card has either \"subtitle\" or \"body\" (the same text), not both")
            valid = false
        }
        for key in ["subtitle", "body"] where m[key] != nil {
            if let s = text(m, key, in: path, at: at, required: false, allowEmpty: true, what: "the card's body text") {
                subtitle = s
            } else {
                valid = false
            }
        }

        let colours = colour(m, path: path, at: at)
        if colours == nil { valid = false }

        var imagePath: String?
        if let im = m["image"] {
            if let rel = string(
                m, "image", in: path, at: at, required: false, what: "a PNG or JPEG path relative to the deck")
            {
                switch checkImage(rel) {
                case .ok(let resolved): imagePath = resolved
                case .missing(let resolved):
                    report(
                        .missingImage, "\(path).image", im.value.position,
                        "image \"\(rel)\" not found (looked for \(resolved)); image paths are relative to the deck file"
                    )
                    valid = false
                case .outsideDeck(let resolved):
                    report(
                        .imageOutsideDeck, "\(path).image", im.value.position,
                        "image \"\(rel)\" is outside the deck's folder (\(resolved)); copy it next to the deck"
                            + " and use a relative path")
                    valid = false
                case .unsupported(let resolved):
                    report(
                        .unsupportedImage, "\(path).image", im.value.position,
                        "image \"\(rel)\" (\(resolved)) is not a PNG or JPEG file; convert it to PNG or JPEG")
                    valid = false
                case .invalid(let resolved, let problem):
                    let kind: DeckProblem.Kind = problem.kind == .tooLarge ? .imageTooLarge : .corruptImage
                    report(kind, "\(path).image", im.value.position, "\(rel) (\(resolved)) \(problem.reason)")
                    valid = false
                }
            } else {
                valid = false
            }
        }

        var alt: LocalizedText?
        if m["alt"] != nil {
            alt = text(
                m, "alt", in: path, at: at, required: false,
                what: "what the image shows, in a few words: speech reads it (WCAG 1.1.1)")
            if alt == nil { valid = false }
        } else if imagePath != nil, let im = m["image"] {
            imagesWithoutAlt.append(
                DeckProblem(
                    kind: .missingImageDescription, path: "\(path).alt", position: im.keyPosition,
                    message: "the card's image has no \"alt\" text, so speech cannot say what it shows"
                        + " (WCAG 1.1.1); add \"alt\": \"…\" in a few words",
                    isWarning: true))
        }

        var tags: [String] = []
        if let t = m["tags"] {
            if let elements = t.value.elements {
                for (i, e) in elements.enumerated() {
                    if let s = e.stringValue, !s.isEmpty {
                        tags.append(s)
                    } else if e.stringValue != nil {
                        report(.invalidValue, "\(path).tags[\(i)]", e.position, "empty tag; remove it")
                        valid = false
                    } else {
                        wrongType(e, "\(path).tags[\(i)]", expected: "a string")
                        valid = false
                    }
                }
            } else {
                wrongType(t.value, "\(path).tags", expected: "an array of strings")
                valid = false
            }
        }

        var link: String?
        if let node = m["link"]?.value {
            link = self.link(node, path: "\(path).link", owner: "card \"\(Excerpt.of(id ?? String(index)))\"")
            if link == nil { valid = false }
        }

        guard valid, let id, let title, let colours else { return nil }
        var card = Card(
            id: id, title: title.resolved(for: language), subtitle: subtitle?.resolved(for: language) ?? "",
            color: colours.color, accent: colours.accent, imagePath: imagePath, tags: tags)
        // Translations only where there are some, so a one-language card stays as it was.
        if title.texts.count > 1 { card.localizedTitle = title }
        if let subtitle, subtitle.texts.count > 1 { card.localizedSubtitle = subtitle }
        card.link = link
        if let alt {
            card.imageDescription = alt.resolved(for: language)
            if alt.texts.count > 1 { card.localizedImageDescription = alt }
        }
        return card
    }

    /// The card's colour and a text colour that reads on it, from "color" or "theme".
    private mutating func colour(
        _ m: [String: JSONNode.Member], path: String, at: TextPosition
    ) -> (color: Color, accent: Color)? {
        let themeNames = Theme.allCases.map(\.rawValue)
        switch (m["color"], m["theme"]) {
        case (nil, nil):
            report(
                .missingKey, "\(path).color", at,
                "missing \"color\" (\"#RRGGBB\") or \"theme\" (one of \(themeNames.joined(separator: ", ")))")
            return nil
        case (.some, .some):
            report(
                .conflictingKeys, "\(path).theme", m["theme"]!.keyPosition,
                "a card has either \"color\" or \"theme\", not both")
            return nil
        case (.some(let c), nil):
            guard let s = c.value.stringValue else {
                wrongType(c.value, "\(path).color", expected: "a string \"#RRGGBB\"")
                return nil
            }
            guard let color = Self.hexColour(s) else {
                var message =
                    "unknown colour \"\(Excerpt.of(s))\"; write \"#RRGGBB\" with six hex digits (e.g. \"#2E7D32\")"
                if let t = Theme(rawValue: s.lowercased()) {
                    message += " or use \"theme\": \"\(t.rawValue)\""
                }
                report(.unknownColor, "\(path).color", c.value.position, message)
                return nil
            }
            return (color, Color.readableText(on: color))
        case (nil, .some(let t)):
            guard let s = t.value.stringValue else {
                wrongType(t.value, "\(path).theme", expected: "a string (a theme name)")
                return nil
            }
            guard let theme = Theme(rawValue: s) else {
                report(
                    .unknownTheme, "\(path).theme", t.value.position,
                    "unknown theme \"\(Excerpt.of(s))\"; " + ClosestMatch.hint(for: s, among: themeNames, quote: "\""))
                return nil
            }
            return (theme.mainColor, theme.accentColor)
        }
    }

    /// A link handed to the visitor as a QR code (`LinkCode`): "https://host…", printable ASCII
    /// without spaces (anything else percent-encoded), at most `LinkCode.maximumLength` bytes.
    private mutating func link(_ node: JSONNode, path: String, owner: String) -> String? {
        guard let s = node.stringValue else {
            wrongType(node, path, expected: "a string \"https://…\" (\(owner)'s link, shown as a QR code)")
            return nil
        }
        if let problem = Self.linkProblem(s) {
            report(.invalidValue, path, node.position, "\(owner): \(problem)")
            return nil
        }
        return s
    }

    /// Warnings for links a list deck carries: only the stack draws QR codes.
    static func unshownLinks(_ root: JSONNode, _ layout: DeckLayout) -> [DeckProblem] {
        guard layout == .list else { return [] }
        var places: [(String, TextPosition)] =
            root.members?.first { $0.key == "emptyLink" }
            .map { [("emptyLink", $0.keyPosition)] } ?? []
        for (i, card) in (root["cards"]?.elements ?? []).enumerated() {
            if let m = card.members?.first(where: { $0.key == "link" }) {
                places.append(("cards[\(i)].link", m.keyPosition))
            }
        }
        return places.map { path, position in
            DeckProblem(
                kind: .invalidValue, path: path, position: position,
                message:
                    "the list layout shows no QR code (only the stack does); use \"layout\": \"stack\" or remove it",
                isWarning: true)
        }
    }

    /// What is wrong with `s` as a link to show as a QR code, with the fix; nil when nothing is.
    static func linkProblem(_ s: String) -> String? {
        let shown = "\"\(Excerpt.of(s))\""
        let lower = s.lowercased()
        if lower.hasPrefix("http://") {
            return "link \(shown) is http; a phone opens it unencrypted — write \"https://…\""
        }
        guard lower.hasPrefix("https://") else {
            return "link \(shown) does not start with \"https://\"; write a full https address"
        }
        if let bad = s.unicodeScalars.first(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            let what = bad == " " ? "a space" : bad.value < 0x20 ? "a control character" : "a non-ASCII character"
            return "link \(shown) contains \(what); percent-encode it (a space is %20)"
        }
        let host = s.dropFirst("https://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if host.isEmpty || host.hasPrefix(".") || host.hasPrefix(":") {
            return "link \(shown) has no host; write \"https://example.org/…\""
        }
        if s.utf8.count > LinkCode.maximumLength {
            return "link is \(s.utf8.count) characters; a QR code of at least 25 mm on the smallest panel holds"
                + " \(LinkCode.maximumLength) — shorten it (a shorter path, or a redirect from a short address)"
        }
        return nil
    }

    /// "#RRGGBB" exactly (the schema's pattern); nil otherwise.
    static func hexColour(_ s: String) -> Color? {
        let u = Array(s.utf8)
        guard u.count == 7, u[0] == UInt8(ascii: "#"),
            u.dropFirst().allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) })
        else { return nil }
        return Color(hex: s)
    }
}
