import KioskFleet
import KioskSystem

/// `KioskCards fleet ACTION …`: the central PostgreSQL for many kiosks (docs/FLEET.md).
/// Each action has its own option table (`fleet init --help`).
enum FleetCommand {
    struct Action: Sendable {
        var name: String
        var summary: String
        var run: @Sendable ([String]) -> Int32
    }

    static let actions: [Action] = [
        Action(name: "init", summary: FleetInitCommand.table.summary) { FleetInitCommand.run(arguments: $0) },
        Action(name: "add-kiosk", summary: FleetAddKioskCommand.table.summary) {
            FleetAddKioskCommand.run(arguments: $0)
        },
        Action(name: "add-operator", summary: FleetAddOperatorCommand.table.summary) {
            FleetAddOperatorCommand.run(arguments: $0)
        },
        Action(name: "publish", summary: FleetPublishCommand.table.summary) {
            FleetPublishCommand.run(arguments: $0)
        },
        Action(name: "rollout", summary: FleetRolloutCommand.table.summary) {
            FleetRolloutCommand.run(arguments: $0)
        },
        Action(name: "screenshot", summary: FleetScreenshotCommand.table.summary) {
            FleetScreenshotCommand.run(arguments: $0)
        },
        Action(name: "sync", summary: FleetSyncCommand.table.summary) { FleetSyncCommand.run(arguments: $0) },
        Action(name: "status", summary: FleetStatusCommand.table.summary) { FleetStatusCommand.run(arguments: $0) },
    ]

    static var actionList: String {
        actions.map { a in "  " + a.name + String(repeating: " ", count: max(1, 14 - a.name.count)) + a.summary }
            .joined(separator: "\n")
    }

    static let table = OptionTable<String>(
        command: "fleet", summary: "many kiosks, one PostgreSQL: set it up, sync decisions, see each kiosk's health",
        usage: ["fleet ACTION [options]", "fleet ACTION --help"],
        details: """
            Actions:
            \(actionList)

            Server setup, roles, TLS and backups: docs/FLEET.md.
            """,
        options: [],
        positional: CommandPositional(
            name: "ACTION", help: "init, add-kiosk, add-operator, publish, rollout, screenshot, sync or status",
            count: .one
        ) { v, a in
            guard actions.contains(where: { $0.name == a }) else {
                return "one of " + actions.map(\.name).joined(separator: ", ")
            }
            v = a
            return nil
        })

    static func run(arguments: [String]) -> Int32 {
        if let first = arguments.first, let action = actions.first(where: { $0.name == first }) {
            return action.run(Array(arguments.dropFirst()))
        }
        switch table.resolve(arguments, from: "") {
        case .success: return 2  // unreachable: an action name is dispatched above
        case .failure(let status): return status.code
        }
    }

    /// The --postgres option every server-side action takes.
    static func postgresOption<Values>(_ path: WritableKeyPath<Values, String> & Sendable) -> CommandOption<Values> {
        CommandOption(
            name: "postgres", value: "URL",
            help: "the fleet database as an operator or owner: postgresql://USER@HOST/DB?sslmode=verify-full"
        ) { o, v in
            guard !v.isEmpty else { return "a postgresql:// URL or key=value conninfo" }
            o[keyPath: path] = v
            return nil
        }
    }

    /// "--postgres is required" for the tables' `validate`.
    static func requirePostgres(_ url: String) -> String? {
        url.isEmpty ? "--postgres URL is required (the fleet database, e.g. postgresql://postgres@/kioskfleet)" : nil
    }

    /// The --credentials option of every fleet action: a password file (its first line, mode
    /// 0600), so no password goes into a URL or the command line.
    static func credentialsOption<Values>(_ path: WritableKeyPath<Values, String?> & Sendable) -> CommandOption<Values>
    {
        CommandOption(
            name: "credentials", value: "FILE",
            help: "read the role's password from FILE (first line); else ~/.pgpass or pg_service.conf"
        ) { o, v in
            guard !v.isEmpty else { return "a password file" }
            o[keyPath: path] = v
            return nil
        }
    }

    /// Why `conninfo` cannot be what the operator meant, nil: it looks like a connection. libpq
    /// takes any other text as a database name and then fails as if the server were down.
    static func conninfoTypo(_ conninfo: String) -> String? {
        let lower = conninfo.lowercased()
        if lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://") || conninfo.contains("=") {
            return nil
        }
        if let scheme = lower.split(separator: ":", maxSplits: 1).first, lower.contains("://") {
            return "'\(Escape.terminal(String(scheme)))://' is not a PostgreSQL URL scheme; it starts postgresql://"
        }
        return "neither a postgresql:// URL nor key=value conninfo"
    }

    /// Connects for an operator command with the password from `credentials` (if given); logs
    /// the classified failure with the operator's fix.
    static func connect(_ url: String, credentials: String? = nil, command: String) -> PostgresConnection? {
        do throws(FleetError) {
            if let typo = conninfoTypo(url) { throw FleetError(kind: .badURL, message: typo) }
            _ = try PostgresConnection.parse(conninfo: url)
            let password = try readPassword(credentials)
            return try PostgresConnection(
                conninfo: url, password: password, applicationName: "KioskCards fleet \(command)")
        } catch {
            Log.error("fleet \(command): \(error.operatorDescription)")
            return nil
        }
    }

    /// An error of an operator command with the operator's fix.
    static func operatorAdvice(_ error: any Error) -> String {
        (error as? FleetError)?.operatorDescription ?? "\(error)"
    }

    /// The first line of an operator's password file (nil: none given).
    static func readPassword(_ path: String?) throws(FleetError) -> String? {
        guard let path else { return nil }
        do {
            let bytes = try FileIO.readAll(path, limit: 4096, what: "the password file")
            let text = String(decoding: bytes, as: UTF8.self)
            return String(text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).first ?? "")
        } catch {
            throw FleetError(
                kind: .authenticationFailed,
                message: "--credentials \(path): \(error.reason) — the file 'fleet add-operator --credentials' wrote")
        }
    }
}
