import KioskFleet
import KioskSystem

/// `KioskCards fleet add-operator NAME --postgres URL`: a login role for a person or a report.
enum FleetAddOperatorCommand {
    struct Options: Equatable {
        var url = ""
        var name = ""
    }

    static let table = OptionTable<Options>(
        command: "fleet add-operator", summary: "make an operator's login role (reads everything, publishes decks)",
        details: """
            Creates role NAME (a member of fleet_operator: reads every kiosk's rows, manages decks
            and kiosks, drops nothing) with a new random password, printed once on stdout.
            Running it again replaces the password. Exit status: 0 done, 1 server error, 2 usage.
            """,
        options: [FleetCommand.postgresOption(\.url)],
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
        guard let db = FleetCommand.connect(options.url, command: "add-operator") else { return 1 }
        let password = FleetAdmin.randomPassword()
        do {
            let outcome = try FleetAdmin.addOperator(options.name, password: password, on: db)
            Log.info(
                "fleet add-operator: \(outcome == .created ? "created" : "replaced the password of") role \(options.name)"
            )
            print("password = \(password)")
            return 0
        } catch {
            Log.error("fleet add-operator: \(error)")
            return 1
        }
    }
}
