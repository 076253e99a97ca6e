import KioskDeckFiles
import KioskSystem

/// `KioskCards check-deck FILE…`: validates deck files and prints every problem.
enum CheckDeckCommand {
    static let table = OptionTable<[String]>(
        command: "check-deck", summary: "check deck files; print every problem with its line and field",
        details: """
            Checks deck files (format: schema/deck.schema.json) and prints every problem as
            FILE:LINE:COLUMN: error: FIELD: message. Exit status 0 when all are valid, 2 otherwise.
            """,
        options: [],
        positional: CommandPositional(name: "FILE", help: "a deck file (JSON)", count: .oneOrMore) { files, v in
            files.append(v)
            return nil
        })

    /// What `run` prints: summaries for stdout, problems for stderr.
    struct Outcome: Equatable {
        var status: Int32
        var summaries: [String]
        var problems: [String]
    }

    /// Checks `arguments`' files without printing (tests call this).
    static func evaluate(arguments: [String]) -> Outcome {
        let files: [String]
        switch table.parse(arguments, from: []) {
        case .success(let f): files = f
        case .help: return Outcome(status: 0, summaries: [table.helpText], problems: [])
        case .version: return Outcome(status: 0, summaries: ["KioskCards \(kioskCardsVersion)"], problems: [])
        case .failure(let e): return Outcome(status: 2, summaries: [], problems: ["\(e)"])
        }
        var outcome = Outcome(status: 0, summaries: [], problems: [])
        for file in files {
            switch DeckLoader.load(path: file) {
            case .success(let deck):
                outcome.summaries.append("\(file): valid — \(deck.summary)")
            case .failure(let problems):
                outcome.status = 2
                outcome.problems += problems.problems.map { $0.formatted(file: file) }
                let n = problems.problems.count
                outcome.problems.append("\(file): \(n) problem\(n == 1 ? "" : "s"); the deck was not accepted")
            }
        }
        return outcome
    }

    static func run(arguments: [String]) -> Int32 {
        let outcome = evaluate(arguments: arguments)
        for line in outcome.problems { Log.raw(line) }
        for line in outcome.summaries { print(line) }
        return outcome.status
    }
}
