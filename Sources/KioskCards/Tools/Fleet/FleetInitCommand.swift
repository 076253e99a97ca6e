import KioskFleet
import KioskSystem

/// `KioskCards fleet init --postgres URL`: creates or migrates the central schema.
enum FleetInitCommand {
    struct Options: Equatable {
        var url = ""
        var credentials: String?
    }

    static let table = OptionTable<Options>(
        command: "fleet init", summary: "create the central schema, or migrate it to this version",
        details: """
            Creates schema 'fleet' (decisions, heartbeats, kiosks, decks), the group roles
            fleet_kiosk and fleet_operator, and row-level security; on an existing schema applies
            only the missing migrations. Safe to run again: it says what it did.
            Exit status: 0 done, 1 the server refused or is unreachable, 2 usage.
            """,
        options: [FleetCommand.postgresOption(\.url), FleetCommand.credentialsOption(\.credentials)],
        validate: { FleetCommand.requirePostgres($0.url) })

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        guard let db = FleetCommand.connect(options.url, credentials: options.credentials, command: "init") else {
            return 1
        }
        do {
            let report = try FleetSchema.migrate(db)
            if report.applied.isEmpty {
                print("fleet init: schema is up to date (version \(report.to)); nothing to do")
            } else {
                print(
                    report.from == 0
                        ? "fleet init: created the fleet schema (version \(report.to))"
                        : "fleet init: migrated the fleet schema from version \(report.from) to \(report.to)")
                for (n, d) in report.applied.enumerated() { print("  \(report.from + n + 1): \(d)") }
            }
            return 0
        } catch {
            Log.error("fleet init: \(error.operatorDescription)")
            return 1
        }
    }
}
