import CardModel
import Glibc
import KioskSystem

/// Where one input's way to the screen went (all CLOCK_MONOTONIC): the kernel's timestamp of
/// the input event, when the loop read it, when the frame that first shows it began drawing and
/// when that frame's flip was issued. With the flip event's timestamp the four stages add up to
/// the input→flip latency.
struct InputTrace: Equatable {
    /// The kernel's timestamp of the event (evdev, `libevdev_set_clock_id(CLOCK_MONOTONIC)`).
    var input: Instant
    /// When the loop handed it to the model.
    var read: Instant
    /// When the frame that shows it began (scene, render, copy).
    var drawBegan: Instant?
    /// When that frame's page flip was issued.
    var issued: Instant?
}

/// What the running kiosk measures about itself: start-up, input-to-flip latency (and its
/// stages), frame cost, frames per gesture and memory. Written as JSON by `--stats FILE` on
/// exit, and as one log line on SIGUSR2.
struct RunStats {
    /// When `main` started (CLOCK_MONOTONIC).
    var processStart: Instant
    /// The first completed page flip.
    var firstFlip: Instant?
    /// Kernel timestamp of a touch to the flip that first shows it, milliseconds.
    private(set) var latencies = BoundedSamples(capacity: 20_000)
    /// The latency's stages (`InputTrace`), milliseconds: kernel → loop, loop → the frame's
    /// start (waiting for a flip in flight, or for the pacer's moment), drawing, flip → screen.
    private(set) var readDelays = BoundedSamples(capacity: 20_000)
    private(set) var frameWaits = BoundedSamples(capacity: 20_000)
    private(set) var drawTimes = BoundedSamples(capacity: 20_000)
    private(set) var scanoutWaits = BoundedSamples(capacity: 20_000)
    /// Time spent building the scene, rendering and copying one frame, milliseconds (wall);
    /// all but the first frame, which is start-up (fonts, the first layouts, the still layer).
    private(set) var frameTimes = BoundedSamples(capacity: 20_000)
    /// The first frame's time, milliseconds (in `start_to_first_frame_ms`, not `frameTimes`).
    private(set) var firstFrameMilliseconds: Double?
    /// The same frames' CPU time on the loop thread, milliseconds: wall time beyond it was
    /// spent waiting for the CPU (other threads, other processes, a virtual machine's host).
    private(set) var frameCPUTimes = BoundedSamples(capacity: 20_000)
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

    /// A frame was drawn in `milliseconds` of wall time and `cpuMilliseconds` of this thread's
    /// CPU time (nil: not measured).
    mutating func frameDrawn(milliseconds: Double, cpuMilliseconds: Double? = nil) {
        framesDrawn += 1
        framesThisGesture += 1
        guard framesDrawn > 1 else {
            firstFrameMilliseconds = milliseconds
            return
        }
        frameTimes.append(milliseconds)
        if let cpuMilliseconds { frameCPUTimes.append(cpuMilliseconds) }
    }

    /// A flip completed at `time`; `input` is the earliest input it is the first to show.
    mutating func flipCompleted(at time: Instant, input: InputTrace?) {
        flips += 1
        recentFlips[flips % recentFlips.count] = time
        if firstFlip == nil {
            firstFlip = time
            let ms = jsonNumber(time.seconds(since: processStart) * 1000, decimals: 1)
            Log.info("kiosk: first frame on screen \(ms) ms after start")
        }
        guard let input else { return }
        func ms(_ a: Instant, _ b: Instant) -> Double { a.seconds(since: b) * 1000 }
        latencies.append(ms(time, input.input))
        guard let drawBegan = input.drawBegan, let issued = input.issued else { return }
        readDelays.append(ms(input.read, input.input))
        frameWaits.append(ms(drawBegan, input.read))
        drawTimes.append(ms(issued, drawBegan))
        scanoutWaits.append(ms(time, issued))
    }

    /// CPU time this thread has used, in milliseconds (CLOCK_THREAD_CPUTIME_ID).
    static func threadCPUMilliseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
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
            ("first_frame_time_ms", ms(firstFrameMilliseconds)),
            ("input_to_flip_p50_ms", ms(latencies.percentile(50))),
            ("input_to_flip_p90_ms", ms(latencies.percentile(90))),
            ("input_to_flip_p95_ms", ms(latencies.percentile(95))),
            ("input_to_flip_p99_ms", ms(latencies.percentile(99))),
            ("input_to_flip_max_ms", ms(latencies.maximum)),
            ("input_to_flip_samples", String(latencies.count)),
        ]
        for (name, samples) in [
            ("input_to_read", readDelays), ("read_to_draw", frameWaits), ("draw_to_issue", drawTimes),
            ("issue_to_flip", scanoutWaits),
        ] {
            fields += [
                ("\(name)_p50_ms", ms(samples.percentile(50))), ("\(name)_p99_ms", ms(samples.percentile(99))),
            ]
        }
        fields += [
            ("frame_time_p50_ms", ms(frameTimes.percentile(50))),
            ("frame_time_p90_ms", ms(frameTimes.percentile(90))),
            ("frame_time_p99_ms", ms(frameTimes.percentile(99))),
            ("frame_time_max_ms", ms(frameTimes.maximum)),
            ("frame_cpu_p50_ms", ms(frameCPUTimes.percentile(50))),
            ("frame_cpu_p99_ms", ms(frameCPUTimes.percentile(99))),
            ("frame_cpu_max_ms", ms(frameCPUTimes.maximum)),
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
            + "input→flip p50 \(f(latencies.percentile(50))) ms p90 \(f(latencies.percentile(90))) ms "
            + "p99 \(f(latencies.percentile(99))) ms, "
            + "frame p50 \(f(frameTimes.percentile(50))) ms p99 \(f(frameTimes.percentile(99))) ms "
            + "(CPU p50 \(f(frameCPUTimes.percentile(50))) ms p99 \(f(frameCPUTimes.percentile(99))) ms), "
            + "peak RSS \(peakRSSKilobytes / 1024) MB"
    }
}
