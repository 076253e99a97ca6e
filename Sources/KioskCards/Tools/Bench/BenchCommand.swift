import CardModel
import Glibc
import KioskDeckFiles
import KioskDisplay
import KioskRender
import KioskSystem

/// `KioskCards bench [--json] [--frames N] [--cpu-time] [--size WxH] [--scene NAME]
/// [--budget-ms MS] [--instructions] [--no-probe]`: frame times of the renderer on this machine.
///
/// Scenes (scale S = height/600 pixels per point, so every size shows 600 points high), the
/// example decks in `examples/` through the real deck loader and the real decks, a finger
/// moving at 60 Hz, with the app's idle preparation between gestures:
/// - stack-drag: `onboarding.json`'s top card dragged 0 → 300 points and back (`--frames`);
/// - stack-drag-photo: the same on `products/products.json`, whose top card has a photo;
/// - stack-visit, photo-visit: a whole visit of those decks (every card revealed, dragged,
///   released, flown out; the stack settles; the empty state);
/// - list-visit: `seed-list.json`'s rows repeated to 40, flicked up, a row swiped away, a row
///   opened to its detail page and closed.
/// Each is timed with the real pipeline and two fair cairo baselines measured in the same run
/// (`cairo-redraw`: every element redrawn each frame, shadows blurred once; `cairo-cached`:
/// each element drawn once into a surface, composited by cairo each frame), after a warm-up,
/// next to a hot and a cold memcpy of one frame (the cold one cycles through more memory than
/// the last-level cache holds). `--instructions` adds the real pipeline's instructions per
/// frame counted by valgrind (callgrind), a figure that does not move with machine load.
/// Then a fresh process draws the sweep with a 50-card deck at 1920×1080, another at 800×480,
/// each reporting its peak memory and the time from its start to its first composed frame (the
/// median of nine such starts: one start is the scheduler's as much as the program's).
struct FrameStats {
    var frames: Int
    var median: Double
    var p90: Double
    var p99: Double
    var max: Double
    var overBudget: Int

    init(_ times: [Double], budget: Double) {
        frames = times.count
        median = percentile(50, of: times) ?? 0
        p90 = percentile(90, of: times) ?? 0
        p99 = percentile(99, of: times) ?? 0
        max = times.max() ?? 0
        overBudget = times.filter { $0 > budget }.count
    }

    init(frames: Int, median: Double, p90: Double, p99: Double, max: Double, overBudget: Int) {
        (self.frames, self.median, self.p90, self.p99, self.max, self.overBudget) =
            (frames, median, p90, p99, max, overBudget)
    }
}

struct BenchResult {
    var scene: String
    var size: String
    var pipeline: String
    var stats: FrameStats
    /// Instructions per frame (valgrind), when measured.
    var instructions: Double?
    /// Frames that showed a stand-in while a card was still being drawn off the loop.
    var standIns: Int?
    /// Every timed frame of the real pipeline (`--worst`), and those counted by valgrind.
    var frames: [FrameRecord] = []
    var countedFrames: [FrameRecord] = []
    var extra: [(String, Double)] = []

    /// p99 ÷ median of the counted frames' instructions: how much more work the p99 frame does
    /// than the median one, which machine load does not stretch; nil when none were counted.
    var instructionsP99OverMedian: Double? {
        let counts = countedFrames.compactMap(\.instructions)
        guard let median = percentile(50, of: counts), median > 0, let p99 = percentile(99, of: counts) else {
            return nil
        }
        return p99 / median
    }

    /// The worst frames by time and, when counted, by instructions (`--worst`).
    func worst(_ count: Int) -> (byTime: WorstFrames?, byInstructions: WorstFrames?) {
        guard count > 0 else { return (nil, nil) }
        return (
            frames.isEmpty ? nil : WorstFrames(frames, count: count) { $0.ms },
            countedFrames.isEmpty ? nil : WorstFrames(countedFrames, count: count) { $0.instructions ?? 0 }
        )
    }

    func json(worst count: Int = 0) -> String {
        func num(_ v: Double) -> String { jsonNumber(v, decimals: 3) }
        var s = "{\"scene\":\"\(scene)\",\"size\":\"\(size)\",\"pipeline\":\"\(pipeline)\",\"frames\":\(stats.frames),"
        s += "\"median_ms\":\(num(stats.median)),\"p90_ms\":\(num(stats.p90)),\"p99_ms\":\(num(stats.p99)),"
        s += "\"max_ms\":\(num(stats.max)),\"over_budget\":\(stats.overBudget)"
        if let instructions { s += ",\"instructions_per_frame\":\(num(instructions.rounded()))" }
        if let ratio = instructionsP99OverMedian { s += ",\"instructions_p99_over_median\":\(num(ratio))" }
        if let standIns { s += ",\"stand_in_frames\":\(standIns)" }
        for (k, v) in extra { s += ",\"\(k)\":\(num(v))" }
        let (byTime, byInstructions) = worst(count)
        if let byTime { s += "," + byTime.json(prefix: "", valueKey: "ms") { $0.ms } }
        if let byInstructions {
            s += "," + byInstructions.json(prefix: "counted_", valueKey: "instructions") { $0.instructions ?? 0 }
        }
        return s + "}"
    }
}

/// One way of drawing frames: what the app does, or a baseline.
struct FramePipeline {
    var render: (Scene, PixelBuffer) -> Void
    var prepare: (SceneElement, Color) -> Void
    /// The end of an idle moment: background preparation has had its time.
    var idle: () -> Void = {}
    /// An idle moment with nothing to prepare: what was prepared and never shown goes.
    var discard: () -> Void = {}
    /// Frames that showed a stand-in for an image still being prepared.
    var standIns: () -> Int = { 0 }
    /// What the last frame did (the real pipeline only).
    var work: () -> SceneRenderer.FrameWork? = { nil }
    /// Pixels the frames wrote so far: their damage, what the display copies to scanout
    /// (the real pipeline only).
    var pixelsWritten: () -> Int = { 0 }
}

/// One timed frame: its index among the scene's frames, its time, and what it did.
struct FrameRecord: Equatable {
    var index: Int
    var ms: Double
    var work: SceneRenderer.FrameWork?
    /// Instructions (valgrind), when counted.
    var instructions: Double?
}

enum Bench {
    static let sizes = [(800, 480), (1280, 800), (1920, 1080)]
    static let scenes = ["stack-drag", "stack-drag-photo", "stack-visit", "photo-visit", "list-visit"]
    static let pipelines = ["real", "cairo-redraw", "cairo-cached"]

    /// Frame times by CLOCK_MONOTONIC (wall), or with `--cpu-time` by this thread's CPU
    /// clock, which leaves out time other processes took on a shared machine.
    nonisolated(unsafe) static var clock = CLOCK_MONOTONIC

    static func now() -> Instant {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    static func milliseconds(since start: Instant) -> Double {
        Double(now().nanoseconds - start.nanoseconds) / 1e6
    }

    /// The drag there and back in `frames` steps, in points.
    static func dragOffsets(frames: Int) -> [Double] {
        let half = max(1, frames / 2)
        return (0..<frames).map { i in
            let t = i < half ? Double(i) / Double(half) : Double(frames - 1 - i) / Double(max(1, frames - 1 - half))
            return 300 * min(1, max(0, t))
        }
    }

    struct Decks {
        var stack: DeckFile
        var photo: DeckFile
        var list: DeckFile
    }

    /// The example decks the scenes are made of; nil (and a message) when `examples/` is not found.
    static func exampleDecks() -> Decks? {
        guard let stack = exampleDeck("onboarding.json"), let photo = exampleDeck("products/products.json"),
            let list = exampleDeck("seed-list.json")
        else { return nil }
        return Decks(stack: stack, photo: photo, list: list)
    }

    /// One example deck (`examples/NAME`); nil (and a message) when it cannot be read.
    static func exampleDeck(_ name: String) -> DeckFile? {
        guard let dir = ExampleScenes.directory() else {
            Log.error("bench: cannot find examples/onboarding.json; run bench from the repository (or /opt/kioskcards)")
            return nil
        }
        do {
            return try ExampleScenes.deck(name, in: dir)
        } catch {
            Log.error("\(error)")
            return nil
        }
    }

    /// The first screen and what follows it, for `scene` at `size` (points).
    static func steps(_ scene: String, decks: Decks, size: Size, frames: Int) -> (
        first: Scene, steps: [ExampleScenes.Step]
    ) {
        switch scene {
        case "stack-drag", "stack-drag-photo":
            var deck = ExampleScenes.makeDeck(scene == "stack-drag" ? decks.stack : decks.photo, size: size)
            let rest = deck.scene(at: ExampleScenes.start)
            let prepare = deck.elementsToPrepare(in: rest)
            let offsets = dragOffsets(frames: frames).map { Point(x: $0, y: 0) }
            let drag = ExampleScenes.drag(&deck, from: ExampleScenes.origin(of: rest), offsets: offsets)
            var steps: [ExampleScenes.Step] = [.idle(prepare)]
            for (i, scene) in drag.enumerated() {
                steps.append(.frame(scene))
                if ExampleScenes.showsStampFirst(scene, after: i > 0 ? drag[i - 1] : rest) { steps.append(.catchUp) }
            }
            return (rest, steps)
        case "stack-visit":
            let v = ExampleScenes.stackVisit(decks.stack, size: size)
            return (v.first, v.steps)
        case "photo-visit":
            let v = ExampleScenes.stackVisit(decks.photo, size: size)
            return (v.first, v.steps)
        default:
            let v = ExampleScenes.listVisit(decks.list, size: size)
            return (v.first, v.steps)
        }
    }

    static func makePipeline(_ name: String, pixelWidth w: Int, pixelHeight h: Int, scale: Double, images: ImageCache)
        -> FramePipeline
    {
        switch name {
        case "real":
            // As the app runs it: cards and pages drawn on the preparation thread, each frame
            // composed in bands and copied to a scanout-sized buffer (`BenchShow`).
            let preparer = ElementPreparer()
            let r = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: scale, images: images, preparer: preparer)
            let show = BenchShow(renderer: r, bandSized: false)
            var pixels = 0
            return FramePipeline(
                render: { scene, _ in
                    show.show(scene)
                    pixels += r.lastFramePixels
                }, prepare: { r.prepare($0, background: $1) },
                idle: { r.waitForPrepared() }, discard: { r.discardPreparedAhead() },
                standIns: { r.stats.placeholderFrames }, work: { r.lastFrame },
                pixelsWritten: { pixels })
        case "cairo-redraw":
            let r = NaiveRenderer(scale: scale, images: images, cacheShadows: true)
            return FramePipeline(render: { r.render($0, into: $1) }, prepare: { _, _ in })
        default:
            let r = CairoCachedRenderer(scale: scale, images: images)
            return FramePipeline(render: { r.render($0, into: $1) }, prepare: { r.prepare($0, background: $1) })
        }
    }

    /// Runs the steps on `pipeline`: the first screen untimed, then each frame timed; idle
    /// steps prepare, untimed, as the app does between gestures.
    static func run(_ pipeline: FramePipeline, first: Scene, steps: [ExampleScenes.Step], buffer: PixelBuffer)
        -> [FrameRecord]
    {
        pipeline.render(first, buffer)
        var frames: [FrameRecord] = []
        for step in steps {
            switch step {
            case .idle(let elements):
                if elements.isEmpty { pipeline.discard() }
                for e in elements { pipeline.prepare(e, first.background) }
                pipeline.idle()
            case .catchUp:
                pipeline.idle()
            case .frame(let scene):
                let t = now()
                pipeline.render(scene, buffer)
                let ms = milliseconds(since: t)
                frames.append(FrameRecord(index: frames.count, ms: ms, work: pipeline.work()))
            }
        }
        return frames
    }

    /// The photos the scenes show, decoded before timing (the app decodes them off the loop
    /// thread ahead of need; a frame never waits for one).
    static func decodePhotos(
        first: Scene, steps: [ExampleScenes.Step], pixelWidth w: Int, pixelHeight h: Int, scale: Double,
        images: ImageCache
    ) {
        let buffer = PixelBuffer(width: w, height: h)
        let warm = makePipeline("real", pixelWidth: w, pixelHeight: h, scale: scale, images: images)
        _ = run(warm, first: first, steps: steps, buffer: buffer)
        // Its preparation thread asks for photos of cards it draws after the frame that needed
        // them returned: wait for it before waiting for the decodes, or one may start later
        // and a timed (or compared) frame show its stand-in.
        warm.idle()
        images.waitUntilIdle()
        images.drainReady()
    }

    static func timeCopy(_ buffer: PixelBuffer, frames: Int) -> [Double] {
        let target = PixelBuffer(width: buffer.width, height: buffer.height)
        return (0..<frames).map { _ in
            let t = now()
            target.pixels.copyMemory(from: buffer.pixels, byteCount: buffer.stride * buffer.height)
            return milliseconds(since: t)
        }
    }

    /// The last-level cache's size in bytes (sysfs), 32 MiB when unknown.
    static func lastLevelCacheBytes() -> Int {
        var best = 0
        for index in 0..<8 {
            let dir = "/sys/devices/system/cpu/cpu0/cache/index\(index)/"
            guard let text = try? readTextFile(dir + "size") else { continue }
            let digits = text.prefix { $0.isNumber }
            guard var bytes = Int(digits) else { continue }
            if text.contains("K") { bytes <<= 10 } else if text.contains("M") { bytes <<= 20 }
            best = max(best, bytes)
        }
        return best > 0 ? best : 32 << 20
    }

    /// Buffers in the cold copy's ring: more than twice the last-level cache in all.
    static func coldRingCount(frameBytes: Int) -> Int {
        max(4, 2 * lastLevelCacheBytes() / frameBytes + 2)
    }

    /// One frame copied between buffers of a ring that spans twice the last-level cache, so
    /// neither side is in cache: what scanning out a freshly drawn frame costs at worst.
    static func timeColdCopy(width: Int, height: Int, frames: Int) -> [Double] {
        let bytes = width * height * 4
        let count = coldRingCount(frameBytes: bytes)
        let ring = (0..<count).map { _ in PixelBuffer(width: width, height: height) }
        for b in ring { memset(b.pixels, 0x5a, bytes) }
        return (0..<frames).map { i in
            let source = ring[(2 * i) % count]
            let target = ring[(2 * i + 1) % count]
            let t = now()
            target.pixels.copyMemory(from: source.pixels, byteCount: bytes)
            return milliseconds(since: t)
        }
    }

    /// The display's damage copy of a whole frame into a scanout buffer in `format` (ordinary
    /// memory here; on a Pi it is uncached), turned by `rotation` (a quarter turn swaps the
    /// buffer's sides).
    static func timeScanoutCopy(
        _ frame: PixelBuffer, format: PixelFormat, rotation: Rotation = .deg0, frames: Int
    ) -> [Double] {
        let turned = rotation == .deg90 || rotation == .deg270
        let stride = (turned ? frame.height : frame.width) * format.bytesPerPixel
        let target = UnsafeMutableRawPointer.allocate(
            byteCount: stride * (turned ? frame.width : frame.height), alignment: 64)
        defer { target.deallocate() }
        return (0..<frames).map { _ in
            let t = now()
            ScanoutCopy.copy(
                frame, damage: frame.bounds, rotation: rotation, format: format, to: target, destinationStride: stride)
            return milliseconds(since: t)
        }
    }

    static func run(
        frames: Int, budget: Double, only: String?, scene: String?, decks: Decks, progress: (String) -> Void
    ) -> [BenchResult] {
        var results: [BenchResult] = []
        for (w, h) in sizes where only == nil || only == "\(w)x\(h)" {
            let s = Double(h) / 600
            let size = Size(width: Double(w) / s, height: 600)
            let label = "\(w)x\(h)"
            let buffer = PixelBuffer(width: w, height: h)
            // The drag frame's damage, in pixels per frame: what the display copies to scanout.
            var dragPixels: Double?
            for name in scenes where scene == nil || scene == name {
                progress("\(name) \(label)")
                let (first, steps) = steps(name, decks: decks, size: size, frames: frames)
                let images = ImageCache()
                decodePhotos(first: first, steps: steps, pixelWidth: w, pixelHeight: h, scale: s, images: images)
                for p in pipelines {
                    // Warm-up: a throwaway pipeline draws the first frames (code, fonts, allocator).
                    let warm = makePipeline(p, pixelWidth: w, pixelHeight: h, scale: s, images: images)
                    _ = run(warm, first: first, steps: Array(steps.prefix(30)), buffer: buffer)
                    let pipeline = makePipeline(p, pixelWidth: w, pixelHeight: h, scale: s, images: images)
                    let frames = run(pipeline, first: first, steps: steps, buffer: buffer)
                    var result = BenchResult(
                        scene: name, size: label, pipeline: p, stats: FrameStats(frames.map(\.ms), budget: budget))
                    if p == "real" {
                        result.standIns = pipeline.standIns()
                        result.frames = frames
                        if name == "stack-drag", !frames.isEmpty {
                            // Less the untimed first screen, drawn whole by the fresh renderer.
                            dragPixels = Double(pipeline.pixelsWritten() - w * h) / Double(frames.count)
                        }
                    }
                    results.append(result)
                }
            }
            results.append(
                BenchResult(
                    scene: "memcpy", size: label, pipeline: "memcpy-hot",
                    stats: FrameStats(timeCopy(buffer, frames: frames), budget: budget)))
            results.append(
                BenchResult(
                    scene: "memcpy", size: label, pipeline: "memcpy-cold",
                    stats: FrameStats(timeColdCopy(width: w, height: h, frames: frames), budget: budget)))
            for format in PixelFormat.allCases {
                var result = BenchResult(
                    scene: "scanout", size: label, pipeline: format.rawValue,
                    stats: FrameStats(timeScanoutCopy(buffer, format: format, frames: frames), budget: budget))
                result.extra = [("bytes_per_full_frame", Double(w * h * format.bytesPerPixel))]
                if let dragPixels {
                    result.extra.append(("bytes_per_drag_frame", dragPixels * Double(format.bytesPerPixel)))
                }
                results.append(result)
            }
            // The same onto a panel mounted a quarter turn from the picture (a portrait panel
            // shown in landscape), which the copy walks in tiles.
            for format in PixelFormat.allCases {
                results.append(
                    BenchResult(
                        scene: "scanout", size: label, pipeline: format.rawValue + "-90",
                        stats: FrameStats(
                            timeScanoutCopy(buffer, format: format, rotation: .deg90, frames: frames), budget: budget)))
            }
        }
        return results
    }

    /// The sizes the probe runs at unless `--size` names one: the largest panel and the
    /// smallest, each in a process of its own.
    static let probeSizes = ["1920x1080", "800x480"]

    /// The child process's part: the sweep at `size` (W×H) with a 50-card deck, reporting
    /// when its first frame was composed (CLOCK_MONOTONIC) and its peak RSS.
    static func probe(frames: Int, stack file: DeckFile, size label: String) -> Int32 {
        guard let (w, h) = sizes.first(where: { "\($0.0)x\($0.1)" == label }) else { return 1 }
        let s = Double(h) / 600
        let size = Size(width: Double(w) / s, height: 600)
        print("rss-start-kb \(residentKB())")
        // Before the first frame only what is cheap to read: the probe's first frame is timed
        // from its start (reading /proc/self/smaps by mapping costs milliseconds). With
        // KIOSK_PROBE_MAPPINGS=1 the libraries' part is read here too (not timed then).
        if getenv("KIOSK_PROBE_MAPPINGS") != nil { printResident("start-") }
        var deck = ExampleScenes.makeDeck(file, cards: ExampleScenes.cards(of: file, count: 50), size: size)
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s)
        // No display here: each band goes where the display would copy it, into a buffer of
        // one band's size, so the memory is the kiosk's (no frame, no scanout stand-in).
        let show = BenchShow(renderer: renderer, bandSized: true)
        let rest = deck.scene(at: ExampleScenes.start)
        // As `render` draws a first frame: the covered cards on a second thread.
        renderer.drawImagesAhead(of: rest)
        show.show(rest)
        let firstFrame = MonotonicClock.now()
        // CPU time to the first frame, which machine load does not stretch: the whole process
        // (pango's font threads too) and this thread alone (the frame's critical path).
        let (processCPU, threadCPU) = (
            cpuMilliseconds(CLOCK_PROCESS_CPUTIME_ID), cpuMilliseconds(CLOCK_THREAD_CPUTIME_ID)
        )
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        print("rss-first-frame-kb \(residentKB())")
        print("cache-kb \(renderer.cachedBytes / 1024)")
        let offsets = dragOffsets(frames: frames).map { Point(x: $0, y: 0) }
        var times: [Double] = []
        for scene in ExampleScenes.drag(&deck, from: ExampleScenes.origin(of: rest), offsets: offsets) {
            let t = now()
            show.show(scene)
            times.append(milliseconds(since: t))
        }
        print("first-frame \(firstFrame.nanoseconds)")
        print("first-frame-process-cpu-ms \(processCPU)")
        print("first-frame-thread-cpu-ms \(threadCPU)")
        // VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the parent
        // through posix_spawn's vfork, which would report the parent's peak.
        print("peak-rss-kb \(statusKB("VmHWM:"))")
        // Of which private memory (the rest are pages of shared libraries and font files).
        print("anon-rss-kb \(statusKB("RssAnon:"))")
        printMemoryBreakdown(renderer: renderer, show: show)
        print("median-ms \(percentile(50, of: times) ?? 0)")
        print("p90-ms \(percentile(90, of: times) ?? 0)")
        print("p99-ms \(percentile(99, of: times) ?? 0)")
        print("max-ms \(times.max() ?? 0)")
        return 0
    }

    /// CPU time of `clock` (this process or this thread) since it started, in ms.
    static func cpuMilliseconds(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    /// The resident set size now, in kB; 0 when unknown.
    static func residentKB() -> Int { statusKB("VmRSS:") }

    /// A kB figure from /proc/self/status ("VmRSS:", "VmHWM:"); 0 when unknown.
    static func statusKB(_ field: String) -> Int {
        guard let text = try? readTextFile("/proc/self/status") else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// Runs `path` with `args` (args[0] is its name), its standard output read whole; nil
    /// (and a message) when it cannot start. Standard error goes where ours goes, or nowhere.
    static func spawn(_ path: String, _ args: [String], quietErrors: Bool = false) -> (status: Int32, output: String)? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        if quietErrors { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc =
            path.contains("/")
            ? posix_spawn(&pid, path, &actions, nil, &argv, environ)
            : posix_spawnp(&pid, path, &actions, nil, &argv, environ)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            Log.error("bench: cannot start \(path): \(Errno(rc))")
            return nil
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            output += chunk[0..<n]
        }
        close(fds[0])
        var status: Int32 = 0
        _ = retryingWaitpid(pid, &status)
        return (status, String(decoding: output, as: UTF8.self))
    }

    /// "key value" lines of a child's output.
    static func values(_ output: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = Double(parts[1]) { values[String(parts[0])] = v }
        }
        return values
    }

    /// How many fresh processes time the first frame: one start is the scheduler's as much as
    /// the program's (on two cores one build's starts spread 18–50 ms), their median less so.
    static let firstFrameProbes = 9

    /// Runs the probe at `size` in a fresh process of this executable and reads its report: its
    /// memory and drag from one run of `frames` frames, the first frame's times (from the spawn,
    /// CPU) as the median of `firstFrameProbes` runs, the others drawing only 4 frames.
    static func startupAndMemory(frames: Int, budget: Double, size: String) -> BenchResult? {
        let args = { (frames: Int) in
            [CommandLine.arguments[0], "bench", "--probe", "--frames", "\(frames)", "--size", size]
                + (clock == CLOCK_THREAD_CPUTIME_ID ? ["--cpu-time"] : [])
        }
        // (from the spawn, process CPU, drawing thread CPU) of each run, in ms.
        var firsts: [(Double, Double, Double)] = []
        var full: [String: Double]?
        for run in 0..<firstFrameProbes {
            let start = MonotonicClock.now()
            guard let (_, output) = spawn("/proc/self/exe", args(run == 0 ? frames : 4)) else { return nil }
            let values = values(output)
            guard let first = values["first-frame"], values["peak-rss-kb"] != nil else { return nil }
            firsts.append(
                (
                    (first - Double(start.nanoseconds)) / 1e6, values["first-frame-process-cpu-ms"] ?? 0,
                    values["first-frame-thread-cpu-ms"] ?? 0
                ))
            if run == 0 { full = values }
        }
        guard let values = full, let rss = values["peak-rss-kb"] else { return nil }
        let fromSpawn: [Double] = firsts.map(\.0)
        let processCPU: [Double] = firsts.map(\.1)
        let threadCPU: [Double] = firsts.map(\.2)
        let stats = FrameStats(
            frames: frames, median: values["median-ms"] ?? 0, p90: values["p90-ms"] ?? 0, p99: values["p99-ms"] ?? 0,
            max: values["max-ms"] ?? 0, overBudget: 0)
        var extra: [(String, Double)] = [
            ("first_frame_ms", percentile(50, of: fromSpawn) ?? 0), ("first_frame_min_ms", fromSpawn.min() ?? 0),
            ("first_frame_max_ms", fromSpawn.max() ?? 0),
            ("first_frame_process_cpu_ms", percentile(50, of: processCPU) ?? 0),
            ("first_frame_thread_cpu_ms", percentile(50, of: threadCPU) ?? 0),
        ]
        extra += [
            ("peak_rss_mb", rss / 1024), ("rss_before_drawing_mb", (values["rss-start-kb"] ?? 0) / 1024),
            ("private_rss_at_end_mb", (values["anon-rss-kb"] ?? 0) / 1024),
        ]
        extra += memoryBreakdown(values).map { ($0.key, $0.kb / 1024) }
        return BenchResult(
            scene: "stack-drag-50-cards", size: size, pipeline: "real", stats: stats, instructions: nil, extra: extra)
    }

    static func retryingWaitpid(_ pid: pid_t, _ status: inout Int32) -> pid_t {
        while true {
            let r = waitpid(pid, &status, 0)
            if r >= 0 || errno != EINTR { return r }
        }
    }
}

/// `bench`'s command line.
struct BenchOptions: Equatable {
    var json = false
    var frames = 240
    var probe = false
    var cpuTime = false
    var size: String?
    var noProbe = false
    var scene: String?
    var budget = 4.0
    var instructions = false
    var instructionsChild = false
    var visitProbe = false
    /// Name this many worst frames of each real-pipeline scene, with counts by kind.
    var worst = 0
    var kernel: String?

    static let table = OptionTable<BenchOptions>(
        command: "bench", summary: "measure the renderer's frame times",
        details: """
            Times each scene (stack-drag, stack-drag-photo, stack-visit, photo-visit, list-visit) at
            800x480, 1280x800 and 1920x1080 with the real pipeline and two cairo baselines (cairo-redraw,
            cairo-cached), after a warm-up, next to a hot and a cold memcpy of one frame; prints median, p90,
            p99, max and the frames over budget. --instructions adds instructions per frame (valgrind).
            Then a fresh process draws the sweep with a 50-card deck for its peak memory, and nine fresh
            processes for the time to their first frame (the median and the spread), at 1920x1080 and at
            800x480 (or at --size).
            """,
        options: [
            .flag("json", help: "print the results as a JSON array") { $0.json = true },
            CommandOption(name: "frames", value: "N", help: "frames of the drag scenes, 4 to 100000 (default 240)") {
                o, v in
                guard let n = Int(v), n >= 4, n <= 100_000 else { return "a number from 4 to 100000" }
                o.frames = n
                return nil
            },
            .flag("cpu-time", help: "time by this thread's CPU clock, not the wall clock") { $0.cpuTime = true },
            CommandOption(name: "size", value: "WxH", help: "only this size: 800x480, 1280x800 or 1920x1080") { o, v in
                guard Bench.sizes.contains(where: { "\($0.0)x\($0.1)" == v }) else {
                    return "one of 800x480, 1280x800, 1920x1080"
                }
                o.size = v
                return nil
            },
            CommandOption(
                name: "scene", value: "NAME", help: "only this scene (\(Bench.scenes.joined(separator: ", ")))"
            ) { o, v in
                guard Bench.scenes.contains(v) else { return "one of \(Bench.scenes.joined(separator: ", "))" }
                o.scene = v
                return nil
            },
            CommandOption(
                name: "budget-ms", value: "MS",
                help: "a frame over this counts as over budget (default 4: a 60 Hz frame on a Pi 4 takes ~4 ms here)"
            ) { o, v in
                guard let ms = Double(v), ms.isFinite, ms > 0, ms <= 1000 else { return "milliseconds, 0 to 1000" }
                o.budget = ms
                return nil
            },
            .flag("instructions", help: "also count the real pipeline's instructions per frame (valgrind)") {
                $0.instructions = true
            },
            CommandOption(
                name: "worst", value: "N",
                help: "name the N worst frames of each scene and what they did; count frames by kind (1 to 100)"
            ) { o, v in
                guard let n = Int(v), n >= 1, n <= 100 else { return "a number from 1 to 100" }
                o.worst = n
                return nil
            },
            CommandOption(
                name: "kernel", value: "NAME",
                help: "the compositor's pixel loops: simd (default) or scalar (also KIOSK_COMPOSITOR=scalar)"
            ) { o, v in
                guard Compositor.Kernel(rawValue: v) != nil else { return "simd or scalar" }
                o.kernel = v
                return nil
            },
            .flag("no-probe", help: "skip the fresh-process first-frame and memory probe") { $0.noProbe = true },
            .flag("probe", help: "be the probe process (bench starts it)", hidden: true) { $0.probe = true },
            .flag("instructions-child", help: "be the process valgrind counts (bench starts it)", hidden: true) {
                $0.instructionsChild = true
            },
            .flag("visit-probe", help: "be a whole visit's memory probe (bench starts it)", hidden: true) {
                $0.visitProbe = true
            },
        ])
}

func runBenchCommand(_ args: [String]) -> Int32 {
    BenchOptions.table.run(args, from: BenchOptions(), runBench)
}

func runBench(_ options: BenchOptions) -> Int32 {
    // The allocator set up as the app's (the probes, the valgrind child and the timed
    // pipelines alike), before a second thread starts.
    ProcessMemory.setUpForKiosk()
    if options.cpuTime { Bench.clock = CLOCK_THREAD_CPUTIME_ID }
    // Before anything draws (`Compositor.Kernel.standard` reads it once); the probe and
    // valgrind children inherit it.
    if let kernel = options.kernel { setenv("KIOSK_COMPOSITOR", kernel, 1) }
    if options.probe {
        let label = options.size ?? "1920x1080"
        // Fonts load on a thread of their own while the probe reads its deck and draws the
        // covered cards, as in `render` and the app (`FontWarmUp`).
        if let (_, h) = Bench.sizes.first(where: { "\($0.0)x\($0.1)" == label }) {
            FontWarmUp.start(pixelsPerPoint: Double(h) / 600)
        }
        // Only the deck it draws, as the app reads only its own.
        guard let stack = Bench.exampleDeck("onboarding.json") else { return 1 }
        return Bench.probe(frames: options.frames, stack: stack, size: label)
    }
    guard let decks = Bench.exampleDecks() else { return 1 }
    if options.instructionsChild { return BenchInstructions.child(options, decks: decks) }
    if options.visitProbe {
        guard let scene = options.scene, let size = options.size else {
            Log.error("bench: --visit-probe needs --scene and --size")
            return 2
        }
        return Bench.visitProbe(scene: scene, size: size, decks: decks)
    }
    var results = Bench.run(
        frames: options.frames, budget: options.budget, only: options.size, scene: options.scene, decks: decks
    ) {
        if !options.json { Log.info("bench: \($0)…") }
    }
    if options.instructions {
        guard BenchInstructions.valgrindAvailable() else {
            Log.error("bench: --instructions needs valgrind; install it (apt-get install valgrind)")
            return 1
        }
        for i in results.indices where results[i].pipeline == "real" {
            if !options.json { Log.info("bench: instructions \(results[i].scene) \(results[i].size)…") }
            let counted = BenchInstructions.perFrame(
                scene: results[i].scene, size: results[i].size, frames: options.frames)
            results[i].instructions = counted?.mean
            results[i].countedFrames = counted?.frames ?? []
        }
    }
    let memory =
        options.noProbe
        ? []
        : (options.size.map { [$0] } ?? Bench.probeSizes).compactMap {
            Bench.startupAndMemory(frames: options.frames, budget: options.budget, size: $0)
        }
    results += memory
    // A whole visit's memory for each visit scene run (none with --scene stack-drag).
    let visits =
        options.noProbe
        ? []
        : Bench.visitProbeScenes.filter { options.scene == nil || options.scene == $0 }.flatMap { scene in
            (options.size.map { [$0] } ?? Bench.probeSizes).compactMap { Bench.visitMemory(scene: scene, size: $0) }
        }
    results += visits
    if options.json {
        print("[" + results.map { $0.json(worst: options.worst) }.joined(separator: ",\n ") + "]")
        return 0
    }
    BenchReport.print(results, memory: memory, visits: visits, options: options)
    return 0
}
