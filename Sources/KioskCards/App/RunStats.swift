import CardModel
import Glibc
import KioskSystem

/// What the running kiosk measures about itself: start-up, input-to-flip latency, frame cost,
/// frames per gesture and memory. Written as JSON by `--stats FILE` on exit, and as one log
/// line on SIGUSR2.
struct RunStats {
    /// When `main` started (CLOCK_MONOTONIC).
    var processStart: Instant
    /// The first completed page flip.
    var firstFlip: Instant?
    /// Kernel timestamp of a touch to the flip that first shows it, milliseconds.
    private(set) var latencies = BoundedSamples(capacity: 20_000)
    /// Time spent building the scene, rendering and copying one frame, milliseconds.
    private(set) var frameTimes = BoundedSamples(capacity: 20_000)
    private(set) var framesDrawn = 0
    private(set) var flips = 0
    /// Touch sequences: from the first finger down to the last finger up.
    private(set) var gestures = 0
    /// Frames drawn during each finished gesture and the animation that follows it.
    private(set) var framesPerGesture = BoundedSamples(capacity: 5_000)
    private var framesThisGesture = 0
    private var gestureOpen = false

    /// The last flips' times (a ring indexed by the flip count), for the frame rate.
    private var recentFlips = [Instant](repeating: Instant(nanoseconds: .min), count: 256)

    init(processStart: Instant) { self.processStart = processStart }

    /// Flips in the second before `now`: the frame rate while animating, 0 when idle.
    func framesPerSecond(at now: Instant) -> Int {
        let from = now.nanoseconds - 1_000_000_000
        return recentFlips.filter { $0.nanoseconds > from && $0 <= now }.count
    }

    mutating func frameDrawn(milliseconds: Double) {
        framesDrawn += 1
        framesThisGesture += 1
        frameTimes.append(milliseconds)
    }

    mutating func flipCompleted(at time: Instant, inputTime: Instant?) {
        flips += 1
        recentFlips[flips % recentFlips.count] = time
        if firstFlip == nil { firstFlip = time }
        if let inputTime { latencies.append(time.seconds(since: inputTime) * 1000) }
    }

    /// A touch sequence began (first finger down).
    mutating func gestureBegan() {
        if gestureOpen { framesPerGesture.append(Double(framesThisGesture)) }
        gestures += 1
        gestureOpen = true
        framesThisGesture = 0
    }

    /// Closes the frame count of the last gesture (at exit).
    mutating func finish() {
        if gestureOpen { framesPerGesture.append(Double(framesThisGesture)) }
        gestureOpen = false
    }

    /// Peak resident set size of this process, in kilobytes.
    static func peakRSSKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    /// The figures as one JSON object.
    /// `more` are appended (e.g. the display's `FlipIntervals.jsonFields`).
    func json(peakRSSKilobytes: Int, more: [(String, String)] = []) -> String {
        func ms(_ v: Double?) -> String { v.map { jsonNumber($0, decimals: 3) } ?? "null" }
        var fields: [(String, String)] = [
            ("boot_to_first_frame_ms", ms(firstFlip.map { Double($0.nanoseconds) / 1e6 })),
            ("start_to_first_frame_ms", ms(firstFlip.map { $0.seconds(since: processStart) * 1000 })),
            ("input_to_flip_p50_ms", ms(latencies.percentile(50))),
            ("input_to_flip_p99_ms", ms(latencies.percentile(99))),
            ("input_to_flip_samples", String(latencies.count)),
            ("frame_time_p50_ms", ms(frameTimes.percentile(50))),
            ("frame_time_p99_ms", ms(frameTimes.percentile(99))),
            ("frames_drawn", String(framesDrawn)),
            ("flips", String(flips)),
            ("gestures", String(gestures)),
            ("frames_per_gesture_p50", ms(framesPerGesture.percentile(50))),
            ("frames_per_gesture_max", ms(framesPerGesture.maximum)),
            ("peak_rss_kb", String(peakRSSKilobytes)),
        ]
        fields += more
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// One line for the log.
    func line(peakRSSKilobytes: Int, now: Instant) -> String {
        func f(_ v: Double?) -> String { v.map { jsonNumber($0, decimals: 2) } ?? "-" }
        return "stats: frames \(framesDrawn), flips \(flips), fps \(framesPerSecond(at: now)), gestures \(gestures), "
            + "input→flip p50 \(f(latencies.percentile(50))) ms p99 \(f(latencies.percentile(99))) ms, "
            + "frame p50 \(f(frameTimes.percentile(50))) ms p99 \(f(frameTimes.percentile(99))) ms, "
            + "peak RSS \(peakRSSKilobytes / 1024) MB"
    }
}
