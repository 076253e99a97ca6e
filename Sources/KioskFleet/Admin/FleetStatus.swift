/// One row per kiosk for `fleet status`, from the latest heartbeat.
package struct KioskStatus: Hashable, Sendable {
    package enum State: String, Hashable, Sendable {
        /// A heartbeat within `staleAfter`.
        case online
        /// The last heartbeat is older than `staleAfter` (three missed heartbeats).
        case stale
        /// The last heartbeat is older than `offlineAfter`.
        case offline
        /// Registered, never heard from.
        case never
    }

    package var kioskID: String
    package var state: State
    /// Seconds since the last heartbeat arrived (server clock), nil: never.
    package var secondsSinceHeartbeat: Int64?
    package var appVersion: String?
    package var deckApplied: String?
    /// What the server assigns (fleet.deck_assignments), else what the kiosk last reported.
    package var deckAssigned: String?
    package var unsent: Int?
    package var lastTouch: String?
    package var lastFlip: String?
    package var cpuTemperatureC: Double?
    package var throttled: String?
    package var storageFailing: Bool?
    /// Decisions the server holds for this kiosk.
    package var decisions: Int
    /// Why the kiosk did not apply its assigned deck (its last heartbeat), nil: no problem.
    package var deckError: String? = nil

    package static let staleAfter: Int64 = 180
    package static let offlineAfter: Int64 = 3600

    package static func state(secondsSinceHeartbeat age: Int64?) -> State {
        guard let age else { return .never }
        if age <= staleAfter { return .online }
        return age <= offlineAfter ? .stale : .offline
    }

    /// Every registered kiosk, by id.
    package static func all(on db: PostgresConnection) throws(FleetError) -> [KioskStatus] {
        let rows = try db.execute(
            """
            SELECT k.kiosk_id,
                   floor(extract(epoch FROM clock_timestamp() - h.received_at))::bigint,
                   h.app_version, h.deck_applied, coalesce(a.deck_sha256, h.deck_assigned), h.unsent,
                   to_char(h.last_touch AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                   to_char(h.last_flip AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                   h.cpu_temp_c, h.throttled, h.storage_failing,
                   (SELECT count(*) FROM fleet.decisions d WHERE d.kiosk_id = k.kiosk_id),
                   to_jsonb(h) ->> 'deck_error'
            FROM fleet.kiosks k
            LEFT JOIN LATERAL (
                SELECT * FROM fleet.heartbeats h WHERE h.kiosk_id = k.kiosk_id ORDER BY received_at DESC LIMIT 1
            ) h ON true
            LEFT JOIN fleet.deck_assignments a ON a.kiosk_id = k.kiosk_id
            ORDER BY k.kiosk_id
            """)
        return rows.values.map { v in
            let age = v[1].flatMap { Int64($0) }
            return KioskStatus(
                kioskID: v[0] ?? "", state: state(secondsSinceHeartbeat: age), secondsSinceHeartbeat: age,
                appVersion: v[2], deckApplied: v[3], deckAssigned: v[4], unsent: v[5].flatMap { Int($0) },
                lastTouch: v[6], lastFlip: v[7], cpuTemperatureC: v[8].flatMap { Double($0) }, throttled: v[9],
                storageFailing: v[10].map { $0 == "t" }, decisions: v[11].flatMap { Int($0) } ?? 0, deckError: v[12])
        }
    }
}
