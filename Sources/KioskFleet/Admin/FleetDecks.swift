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

    /// SQLSTATE unique_violation: the id@version is published with other content.
    package static let versionConflict = "23505"

    /// The manifest a deck's content hash is taken over: the deck file's sha256, then one line
    /// per image, "\npath sha256", by path in byte order. The same text in SQL for decks stored
    /// before content hashes (`storedContentHash`).
    static func contentManifest(deckSHA256: String, images: [(path: String, sha256: String)]) -> String {
        deckSHA256
            + images.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
            .map { "\n\($0.path) \($0.sha256)" }.joined()
    }

    /// Stores the deck and its images (new blobs only) and assigns it to `target`, in one
    /// transaction. Refuses (SQLSTATE `versionConflict`) content different from what is stored
    /// under the same id@version: kiosks showing one id@version show the same thing. Returns
    /// the assignments made.
    ///
    /// With `canary` (a group only), the deck goes to the canaries alone and a rollout holds
    /// the rest of the group back (`FleetRollouts`). Any publish to a group supersedes the
    /// group's open rollout, so a later promotion never overwrites a newer deck.
    package static func publish(
        deck bytes: [UInt8], deckID: String, version: Int, images: [Image], to target: Target,
        canary: FleetRollouts.Canary? = nil, holdSeconds: Int = FleetRollouts.defaultHoldSeconds,
        on db: PostgresConnection
    ) throws(FleetError) -> [Assignment] {
        try db.transaction { db in
            var kioskIDs = try kiosks(target, on: db)
            if canary != nil, case .kiosk = target {
                throw FleetError(kind: .query, message: "--canary needs --group G (a rollout is per group)")
            }
            if let canary {
                kioskIDs = try FleetRollouts.choose(canary, from: kioskIDs)
            }
            // Two publishes of one id@version at once: one waits for the other.
            try db.execute(
                "SELECT pg_advisory_xact_lock(7246002, hashtext($1))", [deckID + "@" + String(version)])
            let hashed = try db.execute("SELECT encode(sha256($1::bytea), 'hex')", [byteaText(bytes)])
            guard let sha = hashed.scalar else { throw FleetError(kind: .query, message: "the deck was not hashed") }
            var stored: [(path: String, sha256: String)] = []
            for image in images {
                let blob = try db.execute(
                    """
                    INSERT INTO fleet.blobs (sha256, body)
                    SELECT encode(sha256(b), 'hex'), b FROM (SELECT $1::bytea AS b) x
                    ON CONFLICT (sha256) DO UPDATE SET sha256 = excluded.sha256
                    RETURNING sha256
                    """, [byteaText(image.bytes)])
                guard let blobSHA = blob.scalar else {
                    throw FleetError(kind: .query, message: "image \(image.path) was not stored")
                }
                stored.append((image.path, blobSHA))
            }
            let manifest = contentManifest(deckSHA256: sha, images: stored)
            guard
                let content = try db.execute("SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex')", [manifest]).scalar
            else { throw FleetError(kind: .query, message: "the deck's content was not hashed") }
            let existing = try db.execute(
                """
                SELECT coalesce(d.content_sha256, encode(sha256(convert_to(d.deck_sha256 || coalesce(
                           (SELECT string_agg(E'\\n' || i.path || ' ' || i.blob_sha256, '' ORDER BY i.path COLLATE "C")
                            FROM fleet.deck_images i WHERE i.deck_sha256 = d.deck_sha256), ''), 'UTF8')), 'hex')),
                       to_char(d.published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"')
                FROM fleet.decks d WHERE d.deck_id = $1 AND d.version = $2::integer
                """, [deckID, String(version)])
            if let other = existing.values.first(where: { $0[0] != content }) {
                throw FleetError(
                    kind: .query,
                    message:
                        "deck '\(deckID)' version \(version) is already published with different content "
                        + "(content sha256 \(String((other[0] ?? "").prefix(12)))…, published \(other[1] ?? "?"));"
                        + " kiosks showing \(deckID)@\(version) must all show the same deck: raise \"version\" in the"
                        + " deck file (to \(version + 1) or more) and publish again",
                    sqlState: versionConflict)
            }
            try db.execute(
                """
                INSERT INTO fleet.decks (deck_sha256, deck_id, version, body, content_sha256)
                VALUES ($1, $2, $3::integer, $4::bytea, $5)
                ON CONFLICT (deck_sha256) DO UPDATE
                    SET content_sha256 = coalesce(fleet.decks.content_sha256, excluded.content_sha256)
                """, [sha, deckID, String(version), byteaText(bytes), content])
            for image in stored {
                try db.execute(
                    """
                    INSERT INTO fleet.deck_images (deck_sha256, path, blob_sha256) VALUES ($1, $2, $3)
                    ON CONFLICT (deck_sha256, path) DO NOTHING
                    """, [sha, image.path, image.sha256])
            }
            if case .group(let group) = target {
                try FleetRollouts.supersede(group: group, on: db)
                if canary != nil {
                    try FleetRollouts.begin(
                        group: group, deckSHA256: sha, canaries: kioskIDs, holdSeconds: holdSeconds, on: db)
                }
            }
            return try assign(sha, to: kioskIDs, rollback: false, on: db)
        }
    }

    /// Assigns to each kiosk of `target` the deck it had before its current one.
    package static func rollback(_ target: Target, on db: PostgresConnection) throws(FleetError) -> [Assignment] {
        try db.transaction { db in
            var made: [Assignment] = []
            if case .group(let group) = target { try FleetRollouts.supersede(group: group, on: db) }
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

    static func assign(_ sha: String, to kiosks: [String], rollback: Bool, on db: PostgresConnection)
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
