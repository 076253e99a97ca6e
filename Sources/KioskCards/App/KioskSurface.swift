import CardModel
import KioskDisplay
import KioskRender
import KioskSystem

/// What frames are drawn into, sized for the display's current mode.
struct KioskSurface {
    var frame: PixelBuffer
    var renderer: SceneRenderer
    var metrics: ScreenMetrics
    var scale: Double

    /// A surface for the display's current mode, with the same geometry `render --panel-mm`
    /// draws with.
    init(display: Display, scale: Double?) {
        let panel = PanelGeometry(
            pixelWidth: display.pixelWidth, pixelHeight: display.pixelHeight, millimetres: display.logicalSizeMM,
            scale: scale)
        frame = PixelBuffer(width: display.pixelWidth, height: display.pixelHeight)
        frame.populateInBackground()
        renderer = SceneRenderer(
            pixelWidth: display.pixelWidth, pixelHeight: display.pixelHeight, scale: panel.scale, images: ImageCache(),
            preparer: ElementPreparer())
        metrics = panel.metrics
        self.scale = panel.scale
    }

    /// Product photos are decoded, and cards drawn, off the loop: when a photo is ready, or
    /// a card that replaces a stand-in on screen, `redraw` asks for a frame (a card drawn
    /// ahead of need waits for the next one). Returns the loop's tokens.
    func watch(on loop: EventLoop, redraw: @escaping () -> Void) -> [Int] {
        var tokens: [Int] = []
        if let images = renderer.images {
            tokens.append(
                loop.add(fd: images.readyFD) { _ in
                    images.drainReady()
                    redraw()
                })
        }
        if let preparer = renderer.preparer {
            let renderer = renderer
            tokens.append(
                loop.add(fd: preparer.readyFD) { _ in
                    preparer.drainReady()
                    if renderer.isShowingStandIns { redraw() }
                })
        }
        return tokens
    }
}
