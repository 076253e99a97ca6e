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
        case "--help", "-h", "help":
            printUsage()
            return 0
        case "render": return runRenderCommand(rest)
        case "bench": return runBenchCommand(rest)
        default:
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
              render      draw one frame headlessly into a PNG (--size WxH --out FILE.png
                          [--layout stack|list] [--gesture "drag DX DY" | --script FILE] [--at MS])
              bench       measure frame times of the renderer ([--json])
              --help, --version
            """)
    }
}
