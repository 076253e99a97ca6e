import Glibc
import KioskFleet
import KioskStore
import KioskSystem

/// `KioskCards fleet sync --data DIR [--config FILE] [--once]`: the kiosk's sync worker
/// without the kiosk (a kiosk whose app is down, a rescued SD card, tests).
enum FleetSyncCommand {
    struct Options: Equatable {
        var dataDirectory: String?
        var configPath: String?
        var url: String?
        var credentials: String?
        var once = false
        var batch = FleetUpload.maxBatch
    }

    static let table = OptionTable<Options>(
        command: "fleet sync", summary: "send a data directory's unsent decisions to the fleet server",
        details: """
            Runs the same sync worker as the kiosk: applies the deck the server assigns (downloaded
            into DIR/fleet-decks, every sha256 and the deck checks verified before the switch),
            sends decisions in batches of at most \(FleetUpload.maxBatch) decisions, one
            transaction each, the local cursor moved only after COMMIT, so it can be killed at any
            moment and run again; then a heartbeat marked as a rescue sync: its backlog is what
            stayed unsent, and it never makes the kiosk count as online in 'fleet status'.
            fleet-url and fleet-credentials come from the config file (default
            \(KioskConfig.defaultPath)) unless given here. Without --once it keeps
            running (retrying with backoff, heartbeats included) until SIGTERM or SIGINT.
            Exit status: 0 all sent (--once) or stopped by a signal, 1 the server or the database
            failed or the assigned deck was refused (--once), 2 usage or configuration.
            """,
        options: [
            CommandOption.text(
                name: "data", value: "DIR", help: "the data directory (default: the config's 'data')",
                expected: "a directory"
            ) { $0.dataDirectory = $1 },
            CommandOption(
                name: "config", value: "FILE", help: "kiosk.conf to read (default \(KioskConfig.defaultPath))"
            ) {
                o, v in
                o.configPath = v
                return nil
            },
            CommandOption.text(
                name: "fleet-url", value: "URL", help: "the fleet server (overrides the config's fleet-url)",
                expected: "a postgresql:// URL"
            ) { $0.url = $1 },
            CommandOption(
                name: "fleet-credentials", value: "FILE",
                help: "password file (overrides the config's fleet-credentials)"
            ) { o, v in
                o.credentials = v
                return nil
            },
            CommandOption(
                name: "credentials", value: "FILE",
                help: "the same as --fleet-credentials (as every fleet action takes)"
            ) { o, v in
                o.credentials = v
                return nil
            },
            .flag("once", help: "send what is unsent now, then exit") { $0.once = true },
            CommandOption(
                name: "batch", value: "N", help: "decisions per transaction (default and most \(FleetUpload.maxBatch))",
                hidden: true
            ) { o, v in
                guard let n = Int(v), n >= 1, n <= FleetUpload.maxBatch else {
                    return "a number from 1 to \(FleetUpload.maxBatch)"
                }
                o.batch = n
                return nil
            },
        ])

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        var config = KioskConfig()
        let path = options.configPath ?? KioskConfig.defaultPath
        switch KioskConfig.readConfigFile(path) {
        case .text(let text):
            if let error = KioskConfig.apply(file: text, name: path, to: &config) {
                Log.error("fleet sync: \(error)")
                return 2
            }
        case .missing:
            if options.configPath != nil {
                Log.error("fleet sync: --config: \(path) does not exist")
                return 2
            }
        case .unreadable(let reason):
            Log.error("fleet sync: \(path): cannot read the config file: \(reason)")
            return 2
        }
        if let url = options.url { config.fleetURL = url }
        if let c = options.credentials { config.fleetCredentials = c }
        if let d = options.dataDirectory { config.dataDirectory = d }
        guard var settings = FleetSettings(config: config) else {
            Log.error("fleet sync: no fleet-url in \(path) and no --fleet-url; 'KioskCards fleet add-kiosk' prints one")
            return 2
        }
        settings.batchLimit = options.batch
        let dataDirectory = config.dataDirectory
        let worker = FleetSyncWorker(settings: settings, dataDirectory: dataDirectory) {
            FleetHealth.standalone()
        }
        if options.once {
            if let error = worker.syncOnce() {
                Log.error("fleet sync: \(error)")
                return 1
            }
            Log.info("fleet sync: all decisions in \(dataDirectory) are on the fleet server (\(worker.sent) new)")
            if let problem = worker.lastDeckError {
                Log.error("fleet sync: the assigned deck was not applied: \(problem)")
                return 1
            }
            if let current = worker.decks.current() {
                Log.info("fleet sync: deck \(current) is current in \(worker.decks.root)")
            }
            return 0
        }
        // Signals stay blocked here and are taken synchronously (sigwait): the worker's
        // threads (libdispatch) block them anyway.
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGTERM)
        sigaddset(&mask, SIGINT)
        sigprocmask(SIG_BLOCK, &mask, nil)
        worker.start()
        var signal: Int32 = 0
        sigwait(&mask, &signal)
        Log.info("fleet sync: \(TerminationSignals.name(signal)); stopping")
        worker.stop()
        Log.info("fleet sync: stopped (\(worker.sent) decisions sent)")
        return 0
    }
}
