import Glibc

/// Sleeps `ms` milliseconds (off the loop thread only: tools, background writers), resuming
/// after signals.
package func sleepMilliseconds(_ ms: Double) {
    guard ms > 0 else { return }
    var request = timespec(tv_sec: Int(ms / 1000), tv_nsec: Int((ms.truncatingRemainder(dividingBy: 1000)) * 1_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
