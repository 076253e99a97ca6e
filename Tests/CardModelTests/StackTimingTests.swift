import Testing

@testable import CardModel

@Suite struct StackTimingTests {
    let centre = Point(x: 400, y: 240)

    /// Two swipes, the second grabbed while the first card flies, then springs settling.
    func script() -> TouchScript {
        var s = TouchScript()
        s.drag(from: centre, by: Point(x: 170, y: 40), over: 300, holdMs: 0)
        s.wait(80)
        s.down(centre)
        s.move(to: centre + Point(x: -90, y: 10), over: 250)
        s.up(afterMs: 100)
        return s
    }

    @Test func sameScenesAt30And60And144Hz() {
        let start = Instant.seconds(1)
        let end = Instant.seconds(3.5)
        var runs: [[Instant: Scene]] = []
        for hz in [30, 60, 144] {
            var deck = StackDeck(cards: sampleCards(4), metrics: panel7)
            var s = script()
            let scenes = deck.play(&s, drawingAt: hz, from: start, until: end)
            #expect(deck.takeDecisions().map(\.action) == [.swipedRight])
            runs.append(Dictionary(uniqueKeysWithValues: scenes.map { ($0.time, $0.scene) }))
        }
        // Common instants: every 1/6 s.
        var compared = 0
        for (t, scene) in runs[0] where runs[1][t] != nil && runs[2][t] != nil {
            #expect(runs[1][t] == scene, "60 Hz differs from 30 Hz at \(t)")
            #expect(runs[2][t] == scene, "144 Hz differs from 30 Hz at \(t)")
            compared += 1
        }
        #expect(compared == 16)
    }

    /// A 25 Hz panel (Raspberry Pi 7" display) drawn at 60 Hz.
    @Test func slowPanelMovesTheCardOnEveryFrame() throws {
        let start = centre
        func finger(_ f: Double) -> Point {
            // Speeds up, curves downwards: ~300 pt/s on average.
            start + Point(x: 220 * f * f, y: 80 * f * f * f)
        }
        var s = TouchScript()
        s.down(start)
        s.path(over: 800, hz: 25, finger)
        let lastMove = s.now
        s.up(afterMs: 40)
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        let scenes = deck.play(&s, drawingAt: 60, from: .seconds(1), until: lastMove)
        // The finger's translation as the card shows it: x = dx, y = dy/12.
        var shown: [Point] = []
        for (_, scene) in scenes {
            let e = try #require(scene.element("card:c0"))
            shown.append(Point(x: e.transform.translation.x, y: e.transform.translation.y * 12))
        }
        // Once the finger has left the slop, every frame shows a new position.
        let moving = shown.drop { $0.length < 12 }
        #expect(moving.count > 30)
        for (a, b) in zip(moving, moving.dropFirst()) {
            #expect(b.x > a.x, "frames must differ: \(a) then \(b)")
        }
        // Each shown position lies within a point of the finger's true path, never past its end.
        let path = (0...2000).map { finger(Double($0) / 2000) - start }
        for p in moving {
            let distance = path.map { ($0 - p).length }.min()!
            #expect(distance < 1, "\(p) is \(distance) pt off the path")
            #expect(p.x <= 220 + 1e-9)
        }
        // The lag behind the finger is the panel's interval less the 8 ms prediction.
        let (t, scene) = scenes[scenes.count - 1]
        let x = try #require(scene.element("card:c0")).transform.translation.x
        let lagged = finger(t.seconds(since: .seconds(1)) / 0.8 - 0.032 / 0.8).x - start.x
        expectClose(x, lagged, within: 1.5)
        // After the lift the card goes on from where it was shown, without a jump back.
        let after = try #require(deck.scene(at: t.advanced(bySeconds: 1 / 60)).element("card:c0"))
        #expect(after.transform.translation.x > x)
        #expect(after.transform.translation.x < x + 20)
    }

    @Test func naiveLatestSampleWouldStutter() {
        // The check above is meaningful: without resampling, 60 Hz frames of a 25 Hz panel
        // repeat positions.
        var r = TouchResampler()
        var plain: [Double] = []
        var resampled: [Double] = []
        var samples: [(Instant, Double)] = []
        for k in 0...25 { samples.append((.milliseconds(Double(k) * 40), Double(k) * 12)) }
        var next = 0
        for frame in 3..<55 {
            let t = Instant.milliseconds(Double(frame) * 1000 / 60)
            while next < samples.count && samples[next].0 <= t {
                r.add(Point(x: samples[next].1, y: 0), at: samples[next].0)
                next += 1
            }
            plain.append(samples[next - 1].1)
            resampled.append(r.position(at: t)!.x)
        }
        #expect(zip(plain, plain.dropFirst()).contains { $0 == $1 })
        #expect(zip(resampled, resampled.dropFirst()).allSatisfy { $0 < $1 })
        expectClose(r.latency, 0.032, within: 1e-9)
    }

    @Test func resamplerNeverPassesTheReleaseAndStopsPredictingAtRest() {
        var r = TouchResampler()
        for k in 0...5 { r.add(Point(x: Double(k) * 10, y: 0), at: .milliseconds(Double(k) * 10)) }
        // Fresh samples: predicts at most 8 ms ahead.
        let ahead = r.position(at: .milliseconds(60))!.x
        #expect(ahead > 50 && ahead <= 58 + 1e-9)
        // The next report is overdue: the finger stopped, show where it is.
        #expect(r.position(at: .milliseconds(80))!.x == 50)
        #expect(!r.isMoving(at: .milliseconds(80)))
        r.end(at: Point(x: 50, y: 0), time: .milliseconds(55))
        #expect(r.position(at: .milliseconds(60))!.x <= 50)
    }
}
