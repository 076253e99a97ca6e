import Testing

@testable import KioskFleet

/// Which fleet-urls verify the server (FleetTLS), without a server.
@Suite struct FleetTLSPolicyTests {
    func verdict(_ url: String, environment: [String: String] = [:]) throws -> FleetTLS.Verdict {
        FleetTLS.verdict(try PostgresConnection.parse(conninfo: url), environment: environment)
    }

    @Test func onlyVerifyFullOrALocalServerPasses() throws {
        try #require((try? LibPQ.loaded()) != nil, "libpq5 is not installed")
        #expect(try verdict("postgresql://k@fleet.lan/f?sslmode=verify-full&sslrootcert=/ca.crt") == .verified)
        for mode in ["disable", "allow", "prefer", "require", "verify-ca"] {
            #expect(try verdict("postgresql://k@fleet.lan/f?sslmode=\(mode)") == .unverified("sslmode=\(mode)"))
        }
        #expect(try verdict("postgresql://k@fleet.lan/f") == .unverified("sslmode=prefer"))
        #expect(try verdict("host=fleet.lan dbname=f") == .unverified("sslmode=prefer"))
        #expect(try verdict("postgresql://k@fleet.lan/f", environment: ["PGSSLMODE": "verify-full"]) == .verified)
        // A name is whatever the resolver says; only loopback addresses and sockets are local.
        #expect(try verdict("postgresql://k@localhost/f") == .unverified("sslmode=prefer"))
        #expect(try verdict("postgresql://k@127.0.0.1:5432/f") == .local)
        #expect(try verdict("postgresql://k@[::1]/f") == .local)
        #expect(try verdict("postgresql://k@/f?host=/run/postgresql") == .local)
        #expect(try verdict("postgresql://k@127.0.0.1,fleet.lan/f") == .unverified("sslmode=prefer"))
        #expect(try verdict("postgresql://k@fleet.lan/f?hostaddr=127.0.0.1") == .local)
        #expect(throws: FleetError.self) { try verdict("postgresql://k@x/f?nonsense=1") }
    }
}
