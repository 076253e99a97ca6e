import CardModel
import Glibc
import KioskRender
import KioskSystem

/// The memory of a whole visit, drawn as the app draws it: the start-up probe measures a first
/// frame and a drag, and a kiosk lives through whole visits. A fresh process of this
/// executable (`--visit-probe`) sets up its allocator as `run` does (`ProcessMemory.setUpForKiosk`),
/// draws every frame of a visit scene with the app's pipeline (cards and pages drawn on the
/// preparation thread, frames composed in bands) and reports its peak resident set and how
/// full the card image cache got against its budget.
extension Bench {
    /// The visits the memory probe follows, each in a process of its own.
    static let visitProbeScenes = ["stack-visit", "photo-visit", "list-visit"]

    /// The child's part: `scene`'s whole visit at `label` (W×H).
    static func visitProbe(scene: String, size label: String, decks: Decks) -> Int32 {
        guard let (w, h) = sizes.first(where: { "\($0.0)x\($0.1)" == label }) else {
            Log.error("bench: --visit-probe needs --size, one of \(sizes.map { "\($0.0)x\($0.1)" })")
            return 2
        }
        let s = Double(h) / 600
        let size = Size(width: Double(w) / s, height: 600)
        let (first, steps) = Bench.steps(scene, decks: decks, size: size, frames: 60)
        // Photos decode as in the app, on the decoder's thread when a card first needs one
        // (not ahead, as the timed pipelines' warm-up visit does: that visit's memory is not
        // the kiosk's).
        let images = ImageCache()
        let preparer = ElementPreparer()
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s, images: images, preparer: preparer)
        // No frame kept and a band-sized stand-in for the scanout, as in the start-up probe:
        // the panel's scanout buffers are the display's memory, not the kiosk's heap.
        let show = BenchShow(renderer: renderer, bandSized: true)
        show.show(first)
        var frames = 0
        // An idle moment: the preparation thread and the photo decoder finish, and what they
        // made is taken in as it arrives (as the app's loop does when they wake it).
        func settle() {
            renderer.waitForPrepared()
            images.waitUntilIdle()
            images.drainReady()
            renderer.waitForPrepared()
        }
        // The largest resident set seen between steps, and what held it then.
        var top = 0
        var atTop: [(String, Int)] = []
        for step in steps {
            defer {
                let rss = residentKB()
                if rss > top {
                    top = rss
                    let a = ProcessMemory.allocator()
                    atTop = [
                        ("rss-kb", rss), ("cache-kb", renderer.cachedBytes / 1024), ("free-kb", a.free / 1024),
                        ("in-use-kb", a.inUse / 1024),
                    ]
                }
            }
            switch step {
            case .idle(let elements):
                if elements.isEmpty { renderer.discardPreparedAhead() }
                for e in elements { renderer.prepare(e, background: first.background) }
                settle()
            case .catchUp:
                settle()
            case .frame(let scene):
                show.show(scene)
                frames += 1
            }
        }
        settle()
        print("frames \(frames)")
        print("stand-ins \(renderer.stats.placeholderFrames)")
        for (key, value) in atTop { print("highest-\(key) \(value)") }
        // VmHWM, or a higher resident set read between steps (the kernel's counters lag a little).
        print("peak-rss-kb \(max(statusKB("VmHWM:"), top))")
        print("anon-rss-kb \(statusKB("RssAnon:"))")
        printMemoryBreakdown(renderer: renderer, show: show)
        return 0
    }

    /// Runs the visit probe of `scene` at `size` in a fresh process and reads its report.
    static func visitMemory(scene: String, size: String) -> BenchResult? {
        let args = [CommandLine.arguments[0], "bench", "--visit-probe", "--scene", scene, "--size", size]
        guard let (status, output) = spawn("/proc/self/exe", args), status == 0 else { return nil }
        let values = values(output)
        guard let rss = values["peak-rss-kb"], let frames = values["frames"] else { return nil }
        return BenchResult(
            scene: scene + "-memory", size: size, pipeline: "real",
            stats: FrameStats(frames: Int(frames), median: 0, p90: 0, p99: 0, max: 0, overBudget: 0),
            instructions: nil,
            extra: [
                ("peak_rss_mb", rss / 1024),
                ("element_cache_peak_mb", (values["cache-peak-kb"] ?? 0) / 1024),
                ("element_cache_budget_mb", (values["cache-budget-kb"] ?? 0) / 1024),
                ("highest_rss_mb", (values["highest-rss-kb"] ?? 0) / 1024),
                ("highest_cache_mb", (values["highest-cache-kb"] ?? 0) / 1024),
                ("highest_malloc_free_mb", (values["highest-free-kb"] ?? 0) / 1024),
                ("highest_heap_in_use_mb", (values["highest-in-use-kb"] ?? 0) / 1024),
                ("stand_ins", values["stand-ins"] ?? 0),
            ])
    }
}

extension BenchReport {
    /// The visit probes' lines: peak RSS of each whole visit by size, and the cache's peak.
    static func printVisitMemory(_ rows: [BenchResult]) {
        guard !rows.isEmpty else { return }
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        Swift.print("  peak RSS over a whole visit, as the app draws it (a fresh process each):")
        for r in rows {
            let value = { (key: String) in r.extra.first { $0.0 == key }?.1 ?? 0 }
            let scene = r.scene.hasSuffix("-memory") ? String(r.scene.dropLast(7)) : r.scene
            let size = String(r.size.map { $0 == "x" ? "×" : $0 })
            Swift.print(
                "    \(pad(scene + " " + size, 22)) \(String(format2: value("peak_rss_mb"))) MB; between frames at most "
                    + "\(String(format2: value("highest_rss_mb"))) MB, of which card images "
                    + "\(String(format2: value("highest_cache_mb"))) MB (budget "
                    + "\(String(format2: value("element_cache_budget_mb"))) MB), the rest of the heap "
                    + "\(String(format2: value("highest_heap_in_use_mb") - value("highest_cache_mb"))) MB, "
                    + "free in malloc \(String(format2: value("highest_malloc_free_mb"))) MB; "
                    + "\(Int(value("stand_ins"))) stand-ins")
        }
    }
}
