import CardModel
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskSystem

@Suite struct DiagnosticsCalibrationSequenceTests {
    /// An 800×480 pt panel whose digitiser reports 0…4095 on both axes.
    func mapping(rotation: Rotation = .deg0) -> TouchMapping {
        TouchMapping(
            x: AbsInfo(minimum: 0, maximum: 4095), y: AbsInfo(minimum: 0, maximum: 4095),
            panel: Size(width: 800, height: 480), rotation: rotation)
    }

    /// Where a digitiser that is off by `truth` reports a finger on `target`, in device units.
    func devicePoint(on target: Point, truth: TouchMatrix, mapping m: TouchMapping) -> DevicePoint {
        let onPanel = m.rotation.toPhysical(target, physical: m.panel)
        let n = TouchCalibration.inverse(of: truth)!.apply(
            Point(x: onPanel.x / m.panel.width, y: onPanel.y / m.panel.height))
        return DevicePoint(x: n.x * 4096 - 0.5, y: n.y * 4096 - 0.5)
    }

    /// A tap: down at `p`, a wobble of `wobble` units each way, up; 80 ms long, from `t` seconds.
    func tap(_ p: DevicePoint, id: Int = 1, at t: Double, wobble: Double = 0) -> [DeviceTouchFrame] {
        func f(_ ms: Double, _ q: DevicePoint, _ phase: TouchPhase) -> DeviceTouchFrame {
            DeviceTouchFrame(
                time: .seconds(t + ms / 1000), contacts: [DeviceContact(id: id, position: q, phase: phase)])
        }
        return [
            f(0, DevicePoint(x: p.x - wobble, y: p.y), .began),
            f(30, DevicePoint(x: p.x + wobble, y: p.y - wobble), .moved),
            f(60, DevicePoint(x: p.x, y: p.y + wobble), .moved), f(80, DevicePoint(x: p.x, y: p.y + wobble), .ended),
        ]
    }

    @discardableResult
    func feed(_ frames: [DeviceTouchFrame], to s: inout CalibrationSequence) -> [CalibrationSequence.Outcome] {
        frames.map { s.handle($0) }.filter { $0 != .nothing }
    }

    func expectClose(
        _ m: TouchMatrix, _ t: TouchMatrix, tolerance: Double, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (x, y) in zip([m.a, m.b, m.c, m.d, m.e, m.f], [t.a, t.b, t.c, t.d, t.e, t.f]) {
            #expect(abs(x - y) <= tolerance, "\(m) vs \(t)", sourceLocation: sourceLocation)
        }
    }

    @Test(
        arguments: [Rotation.deg0, .deg90, .deg270],
        [
            // Touches land 20 pt right and 12 pt low.
            TouchMatrix(a: 1, b: 0, c: -0.025, d: 0, e: 1, f: -0.025),
            // 3 % too small and offset, a typical resistive panel.
            TouchMatrix(a: 1.03, b: 0, c: -0.015, d: 0, e: 0.97, f: 0.02),
            TouchMatrix.identity,
        ])
    func fourTapsWithKnownOffsetsGiveTheMatrixThatUndoesThem(rotation: Rotation, truth: TouchMatrix) throws {
        let m = mapping(rotation: rotation)
        var s = CalibrationSequence(mapping: m)
        #expect(s.targets == TouchCalibration.targets(for: m.logicalSize))
        var outcomes: [CalibrationSequence.Outcome] = []
        for (i, target) in s.targets.enumerated() {
            #expect(s.currentTarget == i)
            outcomes += feed(tap(devicePoint(on: target, truth: truth, mapping: m), at: Double(i), wobble: 3), to: &s)
        }
        #expect(outcomes.filter { $0 == .pressed }.count == 4)
        #expect(Array(outcomes.filter { $0 != .pressed }.prefix(3)) == [.accepted(0), .accepted(1), .accepted(2)])
        guard case .finished(let result) = try #require(outcomes.last) else {
            Issue.record("no result: \(outcomes)")
            return
        }
        #expect(s.currentTarget == nil)
        // Device units are whole-number-free here, so the fit is exact up to rounding.
        expectClose(result.matrix, truth, tolerance: 1e-6)
        #expect(result.worstErrorPoints < 0.01)
        // Applied through the mapping, each tap now lands on its target.
        var calibrated = m
        calibrated.calibration = result.matrix
        for target in s.targets {
            let landed = calibrated.map(devicePoint(on: target, truth: truth, mapping: m))
            #expect((landed - target).length < 0.01)
        }
    }

    @Test func aSecondFingerSpoilsThePressUntilAllAreUp() {
        let m = mapping()
        var s = CalibrationSequence(mapping: m)
        let p = devicePoint(on: s.targets[0], truth: .identity, mapping: m)
        let frames = [
            DeviceTouchFrame(time: .seconds(1), contacts: [DeviceContact(id: 1, position: p, phase: .began)]),
            DeviceTouchFrame(time: .seconds(1.05), contacts: [DeviceContact(id: 2, position: p, phase: .began)]),
            DeviceTouchFrame(time: .seconds(1.1), contacts: [DeviceContact(id: 1, position: p, phase: .ended)]),
            // Finger 2 is still down: a new press now does not count either.
            DeviceTouchFrame(time: .seconds(1.2), contacts: [DeviceContact(id: 3, position: p, phase: .began)]),
            DeviceTouchFrame(
                time: .seconds(1.3),
                contacts: [
                    DeviceContact(id: 2, position: p, phase: .ended), DeviceContact(id: 3, position: p, phase: .ended),
                ]),
        ]
        let outcomes = feed(frames, to: &s)
        #expect(outcomes.first == .pressed)
        #expect(outcomes.contains { if case .refused = $0 { true } else { false } })
        #expect(!outcomes.contains(.accepted(0)))
        #expect(s.currentTarget == 0)
        // Once all are up, one finger counts again.
        #expect(feed(tap(p, id: 4, at: 2), to: &s).last == .accepted(0))
    }

    @Test func aDoubleTapOnTheSameTargetAndABounceAreRefused() {
        let m = mapping()
        var s = CalibrationSequence(mapping: m)
        let first = devicePoint(on: s.targets[0], truth: .identity, mapping: m)
        #expect(feed(tap(first, at: 1), to: &s).last == .accepted(0))
        // The same place again, well after: a double tap on target 1, not a tap on target 2.
        guard case .refused(let why) = feed(tap(first, at: 2), to: &s).last else {
            Issue.record("a second tap on the first target was taken")
            return
        }
        #expect(why == .sameSpot(earlier: 1, target: 2))
        #expect(why.description.contains("target 1") && why.description.contains("target 2"))
        // The right place, but 100 ms after the last accepted tap ended: a bounce.
        var bounced = CalibrationSequence(mapping: m)
        feed(tap(first, at: 1), to: &bounced)
        let second = devicePoint(on: s.targets[1], truth: .identity, mapping: m)
        guard case .refused = feed(tap(second, at: 1.1), to: &bounced).last else {
            Issue.record("a tap 100 ms after the last was taken")
            return
        }
        #expect(feed(tap(second, at: 3), to: &s).last == .accepted(1))
        #expect(s.taps.count == 2)
    }

    @Test func aCancelledTouchDoesNotCount() {
        let m = mapping()
        var s = CalibrationSequence(mapping: m)
        let p = devicePoint(on: s.targets[0], truth: .identity, mapping: m)
        var frames = tap(p, at: 1)
        frames[3].contacts[0].phase = .cancelled
        #expect(!feed(frames, to: &s).contains(.accepted(0)))
        #expect(s.currentTarget == 0 && s.taps.isEmpty)
    }

    @Test func tapsOnOneLineStartTheSequenceAgain() {
        let m = mapping()
        var s = CalibrationSequence(mapping: m)
        // A digitiser whose y is stuck (a broken cable): every tap on one horizontal line.
        var outcomes: [CalibrationSequence.Outcome] = []
        for (i, target) in s.targets.enumerated() {
            var p = devicePoint(on: target, truth: .identity, mapping: m)
            p.y = 2000
            // Targets 2 and 3 share x with 1 and 4 on a line; spread x so no tap is refused as a repeat.
            p.x = Double(400 + i * 1000)
            outcomes += feed(tap(p, at: Double(i)), to: &s)
        }
        guard case .restarted = outcomes.last else {
            Issue.record("collinear taps gave \(String(describing: outcomes.last))")
            return
        }
        #expect(s.currentTarget == 0 && s.taps.isEmpty)
    }

    @Test func seededNoisyTapsStayWithinAFewPoints() {
        // Fingers miss the centre by up to ±4 pt; the fit must still be close to the truth.
        var rng = SplitMix64(seed: 0xC0FFEE)
        let truth = TouchMatrix(a: 0.98, b: 0.01, c: 0.02, d: -0.01, e: 1.02, f: -0.015)
        let m = mapping()
        for _ in 0..<50 {
            var s = CalibrationSequence(mapping: m)
            var last: CalibrationSequence.Outcome = .nothing
            for (i, target) in s.targets.enumerated() {
                let jitter = Point(x: Double(rng.next() % 81) / 10 - 4, y: Double(rng.next() % 81) / 10 - 4)
                let p = devicePoint(on: target + jitter, truth: truth, mapping: m)
                last = feed(tap(p, at: Double(i)), to: &s).last ?? .nothing
            }
            guard case .finished(let result) = last else {
                Issue.record("no result: \(last)")
                return
            }
            #expect(result.worstErrorPoints <= 8)
            expectClose(result.matrix, truth, tolerance: 0.03)
        }
    }
}
