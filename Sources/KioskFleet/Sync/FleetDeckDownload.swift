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

    /// One image as the server lists it: the path relative to the deck file, the sha256 it is
    /// stored under and its size in bytes (0: the blob is missing, which fails its hash).
    package struct Image: Hashable, Sendable {
        package var path: String
        package var sha256: String
        package var byteCount: Int
    }

    /// A deck as listed: its file (small, checked against `maxDeckBytes` before it is read)
    /// and its images, whose bytes `stream` reads.
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

    /// Reads the deck file and the list of its images in one REPEATABLE READ transaction and
    /// runs `body` inside it, where `stream` reads each image from the same snapshot (the deck
    /// and its images belong together even while an operator publishes). Sizes come first: a
    /// deck file over `maxDeckBytes` is refused before a byte of it is read.
    package static func download<T>(
        _ assigned: Assigned, maxDeckBytes: Int, on db: PostgresConnection, _ body: (Download) throws -> T
    ) throws -> T {
        try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let size = try db.execute(
                "SELECT octet_length(body) FROM fleet.decks WHERE deck_sha256 = $1", [assigned.sha256]
            ).scalar.flatMap { Int($0) }
            guard let size else {
                throw FleetError(
                    kind: .query, message: "deck \(assigned) is no longer assigned to this kiosk (published again?)")
            }
            guard size <= maxDeckBytes else {
                throw FleetError(
                    kind: .query,
                    message:
                        "deck \(assigned): the deck file on the server is \(size) bytes; a deck file may be at most "
                        + "\(maxDeckBytes >> 20) MB — publish a smaller one, the kiosk keeps its current deck")
            }
            let deck = try db.withBinaryValue(
                "SELECT body FROM fleet.decks WHERE deck_sha256 = $1", [assigned.sha256]
            ) { $0.map { Array($0) } ?? [] }
            let rows = try db.execute(
                """
                SELECT i.path, i.blob_sha256, coalesce(octet_length(b.body), 0) FROM fleet.deck_images i
                LEFT JOIN fleet.blobs b ON b.sha256 = i.blob_sha256
                WHERE i.deck_sha256 = $1 ORDER BY i.path
                """, [assigned.sha256])
            let images = rows.values.compactMap { row -> Image? in
                guard let path = row[0], let sha = row[1] else { return nil }
                return Image(path: path, sha256: sha, byteCount: Int(row[2] ?? "") ?? 0)
            }
            let value = try body(Download(assigned: assigned, deck: deck, images: images))
            try db.execute("COMMIT")
            return value
        } catch {
            if db.isOK { _ = try? db.execute("ROLLBACK") }
            throw error
        }
    }

    /// Bytes per round trip when streaming a blob: the kiosk holds about this much at a time
    /// (twice, briefly: libpq's result and the copy handed on), whatever the blob's size.
    package static let chunkBytes = 1 << 20

    /// Reads `image`'s bytes in `chunkBytes` pieces (`substring` of the bytea, binary results)
    /// and hands each to `chunk`, in order; inside `download`'s transaction.
    package static func stream(_ image: Image, on db: PostgresConnection, chunk: ([UInt8]) throws -> Void) throws {
        var offset = 0
        while offset < image.byteCount {
            let bytes = try db.withBinaryValue(
                "SELECT substring(body FROM $2::integer FOR $3::integer) FROM fleet.blobs WHERE sha256 = $1",
                [image.sha256, String(offset + 1), String(min(chunkBytes, image.byteCount - offset))]
            ) { $0.map { Array($0) } ?? [] }
            // An empty piece before the end cannot happen in one snapshot; the hash check says so.
            if bytes.isEmpty { return }
            try chunk(bytes)
            offset += bytes.count
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

    /// The columns of the server's heartbeats table: newer schemas add `deck_error` (6) and
    /// `warning` (8), which a kiosk leaves out on an older server.
    package static func heartbeatColumns(on db: PostgresConnection) throws(FleetError) -> Set<String> {
        let rows = try db.execute(
            """
            SELECT column_name FROM information_schema.columns
            WHERE table_schema = 'fleet' AND table_name = 'heartbeats'
            """)
        return Set(rows.values.compactMap { $0[0] })
    }
}
