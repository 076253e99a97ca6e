import Glibc

/// Moves a value to another thread when the sender gives it up (the caller guarantees no
/// further use on its own thread).
package struct UncheckedBox<T>: @unchecked Sendable {
    package let value: T
    package init(_ value: T) { self.value = value }
}

/// Runs rare, slow work (a screenshot's PNG encoding and write) on a detached thread so the
/// frame loop never waits for it.
package enum BackgroundWork {
    package static func run<T>(_ input: UncheckedBox<T>, _ body: @escaping @Sendable (UncheckedBox<T>) -> Void) {
        let job = UncheckedBox({ body(input) } as () -> Void)
        let context = Unmanaged.passRetained(Job(job.value)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
                job.body()
                return nil
            }, context)
        if rc == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Job>.fromOpaque(context).release()
            Log.error("'pthread_create' failed: \(Errno(rc))")
        }
    }

    private final class Job {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
