import CardModel
import Glibc
import KioskDeckFiles
import KioskRender
import KioskSystem

/// `KioskCards bench [--json] [--frames N] [--cpu-time] [--size WxH] [--scene NAME]
/// [--no-probe]`: frame times of the renderer on this machine.
///
/// Scenes (scale S = height/600 pixels per point, so every size shows 600 points high), the
/// example decks in `examples/` through the real deck loader and the real decks, a finger
/// moving at 60 Hz:
/// - stack-drag: `onboarding.json`, the top card dragged from 0 to 300 points (300·S pixels)
///   and back (the deck draws what it draws: the cards beneath, the shadow, the "Verstanden"
///   hint), with the cards prepared as the app prepares them while idle;
/// - list-scroll: `seed-list.json`'s rows repeated to 40, the list dragged up 4 points a frame;
/// - memcpy-floor: copying one whole frame in memory.
/// Each is timed with the naive full cairo redraw and with the cached pipeline, in one run.
/// Then a fresh process draws the 1920×1080 sweep with a 50-card deck, reporting the time
/// from its start to its first composed frame and its peak resident memory.
struct BenchResult {
    var scene: String
    var size: String
    var pipeline: String
    var frames: Int
    var median: Double
    var p99: Double
    var extra: [(String, Double)] = []

    init(scene: String, size: String, pipeline: String, times: [Double], extra: [(String, Double)] = []) {
        self.init(
            scene: scene, size: size, pipeline: pipeline, frames: times.count, median: percentile(50, of: times) ?? 0,
            p99: percentile(99, of: times) ?? 0, extra: extra)
    }

    init(
        scene: String, size: String, pipeline: String, frames: Int, median: Double, p99: Double,
        extra: [(String, Double)]
    ) {
        (self.scene, self.size, self.pipeline, self.frames) = (scene, size, pipeline, frames)
        (self.median, self.p99, self.extra) = (median, p99, extra)
    }

    var json: String {
        func num(_ v: Double) -> String { jsonNumber(v, decimals: 3) }
        var s = "{\"scene\":\"\(scene)\",\"size\":\"\(size)\",\"pipeline\":\"\(pipeline)\",\"frames\":\(frames),"
        s += "\"median_ms\":\(num(median)),\"p99_ms\":\(num(p99))"
        for (k, v) in extra { s += ",\"\(k)\":\(num(v))" }
        return s + "}"
    }
}

enum Bench {
    static let sizes = [(800, 480), (1280, 800), (1920, 1080)]

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

    /// The example decks the scenes are made of; nil (and a message) when `examples/` is not found.
    static func exampleDecks() -> (stack: DeckFile, list: DeckFile)? {
        guard let dir = ExampleScenes.directory() else {
            Log.error("bench: cannot find examples/onboarding.json; run bench from the repository (or /opt/kioskcards)")
            return nil
        }
        do {
            return (
                try ExampleScenes.deck("onboarding.json", in: dir), try ExampleScenes.deck("seed-list.json", in: dir)
            )
        } catch {
            Log.error("\(error)")
            return nil
        }
    }

    /// The stack at rest, what the deck prepares while idle, and the drag there and back.
    static func stackScenes(_ file: DeckFile, size: Size, frames: Int)
        -> (rest: Scene, prepare: [SceneElement], drag: [Scene])
    {
        var deck = ExampleScenes.makeDeck(file, size: size)
        let rest = deck.scene(at: ExampleScenes.start)
        let prepare = deck.elementsToPrepare(in: rest)
        let offsets = dragOffsets(frames: frames).map { Point(x: $0, y: 0) }
        return (rest, prepare, ExampleScenes.drag(&deck, from: ExampleScenes.origin(of: rest), offsets: offsets))
    }

    /// The list of 40 rows dragged up 4 points a frame (the finger starts near the bottom).
    static func listScenes(_ file: DeckFile, size: Size, frames: Int) -> [Scene] {
        var deck = ExampleScenes.makeDeck(file, cards: ExampleScenes.cards(of: file, count: 40), size: size)
        let origin = Point(x: size.width / 2, y: size.height - 40)
        return ExampleScenes.drag(&deck, from: origin, offsets: (0..<frames).map { Point(x: 0, y: -4 * Double($0)) })
    }

    static func timeNaive(_ scenes: [Scene], scale: Double, buffer: PixelBuffer) -> [Double] {
        let naive = NaiveRenderer(scale: scale)
        naive.render(scenes[0], into: buffer)
        return scenes.map { scene in
            let t = now()
            naive.render(scene, into: buffer)
            return milliseconds(since: t)
        }
    }

    /// Times every scene after the first (the screen as it was before the gesture).
    static func timeReal(
        _ scenes: [Scene], first: Scene, prepare: [SceneElement] = [], scale: Double, buffer: PixelBuffer
    ) -> [Double] {
        let renderer = SceneRenderer(pixelWidth: buffer.width, pixelHeight: buffer.height, scale: scale)
        renderer.render(first, into: buffer)
        // As the app does when idle: what the deck says its next gesture shows.
        for e in prepare { renderer.prepare(e, background: first.background) }
        return scenes.map { scene in
            let t = now()
            renderer.render(scene, into: buffer)
            return milliseconds(since: t)
        }
    }

    static func timeCopy(_ buffer: PixelBuffer, frames: Int) -> [Double] {
        let target = PixelBuffer(width: buffer.width, height: buffer.height)
        return (0..<frames).map { _ in
            let t = now()
            target.pixels.copyMemory(from: buffer.pixels, byteCount: buffer.stride * buffer.height)
            return milliseconds(since: t)
        }
    }

    static func run(
        frames: Int, only: String?, scene: String?, decks: (stack: DeckFile, list: DeckFile),
        progress: (String) -> Void
    ) -> [BenchResult] {
        var results: [BenchResult] = []
        for (w, h) in sizes where only == nil || only == "\(w)x\(h)" {
            let s = Double(h) / 600
            let size = Size(width: Double(w) / s, height: 600)
            let label = "\(w)x\(h)"
            let buffer = PixelBuffer(width: w, height: h)
            if scene == nil || scene == "stack-drag" {
                let (rest, prepare, drag) = stackScenes(decks.stack, size: size, frames: frames)
                progress("stack-drag \(label)")
                results.append(
                    BenchResult(
                        scene: "stack-drag", size: label, pipeline: "naive",
                        times: timeNaive(drag, scale: s, buffer: buffer)))
                results.append(
                    BenchResult(
                        scene: "stack-drag", size: label, pipeline: "real",
                        times: timeReal(drag, first: rest, prepare: prepare, scale: s, buffer: buffer)))
            }
            if scene == nil || scene == "list-scroll" {
                progress("list-scroll \(label)")
                let list = listScenes(decks.list, size: size, frames: frames)
                results.append(
                    BenchResult(
                        scene: "list-scroll", size: label, pipeline: "naive",
                        times: timeNaive(list, scale: s, buffer: buffer)))
                results.append(
                    BenchResult(
                        scene: "list-scroll", size: label, pipeline: "real",
                        times: timeReal(Array(list.dropFirst()), first: list[0], scale: s, buffer: buffer)))
            }
            results.append(
                BenchResult(
                    scene: "memcpy-floor", size: label, pipeline: "floor", times: timeCopy(buffer, frames: frames)))
        }
        return results
    }

    /// The child process's part: the 1920×1080 sweep with a 50-card deck, reporting when
    /// its first frame was composed (CLOCK_MONOTONIC) and its peak RSS.
    static func probe(frames: Int, stack file: DeckFile) -> Int32 {
        let (w, h) = (1920, 1080)
        let s = Double(h) / 600
        let size = Size(width: Double(w) / s, height: 600)
        print("rss-start-kb \(residentKB())")
        var deck = ExampleScenes.makeDeck(file, cards: ExampleScenes.cards(of: file, count: 50), size: size)
        let buffer = PixelBuffer(width: w, height: h)
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s)
        let rest = deck.scene(at: ExampleScenes.start)
        renderer.render(rest, into: buffer)
        let firstFrame = MonotonicClock.now()
        for e in deck.elementsToPrepare(in: rest) { renderer.prepare(e, background: rest.background) }
        print("rss-first-frame-kb \(residentKB())")
        print("cache-kb \(renderer.cachedBytes / 1024)")
        let offsets = dragOffsets(frames: frames).map { Point(x: $0, y: 0) }
        var times: [Double] = []
        for scene in ExampleScenes.drag(&deck, from: ExampleScenes.origin(of: rest), offsets: offsets) {
            let t = now()
            renderer.render(scene, into: buffer)
            times.append(milliseconds(since: t))
        }
        print("first-frame \(firstFrame.nanoseconds)")
        // VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the parent
        // through posix_spawn's vfork, which would report the parent's peak.
        print("peak-rss-kb \(statusKB("VmHWM:"))")
        // Of which private memory (the rest are pages of shared libraries and font files).
        print("anon-rss-kb \(statusKB("RssAnon:"))")
        print("median-ms \(percentile(50, of: times) ?? 0)")
        print("p99-ms \(percentile(99, of: times) ?? 0)")
        return 0
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

    /// Runs the probe in a fresh process of this executable and reads its report.
    static func startupAndMemory(frames: Int) -> BenchResult? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let exe = "/proc/self/exe"
        let args =
            [CommandLine.arguments[0], "bench", "--probe", "--frames", "\(frames)"]
            + (clock == CLOCK_THREAD_CPUTIME_ID ? ["--cpu-time"] : [])
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let start = MonotonicClock.now()
        let rc = posix_spawn(&pid, exe, &actions, nil, &argv, environ)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            Log.error("bench: cannot start the probe process: \(Errno(rc))")
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
        var values: [String: Double] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = Double(parts[1]) { values[String(parts[0])] = v }
        }
        guard let first = values["first-frame"], let rss = values["peak-rss-kb"] else { return nil }
        let firstMs = (first - Double(start.nanoseconds)) / 1e6
        return BenchResult(
            scene: "stack-drag-50-cards", size: "1920x1080", pipeline: "real",
            frames: frames, median: values["median-ms"] ?? 0, p99: values["p99-ms"] ?? 0,
            extra: [
                ("first_frame_ms", firstMs), ("peak_rss_mb", rss / 1024),
                ("rss_before_drawing_mb", (values["rss-start-kb"] ?? 0) / 1024),
                ("element_cache_mb", (values["cache-kb"] ?? 0) / 1024),
                ("private_rss_at_end_mb", (values["anon-rss-kb"] ?? 0) / 1024),
            ])
    }

    static func retryingWaitpid(_ pid: pid_t, _ status: inout Int32) -> pid_t {
        while true {
            let r = waitpid(pid, &status, 0)
            if r >= 0 || errno != EINTR { return r }
        }
    }
}

/// Runs `bench` with the arguments after the subcommand; returns the exit status.
/// `bench`'s command line.
struct BenchOptions: Equatable {
    var json = false
    var frames = 240
    var probe = false
    var cpuTime = false
    var size: String?
    var noProbe = false
    var scene: String?

    static let table = OptionTable<BenchOptions>(
        command: "bench", summary: "measure the renderer's frame times",
        details: """
            Times each scene (stack-drag, list-scroll, memcpy-floor) at 800x480, 1280x800 and 1920x1080
            with the naive full cairo redraw and with the cached pipeline, then a fresh process draws the
            1920x1080 sweep with a 50-card deck for the time to its first frame and its peak memory.
            """,
        options: [
            .flag("json", help: "print the results as a JSON array") { $0.json = true },
            CommandOption(name: "frames", value: "N", help: "frames per scene, 4 to 100000 (default 240)") { o, v in
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
            CommandOption(name: "scene", value: "NAME", help: "only this scene: stack-drag or list-scroll") { o, v in
                guard ["stack-drag", "list-scroll"].contains(v) else { return "stack-drag or list-scroll" }
                o.scene = v
                return nil
            },
            .flag("no-probe", help: "skip the fresh-process first-frame and memory probe") { $0.noProbe = true },
            .flag("probe", help: "be the probe process (bench starts it)", hidden: true) { $0.probe = true },
        ])
}

func runBenchCommand(_ args: [String]) -> Int32 {
    let options: BenchOptions
    switch BenchOptions.table.resolve(args, from: BenchOptions()) {
    case .success(let o): options = o
    case .failure(let status): return status.code
    }
    if options.cpuTime { Bench.clock = CLOCK_THREAD_CPUTIME_ID }
    let (json, frames, probe, only, noProbe, scene) = (
        options.json, options.frames, options.probe, options.size, options.noProbe, options.scene
    )
    guard let decks = Bench.exampleDecks() else { return 1 }
    if probe { return Bench.probe(frames: frames, stack: decks.stack) }
    var results = Bench.run(frames: frames, only: only, scene: scene, decks: decks) {
        if !json { Log.info("bench: \($0)…") }
    }
    let memory = noProbe ? nil : Bench.startupAndMemory(frames: frames)
    if let memory { results.append(memory) }
    if json {
        print("[" + results.map(\.json).joined(separator: ",\n ") + "]")
        return 0
    }
    func f(_ v: Double) -> String {
        var s = String(format2: v)
        while s.count < 7 { s = " " + s }
        return s
    }
    print("scene          size        naive med/p99      real med/p99     naive/real   floor med")
    for r in results where r.pipeline == "real" && r.scene != "stack-drag-50-cards" {
        guard let n = results.first(where: { $0.scene == r.scene && $0.size == r.size && $0.pipeline == "naive" }),
            let fl = results.first(where: { $0.scene == "memcpy-floor" && $0.size == r.size })
        else { continue }
        let name = r.scene.padding(14)
        let size = r.size.padding(10)
        print(
            "\(name) \(size) \(f(n.median)) \(f(n.p99))   \(f(r.median)) \(f(r.p99))   \(f(n.median / r.median))x   \(f(fl.median)) ms"
        )
    }
    if let memory {
        let first = memory.extra.first { $0.0 == "first_frame_ms" }?.1 ?? 0
        let rss = memory.extra.first { $0.0 == "peak_rss_mb" }?.1 ?? 0
        let base = memory.extra.first { $0.0 == "rss_before_drawing_mb" }?.1 ?? 0
        let cache = memory.extra.first { $0.0 == "element_cache_mb" }?.1 ?? 0
        let anon = memory.extra.first { $0.0 == "private_rss_at_end_mb" }?.1 ?? 0
        print(
            """
            1920x1080 sweep, 50-card deck: first frame \(f(first)) ms after process start; \
            peak RSS \(f(rss)) MB (\(f(base)) MB before drawing, \(f(cache)) MB cached card images, \
            \(f(2 * 1920 * 1080 * 4 / 1048576)) MB frame + still layer; private at the end \(f(anon)) MB, the \
            rest are shared library and font pages); real median \(f(memory.median)) ms
            """)
    }
    let clockName = Bench.clock == CLOCK_THREAD_CPUTIME_ID ? "thread CPU time" : "wall time"
    print("(\(frames) frames per measurement, times in ms of \(clockName))")
    return 0
}

extension String {
    fileprivate func padding(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}
