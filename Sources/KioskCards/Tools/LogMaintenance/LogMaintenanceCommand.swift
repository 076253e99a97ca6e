import KioskStore
import KioskSystem

/// `KioskCards log-maintenance "text" [--out-of-order | --in-service] [--data DIR] [--kiosk-id ID]`:
/// records a maintenance note in the decisions database (table `maintenance`).
enum LogMaintenanceCommand {
    struct Options: Equatable {
        var dataDirectory = "/var/lib/kioskcards"
        var note: String?
        var state = MaintenanceLog.State.note
        var kioskID: String?
        var stateGiven = 0
    }

    static let table = OptionTable<Options>(
        command: "log-maintenance", summary: "record an out-of-order / in-service note in the maintenance log",
        details: """
            Appends one entry to the maintenance log in the kiosk's decisions database. With
            --out-of-order the kiosk counts as out of service from now until an entry with
            --in-service; without either, the entry is a plain note. Safe while the kiosk runs.
            """,
        options: [
            CommandOption.text(
                name: "data", value: "DIR", help: "the kiosk's data directory (default /var/lib/kioskcards)",
                expected: "a directory"
            ) { $0.dataDirectory = $1 },
            .flag("out-of-order", help: "the kiosk is out of order from now") { o in
                o.state = .outOfOrder
                o.stateGiven += 1
            },
            .flag("in-service", help: "the kiosk is back in service from now") { o in
                o.state = .inService
                o.stateGiven += 1
            },
            CommandOption.text(
                name: "kiosk-id", value: "ID", help: "the kiosk's id (default: the host name)", expected: "an id"
            ) { $0.kioskID = $1 },
        ],
        positional: CommandPositional(
            name: "TEXT", help: "the note, e.g. \"glass cracked, panel ordered\"", count: .one
        ) { o, v in
            guard !v.allSatisfy(\.isWhitespace) else { return "a note that is not empty" }
            guard v.count <= 2000 else { return "a note of at most 2000 characters" }
            o.note = v
            return nil
        })

    static func run(arguments: [String]) -> Int32 {
        table.run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        guard options.stateGiven <= 1 else {
            Log.error(
                "log-maintenance: give either --out-of-order or --in-service, not both."
                    + " See 'KioskCards log-maintenance --help'.")
            return 2
        }
        let entry = MaintenanceLog.Entry(
            kioskID: options.kioskID ?? KioskConfig.hostName(), wallTimeMs: WallClock.nowMilliseconds(),
            state: options.state, note: options.note ?? "")
        do {
            try MaintenanceLog.append(entry, dataDirectory: options.dataDirectory)
        } catch {
            Log.error("log-maintenance: \(error)")
            return 1
        }
        Log.info("log-maintenance: recorded \(entry.state.rawValue) for kiosk '\(entry.kioskID)'")
        return 0
    }
}
