import CardModel
import Glibc

/// The one `poll()` loop the app runs on its one thread.
///
/// Sources register a file descriptor and a handler; the loop sleeps in `poll()` until a
/// descriptor is ready or the earliest deadline passes. No deadline and no ready fd means
/// the process sleeps (0 % CPU).
package final class EventLoop {
    package typealias Handler = (_ revents: Int16) -> Void

    private struct Source {
        var fd: Int32
        var events: Int16
        var handler: Handler
    }

    private var sources: [Int: Source] = [:]
    private var nextToken = 0
    private var timers: [Int: (deadline: Instant, handler: () -> Void)] = [:]
    private(set) var isRunning = false

    package init() {}

    /// Watches `fd` for `events` (POLLIN, …); returns a token for `remove`.
    @discardableResult
    package func add(fd: Int32, events: Int16 = Int16(POLLIN), handler: @escaping Handler) -> Int {
        nextToken += 1
        sources[nextToken] = Source(fd: fd, events: events, handler: handler)
        return nextToken
    }

    package func remove(_ token: Int) {
        sources[token] = nil
    }

    /// Calls `handler` once at or after `deadline` (CLOCK_MONOTONIC); returns a token for `cancelTimer`.
    @discardableResult
    package func schedule(at deadline: Instant, handler: @escaping () -> Void) -> Int {
        nextToken += 1
        timers[nextToken] = (deadline, handler)
        return nextToken
    }

    package func cancelTimer(_ token: Int) {
        timers[token] = nil
    }

    /// Ends `run()` after the current iteration.
    package func stop() { isRunning = false }

    /// Polls until `stop()`.
    package func run() {
        isRunning = true
        while isRunning { runOnce(maxWait: nil) }
    }

    /// One poll iteration: waits at most `maxWait` seconds (nil: until the next deadline or fd).
    package func runOnce(maxWait: Double?) {
        let now = MonotonicClock.now()
        var timeoutMs: Int32 = -1
        if let earliest = timers.values.map(\.deadline).min() {
            let ms = max(0, (earliest.seconds(since: now) * 1000).rounded(.up))
            timeoutMs = Int32(min(ms, 60_000))
        }
        if let maxWait {
            let ms = Int32(max(0, maxWait * 1000))
            timeoutMs = timeoutMs < 0 ? ms : min(timeoutMs, ms)
        }
        let entries = sources.sorted { $0.key < $1.key }
        var fds = entries.map { pollfd(fd: $0.value.fd, events: $0.value.events, revents: 0) }
        let n = poll(&fds, nfds_t(fds.count), timeoutMs)
        if n < 0 && errno != EINTR {
            Log.error("'poll' failed: \(Errno.current)")
        }
        if n > 0 {
            for (i, entry) in entries.enumerated() where fds[i].revents != 0 {
                // A handler may have removed this source in the meantime.
                guard sources[entry.key] != nil else { continue }
                entry.value.handler(fds[i].revents)
            }
        }
        let after = MonotonicClock.now()
        let due = timers.filter { $0.value.deadline <= after }.sorted { $0.value.deadline < $1.value.deadline }
        for (token, timer) in due {
            guard timers.removeValue(forKey: token) != nil else { continue }
            timer.handler()
        }
    }
}
