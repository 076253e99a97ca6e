import KioskRender
import KioskSystem

/// The worst frames of a scene and how many frames of each kind it drew (`bench --worst N`):
/// which frames make the p99 and the maximum, and what they did (`SceneRenderer.FrameWork`).
struct WorstFrames {
    /// One kind of work: how many frames did it, their median and their worst.
    struct Kind: Equatable {
        var name: String
        var frames: Int
        var median: Double
        var max: Double
    }

    /// The `count` costliest frames, costliest first (ties by index).
    var worst: [FrameRecord]
    /// Every kind seen, costliest kind (by its worst frame) first; "composed" is a frame that
    /// only restored the still layer and placed cached images.
    var kinds: [Kind]

    /// `cost` is what ranks a frame: its time, or its instructions.
    init(_ frames: [FrameRecord], count: Int, cost: (FrameRecord) -> Double) {
        worst = Array(
            frames.sorted { a, b in cost(a) != cost(b) ? cost(a) > cost(b) : a.index < b.index }.prefix(count))
        var kinds: [Kind] = []
        let named = SceneRenderer.FrameWork.names + [(SceneRenderer.FrameWork(), "composed")]
        for (work, name) in named {
            let of = frames.filter { f in
                guard let w = f.work else { return false }
                return work.isEmpty ? w.isEmpty : w.contains(work)
            }.map(cost)
            guard !of.isEmpty else { continue }
            kinds.append(Kind(name: name, frames: of.count, median: percentile(50, of: of) ?? 0, max: of.max() ?? 0))
        }
        self.kinds = kinds.sorted { $0.max > $1.max }
    }

    /// "composed 480 (median 1.52, max 3.10); still layer rebuilt 12 (…)", in `unit`.
    func kindLine(scale: Double = 1, unit: String) -> String {
        kinds.map {
            "\($0.name) \($0.frames) (median \(String(format2: $0.median / scale)), max \(String(format2: $0.max / scale))\(unit))"
        }.joined(separator: "; ")
    }

    /// The JSON members for `bench --json`: `"<prefix>worst":[…],"<prefix>kinds":[…]`.
    func json(prefix: String, valueKey: String, scale: Double = 1, cost: (FrameRecord) -> Double) -> String {
        func num(_ v: Double) -> String { jsonNumber(v / scale, decimals: 3) }
        let worst = self.worst.map {
            "{\"frame\":\($0.index),\"\(valueKey)\":\(num(cost($0))),\"work\":\"\($0.work?.description ?? "")\"}"
        }
        let kinds = self.kinds.map {
            "{\"kind\":\"\($0.name)\",\"frames\":\($0.frames),\"median_\(valueKey)\":\(num($0.median)),"
                + "\"max_\(valueKey)\":\(num($0.max))}"
        }
        return
            "\"\(prefix)worst\":[\(worst.joined(separator: ","))],\"\(prefix)kinds\":[\(kinds.joined(separator: ","))]"
    }
}
