import CardModel
import Glibc
import KioskStore
import KioskSystem

/// `KioskCards store-stress --data DIR [--run NAME] [--count N]` (hidden): a stream of
/// decisions through a real `DecisionStore`, printing `stored N` after every commit (every
/// decision with ticket ≤ N is durable). The durability test kills it with SIGKILL at random
/// moments and checks the database against what it printed.
enum StoreStressCommand {
    static func run(arguments: [String]) -> Int32 {
        var data: String?
        var runName = "run"
        var count = 100_000
        var i = 0
        while i < arguments.count {
            let value = i + 1 < arguments.count ? arguments[i + 1] : nil
            switch arguments[i] {
            case "--data": data = value
            case "--run": runName = value ?? runName
            case "--count": count = value.flatMap { Int($0) } ?? count
            default:
                Log.error("store-stress: unknown option '\(arguments[i])'")
                return 2
            }
            i += 2
        }
        guard let data else {
            Log.error("store-stress: --data DIR is required")
            return 2
        }
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
