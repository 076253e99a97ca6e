import Synchronization

/// Work run off the loop whose results come back to it: `run` starts `work` on a background
/// queue and returns at once; each result is handed to `deliver` on the loop's thread, in the
/// order the jobs finished, when the loop next polls (a `ReadySignal` wakes it).
///
/// For calls that take too long for a frame but must answer the loop (the staff PIN's
/// yescrypt check, tens of milliseconds).
package final class LoopDelivery<Output: Sendable> {
    /// What workers hand back: shared with the worker threads, nothing else is.
    private final class Inbox: Sendable {
        let results = Mutex<[Output]>([])
        let ready: ReadySignal
        init(what: String) { ready = ReadySignal(what: what) }
    }

    private let inbox: Inbox
    private let loop: EventLoop
    private var token: Int?
    private let deliver: (Output) -> Void
    /// Jobs started and not yet delivered (read on the loop's thread).
    package private(set) var inFlight = 0

    package init(loop: EventLoop, what: String, deliver: @escaping (Output) -> Void) {
        self.loop = loop
        self.deliver = deliver
        inbox = Inbox(what: what)
        token = loop.add(fd: inbox.ready.fd) { [weak self] _ in self?.drain() }
    }

    deinit {
        if let token { loop.remove(token) }
    }

    /// Starts `work` in the background (its own serial queue named `label`); never waits.
    @discardableResult
    package func run(_ label: String, _ work: @escaping @Sendable () -> Output) -> BackgroundJob {
        inFlight += 1
        let inbox = inbox
        return BackgroundWork.run(label) {
            let output = work()
            inbox.results.withLock { $0.append(output) }
            inbox.ready.notify()
        }
    }

    /// Hands finished results to `deliver` (the loop calls this when the signal is readable).
    package func drain() {
        inbox.ready.drain()
        let done = inbox.results.withLock { list in
            defer { list = [] }
            return list
        }
        for output in done {
            inFlight -= 1
            deliver(output)
        }
    }
}
