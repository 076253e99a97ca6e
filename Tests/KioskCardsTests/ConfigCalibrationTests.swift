import CardModel
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskSystem

@Suite struct ConfigCalibrationTests {
    /// An 800×480 panel whose digitiser reports 0…4095 on both axes.
    func mapping(rotation: Rotation = .deg0, touchTransform: TouchMatrix = .identity) -> TouchMapping {
        TouchMapping(
            x: AbsInfo(minimum: 0, maximum: 4095), y: AbsInfo(minimum: 0, maximum: 4095),
            panel: Size(width: 800, height: 480), rotation: rotation, touchTransform: touchTransform)
    }

    /// Where a miscalibrated digitiser reports a finger on `target`: the true matrix's inverse
    /// applied to the target's normalised panel position (what the hardware does to us).
    func simulatedTap(on target: Point, truth: TouchMatrix, mapping: TouchMapping) -> Point {
        let onPanel = mapping.rotation.toPhysical(target, physical: mapping.panel)
        let n = Point(x: onPanel.x / mapping.panel.width, y: onPanel.y / mapping.panel.height)
        let beforeTransform = TouchCalibration.inverse(of: mapping.touchTransform)!.apply(n)
        return TouchCalibration.inverse(of: truth)!.apply(beforeTransform)
    }

    func expectClose(
        _ m: TouchMatrix, _ t: TouchMatrix, tolerance: Double = 1e-9, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (x, y) in zip([m.a, m.b, m.c, m.d, m.e, m.f], [t.a, t.b, t.c, t.d, t.e, t.f]) {
            #expect(abs(x - y) <= tolerance, "\(m) vs \(t)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [
        // A panel whose touches land 20 pt right and 12 pt low: offsets of 0.025 and 0.025.
        TouchMatrix(a: 1, b: 0, c: -0.025, d: 0, e: 1, f: -0.025),
        // Scaled 3 % too small and offset: a typical resistive panel.
        TouchMatrix(a: 1.03, b: 0, c: -0.015, d: 0, e: 0.97, f: 0.02),
        // Slightly skewed and rotated.
        TouchMatrix(a: 0.99, b: 0.02, c: 0.01, d: -0.015, e: 1.01, f: 0.005),
    ])
    func fourTapsWithKnownOffsetsGiveTheMatrix(truth: TouchMatrix) throws {
        let m = mapping()
        let targets = TouchCalibration.targets(for: m.logicalSize)
        let taps = targets.map { simulatedTap(on: $0, truth: truth, mapping: m) }
        let result = try #require(TouchCalibration.solve(targets: targets, taps: taps, mapping: m))
        expectClose(result.matrix, truth)
        #expect(result.worstErrorPoints < 1e-6)
    }

    @Test(arguments: Rotation.allCases)
    func rotationAndTouchTransformAreAccountedFor(rotation: Rotation) throws {
        let m = mapping(rotation: rotation, touchTransform: .flipX)
        let truth = TouchMatrix(a: 1.02, b: 0, c: -0.01, d: 0, e: 0.98, f: 0.015)
        let targets = TouchCalibration.targets(for: m.logicalSize)
        let taps = targets.map { simulatedTap(on: $0, truth: truth, mapping: m) }
        let result = try #require(TouchCalibration.solve(targets: targets, taps: taps, mapping: m))
        expectClose(result.matrix, truth)

        // End to end through the input mapping: a raw device tap now lands on its target.
        var calibrated = m
        calibrated.calibration = result.matrix
        for (tap, target) in zip(taps, targets) {
            // Raw device units of the tap (inverse of step 1 of TouchMapping).
            let device = DevicePoint(x: tap.x * 4096 - 0.5, y: tap.y * 4096 - 0.5)
            let landed = calibrated.map(device)
            #expect((landed - target).length < 0.01, "\(landed) vs \(target)")
        }
    }

    @Test func noisyTapsGiveABestFitAndReportTheError() throws {
        let m = mapping()
        let truth = TouchMatrix(a: 1, b: 0, c: 0.02, d: 0, e: 1, f: -0.01)
        let targets = TouchCalibration.targets(for: m.logicalSize)
        // ±2 pt of finger noise at each target.
        let noise = [Point(x: 2, y: -1), Point(x: -2, y: 1), Point(x: 1, y: 2), Point(x: -1, y: -2)]
        let taps = zip(targets, noise).map { simulatedTap(on: $0 + $1, truth: truth, mapping: m) }
        let result = try #require(TouchCalibration.solve(targets: targets, taps: taps, mapping: m))
        expectClose(result.matrix, truth, tolerance: 0.01)
        #expect(result.worstErrorPoints > 0.1)
        #expect(result.worstErrorPoints < 3)
    }

    @Test func degenerateTapsAreRefused() {
        let m = mapping()
        let targets = TouchCalibration.targets(for: m.logicalSize)
        // All four taps on one line (the finger slid along an edge).
        let line = [Point(x: 0.1, y: 0.1), Point(x: 0.3, y: 0.3), Point(x: 0.6, y: 0.6), Point(x: 0.9, y: 0.9)]
        #expect(TouchCalibration.solve(targets: targets, taps: line, mapping: m) == nil)
        #expect(
            TouchCalibration.solve(targets: Array(targets.prefix(2)), taps: Array(line.prefix(2)), mapping: m) == nil)
    }

    @Test func solvedMatrixRoundTripsThroughTheConfig() throws {
        let m = mapping()
        let truth = TouchMatrix(a: 1.03, b: 0, c: -0.015, d: 0, e: 0.97, f: 0.02)
        let targets = TouchCalibration.targets(for: m.logicalSize)
        let taps = targets.map { simulatedTap(on: $0, truth: truth, mapping: m) }
        let solved = try #require(TouchCalibration.solve(targets: targets, taps: taps, mapping: m)).matrix
        // What calibrate writes (`touch-matrix = …`) parses back to the same matrix.
        let line = "touch-matrix = \(solved)"
        var config = KioskConfig()
        #expect(KioskConfig.apply(file: line, name: "kiosk.conf", to: &config) == nil)
        expectClose(try #require(config.touchMatrix), solved, tolerance: 1e-12)
    }
}
