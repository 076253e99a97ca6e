import Glibc
import Testing

@testable import KioskSystem

/// `HelperThread`: the body runs on a thread of its own with every signal blocked, even when
/// the starting thread has some unblocked; the starting thread's mask is left as it was; `join`
/// returns only after the body has.
@Suite struct HelperThreadTests {
    /// The standard signals a thread can block (all but SIGKILL and SIGSTOP).
    static let blockable = (1..<32).filter { $0 != SIGKILL && $0 != SIGSTOP }
    /// Unblocked in the starting thread, so a new thread that merely inherited its mask would
    /// have them unblocked too.
    static let unblockedInTheStarter: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD]

    /// Which of `signals` the calling thread has unblocked (pthread_sigmask query).
    static func unblocked(_ signals: [Int32]) -> [Int32] {
        var mask = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &mask)
        return signals.filter { sigismember(&mask, $0) != 1 }
    }

    /// Runs `body` with `unblockedInTheStarter` unblocked in this thread, then restores its mask.
    static func withSignalsUnblocked<R>(_ body: () throws -> R) rethrows -> R {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in unblockedInTheStarter { sigaddset(&set, signal) }
        var saved = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &set, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        return try body()
    }

    /// What a body saw on its thread, under a lock the test can wait on.
    final class Probe: @unchecked Sendable {
        struct Seen {
            var thread: pthread_t
            var unblockedSignals: [Int32]
        }

        private let condition = Condition()
        private var seen: Seen?

        /// Called by the body: records its thread and which signals it has unblocked.
        func record() {
            let now = Seen(thread: pthread_self(), unblockedSignals: HelperThreadTests.unblocked(blockable))
            condition.withLock {
                seen = now
                condition.broadcast()
            }
        }

        /// What the body recorded, nil before it did.
        var recorded: Seen? { condition.withLock { seen } }

        /// Waits at most `seconds` for the body to record.
        func wait(seconds: Double) -> Seen? {
            let deadline = Condition.deadline(afterSeconds: seconds)
            return condition.withLock {
                while seen == nil, condition.wait(untilNanoseconds: deadline) {}
                return seen
            }
        }
    }

    @Test func joinWaitsForTheBodyOnAnotherThreadWithEverySignalBlocked() throws {
        let probe = Probe()
        try Self.withSignalsUnblocked {
            #expect(Self.unblocked(Self.unblockedInTheStarter) == Self.unblockedInTheStarter)
            let thread = try HelperThread {
                // Long enough that a join that did not wait returns before the body records.
                usleep(50_000)
                probe.record()
            }
            #expect(
                Self.unblocked(Self.unblockedInTheStarter) == Self.unblockedInTheStarter,
                "the starting thread's mask is as it was")
            thread.join()
        }
        let seen = try #require(probe.recorded, "join returned before the body did")
        #expect(pthread_equal(seen.thread, pthread_self()) == 0, "the body ran on the starting thread")
        #expect(seen.unblockedSignals == [], "unblocked in the helper thread")
    }

    @Test func droppingTheThreadWaitsForTheBody() throws {
        let probe = Probe()
        do {
            let thread = try HelperThread {
                usleep(50_000)
                probe.record()
            }
            _ = consume thread
        }
        #expect(probe.recorded != nil, "dropped before the body returned")
    }

    @Test func aDetachedBodyRunsOnAnotherThreadWithEverySignalBlocked() throws {
        let probe = Probe()
        try Self.withSignalsUnblocked {
            try HelperThread.detach { probe.record() }
            #expect(
                Self.unblocked(Self.unblockedInTheStarter) == Self.unblockedInTheStarter,
                "the starting thread's mask is as it was")
        }
        let seen = try #require(probe.wait(seconds: 30), "the detached body never ran")
        #expect(pthread_equal(seen.thread, pthread_self()) == 0, "the body ran on the starting thread")
        #expect(seen.unblockedSignals == [], "unblocked in the helper thread")
    }
}
