/// Whether a kiosk's connection to the fleet server proves who the server is.
///
/// Only `sslmode=verify-full` does: the certificate chain to the CA in `sslrootcert` *and* the
/// host name. Anything less (no sslmode, `disable`, `allow`, `prefer`, `require`, `verify-ca`)
/// lets whoever sits on the lobby network pose as the server and push decks to the screen. A
/// Unix socket or a loopback address never leaves the machine, so there is no network to
/// attack and nothing to verify: those count as local.
package enum FleetTLS {
    package enum Verdict: Hashable, Sendable {
        /// `sslmode=verify-full`.
        case verified
        /// Every host is a Unix socket directory or a loopback address.
        case local
        /// The connection would not verify the server; the text says why (`sslmode=require`).
        case unverified(String)
    }

    /// The verdict for conninfo `parameters` as libpq parses them (`PQconninfoParse`: host,
    /// hostaddr, sslmode…); `environment`: libpq's environment variables, its defaults for
    /// what the conninfo leaves out (`PGSSLMODE`, `PGHOST`, `PGHOSTADDR`).
    package static func verdict(_ parameters: [String: String], environment: [String: String] = [:]) -> Verdict {
        let mode = parameters["sslmode"] ?? environment["PGSSLMODE"] ?? "prefer"
        if mode == "verify-full" { return .verified }
        // libpq takes comma-separated host lists; hostaddr, when given, is where it connects;
        // with neither, the default Unix socket.
        let target =
            parameters["hostaddr"] ?? parameters["host"] ?? environment["PGHOSTADDR"] ?? environment["PGHOST"]
            ?? "/var/run/postgresql"
        let hosts = target.split(separator: ",").map(String.init)
        if !hosts.isEmpty && hosts.allSatisfy(isLocal) { return .local }
        return .unverified("sslmode=\(mode)")
    }

    /// A Unix socket directory (a path) or a loopback address: traffic that never leaves the
    /// machine. A name such as "localhost" is not: it is whatever the resolver says.
    package static func isLocal(_ host: String) -> Bool {
        if host.hasPrefix("/") || host.hasPrefix("@") { return true }
        if host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// What a kiosk says when its fleet-url does not verify the server and its config does not
    /// accept that.
    package static func refusal(_ reason: String) -> String {
        "fleet-url does not verify the fleet server (\(reason)): anyone on the kiosk's network could pose as it and "
            + "send decks to this screen — add sslmode=verify-full&sslrootcert=/etc/kioskcards/fleet-ca.crt to "
            + "fleet-url (fleet add-kiosk prints it; docs/FLEET.md makes the CA), or accept the risk with "
            + "'fleet-tls = insecure' in kiosk.conf"
    }

    /// The warning a kiosk logs and sends in its heartbeat while it runs with `fleet-tls = insecure`.
    package static func insecureWarning(_ reason: String) -> String {
        "fleet-tls = insecure: this kiosk does not verify the fleet server (\(reason)); anyone on its network could "
            + "pose as the server — use sslmode=verify-full (docs/FLEET.md)"
    }
}
