import KioskDeckFiles
import KioskSystem

/// `KioskCards check-deck FILE…`: validates deck files and prints every problem.
enum CheckDeckCommand {
    static let usage = """
        Usage: KioskCards check-deck FILE...

        Checks deck files (format: schema/deck.schema.json) and prints every problem as
        FILE:LINE:COLUMN: error: FIELD: message. Exit status 0 when all are valid, 2 otherwise.
        """

    /// What `run` prints: summaries for stdout, problems for stderr.
    struct Outcome: Equatable {
        var status: Int32
        var summaries: [String]
        var problems: [String]
    }

    /// Checks `arguments`' files without printing (tests call this).
    static func evaluate(arguments: [String]) -> Outcome {
        if arguments.isEmpty || arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
            return Outcome(
                status: arguments.isEmpty ? 2 : 0, summaries: arguments.isEmpty ? [] : [usage],
                problems: arguments.isEmpty ? ["check-deck: name a deck file.\n" + usage] : [])
        }
        if let flag = arguments.first(where: { $0.hasPrefix("-") }) {
            return Outcome(status: 2, summaries: [], problems: ["check-deck: unknown option '\(flag)'.\n" + usage])
        }
        var outcome = Outcome(status: 0, summaries: [], problems: [])
        for file in arguments {
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
