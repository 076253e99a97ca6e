import CardModel
import Testing

@testable import KioskCards
@testable import KioskSystem

@Suite struct RunStatsTests {
    @Test func framesPerSecondCountsTheLastSecondOfFlips() {
        var s = RunStats(processStart: .seconds(0))
        for i in 0..<120 { s.flipCompleted(at: .seconds(10 + Double(i) / 60), input: nil) }
        let last = Instant.seconds(10 + 119.0 / 60)
        #expect(s.framesPerSecond(at: last) == 60)
        #expect(s.framesPerSecond(at: last.advanced(bySeconds: 5)) == 0)  // idle: nothing flips
        #expect(s.line(peakRSSKilobytes: 2048, now: last).contains("fps 60"))
    }

    @Test func latencyPercentilesAndFirstFlip() {
        var s = RunStats(processStart: .seconds(1))
        for ms in 1...100 {
            let flip = Instant.seconds(2 + Double(ms))
            let input = flip.advanced(bySeconds: -Double(ms) / 1000)
            s.flipCompleted(at: flip, input: InputTrace(input: input, read: input))
        }
        let json = s.json(peakRSSKilobytes: 1000)
        #expect(json.contains("\"input_to_flip_p50_ms\":50,") || json.contains("\"input_to_flip_p50_ms\":50."))
        #expect(json.contains("\"input_to_flip_p99_ms\":99"))
        #expect(json.contains("\"start_to_first_frame_ms\":2000"))
    }

    /// The latency's four stages add up to it; the first frame (start-up) is not a frame time.
    @Test func latencyStagesAndTheFirstFrameApart() {
        var s = RunStats(processStart: .seconds(0))
        s.frameDrawn(milliseconds: 400, cpuMilliseconds: 390)
        for i in 0..<10 {
            let input = Instant.seconds(10 + Double(i))
            let trace = InputTrace(
                input: input, read: input.advanced(bySeconds: 0.002), drawBegan: input.advanced(bySeconds: 0.010),
                issued: input.advanced(bySeconds: 0.014))
            s.frameDrawn(milliseconds: 4, cpuMilliseconds: 3)
            s.flipCompleted(at: input.advanced(bySeconds: 0.030), input: trace)
        }
        let json = s.json(peakRSSKilobytes: 1)
        for field in [
            "\"input_to_flip_p90_ms\":30", "\"input_to_flip_p95_ms\":30",
            "\"input_to_read_p50_ms\":2", "\"read_to_draw_p50_ms\":8",
            "\"draw_to_issue_p50_ms\":4", "\"issue_to_flip_p99_ms\":16", "\"first_frame_time_ms\":400",
            "\"frame_time_p99_ms\":4", "\"frame_cpu_max_ms\":3",
        ] {
            #expect(json.contains(field), "\(field) in \(json)")
        }
    }

    @Test func boundedSamplesKeepTheMostRecent() {
        var b = BoundedSamples(capacity: 3)
        for v in [1.0, 2, 3, 40, 50] { b.append(v) }
        #expect(b.count == 3)
        #expect(b.percentile(0.1) == 3)
        #expect(b.maximum == 50)
    }
}
