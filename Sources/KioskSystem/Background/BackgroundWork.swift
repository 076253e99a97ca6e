import Dispatch

/// Moves a value to another thread when the sender gives it up (the caller guarantees no
/// further use on its own thread).
package struct UncheckedBox<T>: @unchecked Sendable {
    package let value: T
    package init(_ value: T) { self.value = value }
}

/// Work that must not hold up the frame loop (a screenshot's PNG encoding, a flight
/// recording's write, the decision store's writer), run on Dispatch.
///
/// Each job gets a serial queue of its own; such queues target Dispatch's overcommitting root
/// queue, so a job that blocks for long (the store's writer waits on its condition for the
/// whole run) gets a thread to itself and never starves another. libdispatch blocks signals in
/// its worker threads, so they stay with the main thread's loop.
package enum BackgroundWork {
    /// Runs `body` in the background; the job can be waited for.
    @discardableResult
    package static func run(_ label: String, _ body: @escaping @Sendable () -> Void) -> BackgroundJob {
        let job = BackgroundJob()
        DispatchQueue(label: "KioskCards.\(label)").async(group: job.group, execute: body)
        return job
    }

    /// Runs `body` in the background with `input`, which the caller gives up.
    @discardableResult
    package static func run<T>(
        _ label: String, _ input: UncheckedBox<T>, _ body: @escaping @Sendable (UncheckedBox<T>) -> Void
    ) -> BackgroundJob {
        run(label) { body(input) }
    }
}

/// A job started by `BackgroundWork.run`.
package struct BackgroundJob: Sendable {
    fileprivate let group = DispatchGroup()

    /// Blocks until the job has finished.
    package func wait() { group.wait() }

    /// Blocks until the job has finished or `seconds` have passed; returns whether it finished.
    package func wait(seconds: Double) -> Bool {
        group.wait(timeout: .now() + seconds) == .success
    }
}
