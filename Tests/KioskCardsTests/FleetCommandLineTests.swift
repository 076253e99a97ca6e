import Glibc
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
            hostOverride: nil)
        #expect(
            tcp
                == "postgresql://kiosk_lobby-1@db.example.org/kioskfleet?port=5433&sslmode=verify-full"
                + "&sslrootcert=%2Fetc%2Fkioskcards%2Fca.crt")
        let socket = FleetAdmin.kioskURL(
            for: "kiosk_a", from: ["host": "/run/postgresql", "dbname": "f", "sslmode": "prefer"], hostOverride: nil)
        #expect(socket == "postgresql://kiosk_a@/f?host=%2Frun%2Fpostgresql&port=5432")
        #expect(FleetAdmin.validKioskID("lobby-1.east_2"))
        #expect(!FleetAdmin.validKioskID("a b") && !FleetAdmin.validKioskID(String(repeating: "x", count: 58)))
    }
}
