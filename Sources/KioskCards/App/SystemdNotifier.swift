import CardModel
import Glibc
import KioskDisplay
import KioskSystem

/// sd_notify(3) without libsystemd: datagrams such as "READY=1" or "WATCHDOG=1" to the unix
/// socket systemd names in $NOTIFY_SOCKET (Type=notify, WatchdogSec=).
///
/// Outside systemd ($NOTIFY_SOCKET unset) every call is a no-op that returns false.
struct SystemdNotifier: Sendable {
    /// The socket path; a leading '@' means Linux's abstract namespace.
    let socketPath: String?
    /// WATCHDOG_USEC in seconds when the watchdog is meant for this process; nil: no watchdog.
    let watchdogTimeout: Double?

    init(environment: [String: String], pid: Int32 = getpid()) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path.flatMap { $0.hasPrefix("/") || $0.hasPrefix("@") ? $0 : nil }
        var timeout: Double?
        if let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0 {
            // WATCHDOG_PID, when set, names the process the watchdog is for.
            let forUs = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
            if forUs { timeout = Double(usec) / 1e6 }
        }
        watchdogTimeout = timeout
    }

    /// From the process environment.
    static func fromEnvironment() -> SystemdNotifier {
        var env: [String: String] = [:]
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let v = getenv(key) { env[key] = String(cString: v) }
        }
        return SystemdNotifier(environment: env)
    }

    /// How often to send WATCHDOG=1: half the timeout, as sd_watchdog_enabled(3) advises.
    var watchdogPingInterval: Double? { watchdogTimeout.map { $0 / 2 } }

    /// Startup finished: the first frame is on screen.
    @discardableResult
    func ready(status: String? = nil) -> Bool {
        notify("READY=1" + (status.map { "\nSTATUS=\($0)" } ?? ""))
    }

    /// Still alive (send every `watchdogPingInterval` while the frame loop is healthy).
    @discardableResult
    func watchdog() -> Bool { notify("WATCHDOG=1") }

    /// A one-line status for `systemctl status`.
    @discardableResult
    func status(_ text: String) -> Bool { notify("STATUS=\(text)") }

    @discardableResult
    func stopping() -> Bool { notify("STOPPING=1") }

    /// Sends `state` (newline-separated KEY=VALUE lines) in one datagram; false when there is
    /// no socket or sending failed (never blocks: the datagram socket is non-blocking).
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        let abstract = pathBytes.first == UInt8(ascii: "@")
        if abstract { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        // Abstract names are exactly their bytes; file paths include the terminating NUL.
        let length = socklen_t(pathOffset + pathBytes.count + (abstract ? 0 : 1))

        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
            }
        }
        return sent == message.count
    }

    /// Sends WATCHDOG=1 every `watchdogPingInterval` on `loop` while `healthy()` says the app
    /// is making progress (e.g. a frame completed recently); when it stops saying so systemd
    /// restarts the service after WatchdogSec. Does nothing without a watchdog.
    func scheduleWatchdog(on loop: EventLoop, healthy: @escaping () -> Bool) {
        guard let interval = watchdogPingInterval else { return }
        func arm(at deadline: Instant) {
            loop.schedule(at: deadline) {
                if healthy() { watchdog() }
                arm(at: deadline.advanced(bySeconds: interval))
            }
        }
        arm(at: MonotonicClock.now().advanced(bySeconds: interval))
    }
}

extension SystemdNotifier {
    /// Pings the watchdog while the display's flips complete: flips that keep timing out (three
    /// since the last ping) mean the display is stuck, so the pings stop and systemd restarts
    /// the kiosk; `stuck` runs once first (the flight recorder).
    func watch(_ display: Display, on loop: EventLoop, stuck: @escaping () -> Void) {
        var lostAtLastPing = display.lostFlipCount
        var stallRecorded = false
        scheduleWatchdog(on: loop) {
            let lost = display.lostFlipCount - lostAtLastPing
            lostAtLastPing = display.lostFlipCount
            if lost >= 3 {
                Log.error("display: \(lost) page flips timed out since the last watchdog ping")
                if !stallRecorded { stuck() }
                stallRecorded = true
            }
            return lost < 3
        }
    }
}
