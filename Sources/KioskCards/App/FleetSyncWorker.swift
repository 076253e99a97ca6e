import Glibc
import KioskDeckFiles
import KioskFleet
import KioskStore
import KioskSystem

/// Where and how the kiosk talks to the fleet server (from kiosk.conf: fleet-url,
/// fleet-credentials, fleet-heartbeat).
struct FleetSettings: Hashable, Sendable {
    var url: String
    var credentialsPath: String?
    var heartbeatInterval = 60.0
    /// Seconds between looks at the deck assignment (jittered ±20 %); a NOTIFY comes sooner.
    var deckPollInterval = 60.0
    /// Rows per transaction (≤ FleetUpload.maxBatch).
    var batchLimit = FleetUpload.maxBatch
    /// The newest payload version to send (tests set 2 to be a kiosk from before payload 3).
    var maxPayloadVersion = FleetSchema.payloadVersion
    /// `fleet-tls = insecure`: connect even when fleet-url does not verify the server (warned).
    var allowInsecureTLS = false
    /// `fleet-screenshot` and `fleet-screenshot-interval` (used by the running app).
    var screenshots = ScreenshotPolicy()

    init?(config: KioskConfig) {
        guard let url = config.fleetURL else { return nil }
        self.url = url
        credentialsPath = config.fleetCredentials
        heartbeatInterval = config.fleetHeartbeat
        deckPollInterval = config.fleetDeckPoll
        allowInsecureTLS = config.fleetTLSInsecure
        screenshots = ScreenshotPolicy(
            enabled: config.fleetScreenshot, minimumInterval: config.fleetScreenshotInterval)
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
///
/// Decks down, on the same thread: the worker LISTENs for its assignment changes while
/// connected and also looks every `deckPollInterval` (jittered). A new assignment is downloaded,
/// verified (every sha256, the deck checks) and switched in by `ManagedDecks`; the running
/// app's `DeckWatcher` sees `current` replaced and hot-reloads. A refused deck is logged once and
/// reported in the heartbeat (`deck_error`); the kiosk keeps the deck it has.
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
    /// The last deck problem (nil: the assigned deck is applied or none is assigned).
    private var deckError: String?
    private var assigned: FleetDeckDownload.Assigned?
    private var decksApplied = 0
    /// Guards the state above (the worker sleeps in poll(2) on `wake`, not on this).
    private let sync = Condition()
    private var job: BackgroundJob?
    /// Wakes the worker's poll(2) (a poke, stop); the other descriptor is the server's socket.
    private let wake = ReadySignal(what: "fleet-sync")
    let decks: ManagedDecks
    /// Screenshots from afar, answered while the app runs (nil: `fleet sync`, no frame to show).
    let screenshots: RemoteScreenshots?

    // Worker-thread state.
    private var connection: PostgresConnection?
    /// Negotiated when connecting: this KioskCards' payload version, or the previous one on a
    /// server not migrated yet (then only decisions travel).
    private(set) var payloadVersion = FleetSchema.payloadVersion
    private var failures = 0
    private var nextHeartbeat = 0.0
    private var generator = SystemRandomNumberGenerator()
    private var listening = false
    private var deckDue = true
    /// A screenshot request may be waiting (a NOTIFY on the kiosk's channel, a reconnect, a poll).
    private var shotsDue = false
    /// Whether the server has `fleet.screenshots` and the worker listens for requests.
    private var shotsListening = false
    private var nextDeckPoll = 0.0
    /// The server's heartbeat columns (older schemas lack the newer ones).
    private var heartbeatColumns: Set<String> = []
    /// Set while the kiosk runs with `fleet-tls = insecure` on a URL that does not verify the
    /// server: logged once, sent in every heartbeat.
    private var tlsWarning: String?
    private var deckErrorLogged: String?
    /// Rows per round: `settings.batchLimit`, halved while the server refuses a batch as too
    /// large (`fleet.kiosk_limits`, SQLSTATE 54000).
    private var batchLimit: Int

    /// With `screenshots` the worker answers screenshots from afar by `settings.screenshots`
    /// (the running app, which attaches its loop to `screenshots.desk`).
    init(
        settings: FleetSettings, dataDirectory: String, screenshots: Bool = false,
        health: @escaping @Sendable () -> Heartbeat
    ) {
        self.settings = settings
        self.screenshots = screenshots ? RemoteScreenshots(policy: settings.screenshots) : nil
        self.dataDirectory = dataDirectory
        self.health = health
        batchLimit = max(1, settings.batchLimit)
        decks = ManagedDecks(dataDirectory: dataDirectory)
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
    /// Why the assigned deck is not applied, nil: no problem.
    var lastDeckError: String? { locked { deckError } }
    /// The deck the server assigned when last asked.
    var assignedDeck: FleetDeckDownload.Assigned? { locked { assigned } }
    /// Decks switched in since this worker started.
    var decksSwitched: Int { locked { decksApplied } }

    /// Starts the worker thread (below the frame loop's priority).
    func start() {
        guard job == nil else { return }
        job = BackgroundWork.run("fleet-sync") {
            ThreadPriority.setCurrentThreadNice(10)
            self.runForever()
        }
    }

    /// New decisions were stored: send them now instead of at the next poll. Cheap, never waits
    /// for the worker (safe from the decision writer's `onStored`).
    func poke() {
        sync.lock()
        woken = true
        sync.unlock()
        wake.notify()
    }

    /// Stops the worker and waits for it (a batch in flight finishes or fails first; libpq's
    /// connect timeout and TCP keepalives bound that).
    func stop() {
        guard let job else { return }
        // A screenshot waiting for the app's loop would hold the worker up to its timeout.
        screenshots?.desk.close(reason: RemoteScreenshots.shutdownReason)
        locked { stopping = true }
        wake.notify()
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
            case .idle:
                let now = MonotonicClock.now().seconds
                delay = max(0, min(Self.idlePoll, nextHeartbeat - now, nextDeckPoll - now))
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

    /// One round: connect if needed, one batch when there is one, then a heartbeat when due.
    func round() -> RoundResult {
        do {
            let (db, target) = try connected()
            let now = MonotonicClock.now().seconds
            if listening { notified(try db.takeNotifications()) }
            if deckDue || now >= nextDeckPoll {
                deckDue = false
                shotsDue = shotsDue || shotsListening
                nextDeckPoll = now + settings.deckPollInterval * Double.random(in: 0.8...1.2, using: &generator)
                try applyAssignedDeck(on: db)
            }
            if shotsDue {
                shotsDue = false
                try answerScreenshots(on: db)
            }
            // A fresh kiosk has no database before its first decision: nothing to send yet.
            let rows =
                DecisionSync.databaseExists(dataDirectory: dataDirectory)
                ? try DecisionSync.pending(dataDirectory: dataDirectory, target: target, limit: batchLimit).rows
                : []
            let sent = try sendBatch(rows, on: db, target: target)
            // Decisions first, then the heartbeat: its backlog is what stayed unsent after the send.
            if now >= nextHeartbeat {
                try sendHeartbeat(on: db, unsent: try unsent(target: target))
                nextHeartbeat = now + settings.heartbeatInterval
            }
            failures = 0
            enter(.online)
            return sent ? .sentBatch : .idle
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
            try applyAssignedDeck(on: db)
            while DecisionSync.databaseExists(dataDirectory: dataDirectory) {
                let (rows, _) = try DecisionSync.pending(
                    dataDirectory: dataDirectory, target: target, limit: batchLimit)
                guard try sendBatch(rows, on: db, target: target) else { break }
            }
            // Decisions first, then the heartbeat: its backlog is what stayed unsent (0 unless
            // the app stored more meanwhile).
            try sendHeartbeat(on: db, unsent: try unsent(target: target))
            return nil
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
    private func sendBatch(_ rows: [StoredDecision], on db: PostgresConnection, target: String) throws -> Bool {
        var batch = UploadBatch(decisions: rows)
        var cursors: [(target: String, id: Int64)] = []
        if let last = rows.last { cursors.append((target, last.id)) }
        if payloadVersion >= 3 && DecisionSync.databaseExists(dataDirectory: dataDirectory) {
            let more = try DecisionSync.pendingReportRows(
                dataDirectory: dataDirectory, target: target, limit: batchLimit)
            batch.visits = more.visits.map(\.visit)
            batch.events = more.events
            batch.maintenance = more.maintenance.map {
                MaintenanceUpload(wallMs: $0.entry.wallTimeMs, state: $0.entry.state.rawValue, note: $0.entry.note)
            }
            if let last = more.visits.last { cursors.append((DecisionSync.visitsTarget(target), last.id)) }
            if let last = more.events.last { cursors.append((DecisionSync.eventsTarget(target), last.id)) }
            if let last = more.maintenance.last { cursors.append((DecisionSync.maintenanceTarget(target), last.id)) }
        }
        if batch.isEmpty { return false }
        let new: Int
        do throws(FleetError) {
            new = try FleetUpload.send(batch, payloadVersion: payloadVersion, on: db)
        } catch {
            guard error.sqlState == FleetError.batchTooLarge && batchLimit > 1 else { throw error }
            // The server bounds what one kiosk inserts at once: nothing was stored (the
            // transaction rolled back, the cursors stay); send smaller rounds from now on.
            batchLimit /= 2
            Log.warning(
                "fleet: the server refused a batch as too large (\(error)); "
                    + "sending at most \(batchLimit) rows of each kind per round from now on. No decision is lost.")
            return true
        }
        // COMMIT returned: only now may the cursors move.
        try DecisionSync.advance(dataDirectory: dataDirectory, cursors: cursors)
        locked { sentTotal += new }
        return true
    }

    /// The open connection and the cursor's target, or a new connection checked for a
    /// compatible schema and a registered role.
    private func connected() throws(FleetError) -> (PostgresConnection, String) {
        if let connection, connection.isOK, let cursorTarget { return (connection, cursorTarget) }
        connection = nil
        try checkTLS()
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
        // Assignment changes while disconnected sent no notification this kiosk saw: look now.
        deckDue = true
        heartbeatColumns = try FleetDeckDownload.heartbeatColumns(on: db)
        do {
            try FleetDeckDownload.listen(on: db)
            listening = true
            shotsListening = false
            if screenshots != nil, try FleetScreenshots.available(on: db) {
                try FleetScreenshots.listen(on: db)
                (shotsListening, shotsDue) = (true, true)
            }
        } catch {
            listening = false
            Log.warning(
                "fleet: cannot LISTEN for deck assignments (\(error)); looking every \(Int(settings.deckPollInterval)) s"
            )
        }
        connection = db
        cursorTarget = target
        return (db, target)
    }

    /// Refuses a fleet-url that does not verify the server (FleetTLS), before the password
    /// goes anywhere, unless kiosk.conf says `fleet-tls = insecure`: then it warns, once in
    /// the log and in every heartbeat.
    private func checkTLS() throws(FleetError) {
        var environment: [String: String] = [:]
        for name in ["PGSSLMODE", "PGHOST", "PGHOSTADDR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        let verdict = FleetTLS.verdict(try PostgresConnection.parse(conninfo: settings.url), environment: environment)
        guard case .unverified(let reason) = verdict else {
            tlsWarning = nil
            return
        }
        guard settings.allowInsecureTLS else {
            throw FleetError(kind: .badURL, message: FleetTLS.refusal(reason))
        }
        let warning = FleetTLS.insecureWarning(reason)
        if tlsWarning != warning { Log.warning("fleet: \(warning)") }
        tlsWarning = warning
    }

    /// Decisions not yet on the server (0 before the kiosk's first decision).
    private func unsent(target: String) throws -> Int {
        guard DecisionSync.databaseExists(dataDirectory: dataDirectory) else { return 0 }
        return try DecisionSync.pending(dataDirectory: dataDirectory, target: target, limit: 1).unsent
    }

    private func sendHeartbeat(on db: PostgresConnection, unsent: Int) throws(FleetError) {
        var h = health()
        h.unsent = unsent
        h.deckAssigned = try FleetUpload.assignedDeck(on: db)
        if h.deckApplied == nil, let local = decks.current() { h.deckApplied = "\(local.deckID)@\(local.version)" }
        h.deckError = locked { deckError }
        h.sentAtMs = WallClock.nowMilliseconds()
        h.warning = tlsWarning
        try FleetUpload.send(h, on: db, columns: heartbeatColumns)
    }

    /// Brings the local `current` deck to the server's assignment: nothing when it is there,
    /// a switch when the version is still on disk (a rollback), else a download into staging,
    /// verified and checked before the switch. A refused deck is logged once (per problem) and
    /// kept in `lastDeckError` for the heartbeat; server failures are thrown as usual.
    private func applyAssignedDeck(on db: PostgresConnection) throws(FleetError) {
        do throws(FleetError) {
            try applyAssignedDeckOrThrow(on: db)
        } catch  where error.kind == .query || error.kind == .permissionDenied {
            // The server refused a deck query (an older schema, a grant missing): a deck
            // problem, reported as such; decisions and heartbeats go on.
            deckProblem("cannot read the assigned deck from the fleet server: \(error)")
        }
    }

    private func applyAssignedDeckOrThrow(on db: PostgresConnection) throws(FleetError) {
        let assignment = try FleetDeckDownload.assigned(on: db)
        locked { assigned = assignment }
        guard let assignment else { return }
        if decks.current()?.sha256 == assignment.sha256 {
            deckProblem(nil)
            return
        }
        let started = MonotonicClock.now()
        var bytes: Int?
        do {
            if decks.has(assignment.sha256) {
                try decks.activate(assignment.sha256)
            } else {
                // Streamed: each image goes from the server to its staging file in pieces
                // (FleetDeckDownload.chunkBytes), never whole in memory.
                bytes = try FleetDeckDownload.download(
                    assignment, maxDeckBytes: DeckLoader.maxDeckBytes, on: db
                ) { listing in
                    try decks.install(
                        sha256: assignment.sha256, deckID: assignment.deckID, version: assignment.version,
                        deck: listing.deck,
                        images: listing.images.map {
                            ManagedDecks.IncomingImage(path: $0.path, sha256: $0.sha256, byteCount: $0.byteCount)
                        },
                        fetch: { i, write in try FleetDeckDownload.stream(listing.images[i], on: db, chunk: write) })
                    return listing.deck.count + listing.images.reduce(0) { $0 + $1.byteCount }
                }
            }
        } catch let error as ManagedDecks.InstallError {
            if error.kind != .busy { deckProblem(error.message) }
            return
        } catch let error as FleetError {
            throw error
        } catch {
            deckProblem("deck \(assignment): \(error)")
            return
        }
        let ms = MonotonicClock.now().seconds(since: started) * 1000
        Log.info(
            "fleet: deck \(assignment) is now current in \(decks.root)"
                + (bytes.map { " (\($0) bytes downloaded and verified" } ?? " (kept on this kiosk, no download")
                + " in \(jsonNumber(ms, decimals: 1)) ms)")
        locked { decksApplied += 1 }
        deckProblem(nil)
    }

    /// Routes notifications: a screenshot request on the kiosk's `fleet_shot_` channel, else a
    /// deck assignment.
    private func notified(_ channels: [String]) {
        for channel in channels {
            if channel.hasPrefix("fleet_shot_") { shotsDue = true } else { deckDue = true }
        }
    }

    /// Answers the open screenshot requests. A refused query (an older server, a grant
    /// missing) is logged and leaves decisions, decks and heartbeats alone.
    private func answerScreenshots(on db: PostgresConnection) throws(FleetError) {
        guard let screenshots, shotsListening else { return }
        do throws(FleetError) {
            try screenshots.answerPending(on: db)
        } catch  where error.kind == .query || error.kind == .permissionDenied {
            Log.warning("fleet: cannot answer a screenshot request: \(error)")
        }
    }

    /// Records the deck problem for the heartbeat; logs it once per distinct message.
    private func deckProblem(_ message: String?) {
        locked { deckError = message }
        guard let message else {
            deckErrorLogged = nil
            return
        }
        guard message != deckErrorLogged else { return }
        deckErrorLogged = message
        Log.error("fleet: \(message)")
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

    /// Waits `seconds` or until stopped (or, when `wakeable`, poked), in poll(2) on the wake
    /// pipe and, while listening, the server's socket: a deck notification ends the wait too.
    private func sleep(seconds: Double, wakeable: Bool) {
        let at = MonotonicClock.now().seconds + seconds
        while true {
            let done = locked { stopping || (wakeable && woken) }
            let left = at - MonotonicClock.now().seconds
            if done || left <= 0 { break }
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
            if listening, let connection, connection.isOK {
                fds.append(pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000 + 1, 60_000)))
            if n > 0 && fds[0].revents != 0 { wake.drain() }
            if n > 0 && fds.count > 1 && fds[1].revents != 0 {
                do {
                    if let channels = try connection?.takeNotifications(), !channels.isEmpty {
                        notified(channels)
                        break
                    }
                } catch {
                    connection = nil  // the next round reconnects and says so
                    break
                }
            }
        }
        locked { woken = false }
    }
}
