import CardModel
import Glibc
import KioskRender
import KioskSystem

/// Instructions per frame of the real pipeline, counted by valgrind's callgrind: the same
/// binary, scene and inputs give the same count however busy the machine is, so a change can
/// be judged on a noisy machine (as SQLite tracks its speed).
///
/// A child process of this executable draws one scene under callgrind with collection off
/// except inside `kioskBenchMeasuredFrame`, which wraps each timed frame; the count is the
/// collected total divided by the frames drawn. Every counted frame starts with the card
/// preparation thread idle, so the count does not depend on how far that thread got.
enum BenchInstructions {
    static func valgrindAvailable() -> Bool {
        Bench.spawn("valgrind", ["valgrind", "--version"], quietErrors: true)?.status == 0
    }

    static func executablePath() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The drag scenes use at most 60 frames under valgrind (it runs ~50× slower). Callgrind
    /// writes one profile part each time a frame ends (`--dump-after`), so each frame's count
    /// is known: the mean, and every frame with what it did (the child prints that).
    static func perFrame(scene: String, size: String, frames: Int) -> (mean: Double, frames: [FrameRecord])? {
        let out = "/tmp/kioskcards-callgrind-\(getpid())-\(scene)-\(size).out"
        let args = [
            "valgrind", "--tool=callgrind", "--callgrind-out-file=\(out)", "--collect-atstart=no",
            "--toggle-collect=*kioskBenchMeasuredFrame*",
            // Its mangled name (callgrind matches a dump point by prefix, not by `*…*`).
            "--dump-after=$s10KioskCards23kioskBenchMeasuredFrame*",
            "--dump-instr=no", "--dump-line=no", executablePath(), "bench", "--instructions-child",
            "--scene", scene, "--size", size, "--frames", "\(min(frames, 60))",
        ]
        let result = Bench.spawn("valgrind", args, quietErrors: true)
        var counts: [Double] = []
        // Parts are numbered from 1 in the order dumped; the last file (no number) holds the
        // remainder after the last frame (nothing collected).
        while true {
            let part = "\(out).\(counts.count + 1)"
            guard let text = try? readTextFile(part) else { break }
            unlink(part)
            counts.append(total(text) ?? 0)
        }
        unlink(out)
        guard let (status, output) = result, status == 0, let drawn = Bench.values(output)["frames"], drawn > 0,
            counts.count == Int(drawn)
        else {
            Log.error("bench: valgrind could not count \(scene) \(size)")
            return nil
        }
        let works = frameWorks(output)
        let records = counts.enumerated().map { i, n in
            FrameRecord(index: i, ms: 0, work: works[i], instructions: n)
        }
        return (counts.reduce(0, +) / drawn, records)
    }

    /// A callgrind profile's total instructions ("totals:" or "summary:" line).
    static func total(_ text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("totals:") || line.hasPrefix("summary:") {
            if let total = Double(line.split(separator: " ").dropFirst().first ?? "") { return total }
        }
        return nil
    }

    /// The child's "work INDEX RAW" lines: what each counted frame did.
    static func frameWorks(_ output: String) -> [Int: SceneRenderer.FrameWork] {
        var works: [Int: SceneRenderer.FrameWork] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("work ") {
            let parts = line.split(separator: " ")
            if parts.count == 3, let i = Int(parts[1]), let raw = Int(parts[2]) {
                works[i] = SceneRenderer.FrameWork(rawValue: raw)
            }
        }
        return works
    }

    /// The process valgrind runs: one scene at one size through the real pipeline.
    static func child(_ options: BenchOptions, decks: Bench.Decks) -> Int32 {
        guard let sceneName = options.scene, let sizeText = options.size,
            let (w, h) = Bench.sizes.first(where: { "\($0.0)x\($0.1)" == sizeText })
        else {
            Log.error("bench: --instructions-child needs --scene and --size")
            return 2
        }
        let s = Double(h) / 600
        let size = Size(width: Double(w) / s, height: 600)
        let (first, steps) = Bench.steps(sceneName, decks: decks, size: size, frames: options.frames)
        let images = ImageCache()
        Bench.decodePhotos(first: first, steps: steps, pixelWidth: w, pixelHeight: h, scale: s, images: images)
        let preparer = ElementPreparer()
        let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: s, images: images, preparer: preparer)
        let show = BenchShow(renderer: renderer, bandSized: false)
        show.show(first)
        // Each counted frame starts with the preparation thread idle: what it has finished
        // decides what a frame draws (a stand-in or the whole card, a still layer rebuilt or
        // not), and under valgrind, which runs one thread at a time, how far it got would
        // otherwise follow the machine's load.
        renderer.waitForPrepared()
        var drawn = 0
        for step in steps {
            switch step {
            case .idle(let elements):
                if elements.isEmpty { renderer.discardPreparedAhead() }
                for e in elements { renderer.prepare(e, background: first.background) }
                renderer.waitForPrepared()
            case .catchUp:
                renderer.waitForPrepared()
            case .frame(let scene):
                kioskBenchMeasuredFrame { show.show(scene) }
                renderer.waitForPrepared()
                print("work \(drawn) \(renderer.lastFrame.rawValue)")
                drawn += 1
            }
        }
        print("frames \(drawn)")
        return 0
    }
}

/// Callgrind collects only inside this function (`--toggle-collect`); never inlined.
@inline(never)
func kioskBenchMeasuredFrame(_ body: () -> Void) {
    body()
}
