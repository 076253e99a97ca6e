/// The QR codes visitors saw (docs/REPORT.md "QR codes"): per deck version and code, the visits
/// that showed it out of the visits that reached it, in all and per kiosk.
extension ReportFigures {
    /// One code of a deck version summed over the kiosks, with its kiosks in kiosk order.
    package struct CodeRow: Hashable, Sendable {
        package var deckID: String
        package var deckVersion: Int
        /// The card's id; nil: the end state's code.
        package var cardID: String?
        package var shownVisits = 0
        package var reachedVisits = 0
        package var kiosks: [ReportAggregates.LinkCode] = []
    }

    /// Every code shown, by deck id and version, then deck order (the deck file's when the
    /// report has it, else the card's usual position), the end state's code last.
    package var codeRows: [CodeRow] {
        var rows: [String: CodeRow] = [:]
        for c in aggregates.linkCodes {
            let key = "\(c.deckID)@\(c.deckVersion)\u{1}\(c.cardID.map { "c" + $0 } ?? "e")"
            var row = rows[key] ?? CodeRow(deckID: c.deckID, deckVersion: c.deckVersion, cardID: c.cardID)
            row.shownVisits += c.shownVisits
            row.reachedVisits += c.reachedVisits
            row.kiosks.append(c)
            rows[key] = row
        }
        var usual: [String: Int] = [:]
        for c in aggregates.cards {
            if let p = c.usualPosition { usual["\(c.deckID)@\(c.deckVersion)\u{1}\(c.cardID)"] = p }
        }
        func place(_ r: CodeRow) -> Int {
            guard let card = r.cardID else { return Int.max }
            if let deck = decks["\(r.deckID)@\(r.deckVersion)"] {
                return deck.cards.firstIndex { $0.id == card }.map { $0 + 1 } ?? Int.max - 1
            }
            return usual["\(r.deckID)@\(r.deckVersion)\u{1}\(card)"] ?? Int.max - 1
        }
        return rows.values.map { row in
            var row = row
            row.kiosks.sort { $0.kioskID.utf8.lexicographicallyPrecedes($1.kioskID.utf8) }
            return row
        }.sorted { l, r in
            if l.deckID != r.deckID { return l.deckID.utf8.lexicographicallyPrecedes(r.deckID.utf8) }
            if l.deckVersion != r.deckVersion { return l.deckVersion < r.deckVersion }
            let lp = place(l)
            let rp = place(r)
            if lp != rp { return lp < rp }
            return (l.cardID ?? "").utf8.lexicographicallyPrecedes((r.cardID ?? "").utf8)
        }
    }

    /// The `linkCodes` part of the JSON document. A row (or a kiosk's cell) with fewer than k
    /// visits reaching the code hides its counts, as every other figure does.
    var codesJSON: JSONValue {
        let k = settings.k
        func counts(shown: Int, reached: Int) -> [(String, JSONValue)] {
            guard reached >= k else {
                return [
                    ("suppressed", .bool(true)), ("shownVisits", .null), ("reachedVisits", .null),
                    ("shownShare", .null),
                ]
            }
            return [
                ("suppressed", .bool(false)), ("shownVisits", .int(shown)), ("reachedVisits", .int(reached)),
                ("shownShare", .number(Double(shown) / Double(reached), 6)),
            ]
        }
        // Built in steps with their types spelled out: as one expression Swift 6.0.3's type
        // checker gives up on it.
        var codes: [JSONValue] = []
        for r in codeRows {
            var kiosks: [JSONValue] = []
            for c in r.kiosks {
                let fields: [(String, JSONValue)] = [("kiosk", JSONValue.string(c.kioskID))]
                kiosks.append(.object(fields + counts(shown: c.shownVisits, reached: c.reachedVisits)))
            }
            let title: String? = r.cardID.flatMap { self.title(deck: r.deckID, version: r.deckVersion, card: $0) }
            let card: JSONValue = r.cardID.map { JSONValue.string($0) } ?? JSONValue.null
            let titleValue: JSONValue = title.map { JSONValue.string($0) } ?? JSONValue.null
            var fields: [(String, JSONValue)] = [
                ("deck", .string(r.deckID)), ("version", .int(r.deckVersion)),
                ("deckVersion", .string("\(r.deckID)@\(r.deckVersion)")),
                ("card", card), ("endState", .bool(r.cardID == nil)), ("title", titleValue),
            ]
            fields += counts(shown: r.shownVisits, reached: r.reachedVisits)
            fields.append(("kiosks", .array(kiosks)))
            codes.append(.object(fields))
        }
        return .object([("codes", .array(codes)), ("notRecorded", .int(aggregates.linkShownNotRecorded))])
    }
}
