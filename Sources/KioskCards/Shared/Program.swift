import CardModel
import KioskSystem

// Shared/: what both halves of the executable use (the kiosk in App/, the subcommands in
// Tools/) and neither owns. It uses nothing from App/ or Tools/, and App/ uses nothing from
// Tools/ (scripts/check-executable-layers.sh).

/// The version `--version` prints.
let kioskCardsVersion = "0.1.0"

/// When `main` started, for the start-to-first-frame figure.
let processStart = MonotonicClock.now()

/// A process exit status, as an `Error` so it can travel in a `Result`.
struct ExitStatus: Error, Hashable {
    var code: Int32
}

extension OptionTable {
    /// For a subcommand's `run`: the values, or the exit status after printing the help (0),
    /// the version (0) or the usage error (2).
    func resolve(_ arguments: [String], from defaults: Values) -> Result<Values, ExitStatus> {
        switch parse(arguments, from: defaults) {
        case .success(let values): return .success(values)
        case .help:
            print(helpText)
            return .failure(ExitStatus(code: 0))
        case .version:
            print("KioskCards \(kioskCardsVersion)")
            return .failure(ExitStatus(code: 0))
        case .failure(let error):
            Log.error("\(error)")
            return .failure(ExitStatus(code: 2))
        }
    }

    /// Every subcommand's prelude, written once: `arguments` parsed from `defaults` (the help,
    /// the version or the usage error printed as `resolve` does, with its exit status), then
    /// `body` with the values; the exit status. A subcommand's `run(arguments:)` is this one call.
    func run(_ arguments: [String], from defaults: Values, _ body: (Values) -> Int32) -> Int32 {
        switch resolve(arguments, from: defaults) {
        case .success(let values): return body(values)
        case .failure(let status): return status.code
        }
    }
}
