import Testing

@testable import CardModel

@Suite struct VelocityTrackerTests {
    @Test(arguments: [25.0, 60.0, 120.0])
    func constantVelocityIsExact(hz: Double) {
        var v = VelocityTracker()
        for k in 0..<20 {
            let t = Double(k) / hz
            v.add(Point(x: 10 + 300 * t, y: 50 - 120 * t), at: .seconds(t))
        }
        expectClose(v.velocity, Point(x: 300, y: -120), within: 1e-4)
    }

    @Test func quadraticPathGivesSlopeAtNewestSample() {
        var v = VelocityTracker()
        for k in 0...12 {
            let t = Double(k) / 120
            v.add(Point(x: 1000 * t * t, y: 0), at: .seconds(t))
        }
        expectClose(v.velocity.x, 2000 * 0.1, within: 1e-6)
    }

    @Test func onlyTheLast100msCount() {
        var v = VelocityTracker()
        // Fast for 200 ms, then 100 pt/s for the last 150 ms.
        var x = 0.0
        for k in 0..<12 {
            x += 30
            v.add(Point(x: x, y: 0), at: .milliseconds(Double(k) * 16))
        }
        let t0 = 11 * 16.0
        for k in 1...10 {
            v.add(Point(x: x + Double(k) * 1.6, y: 0), at: .milliseconds(t0 + Double(k) * 16))
        }
        expectClose(v.velocity.x, 100, within: 1e-6)
    }

    @Test func restingBeforeTheLiftMeansNoVelocity() {
        var v = VelocityTracker()
        for k in 0..<6 { v.add(Point(x: Double(k) * 20, y: 0), at: .milliseconds(Double(k) * 16)) }
        #expect(v.velocity(at: .milliseconds(5 * 16 + 10)).x > 1000)
        #expect(v.velocity(at: .milliseconds(5 * 16 + 60)) == .zero)
        var gap = VelocityTracker()
        gap.add(Point(x: 0, y: 0), at: .milliseconds(0))
        gap.add(Point(x: 100, y: 0), at: .milliseconds(90))
        #expect(gap.velocity == .zero, "a 90 ms gap means the finger stopped")
    }
}

@Suite struct GestureTests {
    @Test func slopIsTwoMillimetres() {
        expectClose(panel7.touchSlop, 10.5)
        let big = ScreenMetrics(size: Size(width: 1280, height: 720), pointsPerMillimetre: 3.82)
        expectClose(big.touchSlop, 7.64)
        #expect(ScreenMetrics(size: .zero, pointsPerMillimetre: .nan).touchSlop == 10)
        #expect(ScreenMetrics(size: .zero, pointsPerMillimetre: 1000).touchSlop == 40)
    }

    /// The same physical movement separates taps from drags on any panel.
    @Test(arguments: [3.0, 5.25, 8.0])
    func tapOrDragByMillimetres(pointsPerMillimetre: Double) {
        let m = ScreenMetrics(size: Size(width: 800, height: 480), pointsPerMillimetre: pointsPerMillimetre)
        func kind(movingMillimetres mm: Double) -> GestureSummary.Kind? {
            var g = PrimaryGestureTracker(metrics: m)
            var s = TouchScript()
            s.drag(from: Point(x: 300, y: 200), by: Point(x: mm * pointsPerMillimetre, y: 0), over: 100)
            return s.frames.compactMap { g.handle($0) }.first?.kind
        }
        #expect(kind(movingMillimetres: 1.9) == .tap)
        #expect(kind(movingMillimetres: 2.1) == .drag)
    }

    @Test(arguments: [
        (Point(x: 40, y: 10), DragAxis.horizontal), (Point(x: -40, y: 30), .horizontal),
        (Point(x: 10, y: 40), .vertical), (Point(x: 20, y: -20), .vertical),
    ])
    func axisLocksWhenLeavingTheSlop(direction: Point, axis: DragAxis) {
        var r = DragRecognizer(slop: 10)
        _ = r.handle(.down(Point(x: 100, y: 100), .zero))
        var began: [DragAxis] = []
        for k in 1...10 {
            let p = Point(x: 100, y: 100) + direction * (Double(k) / 10)
            for case .dragBegan(let a, _) in r.handle(.move(p, .milliseconds(Double(k) * 16))) { began.append(a) }
        }
        // Turning afterwards does not change the lock.
        _ = r.handle(.move(Point(x: 100, y: 100) + Point(x: -direction.y * 5, y: direction.x * 5), .milliseconds(200)))
        #expect(began == [axis])
        #expect(r.axis == axis)
    }

    @Test func predictedEndIsAQuarterSecondOfVelocity() {
        var g = PrimaryGestureTracker(metrics: panel7)
        var s = TouchScript()
        s.down(Point(x: 400, y: 240))
        s.move(to: Point(x: 460, y: 240), over: 100)  // 600 pt/s
        s.up(afterMs: 1000 / 60)
        let summary = try! #require(s.frames.compactMap { g.handle($0) }.first)
        #expect(summary.kind == .drag)
        expectClose(summary.translation, Point(x: 60, y: 0))
        expectClose(summary.velocity.x, 600, within: 1)
        expectClose(summary.predictedEndTranslation.x, 60 + summary.velocity.x * 0.25)
        #expect(summary.dismiss == .right, "a 60 pt flick at 600 pt/s is predicted to end beyond 120")
    }

    /// A cancel (unplug, SYN_DROPPED, a palm, too many contacts) is summarised as such, acting
    /// as nothing, so `replay` shows why a gesture did not act.
    @Test func summariesOnlyForThePrimaryAndACancelSaysSo() {
        var g = PrimaryGestureTracker(metrics: panel7)
        var s = TouchScript()
        s.down(Point(x: 100, y: 100), id: 1)
        s.down(Point(x: 500, y: 100), id: 2)
        s.move(to: Point(x: 700, y: 100), over: 50, id: 2)
        s.up(id: 2)
        s.up(id: 1)
        s.down(Point(x: 100, y: 100), id: 3)
        s.move(to: Point(x: 300, y: 100), over: 100, id: 3)
        s.cancel(id: 3)
        let summaries = s.frames.compactMap { g.handle($0) }
        #expect(summaries.map(\.kind) == [.tap, .cancelled])
        #expect(summaries.first?.translation == .zero)
        #expect(summaries.last?.dismiss == nil)
    }

    // MARK: Holds and too many contacts

    @Test func aHoldPastTheLongPressLimitIsNotATap() {
        func kind(holdingMs ms: Double) -> GestureSummary.Kind? {
            var g = PrimaryGestureTracker(metrics: panel7)
            var s = TouchScript()
            s.down(Point(x: 400, y: 240))
            s.move(to: Point(x: 401, y: 240), over: 20)  // a jitter within the slop
            s.up(afterMs: ms)
            return s.frames.compactMap { g.handle($0) }.first?.kind
        }
        let limit = DragRecognizer.longPressSeconds * 1000
        #expect(kind(holdingMs: limit - 100) == .tap)
        #expect(kind(holdingMs: limit + 100) == .hold)
        #expect(kind(holdingMs: 3_600_000) == .hold, "a finger held still for an hour")
    }

    @Test func aHoldEndsWithoutTapOrAxis() {
        var r = DragRecognizer(slop: 10)
        _ = r.handle(.down(Point(x: 10, y: 10), .seconds(1)))
        guard case .ended(let end) = r.handle(.up(Point(x: 10, y: 10), .seconds(3))).first else {
            Issue.record("no end")
            return
        }
        #expect(!end.isTap && end.isHold && end.axis == nil)
    }

    @Test func aSixthContactCancelsTheDragUntilEveryContactLifts() {
        var g = PrimaryGestureTracker(metrics: panel7)
        var s = TouchScript()
        s.down(Point(x: 100, y: 100), id: 1)
        s.move(to: Point(x: 200, y: 100), over: 50, id: 1)
        for id in 2...6 { s.down(Point(x: 100, y: 100 + Double(id) * 40), id: id) }
        s.move(to: Point(x: 600, y: 100), over: 100, id: 1)
        for id in 2...5 { s.up(id: id) }
        s.down(Point(x: 300, y: 300), id: 7)  // lands while the cloth is still on the glass
        s.move(to: Point(x: 700, y: 300), over: 100, id: 7)
        s.up(id: 7)
        s.up(id: 6)
        s.up(id: 1)
        #expect(s.frames.compactMap { g.handle($0) }.map(\.kind) == [.cancelled])
        // Once the glass is clear, an ordinary swipe works again.
        var after = TouchScript(at: s.now.advanced(bySeconds: 0.5))
        after.drag(from: Point(x: 200, y: 240), by: Point(x: 400, y: 0), over: 100)
        let swipe = after.frames.compactMap { g.handle($0) }
        #expect(swipe.map(\.kind) == [.drag])
        #expect(swipe.first?.dismiss == .right)
    }

    @Test func fiveContactsAreAHandAndKeepTheDrag() {
        var g = PrimaryGestureTracker(metrics: panel7)
        var s = TouchScript()
        s.down(Point(x: 100, y: 100), id: 1)
        for id in 2...5 { s.down(Point(x: 100, y: 100 + Double(id) * 40), id: id) }
        s.move(to: Point(x: 600, y: 100), over: 100, id: 1)
        for id in 1...5 { s.up(id: id) }
        #expect(s.frames.compactMap { g.handle($0) }.map(\.dismiss) == [.right])
    }
}
