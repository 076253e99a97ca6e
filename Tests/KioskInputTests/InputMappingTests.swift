import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput
@testable import KioskSystem

@Suite struct InputMappingTests {
    // A fine device axis so the half-cell centring is far below the tolerance.
    static let axis = AbsInfo(minimum: 0, maximum: 32767)
    static let panel = Size(width: 800, height: 480)
    static let topLeft = DevicePoint(x: 0, y: 0)
    static let topRight = DevicePoint(x: 32767, y: 0)
    static let bottomLeft = DevicePoint(x: 0, y: 32767)
    static let bottomRight = DevicePoint(x: 32767, y: 32767)

    func expectNear(_ a: Point, _ b: Point, tolerance: Double = 0.05, sourceLocation: SourceLocation = #_sourceLocation)
    {
        #expect(
            abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance, "\(a) ≠ \(b)", sourceLocation: sourceLocation)
    }

    /// Where the digitiser's corners land in the upright picture for each rotation. The panel is
    /// 800×480; turned by 90/270 the upright picture is 480×800. Turning the picture 90°
    /// clockwise puts its bottom-left corner at the panel's top-left, and so on.
    @Test(arguments: [
        (Rotation.deg0, [Point(x: 0, y: 0), Point(x: 800, y: 0), Point(x: 0, y: 480), Point(x: 800, y: 480)]),
        (.deg90, [Point(x: 0, y: 800), Point(x: 0, y: 0), Point(x: 480, y: 800), Point(x: 480, y: 0)]),
        (.deg180, [Point(x: 800, y: 480), Point(x: 0, y: 480), Point(x: 800, y: 0), Point(x: 0, y: 0)]),
        (.deg270, [Point(x: 480, y: 0), Point(x: 480, y: 800), Point(x: 0, y: 0), Point(x: 0, y: 800)]),
    ])
    func cornersLandWhereTheRotatedPictureShowsThem(rotation: Rotation, expected: [Point]) {
        let m = TouchMapping(x: Self.axis, y: Self.axis, panel: Self.panel, rotation: rotation)
        let corners = [Self.topLeft, Self.topRight, Self.bottomLeft, Self.bottomRight]
        for (corner, want) in zip(corners, expected) {
            expectNear(m.map(corner), want)
        }
        // …and agree with the display's own inverse: the picture drawn at that logical point
        // is shown at the physical corner.
        for corner in corners {
            let physical = Point(x: corner.x / 32767 * 800, y: corner.y / 32767 * 480)
            expectNear(rotation.toPhysical(m.map(corner), physical: Self.panel), physical)
        }
    }

    @Test func libinputMatrixRotatesAndScalesInNormalisedSpace() throws {
        // libinput's documented 90° matrix: the digitiser's top-left reads as the screen's top-right.
        let rot = try #require(TouchMatrix(parsing: "0 -1 1 1 0 0"))
        let m = TouchMapping(x: Self.axis, y: Self.axis, panel: Self.panel, calibration: rot)
        expectNear(m.map(Self.topLeft), Point(x: 800, y: 0))
        expectNear(m.map(Self.bottomLeft), Point(x: 0, y: 0))
        expectNear(m.map(Self.bottomRight), Point(x: 0, y: 480))

        // A digitiser bigger than the glass: its middle half covers the whole screen.
        let zoom = try #require(TouchMatrix(parsing: "2 0 -0.5 0 2 -0.5"))
        let z = TouchMapping(x: Self.axis, y: Self.axis, panel: Self.panel, calibration: zoom)
        expectNear(z.map(DevicePoint(x: 32767 / 4, y: 32767 / 4)), Point(x: 0, y: 0), tolerance: 0.1)
        expectNear(z.map(DevicePoint(x: 32767 * 3 / 4, y: 32767 * 3 / 4)), Point(x: 800, y: 480), tolerance: 0.1)
        expectNear(z.map(DevicePoint(x: 32767 / 2, y: 32767 / 2)), Point(x: 400, y: 240))
        // Outside the glass clamps to the edge instead of leaving the screen.
        expectNear(z.map(Self.topLeft), Point(x: 0, y: 0))

        // Calibration, then the display rotation.
        let both = TouchMapping(x: Self.axis, y: Self.axis, panel: Self.panel, rotation: .deg90, calibration: rot)
        expectNear(both.map(Self.topLeft), Point(x: 0, y: 0))  // physical top-right → logical top-left at 90°
    }

    @Test func matrixParsingAndComposition() throws {
        #expect(TouchMatrix(parsing: "1 0 0 0 1 0") == .identity)
        #expect(TouchMatrix(parsing: "1,0,0,0,1,0") == .identity)
        #expect(TouchMatrix(parsing: "1 0 0 0 1") == nil)
        #expect(TouchMatrix(parsing: "1 0 0 0 x 0") == nil)
        #expect(TouchMatrix(parsing: "1 1 0 1 1 0") == nil, "singular: every touch on one line")
        for r in Rotation.allCases {
            let back = TouchMatrix(rotation: r).then(TouchMatrix(rotation: Rotation(degrees: 360 - r.rawValue)!))
            let p = back.apply(Point(x: 0.3, y: 0.7))
            #expect(abs(p.x - 0.3) < 1e-12 && abs(p.y - 0.7) < 1e-12)
        }
        let spec = try #require(TouchMatrix(transformSpec: "flip-x,flip-y"))
        #expect(spec == TouchMatrix(rotation: .deg180))
        #expect(TouchMatrix(transformSpec: "swap-xy")?.apply(Point(x: 0.25, y: 0.5)) == Point(x: 0.5, y: 0.25))
        #expect(TouchMatrix(transformSpec: "wobble") == nil)
    }

    @Test func touchOnlyTransformAppliesAfterCalibrationBeforeRotation() {
        var m = TouchMapping(x: Self.axis, y: Self.axis, panel: Self.panel)
        m.touchTransform = .flipX
        expectNear(m.map(Self.topLeft), Point(x: 800, y: 0))
        m.rotation = .deg180
        expectNear(m.map(Self.topLeft), Point(x: 0, y: 480))
    }

    @Test func cellCentresKeepBothRangeConventionsOnScreen() {
        // 0…799 on 800 points: each value is the centre of its point.
        let atmel = TouchMapping(
            x: AbsInfo(minimum: 0, maximum: 799), y: AbsInfo(minimum: 0, maximum: 479), panel: Self.panel)
        #expect(atmel.map(DevicePoint(x: 0, y: 0)) == Point(x: 0.5, y: 0.5))
        #expect(atmel.map(DevicePoint(x: 799, y: 479)) == Point(x: 799.5, y: 479.5))
        // Negative minimum (libinput's single-touch test device).
        let neg = TouchMapping(
            x: AbsInfo(minimum: -100, maximum: 99), y: AbsInfo(minimum: -100, maximum: 99),
            panel: Size(width: 200, height: 200))
        expectNear(neg.map(DevicePoint(x: 0, y: -100)), Point(x: 100.5, y: 0.5), tolerance: 1e-9)
    }

    @Test func udevCalibrationMatrixFromTheDatabaseEntry() {
        let entry = """
            I:2712345
            E:ID_INPUT=1
            E:ID_INPUT_TOUCHSCREEN=1
            E:LIBINPUT_CALIBRATION_MATRIX=0 1 0 -1 0 1
            G:seat
            """
        #expect(UdevDatabase.calibrationMatrix(fromEntry: entry) == TouchMatrix(rotation: .deg270))
        #expect(UdevDatabase.calibrationMatrix(fromEntry: "E:ID_INPUT=1\n") == nil)
        #expect(UdevDatabase.calibrationMatrix(fromEntry: "E:LIBINPUT_CALIBRATION_MATRIX=oops\n") == nil)
        #expect(UdevDatabase.entryPath(major: 13, minor: 66) == "/run/udev/data/c13:66")
    }

    @Test func replayOptionsRotateTheRecording() throws {
        // Turned 90° clockwise, the picture's x runs down the panel's y and its y runs along the
        // panel's x reversed: every replayed point follows that exactly.
        let upright = try TouchTestData.replay("atmel-mxt-800x480-one-finger-drag-up-down.evemu")
        var options = TouchReplayOptions()
        options.rotation = .deg90
        let turned = try TouchTestData.replay("atmel-mxt-800x480-one-finger-drag-up-down.evemu", options: options)
        let a = ContactHistory.collect(upright.frames)[0].positions
        let b = ContactHistory.collect(turned.frames)[0].positions
        #expect(a.count == b.count)
        for (p, q) in zip(a, b) {
            expectNear(q, Point(x: p.y, y: 800 - p.x))
        }
    }
}
