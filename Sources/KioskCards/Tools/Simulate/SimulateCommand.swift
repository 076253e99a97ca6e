import CardModel
import Glibc
import KioskDeckFiles
import KioskStore
import KioskSystem

/// `KioskCards simulate --deck FILE --data DIR [--visitors N] [--seed S] [--speed X] [--kiosk ID]
/// [--start TIME]`: seeded visitors use the real deck model on a simulated clock and their
/// decisions and visits go through the real `DecisionStore` into DIR. No display, no devices.
enum SimulateCommand {
    struct Options: Equatable {
        var deckPath = ""
        var dataDirectory = ""
        var visitors = 200
        var seed: UInt64 = 1
        /// Simulated seconds per real second; 0: as fast as the machine goes.
        var speed = 0.0
        var kioskID = "sim-kiosk"
        var startMs = SimulateCommand.defaultStartMs
    }

    /// 2026-11-02T00:00Z, a Monday: fixed, so a seed alone reproduces a run.
    static let defaultStartMs: Int64 = 1_793_577_600_000

    static func table(now: Int64) -> OptionTable<Options> {
        OptionTable(
            command: "simulate", summary: "seeded visitors use a deck headlessly; their decisions go into --data",
            details: """
                Runs seeded visitors through the real deck model (touch frames into the gesture code,
                on-screen buttons, keys) on a simulated clock, with no display and no input device,
                and stores their decisions, visits and attract-screen events with the real store.
                The same seed, deck and options give the same decisions. Visitors arrive from 08:00
                to 20:00 UTC, busier around noon and at weekends.
                """,
            options: [
                CommandOption.text(
                    name: "deck", value: "FILE", help: "the deck file (a stack deck; required)", expected: "a deck file"
                ) { $0.deckPath = $1 },
                CommandOption.text(
                    name: "data", value: "DIR", help: "the data directory to store into (required)",
                    expected: "a directory"
                ) { $0.dataDirectory = $1 },
                CommandOption(name: "visitors", value: "N", help: "how many visitors (default 200)") { o, v in
                    guard let n = Int(v), n >= 0, n <= 10_000_000 else { return "a whole number from 0 to 10000000" }
                    o.visitors = n
                    return nil
                },
                CommandOption.parsed(
                    name: "seed", value: "S", help: "the random seed (default 1)", expected: "a whole number ≥ 0",
                    { UInt64($0) }
                ) { $0.seed = $1 },
                CommandOption(
                    name: "speed", value: "X",
                    help: "simulated seconds per real second, e.g. 60; 0 (the default): as fast as possible"
                ) { o, v in
                    guard let x = Double(v), x.isFinite, x >= 0 else { return "a number ≥ 0" }
                    o.speed = x
                    return nil
                },
                CommandOption.text(
                    name: "kiosk", value: "ID", help: "the kiosk id stored with the rows (default sim-kiosk)",
                    expected: "a kiosk id"
                ) { $0.kioskID = $1 },
                CommandOption(
                    name: "start", value: "TIME",
                    help:
                        "when the simulated period starts (default 2026-11-02T00:00Z): 2024-05-01, an ISO time, or an age (7d)"
                ) { o, v in
                    guard let ms = WallClock.parse(v, now: now) else { return "a time: \(WallClock.timeForms)" }
                    o.startMs = ms
                    return nil
                },
            ])
    }

    static func run(arguments: [String]) -> Int32 {
        table(now: WallClock.nowMilliseconds()).run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        guard !options.deckPath.isEmpty, !options.dataDirectory.isEmpty else {
            Log.error("simulate: --deck FILE and --data DIR are required; see 'KioskCards simulate --help'")
            return 2
        }
        let deck: DeckFile
        switch DeckLoader.load(path: options.deckPath) {
        case .success(let d): deck = d
        case .failure(let problems):
            Log.error("simulate: \(problems)")
            return 2
        }
        guard deck.layout == .stack else {
            Log.error(
                "simulate: \(options.deckPath) is a list deck; simulate drives stack decks (\"layout\": \"stack\")")
            return 2
        }
        guard !deck.cards.isEmpty else {
            Log.error("simulate: \(options.deckPath) has no cards; add cards to simulate visitors")
            return 2
        }
        if mkdir(options.dataDirectory, 0o750) != 0 && errno != EEXIST {
            Log.error("simulate: cannot create \(options.dataDirectory): \(Errno.current) — check its parent exists")
            return 2
        }
        let store = DecisionStore(dataDirectory: options.dataDirectory)
        var simulation = VisitorSimulation(deck: deck, options: options)
        let realStart = MonotonicClock.now()
        let summary = simulation.run { item, simulatedSeconds in
            switch item {
            case .decision(let d): store.enqueue(d)
            case .visit(let v): store.enqueue(visit: v)
            case .event(let e): store.enqueue(event: e)
            }
            if options.speed > 0 {
                let due = simulatedSeconds / options.speed
                let ahead = due - MonotonicClock.now().seconds(since: realStart)
                if ahead > 0.001 { usleep(useconds_t(min(ahead, 60) * 1e6)) }
            }
        }
        let stored = store.flush(stalledFor: 60)
        let status = store.currentStatus
        store.close()
        guard stored else {
            Log.error("simulate: \(status.pending) records could not be stored: \(status.lastError ?? "unknown error")")
            return 1
        }
        print(
            "simulate: \(summary.visitors) visitors, \(summary.visits) visits, \(summary.decisions) decisions "
                + "(\(summary.mashers) button-mashing visitors) from \(WallClock.iso8601(milliseconds: options.startMs)) "
                + "to \(WallClock.iso8601(milliseconds: summary.endWallMs)) into \(store.databasePath)"
        )
        return 0
    }
}
