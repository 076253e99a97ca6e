import CardModel
import Glibc
import KioskSystem

/// The version `--version` prints.
let kioskCardsVersion = "0.1.0"

/// When `main` started, for the start-to-first-frame figure.
let processStart = MonotonicClock.now()

/// One subcommand: its name, a one-line summary for `--help`, and what runs it.
struct Subcommand: Sendable {
    var name: String
    var summary: String
    var run: @Sendable ([String]) -> Int32
}

extension CommandLine {
    /// Every subcommand, one line each, in the order `--help` lists them.
    static let subcommands: [Subcommand] = [
        Subcommand(name: "run", summary: "run the kiosk on the panel (run --help)") {
            runKioskCommand(arguments: $0, processStart: processStart)
        },
        Subcommand(name: "replay", summary: "decode an evemu touch recording, print JSON frames (replay --help)") {
            runReplayCommand(arguments: $0)
        },
        Subcommand(name: "inject", summary: "play touches on a virtual uinput touchscreen (inject --help)") {
            runInjectCommand(arguments: $0)
        },
        Subcommand(
            name: "calibrate", summary: "tap 4 targets; write the touch-matrix into the config (calibrate --help)"
        ) {
            CalibrateCommand.run(arguments: $0)
        },
        Subcommand(name: "touch-test", summary: "draw every touch with raw and mapped coordinates (touch-test --help)")
        {
            TouchTestCommand.run(arguments: $0)
        },
        Subcommand(name: "probe", summary: "list input and DRM devices, their kind, axes, modes and transforms") {
            runProbeCommand(arguments: $0)
        },
        Subcommand(name: "display-test", summary: "animate a test pattern on the display, report flips/s, restore") {
            DisplayTestCommand.run(arguments: $0)
        },
        Subcommand(name: "check-deck", summary: "check deck files; print every problem with its line and field") {
            CheckDeckCommand.run(arguments: $0)
        },
        Subcommand(name: "export", summary: "write the stored decisions as CSV or JSON (export --help)") {
            ExportCommand.run(arguments: $0)
        },
        Subcommand(
            name: "render",
            summary: "draw one frame headlessly into a PNG (render --help)"
        ) { runRenderCommand($0) },
        Subcommand(name: "bench", summary: "measure the renderer's frame times ([--json])") { runBenchCommand($0) },
    ]

    /// Dispatches a subcommand and returns the process exit status
    /// (0 success, 1 runtime failure, 2 bad input or usage).
    static func runKiosk(arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            printUsage()
            return 0
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--version", "version":
            print("KioskCards \(kioskCardsVersion)")
            return 0
        case "--help", "-h", "help":
            printUsage()
            return 0
        case "store-stress": return StoreStressCommand.run(arguments: rest)  // hidden: the kill -9 durability test
        default:
            if let command = subcommands.first(where: { $0.name == first }) {
                return command.run(rest)
            }
            Log.error("KioskCards: unknown command '\(first)'. Run 'KioskCards --help' for the list.")
            return 2
        }
    }

    static func printUsage() {
        let width = subcommands.map(\.name.count).max() ?? 0
        let lines = subcommands.map { c in
            "  " + c.name + String(repeating: " ", count: width - c.name.count + 2) + c.summary
        }
        print(
            """
            KioskCards \(kioskCardsVersion) — a touch card deck on a bare Linux panel

            Usage: KioskCards <command> [options]

            Commands:
            \(lines.joined(separator: "\n"))
              --help, --version
            """)
    }
}
