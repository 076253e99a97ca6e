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
            name: "ACTION", help: "init, add-kiosk, add-operator, publish, sync or status", count: .one
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

    /// Connects for an operator command; logs the classified failure.
    static func connect(_ url: String, command: String) -> PostgresConnection? {
        do {
            return try PostgresConnection(conninfo: url, applicationName: "KioskCards fleet \(command)")
        } catch {
            Log.error("fleet \(command): \(error)")
            return nil
        }
    }
}
