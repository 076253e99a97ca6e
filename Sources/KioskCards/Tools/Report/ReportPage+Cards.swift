import KioskReport
import KioskSystem

extension ReportPage {
    /// A card's name on the page: its title with the id beside it, or the id alone with a note
    /// when its deck version is not known to the report.
    func cardName(_ path: String) -> String {
        guard case .string(let id)? = json["\(path).card"] else { return "–" }
        guard case .string(let title)? = json["\(path).title"] else {
            // "(title unknown)" comes from the style sheet, so the cell's text is the id as stored.
            return "<span class=\"untitled\">\(Escape.htmlText(id))</span>"
        }
        return "\(Escape.htmlText(title)) <small class=\"id\">\(Escape.htmlText(id))</small>"
    }

    /// Which deck versions' cards show by id only, and how to get their titles.
    var unknownDecksNote: String {
        var unknown: [String] = []
        for c in figures.aggregates.cards where figures.decks["\(c.deckID)@\(c.deckVersion)"] == nil {
            let name = "\(c.deckID)@\(c.deckVersion)"
            if !unknown.contains(name) { unknown.append(name) }
        }
        guard !unknown.isEmpty else { return "" }
        let fix =
            figures.source.hasPrefix("PostgreSQL")
            ? "it was not published on this fleet server (fleet publish)"
            : "pass its deck file with --deck-file"
        return "<p class=\"note\">Cards of \(unknown.map { Escape.htmlText($0) }.joined(separator: ", ")) are shown by"
            + " id: the report does not have that deck version's file, so their titles are unknown (\(fix)).</p>"
    }

    /// The header's comparison with the previous period (only with --since).
    var comparisonLine: String {
        guard case .object? = json["previousPeriod"] else {
            return
                "<p class=\"help\">Give --since (and --until) to compare with the previous period of the same length.</p>"
        }
        return """
            <p class="compare">Compared with the previous period (\(Self.localTime(iso: rawPreviousTime("since"))) –
            \(Self.localTime(iso: rawPreviousTime("until")))): visits \(cell("totals.visits", "int", tag: "b")) (was
            \(cell("previousPeriod.visits", "int", tag: "span"))), approval \(cell("totals.approval", "pct", tag: "b")) (was
            \(cell("previousPeriod.approval", "pct", tag: "span"))), completed \(cell("totals.completed", "int", tag: "b")) (was
            \(cell("previousPeriod.completed", "int", tag: "span"))).</p>
            """
    }

    private func rawPreviousTime(_ key: String) -> String? {
        if case .string(let s)? = json["previousPeriod.\(key)"] { return s }
        return nil
    }

    /// Each card's approval over time: one line chart per deck version.
    var trendSection: String {
        var canvases = ""
        var seen: [String] = []
        if case .array(let cards)? = json["approvalOverTime.cards"] {
            for card in cards {
                if case .string(let deck)? = card["deckVersion"], !seen.contains(deck) { seen.append(deck) }
            }
        }
        for i in seen.indices { canvases += "<div class=\"chart\"><canvas id=\"chart-trend-\(i)\"></canvas></div>" }
        let bucket = json["approvalOverTime.bucket"] == .string("week") ? "week (from Monday)" : "local day"
        return """
            <section id="trend"><h2>Approval over time</h2>
            <p class="help">Each card's approval per \(bucket), one chart per deck version; a gap is a \(bucket) with no
            answers or fewer than \(figures.settings.k) visits (hidden).</p>\(canvases)</section>
            """
    }

    /// Approval per kiosk × card, coloured from red (0 %) through yellow to green (100 %).
    var kioskCardSection: String {
        guard case .array(let kiosks)? = json["kioskCards.kiosks"] else { return "" }
        var out = "<tr><th>Card (id · deck)</th>"
        for kiosk in kiosks {
            if case .string(let name) = kiosk { out += "<th>\(Escape.htmlText(name))</th>" }
        }
        out += "</tr>"
        var count = 0
        if case .array(let cards)? = json["kioskCards.cards"] { count = cards.count }
        for i in 0..<count {
            let p = "kioskCards.cards.\(i)"
            var deck = "–"
            if case .string(let d)? = json["\(p).deckVersion"] { deck = Escape.htmlText(d) }
            out += "<tr><td class=\"name\">\(cardName(p)) <small class=\"id\">· \(deck)</small></td>"
            for j in kiosks.indices {
                let path = "\(p).kiosks.\(j).approval"
                if let x = json[path]?.double {
                    out +=
                        "<td style=\"background:\(Self.approvalColour(x))\" data-k=\"\(path)\" data-f=\"pct0\">"
                        + "\(jsonNumber(x * 100, decimals: 0))</td>"
                } else if json["\(p).kiosks.\(j).suppressed"] == .bool(true) {
                    out += "<td class=\"hidden\" title=\"fewer than \(figures.settings.k) visits\">·</td>"
                } else {
                    out += "<td class=\"hidden\" title=\"no answers\"></td>"
                }
            }
            out += "</tr>"
        }
        return """
            <section id="kiosk-cards"><h2>Approval per kiosk × card</h2>
            <div class="heatwrap"><button type="button" class="csv" data-csv="kiosk-card">CSV</button>
            <div class="scroll"><table class="heat cards">\(out)</table></div></div>
            \(Self.approvalLegend)</section>
            """
    }

    /// The heat maps' approval colour for a share 0…1: hue red → green, paler in the middle.
    static func approvalColour(_ x: Double) -> String {
        "hsl(\(jsonNumber(x * 120, decimals: 0)),70%,\(jsonNumber(80 - 25 * abs(x - 0.5) * 2, decimals: 0))%)"
    }

    static var approvalLegend: String {
        "<p class=\"legend\"><span class=\"ramp\" style=\"background:linear-gradient(to right,"
            + "\(approvalColour(0)),\(approvalColour(0.5)),\(approvalColour(1)))\"></span> approval 0&nbsp;% → 50&nbsp;% → 100&nbsp;%"
            + " (cells show %) · <span class=\"swatch\">·</span> fewer visits than the privacy floor · empty: no answers</p>"
    }

    static func visitsLegend(max: Double) -> String {
        "<p class=\"legend\"><span class=\"ramp\" style=\"background:linear-gradient(to right,"
            + "rgba(37,99,235,0.12),rgba(37,99,235,1))\"></span> visits 0 → \(jsonNumber(max, decimals: 0))"
            + " (cells show visits) · <span class=\"swatch\">·</span> fewer visits than the privacy floor</p>"
    }
}
