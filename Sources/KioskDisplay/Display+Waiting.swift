import CardModel
import KioskSystem

extension Display {
    /// Opens the display like `init`, but when no display is connected it says so, waits for a
    /// DRM hotplug (or re-checks every `recheckSeconds`, for systems without uevents) while
    /// running `loop`, and tries again. Returns nil when `keepWaiting` turns false (e.g. SIGTERM).
    package static func waitingForConnection(
        options: DisplayOptions, loop: EventLoop, recheckSeconds: Double = 5, keepWaiting: () -> Bool
    ) throws(DisplayError) -> Display? {
        var announced = false
        while keepWaiting() {
            do {
                return try Display(options: options, loop: loop)
            } catch  where error.isWaitingForDisplay {
                if !announced { Log.warning("display: \(error)") }
                announced = true
                var plugged = false
                let monitor = try? HotplugMonitor(loop: loop) { plugged = true }
                let until = MonotonicClock.now().advanced(bySeconds: recheckSeconds)
                while keepWaiting(), !plugged, MonotonicClock.now() < until {
                    loop.runOnce(maxWait: until.seconds(since: MonotonicClock.now()))
                }
                _ = monitor
            }
        }
        return nil
    }
}
