import KioskReport
import KioskSystem

extension ReportPage {
    /// Which QR codes visitors saw: per deck version and code, the visits that showed it out of
    /// those that reached it, for all kiosks and then per kiosk; the codes whose card was not
    /// recorded as one line. Empty when no code was shown.
    var codesSection: String {
        var codes: [JSONValue] = []
        if case .array(let items)? = json["linkCodes.codes"] { codes = items }
        let notRecorded = Int(json["linkCodes.notRecorded"]?.double ?? 0)
        guard !codes.isEmpty || notRecorded > 0 else { return "" }
        var rows = ""
        for (i, code) in codes.enumerated() {
            let p = "linkCodes.codes.\(i)"
            let name =
                code["endState"] == .bool(true) ? "End state (every card done)" : cardName(p)
            var deck = "–"
            if case .string(let d)? = code["deckVersion"] { deck = Escape.htmlText(d) }
            rows +=
                "<tr class=\"\(code["suppressed"] == .bool(true) ? "grey" : "")\"><td class=\"name\">\(name)</td>"
                + "<td>\(deck)</td><td>all kiosks</td>" + codeFigures(p) + "</tr>\n"
            var kiosks: [JSONValue] = []
            if case .array(let items)? = code["kiosks"] { kiosks = items }
            for (j, kiosk) in kiosks.enumerated() {
                var id = "–"
                if case .string(let k)? = kiosk["kiosk"] { id = Escape.htmlText(k) }
                rows +=
                    "<tr class=\"\(kiosk["suppressed"] == .bool(true) ? "grey" : "")\"><td class=\"name\">\(name)</td>"
                    + "<td>\(deck)</td><td>\(id)</td>" + codeFigures("\(p).kiosks.\(j)") + "</tr>\n"
            }
        }
        let unknown =
            notRecorded > 0
            ? "<p class=\"note\">\(cell("linkCodes.notRecorded", "int", tag: "span")) codes were shown without a record"
                + " of which (stored before the kiosk kept the card, or synced to a fleet server before central schema"
                + " 12): counted here only, never guessed.</p>"
            : ""
        return """
            <section id="codes"><h2>QR codes shown</h2>
            <p class="help">Per card with a code (and the end state's code), per deck version: the visits that had the
            code in front of them, out of the visits that reached it (decided on the card, or were shown its code; for
            the end state, completed the deck). Visits started in the period; grey: fewer than \(figures.settings.k)
            visits (hidden).</p>
            <div class="scroll"><table><tr><th>Code (card id)</th><th>Deck</th><th>Kiosk</th><th>Visits shown the code</th>
            <th>Visits that reached it</th><th>Share</th></tr>\(rows)</table></div>\(unknown)</section>
            """
    }

    private func codeFigures(_ p: String) -> String {
        cell("\(p).shownVisits", "int") + cell("\(p).reachedVisits", "int") + cell("\(p).shownShare", "pct")
    }
}
