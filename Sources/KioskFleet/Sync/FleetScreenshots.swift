import Glibc
import KioskSystem

/// Screenshots from afar (`fleet.screenshots`, central schema 11): an operator inserts a
/// request for one kiosk; the kiosk, told by a NOTIFY on its own channel, answers it once with
/// a PNG of its frame or a refusal; the operator, listening for answers, reads the PNG back.
///
/// Row-level security shows a kiosk role only its own requests (and only their id, time and
/// state: never a PNG, not even its own), and lets it change a request only from 'requested'
/// to 'taken' or 'refused'. Every row stays, with its times, as the central record.
package enum FleetScreenshots {
    /// The first central schema with `fleet.screenshots`.
    package static let schemaVersion = 11

    /// Requests older than this are not answered: whoever asked has given up waiting.
    package static let answerWindowSeconds = 120

    /// The answer's channel, with the request's id as payload.
    package static let answeredChannel = "fleet_shot_answered"

    /// An open request, as a kiosk sees it.
    package struct Request: Hashable, Sendable {
        package var id: Int64
        /// Seconds since the operator asked, by the server's clock.
        package var ageSeconds: Double
    }

    // MARK: The kiosk's side

    /// Whether the server has the table (schema 11); a kiosk on an older server does not listen.
    package static func available(on db: PostgresConnection) throws(FleetError) -> Bool {
        try db.execute("SELECT to_regclass('fleet.screenshots') IS NOT NULL").scalar == "t"
    }

    /// Listens for this kiosk's requests (`fleet_shot_` + md5 of its id); returns the channel.
    @discardableResult
    package static func listen(on db: PostgresConnection) throws(FleetError) -> String {
        guard let channel = try db.execute("SELECT 'fleet_shot_' || md5(fleet.current_kiosk())").scalar else {
            throw FleetError(kind: .authenticationFailed, message: "this role is not a registered kiosk")
        }
        try db.execute("LISTEN " + (try db.quoteIdentifier(channel)))
        return channel
    }

    /// This kiosk's open requests younger than `answerWindowSeconds`, oldest first (RLS: its own).
    package static func pending(on db: PostgresConnection) throws(FleetError) -> [Request] {
        let rows = try db.execute(
            """
            SELECT id, extract(epoch FROM clock_timestamp() - requested_at) FROM fleet.screenshots
            WHERE state = 'requested' AND requested_at > clock_timestamp() - make_interval(secs => $1::integer)
            ORDER BY id
            """, [String(answerWindowSeconds)])
        return rows.values.compactMap { row in
            guard let id = row[0].flatMap({ Int64($0) }) else { return nil }
            return Request(id: id, ageSeconds: row[1].flatMap { Double($0) } ?? 0)
        }
    }

    /// Answers request `id` with `png` (`width`×`height`, drawn at `takenWallMs`). False: the
    /// request was answered or withdrawn meanwhile.
    @discardableResult
    package static func answer(
        _ id: Int64, png: [UInt8], width: Int, height: Int, takenWallMs: Int64, on db: PostgresConnection
    ) throws(FleetError) -> Bool {
        let rows = try db.execute(
            """
            UPDATE fleet.screenshots SET state = 'taken', png = $2::bytea, width = $3::integer, height = $4::integer,
                taken_wall_ms = $5::bigint
            WHERE id = $1::bigint AND state = 'requested'
            """,
            [String(id), FleetDecks.byteaText(png), String(width), String(height), String(takenWallMs)])
        return rows.affected == 1
    }

    /// Refuses request `id`, saying why (what the operator reads). False: already answered.
    @discardableResult
    package static func refuse(_ id: Int64, reason: String, on db: PostgresConnection) throws(FleetError) -> Bool {
        let rows = try db.execute(
            "UPDATE fleet.screenshots SET state = 'refused', reason = $2 WHERE id = $1::bigint AND state = 'requested'",
            [String(id), String(reason.prefix(240))])
        return rows.affected == 1
    }

    // MARK: The operator's side

    /// A request as the operator sees it.
    package struct Answer: Hashable, Sendable {
        package var id: Int64
        package var state: String
        package var reason: String?
        /// The frame's wall time on the kiosk (milliseconds since 1970), when taken.
        package var takenWallMs: Int64?
        package var width: Int?
        package var height: Int?
    }

    /// Inserts a request for `kiosk` (its NOTIFY goes out at COMMIT); its id. Throws a clear
    /// error for an unknown kiosk or a server without the table.
    package static func request(kiosk: String, on db: PostgresConnection) throws(FleetError) -> Int64 {
        let version = try FleetSchema.currentVersion(db)
        guard version >= schemaVersion else {
            throw FleetError(
                kind: .schemaTooOld,
                message:
                    "the central schema is at version \(version); screenshots need \(schemaVersion): "
                    + "run 'KioskCards fleet init --postgres URL' with this KioskCards")
        }
        let known = try db.execute("SELECT count(*) FROM fleet.kiosks WHERE kiosk_id = $1", [kiosk]).scalar
        guard known == "1" else {
            throw FleetError(
                kind: .query,
                message: "no kiosk '\(kiosk)' is registered ('fleet status' lists them)")
        }
        guard
            let id = try db.execute(
                "INSERT INTO fleet.screenshots (kiosk_id) VALUES ($1) RETURNING id", [kiosk]
            ).scalar.flatMap({ Int64($0) })
        else {
            throw FleetError(kind: .query, message: "the server returned no id for the screenshot request")
        }
        return id
    }

    /// LISTENs for answers (before the request is inserted, so none is missed).
    package static func listenForAnswers(on db: PostgresConnection) throws(FleetError) {
        try db.execute("LISTEN " + answeredChannel)
    }

    /// Request `id` as it stands now.
    package static func answer(_ id: Int64, on db: PostgresConnection) throws(FleetError) -> Answer? {
        let rows = try db.execute(
            "SELECT state, reason, taken_wall_ms, width, height FROM fleet.screenshots WHERE id = $1::bigint",
            [String(id)])
        guard let row = rows.values.first else { return nil }
        return Answer(
            id: id, state: row[0] ?? "", reason: row[1], takenWallMs: row[2].flatMap { Int64($0) },
            width: row[3].flatMap { Int($0) }, height: row[4].flatMap { Int($0) })
    }

    /// Waits up to `seconds` for request `id` to be answered (its NOTIFY, in poll(2) on the
    /// connection's socket, with a look at the row every second in case one was missed); the
    /// answer, or the request still open at the timeout.
    package static func wait(for id: Int64, seconds: Double, on db: PostgresConnection) throws(FleetError) -> Answer? {
        let end = MonotonicClock.now().seconds + seconds
        while true {
            let now = try answer(id, on: db)
            if let now, now.state != "requested" { return now }
            let left = end - MonotonicClock.now().seconds
            if left <= 0 { return now }
            var fds = [pollfd(fd: db.socket, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, Int32(min(left, 1) * 1000) + 1)
            _ = try db.takeNotifications()
        }
    }

    /// Marks request `id` as given up (the kiosk then leaves it), if it is still open.
    package static func expire(_ id: Int64, on db: PostgresConnection) throws(FleetError) {
        try db.execute(
            "UPDATE fleet.screenshots SET state = 'expired' WHERE id = $1::bigint AND state = 'requested'", [String(id)]
        )
    }

    /// The PNG of a taken request, read in binary (no hex text).
    package static func png(_ id: Int64, on db: PostgresConnection) throws -> [UInt8]? {
        try db.withBinaryValue("SELECT png FROM fleet.screenshots WHERE id = $1::bigint", [String(id)]) {
            $0.map { Array($0) }
        }
    }

    /// Seconds since `kiosk`'s app last sent a heartbeat (nil: never), to explain a silence.
    package static func secondsSinceHeartbeat(kiosk: String, on db: PostgresConnection) throws(FleetError) -> Int? {
        try db.execute(
            """
            SELECT extract(epoch FROM clock_timestamp() - max(received_at))::bigint FROM fleet.heartbeats
            WHERE kiosk_id = $1
            """, [kiosk]
        ).scalar.flatMap { Int($0) }
    }
}
