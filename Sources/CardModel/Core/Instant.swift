/// A point on the monotonic clock (CLOCK_MONOTONIC on Linux), in nanoseconds.
///
/// CardModel never reads a clock: every input carries its `Instant`, and the app asks
/// for a scene at the `Instant` of the display's page flip. Input and display share the
/// clock, so the two can be compared directly.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// An instant `seconds` after the clock's origin (rounded to the nanosecond).
    public static func seconds(_ seconds: Double) -> Instant {
        Instant(nanoseconds: Int64((seconds * 1e9).rounded()))
    }

    /// An instant `ms` milliseconds after the clock's origin.
    public static func milliseconds(_ ms: Double) -> Instant { .seconds(ms / 1000) }

    public static let zero = Instant(nanoseconds: 0)

    /// Seconds since the clock's origin.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Seconds from `earlier` to `self` (negative when `earlier` is later).
    public func seconds(since earlier: Instant) -> Double {
        Double(nanoseconds - earlier.nanoseconds) / 1e9
    }

    /// This instant moved by `seconds` (may be negative).
    public func advanced(bySeconds seconds: Double) -> Instant {
        Instant(nanoseconds: nanoseconds + Int64((seconds * 1e9).rounded()))
    }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public var description: String { "\(seconds)s" }
}
