import Glibc

/// Operator actions on the central server: kiosk and operator roles, and the fleet's state.
package enum FleetAdmin {
    /// The login role a kiosk uses.
    package static func roleName(kioskID: String) -> String { "kiosk_" + kioskID }

    /// Whether `id` can be a kiosk id and a role name (PostgreSQL names are at most 63 bytes).
    package static func validKioskID(_ id: String) -> Bool {
        !id.isEmpty && roleName(kioskID: id).utf8.count <= 63
            && id.unicodeScalars.allSatisfy {
                ($0.value < 128 && ($0.properties.isAlphabetic || $0.properties.numericType != nil))
                    || $0 == "-" || $0 == "_" || $0 == "."
            }
    }

    /// What `addKiosk` did.
    package enum RoleOutcome: String, Hashable, Sendable {
        case created
        /// The role existed: its password was replaced (the old credentials stop working).
        case passwordReplaced
    }

    /// Creates (or re-keys) the kiosk's login role as a member of `fleet_kiosk`, limits it
    /// (`fleet.limit_kiosk_role`) and registers it in `fleet.kiosks`, in one transaction. The
    /// password is hashed here (SCRAM) so the clear text never reaches the server's log.
    package static func addKiosk(
        _ id: String, group: String?, password: String, on db: PostgresConnection
    ) throws(FleetError) -> RoleOutcome {
        let role = roleName(kioskID: id)
        let quoted = try db.quoteIdentifier(role)
        let secret = try db.quoteLiteral(try db.encryptPassword(password, user: role))
        return try db.transaction { db in
            let exists = try db.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]).count > 0
            if exists {
                try db.execute("ALTER ROLE \(quoted) LOGIN PASSWORD \(secret)")
            } else {
                try db.execute("CREATE ROLE \(quoted) LOGIN PASSWORD \(secret)")
            }
            try db.execute("GRANT fleet_kiosk TO \(quoted)")
            // Connection limit, timeouts (FleetSchema's kiosk limits), set on the role itself.
            try db.execute("SELECT fleet.limit_kiosk_role($1)", [role])
            try db.execute(
                """
                INSERT INTO fleet.kiosks (kiosk_id, role_name, group_name) VALUES ($1, $2, $3)
                ON CONFLICT (kiosk_id) DO UPDATE SET role_name = excluded.role_name,
                    group_name = coalesce(excluded.group_name, fleet.kiosks.group_name)
                """, [id, role, group])
            return exists ? .passwordReplaced : .created
        }
    }

    /// Creates (or re-keys) an operator's login role, a member of `fleet_operator`.
    package static func addOperator(_ name: String, password: String, on db: PostgresConnection) throws(FleetError)
        -> RoleOutcome
    {
        let quoted = try db.quoteIdentifier(name)
        let secret = try db.quoteLiteral(try db.encryptPassword(password, user: name))
        return try db.transaction { db in
            let exists = try db.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", [name]).count > 0
            try db.execute("\(exists ? "ALTER" : "CREATE") ROLE \(quoted) LOGIN PASSWORD \(secret)")
            try db.execute("GRANT fleet_operator TO \(quoted)")
            return exists ? .passwordReplaced : .created
        }
    }

    /// A random password: 24 bytes from the system generator (getrandom(2)) as URL-safe
    /// base64 (no characters that need quoting in a URL or a conninfo).
    package static func randomPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var out = ""
        var i = 0
        while i + 2 < bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int((v >> UInt32(shift)) & 63)]) }
            i += 3
        }
        return out
    }

    /// Where a kiosk keeps the CA certificate that signed the server's (`fleet add-kiosk --kiosk-ca`).
    package static let defaultKioskCAFile = "/etc/kioskcards/fleet-ca.crt"

    /// The URL a kiosk should use: the operator's connection (host, port, database as libpq
    /// resolved them) with the kiosk's role as user and no password. `hostOverride` replaces
    /// the host (the operator may reach the server by another name). Over a network it always
    /// verifies the server: `sslmode=verify-full` with `sslrootcert=caFile`, the CA's path on
    /// the kiosk; a Unix socket or loopback host (FleetTLS.isLocal) keeps the operator's settings.
    package static func kioskURL(
        for role: String, from parameters: [String: String], hostOverride: String?,
        caFile: String = defaultKioskCAFile
    ) -> String {
        let host = hostOverride ?? parameters["host"] ?? "localhost"
        let port = parameters["port"] ?? "5432"
        let database = parameters["dbname"] ?? "postgres"
        var query: [(String, String)] = []
        var authority = ""
        if host.hasPrefix("/") {
            query.append(("host", host))
        } else {
            authority = host.contains(":") ? "[\(host)]" : host
        }
        query.append(("port", port))
        if FleetTLS.isLocal(host) {
            for key in ["sslmode", "sslrootcert"] {
                if let v = parameters[key], !(key == "sslmode" && v == "prefer") { query.append((key, v)) }
            }
        } else {
            query += [("sslmode", "verify-full"), ("sslrootcert", caFile)]
        }
        let q = query.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&")
        return "postgresql://\(percentEncoded(role))@\(authority)/\(percentEncoded(database))?\(q)"
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters.
    package static func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            let c = Unicode.Scalar(b)
            if (b < 128 && (c.properties.isAlphabetic || c.properties.numericType != nil)) || "-._~".utf8.contains(b) {
                out.unicodeScalars.append(c)
            } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(b >> 4)])
                out.unicodeScalars.append(hex[Int(b & 15)])
            }
        }
        return out
    }
}
