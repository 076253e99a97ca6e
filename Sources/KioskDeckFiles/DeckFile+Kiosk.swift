import CardModel

extension DeckFile {
    /// The deck as the kiosk's rules take it (`Kiosk`): its texts in every language it offers,
    /// its rules, and the visitor session's `policy` (default: the deck's own timeouts).
    package func kioskDeck(policy: VisitorSession.Policy? = nil) -> KioskDeck {
        var texts: [String: KioskDeck.Texts] = [:]
        for l in Set(languages + [language]) {
            let d = localized(to: l)
            texts[l] = KioskDeck.Texts(
                title: d.title, leftLabel: d.leftLabel, rightLabel: d.rightLabel, emptyText: d.emptyText,
                attractText: d.attractText, warningText: d.warningText,
                closedText: d.schedule?.closedText ?? Schedule.defaultClosedText)
            texts[l]?.emptyLink = emptyLink
        }
        let ownPolicy = VisitorSession.Policy(
            idleTimeout: idleTimeoutSeconds ?? 60, warningSeconds: warningSeconds ?? 10, partialVisit: partialVisit)
        return KioskDeck(
            id: id, version: version, path: path, summary: summary, layout: layout == .list ? .list : .stack,
            cards: cards, language: language, languages: languages, texts: texts, order: order,
            cooldownSeconds: cooldownSeconds, schedule: schedule, policy: policy ?? ownPolicy)
    }
}
