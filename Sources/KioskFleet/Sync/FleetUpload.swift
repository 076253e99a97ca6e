import KioskSystem

/// A maintenance log entry (payload 3): out of order, back in service, or a note.
package struct MaintenanceUpload: Hashable, Sendable {
    package var wallMs: Int64
    package var state: String
    package var note: String

    package init(wallMs: Int64, state: String, note: String) {
        self.wallMs = wallMs
        self.state = state
        self.note = note
    }
}

/// What one sync round sends in one transaction (each part ≤ `FleetUpload.maxBatch`): the
/// kiosk's stored rows as `KioskStore` read them (KioskFleet never reads SQLite; the executable
/// hands them over), in the record types defined once on the floor (KioskSystem/Records).
/// Payload 3 adds the row id (`local_id`, storage order), position, input method and flags,
/// and the visits and events; payload 4 the accessibility mode and language; payload 5 each
/// event's visit and QR code. A visit is sent
/// once it has ended, or once a newer one started (left open by a crash): then it never
/// changes, so the server keeps the first copy.
package struct UploadBatch: Hashable, Sendable {
    package var decisions: [StoredDecision] = []
    package var visits: [VisitRecord] = []
    package var events: [StoredEvent] = []
    package var maintenance: [MaintenanceUpload] = []

    package init(
        decisions: [StoredDecision] = [], visits: [VisitRecord] = [], events: [StoredEvent] = [],
        maintenance: [MaintenanceUpload] = []
    ) {
        self.decisions = decisions
        self.visits = visits
        self.events = events
        self.maintenance = maintenance
    }

    package var isEmpty: Bool { decisions.isEmpty && visits.isEmpty && events.isEmpty && maintenance.isEmpty }
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
    /// What the operator should know about this kiosk's setup (it does not verify the
    /// server: `fleet-tls = insecure`), nil: nothing.
    package var warning: String?
    /// Who sent it: the running app, or `fleet sync` (a rescue sync with no app running,
    /// which never makes the kiosk count as online).
    package var source: Source = .sync
    /// The kiosk's schedule has it closed now (nil: no schedule, or not the running app).
    package var scheduleClosed: Bool?
    /// While closed: when the schedule opens again (wall clock, ms), nil: not known.
    package var opensAtMs: Int64?
    /// The panel's own kernel-timestamp → page-flip latency over the last minutes
    /// (`InputToFlip.window`), nil: no touch shown in that time.
    package var inputToFlip: InputToFlip?

    package enum Source: String, Hashable, Sendable {
        case app
        case sync
    }

    /// Input → flip percentiles, milliseconds, from `samples` touches shown.
    package struct InputToFlip: Hashable, Sendable {
        /// The span the figures cover, seconds.
        package static let window = 300.0
        package var p50: Double
        package var p95: Double
        package var p99: Double
        package var max: Double
        package var samples: Int

        package init(p50: Double, p95: Double, p99: Double, max: Double, samples: Int) {
            self.p50 = p50
            self.p95 = p95
            self.p99 = p99
            self.max = max
            self.samples = samples
        }

        /// The figures of `milliseconds` (nearest rank), nil when empty.
        package init?(milliseconds: [Double]) {
            guard !milliseconds.isEmpty else { return nil }
            let sorted = milliseconds.sorted()
            // Nearest rank: the ⌈p·n/100⌉-th smallest, in integers (no rounding at the edges).
            func rank(_ p: Int) -> Double { sorted[Swift.max(1, (p * sorted.count + 99) / 100) - 1] }
            self.init(p50: rank(50), p95: rank(95), p99: rank(99), max: sorted[sorted.count - 1], samples: sorted.count)
        }
    }

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

    /// Inserts `batch` (≤ `maxBatch`) in one transaction with one statement,
    /// `ON CONFLICT (kiosk_id, decision_uid) DO NOTHING`: re-sending rows the server already has
    /// (after a crash before the local cursor moved, or a COMMIT whose answer was lost) changes
    /// nothing. Returns how many rows were new. When this returns, they are committed.
    @discardableResult
    package static func send(
        _ batch: [StoredDecision], payloadVersion: Int = FleetSchema.payloadVersion, on db: PostgresConnection
    ) throws(FleetError) -> Int {
        try send(UploadBatch(decisions: batch), payloadVersion: payloadVersion, on: db)
    }

    /// Inserts every part of `batch` in one transaction, one statement per part, each
    /// `ON CONFLICT … DO NOTHING` on its key. With `payloadVersion` 2 (a server not yet at
    /// schema 5, or a test of an older kiosk) it sends exactly what payload 2 sent: the
    /// decisions without the report's columns, and nothing else. Returns the new decisions.
    @discardableResult
    package static func send(
        _ batch: UploadBatch, payloadVersion: Int = FleetSchema.payloadVersion, on db: PostgresConnection
    )
        throws(FleetError) -> Int
    {
        precondition(
            batch.decisions.count <= maxBatch && batch.visits.count <= maxBatch && batch.events.count <= maxBatch
                && batch.maintenance.count <= maxBatch, "a batch part is over \(maxBatch)")
        precondition((2...5).contains(payloadVersion), "payload version \(payloadVersion)")
        if batch.isEmpty { return 0 }
        let v3 = payloadVersion >= 3
        let v4 = payloadVersion >= 4
        let v5 = payloadVersion >= 5
        var statements: [(sql: String, parameters: [String?])] = []
        if !batch.decisions.isEmpty {
            let width = v4 ? 20 : v3 ? 18 : 13
            var tuples: [String] = []
            var parameters: [String?] = []
            tuples.reserveCapacity(batch.decisions.count)
            parameters.reserveCapacity(batch.decisions.count * width)
            for (n, stored) in batch.decisions.enumerated() {
                let (b, d) = (n * width, stored.record)
                var tuple =
                    "(fleet.current_kiosk(), $\(b + 1), \(payloadVersion), $\(b + 2), $\(b + 3), "
                    + "$\(b + 4)::integer, $\(b + 5), $\(b + 6), $\(b + 7)::timestamptz, $\(b + 8)::bigint, "
                    + "$\(b + 9)::bigint, $\(b + 10)::bigint, $\(b + 11), $\(b + 12)::boolean, $\(b + 13)"
                parameters += [
                    stored.uid, d.sessionID, d.deckID, String(d.deckVersion), d.cardID, stored.actionName,
                    d.wallTimeISO, String(d.wallTimeMs), String(d.monotonicNs), String(d.dwellMs), d.bootID,
                    bool(d.clockSynced), stored.retractsUID,
                ]
                if v3 {
                    tuple +=
                        ", $\(b + 14)::bigint, $\(b + 15)::integer, $\(b + 16), $\(b + 17)::boolean, $\(b + 18)::boolean"
                    parameters += [
                        String(stored.id), d.position.map { String($0) }, stored.inputMethodName,
                        bool(stored.discarded), bool(stored.tooFast),
                    ]
                }
                if v4 {
                    tuple += ", $\(b + 19)::boolean, $\(b + 20)"
                    parameters += [bool(d.accessibilityMode), d.language]
                }
                tuples.append(tuple + ")")
            }
            let extra =
                (v3 ? ", local_id, position, input_method, discarded, too_fast" : "")
                + (v4 ? ", accessibility_mode, language" : "")
            statements.append(
                (
                    """
                    INSERT INTO fleet.decisions (kiosk_id, decision_uid, payload_version, session_id, deck_id, deck_version,
                        card_id, action, wall_time, wall_ms, monotonic_ns, dwell_ms, boot_id, clock_synced, retracts_uid\(extra))
                    VALUES \(tuples.joined(separator: ",\n"))
                    ON CONFLICT (kiosk_id, decision_uid) DO NOTHING
                    """, parameters
                ))
        }
        if v3 && !batch.visits.isEmpty {
            var tuples: [String] = []
            var parameters: [String?] = []
            for (n, v) in batch.visits.enumerated() {
                let b = n * 9
                tuples.append(
                    "(fleet.current_kiosk(), $\(b + 1), 3, $\(b + 2), $\(b + 3)::integer, $\(b + 4)::bigint, "
                        + "$\(b + 5)::bigint, $\(b + 6)::bigint, $\(b + 7), $\(b + 8)::integer, $\(b + 9)::boolean)")
                parameters += [
                    v.sessionID, v.deckID, String(v.deckVersion), String(v.startedWallMs), String(v.startedMonotonicNs),
                    v.endedWallMs.map { String($0) }, v.endReason, v.cardsShown.map { String($0) },
                    bool(v.accessibilityUsed),
                ]
            }
            statements.append(
                (
                    """
                    INSERT INTO fleet.visits (kiosk_id, session_id, payload_version, deck_id, deck_version, started_wall_ms,
                        started_monotonic_ns, ended_wall_ms, end_reason, cards_shown, accessibility_used)
                    VALUES \(tuples.joined(separator: ",\n"))
                    ON CONFLICT (kiosk_id, session_id) DO NOTHING
                    """, parameters
                ))
        }
        if v3 && !batch.events.isEmpty {
            var tuples: [String] = []
            var parameters: [String?] = []
            let width = v5 ? 7 : 4
            for (n, e) in batch.events.enumerated() {
                let b = n * width
                var tuple =
                    "(fleet.current_kiosk(), $\(b + 1), \(v5 ? 5 : 3), $\(b + 2), $\(b + 3)::bigint, $\(b + 4)::bigint"
                parameters += [e.uid, e.event.kind, String(e.event.wallMs), String(e.event.monotonicNs)]
                if v5 {
                    tuple += ", $\(b + 5), $\(b + 6), $\(b + 7)"
                    parameters += [e.event.sessionID, e.event.code?.cardID, e.event.code?.codeOf]
                }
                tuples.append(tuple + ")")
            }
            let extra = v5 ? ", session_id, card_id, code_of" : ""
            statements.append(
                (
                    """
                    INSERT INTO fleet.kiosk_events (kiosk_id, event_uid, payload_version, kind, wall_ms, monotonic_ns\(extra))
                    VALUES \(tuples.joined(separator: ",\n"))
                    ON CONFLICT (kiosk_id, event_uid) DO NOTHING
                    """, parameters
                ))
        }
        if v3 && !batch.maintenance.isEmpty {
            var tuples: [String] = []
            var parameters: [String?] = []
            for (n, m) in batch.maintenance.enumerated() {
                let b = n * 3
                tuples.append("(fleet.current_kiosk(), $\(b + 1)::bigint, $\(b + 2), $\(b + 3), 3)")
                parameters += [String(m.wallMs), m.state, m.note]
            }
            statements.append(
                (
                    """
                    INSERT INTO fleet.maintenance (kiosk_id, wall_ms, state, note, payload_version)
                    VALUES \(tuples.joined(separator: ",\n"))
                    ON CONFLICT (kiosk_id, wall_ms, state, note) DO NOTHING
                    """, parameters
                ))
        }
        if statements.isEmpty { return 0 }
        return try db.transaction { db in
            var newDecisions = 0
            for (i, statement) in statements.enumerated() {
                let affected = try db.execute(statement.sql, statement.parameters).affected
                if i == 0 && !batch.decisions.isEmpty { newDecisions = affected }
            }
            return newDecisions
        }
    }

    private static func bool(_ b: Bool?) -> String? { b.map { $0 ? "true" : "false" } }

    /// Inserts one heartbeat row; `columns`: the server's heartbeat columns (older schemas lack
    /// `deck_error`, `warning`, the source, schedule and touch-to-flip, and then those are left out).
    package static func send(_ h: Heartbeat, on db: PostgresConnection, columns: Set<String> = [])
        throws(FleetError)
    {
        var names =
            "kiosk_id, sent_at, app_version, deck_applied, deck_assigned, last_flip, last_touch, fps, unsent, "
            + "storage_failing, uptime_s, cpu_temp_c, throttled"
        var values =
            "fleet.current_kiosk(), to_timestamp($1::bigint / 1000.0), $2, $3, $4, to_timestamp($5::bigint / 1000.0), "
            + "to_timestamp($6::bigint / 1000.0), $7::real, $8::integer, $9::boolean, $10::bigint, $11::real, $12"
        var parameters: [String?] = [
            String(h.sentAtMs), h.appVersion, h.deckApplied, h.deckAssigned, h.lastFlipMs.map(String.init),
            h.lastTouchMs.map(String.init), h.framesPerSecond.map { String($0) }, String(h.unsent),
            h.storageFailing ? "true" : "false", String(h.uptimeSeconds), h.cpuTemperatureC.map { String($0) },
            h.throttled,
        ]
        let latency = h.inputToFlip
        // Each optional column with its value and its SQL expression ("$" stands for the parameter).
        let optional: [(String, String?, String)] = [
            ("deck_error", h.deckError, "$"), ("warning", h.warning, "$"), ("source", h.source.rawValue, "$"),
            ("schedule_closed", h.scheduleClosed.map { $0 ? "true" : "false" }, "$::boolean"),
            ("opens_at", h.opensAtMs.map(String.init), "to_timestamp($::bigint / 1000.0)"),
            ("input_to_flip_p50_ms", latency.map { String($0.p50) }, "$::real"),
            ("input_to_flip_p95_ms", latency.map { String($0.p95) }, "$::real"),
            ("input_to_flip_p99_ms", latency.map { String($0.p99) }, "$::real"),
            ("input_to_flip_max_ms", latency.map { String($0.max) }, "$::real"),
            ("input_to_flip_samples", latency.map { String($0.samples) }, "$::integer"),
        ]
        // Columns the server lacks (an older schema) are left out.
        for (column, value, expression) in optional where columns.contains(column) {
            parameters.append(value)
            names += ", " + column
            values +=
                ", "
                + expression.split(separator: "$", omittingEmptySubsequences: false).joined(
                    separator: "$\(parameters.count)")
        }
        try db.execute("INSERT INTO fleet.heartbeats (\(names)) VALUES (\(values))", parameters)
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
