import Testing

@testable import KioskRender

/// Cards move up the stack without new images: their image is drawn at the depth level above
/// and reduced while placing. At rest the deeper depths are drawn at their own scale; the card
/// beneath the top one (0.96) is placed from its image on top (1), one image for both levels.
@Suite struct RenderContentScaleTests {
    @Test func restingDepthsAreDrawnAtTheirOwnScale() {
        for i in [0, 2, 3, 4] {
            let s = 1 - 0.04 * Double(i)
            #expect(abs(SceneRenderer.contentScale(s) - s) < 1e-9)
        }
    }

    @Test func theCardBeneathIsDrawnAsOnTop() {
        #expect(SceneRenderer.contentScale(0.96) == 1)
        // Rising from depth 2 to depth 1, and from depth 1 to the top.
        for s in stride(from: 0.9201, to: 1.0, by: 0.005) {
            #expect(SceneRenderer.contentScale(s) == 1, "scale \(s)")
        }
    }

    @Test func movingUpUsesTheLevelAbove() {
        #expect(abs(SceneRenderer.contentScale(0.91) - 0.92) < 1e-9)
        #expect(abs(SceneRenderer.contentScale(0.85) - 0.88) < 1e-9)
    }

    @Test func otherScalesRoundToFiftieths() {
        #expect(abs(SceneRenderer.contentScale(1.131) - 1.14) < 1e-9)
        #expect(abs(SceneRenderer.contentScale(0.3) - 0.3) < 1e-9)
        #expect(SceneRenderer.contentScale(0) == 0.02)
    }
}
