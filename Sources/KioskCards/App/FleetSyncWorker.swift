import Glibc
import KioskFleet
import KioskStore
import KioskSystem

/// Where and how the kiosk talks to the fleet server (from kiosk.conf: fleet-url,
/// fleet-credentials, fleet-heartbeat).
struct FleetSettings: Hashable, Sendable {
    var url: String
    var credentialsPath: String?
    var heartbeatInterval = 60.0
    /// Rows per transaction (≤ FleetUpload.maxBatch).
    var batchLimit = FleetUpload.maxBatch
    /// The newest payload version to send (tests set 2 to be a kiosk from before payload 3).
    var maxPayloadVersion = FleetSchema.payloadVersion

    init?(config: KioskConfig) {
        guard let url = config.fleetURL else { return nil }
        self.url = url
        credentialsPath = config.fleetCredentials
        heartbeatInterval = config.fleetHeartbeat
    }

    init(url: String, credentialsPath: String? = nil, heartbeatInterval: Double = 60) {
        self.url = url
        self.credentialsPath = credentialsPath
        self.heartbeatInterval = heartbeatInterval
    }
}

/// Sends the kiosk's stored decisions and its heartbeats to the fleet server, on a thread of
/// its own: it never runs on the poll loop nor on the decision writer, and it only reads the
/// SQLite file (WAL), so neither ever waits for the network.
///
/// Each round takes up to `batchLimit` rows after the local cursor, inserts them in one
/// PostgreSQL transaction (`ON CONFLICT (kiosk_id, decision_uid) DO NOTHING`) and, only after
/// COMMIT returned, moves the cursor. A kill or a lost connection at any point re-sends at most
/// one batch, which the server ignores: nothing lost, nothing doubled. Failures back off
/// exponentially with jitter (0.5 s up to 60 s); the log gets one line per change of state
/// (online, offline, authentication failed…), not one per retry.
final class FleetSyncWorker: @unchecked Sendable {
    /// What the worker is doing, for the log and the tests.
    enum State: Hashable, Sendable, CustomStringConvertible {
        case starting
        case online
        /// The fleet cannot be used for this reason; decisions wait locally.
        case failing(FleetError.Kind)
        /// The local database cannot be read (its message is logged).
        case localDatabase

        var description: String {
            switch self {
            case .starting: "starting"
            case .online: "online"
            case .failing(let kind): kind.rawValue
            case .localDatabase: "local database unreadable"
            }
        }
    }

    /// The cursor's name in `sync_cursor`: "fleet:" and the server's instance id, known once
    /// connected (nil before). Worker thread only, except for tests after it stopped.
    private(set) var cursorTarget: String?

    let settings: FleetSettings
    let dataDirectory: String
    /// Builds the heartbeat's kiosk part (deck, last flip, touch, fps, storage); called on the
    /// worker thread, so it must only read a snapshot.
    private let health: @Sendable () -> Heartbeat

    // Guarded by `sync`.
    private var stopping = false
    private var woken = false
    private var state = State.starting
    private var sentTotal = 0
    /// Guards the state above; the writer thread sleeps on it (CLOCK_MONOTONIC timed waits).
    private let sync = Condition()
    private var job: BackgroundJob?

    // Worker-thread state.
    private var connection: PostgresConnection?
    /// Negotiated when connecting: this KioskCards' payload version, or the previous one on a
    /// server not migrated yet (then only decisions travel).
    private(set) var payloadVersion = FleetSchema.payloadVersion
    private var failures = 0
    private var nextHeartbeat = 0.0
    private var generator = SystemRandomNumberGenerator()

    init(settings: FleetSettings, dataDirectory: String, health: @escaping @Sendable () -> Heartbeat) {
        self.settings = settings
        self.dataDirectory = dataDirectory
        self.health = health
    }

    deinit {
        stop()
    }

    private func locked<T>(_ body: () -> T) -> T {
        sync.lock()
        defer { sync.unlock() }
        return body()
    }

    var currentState: State { locked { state } }
    /// Decisions the server took as new since this worker started.
    var sent: Int { locked { sentTotal } }

    /// Starts the worker thread (below the frame loop's priority).
    func start() {
        guard job == nil else { return }
        job = BackgroundWork.run("fleet-sync") {
            if let tid = DecisionStore.currentThreadID() {
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid), 10)
            }
            self.runForever()
        }
    }

    /// New decisions were stored: send them now instead of at the next poll. Cheap, never waits
    /// for the worker (safe from the decision writer's `onStored`).
    func poke() {
        sync.lock()
        woken = true
        sync.unlock()
        sync.signal()
    }

    /// Stops the worker and waits for it (a batch in flight finishes or fails first; libpq's
    /// connect timeout and TCP keepalives bound that).
    func stop() {
        guard let job else { return }
        locked { stopping = true }
        sync.signal()
        job.wait()
        self.job = nil
        connection = nil
    }

    // MARK: - Worker thread

    /// How long to wait with nothing to send before looking again (the writer's poke usually
    /// comes first).
    static let idlePoll = 5.0

    private func runForever() {
        while !locked({ stopping }) {
            let delay: Double
            switch round() {
            case .sentBatch: delay = 0
            case .idle: delay = min(Self.idlePoll, max(0, nextHeartbeat - MonotonicClock.now().seconds))
            case .failed: delay = backoff()
            }
            // After a failure, new decisions do not cut the backoff short.
            if delay > 0 { sleep(seconds: delay, wakeable: delay <= Self.idlePoll && failures == 0) }
        }
    }

    enum RoundResult: Equatable {
        case sentBatch
        case idle
        case failed
    }

    /// One round: connect if needed, a heartbeat when due, one batch when there is one.
    func round() -> RoundResult {
        do {
            let (db, target) = try connected()
            let now = MonotonicClock.now().seconds
            // A fresh kiosk has no database before its first decision: nothing to send yet.
            let (rows, unsent) =
                DecisionSync.databaseExists(dataDirectory: dataDirectory)
                ? try DecisionSync.pending(dataDirectory: dataDirectory, target: target, limit: settings.batchLimit)
                : ([], 0)
            if now >= nextHeartbeat {
                try sendHeartbeat(on: db, unsent: unsent)
                nextHeartbeat = now + settings.heartbeatInterval
            }
            guard try sendBatch(rows, on: db, target: target) else {
                enter(.online)
                return .idle
            }
            failures = 0
            enter(.online)
            return .sentBatch
        } catch let error as FleetError {
            if error.kind != .permissionDenied && error.kind != .query { connection = nil }
            failed(.failing(error.kind), message: error.description)
            return .failed
        } catch {
            failed(.localDatabase, message: "cannot read the decisions to send: \(error)")
            return .failed
        }
    }

    /// Sends everything unsent now and returns (for `fleet sync --once`); the first failure
    /// is returned instead of retried.
    func syncOnce() -> FleetError? {
        do {
            let (db, target) = try connected()
            let unsent = try DecisionSync.pending(dataDirectory: dataDirectory, target: target, limit: 1).unsent
            try sendHeartbeat(on: db, unsent: unsent)
            while true {
                let (rows, _) = try DecisionSync.pending(
                    dataDirectory: dataDirectory, target: target, limit: settings.batchLimit)
                guard try sendBatch(rows, on: db, target: target) else { return nil }
            }
        } catch let error as FleetError {
            return error
        } catch {
            return FleetError(kind: .query, message: "cannot read the decisions to send: \(error)")
        }
    }

    /// One round's rows — `rows` (decisions) and, with payload 3, the visits, events and
    /// maintenance entries after their own cursors — in one server transaction; only after its
    /// COMMIT returned do all their cursors move, in one local transaction. A crash between the
    /// two re-sends the round, which the server ignores. False: nothing was pending.
    private func sendBatch(_ rows: [DecisionSync.Row], on db: PostgresConnection, target: String) throws -> Bool {
        var batch = UploadBatch(decisions: rows.map(Self.upload))
        var cursors: [(target: String, id: Int64)] = []
        if let last = rows.last { cursors.append((target, last.id)) }
        if payloadVersion >= 3 && DecisionSync.databaseExists(dataDirectory: dataDirectory) {
            let more = try DecisionSync.pendingReportRows(
                dataDirectory: dataDirectory, target: target, limit: settings.batchLimit)
            batch.visits = more.visits.map { Self.upload($0.visit) }
            batch.events = more.events.map {
                EventUpload(
                    uid: $0.uid, kind: $0.event.kind, wallMs: $0.event.wallMs, monotonicNs: $0.event.monotonicNs)
            }
            batch.maintenance = more.maintenance.map {
                MaintenanceUpload(wallMs: $0.entry.wallTimeMs, state: $0.entry.state.rawValue, note: $0.entry.note)
            }
            if let last = more.visits.last { cursors.append((DecisionSync.visitsTarget(target), last.id)) }
            if let last = more.events.last { cursors.append((DecisionSync.eventsTarget(target), last.id)) }
            if let last = more.maintenance.last { cursors.append((DecisionSync.maintenanceTarget(target), last.id)) }
        }
        if batch.isEmpty { return false }
        let new = try FleetUpload.send(batch, payloadVersion: payloadVersion, on: db)
        // COMMIT returned: only now may the cursors move.
        try DecisionSync.advance(dataDirectory: dataDirectory, cursors: cursors)
        locked { sentTotal += new }
        return true
    }

    static func upload(_ row: DecisionSync.Row) -> DecisionUpload {
        let r = row.record
        return DecisionUpload(
            uid: row.uid, sessionID: r.sessionID, deckID: r.deckID, deckVersion: r.deckVersion, cardID: r.cardID,
            action: row.actionName, wallTimeISO: r.wallTimeISO, wallTimeMs: r.wallTimeMs, monotonicNs: r.monotonicNs,
            dwellMs: r.dwellMs, bootID: r.bootID, clockSynced: r.clockSynced, retractsUID: row.retractsUID,
            localID: row.id, position: r.position, inputMethod: row.inputMethodName, discarded: row.discarded,
            tooFast: row.tooFast)
    }

    static func upload(_ v: VisitRecord) -> VisitUpload {
        VisitUpload(
            sessionID: v.sessionID, deckID: v.deckID, deckVersion: v.deckVersion, startedWallMs: v.startedWallMs,
            startedMonotonicNs: v.startedMonotonicNs, endedWallMs: v.endedWallMs, endReason: v.endReason,
            cardsShown: v.cardsShown, accessibilityUsed: v.accessibilityUsed)
    }

    /// The open connection and the cursor's target, or a new connection checked for a
    /// compatible schema and a registered role.
    private func connected() throws(FleetError) -> (PostgresConnection, String) {
        if let connection, connection.isOK, let cursorTarget { return (connection, cursorTarget) }
        connection = nil
        let password = try Self.readCredentials(settings.credentialsPath)
        let db = try PostgresConnection(conninfo: settings.url, password: password)
        try FleetSchema.checkCompatible(db)
        payloadVersion = try FleetSchema.negotiatePayload(db, upTo: settings.maxPayloadVersion)
        guard try FleetUpload.whoAmI(on: db) != nil else {
            throw FleetError(
                kind: .authenticationFailed,
                message: "this role is not a registered kiosk; use the fleet-url 'fleet add-kiosk' printed")
        }
        let target = "fleet:" + (try FleetSchema.instanceID(db))
        connection = db
        cursorTarget = target
        return (db, target)
    }

    private func sendHeartbeat(on db: PostgresConnection, unsent: Int) throws(FleetError) {
        var h = health()
        h.unsent = unsent
        h.deckAssigned = try FleetUpload.assignedDeck(on: db)
        h.sentAtMs = WallClock.nowMilliseconds()
        try FleetUpload.send(h, on: db)
    }

    /// The password in a credentials file: its first line (nil: no file configured).
    static func readCredentials(_ path: String?) throws(FleetError) -> String? {
        guard let path else { return nil }
        do {
            let bytes = try FileIO.readAll(path, limit: 4096, what: "the fleet credentials file")
            let text = String(decoding: bytes, as: UTF8.self)
            return String(text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).first ?? "")
        } catch {
            throw FleetError(
                kind: .authenticationFailed,
                message:
                    "cannot read \(path): \(error.reason) — fleet-credentials names the file 'fleet add-kiosk --credentials' wrote"
            )
        }
    }

    private func enter(_ new: State) {
        let old = locked {
            let was = state
            state = new
            return was
        }
        guard old != new else { return }
        if new == .online {
            Log.info("fleet: online, sending decisions to the fleet server")
        }
    }

    private func failed(_ new: State, message: String) {
        failures += 1
        let old = locked {
            let was = state
            state = new
            return was
        }
        if old != new {
            // Before the first connection the server's instance (the cursor) is unknown.
            let unsent = cursorTarget.flatMap {
                try? DecisionSync.pending(dataDirectory: dataDirectory, target: $0, limit: 1).unsent
            }
            let pending = unsent.map { ", \($0) unsent" } ?? ""
            Log.warning(
                "fleet: \(new) — \(message). Decisions stay on this kiosk\(pending) and are sent when it works again.")
        }
    }

    /// Full-jitter exponential backoff: a random time in [d/2, d], d = 0.5 s × 2^(failures−1), at most 60 s.
    private func backoff() -> Double {
        let ceiling = min(60, 0.5 * pow(2, Double(min(failures, 12) - 1)))
        return Double.random(in: (ceiling / 2)...ceiling, using: &generator)
    }

    /// Waits `seconds` or until stopped (or, when `wakeable`, poked).
    private func sleep(seconds: Double, wakeable: Bool) {
        let at = MonotonicClock.now().seconds + seconds
        sync.lock()
        defer { sync.unlock() }
        while !stopping && !(wakeable && woken) && MonotonicClock.now().seconds < at {
            _ = sync.wait(untilNanoseconds: Int64(at * 1e9))
        }
        woken = false
    }
}
