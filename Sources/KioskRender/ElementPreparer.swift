import CardModel
import Dispatch
import KioskSystem
import Synchronization

/// Draws element images (text layout, gradient, photo, shadow blur) on a thread of its own,
/// so the frame loop never waits for a card shown for the first time: measured on the frame
/// path such a frame cost 26–46 ms at 1920×1080, where a drag frame costs 1.5 ms.
///
/// The loop asks (`request`), the thread draws into a new image of its own — never into a
/// buffer the loop draws or scans out — and hands it back (`takeFinished`), making `readyFD`
/// readable so the loop draws the frame again. Requests a frame needs now go before those made
/// ahead of need. The thread has its own pango font map (pango's default map is per thread).
package final class ElementPreparer: Sendable {
    struct Job: Sendable {
        var key: SurfaceCache.Key
        var pixelsPerPoint: Double
        var images: ImageCache?
    }

    struct Finished: Sendable {
        var key: SurfaceCache.Key
        /// nil when cairo could not allocate it (the loop then draws it itself).
        var image: ElementImage?
        /// Drawn while its photo was still decoding.
        var imagePending: String?
    }

    private let core = Core()

    /// Readable after one or more images were finished; `drainReady()` empties it.
    package var readyFD: Int32 { core.signal.fd }

    package init() {
        do {
            try HelperThread.detach { [core] in core.run() }
        } catch {
            core.failed()
            Log.warning(
                "render: cannot start the preparation thread (\(error.errno)); cards are drawn on the frame loop")
        }
    }

    deinit { core.stop() }

    /// Whether the thread runs; when not, `request` refuses and the caller draws itself.
    package var isRunning: Bool { core.state.withLock { !$0.stopped } }

    /// Queues `key` unless it is queued or being drawn; `urgent` puts it first. False when
    /// the thread is not running.
    @discardableResult
    func request(_ key: SurfaceCache.Key, pixelsPerPoint: Double, images: ImageCache?, urgent: Bool) -> Bool {
        let job = Job(key: key, pixelsPerPoint: pixelsPerPoint, images: images)
        let queued: Bool? = core.state.withLock { s in
            if s.stopped { return nil }
            if s.inFlight.contains(key) {
                if urgent, let i = s.jobs.firstIndex(where: { $0.key == key }), i > 0 {
                    s.jobs.insert(s.jobs.remove(at: i), at: 0)
                }
                return false
            }
            s.inFlight.insert(key)
            if urgent { s.jobs.insert(job, at: 0) } else { s.jobs.append(job) }
            return true
        }
        guard let queued else { return false }
        if queued { core.wake.signal() }
        return true
    }

    /// Takes `key` off the queue if the thread has not begun drawing it; whether it did.
    func cancel(_ key: SurfaceCache.Key) -> Bool {
        core.state.withLock { s in
            guard let i = s.jobs.firstIndex(where: { $0.key == key }) else { return false }
            s.jobs.remove(at: i)
            s.inFlight.remove(key)
            return true
        }
    }

    /// Whether `key` is queued or being drawn.
    func isPending(_ key: SurfaceCache.Key) -> Bool { core.state.withLock { $0.inFlight.contains(key) } }

    /// The images finished since the last call.
    func takeFinished() -> [Finished] {
        core.state.withLock { s in
            defer { s.finished.removeAll() }
            return s.finished
        }
    }

    /// Resets `readyFD` after the poll loop saw it readable.
    package func drainReady() { core.signal.drain() }

    /// Blocks until nothing is queued or being drawn (tests, headless renders, the bench's
    /// idle moments), at most `seconds`; whether it got there. `meanwhile` runs between checks
    /// (every millisecond or so).
    @discardableResult
    package func waitUntilIdle(seconds: Double = 30, meanwhile: () -> Void = {}) -> Bool {
        let deadline = MonotonicClock.now().advanced(bySeconds: seconds)
        while core.state.withLock({ !$0.inFlight.isEmpty && !$0.stopped }) {
            if MonotonicClock.now() >= deadline { return false }
            sleepMilliseconds(1)
            meanwhile()
        }
        return true
    }

    private final class Core: Sendable {
        struct State {
            var jobs: [Job] = []
            var inFlight: Set<SurfaceCache.Key> = []
            var finished: [Finished] = []
            var stopped = false
        }

        let state = Mutex(State())
        let wake = DispatchSemaphore(value: 0)
        let signal = ReadySignal(what: "render")

        func failed() { state.withLock { $0.stopped = true } }

        func stop() {
            state.withLock { $0.stopped = true }
            wake.signal()
        }

        /// The preparation thread's nice value (the loop's is 0).
        static let niceValue: Int32 = 10

        func run() {
            // Below the frame loop, like the store's writer: where both want the one free core,
            // a frame is not shared with a card being drawn ahead of need.
            ThreadPriority.setCurrentThreadNice(Self.niceValue)
            while true {
                wake.wait()
                while let job = next() {
                    let done = Self.draw(job)
                    state.withLock { s in
                        s.inFlight.remove(job.key)
                        s.finished.append(done)
                    }
                    signal.notify()
                }
                if state.withLock({ $0.stopped }) { return }
            }
        }

        private func next() -> Job? {
            state.withLock { s in
                if s.stopped || s.jobs.isEmpty { return nil }
                return s.jobs.removeFirst()
            }
        }

        static func draw(_ job: Job) -> Finished {
            let key = job.key
            var pending: String?
            if case .card(let card) = key.kind, let path = card.imagePath, let images = job.images,
                images.image(at: path) == nil, !images.isSettled(path)
            {
                pending = path
            }
            let painter = ElementPainter(background: key.background, images: job.images)
            let image = ElementSurface.render(
                key.kind, size: key.size, shadowRadius: Double(key.shadowRadius), pixelsPerPoint: job.pixelsPerPoint,
                painter: painter)
            return Finished(key: key, image: image, imagePending: pending)
        }
    }
}
