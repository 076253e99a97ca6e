import CardModel
import Glibc

/// CLOCK_MONOTONIC, the clock of evdev timestamps (after `libevdev_set_clock_id`) and of
/// DRM page-flip events, as CardModel `Instant`s.
package enum MonotonicClock {
    package static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// A `timeval` (as in `input_event` and DRM events) as an `Instant`.
    package static func instant(seconds: Int, microseconds: Int) -> Instant {
        Instant(nanoseconds: Int64(seconds) * 1_000_000_000 + Int64(microseconds) * 1000)
    }
}
