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
/// collected total divided by the frames drawn.
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

    /// The drag scenes use at most 60 frames under valgrind (it runs ~50× slower).
    static func perFrame(scene: String, size: String, frames: Int) -> Double? {
        let out = "/tmp/kioskcards-callgrind-\(getpid())-\(scene)-\(size).out"
        defer { unlink(out) }
        let args = [
            "valgrind", "--tool=callgrind", "--callgrind-out-file=\(out)", "--collect-atstart=no",
            "--toggle-collect=*kioskBenchMeasuredFrame*", executablePath(), "bench", "--instructions-child",
            "--scene", scene, "--size", size, "--frames", "\(min(frames, 60))",
        ]
        guard let (status, output) = Bench.spawn("valgrind", args, quietErrors: true), status == 0,
            let drawn = Bench.values(output)["frames"], drawn > 0
        else {
            Log.error("bench: valgrind could not count \(scene) \(size)")
            return nil
        }
        guard let text = try? readTextFile(out) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("totals:") || line.hasPrefix("summary:") {
            if let total = Double(line.split(separator: " ").dropFirst().first ?? "") { return total / drawn }
        }
        return nil
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
        let buffer = PixelBuffer(width: w, height: h)
        renderer.render(first, into: buffer)
        var drawn = 0
        for step in steps {
            switch step {
            case .idle(let elements):
                for e in elements { renderer.prepare(e, background: first.background) }
                preparer.waitUntilIdle()
            case .frame(let scene):
                kioskBenchMeasuredFrame { renderer.render(scene, into: buffer) }
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
