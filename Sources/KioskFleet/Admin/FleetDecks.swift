/// Publishing decks to kiosks (server side): the deck file and its images stored
/// content-addressed (sha256, computed and checked by the server), assigned to kiosks, with
/// every assignment kept in `fleet.assignment_history` for rollback.
///
/// The kiosk side: `FleetDeckDownload` (its reads, under row-level security) and
/// `ManagedDecks` in KioskDeckFiles (staging, verify, atomic switch); docs/FLEET.md.
package enum FleetDecks {
    /// One image file of a deck: its path relative to the deck file, and its bytes.
    package struct Image: Sendable {
        package var path: String
        package var bytes: [UInt8]

        package init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }
    }

    /// What `publish` or `rollback` assigned to which kiosk.
    package struct Assignment: Hashable, Sendable {
        package var kioskID: String
        package var deckSHA256: String
        package var deckID: String
        package var version: Int
    }

    /// `\x…` text for a bytea parameter.
    static func byteaText(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: 2 + bytes.count * 2)
        out[0] = UInt8(ascii: "\\")
        out[1] = UInt8(ascii: "x")
        for (i, b) in bytes.enumerated() {
            out[2 + 2 * i] = hex[Int(b >> 4)]
            out[3 + 2 * i] = hex[Int(b & 15)]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The kiosks a publish goes to: one by id, or every kiosk of a group.
    package enum Target: Hashable, Sendable {
        case kiosk(String)
        case group(String)
    }

    static func kiosks(_ target: Target, on db: PostgresConnection) throws(FleetError) -> [String] {
        let rows: PostgresConnection.Rows
        switch target {
        case .kiosk(let id): rows = try db.execute("SELECT kiosk_id FROM fleet.kiosks WHERE kiosk_id = $1", [id])
        case .group(let g):
            rows = try db.execute("SELECT kiosk_id FROM fleet.kiosks WHERE group_name = $1 ORDER BY kiosk_id", [g])
        }
        let ids = rows.values.compactMap { $0[0] }
        if ids.isEmpty {
            let what: String =
                switch target {
                case .kiosk(let id): "no kiosk '\(id)' (fleet add-kiosk makes one)"
                case .group(let g): "no kiosk in group '\(g)' (fleet add-kiosk --group)"
                }
            throw FleetError(kind: .query, message: what)
        }
        return ids
    }

    /// Stores the deck and its images (new blobs only) and assigns it to `target`, in one
    /// transaction. Returns the assignments made.
    package static func publish(
        deck bytes: [UInt8], deckID: String, version: Int, images: [Image], to target: Target,
        on db: PostgresConnection
    ) throws(FleetError) -> [Assignment] {
        try db.transaction { db in
            let kioskIDs = try kiosks(target, on: db)
            let deck = try db.execute(
                """
                INSERT INTO fleet.decks (deck_sha256, deck_id, version, body)
                SELECT encode(sha256(b), 'hex'), $2, $3::integer, b FROM (SELECT $1::bytea AS b) x
                ON CONFLICT (deck_sha256) DO UPDATE SET deck_id = excluded.deck_id
                RETURNING deck_sha256
                """, [byteaText(bytes), deckID, String(version)])
            guard let sha = deck.scalar else { throw FleetError(kind: .query, message: "the deck was not stored") }
            for image in images {
                let blob = try db.execute(
                    """
                    INSERT INTO fleet.blobs (sha256, body)
                    SELECT encode(sha256(b), 'hex'), b FROM (SELECT $1::bytea AS b) x
                    ON CONFLICT (sha256) DO UPDATE SET sha256 = excluded.sha256
                    RETURNING sha256
                    """, [byteaText(image.bytes)])
                try db.execute(
                    """
                    INSERT INTO fleet.deck_images (deck_sha256, path, blob_sha256) VALUES ($1, $2, $3)
                    ON CONFLICT (deck_sha256, path) DO NOTHING
                    """, [sha, image.path, blob.scalar])
            }
            return try assign(sha, to: kioskIDs, rollback: false, on: db)
        }
    }

    /// Assigns to each kiosk of `target` the deck it had before its current one.
    package static func rollback(_ target: Target, on db: PostgresConnection) throws(FleetError) -> [Assignment] {
        try db.transaction { db in
            var made: [Assignment] = []
            for kiosk in try kiosks(target, on: db) {
                let previous = try db.execute(
                    """
                    SELECT h.deck_sha256 FROM fleet.assignment_history h
                    WHERE h.kiosk_id = $1 AND h.deck_sha256 <> (
                        SELECT deck_sha256 FROM fleet.deck_assignments WHERE kiosk_id = $1)
                    ORDER BY h.id DESC LIMIT 1
                    """, [kiosk])
                guard let sha = previous.scalar else {
                    throw FleetError(kind: .query, message: "kiosk '\(kiosk)' has no earlier deck to roll back to")
                }
                made += try assign(sha, to: [kiosk], rollback: true, on: db)
            }
            return made
        }
    }

    private static func assign(_ sha: String, to kiosks: [String], rollback: Bool, on db: PostgresConnection)
        throws(FleetError) -> [Assignment]
    {
        let deck = try db.execute("SELECT deck_id, version FROM fleet.decks WHERE deck_sha256 = $1", [sha])
        let deckID = deck.values.first?[0] ?? ""
        let version = Int(deck.values.first?[1] ?? "") ?? 0
        var made: [Assignment] = []
        for kiosk in kiosks {
            try db.execute(
                """
                INSERT INTO fleet.deck_assignments (kiosk_id, deck_sha256) VALUES ($1, $2)
                ON CONFLICT (kiosk_id) DO UPDATE SET deck_sha256 = excluded.deck_sha256, assigned_at = now()
                """, [kiosk, sha])
            try db.execute(
                "INSERT INTO fleet.assignment_history (kiosk_id, deck_sha256, rollback) VALUES ($1, $2, $3::boolean)",
                [kiosk, sha, rollback ? "true" : "false"])
            made.append(Assignment(kioskID: kiosk, deckSHA256: sha, deckID: deckID, version: version))
        }
        return made
    }
}
