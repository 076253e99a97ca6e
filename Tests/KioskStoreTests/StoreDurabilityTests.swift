import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskSystem

/// Decisions reported stored survive SIGKILL of a real process at random moments.
@Suite struct StoreDurabilityTests {
    struct Round {
        var name: String
        var reportedThrough: Int
        var killed: Bool
    }

    /// Reads `stored N` lines from `child` until `lines` were seen (or the child ends), then waits
    /// `extraMicroseconds` more while still reading, and kills it with SIGKILL.
    func runAndKill(_ child: StoreTestSupport.Child, afterLines lines: Int, extraMicroseconds: UInt32) -> Round? {
        var last = 0
        var seen = 0
        var pending: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        var killAt: Instant?
        let giveUp = MonotonicClock.now().advanced(bySeconds: 60)
        func consume(_ bytes: ArraySlice<UInt8>) {
            pending += bytes
            while let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                if line.hasPrefix("stored "), let n = Int(line.dropFirst(7)) {
                    last = max(last, n)
                    seen += 1
                }
            }
        }
        var ended = false
        while !ended {
            let now = MonotonicClock.now()
            if now > giveUp { break }
            if killAt == nil && seen >= lines {
                killAt = now.advanced(bySeconds: Double(extraMicroseconds) / 1e6)
            }
            if let k = killAt, now >= k { break }
            var p = pollfd(fd: child.stdout, events: Int16(POLLIN), revents: 0)
            let wait: Int32 = killAt.map { Int32(max(0, ($0.seconds(since: now) * 1000).rounded(.up))) } ?? 1000
            if poll(&p, 1, wait) > 0 {
                let n = buf.withUnsafeMutableBytes { read(child.stdout, $0.baseAddress, $0.count) }
                if n > 0 { consume(buf[0..<n]) } else if n == 0 { ended = true }
            }
        }
        kill(child.pid, SIGKILL)
        // Lines already in the pipe were printed after their commit: they count too.
        while true {
            let n = buf.withUnsafeMutableBytes { read(child.stdout, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            consume(buf[0..<n])
        }
        close(child.stdout)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        let killed = (status & 0x7F) == SIGKILL
        return Round(name: "", reportedThrough: last, killed: killed)
    }

    @Test(TestRequirement.executable.trait)
    func reportedStoredDecisionsSurviveKillNine() throws {
        let dir = DeckFixtures.temporaryDirectory("store-kill")
        defer { DeckFixtures.removeTree(dir) }
        let seed = UInt64(MonotonicClock.now().nanoseconds)
        var rng = SplitMix64(seed: seed)
        var rounds: [Round] = []
        for r in 0..<8 {
            let name = "r\(r)"
            let child = try #require(
                StoreTestSupport.spawn(
                    ["store-stress", "--data", dir, "--run", name, "--count", "200000"],
                    stderrPath: dir + "/stderr.log"))
            let lines = 1 + Int(rng.next() % 40)
            let extra = UInt32(rng.next() % 20_000)
            var round = try #require(runAndKill(child, afterLines: lines, extraMicroseconds: extra))
            round.name = name
            #expect(round.killed, "round \(name) ended before the kill (seed \(seed))")
            #expect(round.reportedThrough > 0, "round \(name) reported nothing (seed \(seed))")
            rounds.append(round)
        }

        #expect(try StoreTestSupport.integrityCheck(dir) == "ok")
        var bySession: [String: [Int]] = [:]
        for row in try StoreTestSupport.rows(dir) {
            let suffix = row.record.cardID.split(separator: "-").last.flatMap { Int($0) } ?? -1
            bySession[row.record.sessionID, default: []].append(suffix)
        }
        for round in rounds {
            let stored = bySession[round.name] ?? []
            // Every decision reported stored is there, once; what was committed but not yet
            // reported may be there too, always as a gap-free prefix (the queue is FIFO).
            #expect(stored.count >= round.reportedThrough, "\(round.name) seed \(seed)")
            #expect(stored == Array(1...max(1, stored.count)), "\(round.name) seed \(seed)")
        }
        let total = rounds.map(\.reportedThrough).reduce(0, +)
        print(
            "store durability: 8 SIGKILLs, \(total) reported-stored decisions all present, integrity ok (seed \(seed))")
    }
}
