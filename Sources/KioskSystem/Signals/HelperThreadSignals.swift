import Glibc

/// Signals belong to the main thread's loop (`TerminationSignals`: blocked there and read from
/// a signalfd). A helper thread started before the loop blocks them, or any thread a library
/// starts from it (pango's font threads, glib's pools), would otherwise take SIGTERM with its
/// default action and end the process without the loop's clean exit.
package enum HelperThreadSignals {
    /// Blocks every signal in the calling thread; threads it starts inherit the mask. The
    /// first thing a helper thread does.
    package static func blockAll() {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
    }
}
