import Glibc

/// A thread of its own for work kept off the calling thread, started with every signal
/// blocked: joined with `join` (or when the value goes away), or started detached with
/// `detach`.
///
/// Signals belong to the main thread's loop (`TerminationSignals`: blocked there and read from
/// a signalfd). A thread that left them unblocked, or any thread a library starts from it
/// (pango's font threads, glib's pools), would take SIGTERM with its default action and end
/// the process without the loop's clean exit. The starting thread blocks them around
/// `pthread_create`, so the new thread inherits the mask and never runs with them unblocked.
package struct HelperThread: ~Copyable {
    private let thread: pthread_t

    /// Starts `body` on a new thread that `join` waits for.
    package init(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        thread = try Self.start(body)
    }

    /// Starts `body` on a new detached thread: nothing waits for it, and it ends when `body`
    /// returns.
    package static func detach(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        pthread_detach(try start(body))
    }

    /// Waits until `body` has returned (`pthread_join`).
    package consuming func join() {
        pthread_join(thread, nil)
        discard self
    }

    /// Waits as `join` does: `body` never outlives its owner.
    deinit { pthread_join(thread, nil) }

    /// `pthread_create` with the default attributes (stack size, joinable), every signal
    /// blocked in the calling thread meanwhile.
    private static func start(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) -> pthread_t {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var all = sigset_t()
        var saved = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &saved)
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        pthread_sigmask(SIG_SETMASK, &saved, nil)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SystemCallError(call: "pthread_create", errno: Errno(rc))
        }
        return thread
    }

    /// The closure, as an object `pthread_create`'s one pointer can carry.
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
