import CardModel
import Glibc
import KioskSystem

/// One subcommand: its name, its option table (name, summary, options, without their types)
/// and what runs it.
struct Subcommand: Sendable {
    /// What it is called by: its option table's command (`CommandLineTests` checks they agree).
    var name: String
    /// Made when asked for (help, completion), not to dispatch: making every table at the start
    /// of each command was 6.3 M instructions, a quarter of the probe's start before drawing.
    private var makeSyntax: @Sendable () -> CommandSyntax
    var run: @Sendable ([String]) -> Int32

    init(
        _ name: String, _ syntax: @escaping @autoclosure @Sendable () -> CommandSyntax,
        run: @escaping @Sendable ([String]) -> Int32
    ) {
        self.name = name
        self.makeSyntax = syntax
        self.run = run
    }

    var syntax: CommandSyntax { makeSyntax() }
    var summary: String { syntax.summary }
}

/// The longest `--seconds` a tool accepts (30 days): a number checked before it becomes
/// nanoseconds, so `--seconds 1e30` is a usage error, not a trap.
let maxOptionSeconds = 2_592_000.0

extension CommandLine {
    /// Every subcommand, in the order `--help` lists them (hidden ones last).
    static let subcommands: [Subcommand] = [
        Subcommand("run", KioskConfig.runTable.syntax) { runKioskCommand(arguments: $0, processStart: processStart) },
        Subcommand("replay", ReplayOptions.table.syntax) { runReplayCommand(arguments: $0) },
        Subcommand("inject", InjectOptions.table.syntax) { runInjectCommand(arguments: $0) },
        Subcommand("calibrate", CalibrateCommand.table.syntax) { CalibrateCommand.run(arguments: $0) },
        Subcommand("touch-test", TouchTestCommand.table.syntax) { TouchTestCommand.run(arguments: $0) },
        Subcommand("probe", ProbeOptions.table.syntax) { runProbeCommand(arguments: $0) },
        Subcommand("display-test", DisplayTestCommand.table.syntax) { DisplayTestCommand.run(arguments: $0) },
        Subcommand("check-deck", CheckDeckCommand.table.syntax) { CheckDeckCommand.run(arguments: $0) },
        Subcommand("export", ExportCommand.table(now: 0).syntax) { ExportCommand.run(arguments: $0) },
        Subcommand("report", ReportCommand.table(now: 0).syntax) { ReportCommand.run(arguments: $0) },
        Subcommand("simulate", SimulateCommand.table(now: 0).syntax) { SimulateCommand.run(arguments: $0) },
        Subcommand("log-maintenance", LogMaintenanceCommand.table.syntax) { LogMaintenanceCommand.run(arguments: $0) },
        Subcommand("set-pin", SetPinCommand.table.syntax) { SetPinCommand.run(arguments: $0) },
        Subcommand("say", SayCommand.table.syntax) { SayCommand.run(arguments: $0) },
        Subcommand("render", RenderOptions.table.syntax) { runRenderCommand($0) },
        Subcommand("bench", BenchOptions.table.syntax) { runBenchCommand($0) },
        Subcommand("store-stress", StoreStressCommand.table.syntax) { StoreStressCommand.run(arguments: $0) },
        Subcommand("fleet", FleetCommand.table.syntax) { FleetCommand.run(arguments: $0) },
        Subcommand("completion", CompletionCommand.table.syntax) { CompletionCommand.run(arguments: $0) },
    ]

    /// Dispatches a subcommand and returns the process exit status
    /// (0 success, 1 runtime failure, 2 bad input or usage).
    static func runKiosk(arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            print(usage)
            return 0
        }
        switch first {
        case "--version", "version":
            print("KioskCards \(kioskCardsVersion)")
            return 0
        case "--help", "-h", "help":
            print(usage)
            return 0
        default:
            if let command = subcommands.first(where: { $0.name == first }) {
                return command.run(Array(arguments.dropFirst()))
            }
            let names = subcommands.filter { !$0.syntax.hidden }.map(\.name)
            var message = "KioskCards: unknown command '\(first)'."
            if let s = ClosestMatch.suggestion(for: first, among: names) { message += " Did you mean '\(s)'?" }
            Log.error(message + " See 'KioskCards --help'")
            return 2
        }
    }

    /// `KioskCards --help`: the visible subcommands with their one-line summaries.
    static var usage: String {
        let visible = subcommands.filter { !$0.syntax.hidden }
        let width = visible.map(\.name.count).max() ?? 0
        let lines = visible.map { c in
            "  " + c.name + String(repeating: " ", count: width - c.name.count + 2) + c.summary
        }
        return """
            KioskCards \(kioskCardsVersion) — a touch card deck on a bare Linux panel

            Usage: KioskCards <command> [options]
                   KioskCards <command> --help

            Commands:
            \(lines.joined(separator: "\n"))
              --help, --version
            """
    }
}

/// `KioskCards completion bash` (hidden): prints the bash completion script generated from
/// every subcommand's option table (committed as deploy/kioskcards.bash-completion).
enum CompletionCommand {
    struct Options: Equatable {
        var shell = ""
    }

    static let table = OptionTable<Options>(
        command: "completion", summary: "print the bash completion script made from the option tables",
        options: [],
        positional: CommandPositional(name: "SHELL", help: "the shell: bash", count: .one) { o, v in
            guard v == "bash" else { return "bash" }
            o.shell = v
            return nil
        },
        hidden: true)

    static var bashScript: String {
        BashCompletion.script(program: "KioskCards", commands: CommandLine.subcommands.map(\.syntax))
    }

    static func run(arguments: [String]) -> Int32 {
        if case .failure(let status) = table.resolve(arguments, from: Options()) { return status.code }
        print(bashScript, terminator: "")
        return 0
    }
}
