/// Kiosk health: one row per registered kiosk, from one query, for `fleet status` and the
/// fleet report's kiosk table. Ages and windows are on the server's clock (receive times), so
/// a kiosk with a wrong clock is still judged right.
package struct KioskStatus: Hashable, Sendable {
    package enum State: String, Hashable, Sendable {
        /// The running app sent a heartbeat within `staleAfter`, and its schedule has it open.
        case online
        /// The app's last heartbeat is older than `staleAfter` (three missed heartbeats), or
        /// only `fleet sync` (no app running) was heard from: since `silentSince`.
        case silent
        /// The app's last heartbeat said its schedule has it closed, and the reopening
        /// (`opensAt`) is not `staleAfter` past: a kiosk switched off at night is not silent.
        case scheduledOff = "scheduled off"
        /// Registered, never heard from.
        case never = "never seen"
    }

    package var kioskID: String
    package var group: String?
    package var state: State
    /// When the kiosk was registered (`fleet add-kiosk`), UTC ISO 8601.
    package var registeredAt: String
    /// The last heartbeat of any source: seconds since it arrived (server clock), its time, and
    /// whether the app or a rescue `fleet sync` sent it; nil: never.
    package var secondsSinceHeartbeat: Int64?
    package var lastHeartbeat: String?
    package var heartbeatSource: String?
    /// The running app's last heartbeat: seconds since, and its time (nil: the app never reported).
    package var secondsSinceAppHeartbeat: Int64?
    package var lastAppHeartbeat: String?
    /// When the kiosk went silent (its last heartbeat of any source), nil unless `silent`.
    package var silentSince: String?
    /// When a kiosk scheduled off opens again, nil: not scheduled off or not known.
    package var opensAt: String?
    package var appVersion: String?
    package var deckApplied: String?
    /// What the server assigns (fleet.deck_assignments, its sha256), else what the kiosk last reported.
    package var deckAssigned: String?
    /// The assigned deck as "id@version" (from fleet.decks), nil: not published here.
    package var deckAssignedName: String?
    /// Decisions the kiosk had not sent after its last send (its last heartbeat of any source).
    package var unsent: Int?
    package var lastTouch: String?
    package var lastFlip: String?
    package var cpuTemperatureC: Double?
    package var throttled: String?
    package var storageFailing: Bool?
    /// Decisions the server holds for this kiosk.
    package var decisions: Int
    /// Why the kiosk did not apply its assigned deck (its last heartbeat), nil: no problem.
    package var deckError: String?
    /// What the kiosk says about its own setup (`fleet-tls = insecure`), nil: nothing.
    package var warning: String?
    /// The share of the last `uptimeWindowHours` (or since registration, if later) covered by
    /// the running app's heartbeats, each covering up to `staleAfter`; nil: never reported.
    package var uptime: Double?
    /// The panel's own touch-to-flip over its last `Heartbeat.InputToFlip.window` seconds
    /// (the app's last heartbeat), nil: no touch in that time or an older KioskCards.
    package var inputToFlip: Heartbeat.InputToFlip?

    package init(
        kioskID: String, group: String? = nil, state: State, registeredAt: String = "",
        secondsSinceHeartbeat: Int64? = nil, lastHeartbeat: String? = nil, heartbeatSource: String? = nil,
        secondsSinceAppHeartbeat: Int64? = nil, lastAppHeartbeat: String? = nil, silentSince: String? = nil,
        opensAt: String? = nil, appVersion: String? = nil, deckApplied: String? = nil, deckAssigned: String? = nil,
        deckAssignedName: String? = nil, unsent: Int? = nil, lastTouch: String? = nil, lastFlip: String? = nil,
        cpuTemperatureC: Double? = nil, throttled: String? = nil, storageFailing: Bool? = nil, decisions: Int = 0,
        deckError: String? = nil, warning: String? = nil, uptime: Double? = nil,
        inputToFlip: Heartbeat.InputToFlip? = nil
    ) {
        self.kioskID = kioskID
        self.group = group
        self.state = state
        self.registeredAt = registeredAt
        self.secondsSinceHeartbeat = secondsSinceHeartbeat
        self.lastHeartbeat = lastHeartbeat
        self.heartbeatSource = heartbeatSource
        self.secondsSinceAppHeartbeat = secondsSinceAppHeartbeat
        self.lastAppHeartbeat = lastAppHeartbeat
        self.silentSince = silentSince
        self.opensAt = opensAt
        self.appVersion = appVersion
        self.deckApplied = deckApplied
        self.deckAssigned = deckAssigned
        self.deckAssignedName = deckAssignedName
        self.unsent = unsent
        self.lastTouch = lastTouch
        self.lastFlip = lastFlip
        self.cpuTemperatureC = cpuTemperatureC
        self.throttled = throttled
        self.storageFailing = storageFailing
        self.decisions = decisions
        self.deckError = deckError
        self.warning = warning
        self.uptime = uptime
        self.inputToFlip = inputToFlip
    }

    package static let staleAfter: Int64 = 180
    /// The span `uptime` is measured over.
    package static let uptimeWindowHours = 24

    /// What needs the operator's attention, one phrase each (empty: nothing): a silent or never
    /// seen kiosk, a refused deck, a failing store, a setup warning.
    package var problems: [String] {
        var out: [String] = []
        switch state {
        case .silent:
            out.append(
                "silent since \(silentSince ?? "?")"
                    + (heartbeatSource == "sync" && lastAppHeartbeat == nil ? " (only fleet sync was heard from)" : ""))
        case .never: out.append("never seen since it was registered at \(registeredAt)")
        case .online, .scheduledOff: break
        }
        if let deckError { out.append("deck not applied: \(deckError)") }
        if storageFailing == true { out.append("storage failing") }
        if let warning { out.append("warning: \(warning)") }
        return out
    }

    /// The state from the ages of the app's last heartbeat and whether it said it is closed.
    package static func state(
        secondsSinceHeartbeat any: Int64?, secondsSinceAppHeartbeat app: Int64?, scheduleClosed: Bool?,
        secondsUntilOpen: Int64?
    ) -> State {
        guard any != nil else { return .never }
        if let app, scheduleClosed == true, secondsUntilOpen.map({ $0 > -staleAfter }) ?? (app <= staleAfter) {
            return .scheduledOff
        }
        if let app, app <= staleAfter { return .online }
        return .silent
    }

    /// Every registered kiosk, by id: one query (one snapshot of the server).
    package static func all(on db: PostgresConnection) throws(FleetError) -> [KioskStatus] {
        func iso(_ column: String) -> String {
            "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
        }
        // A heartbeat without a source is from a KioskCards before sources: taken as the app's.
        let rows = try db.execute(
            """
            WITH now AS (SELECT clock_timestamp() AS t),
            cover AS (
                SELECT h.kiosk_id, h.received_at,
                       lead(h.received_at) OVER (PARTITION BY h.kiosk_id ORDER BY h.received_at) AS next
                FROM fleet.heartbeats h, fleet.kiosks k, now
                WHERE k.kiosk_id = h.kiosk_id AND coalesce(to_jsonb(h) ->> 'source', 'app') = 'app'
                  AND h.received_at >= greatest(now.t - interval '\(uptimeWindowHours) hours', k.created_at)
            ),
            uptime AS (
                SELECT c.kiosk_id,
                       sum(extract(epoch FROM least(coalesce(c.next, now.t) - c.received_at,
                                                    interval '\(staleAfter) seconds'))) AS covered
                FROM cover c, now GROUP BY c.kiosk_id
            )
            SELECT k.kiosk_id, k.group_name, \(iso("k.created_at")),
                   floor(extract(epoch FROM now.t - h.received_at))::bigint, \(iso("h.received_at")),
                   coalesce(to_jsonb(h) ->> 'source', 'app'),
                   floor(extract(epoch FROM now.t - ha.received_at))::bigint, \(iso("ha.received_at")),
                   (to_jsonb(ha) ->> 'schedule_closed')::boolean,
                   floor(extract(epoch FROM (to_jsonb(ha) ->> 'opens_at')::timestamptz - now.t))::bigint,
                   \(iso("(to_jsonb(ha) ->> 'opens_at')::timestamptz")),
                   h.app_version, coalesce(ha.deck_applied, h.deck_applied), coalesce(a.deck_sha256, h.deck_assigned),
                   (SELECT d.deck_id || '@' || d.version FROM fleet.decks d
                    WHERE d.deck_sha256 = coalesce(a.deck_sha256, h.deck_assigned)),
                   h.unsent, \(iso("ha.last_touch")), \(iso("ha.last_flip")),
                   h.cpu_temp_c, h.throttled, coalesce(ha.storage_failing, h.storage_failing),
                   (SELECT count(*) FROM fleet.decisions d WHERE d.kiosk_id = k.kiosk_id),
                   to_jsonb(h) ->> 'deck_error', to_jsonb(h) ->> 'warning',
                   u.covered / greatest(1, extract(epoch FROM now.t
                       - greatest(now.t - interval '\(uptimeWindowHours) hours', k.created_at))),
                   to_jsonb(ha) ->> 'input_to_flip_p50_ms', to_jsonb(ha) ->> 'input_to_flip_p95_ms',
                   to_jsonb(ha) ->> 'input_to_flip_p99_ms', to_jsonb(ha) ->> 'input_to_flip_max_ms',
                   to_jsonb(ha) ->> 'input_to_flip_samples'
            FROM fleet.kiosks k CROSS JOIN now
            LEFT JOIN LATERAL (
                SELECT * FROM fleet.heartbeats h WHERE h.kiosk_id = k.kiosk_id ORDER BY received_at DESC LIMIT 1
            ) h ON true
            LEFT JOIN LATERAL (
                SELECT * FROM fleet.heartbeats h WHERE h.kiosk_id = k.kiosk_id
                    AND coalesce(to_jsonb(h) ->> 'source', 'app') = 'app'
                ORDER BY received_at DESC LIMIT 1
            ) ha ON true
            LEFT JOIN fleet.deck_assignments a ON a.kiosk_id = k.kiosk_id
            LEFT JOIN uptime u ON u.kiosk_id = k.kiosk_id
            ORDER BY k.kiosk_id
            """)
        return rows.values.map { v in
            let int = { (i: Int) in v[i].flatMap { Int64($0) } }
            let double = { (i: Int) in v[i].flatMap { Double($0) } }
            let any = int(3)
            let app = int(6)
            let closed = v[8].map { $0 == "t" || $0 == "true" }
            let state = state(
                secondsSinceHeartbeat: any, secondsSinceAppHeartbeat: app, scheduleClosed: closed,
                secondsUntilOpen: int(9))
            var latency: Heartbeat.InputToFlip?
            if let p50 = double(25), let p95 = double(26), let p99 = double(27), let max = double(28),
                let n = v[29].flatMap({ Int($0) })
            {
                latency = Heartbeat.InputToFlip(p50: p50, p95: p95, p99: p99, max: max, samples: n)
            }
            return KioskStatus(
                kioskID: v[0] ?? "", group: v[1], state: state, registeredAt: v[2] ?? "", secondsSinceHeartbeat: any,
                lastHeartbeat: v[4], heartbeatSource: any == nil ? nil : v[5], secondsSinceAppHeartbeat: app,
                lastAppHeartbeat: v[7], silentSince: state == .silent ? (v[7] ?? v[4]) : nil,
                opensAt: state == .scheduledOff ? v[10] : nil, appVersion: v[11], deckApplied: v[12],
                deckAssigned: v[13], deckAssignedName: v[14], unsent: v[15].flatMap { Int($0) }, lastTouch: v[16],
                lastFlip: v[17], cpuTemperatureC: double(18), throttled: v[19],
                storageFailing: v[20].map { $0 == "t" }, decisions: v[21].flatMap { Int($0) } ?? 0, deckError: v[22],
                warning: v[23], uptime: double(24).map { min(1, $0) }, inputToFlip: latency)
        }
    }
}
