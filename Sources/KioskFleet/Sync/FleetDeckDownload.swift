/// The kiosk's reads of its assigned deck (decks down). Row-level security shows a kiosk role
/// only the assignment, deck and images that are its own, so these queries name no kiosk.
///
/// Nothing here trusts the server: the caller hashes every byte it got and compares it with
/// the sha256 it was stored under, then runs the deck checks, before anything is switched.
package enum FleetDeckDownload {
    /// What the server assigns this kiosk.
    package struct Assigned: Hashable, Sendable, CustomStringConvertible {
        package var sha256: String
        package var deckID: String
        package var version: Int

        package init(sha256: String, deckID: String, version: Int) {
            self.sha256 = sha256
            self.deckID = deckID
            self.version = version
        }

        package var description: String { "\(deckID)@\(version) (sha256 \(sha256.prefix(12)))" }
    }

    /// One image as the server holds it: the path relative to the deck file, the sha256 it is
    /// stored under and the bytes the server returned (which may not match it).
    package struct Image: Hashable, Sendable {
        package var path: String
        package var sha256: String
        package var bytes: [UInt8]
    }

    /// A deck as downloaded, not yet verified.
    package struct Download: Hashable, Sendable {
        package var assigned: Assigned
        package var deck: [UInt8]
        package var images: [Image]
    }

    /// The deck the server assigns this kiosk, nil: none.
    package static func assigned(on db: PostgresConnection) throws(FleetError) -> Assigned? {
        let rows = try db.execute(
            """
            SELECT a.deck_sha256, d.deck_id, d.version FROM fleet.deck_assignments a
            JOIN fleet.decks d ON d.deck_sha256 = a.deck_sha256
            """)
        guard let row = rows.values.first, let sha = row[0] else { return nil }
        return Assigned(sha256: sha, deckID: row[1] ?? "", version: Int(row[2] ?? "") ?? 0)
    }

    /// The deck file and every image of `assigned`, read in one REPEATABLE READ transaction so
    /// the deck and its images belong together even while an operator publishes.
    package static func download(_ assigned: Assigned, on db: PostgresConnection) throws(FleetError) -> Download {
        try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do throws(FleetError) {
            let deck = try db.execute("SELECT body FROM fleet.decks WHERE deck_sha256 = $1", [assigned.sha256])
            guard let text = deck.scalar else {
                throw FleetError(
                    kind: .query, message: "deck \(assigned) is no longer assigned to this kiosk (published again?)")
            }
            let rows = try db.execute(
                """
                SELECT i.path, i.blob_sha256, b.body FROM fleet.deck_images i
                LEFT JOIN fleet.blobs b ON b.sha256 = i.blob_sha256
                WHERE i.deck_sha256 = $1 ORDER BY i.path
                """, [assigned.sha256])
            var images: [Image] = []
            for row in rows.values {
                guard let path = row[0], let sha = row[1] else { continue }
                // A missing blob reads as no bytes: it fails its hash like any other damage.
                images.append(Image(path: path, sha256: sha, bytes: row[2].map(bytes(fromBytea:)) ?? []))
            }
            try db.execute("COMMIT")
            return Download(assigned: assigned, deck: bytes(fromBytea: text), images: images)
        } catch {
            if db.isOK { _ = try? db.execute("ROLLBACK") }
            throw error
        }
    }

    /// Listens for this kiosk's assignment changes (`fleet.deck_assignments` notifies on
    /// `fleet_deck_` + md5 of the kiosk id: other kiosks' channels carry nothing to this one, and
    /// the notification carries no data — the kiosk reads its assignment through RLS). Returns
    /// the channel.
    @discardableResult
    package static func listen(on db: PostgresConnection) throws(FleetError) -> String {
        guard let channel = try db.execute("SELECT 'fleet_deck_' || md5(fleet.current_kiosk())").scalar else {
            throw FleetError(kind: .authenticationFailed, message: "this role is not a registered kiosk")
        }
        try db.execute("LISTEN " + (try db.quoteIdentifier(channel)))
        return channel
    }

    /// Whether the server's heartbeats table has the `deck_error` column (a newer schema).
    package static func heartbeatsHaveDeckError(on db: PostgresConnection) throws(FleetError) -> Bool {
        let rows = try db.execute(
            """
            SELECT 1 FROM information_schema.columns
            WHERE table_schema = 'fleet' AND table_name = 'heartbeats' AND column_name = 'deck_error'
            """)
        return rows.count > 0
    }

    /// The bytes of a bytea in PostgreSQL's text output (hex format, `\\x…`).
    package static func bytes(fromBytea text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x") else { return utf8 }
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: 0
            }
        }
        var out = [UInt8]()
        out.reserveCapacity((utf8.count - 2) / 2)
        var i = 2
        while i + 1 < utf8.count {
            out.append(nibble(utf8[i]) << 4 | nibble(utf8[i + 1]))
            i += 2
        }
        return out
    }
}
