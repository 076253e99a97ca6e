import Glibc

/// The calling thread's scheduling priority. Linux `nice` is per thread (setpriority(2) on the
/// thread id), so a worker can step below the frame loop: when both want the only free core
/// (a single-core board, a busy one, a one-CPU virtual machine), the scheduler runs the loop
/// and the worker gets what is left, instead of half of each frame.
package enum ThreadPriority {
    /// The kernel thread id (gettid(2), which Swift's Glibc module does not export), read from
    /// the /proc/thread-self link ("PID/task/TID").
    package static func currentThreadID() -> Int32? {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "/").last.flatMap { Int32($0) }
    }

    /// Sets this thread's nice value (0 is the loop's, 19 the lowest). Returns whether it took;
    /// an unprivileged thread may always lower its priority.
    @discardableResult
    package static func setCurrentThreadNice(_ value: Int32) -> Bool {
        guard let tid = currentThreadID() else { return false }
        return setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid), value) == 0
    }

    /// The current thread's nice value, nil when it cannot be read.
    package static func currentThreadNice() -> Int32? {
        guard let tid = currentThreadID() else { return nil }
        errno = 0
        let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid))
        return errno == 0 ? value : nil
    }
}
