import Glibc

/// A mutex with its condition variable (pthread), for a worker thread that sleeps until there
/// is work: `lock`, check, `wait`, `unlock`; the other side changes the state under the lock
/// and calls `signal` or `broadcast`.
package final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        // CLOCK_MONOTONIC for timed waits: a wall-clock step never stretches or cuts one.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits (the lock held) until signalled; wake-ups may be spurious: check the state again.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// CLOCK_MONOTONIC nanoseconds `seconds` from now, for `wait(untilNanoseconds:)`.
    package static func deadline(afterSeconds seconds: Double) -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let now = Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
        return now + Int64(max(0, min(seconds, 1e9)) * 1e9)
    }

    /// Waits (the lock held) until signalled or `deadline` (CLOCK_MONOTONIC nanoseconds) has
    /// passed; false when the deadline passed.
    package func wait(untilNanoseconds deadline: Int64) -> Bool {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &ts) != ETIMEDOUT
    }

    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }
}
