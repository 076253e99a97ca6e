import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskFleet
@testable import KioskSystem

/// A kiosk in hostile hands, against the real PostgreSQL of `FleetTests`: what a stolen kiosk
/// password can do to the fleet server and to the other kiosks (docs/FLEET.md "A stolen kiosk
/// password").
extension FleetTests {
    /// Runs `sql` as `db`'s role and returns the SQLSTATE it failed with (nil: it succeeded).
    func failure(_ sql: String, on db: PostgresConnection) -> String? {
        do {
            try db.execute(sql)
            return nil
        } catch {
            return error.sqlState ?? "no SQLSTATE: \(error)"
        }
    }

    /// Not under qemu-user (the aarch64 lane): the limits it checks are the server's, the same
    /// for every kiosk architecture, and 80 emulated connection attempts take about a minute.
    @Test(.disabled(if: DeckFixtures.underEmulation, "server-side limits; the native run covers it"))
    func aKioskHammeringConnectionsCannotStopAnothersSync() throws {
        try #require(StoreTestSupport.executableExists, "build the executable: swift build --build-tests")
        let name = try freshFleet()
        let thief = try addKiosk("thief-\(getpid())", database: name)
        let victim = "victim-\(getpid())"
        let settings = try addKiosk(victim, database: name)
        let data = scratch + "/victim"
        try produce(300, into: data, kiosk: victim)
        let password = try FleetSyncWorker.readCredentials(thief.credentialsPath)

        // The stolen password opens connections in a loop and keeps every one it gets: more
        // attempts than the server has slots (max_connections 60 on the test server).
        var held: [PostgresConnection] = []
        var refusals: [String] = []
        for _ in 0..<80 {
            do {
                held.append(try PostgresConnection(conninfo: thief.url, password: password, connectTimeoutSeconds: 5))
            } catch {
                refusals.append(error.message)
            }
        }
        print("hammering: \(held.count) connections held, \(refusals.count) refused")
        #expect(held.count == FleetSchema.kioskConnectionLimit)
        #expect(refusals.allSatisfy { $0.contains("too many connections for role") }, "\(refusals.first ?? "")")

        // The other kiosk syncs as if nothing happened.
        let result = try syncOnce(writeConfig(settings, data: data))
        #expect(result.status == 0, "\(result.log)")
        try expectExactlyOnce(name, kiosk: victim, local: try localUIDs(data))
        withExtendedLifetime(held) {}
    }

    @Test func fleetInitLimitsTheKioskRolesOfAnExistingFleet() throws {
        // A fleet at schema 7 with a kiosk role made then, as add-kiosk did.
        Self.counter += 1
        let name = "fleet_\(getpid())_\(Self.counter)"
        try pg.createDatabase(name)
        let admin = try pg.admin(name)
        try admin.execute("CREATE SCHEMA fleet")
        try admin.execute(
            "CREATE TABLE fleet.schema_migrations (version integer PRIMARY KEY, description text NOT NULL, "
                + "applied_at timestamptz NOT NULL DEFAULT now())")
        for version in 0..<7 {
            try admin.execute(FleetSchema.migrations[version].sql)
            try admin.execute(
                "INSERT INTO fleet.schema_migrations (version, description) VALUES ($1, 'old')", [String(version + 1)])
        }
        let role = "kiosk_old-\(getpid())"
        try admin.execute("CREATE ROLE \(try admin.quoteIdentifier(role)) LOGIN IN ROLE fleet_kiosk")
        let before = try admin.execute(
            "SELECT rolconnlimit, rolconfig IS NULL FROM pg_roles WHERE rolname = $1", [role])
        #expect(before.values == [["-1", "t"]])

        let report = try FleetSchema.migrate(admin)
        #expect(report.from == 7 && report.to == FleetSchema.schemaVersion)
        let after = try admin.execute(
            "SELECT rolconnlimit, array_to_string(rolconfig, ' ') FROM pg_roles WHERE rolname = $1", [role])
        #expect(after.values.first?[0] == String(FleetSchema.kioskConnectionLimit))
        let settings = after.values.first?[1] ?? ""
        #expect(settings.contains("statement_timeout=\(FleetSchema.kioskStatementTimeout)"), "\(settings)")
        #expect(settings.contains("idle_in_transaction_session_timeout="), "\(settings)")
    }

    @Test func aKioskRoleHasTimeoutsNoTempTablesNoLargeObjects() throws {
        let name = try freshFleet()
        let db = try connect(try addKiosk("limits-\(getpid())", database: name))
        #expect(try db.execute("SHOW statement_timeout").scalar == FleetSchema.kioskStatementTimeout)
        #expect(
            try db.execute("SHOW idle_in_transaction_session_timeout").scalar
                == FleetSchema.kioskIdleInTransactionTimeout)
        let version = Int(try db.execute("SHOW server_version_num").scalar ?? "") ?? 0
        if version >= 140000 {
            #expect(try db.execute("SHOW idle_session_timeout").scalar == FleetSchema.kioskIdleSessionTimeout)
        }
        // 42501: insufficient privilege.
        #expect(failure("CREATE TEMP TABLE mine (x int)", on: db) == "42501")
        #expect(failure("SELECT lo_create(0)", on: db) == "42501")
        #expect(failure("SELECT lo_creat(-1)", on: db) == "42501")
        #expect(failure("SELECT lo_from_bytea(0, '\\x00')", on: db) == "42501")
        // The operator (the report) still makes its temp tables.
        let admin = try pg.admin(name)
        try admin.execute("CREATE ROLE limits_op_\(getpid()) LOGIN IN ROLE fleet_operator")
        try admin.execute("SET ROLE limits_op_\(getpid())")
        #expect(failure("CREATE TEMP TABLE report_x (x int)", on: admin) == nil)
        try admin.execute("RESET ROLE")

        // A long statement is cancelled by the server (57014: query_canceled), and the
        // connection stays usable.
        #expect(failure("SELECT pg_sleep(3600)", on: db) == "57014")
        #expect(try db.execute("SELECT 1").scalar == "1")
    }

    @Test func anOversizedBatchIsRefusedAndTheKioskSendsSmallerOnes() throws {
        try #require(StoreTestSupport.executableExists, "build the executable: swift build --build-tests")
        let name = try freshFleet()
        let kiosk = "batch-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let db = try connect(settings)
        // By hand with the stolen password: over the row limit, or one huge row.
        let over = FleetSchema.kioskMaxRowsPerStatement + 1
        #expect(
            failure(
                """
                INSERT INTO fleet.decisions (kiosk_id, decision_uid, payload_version, session_id, deck_id, deck_version,
                    card_id, action, wall_time, wall_ms, monotonic_ns, dwell_ms)
                SELECT fleet.current_kiosk(), 'u' || n, 2, 's', 'd', 1, 'c', 'swipedLeft', now(), 0, 0, 0
                FROM generate_series(1, \(over)) n
                """, on: db) == FleetError.batchTooLarge)
        #expect(
            failure(
                """
                INSERT INTO fleet.maintenance (kiosk_id, wall_ms, state, note, payload_version)
                VALUES (fleet.current_kiosk(), 0, 'note', repeat(md5(random()::text), 150000), 3)
                """, on: db) == FleetError.batchTooLarge)
        #expect(try pg.admin(name).execute("SELECT count(*) FROM fleet.decisions").scalar == "0")

        // The operator lowers the bound below what the kiosk sends (500): its sync is refused,
        // says so, sends smaller rounds and loses nothing.
        try pg.admin(name).execute("UPDATE fleet.kiosk_limits SET max_rows = 120")
        let data = scratch + "/batch"
        try produce(1000, into: data, kiosk: kiosk)
        let result = try syncOnce(writeConfig(settings, data: data))
        #expect(result.status == 0, "\(result.log)")
        #expect(result.log.contains("refused a batch as too large"), "\(result.log)")
        #expect(result.log.contains("at most 120 rows"), "\(result.log)")
        #expect(result.log.contains("sending at most 62 rows"), "\(result.log)")
        try expectExactlyOnce(name, kiosk: kiosk, local: try localUIDs(data))
        try expectReportRowsOnce(name, kiosk: kiosk, data: data)
    }
}

extension FleetTests {
    /// A fresh fleet and kiosk whose `fleet sync --once` has applied a small valid deck:
    /// (database, kiosk id, data directory, kiosk.conf, the deck file).
    func kioskShowingAGoodDeck(_ label: String, imageSide: Int = 0) throws -> (
        name: String, kiosk: String, data: String, config: String, good: String
    ) {
        let name = try freshFleet()
        let kiosk = "\(label)-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let data = scratch + "/" + label
        let config = deckConfig(settings, data: data, deck: DeckFixtures.good("minimal-stack.json"))
        let good = try writeDeck("fine", version: 1, title: "Gut", imageSide: imageSide)
        try publish([good, "--kiosk", kiosk], database: name)
        let first = try syncOnce(config)
        #expect(first.status == 0, "\(first.log)")
        return (name, kiosk, data, config, good)
    }

    /// Stores `body` as a deck straight into the tables (past `fleet publish`, with a correct
    /// hash) and assigns it to `kiosk`, as a hostile or broken server could.
    func smuggle(
        _ body: [UInt8], id: String, version: Int, kiosk: String, database: String,
        images: [(path: String, blob: String)] = []
    ) throws {
        let admin = try pg.admin(database)
        let sha = try #require(
            try admin.execute(
                """
                INSERT INTO fleet.decks (deck_sha256, deck_id, version, body)
                SELECT encode(sha256(b), 'hex'), $2, $3::integer, b FROM (SELECT $1::bytea AS b) x RETURNING deck_sha256
                """, [FleetDecks.byteaText(body), id, String(version)]
            ).scalar)
        for image in images {
            try admin.execute(
                "INSERT INTO fleet.deck_images (deck_sha256, path, blob_sha256) VALUES ($1, $2, $3)",
                [sha, image.path, image.blob])
        }
        try admin.execute("UPDATE fleet.deck_assignments SET deck_sha256 = $1 WHERE kiosk_id = $2", [sha, kiosk])
    }

    @Test func aFleetDeckNamingFilesOutsideItsFolderIsRefusedWithoutQuotingThem() throws {
        try #require(StoreTestSupport.executableExists)
        let (name, kiosk, data, config, good) = try kioskShowingAGoodDeck("paths")
        let decks = ManagedDecks(dataDirectory: data)

        // A local file that is not a deck, and a valid deck, both outside any fleet version.
        let secret = scratch + "/secret.txt"
        DeckFixtures.write("SECRET local contents\n", to: secret)
        let outside = try writeDeck("local", version: 1, title: "Local")
        let up = String(repeating: "../", count: 12)
        let card = ##"{"id": "a", "title": "A", "color": "#336699""##
        let head = ##"{"id": "hostile", "version": 2, "title": "H", "layout": "stack", "cards": "##
        func scheduled(_ deck: String) -> String {
            head + "[\(card)}], " + ##""schedule": {"open": [{"from": "00:00", "to": "12:00"}, "##
                + ##"{"from": "12:00", "to": "24:00", "deck": "\##(deck)"}]}}"##
        }
        let hostile: [String] = [
            scheduled(secret), scheduled(outside), scheduled(up + outside.dropFirst()),
            scheduled(up + secret.dropFirst()),
            head + "[\(card), " + ##""image": "\##(up)etc/hostname"}]}"##,
        ]
        for (n, body) in hostile.enumerated() {
            try smuggle(Array(body.utf8), id: "hostile", version: 2 + n, kiosk: kiosk, database: name)
            let refused = try syncOnce(config)
            #expect(refused.status == 1, "\(n): \(refused.log)")
            #expect(refused.log.contains("outside"), "\(n): \(refused.log)")
            #expect(try self.sha(decks.deckPath) == self.sha(good), "\(n): current stays the good deck")
            let error = try #require(try lastHeartbeat(name, kiosk: kiosk)[2], "\(n): deck_error in the heartbeat")
            #expect(error.contains("outside"), "\(n): \(error)")
            // Nothing of the local file's contents, not even its first character.
            for text in [error, refused.log] {
                #expect(!text.contains("SECRET") && !text.contains("'S'"), "\(n): \(text)")
            }
        }
    }
}

extension FleetTests {
    /// Runs the executable under GNU time to completion and returns its exit status, what it
    /// logged and its peak resident set in kB. Not `wait4` here: posix_spawn's vfork makes the
    /// child's `ru_maxrss` include this (large) test process; time(1) forks from a small one.
    func runMeasured(_ arguments: [String]) throws -> (status: Int32, log: String, peakKB: Int) {
        Self.counter += 1
        let err = scratch + "/measured-\(Self.counter).err"
        let peak = scratch + "/measured-\(Self.counter).rss"
        let argv = ["/usr/bin/time", "-f", "%M", "-o", peak, StoreTestSupport.executable] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let cargv = argv.map { strdup($0) } + [nil]
        defer { for p in cargv { free(p) } }
        var pid = pid_t()
        try #require(posix_spawn(&pid, argv[0], &actions, nil, cargv, environ) == 0)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let log = (try? FileIO.readAll(err, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let figure = String(decoding: try FileIO.readAll(peak, limit: 4096), as: UTF8.self)
        // time(1) writes "Command exited with non-zero status N" before the figure then.
        let kB = try #require(figure.split(whereSeparator: { $0 == "\n" }).last.flatMap { Int($0) }, "\(figure)")
        return ((status >> 8) & 0xFF, log, kB)
    }

    /// Not under qemu-user (the aarch64 lane): the peak RSS measured there is the emulator's,
    /// and 200 MB through an emulated download takes minutes; the amd64 run measures it.
    @Test(.disabled(if: DeckFixtures.underEmulation, "peak RSS under qemu-user is the emulator's; measured natively"))
    func aDeckWithA200MBImageIsRefusedInBoundedMemory() throws {
        try #require(StoreTestSupport.executableExists)
        try #require(access("/usr/bin/time", X_OK) == 0, "GNU time measures the peak RSS: apt-get install time")
        // The baseline: the same command downloading a small deck with a 64 × 64 image.
        let (name, kiosk, data, config, _) = try kioskShowingAGoodDeck("big")
        let decks = ManagedDecks(dataDirectory: data)
        let small = try writeDeck("small", version: 1, title: "Klein", imageSide: 64)
        try publish([small, "--kiosk", kiosk], database: name)
        let baseline = try runMeasured(["fleet", "sync", "--config", config, "--once"])
        #expect(baseline.status == 0, "\(baseline.log)")

        // 200 MB (and 60 MB) made on the server, past `fleet publish`, which refuses both.
        let admin = try pg.admin(name)
        func blob(megabytes: Int) throws -> String {
            try #require(
                try admin.execute(
                    """
                    INSERT INTO fleet.blobs (sha256, body)
                    SELECT encode(sha256(b), 'hex'), b FROM (SELECT convert_to(repeat('x', $1::integer), 'UTF8') AS b) x
                    RETURNING sha256
                    """, [String(megabytes << 20)]
                ).scalar)
        }
        let card = ##"{"id": "a", "title": "A", "color": "#336699", "image": "img/big.png"}"##
        func deck(_ version: Int) -> String {
            ##"{"id": "big", "version": \##(version), "title": "B", "layout": "stack", "cards": [\##(card)]}"##
        }
        try smuggle(
            Array(deck(2).utf8), id: "big", version: 2, kiosk: kiosk, database: name,
            images: [("img/big.png", try blob(megabytes: 200))])
        let big = try runMeasured(["fleet", "sync", "--config", config, "--once"])
        #expect(big.status == 1, "\(big.log)")
        #expect(big.log.contains("is 200 MB; an image may be at most 64 MB"), "\(big.log)")

        // Under the limit but damaged (the server's hash CHECK dropped, the name kept): all
        // 60 MB stream through the kiosk, piece by piece, before the hash refuses them.
        let sixty = try blob(megabytes: 60)
        let check = try admin.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = 'fleet.blobs'::regclass AND contype = 'c' "
                + "AND pg_get_constraintdef(oid) LIKE '%sha256(body)%'")
        for row in check.values {
            try admin.execute("ALTER TABLE fleet.blobs DROP CONSTRAINT " + (try admin.quoteIdentifier(row[0] ?? "")))
        }
        try admin.execute(
            "UPDATE fleet.blobs SET body = overlay(body PLACING '\\x00'::bytea FROM 1) WHERE sha256 = $1", [sixty])
        try smuggle(
            Array(deck(3).utf8), id: "big", version: 3, kiosk: kiosk, database: name, images: [("img/big.png", sixty)])
        let streamed = try runMeasured(["fleet", "sync", "--config", config, "--once"])
        #expect(streamed.status == 1, "\(streamed.log)")
        #expect(streamed.log.contains("(\(60 << 20) bytes)"), "\(streamed.log)")

        print(
            "peak RSS of fleet sync --once: small deck \(baseline.peakKB) kB; 200 MB image \(big.peakKB) kB "
                + "(growth \(big.peakKB - baseline.peakKB) kB); 60 MB image streamed \(streamed.peakKB) kB "
                + "(growth \(streamed.peakKB - baseline.peakKB) kB)")
        #expect(big.peakKB - baseline.peakKB <= 16 << 10)
        #expect(streamed.peakKB - baseline.peakKB <= 16 << 10)
        #expect(try self.sha(decks.deckPath) == self.sha(small), "current stays the small deck")
        #expect(stagingLeft(data).isEmpty)
    }

    @Test func aKioskTalksOnlyToAVerifiedServerUnlessItsConfigSaysOtherwise() throws {
        try #require(StoreTestSupport.executableExists)
        try #require(pg.tls, "openssl is needed to make the certificates (deploy/fleet-certs.sh)")
        let name = try freshFleet()
        let kiosk = "tls-sync-\(getpid())"
        let credentials = scratch + "/\(kiosk).password"
        // add-kiosk by the name in the server's certificate: a verifying URL, and the CA's way there.
        let err = scratch + "/add-kiosk-tls.err"
        let added = try #require(
            StoreTestSupport.run(
                [
                    "fleet", "add-kiosk", kiosk, "--postgres", pg.adminURL(database: name), "--credentials",
                    credentials, "--kiosk-host", "localhost", "--kiosk-ca", pg.caCertificate,
                ], stderrPath: err))
        #expect(added.status == 0)
        let url = try #require(
            String(decoding: added.stdout, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("fleet-url = ") }
                .map { String($0.dropFirst(12)) })
        #expect(url.contains("sslmode=verify-full&sslrootcert="), "\(url)")
        let addLog = String(decoding: try FileIO.readAll(err, limit: 1 << 16), as: UTF8.self)
        #expect(addLog.contains("copy the CA certificate"), "\(addLog)")

        let data = scratch + "/tls-sync"
        try produce(40, into: data, kiosk: kiosk)
        func sync(_ url: String, extra: String = "") throws -> (status: Int32, log: String) {
            let path = scratch + "/tls-\(Self.counter).conf"
            DeckFixtures.write(
                "data = \(data)\nfleet-url = \(url)\nfleet-credentials = \(credentials)\n\(extra)", to: path)
            return try syncOnce(path)
        }
        // Verified: it syncs, over TLS.
        let verified = try sync(url)
        #expect(verified.status == 0, "\(verified.log)")
        try expectExactlyOnce(name, kiosk: kiosk, local: try localUIDs(data))
        // The same server by a name its certificate does not carry: refused by libpq.
        let parts = url.split(separator: "@", maxSplits: 1)
        #expect(parts.count == 2 && parts[1].hasPrefix("localhost"))
        let wrongName = try sync(parts[0] + "@127.0.0.1" + parts[1].dropFirst("localhost".count))
        #expect(wrongName.status == 1)
        #expect(wrongName.log.contains("TLS verification failed"), "\(wrongName.log)")
        // Not verifying (no sslmode, require, verify-ca): refused by the kiosk before connecting.
        let role = FleetAdmin.roleName(kioskID: kiosk)
        let plain = "postgresql://\(role)@localhost:\(pg.port)/\(name)"
        for weak in [plain, plain + "?sslmode=require", plain + "?sslmode=verify-ca&sslrootcert=\(pg.caCertificate)"] {
            let refused = try sync(weak)
            #expect(refused.status == 1, "\(weak): \(refused.log)")
            #expect(refused.log.contains("does not verify the fleet server"), "\(weak): \(refused.log)")
            #expect(refused.log.contains("fleet-tls = insecure"), "\(weak): \(refused.log)")
        }
        // Unless kiosk.conf accepts it: then it syncs and warns, in the log and the heartbeat.
        let insecure = try sync(plain + "?sslmode=require", extra: "fleet-tls = insecure\n")
        #expect(insecure.status == 0, "\(insecure.log)")
        #expect(insecure.log.contains("fleet-tls = insecure: this kiosk does not verify"), "\(insecure.log)")
        let warning = try pg.admin(name).execute(
            "SELECT warning FROM fleet.heartbeats WHERE kiosk_id = $1 ORDER BY received_at DESC LIMIT 1", [kiosk]
        ).scalar
        #expect(warning?.contains("sslmode=require") == true, "\(warning ?? "no warning")")
    }
}
