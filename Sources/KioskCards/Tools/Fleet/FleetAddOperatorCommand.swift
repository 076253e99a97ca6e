import Glibc
import KioskFleet
import KioskSystem

/// `KioskCards fleet add-operator NAME --postgres URL`: a login role for a person or a report,
/// and a ready connection for it (a pg_service.conf entry and a .pgpass line).
enum FleetAddOperatorCommand {
    struct Options: Equatable {
        var url = ""
        var name = ""
        var credentials: String?
        var operatorHost: String?
        var service = "kioskfleet"
    }

    static let table = OptionTable<Options>(
        command: "fleet add-operator", summary: "make an operator's login role (reads everything, publishes decks)",
        details: """
            Creates role NAME (a member of fleet_operator: reads every kiosk's rows, manages decks
            and kiosks, drops nothing) with a new random password, and prints a ready connection:
            a pg_service.conf entry (host, port, database, role and the TLS settings --postgres
            used) and a .pgpass line with the password, for ~/.pg_service.conf and ~/.pgpass
            (mode 0600) or the files PGSERVICEFILE and PGPASSFILE name. Every fleet command and
            'report' then take '--postgres service=SERVICE', with no password in a URL or on the
            command line. With --credentials FILE the password goes into FILE (mode 0600)
            instead, for '--credentials FILE'. Running it again replaces the password.
            Exit status: 0 done, 1 server error, 2 usage.
            """,
        options: [
            FleetCommand.postgresOption(\.url),
            CommandOption(
                name: "credentials", value: "FILE",
                help: "write the password to FILE (mode 0600, a new file) instead of printing a .pgpass line"
            ) { o, v in
                guard !v.isEmpty else { return "a file name" }
                o.credentials = v
                return nil
            },
            CommandOption.text(
                name: "operator-host", value: "HOST",
                help: "the server's name as the operator reaches it (default: --postgres's host)",
                expected: "a host name"
            ) { $0.operatorHost = $1 },
            CommandOption(name: "service", value: "NAME", help: "the pg_service.conf entry's name (default kioskfleet)")
            {
                o, v in
                guard !v.isEmpty, v.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
                else { return "letters, digits, '-', '_' or '.'" }
                o.service = v
                return nil
            },
        ],
        positional: CommandPositional(name: "NAME", help: "the role name", count: .one) { o, v in
            guard !v.isEmpty, v.utf8.count <= 63, !v.hasPrefix("pg_") else { return "1 to 63 bytes, not pg_…" }
            o.name = v
            return nil
        },
        validate: { FleetCommand.requirePostgres($0.url) })

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        if let path = options.credentials, access(path, F_OK) == 0 {
            Log.error("fleet add-operator: \(path) already exists; remove it or choose another --credentials file")
            return 2
        }
        guard let db = FleetCommand.connect(options.url, command: "add-operator") else { return 1 }
        let password = FleetAdmin.randomPassword()
        do {
            let outcome = try FleetAdmin.addOperator(options.name, password: password, on: db)
            Log.info(
                "fleet add-operator: \(outcome == .created ? "created" : "replaced the password of") role \(options.name)"
            )
        } catch {
            Log.error("fleet add-operator: \(error.operatorDescription)")
            return 1
        }
        var parameters = db.resolvedParameters
        if let host = options.operatorHost { parameters["host"] = host }
        if let path = options.credentials {
            if let problem = FleetAddKioskCommand.writeSecret(password + "\n", to: path) {
                Log.error("fleet add-operator: \(problem); the role was made — run again to make a new password")
                return 1
            }
        }
        print(
            connectionText(
                role: options.name, service: options.service, parameters: parameters,
                password: options.credentials == nil ? password : nil, credentialsPath: options.credentials),
            terminator: "")
        return 0
    }

    /// The pg_service.conf entry, the .pgpass line (when `password` is given) and the command
    /// that uses them.
    static func connectionText(
        role: String, service: String, parameters: [String: String], password: String?, credentialsPath: String?
    ) -> String {
        let host = parameters["host"] ?? "localhost"
        let port = parameters["port"] ?? "5432"
        let database = parameters["dbname"] ?? role
        var out = "# ~/.pg_service.conf (or the file PGSERVICEFILE names)\n[\(service)]\n"
        out += "host=\(host)\nport=\(port)\ndbname=\(database)\nuser=\(role)\n"
        for key in ["sslmode", "sslrootcert", "sslcert", "sslkey"] {
            if let value = parameters[key], !(key == "sslmode" && value == "prefer") { out += "\(key)=\(value)\n" }
        }
        if let password {
            // A Unix-socket connection matches "localhost" in .pgpass.
            let passHost = host.hasPrefix("/") ? "localhost" : host
            out += "# ~/.pgpass (mode 0600, or the file PGPASSFILE names)\n"
            out += [passHost, port, database, role, password].map(pgpassField).joined(separator: ":") + "\n"
            out += "# then: KioskCards fleet status --postgres service=\(service)\n"
        } else if let credentialsPath {
            out += "# then: KioskCards fleet status --postgres service=\(service) --credentials \(credentialsPath)\n"
        }
        return out
    }

    /// A .pgpass field: ':' and '\' escaped with a backslash.
    static func pgpassField(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == ":" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
