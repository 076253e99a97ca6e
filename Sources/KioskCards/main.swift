import CardModel
import Glibc

/// Entry point: the first argument names a subcommand; without one the kiosk runs.
let status = CommandLine.runKiosk(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
