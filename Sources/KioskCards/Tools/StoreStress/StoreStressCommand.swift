import CardModel
import Glibc
import KioskStore
import KioskSystem

/// `KioskCards store-stress --data DIR [--run NAME] [--count N]` (hidden): a stream of
/// decisions through a real `DecisionStore`, printing `stored N` after every commit (every
/// decision with ticket ≤ N is durable). The durability test kills it with SIGKILL at random
/// moments and checks the database against what it printed.
enum StoreStressCommand {
    struct Options: Equatable {
        var data = ""
        var runName = "run"
        var count = 100_000
    }

    static let table = OptionTable<Options>(
        command: "store-stress", summary: "write decisions through a real store, printing 'stored N' per commit",
        options: [
            CommandOption.text(
                name: "data", value: "DIR", help: "the data directory (required)", expected: "a directory"
            ) { $0.data = $1 },
            CommandOption(name: "run", value: "NAME", help: "the session id of the decisions (default run)") { o, v in
                o.runName = v
                return nil
            },
            CommandOption.parsed(
                name: "count", value: "N", help: "how many decisions (default 100000)", expected: "a whole number",
                { Int($0) }
            ) { $0.count = $1 },
        ],
        hidden: true,
        validate: { $0.data.isEmpty ? "--data DIR is required." : nil })

    static func run(arguments: [String]) -> Int32 {
        table.run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        let (data, runName, count) = (options.data, options.runName, options.count)
        let store = DecisionStore(dataDirectory: data, batchLimit: 64) { through in
            // Straight to fd 1, not through stdio's buffer: a short line fits one write(2), so lines never tear.
            try? FileIO.writeAll(fd: 1, bytes: Array("stored \(through)\n".utf8))
        }
        let actions: [DecisionAction] = [.swipedLeft, .swipedRight, .removed]
        for n in 1...max(1, count) {
            let record = DecisionRecord(
                kioskID: "stress", sessionID: runName, deckID: "stress-deck", deckVersion: 1,
                cardID: "\(runName)-\(n)", action: actions[n % actions.count],
                wallTimeMs: WallClock.nowMilliseconds(), monotonicNs: MonotonicClock.now().nanoseconds,
                dwellMs: Int64(n % 5000))
            while store.enqueue(record) == nil { usleep(1000) }
            if n % 16 == 0 { usleep(500) }
        }
        _ = store.flush(timeout: 60)
        store.close()
        return 0
    }
}
