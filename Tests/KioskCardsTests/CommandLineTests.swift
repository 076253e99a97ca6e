import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskSystem

/// Every subcommand's command line comes from one option table: its `--help`, its errors,
/// the bash completion file and the README's command table.
@Suite struct CommandLineTests {
    /// Runs the built executable; its exit status, stdout and stderr.
    static func run(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String)? {
        let errPath = "/tmp/kioskcards-cli-\(getpid())-\(arguments.joined().hashValue).err"
        defer { unlink(errPath) }
        guard let (status, out) = StoreTestSupport.run(arguments, stderrPath: errPath) else { return nil }
        let err = (try? FileIO.readAll(errPath, limit: 1 << 20)) ?? []
        return (status, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    static var names: [String] { CommandLine.subcommands.map(\.name) }

    @Test(arguments: names)
    func everySubcommandAnswersHelpWithEveryOption(name: String) throws {
        let syntax = try #require(CommandLine.subcommands.first { $0.name == name }?.syntax)
        for o in syntax.options {
            #expect(syntax.helpText.contains("--\(o.name)"), "\(name) --help lacks --\(o.name)")
        }
        #expect(CommandLine.runKiosk(arguments: [name, "--help"]) == 0)
        #expect(CommandLine.runKiosk(arguments: [name, "-h"]) == 0)
        try #require(StoreTestSupport.executableExists, "build the executable: swift build --build-tests")
        let result = try #require(Self.run([name, "--help"]))
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Usage: KioskCards \(name)"))
        #expect(result.stdout == syntax.helpText + "\n")
        for o in syntax.options {
            #expect(result.stdout.contains("--\(o.name)"), "\(name) --help lacks --\(o.name)")
        }
        let version = try #require(Self.run([name, "--version"]))
        #expect(version.status == 0 && version.stdout == "KioskCards \(kioskCardsVersion)\n")
    }

    /// A subcommand is dispatched by its name without making its option table: the two agree.
    @Test func everySubcommandIsNamedAsItsOptionTable() {
        for c in CommandLine.subcommands {
            #expect(c.name == c.syntax.command)
        }
        #expect(Set(Self.names).count == Self.names.count)
    }

    @Test func programHelpListsTheVisibleSubcommandsAndTheVersion() throws {
        let usage = CommandLine.usage
        for c in CommandLine.subcommands {
            #expect(usage.contains("  \(c.name)  ") == !c.syntax.hidden, "\(c.name)")
        }
        try #require(StoreTestSupport.executableExists)
        let version = try #require(Self.run(["--version"]))
        #expect(version.status == 0 && version.stdout == "KioskCards \(kioskCardsVersion)\n")
        let typo = try #require(Self.run(["rendr"]))
        #expect(typo.status == 2)
        #expect(
            typo.stderr.contains("KioskCards: unknown command 'rendr'. Did you mean 'render'? See 'KioskCards --help'"))
    }

    @Test func unknownOptionSuggestsTheClosestAndExitsTwo() throws {
        let e = RenderOptions.table.parse(["--ot", "a.png"], from: RenderOptions())
        #expect(
            e == .failure(UsageError(command: "render", message: "unknown option '--ot'. Did you mean '--out'?")))
        if case .failure(let error) = e {
            #expect("\(error)" == "render: unknown option '--ot'. Did you mean '--out'? See 'KioskCards render --help'")
        }
        #expect(CommandLine.runKiosk(arguments: ["bench", "--jsn"]) == 2)
        try #require(StoreTestSupport.executableExists)
        let result = try #require(Self.run(["render", "--frobnicate"]))
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("render: unknown option '--frobnicate'. See 'KioskCards render --help'"))
        let bench = try #require(Self.run(["bench", "--fames", "10"]))
        #expect(bench.status == 2)
        #expect(bench.stderr.contains("bench: unknown option '--fames'. Did you mean '--frames'?"))
    }

    @Test func missingAndBadValuesNameTheOptionAndWhatIsAccepted() throws {
        #expect(
            ExportCommand.parse(["--data"], now: 0)
                == .failure(UsageError(command: "export", message: "--data needs a value (DIR).")))
        #expect(
            BenchOptions.table.parse(["--frames", "2"], from: BenchOptions())
                == .failure(
                    UsageError(
                        command: "bench", message: "bad value '2' for --frames; expected a number from 4 to 100000.")
                ))
        #expect(
            BenchOptions.table.parse(["--json=yes"], from: BenchOptions())
                == .failure(UsageError(command: "bench", message: "--json takes no value.")))
        #expect(CheckDeckCommand.evaluate(arguments: []).problems.first?.contains("missing FILE") == true)
        try #require(StoreTestSupport.executableExists)
        let missing = try #require(Self.run(["export", "--format"]))
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("export: --format needs a value (csv|json). See 'KioskCards export --help'"))
        let bad = try #require(Self.run(["display-test", "--rotation", "45"]))
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("display-test: bad value '45' for --rotation; expected 0, 90, 180 or 270."))
    }

    @Test func optionsTakeInlineValuesShortHelpAndPositionalsInOrder() {
        var expected = InjectOptions()
        expected.items = [.step("tap 1 2"), .script("s.txt"), .step("wait 5")]
        expected.settle = 20
        let parsed = InjectOptions.table.parse(
            ["tap 1 2", "--script", "s.txt", "--settle=20", "wait 5"], from: InjectOptions())
        guard case .success(let o) = parsed else {
            Issue.record("\(parsed)")
            return
        }
        #expect(o.items == expected.items && o.settle == 20)
        #expect(RenderOptions.table.parse(["-h"], from: RenderOptions()) == .help)
        #expect(RenderOptions.table.parse(["--at", "5", "--version"], from: RenderOptions()) == .version)
    }

    @Test func bashCompletionFileIsGeneratedFromTheTables() throws {
        let path = DeckFixtures.packageRoot + "/deploy/kioskcards.bash-completion"
        let committed = String(decoding: try FileIO.readAll(path, limit: 1 << 20), as: UTF8.self)
        #expect(
            committed == CompletionCommand.bashScript,
            "regenerate it: .build/debug/KioskCards completion bash > deploy/kioskcards.bash-completion")
        for c in CommandLine.subcommands where !c.syntax.hidden {
            #expect(committed.contains("        \(c.name))"))
        }
    }

    @Test func readmeCommandTableHasEverySummary() throws {
        let path = DeckFixtures.packageRoot + "/README.md"
        let readme = String(decoding: try FileIO.readAll(path, limit: 1 << 20), as: UTF8.self)
        for c in CommandLine.subcommands where !c.syntax.hidden {
            #expect(readme.contains("| `\(c.name)` | \(c.summary) |"), "README.md: no row for \(c.name)")
        }
    }
}
