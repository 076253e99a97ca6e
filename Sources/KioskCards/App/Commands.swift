import CardModel
import Glibc

/// The version `--version` prints.
let kioskCardsVersion = "0.1.0"

extension CommandLine {
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
        case "probe-display":
            print(DisplayProbe.report())
            return 0
        case "display-test":
            return DisplayTestCommand.run(arguments: rest)
        case "--help", "-h", "help":
            printUsage()
            return 0
        default:
            _ = rest
            Log.error("KioskCards: unknown command '\(first)'. Run 'KioskCards --help' for the list.")
            return 2
        }
    }

    static func printUsage() {
        print(
            """
            KioskCards \(kioskCardsVersion) — a touch card deck on a bare Linux panel

            Usage: KioskCards <command> [options]

            Commands:
              probe-display         list DRM/fbdev devices, connectors, modes, CRTCs, vblank
              display-test          animate a test pattern on the display, report flips/s, restore
              --help, --version
            """)
    }
}
