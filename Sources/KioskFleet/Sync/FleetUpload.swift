/// One decision as it travels to the central server: plain values (KioskFleet does not read
/// the kiosk's SQLite; the executable hands these over).
package struct DecisionUpload: Hashable, Sendable {
    package var uid: String
    package var sessionID: String
    package var deckID: String
    package var deckVersion: Int
    package var cardID: String
    package var action: String
    package var wallTimeISO: String
    package var wallTimeMs: Int64
    package var monotonicNs: Int64
    package var dwellMs: Int64
    package var bootID: String?
    package var clockSynced: Bool?
    package var retractsUID: String?

    package init(
        uid: String, sessionID: String, deckID: String, deckVersion: Int, cardID: String, action: String,
        wallTimeISO: String, wallTimeMs: Int64, monotonicNs: Int64, dwellMs: Int64, bootID: String?,
        clockSynced: Bool?, retractsUID: String?
    ) {
        self.uid = uid
        self.sessionID = sessionID
        self.deckID = deckID
        self.deckVersion = deckVersion
        self.cardID = cardID
        self.action = action
        self.wallTimeISO = wallTimeISO
        self.wallTimeMs = wallTimeMs
        self.monotonicNs = monotonicNs
        self.dwellMs = dwellMs
        self.bootID = bootID
        self.clockSynced = clockSynced
        self.retractsUID = retractsUID
    }
}

/// The kiosk's state, sent every heartbeat interval.
package struct Heartbeat: Hashable, Sendable {
    package var sentAtMs: Int64
    package var appVersion: String
    /// "deck-id@version" of the deck on screen, nil: none.
    package var deckApplied: String?
    /// The deck the server assigned (sha256), nil: none known.
    package var deckAssigned: String?
    package var lastFlipMs: Int64?
    package var lastTouchMs: Int64?
    package var framesPerSecond: Double?
    package var unsent: Int
    package var storageFailing: Bool
    package var uptimeSeconds: Int64
    package var cpuTemperatureC: Double?
    /// The Pi firmware's throttled flags ("0x50005"), nil where the board does not report them.
    package var throttled: String?
    /// Why the assigned deck was not applied (a hash mismatch, a deck check), nil: no problem.
    package var deckError: String?

    package init(
        sentAtMs: Int64, appVersion: String, deckApplied: String? = nil, deckAssigned: String? = nil,
        lastFlipMs: Int64? = nil, lastTouchMs: Int64? = nil, framesPerSecond: Double? = nil, unsent: Int = 0,
        storageFailing: Bool = false, uptimeSeconds: Int64 = 0, cpuTemperatureC: Double? = nil,
        throttled: String? = nil
    ) {
        self.sentAtMs = sentAtMs
        self.appVersion = appVersion
        self.deckApplied = deckApplied
        self.deckAssigned = deckAssigned
        self.lastFlipMs = lastFlipMs
        self.lastTouchMs = lastTouchMs
        self.framesPerSecond = framesPerSecond
        self.unsent = unsent
        self.storageFailing = storageFailing
        self.uptimeSeconds = uptimeSeconds
        self.cpuTemperatureC = cpuTemperatureC
        self.throttled = throttled
    }
}

/// The kiosk's writes to the central server. Every row's `kiosk_id` is the server's
/// `fleet.current_kiosk()` (the logged-in role's kiosk), so a kiosk cannot write as another.
package enum FleetUpload {
    /// The most rows one transaction carries.
    package static let maxBatch = 500
    static let columnsPerRow = 13

    /// Inserts `batch` (≤ `maxBatch`) in one transaction with one statement,
    /// `ON CONFLICT (kiosk_id, decision_uid) DO NOTHING`: re-sending rows the server already has
    /// (after a crash before the local cursor moved, or a COMMIT whose answer was lost) changes
    /// nothing. Returns how many rows were new. When this returns, they are committed.
    @discardableResult
    package static func send(_ batch: [DecisionUpload], on db: PostgresConnection) throws(FleetError) -> Int {
        precondition(batch.count <= maxBatch, "a batch of \(batch.count) is over \(maxBatch)")
        if batch.isEmpty { return 0 }
        var tuples: [String] = []
        var parameters: [String?] = []
        tuples.reserveCapacity(batch.count)
        parameters.reserveCapacity(batch.count * columnsPerRow)
        for (n, d) in batch.enumerated() {
            let b = n * columnsPerRow
            tuples.append(
                "(fleet.current_kiosk(), $\(b + 1), \(FleetSchema.payloadVersion), $\(b + 2), $\(b + 3), "
                    + "$\(b + 4)::integer, $\(b + 5), $\(b + 6), $\(b + 7)::timestamptz, $\(b + 8)::bigint, "
                    + "$\(b + 9)::bigint, $\(b + 10)::bigint, $\(b + 11), $\(b + 12)::boolean, $\(b + 13))")
            parameters += [
                d.uid, d.sessionID, d.deckID, String(d.deckVersion), d.cardID, d.action, d.wallTimeISO,
                String(d.wallTimeMs), String(d.monotonicNs), String(d.dwellMs), d.bootID,
                d.clockSynced.map { $0 ? "true" : "false" }, d.retractsUID,
            ]
        }
        let sql =
            """
            INSERT INTO fleet.decisions (kiosk_id, decision_uid, payload_version, session_id, deck_id, deck_version,
                card_id, action, wall_time, wall_ms, monotonic_ns, dwell_ms, boot_id, clock_synced, retracts_uid)
            VALUES \(tuples.joined(separator: ",\n"))
            ON CONFLICT (kiosk_id, decision_uid) DO NOTHING
            """
        return try db.transaction { db in
            try db.execute(sql, parameters).affected
        }
    }

    /// Inserts one heartbeat row; `deckErrorColumn`: the server has `heartbeats.deck_error`
    /// (older schemas do not, and then the deck error is left out).
    package static func send(_ h: Heartbeat, on db: PostgresConnection, deckErrorColumn: Bool = false)
        throws(FleetError)
    {
        try db.execute(
            """
            INSERT INTO fleet.heartbeats (kiosk_id, sent_at, app_version, deck_applied, deck_assigned, last_flip,
                last_touch, fps, unsent, storage_failing, uptime_s, cpu_temp_c, throttled\(deckErrorColumn ? ", deck_error" : ""))
            VALUES (fleet.current_kiosk(), to_timestamp($1::bigint / 1000.0), $2, $3, $4,
                to_timestamp($5::bigint / 1000.0), to_timestamp($6::bigint / 1000.0), $7::real, $8::integer,
                $9::boolean, $10::bigint, $11::real, $12\(deckErrorColumn ? ", $13" : ""))
            """,
            [
                String(h.sentAtMs), h.appVersion, h.deckApplied, h.deckAssigned, h.lastFlipMs.map(String.init),
                h.lastTouchMs.map(String.init), h.framesPerSecond.map { String($0) }, String(h.unsent),
                h.storageFailing ? "true" : "false", String(h.uptimeSeconds), h.cpuTemperatureC.map { String($0) },
                h.throttled,
            ] + (deckErrorColumn ? [h.deckError] : []))
    }

    /// The sha256 of the deck the server assigns this kiosk (row-level security shows only its own), nil: none.
    package static func assignedDeck(on db: PostgresConnection) throws(FleetError) -> String? {
        try db.execute("SELECT deck_sha256 FROM fleet.deck_assignments").scalar
    }

    /// Which kiosk the server thinks this connection is (nil: the role is not a registered kiosk).
    package static func whoAmI(on db: PostgresConnection) throws(FleetError) -> String? {
        try db.execute("SELECT fleet.current_kiosk()").scalar
    }
}
