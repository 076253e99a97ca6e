import Glibc

/// A "something is ready" signal from a worker thread to the poll loop: a non-blocking pipe
/// whose read end (`fd`) the loop watches. `notify()` may be called from any thread; many
/// notifications before the loop looks read as one.
package final class ReadySignal: Sendable {
    /// Readable after one or more `notify()` calls; `drain()` empties it. -1 when the pipe
    /// could not be made (the results then show with the next frame drawn for another reason).
    package let fd: Int32
    private let notifyFD: Int32

    /// `what` names the worker in the warning when no pipe can be made.
    package init(what: String) {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            Log.warning("\(what): 'pipe' failed: \(Errno.current); finished work shows with the next frame")
            fds = [-1, -1]
        }
        fd = fds[0]
        notifyFD = fds[1]
    }

    deinit {
        if fd >= 0 { close(fd) }
        if notifyFD >= 0 { close(notifyFD) }
    }

    /// Makes `fd` readable. A full pipe already says "ready"; nothing else that can go wrong
    /// here matters.
    package func notify() {
        var one: UInt8 = 1
        if notifyFD >= 0 { _ = write(notifyFD, &one, 1) }
    }

    /// Resets `fd` after the poll loop saw it readable.
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while fd >= 0, read(fd, &bytes, bytes.count) > 0 {}
    }
}
