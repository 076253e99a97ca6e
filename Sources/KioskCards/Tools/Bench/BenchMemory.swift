import Glibc
import KioskRender
import KioskSystem

extension Bench {
    /// The probe's memory lines: the resident set at the end of the drag by kind of mapping,
    /// and the anonymous part by owner (band buffer, still layer, card images, shadow masks, the
    /// allocator's free blocks), so the parent can say where every megabyte of the peak goes.
    static func printMemoryBreakdown(renderer: SceneRenderer, show: BenchShow) {
        print("end-rss-kb \(residentKB())")
        printResident("end-")
        print("end-executable-kb \(executableResidentKB())")
        let a = ProcessMemory.allocator()
        print("malloc-arenas-kb \(a.arenas / 1024)")
        print("malloc-free-kb \(a.free / 1024)")
        print("malloc-mapped-kb \(a.mapped / 1024)")
        print("band-kb \(renderer.bandBytes / 1024)")
        print("scanout-band-kb \(show.destinationBytes / 1024)")
        print("layer-kb \(renderer.layerBytes / 1024)")
        print("cache-end-kb \(renderer.cachedBytes / 1024)")
        print("cache-peak-kb \(renderer.cachedBytesPeak / 1024)")
        print("cache-budget-kb \(renderer.cacheBudget / 1024)")
        print("masks-kb \(SceneRenderer.shadowMaskBytes / 1024)")
    }

    /// The executable's own resident pages in kB (its code, read-only data and relocated
    /// data), of the libraries' part: the rest is the shared libraries'. 0 when unknown.
    static func executableResidentKB() -> Int {
        var link = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &link, link.count - 1)
        guard n > 0, let text = try? FileIO.readAll("/proc/self/smaps", limit: 16 << 20) else { return 0 }
        let executable = " " + String(decoding: link[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var kb = 0
        var inExecutable = false
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            if let first = line.first, first.isHexDigit, line.contains("-"), !line.hasSuffix(" kB") {
                inExecutable = line.hasSuffix(executable)
            } else if inExecutable, line.hasPrefix("Rss:") {
                kb += Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            }
        }
        return kb
    }

    /// The resident set now by kind of mapping, each line's key starting with `prefix`.
    static func printResident(_ prefix: String) {
        guard let r = ProcessMemory.resident() else { return }
        print("\(prefix)libraries-kb \(r.libraries)")
        print("\(prefix)libraries-written-kb \(r.librariesWritten)")
        print("\(prefix)fonts-kb \(r.fonts)")
        print("\(prefix)files-kb \(r.otherFiles)")
        print("\(prefix)anonymous-kb \(r.anonymous)")
        print("\(prefix)stack-kb \(r.stack)")
    }

    /// The parts of the probe's peak RSS, in the order printed: mapped files by kind, then
    /// private memory by owner, the rest of the heap last.
    static let memoryParts: [(key: String, what: String)] = [
        ("libraries_mb", "the executable's and shared libraries' pages"),
        ("fonts_mb", "font files, fontconfig's cache and other mapped files"),
        ("band_buffer_mb", "the band buffer each band is composed in (no frame is kept)"),
        ("still_layer_mb", "the still layer (the box of still elements, one background row)"),
        ("element_cache_mb", "cached card images"),
        ("shadow_masks_mb", "blurred shadow masks kept for reuse"),
        ("heap_other_mb", "the rest of the heap: pango, fontconfig, the decks, stacks, malloc's free blocks"),
    ]

    /// The probe's resident set at the end of its drag (kB), where its peak is (nothing large
    /// is freed on the way; `end_rss_mb` shows it), in `memoryParts` that add up to it, and
    /// the details the report prints beside them.
    static func memoryBreakdown(_ v: [String: Double]) -> [(key: String, kb: Double)] {
        func kb(_ key: String) -> Double { v[key] ?? 0 }
        let band = kb("band-kb")
        let layer = kb("layer-kb")
        let cache = kb("cache-end-kb")
        let masks = kb("masks-kb")
        let anonymous = kb("end-anonymous-kb") + kb("end-stack-kb")
        return [
            ("libraries_mb", kb("end-libraries-kb")),
            ("fonts_mb", kb("end-fonts-kb") + kb("end-files-kb")),
            ("band_buffer_mb", band),
            ("still_layer_mb", layer),
            ("element_cache_mb", cache),
            ("shadow_masks_mb", masks),
            ("heap_other_mb", anonymous - band - layer - cache - masks),
            ("end_rss_mb", kb("end-rss-kb")),
            ("libraries_before_drawing_mb", kb("start-libraries-kb")),
            ("libraries_executable_mb", kb("end-executable-kb")),

            ("libraries_written_mb", kb("end-libraries-written-kb")),
            ("scanout_band_mb", kb("scanout-band-kb")),
            ("malloc_free_mb", kb("malloc-free-kb")),
            ("element_cache_peak_mb", kb("cache-peak-kb")),
            ("element_cache_budget_mb", kb("cache-budget-kb")),
        ]
    }
}
