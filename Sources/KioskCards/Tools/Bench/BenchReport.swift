import Glibc
import KioskDisplay
import KioskSystem

/// `bench`'s table: per scene and size the real pipeline and its baselines, then the issue's
/// goal figures as measured in this run.
enum BenchReport {
    static let descriptions = [
        "stack-drag": "onboarding.json's top card dragged 0 → 300 pt and back",
        "stack-drag-photo": "products.json's top card (a photo) dragged 0 → 300 pt and back",
        "stack-visit": "a whole visit of onboarding.json: every card dragged, released, flown out",
        "photo-visit": "a whole visit of products.json (photo cards)",
        "list-visit": "seed-list.json ×40 rows: flicked up, a row deleted, a detail page opened and closed",
        "memcpy": "one frame copied in memory (hot: two buffers in cache; cold: a ring beyond the L3)",
        "scanout":
            "the display's copy of a whole frame into a scanout buffer, per format, upright and turned 90° (×real: × xrgb8888)",
    ]

    /// Bytes written into scanout per frame, each format: a whole frame and the drag frame's damage.
    static func printScanoutBytes(_ rows: [BenchResult]) {
        Swift.print("bytes written per frame (whole frame; stack-drag frame's damage, mean):")
        for r in rows where !r.extra.isEmpty {
            let whole = r.extra.first { $0.0 == "bytes_per_full_frame" }?.1 ?? 0
            let drag = r.extra.first { $0.0 == "bytes_per_drag_frame" }?.1
            Swift.print(
                "  \(r.size) \(r.pipeline): \(String(format2: whole / 1e6)) MB"
                    + (drag.map { "; \(String(format2: $0 / 1e6)) MB" } ?? ""))
        }
    }

    static func print(
        _ results: [BenchResult], memory probes: [BenchResult], visits: [BenchResult], options: BenchOptions
    ) {
        func f(_ v: Double, _ width: Int = 7) -> String {
            var s = String(format2: v)
            while s.count < width { s = " " + s }
            return s
        }
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func find(_ scene: String, _ size: String, _ pipeline: String) -> BenchResult? {
            results.first { $0.scene == scene && $0.size == size && $0.pipeline == pipeline }
        }
        let budget = String(format2: options.budget)
        let header =
            "size        pipeline         median     p90     p99     max  >\(budget)ms   ×real  stand-ins  instr/frame"
        for scene in Bench.scenes + ["memcpy", "scanout"] {
            let rows = results.filter { $0.scene == scene }
            guard !rows.isEmpty else { continue }
            Swift.print("\n\(scene): \(descriptions[scene] ?? "")")
            Swift.print(header)
            var lastSize = ""
            for r in rows {
                let size = r.size == lastSize ? "" : r.size
                lastSize = r.size
                let base = ["memcpy": "memcpy-hot", "scanout": PixelFormat.xrgb8888.rawValue]
                let real = find(scene, r.size, base[scene] ?? "real")
                let ratio = real.map { $0.stats.median > 0 ? r.stats.median / $0.stats.median : 0 } ?? 0
                let instructions = r.instructions.map { f($0 / 1e6, 9) + " M" } ?? ""
                let standIns =
                    r.standIns.map { f(Double($0), 9).replacingDecimals() } ?? String(repeating: " ", count: 9)
                Swift.print(
                    "\(pad(size, 11)) \(pad(r.pipeline, 14)) \(f(r.stats.median)) \(f(r.stats.p90)) \(f(r.stats.p99)) "
                        + "\(f(r.stats.max)) \(f(Double(r.stats.overBudget), 7).replacingDecimals())  \(f(ratio, 6))  \(standIns)  \(instructions)"
                )
            }
            for r in rows where r.pipeline == "real" { printWorst(r, count: options.worst) }
            if scene == "scanout" { printScanoutBytes(rows) }
        }
        Swift.print("\nGoals, as measured in this run:")
        let sizes = Bench.sizes.map { "\($0.0)x\($0.1)" }
        func list(_ values: [Double?], unit: String) -> String {
            values.map { $0.map { String(format2: $0) } ?? "–" }.joined(separator: " / ") + unit
        }
        let flat = sizes.map { find("stack-drag", $0, "real")?.stats }
        let photo = sizes.map { find("stack-drag-photo", $0, "real")?.stats }
        Swift.print(
            "  stack drag, flat cards, 800×480 / 1280×800 / 1920×1080: \(list(flat.map { $0?.median }, unit: " ms"))")
        Swift.print(
            "  the same with a photo card, × the flat card:             "
                + list(zip(photo, flat).map { p, f in p.flatMap { p in f.map { p.median / $0.median } } }, unit: "×"))
        if let real = find("stack-drag", "1920x1080", "real"), let cold = find("memcpy", "1920x1080", "memcpy-cold") {
            Swift.print(
                "  real / cold memcpy floor, 1080p:                         \(String(format2: real.stats.median / cold.stats.median))×"
            )
        }
        let worstInVisits = ["stack-visit", "photo-visit", "list-visit"].map {
            find($0, "1920x1080", "real")?.stats.max
        }
        Swift.print("  worst frame of a whole visit, 1080p (stack / photo / list): \(list(worstInVisits, unit: " ms"))")
        let flatCounted = sizes.map { find("stack-drag", $0, "real")?.instructionsP99OverMedian }
        Swift.print(
            "  p99 / median, stack drag, by size:                       "
                + list(flat.map { $0.map { $0.p99 / $0.median } }, unit: "×")
                + (flatCounted.contains { $0 != nil } ? " (in instructions: \(list(flatCounted, unit: "×")))" : ""))
        for memory in probes {
            let value = { (key: String) in memory.extra.first { $0.0 == key }?.1 ?? 0 }
            let size = pad(String(memory.size.map { $0 == "x" ? "×" : $0 }) + ",", 10)
            Swift.print(
                "  start → first composed frame, \(size) 50 cards:      \(String(format2: value("first_frame_ms"))) ms "
                    + "(CPU time: process \(String(format2: value("first_frame_process_cpu_ms"))) ms, "
                    + "drawing thread \(String(format2: value("first_frame_thread_cpu_ms"))) ms; "
                    + "medians of \(Bench.firstFrameProbes) starts, "
                    + "\(String(format2: value("first_frame_min_ms")))–\(String(format2: value("first_frame_max_ms"))) ms)"
            )
            Swift.print(
                "  peak RSS, same:                                          \(String(format2: value("peak_rss_mb"))) MB "
                    + "(\(String(format2: value("rss_before_drawing_mb"))) MB before drawing; "
                    + "private at the end \(String(format2: value("private_rss_at_end_mb"))) MB), of which:")
            for part in Bench.memoryParts where memory.extra.contains(where: { $0.0 == part.key }) {
                var detail = ""
                switch part.key {
                case "libraries_mb":
                    let before = value("libraries_before_drawing_mb")
                    detail =
                        " (" + (before > 0 ? "\(String(format2: before)) MB before drawing; " : "")
                        + "\(String(format2: value("libraries_executable_mb"))) MB the executable's own; "

                        + "\(String(format2: value("libraries_written_mb"))) MB written: relocations, data)"
                case "element_cache_mb":
                    detail =
                        " (peak \(String(format2: value("element_cache_peak_mb"))) MB; "
                        + "budget \(String(format2: value("element_cache_budget_mb"))) MB)"
                case "heap_other_mb":
                    detail =
                        " (\(String(format2: value("malloc_free_mb"))) MB free in malloc; "
                        + "\(String(format2: value("scanout_band_mb"))) MB the band-sized stand-in for the scanout)"
                default: break
                }
                Swift.print("    \(f(value(part.key), 6)) MB  \(part.what)\(detail)")
            }
            Swift.print(
                "    \(f(value("end_rss_mb"), 6)) MB  in all at the end of the drag "
                    + "(the peak is \(String(format2: value("peak_rss_mb"))) MB)")
        }
        printVisitMemory(visits)
        let clockName = Bench.clock == CLOCK_THREAD_CPUTIME_ID ? "thread CPU time" : "wall time"
        Swift.print("(times in ms of \(clockName); drags \(options.frames) frames; warm-up 30 frames per pipeline)")
    }
}

extension BenchReport {
    /// `--worst N`: the frames that make a scene's p99 and maximum, and what they did.
    static func printWorst(_ r: BenchResult, count: Int) {
        let (byTime, byInstructions) = r.worst(count)
        guard byTime != nil || byInstructions != nil else { return }
        let instructions = Dictionary(r.countedFrames.map { ($0.index, $0) }) { a, _ in a }
        if let byTime {
            Swift.print("  \(r.size): the \(byTime.worst.count) worst of \(r.frames.count) frames by time:")
            for f in byTime.worst {
                Swift.print(
                    "    frame \(f.index): \(String(format2: f.ms)) ms — \(f.work?.description ?? "?")")
            }
            Swift.print("    by kind (ms): \(byTime.kindLine(unit: ""))")
        }
        if let byInstructions {
            Swift.print(
                "  \(r.size): the \(byInstructions.worst.count) worst of \(r.countedFrames.count) frames by instructions "
                    + "(valgrind's run: the stand-ins may fall on other frames):")
            for f in byInstructions.worst {
                let n = instructions[f.index]?.instructions ?? 0
                Swift.print("    frame \(f.index): \(String(format2: n / 1e6)) M — \(f.work?.description ?? "?")")
            }
            Swift.print("    by kind (M instructions): \(byInstructions.kindLine(scale: 1e6, unit: ""))")
        }
    }
}

extension String {
    /// "  12.00" → "     12": a count in a column of decimals.
    fileprivate func replacingDecimals() -> String {
        guard hasSuffix(".00") else { return self }
        return "   " + dropLast(3)
    }
}
