/// A text the operator wrote in one or more languages: the deck's default language always,
/// others where the deck carries them ("title": {"de": "Kaffee", "en": "Coffee"}).
public struct LocalizedText: Hashable, Sendable {
    /// The text per language tag ("de", "en-GB", "zh-Hans"), including the default language's.
    public var texts: [String: String]
    /// The deck's language: what every other language falls back to.
    public var defaultLanguage: String

    /// A text in one language only (an old deck's plain string).
    public init(_ text: String, language: String) {
        texts = [language: text]
        defaultLanguage = language
    }

    public init(texts: [String: String], defaultLanguage: String) {
        self.texts = texts
        self.defaultLanguage = defaultLanguage
    }

    /// The text for a visitor who reads `language`: that tag, else its primary language
    /// ("de-AT" → "de"), else a tag of the same primary language ("zh" → "zh-Hans"), else the
    /// deck's default language (else any text, for a deck that lacks its own).
    public func resolved(for language: String?) -> String {
        if let tag = LocalizedText.match(language, in: texts.keys), let t = texts[tag] { return t }
        if let t = texts[defaultLanguage] { return t }
        return texts.keys.sorted().first.flatMap { texts[$0] } ?? ""
    }

    /// Whether a visitor who reads `language` gets a text in it rather than the fallback.
    public func has(_ language: String) -> Bool { LocalizedText.match(language, in: texts.keys) != nil }

    /// The tag among `tags` that serves `language` best, nil when none is of its language.
    public static func match<S: Sequence>(_ language: String?, in tags: S) -> String? where S.Element == String {
        guard let language else { return nil }
        let wanted = language.lowercased()
        let all = Array(tags)
        if let exact = all.first(where: { $0.lowercased() == wanted }) { return exact }
        let primary = LocalizedText.primary(wanted)
        if let p = all.first(where: { $0.lowercased() == primary }) { return p }
        return all.sorted().first(where: { LocalizedText.primary($0.lowercased()) == primary })
    }

    /// The primary language subtag: "en-GB" → "en".
    public static func primary(_ tag: String) -> String {
        String(tag.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}

extension Card {
    /// The card as a visitor who reads `language` sees it: title, subtitle and image description in that language
    /// (falling back to the deck's default language); a card without translations is unchanged.
    public func localized(to language: String?) -> Card {
        var c = self
        if let t = localizedTitle { c.title = t.resolved(for: language) }
        if let s = localizedSubtitle { c.subtitle = s.resolved(for: language) }
        if let a = localizedImageDescription { c.imageDescription = a.resolved(for: language) }
        return c
    }
}
