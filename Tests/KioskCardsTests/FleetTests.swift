import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskFleet
@testable import KioskStore
@testable import KioskSystem

/// The fleet against a real PostgreSQL started here (PostgresTestServer), real SQLite files
/// written by the real DecisionStore, and the real `KioskCards fleet …` processes.
@Suite(
    .serialized,
    TestRequirement.postgres.trait)
final class FleetTests {
    /// One server for the suite (initdb takes seconds); each test gets its own database and
    /// its own kiosk ids (roles are per cluster).
    nonisolated(unsafe) static var shared: PostgresTestServer?
    let pg: PostgresTestServer
    let scratch: String

    init() throws {
        if Self.shared == nil { Self.shared = try PostgresTestServer() }
        pg = try #require(Self.shared)
        scratch = DeckFixtures.temporaryDirectory("fleet")
    }

    deinit { DeckFixtures.removeTree(scratch) }

    nonisolated(unsafe) static var counter = 0

    /// A fresh database with the fleet schema; its name.
    func freshFleet() throws -> String {
        Self.counter += 1
        let name = "fleet_\(getpid())_\(Self.counter)"
        try pg.createDatabase(name)
        _ = try FleetSchema.migrate(try pg.admin(name))
        return name
    }

    /// `fleet add-kiosk` through the real executable; the kiosk's settings from what it printed.
    func addKiosk(_ id: String, database: String, group: String? = nil) throws -> FleetSettings {
        let credentials = scratch + "/\(id).password"
        // The admin is on the Unix socket (trusted); the kiosk gets TCP with its password.
        var args = [
            "fleet", "add-kiosk", id, "--postgres", pg.adminURL(database: database), "--credentials", credentials,
            "--kiosk-host", "127.0.0.1",
        ]
        if let group { args += ["--group", group] }
        let result = try #require(StoreTestSupport.run(args, stderrPath: scratch + "/add-kiosk.err"))
        #expect(result.status == 0)
        let out = String(decoding: result.stdout, as: UTF8.self)
        let url = try #require(
            out.split(separator: "\n").first { $0.hasPrefix("fleet-url = ") }.map { String($0.dropFirst(12)) })
        #expect(out.contains("kiosk-id = \(id)\n"))
        #expect(out.contains("fleet-credentials = /etc/kioskcards/\(id).password\n"))
        var st = stat()
        #expect(stat(credentials, &st) == 0 && st.st_mode & 0o777 == 0o600)
        return FleetSettings(url: url, credentialsPath: credentials)
    }

    /// A kiosk's connection over TCP with its password.
    func connect(_ settings: FleetSettings) throws -> PostgresConnection {
        try PostgresConnection(
            conninfo: settings.url, password: try FleetSyncWorker.readCredentials(settings.credentialsPath))
    }

    /// Writes `count` decisions through the real DecisionStore (its own writer thread, WAL,
    /// synchronous=FULL), every fifth an undo of the one before it; wall times every `stepMs`
    /// from `startMs` (default: so that the last is now). Every 20 decisions are one visit,
    /// recorded at its start and its end, after an attract-screen event; the card's position,
    /// input method and the too-fast flag are set; one maintenance entry per 100 visits.
    func produce(
        _ count: Int, into directory: String, kiosk: String, startMs: Int64? = nil, stepMs: Int64 = 1000
    ) throws {
        let startMs = startMs ?? WallClock.nowMilliseconds() - Int64(count) * stepMs
        let store = DecisionStore(dataDirectory: directory)
        var visit: VisitRecord?
        for n in 0..<count {
            let wall = startMs + Int64(n) * stepMs
            if n % 20 == 0 {
                try #require(
                    store.enqueue(
                        event: KioskEventRecord(
                            kioskID: kiosk, kind: KioskEventRecord.attractShown, wallMs: wall,
                            monotonicNs: Int64(n) * 1_000_000)
                    ) != nil)
                visit = VisitRecord(
                    sessionID: "s-\(n / 20)", kioskID: kiosk, deckID: "deck", deckVersion: 1, startedWallMs: wall,
                    startedMonotonicNs: Int64(n) * 1_000_000)
                try #require(store.enqueue(visit: visit!) != nil)
            }
            let undo = n % 5 == 4
            let card = undo ? "card-\(n - 1)" : "card-\(n)"
            var record = DecisionRecord(
                kioskID: kiosk, sessionID: "s-\(n / 20)", deckID: "deck", deckVersion: 1, cardID: card,
                action: undo ? .undone : (n % 2 == 0 ? .swipedRight : .swipedLeft),
                wallTimeMs: wall, monotonicNs: Int64(n) * 1_000_000, dwellMs: 700, position: n % 20,
                inputMethod: n % 3 == 0 ? .button : .swipe)
            record.tooFast = n % 7 == 0
            // Payload 4's columns: a mode on in some visits, three languages and some unknown.
            record.accessibilityMode = n / 20 % 3 == 1
            record.language = n % 4 == 3 ? nil : ["de", "ar", "en"][n % 4]
            try #require(store.enqueue(record) != nil)
            if n % 20 == 19 || n == count - 1, var v = visit {
                v.endedWallMs = wall
                v.endReason = n % 40 == 39 ? "completed" : "idle"
                v.cardsShown = n % 20 + 1
                v.accessibilityUsed = false
                try #require(store.enqueue(visit: v) != nil)
                visit = nil
            }
        }
        try #require(store.flush(stalledFor: 60))
        store.close()
        for m in stride(from: 0, to: count / 20, by: 100) {
            try MaintenanceLog.append(
                .init(kioskID: kiosk, wallTimeMs: startMs + Int64(m) * 20 * stepMs, state: .note, note: "visit \(m)"),
                dataDirectory: directory)
        }
    }

    /// The visits, events and maintenance entries of `data` are on the server once each, and
    /// the decisions carry their position, input method and flags.
    func expectReportRowsOnce(
        _ database: String, kiosk: String, data: String, decisionFields: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: data), readOnly: true, create: false)
        let admin = try pg.admin(database)
        // The server's rows against the kiosk's own, key by key: a missing, an extra or a
        // doubled row shows (a count of distinct keys over a primary key cannot).
        for (local, central) in [
            ("SELECT session_id FROM visits", "SELECT session_id FROM fleet.visits"),
            ("SELECT uid FROM kiosk_events", "SELECT event_uid FROM fleet.kiosk_events"),
            (
                "SELECT wall_ms || ' ' || state || ' ' || note FROM maintenance",
                "SELECT wall_ms || ' ' || state || ' ' || note FROM fleet.maintenance"
            ),
        ] {
            let stmt = try db.prepare(local)
            var mine: [String] = []
            while try stmt.step() { mine.append(stmt.text(0)) }
            let rows = try admin.execute(central + " WHERE kiosk_id = $1", [kiosk])
            #expect(!mine.isEmpty, "no local rows for \(central)", sourceLocation: sourceLocation)
            #expect(
                rows.values.map { $0[0] ?? "" }.sorted() == mine.sorted(), "\(central)", sourceLocation: sourceLocation)
        }
        let ended = try admin.execute(
            "SELECT count(*) FROM fleet.visits WHERE kiosk_id = $1 AND end_reason IS NULL", [kiosk])
        #expect(ended.scalar == "0", "every visit arrives with its end", sourceLocation: sourceLocation)
        guard decisionFields else { return }
        let stmt = try db.prepare(
            """
            SELECT count(*) FILTER (WHERE too_fast = 1), count(*) FILTER (WHERE input_method = 'button'), sum(position),
                   count(*) FILTER (WHERE accessibility_mode = 1), count(*) FILTER (WHERE language = 'ar'),
                   count(*) FILTER (WHERE language IS NULL)
            FROM decisions
            """)
        _ = try stmt.step()
        let fields = try admin.execute(
            """
            SELECT count(*) FILTER (WHERE too_fast), count(*) FILTER (WHERE input_method = 'button'), sum(position),
                   count(*) FILTER (WHERE accessibility_mode), count(*) FILTER (WHERE language = 'ar'),
                   count(*) FILTER (WHERE language IS NULL)
            FROM fleet.decisions WHERE kiosk_id = $1
            """, [kiosk])
        let local = (0..<6).map { String(stmt.int64(Int32($0))) }
        #expect(local[3] != "0" && local[4] != "0" && local[5] != "0", "the kiosk has modes and languages to send")
        #expect(fields.values == [local], sourceLocation: sourceLocation)
    }

    /// Every local decision uid (read through a cursor no one advances).
    func localUIDs(_ directory: String) throws -> [String] {
        try DecisionSync.pending(dataDirectory: directory, target: "test-everything", limit: 1_000_000).rows.map(\.uid)
    }

    /// The decision uids on the server for `kiosk`, one per row, sorted.
    func centralUIDs(_ database: String, kiosk: String) throws -> [String] {
        let db = try pg.admin(database)
        let rows = try db.execute("SELECT decision_uid FROM fleet.decisions WHERE kiosk_id = $1", [kiosk])
        return rows.values.compactMap { $0[0] }.sorted()
    }

    func centralCount(_ database: String, kiosk: String) -> Int {
        guard let db = try? pg.admin(database),
            let rows = try? db.execute("SELECT count(*) FROM fleet.decisions WHERE kiosk_id = $1", [kiosk])
        else { return -1 }
        return Int(rows.scalar ?? "") ?? -1
    }

    func writeConfig(_ settings: FleetSettings, data: String) -> String {
        let path = scratch + "/kiosk-\(PathName.baseName(of: data)).conf"
        DeckFixtures.write(
            "data = \(data)\nfleet-url = \(settings.url)\nfleet-credentials = \(settings.credentialsPath ?? "")\n",
            to: path)
        return path
    }

    /// Everything produced is on the server once, nothing else.
    func expectExactlyOnce(
        _ database: String, kiosk: String, local: [String], sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let central = try centralUIDs(database, kiosk: kiosk)
        #expect(
            central.count == local.count, "central \(central.count) vs produced \(local.count)",
            sourceLocation: sourceLocation)
        #expect(
            central == local.sorted(), "the server's rows are not the produced ones", sourceLocation: sourceLocation)
    }

    // MARK: - Schema

    @Test func migrationsAreRecordedAndIdempotent() throws {
        Self.counter += 1
        let name = "fleet_init_\(getpid())_\(Self.counter)"
        try pg.createDatabase(name)
        let first = try #require(
            StoreTestSupport.run(["fleet", "init", "--postgres", pg.adminURL(database: name)]))
        #expect(first.status == 0)
        let firstOut = String(decoding: first.stdout, as: UTF8.self)
        #expect(firstOut.contains("created the fleet schema (version \(FleetSchema.schemaVersion))"))
        let again = try #require(StoreTestSupport.run(["fleet", "init", "--postgres", pg.adminURL(database: name)]))
        #expect(again.status == 0)
        #expect(String(decoding: again.stdout, as: UTF8.self).contains("up to date"))
        let db = try pg.admin(name)
        let report = try FleetSchema.migrate(db)
        #expect(report.applied.isEmpty && report.from == FleetSchema.schemaVersion)
        let versions = try db.execute("SELECT version FROM fleet.schema_migrations ORDER BY version").values
        #expect(versions.map { $0[0] } == (1...FleetSchema.schemaVersion).map { String($0) })

        // A schema newer than this KioskCards is refused, not "migrated".
        try db.execute("INSERT INTO fleet.schema_migrations (version, description) VALUES (99, 'future')")
        #expect(throws: FleetError.self) { try FleetSchema.migrate(db) }
        do {
            _ = try FleetSchema.migrate(db)
        } catch {
            #expect(error.kind == .schemaTooNew)
        }
    }

    @Test func kioskSeesWhichSideToUpgrade() throws {
        Self.counter += 1
        let empty = "fleet_empty_\(getpid())_\(Self.counter)"
        try pg.createDatabase(empty)
        let emptyDB = try pg.admin(empty)
        do {
            try FleetSchema.checkCompatible(emptyDB)
            Issue.record("a database without the schema was accepted")
        } catch {
            #expect(error.kind == .schemaTooOld)
        }
        let name = try freshFleet()
        let db = try pg.admin(name)
        try FleetSchema.checkCompatible(db)
        // A server that does not list this kiosk's payload version yet (not migrated): the
        // kiosk sends the previous one.
        try db.execute("DELETE FROM fleet.payload_versions WHERE version = $1", [String(FleetSchema.payloadVersion)])
        try FleetSchema.checkCompatible(db)
        #expect(try FleetSchema.negotiatePayload(db) == FleetSchema.payloadVersion - 1)
        // The server moved on past every payload version this kiosk sends.
        try db.execute(
            "DELETE FROM fleet.payload_versions WHERE version BETWEEN $1 AND $2",
            [String(FleetSchema.oldestPayloadVersion), String(FleetSchema.payloadVersion)])
        do {
            try FleetSchema.checkCompatible(db)
            Issue.record("a server without this payload version was accepted")
        } catch {
            #expect(error.kind == .schemaTooNew)
        }
    }

    @Test func connectionFailuresAreClassified() throws {
        let name = try freshFleet()
        let settings = try addKiosk("classify-\(getpid())", database: name)
        // Wrong password.
        do {
            _ = try PostgresConnection(conninfo: settings.url, password: "not-the-password")
            Issue.record("a wrong password connected")
        } catch {
            #expect(error.kind == .authenticationFailed, "\(error)")
        }
        // Nothing listening.
        do {
            _ = try PostgresConnection(
                conninfo: "postgresql://x@127.0.0.1:\(PostgresTestServer.freePort())/x", connectTimeoutSeconds: 3)
            Issue.record("a closed port connected")
        } catch {
            #expect(error.kind == .unreachable, "\(error)")
        }
        // verify-full without the CA the server's certificate needs: the kiosk must refuse to talk.
        do {
            _ = try PostgresConnection(conninfo: settings.url + "&sslmode=verify-full", password: "x")
            Issue.record("sslmode=verify-full connected without a CA to verify")
        } catch {
            #expect(error.kind == .tlsVerificationFailed, "\(error)")
        }
        #expect(
            FleetError.connectFailure("server certificate for \"a\" does not match host name \"b\"").kind
                == .tlsVerificationFailed)
        #expect(FleetError.connectFailure("could not connect to server: Connection refused").kind == .unreachable)
    }

    @Test func verifyFullConnectsOnlyToTheRightCertificateAndName() throws {
        try #require(pg.tls, "openssl is needed to make the test certificates")
        let name = try freshFleet()
        let kiosk = "tls-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let password = try FleetSyncWorker.readCredentials(settings.credentialsPath)
        let role = FleetAdmin.roleName(kioskID: kiosk)
        func url(host: String, ca: String) -> String {
            "postgresql://\(role)@\(host):\(pg.port)/\(name)?sslmode=verify-full&sslrootcert=\(ca)"
        }
        // The right CA and the certificate's name: a verified TLS session.
        let db = try PostgresConnection(conninfo: url(host: "localhost", ca: pg.caCertificate), password: password)
        #expect(try db.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").scalar == "t")
        #expect(try FleetUpload.whoAmI(on: db) == kiosk)
        // Another CA, or a name the certificate does not carry: refused, and said so.
        for bad in [url(host: "localhost", ca: pg.otherCA), url(host: "127.0.0.1", ca: pg.caCertificate)] {
            do {
                _ = try PostgresConnection(conninfo: bad, password: password)
                Issue.record("verify-full accepted \(bad)")
            } catch {
                #expect(error.kind == .tlsVerificationFailed, "\(bad): \(error)")
            }
        }
    }

    // MARK: - Row-level security

    @Test func kioskCannotReadInsertAsOrAlterAnotherNorPublishDecks() throws {
        let name = try freshFleet()
        let a = "rls-a-\(getpid())"
        let b = "rls-b-\(getpid())"
        let asA = try connect(try addKiosk(a, database: name))
        let asB = try connect(try addKiosk(b, database: name))
        #expect(try FleetUpload.whoAmI(on: asA) == a)

        func decision(_ uid: String) -> StoredDecision {
            let record = DecisionRecord(
                kioskID: "ignored", sessionID: "s", deckID: "d", deckVersion: 1, cardID: "c", action: .swipedLeft,
                wallTimeMs: 1_767_225_600_000, monotonicNs: 1, dwellMs: 1, clockSynced: true)
            return StoredDecision(id: 1, uid: uid, record: record, actionName: "swipedLeft")
        }
        #expect(try FleetUpload.send([decision("a-1"), decision("a-2")], on: asA) == 2)
        #expect(try FleetUpload.send([decision("b-1")], on: asB) == 1)
        try FleetUpload.send(Heartbeat(sentAtMs: 0, appVersion: "t"), on: asB)

        // A reads only its own rows.
        #expect(try asA.execute("SELECT kiosk_id FROM fleet.decisions").values.map { $0[0] } == [a, a])
        #expect(try asA.execute("SELECT count(*) FROM fleet.heartbeats").scalar == "0")
        #expect(try asA.execute("SELECT count(*) FROM fleet.decisions WHERE kiosk_id = $1", [b]).scalar == "0")

        func expectDenied(_ sql: String, _ parameters: [String?] = [], on db: PostgresConnection) {
            do {
                try db.execute(sql, parameters)
                Issue.record("allowed: \(sql)")
            } catch {
                #expect(error.kind == .permissionDenied, "\(sql): \(error)")
            }
        }
        // A cannot insert as B, change or delete B's (or its own) rows, or drop anything.
        expectDenied(
            """
            INSERT INTO fleet.decisions (kiosk_id, decision_uid, payload_version, session_id, deck_id, deck_version,
                card_id, action, wall_time, wall_ms, monotonic_ns, dwell_ms)
            VALUES ($1, 'forged', 2, 's', 'd', 1, 'c', 'swipedLeft', now(), 0, 0, 0)
            """, [b], on: asA)
        expectDenied(
            "INSERT INTO fleet.heartbeats (kiosk_id, sent_at, app_version, unsent, storage_failing, uptime_s)"
                + " VALUES ($1, now(), 'x', 0, false, 0)", [b], on: asA)
        expectDenied("UPDATE fleet.decisions SET card_id = 'x' WHERE kiosk_id = $1", [b], on: asA)
        expectDenied("DELETE FROM fleet.decisions", on: asA)
        expectDenied("DROP TABLE fleet.decisions", on: asA)
        expectDenied("TRUNCATE fleet.heartbeats", on: asA)
        expectDenied("SELECT * FROM fleet.kiosks", on: asA)
        expectDenied("UPDATE fleet.kiosks SET group_name = 'x'", on: asA)
        expectDenied("ALTER TABLE fleet.decisions DISABLE ROW LEVEL SECURITY", on: asA)
        expectDenied("CREATE TABLE fleet.mine (x int)", on: asA)
        // Nor publish or assign decks.
        expectDenied(
            "INSERT INTO fleet.decks (deck_sha256, deck_id, version, body) VALUES (repeat('a', 64), 'd', 1, '\\x00')",
            on: asA)
        expectDenied(
            "INSERT INTO fleet.deck_assignments (kiosk_id, deck_sha256) VALUES ($1, repeat('a', 64))", [a], on: asA)
        #expect(try centralUIDs(name, kiosk: b).count == 1)

        // Decks: each kiosk reads only the one assigned to it.
        let admin = try pg.admin(name)
        for (kiosk, digit) in [(a, "a"), (b, "b")] {
            _ = try FleetDecks.publish(
                deck: Array("{\"id\": \"deck-\(digit)\"}".utf8), deckID: "deck-\(digit)", version: 1, images: [],
                to: .kiosk(kiosk), on: admin)
        }
        #expect(try asA.execute("SELECT deck_id FROM fleet.decks").values == [["deck-a"]])
        #expect(try asA.execute("SELECT kiosk_id FROM fleet.deck_assignments").values == [[a]])
    }

    @Test func serverAcceptsThePreviousPayloadVersionAndNoUnknownOne() throws {
        let name = try freshFleet()
        let kiosk = "payload-\(getpid())"
        let db = try connect(try addKiosk(kiosk, database: name))
        let insert = """
            INSERT INTO fleet.decisions (kiosk_id, decision_uid, payload_version, session_id, deck_id, deck_version,
                card_id, action, wall_time, wall_ms, monotonic_ns, dwell_ms)
            VALUES (fleet.current_kiosk(), $1, $2::integer, 's', 'd', 1, 'c', 'swipedLeft', now(), 0, 0, 0)
            """
        try db.execute(insert, ["old-kiosk-row", String(FleetSchema.payloadVersion - 1)])
        do {
            try db.execute(insert, ["future-row", String(FleetSchema.payloadVersion + 1)])
            Issue.record("an unknown payload version was accepted")
        } catch {
            #expect(error.sqlState == "23503", "\(error)")  // foreign key: payload_versions
        }
        #expect(try centralUIDs(name, kiosk: kiosk).count == 1)
    }

    // MARK: - Sync

    @Test func syncSendsEverythingOnceWithRetractionsAndClockFields() throws {
        let name = try freshFleet()
        let kiosk = "sync-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let data = scratch + "/sync"
        try produce(1234, into: data, kiosk: kiosk)
        let local = try localUIDs(data)
        #expect(local.count == 1234)

        let worker = FleetSyncWorker(settings: settings, dataDirectory: data) { FleetHealth.standalone() }
        #expect(worker.syncOnce() == nil)
        #expect(worker.sent == 1234)
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        let target = try #require(worker.cursorTarget)
        #expect(target.hasPrefix("fleet:") && target.count == 6 + 36)
        #expect(try DecisionSync.cursor(dataDirectory: data, target: target) > 0)
        // Again: nothing new, nothing doubled.
        let again = FleetSyncWorker(settings: settings, dataDirectory: data) { FleetHealth.standalone() }
        #expect(again.syncOnce() == nil)
        #expect(again.sent == 0)
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        try expectReportRowsOnce(name, kiosk: kiosk, data: data)
        // An operator renews the instance id (after restoring an older backup): every kiosk
        // sends everything again under a new cursor, and the server keeps one row per decision.
        let admin = try pg.admin(name)
        try admin.execute("UPDATE fleet.instance SET id = gen_random_uuid()")
        let resend = FleetSyncWorker(settings: settings, dataDirectory: data) { FleetHealth.standalone() }
        #expect(resend.syncOnce() == nil)
        let newTarget = try #require(resend.cursorTarget)
        #expect(newTarget != target)
        #expect(
            try DecisionSync.cursor(dataDirectory: data, target: newTarget)
                == DecisionSync.cursor(dataDirectory: data, target: target))
        #expect(resend.sent == 0)
        try expectExactlyOnce(name, kiosk: kiosk, local: local)

        // Each undo refers to the decision it takes back (the one just before it), never deletes it.
        let undo = try admin.execute(
            """
            SELECT u.card_id, d.card_id, d.action FROM fleet.decisions u
            JOIN fleet.decisions d ON d.kiosk_id = u.kiosk_id AND d.decision_uid = u.retracts_uid
            WHERE u.kiosk_id = $1 AND u.action = 'undone'
            """, [kiosk])
        #expect(undo.count == 1234 / 5)
        #expect(undo.values.allSatisfy { $0[0] == $0[1] && $0[2] != "undone" })
        let fields = try admin.execute(
            """
            SELECT count(*) FILTER (WHERE boot_id = $2), count(*) FILTER (WHERE clock_synced IS NOT NULL),
                   count(*) FILTER (WHERE received_at >= wall_time), min(payload_version)
            FROM fleet.decisions WHERE kiosk_id = $1
            """, [kiosk, BootID.current])
        let expectedClock = ClockSync.isSynchronised() == nil ? "0" : "1234"
        #expect(fields.values == [["1234", expectedClock, "1234", String(FleetSchema.payloadVersion)]])
        // The heartbeat went after the decisions: nothing unsent. It came from a rescue sync
        // (no app running), so the kiosk is not online, and the check says so.
        let status = try #require(
            StoreTestSupport.run(["fleet", "status", "--postgres", pg.adminURL(database: name), "--json"]))
        #expect(status.status == 1)
        let json = String(decoding: status.stdout, as: UTF8.self)
        let row = try #require(try JSONReader.parse(Array(status.stdout))["kiosks"]?.elements?.first)
        #expect(row["kiosk_id"]?.stringValue == kiosk, "\(json)")
        #expect(row["state"]?.stringValue == "silent")
        #expect(row["heartbeat_source"]?.stringValue == "sync")
        #expect(row["unsent"]?.value == .number(0))
        #expect(row["decisions"]?.value == .number(1234))
        #expect(json.contains("only fleet sync was heard from"))
    }

    /// A running app's worker sends its batch first, then the heartbeat: the heartbeat's backlog
    /// is what stayed unsent after that batch, and the kiosk is online.
    @Test func heartbeatFollowsTheBatchAndCountsWhatStayedUnsent() throws {
        let name = try freshFleet()
        let kiosk = "order-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let data = scratch + "/order"
        try produce(1234, into: data, kiosk: kiosk)
        let worker = FleetSyncWorker(settings: settings, dataDirectory: data) {
            var h = FleetHealth.standalone()
            h.source = .app
            return h
        }
        #expect(worker.round() == .sentBatch)
        let admin = try pg.admin(name)
        let beat = try admin.execute(
            "SELECT unsent, source, (SELECT count(*) FROM fleet.decisions WHERE kiosk_id = $1) FROM fleet.heartbeats WHERE kiosk_id = $1",
            [kiosk])
        // The server's own count is the oracle for what was sent.
        #expect(beat.values == [[String(1234 - FleetUpload.maxBatch), "app", String(FleetUpload.maxBatch)]])
        let status = try KioskStatus.all(on: admin)
        #expect(status.map(\.state) == [.online])
        #expect(status.first?.heartbeatSource == "app" && status.first?.unsent == 1234 - FleetUpload.maxBatch)
    }

    /// Three kiosks as an operator meets them: one never reporting, one whose app went silent
    /// (a rescue sync since, which must not bring it back), one healthy with its touch-to-flip;
    /// and one closed by its schedule. The table, the JSON, the terse check and the exit status agree.
    @Test func statusTellsNeverSilentHealthyAndScheduledOffApart() throws {
        let name = try freshFleet()
        let pid = getpid()
        let (never, silent, healthy, closed) = (
            "a-never-\(pid)", "b-silent-\(pid)", "c-healthy-\(pid)", "d-closed-\(pid)"
        )
        _ = try addKiosk(never, database: name)
        let admin = try pg.admin(name)
        var connections: [String: PostgresConnection] = [:]
        func beat(_ kiosk: String, _ build: (inout Heartbeat) -> Void) throws {
            let db = try connections[kiosk] ?? connect(try addKiosk(kiosk, database: name))
            connections[kiosk] = db
            var h = Heartbeat(sentAtMs: WallClock.nowMilliseconds(), appVersion: "t")
            h.source = .app
            build(&h)
            try FleetUpload.send(h, on: db, columns: try FleetDeckDownload.heartbeatColumns(on: db))
        }
        let touches = (1...200).map { Double($0) / 4 }  // 0.25 … 50 ms
        try beat(healthy) { $0.inputToFlip = Heartbeat.InputToFlip(milliseconds: touches) }
        try beat(silent) { $0.unsent = 7 }
        try beat(closed) {
            $0.scheduleClosed = true
            $0.opensAtMs = WallClock.nowMilliseconds() + 8 * 3_600_000
        }
        // The silent app's heartbeat and the closed kiosk's are ten minutes old (the receive
        // time is the server's: moved back as an operator would see it later).
        try admin.execute(
            "UPDATE fleet.heartbeats SET received_at = received_at - interval '10 minutes' WHERE kiosk_id IN ($1, $2)",
            [silent, closed])
        let silentSince = try #require(
            try admin.execute(
                "SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM fleet.heartbeats WHERE kiosk_id = $1",
                [silent]
            ).scalar)
        // A rescue sync on the silent kiosk afterwards: heard from, still silent.
        try beat(silent) {
            $0.source = .sync
            $0.unsent = 0
        }

        let status = try KioskStatus.all(on: admin)
        #expect(status.map(\.kioskID) == [never, silent, healthy, closed])
        #expect(status.map(\.state) == [.never, .silent, .online, .scheduledOff])
        #expect(status[1].silentSince == silentSince && status[1].unsent == 0 && status[1].heartbeatSource == "sync")
        #expect(status[0].secondsSinceHeartbeat == nil && status[0].uptime == nil)
        // Nearest rank of 200 sorted samples: p95 is the 190th, 47.5 ms; max 50.
        #expect(status[2].inputToFlip == Heartbeat.InputToFlip(p50: 25, p95: 47.5, p99: 49.5, max: 50, samples: 200))
        #expect(status[2].problems.isEmpty && status[3].problems.isEmpty)

        let url = pg.adminURL(database: name)
        let table = try #require(StoreTestSupport.run(["fleet", "status", "--postgres", url]))
        #expect(table.status == 1)
        let lines = String(decoding: table.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix(never) && $0.contains("never seen") })
        #expect(lines.contains { $0.hasPrefix(silent) && $0.contains("silent since \(silentSince)") })
        #expect(lines.contains { $0.hasPrefix(healthy) && $0.contains("online") && $0.contains("47.5 ms") })
        #expect(lines.contains { $0.hasPrefix(closed) && $0.contains("scheduled off until") })

        let terse = try #require(StoreTestSupport.run(["fleet", "status", "--postgres", url, "--attention"]))
        #expect(terse.status == 1)
        let attention = String(decoding: terse.stdout, as: UTF8.self)
        #expect(
            attention.split(separator: "\n").map { String($0.prefix { $0 != ":" }) } == [never, silent], "\(attention)")
        #expect(attention.contains("\(silent): silent since \(silentSince)"))

        // Once the silent and never-seen kiosks are gone, the check passes and prints nothing.
        try admin.execute("DELETE FROM fleet.heartbeats WHERE kiosk_id IN ($1, $2)", [never, silent])
        try admin.execute("DELETE FROM fleet.kiosks WHERE kiosk_id IN ($1, $2)", [never, silent])
        let quiet = try #require(StoreTestSupport.run(["fleet", "status", "--postgres", url, "--attention"]))
        #expect(quiet.status == 0 && quiet.stdout.isEmpty, "\(String(decoding: quiet.stdout, as: UTF8.self))")
    }

    /// The uptime share over its window from the heartbeats' receive times: each covers up to
    /// `staleAfter`; recomputed here by hand from the rows placed.
    @Test func uptimeIsTheShareOfTheWindowCoveredByAppHeartbeats() throws {
        let name = try freshFleet()
        let kiosk = "uptime-\(getpid())"
        let db = try connect(try addKiosk(kiosk, database: name))
        let admin = try pg.admin(name)
        // Registered 10 hours ago; app heartbeats every minute for the first 2 h, then one a
        // rescue sync sent (not counted).
        try admin.execute(
            "UPDATE fleet.kiosks SET created_at = now() - interval '10 hours' WHERE kiosk_id = $1", [kiosk])
        let columns = try FleetDeckDownload.heartbeatColumns(on: db)
        for _ in 0..<120 {
            var h = Heartbeat(sentAtMs: 0, appVersion: "t")
            h.source = .app
            try FleetUpload.send(h, on: db, columns: columns)
        }
        try FleetUpload.send(Heartbeat(sentAtMs: 0, appVersion: "t"), on: db, columns: columns)
        try admin.execute(
            """
            UPDATE fleet.heartbeats h SET received_at = now() - interval '10 hours' + n.i * interval '1 minute'
            FROM (SELECT ctid, row_number() OVER (ORDER BY received_at) - 1 AS i FROM fleet.heartbeats
                  WHERE kiosk_id = $1 AND source = 'app') n
            WHERE h.ctid = n.ctid
            """, [kiosk])
        let status = try #require(try KioskStatus.all(on: admin).first)
        // 119 gaps of 60 s, and the last covers staleAfter: over 10 h.
        let expected = (119.0 * 60 + Double(KioskStatus.staleAfter)) / 36_000
        let uptime = try #require(status.uptime)
        #expect(abs(uptime - expected) < 0.001, "\(uptime) vs \(expected)")
        #expect(status.state == .silent && status.heartbeatSource == "sync")
    }

    // MARK: - Decks (server side)

    @Test func publishRefusesAnInvalidDeckWithItsProblems() throws {
        let name = try freshFleet()
        let kiosk = "pub-bad-\(getpid())"
        _ = try addKiosk(kiosk, database: name)
        let errPath = scratch + "/publish-bad.err"
        let result = try #require(
            StoreTestSupport.run(
                [
                    "fleet", "publish", DeckFixtures.bad("duplicate-card-id.json"), "--kiosk", kiosk, "--postgres",
                    pg.adminURL(database: name),
                ], stderrPath: errPath))
        #expect(result.status == 2)
        let err = String(decoding: try FileIO.readAll(errPath, limit: 1 << 20), as: UTF8.self)
        #expect(err.contains("duplicate-card-id.json:") && err.contains("nothing was published"), "\(err)")
        #expect(try pg.admin(name).execute("SELECT count(*) FROM fleet.decks").scalar == "0")
    }

    /// One id@version is one content: the same deck again is fine, a changed image or deck
    /// file under it is refused with the fix, a raised version is published.
    @Test func publishRefusesChangedContentUnderAPublishedVersion() throws {
        let name = try freshFleet()
        let url = pg.adminURL(database: name)
        let kiosk = "pub-v-\(getpid())"
        _ = try addKiosk(kiosk, database: name)
        let dir = scratch + "/versions"
        #expect(mkdir(dir, 0o755) == 0 && mkdir(dir + "/img", 0o755) == 0)
        let deckText = String(
            decoding: try FileIO.readAll(DeckFixtures.good("with-image.json"), limit: 1 << 20), as: UTF8.self)
        DeckFixtures.write(deckText, to: dir + "/deck.json")
        DeckFixtures.writeBytes(
            try FileIO.readAll(DeckFixtures.good("img/dot.png"), limit: 1 << 20), to: dir + "/img/dot.png")
        func publish(_ label: String) throws -> (status: Int32, err: String) {
            let errPath = scratch + "/publish-\(label).err"
            let r = try #require(
                StoreTestSupport.run(
                    ["fleet", "publish", dir + "/deck.json", "--kiosk", kiosk, "--postgres", url], stderrPath: errPath))
            return (r.status, String(decoding: try FileIO.readAll(errPath, limit: 1 << 20), as: UTF8.self))
        }
        let admin = try pg.admin(name)
        func rows() throws -> [[String?]] {
            try admin.execute("SELECT deck_id, version, content_sha256 IS NOT NULL FROM fleet.decks ORDER BY version")
                .values
        }
        #expect(try publish("first").status == 0)
        #expect(try publish("same").status == 0, "the same content again is fine")
        #expect(try rows() == [["images", "2", "t"]])

        // Another picture under the same file name: the deck file is unchanged, the content is not.
        DeckFixtures.writeBytes(
            try FileIO.readAll(RenderFixtures.images + "/photo.png", limit: 64 << 20), to: dir + "/img/dot.png")
        let image = try publish("image")
        #expect(image.status == 2, "\(image.err)")
        #expect(
            image.err.contains("deck 'images' version 2 is already published with different content")
                && image.err.contains("raise \"version\"") && image.err.contains("nothing was published"),
            "\(image.err)")
        // A changed title in the deck file, likewise.
        DeckFixtures.write(deckText.replacingFirst("\"Punkt\"", with: "\"Kreis\""), to: dir + "/deck.json")
        #expect(try publish("title").status == 2)
        #expect(try rows() == [["images", "2", "t"]])
        #expect(try admin.execute("SELECT count(*) FROM fleet.assignment_history").scalar == "2")

        // Raised to version 3: published and assigned.
        DeckFixtures.write(
            deckText.replacingFirst("\"Punkt\"", with: "\"Kreis\"").replacingFirst(
                "\"version\": 2", with: "\"version\": 3"),
            to: dir + "/deck.json")
        #expect(try publish("bumped").status == 0)
        #expect(try rows() == [["images", "2", "t"], ["images", "3", "t"]])
    }

    @Test func publishStoresByHashAssignsToAGroupAndRollsBack() throws {
        let name = try freshFleet()
        let url = pg.adminURL(database: name)
        let a = "pub-a-\(getpid())"
        let b = "pub-b-\(getpid())"
        let other = "pub-c-\(getpid())"
        let asA = try connect(try addKiosk(a, database: name, group: "lobby"))
        _ = try addKiosk(b, database: name, group: "lobby")
        let asOther = try connect(try addKiosk(other, database: name, group: "cafe"))
        let withImage = DeckFixtures.good("with-image.json")
        let published = try #require(
            StoreTestSupport.run(["fleet", "publish", withImage, "--group", "lobby", "--postgres", url]))
        #expect(published.status == 0)
        let out = String(decoding: published.stdout, as: UTF8.self)
        #expect(out.split(separator: "\n").count == 2 && out.contains("\(a): ") && out.contains("\(b): "))

        // Stored as the file's bytes under their sha256, images likewise.
        let admin = try pg.admin(name)
        let fileHex = FleetDecks.byteaText(try FileIO.readAll(withImage, limit: 1 << 20))
        let deck = try admin.execute(
            "SELECT deck_sha256, body::text = $1, encode(sha256(body), 'hex') = deck_sha256 FROM fleet.decks", [fileHex]
        )
        #expect(deck.count == 1 && deck.values[0][1] == "t" && deck.values[0][2] == "t")
        let sha = try #require(deck.values[0][0])
        let images = try admin.execute(
            "SELECT i.path, b.body::text FROM fleet.deck_images i JOIN fleet.blobs b ON b.sha256 = i.blob_sha256")
        #expect(images.count >= 1)
        for row in images.values {
            let path = DeckFixtures.good(try #require(row[0]))
            let bytes = try FileIO.readAll(path, limit: 64 << 20)
            #expect(row[1] == FleetDecks.byteaText(bytes), "\(path)")
        }
        // RLS: a kiosk of the group reads its deck and images; another kiosk nothing; none writes.
        #expect(try asA.execute("SELECT deck_sha256 FROM fleet.decks").values == [[sha]])
        #expect(try asA.execute("SELECT count(*) FROM fleet.blobs").scalar == String(images.count))
        #expect(try FleetUpload.assignedDeck(on: asA) == sha)
        #expect(try FleetUpload.assignedDeck(on: asOther) == nil)
        #expect(try asOther.execute("SELECT count(*) FROM fleet.decks").scalar == "0")
        #expect(try asOther.execute("SELECT count(*) FROM fleet.blobs").scalar == "0")
        do {
            try asA.execute("INSERT INTO fleet.blobs (sha256, body) VALUES (encode(sha256('\\x00'), 'hex'), '\\x00')")
            Issue.record("a kiosk stored a blob")
        } catch {
            #expect(error.kind == .permissionDenied)
        }

        // A new deck for one kiosk, then rollback: it has the first one again.
        let second = try #require(
            StoreTestSupport.run(
                ["fleet", "publish", DeckFixtures.good("minimal-stack.json"), "--kiosk", a, "--postgres", url]))
        #expect(second.status == 0)
        func assigned(_ kiosk: String) throws -> String? {
            try admin.execute("SELECT deck_sha256 FROM fleet.deck_assignments WHERE kiosk_id = $1", [kiosk]).scalar
        }
        #expect(try assigned(a) != sha && assigned(b) == sha)
        let rollback = try #require(
            StoreTestSupport.run(["fleet", "publish", "--rollback", "--kiosk", a, "--postgres", url]))
        #expect(rollback.status == 0)
        #expect(String(decoding: rollback.stdout, as: UTF8.self).contains("(rollback)"))
        #expect(try assigned(a) == sha)
        // b never had another deck: nothing to roll back to, said so.
        let none = try #require(
            StoreTestSupport.run(["fleet", "publish", "--rollback", "--kiosk", b, "--postgres", url]))
        #expect(none.status == 1)
        #expect(try assigned(b) == sha)
    }

    // MARK: - Faults

    @Test func syncKilledAtRandomMomentsLosesAndDoublesNothing() throws {
        try #require(StoreTestSupport.executableExists, "build the executable: swift build --build-tests")
        let name = try freshFleet()
        let kiosk = "kill9-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let data = scratch + "/kill9"
        // Under qemu-user 3,000 (each of the ten runs still dies after a batch of 40, far from the end).
        try produce(DeckFixtures.underEmulation ? 3000 : 8000, into: data, kiosk: kiosk)
        let local = try localUIDs(data)
        let config = writeConfig(settings, data: data)
        var generator = SplitMix64(seed: 12)
        var killedMidway = 0
        for _ in 0..<10 {
            let before = centralCount(name, kiosk: kiosk)
            let child = try #require(
                StoreTestSupport.spawn(
                    ["fleet", "sync", "--config", config, "--once", "--batch", "40"], stderrPath: scratch + "/kill9.err"
                ))
            // Mid-sync for sure: once this run has committed something, a random 0–30 ms more.
            let progressed = StoreTestSupport.waitFor(seconds: 30) { centralCount(name, kiosk: kiosk) > before }
            usleep(UInt32(generator.next() % 30_000))
            kill(child.pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
            close(child.stdout)
            if progressed && status & 0x7f == SIGKILL { killedMidway += 1 }
            // Every row on the server is one the kiosk produced.
            #expect(Set(try centralUIDs(name, kiosk: kiosk)).isSubset(of: Set(local)))
        }
        #expect(killedMidway == 10, "every run should die mid-sync (got \(killedMidway) of 10)")
        let partial = centralCount(name, kiosk: kiosk)
        #expect(partial > 0 && partial < local.count)
        let last = try #require(StoreTestSupport.run(["fleet", "sync", "--config", config, "--once"]))
        #expect(last.status == 0)
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        try expectReportRowsOnce(name, kiosk: kiosk, data: data)
    }

    @Test func postgresRestartedMidSyncLosesAndDoublesNothing() throws {
        try #require(StoreTestSupport.executableExists)
        let name = try freshFleet()
        let kiosk = "restart-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let data = scratch + "/restart"
        // Under qemu-user 2,000: still 100 batches of 20, the restart after the first 200 rows.
        try produce(DeckFixtures.underEmulation ? 2000 : 6000, into: data, kiosk: kiosk)
        let local = try localUIDs(data)
        let config = writeConfig(settings, data: data)
        let errPath = scratch + "/restart.err"
        let child = try #require(
            StoreTestSupport.spawn(["fleet", "sync", "--config", config, "--batch", "20"], stderrPath: errPath))
        defer {
            kill(child.pid, SIGKILL)
            close(child.stdout)
        }
        #expect(StoreTestSupport.waitFor(seconds: 30) { centralCount(name, kiosk: kiosk) > 200 })
        pg.stop(immediate: true)
        usleep(1_500_000)
        try pg.start()
        #expect(StoreTestSupport.waitFor(seconds: 90) { centralCount(name, kiosk: kiosk) == local.count })
        kill(child.pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        #expect(status == 0, "fleet sync should stop cleanly on SIGTERM")
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        try expectReportRowsOnce(name, kiosk: kiosk, data: data)
        // One log line per change of state, not one per retry.
        let log = String(decoding: try FileIO.readAll(errPath, limit: 1 << 20), as: UTF8.self)
        let warnings = log.split(separator: "\n").filter { $0.contains("Decisions stay on this kiosk") }
        #expect(warnings.count >= 1 && warnings.count <= 3, "\(log)")
    }

    @Test func connectionCutMidTransactionLosesAndDoublesNothing() throws {
        let name = try freshFleet()
        let kiosk = "cut-\(getpid())"
        let role = FleetAdmin.roleName(kioskID: kiosk)
        var settings = try addKiosk(kiosk, database: name)
        settings.batchLimit = 50
        let data = scratch + "/cut"
        try produce(3000, into: data, kiosk: kiosk)
        let local = try localUIDs(data)
        let worker = FleetSyncWorker(settings: settings, dataDirectory: data) { FleetHealth.standalone() }
        worker.start()
        defer { worker.stop() }
        let admin = try pg.admin(name)
        // pg_stat_activity is a snapshot per transaction: watch it from outside the lock's.
        let watcher = try pg.admin(name)
        var cutInTransaction = 0
        for _ in 0..<3 {
            // Hold the table so the kiosk's INSERT waits inside its transaction, then cut it.
            try admin.execute("BEGIN")
            try admin.execute("LOCK TABLE fleet.decisions IN EXCLUSIVE MODE")
            let waiting = StoreTestSupport.waitFor(seconds: 30) {
                let rows = try? watcher.execute(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE usename = $1 AND wait_event_type = 'Lock' AND xact_start IS NOT NULL
                    """, [role])
                return rows?.scalar == "1"
            }
            let killed = try watcher.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = $1",
                [role])
            if waiting && killed.scalar == "1" { cutInTransaction += 1 }
            let before = centralCount(name, kiosk: kiosk)
            try admin.execute("COMMIT")
            // The kiosk reconnects and sends again before the next cut (waited for, not timed).
            #expect(StoreTestSupport.waitFor(seconds: 60) { centralCount(name, kiosk: kiosk) > before })
        }
        #expect(cutInTransaction == 3)
        #expect(StoreTestSupport.waitFor(seconds: 90) { centralCount(name, kiosk: kiosk) == local.count })
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        try expectReportRowsOnce(name, kiosk: kiosk, data: data)
        #expect(worker.currentState == .online)
    }

    @Test func kioskOfflineForAWeekThenSyncsEverything() throws {
        let name = try freshFleet()
        let kiosk = "week-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let data = scratch + "/week"
        // A week of decisions, one every 30 s of wall time (every 2 min under qemu-user), written
        // while the server is out of reach.
        let week: Int64 = 7 * 86_400_000
        let count = DeckFixtures.underEmulation ? 5_040 : 20_160
        try produce(
            count, into: data, kiosk: kiosk, startMs: WallClock.nowMilliseconds() - week, stepMs: week / Int64(count))
        var unreachable = settings
        unreachable.url =
            "postgresql://\(FleetAdmin.roleName(kioskID: kiosk))@127.0.0.1:\(PostgresTestServer.freePort())/\(name)"
        let offline = FleetSyncWorker(settings: unreachable, dataDirectory: data) { FleetHealth.standalone() }
        #expect(offline.round() == .failed)
        #expect(offline.currentState == .failing(.unreachable))
        let local = try localUIDs(data)
        #expect(
            try DecisionSync.pending(dataDirectory: data, target: "no cursor yet", limit: 1).unsent
                == count)

        let online = FleetSyncWorker(settings: settings, dataDirectory: data) { FleetHealth.standalone() }
        var rounds = 0
        while online.round() == .sentBatch { rounds += 1 }
        #expect(rounds == (count + FleetUpload.maxBatch - 1) / FleetUpload.maxBatch)
        try expectExactlyOnce(name, kiosk: kiosk, local: local)
        try expectReportRowsOnce(name, kiosk: kiosk, data: data)
        let span = try pg.admin(name).execute(
            "SELECT extract(epoch FROM max(wall_time) - min(wall_time))::bigint FROM fleet.decisions WHERE kiosk_id = $1",
            [kiosk])
        #expect((Int64(span.scalar ?? "") ?? 0) >= 6 * 86_400)
        #expect(
            try DecisionSync.pending(dataDirectory: data, target: try #require(online.cursorTarget), limit: 1).unsent
                == 0)
    }
}

extension String {
    /// This text with the first `target` replaced by `replacement` (unchanged when absent).
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }
}
