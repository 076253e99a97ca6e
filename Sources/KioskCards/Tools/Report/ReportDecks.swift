import Glibc
import KioskDeckFiles
import KioskFleet
import KioskReport
import KioskStore
import KioskSystem

/// The decks whose card titles the report shows, per "id@version": from the fleet's published
/// copies (`fleet.decks`) with `--postgres`; from `--deck-file` and the deck the fleet last sent
/// this kiosk (`DATA/fleet-decks/current`) with `--data`. A card of a deck version not found
/// here is shown by its id, and the page says so.
enum ReportDecks {
    /// The decks at `paths`, then the kiosk's managed deck; a file that does not parse is a
    /// warning (the report still shows the cards by id), never a failure.
    static func fromFiles(_ paths: [String], dataDirectory: String) -> [String: ReportFigures.DeckCards] {
        var decks: [String: ReportFigures.DeckCards] = [:]
        let managed = ManagedDecks(dataDirectory: dataDirectory).deckPath
        var candidates = paths
        if access(managed, R_OK) == 0 { candidates.append(managed) }
        for path in candidates {
            switch DeckLoader.load(path: path) {
            case .success(let deck):
                let key = "\(deck.id)@\(deck.version)"
                if decks[key] == nil {
                    decks[key] = .init(cards: deck.cards.map { ($0.id, $0.title) }, source: "the deck file \(path)")
                }
            case .failure(let problems):
                guard paths.contains(path) else { continue }
                Log.warning(
                    "report: cards of \(path) shown by id: \(problems) — check the deck with 'KioskCards check-deck'")
            }
        }
        return decks
    }

    /// Every deck version published on the fleet server, parsed for its titles. A role that may
    /// not read fleet.decks gets the cards by id, with a warning.
    static func fromFleet(_ reader: PostgresReportReader) -> [String: ReportFigures.DeckCards] {
        let rows: [[String?]]
        do {
            rows = try reader.rows(
                "SELECT deck_id, version, convert_from(body, 'UTF8') FROM fleet.decks", integers: [:], texts: [:])
        } catch {
            Log.warning("report: cards shown by id, the published decks are not readable: \(error)")
            return [:]
        }
        var decks: [String: ReportFigures.DeckCards] = [:]
        for row in rows {
            let key = "\(row[0] ?? "")@\(row[1] ?? "")"
            switch DeckLoader.parseTexts(bytes: Array((row[2] ?? "").utf8), path: key) {
            case .success(let deck):
                decks[key] = .init(cards: deck.cards.map { ($0.id, $0.title) }, source: "fleet.decks")
            case .failure(let problems):
                Log.warning("report: cards of the published \(key) shown by id: \(problems)")
            }
        }
        return decks
    }
}
