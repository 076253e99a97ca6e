import CLinux
import Glibc

/// Tells the `EventLoop` when the wall clock (CLOCK_REALTIME) is set rather than slewed: NTP's
/// first step after boot (a Raspberry Pi has no RTC and boots at its last shutdown's time),
/// `date -s`, `timedatectl set-time`, a resume from suspend. A timer on the wall clock's
/// monotonic offset can then be computed again at once instead of firing at the old time.
///
/// A timerfd on CLOCK_REALTIME armed at the end of time with `TFD_TIMER_CANCEL_ON_SET`: the
/// kernel cancels it on every discontinuous change of the clock, the descriptor polls
/// readable and `read` fails with ECANCELED (`timerfd_create(2)`); it is then armed again.
/// NTP's gradual slewing (adjtime) is not a step and is not reported.
package final class WallClockSteps {
    let fd: Int32
    private var token: Int?
    private let loop: EventLoop
    /// Wall minus monotonic time (ms) when armed; its change is the size of a step.
    private var offsetMs: Int64

    /// Watches the clock; `handler` gets the step's size in milliseconds (positive: forward).
    package init(loop: EventLoop, handler: @escaping (_ stepMs: Int64) -> Void) throws(SystemCallError) {
        let fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        if fd < 0 { throw SystemCallError(call: "timerfd_create", errno: .current) }
        if let error = Self.arm(fd) {
            close(fd)
            throw error
        }
        self.fd = fd
        self.loop = loop
        offsetMs = Self.offsetMs()
        token = loop.add(fd: fd) { [unowned self] _ in
            if let step = self.take() { handler(step) }
        }
    }

    deinit {
        if let token { loop.remove(token) }
        close(fd)
    }

    /// After the descriptor polled readable: the step since the last one (nil when the clock
    /// was not set: a spurious wake-up), the timer armed again.
    func take() -> Int64? {
        var expirations: UInt64 = 0
        let n = read(fd, &expirations, MemoryLayout<UInt64>.size)
        guard n < 0, errno == ECANCELED else { return nil }
        // Armed again before the offset is read: a step in between is counted in this one.
        if let error = Self.arm(fd) { Log.warning("clock: \(error); wall-clock steps are no longer noticed") }
        let before = offsetMs
        offsetMs = Self.offsetMs()
        return offsetMs - before
    }

    /// `timerfd_settime`: the absolute time `time_t.max` (never reached), cancelled by a set.
    private static func arm(_ fd: Int32) -> SystemCallError? {
        var spec = itimerspec()
        spec.it_value.tv_sec = time_t.max
        let flags = Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET)
        return timerfd_settime(fd, flags, &spec, nil) == 0
            ? nil : SystemCallError(call: "timerfd_settime", errno: .current, detail: "TFD_TIMER_CANCEL_ON_SET")
    }

    private static func offsetMs() -> Int64 {
        WallClock.nowMilliseconds() - MonotonicClock.now().nanoseconds / 1_000_000
    }

    /// "+57.0 s", "-3600.0 s": a step for the log.
    package static func describe(_ stepMs: Int64) -> String {
        let tenths = (abs(stepMs) + 50) / 100
        return (stepMs < 0 ? "-" : "+") + "\(tenths / 10).\(tenths % 10) s"
    }
}
