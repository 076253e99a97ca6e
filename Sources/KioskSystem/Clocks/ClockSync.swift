import CLinux
import Glibc

/// Whether the kernel considers the wall clock synchronised (NTP via systemd-timesyncd,
/// chrony…). A Raspberry Pi has no RTC: until the network time arrives, its wall clock starts
/// from the last shutdown (fake-hwclock) or 1970, and decisions must say so.
package enum ClockSync {
    /// `adjtimex(2)` with modes 0 (read only): false when the status has STA_UNSYNC or the
    /// return value is TIME_ERROR (the same test as `timedatectl`'s "System clock
    /// synchronized"); nil when the call fails (a seccomp filter, an odd kernel).
    package static func isSynchronised() -> Bool? {
        var t = timex()
        t.modes = 0
        let state = adjtimex(&t)
        if state < 0 { return nil }
        return synchronised(state: state, status: t.status)
    }

    /// The decision itself, on values (testable without the kernel's opinion).
    package static func synchronised(state: Int32, status: Int32) -> Bool {
        state != TIME_ERROR && status & STA_UNSYNC == 0
    }
}

/// This boot's id (`/proc/sys/kernel/random/boot_id`, a UUID the kernel makes at every boot),
/// so monotonic times from different boots are never compared.
package enum BootID {
    /// Read once per process; nil when /proc is not there.
    package static let current: String? = {
        guard let bytes = try? FileIO.readAll("/proc/sys/kernel/random/boot_id", limit: 256) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
        return text.isEmpty ? nil : text
    }()
}
