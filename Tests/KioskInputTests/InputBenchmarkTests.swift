import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput
@testable import KioskSystem

/// Prints how fast recordings parse and decode (a figure, never an assertion on time); only
/// with KIOSK_BENCH=1.
@Suite(TestRequirement.benchmark.trait) struct InputBenchmarkTests {
    @Test func decodeThroughputFigure() throws {
        let dir = try TouchTestData.requireDirectory()
        let text = try FileIO.readText(dir + "/dell-canvas-cooltouch-hid-win8-up-to-5-fingers.evemu", limit: 64 << 20)
        let rounds = 5
        let t0 = MonotonicClock.now()
        var recording: EvemuRecording?
        for _ in 0..<rounds { recording = try EvemuRecording(parsing: text) }
        let t1 = MonotonicClock.now()
        var frames = 0
        for _ in 0..<rounds { frames = try TouchReplay(try #require(recording)).frames.count }
        let t2 = MonotonicClock.now()
        let events = try #require(recording).events.count
        let parse = t1.seconds(since: t0) / Double(rounds)
        let decode = t2.seconds(since: t1) / Double(rounds)
        print(
            "input benchmark (dell canvas, \(events) events, \(text.utf8.count / 1024) KiB): parse \(jsonNumber(parse * 1000, decimals: 2)) ms, "
                + "decode+map \(jsonNumber(decode * 1000, decimals: 2)) ms "
                + "(\(jsonNumber(Double(events) / decode / 1e6, decimals: 2)) M events/s), \(frames) frames")
        #expect(frames > 0)
    }
}
