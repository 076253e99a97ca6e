import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskSystem

/// sd_notify over a real unix datagram socket, as systemd's manager would receive it.
@Suite struct ConfigSystemdNotifierTests {
    /// A bound datagram socket standing in for systemd's notify socket.
    final class Receiver {
        let fd: Int32
        let name: String

        init?(abstract: Bool, directory: String) {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            name = abstract ? "@kioskcards-test-\(getpid())-\(Int.random(in: 0..<1_000_000))" : directory + "/notify"
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var bytes = Array(name.utf8)
            if abstract { bytes[0] = 0 }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            if fd < 0 || rc != 0 { return nil }
        }

        deinit { close(fd) }

        /// The next datagram, waiting up to a second.
        func receive() -> String? {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 1000) == 1 else { return nil }
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return n >= 0 ? String(decoding: buf[0..<n], as: UTF8.self) : nil
        }
    }

    @Test(arguments: [false, true])
    func sendsReadyWatchdogAndStatus(abstract: Bool) throws {
        let dir = DeckFixtures.temporaryDirectory("notify")
        defer { DeckFixtures.removeTree(dir) }
        let receiver = try #require(Receiver(abstract: abstract, directory: dir))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.name])
        #expect(notifier.ready(status: "deck 'x' v1"))
        #expect(receiver.receive() == "READY=1\nSTATUS=deck 'x' v1")
        #expect(notifier.watchdog())
        #expect(receiver.receive() == "WATCHDOG=1")
        #expect(notifier.stopping())
        #expect(receiver.receive() == "STOPPING=1")
    }

    @Test func withoutSystemdEverythingIsANoOp() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.ready())
        #expect(!notifier.watchdog())
        #expect(notifier.watchdogPingInterval == nil)
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]).ready())
    }

    @Test func watchdogIntervalIsHalfTheTimeoutForThisProcessOnly() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000"]).watchdogPingInterval == 10)
        #expect(
            SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "42"], pid: 42)
                .watchdogTimeout == 20)
        #expect(
            SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "42"], pid: 43)
                .watchdogTimeout == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogTimeout == nil)
    }

    @Test func watchdogPingsRideTheEventLoopWhileHealthy() throws {
        let dir = DeckFixtures.temporaryDirectory("notify-loop")
        defer { DeckFixtures.removeTree(dir) }
        let receiver = try #require(Receiver(abstract: false, directory: dir))
        // WATCHDOG_USEC = 40 ms: pings every 20 ms.
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.name, "WATCHDOG_USEC": "40000"])
        let loop = EventLoop()
        var healthy = true
        // The watchdog's ticks, counted where it asks whether the app is healthy: the test waits
        // for ticks, not for time (the 60 s bound only stops a hang).
        var ticks = 0
        notifier.scheduleWatchdog(on: loop) {
            ticks += 1
            return healthy
        }
        func runUntil(ticks wanted: Int) {
            let giveUp = MonotonicClock.now().advanced(bySeconds: 60)
            while ticks < wanted && MonotonicClock.now() < giveUp { loop.runOnce(maxWait: 0.05) }
        }
        runUntil(ticks: 3)
        try #require(ticks >= 3, "the watchdog timer fires")
        var pings = 0
        var p = pollfd(fd: receiver.fd, events: Int16(POLLIN), revents: 0)
        while poll(&p, 1, 0) == 1, receiver.receive() == "WATCHDOG=1" { pings += 1 }
        #expect(pings == ticks, "one ping per healthy tick")
        healthy = false
        runUntil(ticks: ticks + 3)
        #expect(poll(&p, 1, 0) == 0)  // an unhealthy app is not vouched for
    }
}
