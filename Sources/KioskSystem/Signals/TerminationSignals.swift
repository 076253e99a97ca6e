import CLinux
import Glibc

/// SIGTERM, SIGINT and SIGHUP delivered through a signalfd watched by the `EventLoop`, so the
/// program leaves through its normal tear-down (restore the CRTC and the VT) instead of dying
/// inside a signal handler.
package final class TerminationSignals {
    let fd: Int32
    private var token: Int?
    private let loop: EventLoop
    private let watched: [Int32]
    static let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks `signals` for the (single) thread and watches them; `handler` gets the signal number.
    package init(loop: EventLoop, signals: [Int32] = TerminationSignals.signals, handler: @escaping (Int32) -> Void)
        throws(SystemCallError)
    {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        if sigprocmask(SIG_BLOCK, &mask, nil) != 0 {
            throw SystemCallError(call: "sigprocmask", errno: .current)
        }
        let fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        if fd < 0 { throw SystemCallError(call: "signalfd", errno: .current) }
        self.fd = fd
        self.loop = loop
        self.watched = signals
        token = loop.add(fd: fd) { [fd] _ in
            var info = signalfd_siginfo()
            while true {
                let n = read(fd, &info, MemoryLayout<signalfd_siginfo>.size)
                if n != MemoryLayout<signalfd_siginfo>.size { break }
                handler(Int32(info.ssi_signo))
            }
        }
    }

    deinit {
        if let token { loop.remove(token) }
        close(fd)
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in watched { sigaddset(&mask, s) }
        sigprocmask(SIG_UNBLOCK, &mask, nil)
    }

    package static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(signal)"
        }
    }
}
