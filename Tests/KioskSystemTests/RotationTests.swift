import CardModel
import Testing

@testable import KioskSystem

@Suite struct RotationTests {
    let panel = Size(width: 800, height: 480)

    @Test(arguments: Rotation.allCases)
    func logicalAndPhysicalAreInverse(rotation: Rotation) {
        let logical = rotation.logicalSize(physical: panel)
        for p in [Point(x: 0, y: 0), Point(x: 10, y: 20), Point(x: logical.width, y: logical.height)] {
            let back = rotation.toLogical(rotation.toPhysical(p, physical: panel), physical: panel)
            #expect(back == p)
        }
    }

    @Test func quarterTurnClockwiseMovesTopLeftToTopRight() {
        // Turned 90° clockwise, the upright picture's top-left corner lands at the panel's top-right.
        #expect(Rotation.deg90.toPhysical(.zero, physical: panel) == Point(x: 800, y: 0))
        #expect(Rotation.deg270.toPhysical(.zero, physical: panel) == Point(x: 0, y: 480))
        #expect(Rotation.deg180.toPhysical(.zero, physical: panel) == Point(x: 800, y: 480))
        #expect(Rotation.deg90.logicalSize(physical: panel) == Size(width: 480, height: 800))
    }

    @Test func composeAndParse() {
        #expect(Rotation.deg90.then(.deg270) == .deg0)
        #expect(Rotation(degrees: -90) == .deg270)
        #expect(Rotation(degrees: 45) == nil)
    }
}
