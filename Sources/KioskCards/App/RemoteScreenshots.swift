import Glibc
import KioskDisplay
import KioskFleet
import KioskRender
import KioskSystem

/// When a kiosk takes a screenshot an operator asked for from afar (`fleet screenshot`):
/// `fleet-screenshot` on or off, at most one every `fleet-screenshot-interval` seconds. Pure:
/// time (monotonic seconds) is a parameter.
struct ScreenshotPolicy: Hashable, Sendable {
    var enabled = true
    var minimumInterval = 10.0
    /// When the last screenshot was taken (monotonic seconds), nil: none yet.
    private(set) var lastTaken: Double?

    init(enabled: Bool = true, minimumInterval: Double = 10) {
        self.enabled = enabled
        self.minimumInterval = minimumInterval
    }

    /// Why a request at `now` is refused, nil: it may be taken (call `taken(at:)` once it was).
    func refusal(at now: Double) -> String? {
        guard enabled else {
            return "screenshots are off on this kiosk (fleet-screenshot = off in its kiosk.conf)"
        }
        if let last = lastTaken, now - last < minimumInterval {
            let ago = Int(now - last)
            let wait = Int((minimumInterval - (now - last)).rounded(.up))
            return "this kiosk takes at most one screenshot every \(jsonNumber(minimumInterval, decimals: 0)) s "
                + "(fleet-screenshot-interval); the last was \(ago) s ago: ask again in \(wait) s"
        }
        return nil
    }

    mutating func taken(at now: Double) { lastTaken = now }
}

/// The kiosk's side of a screenshot from afar. The fleet worker (its own thread) reads the
/// open requests, asks the poll loop for its frame through `FrameDesk` (the loop only copies
/// the frame it composed last, in ordinary memory: never the scanout), turns and encodes it
/// as `render` does (`ScanoutCopy.panelPicture`, cairo's PNG encoder) on the worker's thread,
/// and uploads it with the frame's wall time. Refusals say why (off, too soon, the staff menu
/// is open, the loop did not answer).
final class RemoteScreenshots: @unchecked Sendable {
    /// Worker thread only.
    var policy: ScreenshotPolicy
    let desk = FrameDesk()
    /// Taken since start, for the log and tests (worker thread).
    private(set) var taken = 0
    /// How long the worker waits for the loop's frame (seconds; set before the worker starts).
    var frameTimeout = 5.0

    init(policy: ScreenshotPolicy) { self.policy = policy }

    /// The refusal of a request the loop can no longer answer: the app is exiting.
    static let shutdownReason =
        "the kiosk's app is shutting down; ask again once 'fleet status' shows it online"

    /// Answers every open request of this kiosk (the worker thread, connected).
    func answerPending(on db: PostgresConnection) throws(FleetError) {
        for request in try FleetScreenshots.pending(on: db) {
            let now = MonotonicClock.now().seconds
            if let reason = policy.refusal(at: now) {
                try refuse(request, reason, on: db)
                continue
            }
            switch desk.capture(timeout: frameTimeout) {
            case nil:
                let waited = jsonNumber(frameTimeout, decimals: 0)
                try refuse(request, "the kiosk's frame loop did not answer within \(waited) s", on: db)
            case .refused(let reason)?:
                try refuse(request, reason, on: db)
            case .frame(let box, let rotation, let format, let wallMs)?:
                let started = MonotonicClock.now()
                let picture: PixelBuffer
                let png: [UInt8]
                do { (picture, png) = try Self.encode(box.value, rotation: rotation, format: format) } catch {
                    try refuse(request, "the kiosk could not encode its frame: \(error)", on: db)
                    continue
                }
                guard png.count <= FleetSchema.screenshotMaxBytes else {
                    try refuse(
                        request,
                        "the frame's PNG is \(png.count >> 20) MB; the server keeps at most "
                            + "\(FleetSchema.screenshotMaxBytes >> 20) MB", on: db)
                    continue
                }
                let encodeMs = MonotonicClock.now().seconds(since: started) * 1000
                try FleetScreenshots.answer(
                    request.id, png: png, width: picture.width, height: picture.height, takenWallMs: wallMs, on: db)
                policy.taken(at: now)
                taken += 1
                Log.info(
                    "fleet: screenshot \(request.id) sent (\(picture.width)×\(picture.height), \(png.count) bytes, "
                        + "encoded in \(jsonNumber(encodeMs, decimals: 1)) ms)")
            }
        }
    }

    /// The panel's picture of an upright frame (turned and converted as the display copies
    /// it: what `render` writes for the same state) and its PNG.
    static func encode(_ frame: PixelBuffer, rotation: Rotation, format: PixelFormat) throws(RenderError) -> (
        picture: PixelBuffer, png: [UInt8]
    ) {
        let picture = ScanoutCopy.panelPicture(frame, rotation: rotation, format: format)
        return (picture, try picture.pngBytes())
    }

    private func refuse(_ request: FleetScreenshots.Request, _ reason: String, on db: PostgresConnection)
        throws(FleetError)
    {
        try FleetScreenshots.refuse(request.id, reason: reason, on: db)
        Log.info("fleet: screenshot \(request.id) refused: \(reason)")
    }
}

/// Where a thread asks the poll loop for its frame: `capture` (any thread) wakes the loop
/// through a `ReadySignal` and waits, bounded; the loop runs the app's answer (a copy of its
/// composed frame, or a refusal) and hands it back. The loop never waits for the asker.
final class FrameDesk: @unchecked Sendable {
    enum Answer {
        /// A copy of the composed (upright) frame, how the panel turns and stores it, and the
        /// wall time it was copied at (milliseconds since 1970).
        case frame(UncheckedBox<PixelBuffer>, rotation: Rotation, format: PixelFormat, wallMs: Int64)
        case refused(String)
    }

    private let ready = ReadySignal(what: "screenshot")
    private let sync = Condition()
    // Guarded by `sync`.
    private var asked = 0
    private var answered = 0
    private var answer: Answer?
    private var token: Int?
    /// Why the loop no longer answers (it has ended), nil: it does.
    private var closedReason: String?

    /// The loop answers with `answer` from now on.
    func attach(to loop: EventLoop, answer: @escaping () -> Answer) {
        token = loop.add(fd: ready.fd) { [unowned self] _ in
            self.ready.drain()
            let (wanted, done) = self.sync.withLock { (self.asked, self.answered) }
            guard wanted > done else { return }
            let value = answer()
            self.sync.withLock {
                self.answer = value
                self.answered = wanted
                self.sync.broadcast()
            }
        }
    }

    /// Asks the loop for its frame and waits up to `timeout` seconds; nil: no answer in time.
    /// Once the desk is closed, a refusal with its reason at once (also to an asker waiting).
    func capture(timeout: Double) -> Answer? {
        let deadline = Condition.deadline(afterSeconds: timeout)
        sync.lock()
        defer { sync.unlock() }
        if let closedReason { return .refused(closedReason) }
        asked += 1
        let mine = asked
        answer = nil
        ready.notify()
        while answered < mine && closedReason == nil {
            if !sync.wait(untilNanoseconds: deadline) { break }
        }
        if answered < mine, let closedReason { return .refused(closedReason) }
        guard answered >= mine else { return nil }
        defer { answer = nil }
        return answer
    }

    /// The loop has ended (the app is shutting down): an asker waiting, and every later one,
    /// gets a refusal with `reason` now instead of waiting out its timeout for a loop that will
    /// never answer, so exit does not wait for a screenshot.
    func close(reason: String) {
        sync.withLock {
            guard closedReason == nil else { return }
            closedReason = reason
            sync.broadcast()
        }
    }

    /// Asks the loop has not answered (yet): one while an asker waits for a loop that does not run.
    var unanswered: Int { sync.withLock { asked - answered } }
}
