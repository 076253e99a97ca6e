import KioskSystem

/// A failure talking to the central PostgreSQL, classified so the kiosk can say what to do.
package struct FleetError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Kind: String, Hashable, Sendable {
        /// No route, refused, timed out, name not resolved: keep working offline and retry.
        case unreachable
        /// Wrong password, unknown role, no pg_hba.conf entry: retrying will not help.
        case authenticationFailed
        /// The server's certificate did not verify (sslmode=verify-full / verify-ca).
        case tlsVerificationFailed
        /// The central schema is older than this KioskCards needs.
        case schemaTooOld
        /// The central schema no longer accepts this KioskCards' payload version.
        case schemaTooNew
        /// The connection broke during a query (server restarted, backend terminated, network cut).
        case connectionLost
        /// The role may not do this (row-level security, missing grant).
        case permissionDenied
        /// A bad conninfo / URL.
        case badURL
        /// Any other SQL error.
        case query
        /// libpq (loaded when the first connection is made) is not installed or too old: keep
        /// working offline and retry, as for an unreachable server.
        case clientLibraryMissing
    }

    /// SQLSTATE program_limit_exceeded, as `fleet.limit_kiosk_insert` raises it for a batch
    /// over `fleet.kiosk_limits`.
    package static let batchTooLarge = "54000"

    package var kind: Kind
    /// libpq's or the server's own message.
    package var message: String
    /// The five-character SQLSTATE when the server sent one.
    package var sqlState: String?

    package init(kind: Kind, message: String, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    /// What the operator should do, for the log and the command line.
    package var fix: String {
        switch kind {
        case .unreachable:
            "the fleet server is unreachable — the kiosk keeps its decisions and retries; check the network and fleet-url"
        case .authenticationFailed:
            "authentication failed — check the role and password (fleet-credentials); 'KioskCards fleet add-kiosk ID' makes new ones"
        case .tlsVerificationFailed:
            "TLS verification failed — the server certificate does not match the host name or the CA in sslrootcert"
        case .schemaTooOld:
            "the central schema is too old for this KioskCards — run 'KioskCards fleet init --postgres URL' with this version"
        case .schemaTooNew:
            "the central schema no longer accepts this KioskCards' data — upgrade KioskCards on this kiosk"
        case .connectionLost: "the connection to the fleet server was lost — retrying"
        case .permissionDenied: "permission denied — this role may not do that (row-level security or a missing grant)"
        case .badURL: "bad fleet URL — use postgresql://USER@HOST:PORT/DB?sslmode=verify-full or key=value pairs"
        case .query: "the fleet server refused the query"
        case .clientLibraryMissing:
            "the PostgreSQL client library cannot be loaded — install Debian's libpq5 (apt install libpq5); "
                + "the kiosk keeps its decisions and retries"
        }
    }

    /// What an operator at `fleet status`, `report --postgres` or `fleet publish` should do:
    /// the same failure seen from the operator's side, not the kiosk's.
    package var operatorFix: String {
        switch kind {
        case .unreachable:
            "the fleet server is unreachable — check the host and port in --postgres, that PostgreSQL listens there "
                + "(listen_addresses) and that no firewall is in the way"
        case .authenticationFailed:
            "authentication failed — check the role and its password (--credentials FILE, ~/.pgpass or a "
                + "pg_service.conf entry: 'KioskCards fleet add-operator NAME' prints one) and that pg_hba.conf "
                + "lets this role in from this host"
        case .schemaTooNew:
            "the central schema is newer than this KioskCards — use the KioskCards that ran 'fleet init' last"
        case .permissionDenied:
            "permission denied — status, report and publish need a member of fleet_operator "
                + "('KioskCards fleet add-operator NAME'); init and add-kiosk need the database's owner"
        case .badURL:
            "--postgres looks mistyped — use postgresql://USER@HOST:PORT/DB?sslmode=verify-full, "
                + "key=value pairs, or service=NAME for a pg_service.conf entry"
        case .connectionLost: "the connection to the fleet server was lost — run the command again"
        case .clientLibraryMissing:
            "the PostgreSQL client library cannot be loaded — install Debian's libpq5 (apt install libpq5)"
        case .tlsVerificationFailed, .schemaTooOld, .query: fix
        }
    }

    /// The failure with the operator's fix (`operatorFix`).
    package var operatorDescription: String {
        let text = Escape.terminal(message.trimmingTrailingNewlines)
        return "\(operatorFix) [\(sqlState.map { "SQLSTATE \($0): " } ?? "")\(text)]"
    }

    package var description: String {
        // The server's message may quote a kiosk's text: its control characters shown visibly.
        let text = Escape.terminal(message.trimmingTrailingNewlines)
        return "\(fix) [\(sqlState.map { "SQLSTATE \($0): " } ?? "")\(text)]"
    }

    /// Classifies a libpq connection failure by its message (libpq reports no code for these).
    package static func connectFailure(_ message: String) -> FleetError {
        let m = message.lowercased()
        let kind: Kind
        if m.contains("password authentication failed") || m.contains("no pg_hba.conf entry")
            || m.contains("role") && m.contains("does not exist") || m.contains("authentication failed")
            || m.contains("no password supplied") || m.contains("password is required")
        {
            kind = .authenticationFailed
        } else if m.contains("certificate") || m.contains("ssl error") || m.contains("tls")
            || m.contains("server does not support ssl") || m.contains("sslmode")
        {
            kind = .tlsVerificationFailed
        } else if m.contains("invalid uri") || m.contains("invalid connection option")
            || m.contains("missing \"=\"") || m.contains("invalid integer value") || m.contains("unterminated quoted")
        {
            kind = .badURL
        } else {
            kind = .unreachable
        }
        return FleetError(kind: kind, message: message)
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == "\r" || last == " " { s = s.dropLast() }
        return String(s)
    }
}
