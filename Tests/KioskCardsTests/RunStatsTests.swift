import CardModel
import Testing

@testable import KioskCards
@testable import KioskSystem

@Suite struct RunStatsTests {
    @Test func framesPerSecondCountsTheLastSecondOfFlips() {
        var s = RunStats(processStart: .seconds(0))
        for i in 0..<120 { s.flipCompleted(at: .seconds(10 + Double(i) / 60), inputTime: nil) }
        let last = Instant.seconds(10 + 119.0 / 60)
        #expect(s.framesPerSecond(at: last) == 60)
        #expect(s.framesPerSecond(at: last.advanced(bySeconds: 5)) == 0)  // idle: nothing flips
        #expect(s.line(peakRSSKilobytes: 2048, now: last).contains("fps 60"))
    }

    @Test func latencyPercentilesAndFirstFlip() {
        var s = RunStats(processStart: .seconds(1))
        for ms in 1...100 {
            let flip = Instant.seconds(2 + Double(ms))
            s.flipCompleted(at: flip, inputTime: flip.advanced(bySeconds: -Double(ms) / 1000))
        }
        let json = s.json(peakRSSKilobytes: 1000)
        #expect(json.contains("\"input_to_flip_p50_ms\":50,") || json.contains("\"input_to_flip_p50_ms\":50."))
        #expect(json.contains("\"input_to_flip_p99_ms\":99"))
        #expect(json.contains("\"start_to_first_frame_ms\":2000"))
    }

    @Test func boundedSamplesKeepTheMostRecent() {
        var b = BoundedSamples(capacity: 3)
        for v in [1.0, 2, 3, 40, 50] { b.append(v) }
        #expect(b.count == 3)
        #expect(b.percentile(0.1) == 3)
        #expect(b.maximum == 50)
    }
}
