import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskFleet
@testable import KioskSystem

/// `KioskCards fleet …` command lines without a server: help, usage errors (exit 2) and an
/// unreachable server (exit 1, classified).
@Suite struct FleetCommandLineTests {
    @Test func everyActionAnswersHelpAndVersion() throws {
        for action in FleetCommand.actions {
            #expect(action.run(["--help"]) == 0, "fleet \(action.name) --help")
            #expect(action.run(["--version"]) == 0)
        }
        #expect(FleetCommand.run(arguments: ["--help"]) == 0)
        #expect(FleetCommand.table.helpText.contains("add-kiosk"))
        try #require(StoreTestSupport.executableExists)
        let help = try #require(CommandLineTests.run(["fleet", "add-kiosk", "--help"]))
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("Usage: KioskCards fleet add-kiosk"))
        #expect(help.stdout.contains("--credentials"))
    }

    @Test func usageErrorsExitTwoAndSayWhatIsAccepted() throws {
        try #require(StoreTestSupport.executableExists)
        let unknown = try #require(CommandLineTests.run(["fleet", "publsh"]))
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("expected one of init, add-kiosk"))
        let noURL = try #require(CommandLineTests.run(["fleet", "init"]))
        #expect(noURL.status == 2)
        #expect(noURL.stderr.contains("--postgres URL is required"))
        let badID = try #require(CommandLineTests.run(["fleet", "add-kiosk", "a b", "--postgres", "x=y"]))
        #expect(badID.status == 2)
        #expect(badID.stderr.contains("bad ID 'a b'"))
        let noConfig = try #require(CommandLineTests.run(["fleet", "sync", "--config", "/nonexistent/kiosk.conf"]))
        #expect(noConfig.status == 2)
        #expect(noConfig.stderr.contains("does not exist"))
    }

    @Test func anUnreachableServerExitsOneWithTheFix() throws {
        try #require(StoreTestSupport.executableExists)
        let url = "postgresql://x@127.0.0.1:\(PostgresTestServer.freePort())/x?connect_timeout=3"
        let result = try #require(CommandLineTests.run(["fleet", "status", "--postgres", url]))
        #expect(result.status == 1)
        #expect(result.stderr.contains("the fleet server is unreachable"))
    }

    @Test func kioskURLKeepsTLSAndEncodesTheSocketDirectory() {
        let tcp = FleetAdmin.kioskURL(
            for: "kiosk_lobby-1",
            from: [
                "host": "db.example.org", "port": "5433", "dbname": "kioskfleet", "sslmode": "verify-full",
                "sslrootcert": "/etc/kioskcards/ca.crt",
            ],
            hostOverride: nil, caFile: "/etc/kioskcards/ca.crt")
        #expect(
            tcp
                == "postgresql://kiosk_lobby-1@db.example.org/kioskfleet?port=5433&sslmode=verify-full"
                + "&sslrootcert=%2Fetc%2Fkioskcards%2Fca.crt")
        // Over a network the kiosk verifies the server even when the operator's URL did not.
        let plain = FleetAdmin.kioskURL(
            for: "kiosk_b", from: ["host": "10.0.0.5", "dbname": "f", "sslmode": "prefer"], hostOverride: "fleet.lan")
        #expect(
            plain == "postgresql://kiosk_b@fleet.lan/f?port=5432&sslmode=verify-full"
                + "&sslrootcert=%2Fetc%2Fkioskcards%2Ffleet-ca.crt")
        let socket = FleetAdmin.kioskURL(
            for: "kiosk_a", from: ["host": "/run/postgresql", "dbname": "f", "sslmode": "prefer"], hostOverride: nil)
        #expect(socket == "postgresql://kiosk_a@/f?host=%2Frun%2Fpostgresql&port=5432")
        #expect(FleetAdmin.validKioskID("lobby-1.east_2"))
        #expect(!FleetAdmin.validKioskID("a b") && !FleetAdmin.validKioskID(String(repeating: "x", count: 58)))
    }
}

/// The heartbeat's board readings, from directories laid out like /sys.
@Suite struct FleetHealthTests {
    @Test func cpuTemperaturePrefersTheCPUZoneAndThrottledFlagsParse() throws {
        let root = DeckFixtures.temporaryDirectory("thermal")
        defer { DeckFixtures.removeTree(root) }
        #expect(FleetHealth.cpuTemperature(root: root) == nil)
        for (n, type, milli) in [(0, "acpitz", "27800"), (1, "x86_pkg_temp", "51250")] {
            #expect(mkdir(root + "/thermal_zone\(n)", 0o755) == 0)
            DeckFixtures.write(type + "\n", to: root + "/thermal_zone\(n)/type")
            DeckFixtures.write(milli + "\n", to: root + "/thermal_zone\(n)/temp")
        }
        #expect(FleetHealth.cpuTemperature(root: root) == 51.25)
        DeckFixtures.write("cpu-thermal\n", to: root + "/thermal_zone0/type")
        #expect(FleetHealth.cpuTemperature(root: root) == 27.8)

        let flags = root + "/get_throttled"
        #expect(FleetHealth.throttledFlags(path: flags) == nil)
        DeckFixtures.write("50005\n", to: flags)
        #expect(FleetHealth.throttledFlags(path: flags) == "0x50005")
        DeckFixtures.write("0x80008\n", to: flags)
        #expect(FleetHealth.throttledFlags(path: flags) == "0x80008")
        DeckFixtures.write("0\n", to: flags)
        #expect(FleetHealth.throttledFlags(path: flags) == "0x0")
    }

    @Test func theHeartbeatCarriesTheKiosksSnapshot() {
        let health = FleetHealth()
        health.update {
            $0.deckApplied = "lobby@3"
            $0.lastFlipMs = 1_767_225_600_000
            $0.framesPerSecond = 60
        }
        health.storageFailing = { true }
        let h = health.heartbeat()
        #expect(h.deckApplied == "lobby@3" && h.lastFlipMs == 1_767_225_600_000 && h.framesPerSecond == 60)
        #expect(h.storageFailing && h.appVersion == kioskCardsVersion && h.uptimeSeconds > 0)
    }

    /// The app's heartbeat: source `app`, and the touch-to-flip of the last window only, its
    /// percentiles those of the samples sorted by hand (nearest rank).
    @Test func theAppsHeartbeatCarriesTouchToFlipOfTheLastMinutes() throws {
        let health = FleetHealth()
        let now = MonotonicClock.now()
        // An old burst (outside the window) that must not count: all 1000 ms.
        for _ in 0..<50 {
            health.noteLatency(at: now.advanced(bySeconds: -(Heartbeat.InputToFlip.window + 10)), milliseconds: 1000)
        }
        var recent: [Double] = []
        var generator = SplitMix64(seed: 7)
        for i in 0..<333 {
            let ms = Double(generator.next() % 4000) / 100
            recent.append(ms)
            health.noteLatency(at: now.advanced(bySeconds: -Double(i) / 10), milliseconds: ms)
        }
        let figures = try #require(health.inputToFlip(now: now))
        let sorted = recent.sorted()
        #expect(figures.samples == 333)
        #expect(figures.p50 == sorted[166] && figures.p95 == sorted[316] && figures.p99 == sorted[329])
        #expect(figures.max == sorted[332])
        #expect(health.heartbeat().source == .app && FleetHealth.standalone().source == .sync)
        #expect(FleetHealth().inputToFlip() == nil, "no touch: no figure, not zeros")
    }

    @Test func aMistypedURLIsReportedAsATypoNotAsUnreachable() throws {
        #expect(FleetCommand.conninfoTypo("postgresq://alice@db/kioskfleet")?.contains("'postgresq://'") == true)
        #expect(FleetCommand.conninfoTypo("db.example.org") != nil)
        for good in ["postgresql://alice@db/kioskfleet", "postgres://db/x", "host=db dbname=x", "service=kioskfleet"] {
            #expect(FleetCommand.conninfoTypo(good) == nil, "\(good)")
        }
        try #require(StoreTestSupport.executableExists)
        for url in ["postgresq://alice@127.0.0.1/kioskfleet", "postgresql://alice@127.0.0.1:54x32/kioskfleet"] {
            let result = try #require(CommandLineTests.run(["fleet", "status", "--postgres", url]))
            #expect(result.status == 1)
            #expect(result.stderr.contains("--postgres looks mistyped"), "\(result.stderr)")
            #expect(!result.stderr.contains("unreachable"))
        }
        let missing = try #require(
            CommandLineTests.run([
                "fleet", "status", "--postgres", "postgresql://alice@127.0.0.1/x", "--credentials", "/nonexistent/pw",
            ]))
        #expect(missing.status == 1 && missing.stderr.contains("--credentials /nonexistent/pw"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("fleet-credentials"), "operator advice, not the kiosk's")
    }

    /// add-operator's connection: a pg_service.conf entry with the TLS settings, a .pgpass line
    /// with ':' and '\\' escaped (libpq's rule), never a password in a URL.
    @Test func addOperatorPrintsAServiceEntryAndAPgpassLine() {
        let text = FleetAddOperatorCommand.connectionText(
            role: "alice", service: "kioskfleet",
            parameters: [
                "host": "db.example.org", "port": "5433", "dbname": "kioskfleet", "sslmode": "verify-full",
                "sslrootcert": "/etc/kioskcards/fleet-ca.crt",
            ], password: "pa:ss\\word", credentialsPath: nil)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(
            Array(lines[1...7]) == [
                "[kioskfleet]", "host=db.example.org", "port=5433", "dbname=kioskfleet", "user=alice",
                "sslmode=verify-full", "sslrootcert=/etc/kioskcards/fleet-ca.crt",
            ])
        #expect(lines.contains("db.example.org:5433:kioskfleet:alice:pa\\:ss\\\\word"))
        #expect(!text.contains("://"))
        let socket = FleetAddOperatorCommand.connectionText(
            role: "bob", service: "s", parameters: ["host": "/run/postgresql", "dbname": "f"], password: nil,
            credentialsPath: "/home/bob/fleet.pw")
        #expect(!socket.contains("~/.pgpass") && socket.contains("--credentials /home/bob/fleet.pw"))
    }
}
