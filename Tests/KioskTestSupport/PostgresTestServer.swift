import Glibc

@testable import KioskFleet
@testable import KioskSystem

/// A real PostgreSQL server started by the tests: `initdb` + `pg_ctl` into a fresh directory
/// under /tmp, listening on a Unix socket there (the admin, trusted) and on 127.0.0.1 with
/// SCRAM passwords (the kiosks, as in the field). initdb refuses to run as root, so when the
/// tests run as root the server runs as `nobody` (setpriv), owning its directory.
/// Any suite can use it: `let pg = try PostgresTestServer()`; `stop()` and `start()` for fault
/// tests; the server and its files go when the value is released.
package final class PostgresTestServer: @unchecked Sendable {
    /// The directory holding initdb, pg_ctl and postgres, nil when PostgreSQL is not installed
    /// (`apt-get install postgresql`, as scripts/setup.sh does).
    package static let binDirectory: String? = {
        var candidates = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"]
        if let env = getenv("KIOSK_TEST_PG_BIN") { candidates.insert(String(cString: env), at: 0) }
        return candidates.first { dir in
            ["initdb", "pg_ctl", "postgres"].allSatisfy { access(dir + "/" + $0, X_OK) == 0 }
        }
    }()

    package static var available: Bool { binDirectory != nil }
    package static let unavailableMessage =
        "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin): apt-get install postgresql"

    package let root: String
    package let port: Int
    package let superuser = "fleetadmin"
    private var running = false
    /// With openssl installed the server also speaks TLS, with a certificate for "localhost"
    /// (only: not 127.0.0.1) signed by a throw-away CA: `caCertificate`. `otherCA` signed
    /// nothing the server has (for a chain that must not verify).
    package private(set) var tls = false
    package var caCertificate: String { root + "/ca.crt" }
    package var otherCA: String { root + "/other/ca.crt" }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package init() throws {
        guard let bin = Self.binDirectory else { throw Failure(description: Self.unavailableMessage) }
        root = DeckFixtures.temporaryDirectory("pg")
        port = Self.freePort()
        if geteuid() == 0 {
            guard let nobody = getpwnam("nobody") else {
                throw Failure(description: "no user 'nobody' to run postgres as")
            }
            chown(root, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
        }
        chmod(root, 0o755)
        let status = Self.runAsServerUser(
            [
                bin + "/initdb", "-D", root + "/data", "-U", superuser, "--auth-local=trust",
                "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C",
            ], log: root + "/initdb.log")
        guard status == 0 else {
            throw Failure(description: "initdb failed (\(status)); see \(root)/initdb.log")
        }
        tls = makeCertificates()
        try start()
        Self.stopAtExit(root)
    }

    /// Servers still running when the test process ends (a suite's shared server is never
    /// released): stopped by an atexit handler, so no postgres outlives the tests.
    nonisolated(unsafe) private static var running: Set<String> = []
    nonisolated(unsafe) private static var handlerInstalled = false

    private static func stopAtExit(_ root: String) {
        running.insert(root)
        guard !handlerInstalled else { return }
        handlerInstalled = true
        atexit {
            guard let bin = PostgresTestServer.binDirectory else { return }
            for root in PostgresTestServer.running {
                _ = PostgresTestServer.runAsServerUser(
                    [bin + "/pg_ctl", "-D", root + "/data", "-m", "immediate", "-w", "stop"], log: "/dev/null")
                DeckFixtures.removeTree(root)
            }
        }
    }

    deinit {
        stop()
        Self.running.remove(root)
        DeckFixtures.removeTree(root)
    }

    /// The admin's connection: the Unix socket in `root`, trusted.
    package var adminURL: String { "postgresql://\(superuser)@/postgres?host=\(root)&port=\(port)" }

    package func adminURL(database: String) -> String {
        "postgresql://\(superuser)@/\(database)?host=\(root)&port=\(port)"
    }

    /// A password login over TCP, the way a kiosk connects.
    package func tcpURL(user: String, database: String) -> String {
        "postgresql://\(FleetAdmin.percentEncoded(user))@127.0.0.1:\(port)/\(database)"
    }

    /// Starts the server (again) and waits until it accepts connections.
    package func start() throws {
        guard let bin = Self.binDirectory else { return }
        var options = "-k \(root) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60"
        if tls { options += " -c ssl=on -c ssl_cert_file=\(root)/server.crt -c ssl_key_file=\(root)/server.key" }
        let status = Self.runAsServerUser(
            [
                bin + "/pg_ctl", "-D", root + "/data", "-l", root + "/server.log", "-o", options, "-w", "-t", "30",
                "start",
            ],
            log: root + "/pg_ctl.log")
        guard status == 0 else { throw Failure(description: "pg_ctl start failed (\(status)); see \(root)/server.log") }
        running = true
    }

    /// Stops the server; `immediate` is a crash as far as clients can tell (no goodbye).
    package func stop(immediate: Bool = false) {
        guard running, let bin = Self.binDirectory else { return }
        _ = Self.runAsServerUser(
            [bin + "/pg_ctl", "-D", root + "/data", "-m", immediate ? "immediate" : "fast", "-w", "stop"],
            log: root + "/pg_ctl.log")
        running = false
    }

    /// A new empty database on this server.
    package func createDatabase(_ name: String) throws {
        let db = try PostgresConnection(conninfo: adminURL)
        try db.execute("CREATE DATABASE \(try db.quoteIdentifier(name))")
    }

    /// A connection as the superuser to `database`.
    package func admin(_ database: String) throws -> PostgresConnection {
        try PostgresConnection(conninfo: adminURL(database: database))
    }

    /// A TCP port nothing listens on right now (bind to port 0, read it, close).
    package static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                bind(fd, p, length)
                return getsockname(fd, p, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A CA, a server certificate for DNS:localhost signed by it, and an unrelated second CA,
    /// made by deploy/fleet-certs.sh (the recipe docs/FLEET.md gives operators) as the
    /// server's user (the key must be its own, mode 0600).
    private func makeCertificates() -> Bool {
        guard access("/usr/bin/openssl", X_OK) == 0,
            let script = try? FileIO.readAll(DeckFixtures.packageRoot + "/deploy/fleet-certs.sh", limit: 1 << 16)
        else { return false }
        let log = root + "/openssl.log"
        DeckFixtures.write(String(decoding: script, as: UTF8.self), to: root + "/fleet-certs.sh")
        let other = root + "/other"
        mkdir(other, 0o755)
        if geteuid() == 0, let nobody = getpwnam("nobody") {
            chown(other, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
        }
        return Self.runAsServerUser(["/bin/sh", "fleet-certs.sh", root, "localhost"], log: log, directory: root) == 0
            && Self.runAsServerUser(["/bin/sh", "fleet-certs.sh", other, "other.invalid"], log: log, directory: root)
                == 0
    }

    /// Runs `argv` to completion (as `nobody` when we are root), output appended to `log`.
    package static func runAsServerUser(_ argv: [String], log: String, directory: String? = nil) -> Int32 {
        var full =
            geteuid() == 0
            ? ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + argv : argv
        if let directory { full = ["/usr/bin/env", "-C", directory] + full }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cargv = full.map { strdup($0) } + [nil]
        defer { for p in cargv { free(p) } }
        var pid = pid_t()
        guard posix_spawn(&pid, full[0], &actions, nil, cargv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }
}
