import Testing

@testable import KioskRender

/// Cards move up the stack (scale 0.96 → 1) without new images: their image is drawn at the
/// depth level above and reduced while placing; at rest every depth is drawn at its own scale.
@Suite struct RenderContentScaleTests {
    @Test func restingDepthsAreDrawnAtTheirOwnScale() {
        for i in 0..<5 {
            let s = 1 - 0.04 * Double(i)
            #expect(abs(SceneRenderer.contentScale(s) - s) < 1e-9)
        }
    }

    @Test func movingUpUsesTheLevelAbove() {
        for s in stride(from: 0.9601, to: 1.0, by: 0.005) {
            #expect(SceneRenderer.contentScale(s) == 1)
        }
        #expect(abs(SceneRenderer.contentScale(0.95) - 0.96) < 1e-9)
    }

    @Test func otherScalesRoundToFiftieths() {
        #expect(abs(SceneRenderer.contentScale(1.131) - 1.14) < 1e-9)
        #expect(abs(SceneRenderer.contentScale(0.3) - 0.3) < 1e-9)
        #expect(SceneRenderer.contentScale(0) == 0.02)
    }
}
