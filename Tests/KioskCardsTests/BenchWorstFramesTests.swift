import Testing

@testable import KioskCards
@testable import KioskRender

/// `bench --worst`: the costliest frames first, every kind counted with its median and worst.
@Suite struct BenchWorstFramesTests {
    @Test func worstFramesAreRankedAndKindsCounted() {
        let rebuilt = SceneRenderer.FrameWork.layerRebuilt
        let standIn: SceneRenderer.FrameWork = [.standInDrawn, .standInShown]
        let frames = [
            FrameRecord(index: 0, ms: 1.0, work: []), FrameRecord(index: 1, ms: 5.0, work: rebuilt),
            FrameRecord(index: 2, ms: 2.0, work: []), FrameRecord(index: 3, ms: 5.0, work: standIn),
            FrameRecord(index: 4, ms: 3.0, work: rebuilt),
        ]
        let worst = WorstFrames(frames, count: 3) { $0.ms }
        #expect(worst.worst.map(\.index) == [1, 3, 4], "ties by index, costliest first")
        // The median is the nearest rank (the lower of two), as every bench figure.
        let kinds = Dictionary(uniqueKeysWithValues: worst.kinds.map { ($0.name, $0) })
        #expect(
            kinds["still layer rebuilt"] == WorstFrames.Kind(name: "still layer rebuilt", frames: 2, median: 3, max: 5))
        #expect(kinds["composed"]?.frames == 2)
        #expect(kinds["stand-in drawn"]?.frames == 1 && kinds["stand-in shown"]?.frames == 1)
        #expect(kinds["whole screen"] == nil)
        #expect(standIn.description == "stand-in drawn, stand-in shown")
        #expect(SceneRenderer.FrameWork().description == "composed")
        let json = worst.json(prefix: "", valueKey: "ms") { $0.ms }
        #expect(json.hasPrefix("\"worst\":[{\"frame\":1,\"ms\":5,\"work\":\"still layer rebuilt\"}"))
    }

    @Test func worstOptionIsBounded() {
        let ok = BenchOptions.table.resolve(["--worst", "5"], from: BenchOptions())
        if case .success(let o) = ok { #expect(o.worst == 5) } else { Issue.record("--worst 5 refused") }
        for bad in ["0", "101", "x"] {
            let r = BenchOptions.table.resolve(["--worst", bad], from: BenchOptions())
            if case .success = r { Issue.record("--worst \(bad) accepted") }
        }
    }
}
