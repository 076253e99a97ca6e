import CLinux
import Glibc
import Testing

@testable import KioskSystem

/// The watch for wall-clock steps. A step itself cannot be made here (setting the build
/// machine's clock is not a test's business): VM 58 and 59 set the guest's clock with
/// `date -s` while the kiosk runs and check that it switches on the new time's minute.
@Suite struct WallClockStepsTests {
    @Test func armedAndQuietWhileTheClockIsNotSet() throws {
        let loop = EventLoop()
        var steps: [Int64] = []
        let watch = try WallClockSteps(loop: loop) { steps.append($0) }
        // Armed at the end of time: the kernel took the timer (an invalid one would have thrown).
        var spec = itimerspec()
        #expect(timerfd_gettime(watch.fd, &spec) == 0)
        #expect(spec.it_value.tv_sec > 3_000_000_000)  // a century and more away
        loop.runOnce(maxWait: 0.01)
        #expect(watch.take() == nil)
        #expect(steps.isEmpty)
    }

    @Test func stepsAreLoggedWithSignAndTenths() {
        #expect(WallClockSteps.describe(57_040) == "+57.0 s")
        #expect(WallClockSteps.describe(-3_600_000) == "-3600.0 s")
        #expect(WallClockSteps.describe(170_049) == "+170.0 s")
        #expect(WallClockSteps.describe(55_650) == "+55.7 s")
    }
}
