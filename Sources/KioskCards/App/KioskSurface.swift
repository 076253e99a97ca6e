import CardModel
import KioskDisplay
import KioskRender
import KioskSystem

/// What draws the frames, sized for the display's current mode. There is no frame: the renderer
/// composes what the display asks for band by band (`compose`), straight into its scanout buffer.
struct KioskSurface {
    var renderer: SceneRenderer
    var metrics: ScreenMetrics
    var scale: Double

    /// A surface for the display's current mode, with the same geometry `render --panel-mm`
    /// draws with.
    init(display: Display, scale: Double?) {
        let panel = PanelGeometry(
            pixelWidth: display.pixelWidth, pixelHeight: display.pixelHeight, millimetres: display.logicalSizeMM,
            scale: scale)
        renderer = SceneRenderer(
            pixelWidth: display.pixelWidth, pixelHeight: display.pixelHeight, scale: panel.scale, images: ImageCache(),
            preparer: ElementPreparer())
        metrics = panel.metrics
        self.scale = panel.scale
    }

    /// The current scene for `Display.present`: the region it asks for, band by band.
    var compose: Display.Compose {
        let renderer = renderer
        return { region, band in renderer.compose(region, band) }
    }

    /// The screen as it is composed now, saved as a PNG in `directory` (SIGUSR1, the staff
    /// menu): composed whole into a buffer of its own, freed once written off the loop.
    func saveScreenshot(in directory: String) {
        Diagnostics.saveScreenshot(renderer.composedScreen(), directory: directory)
    }

    /// Product photos are decoded, and cards drawn, off the loop: when a photo is ready, or
    /// a card that replaces a stand-in on screen, `redraw` asks for a frame (a card drawn
    /// ahead of need goes into the cache and waits for the frame that shows it). Returns the
    /// loop's tokens.
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
                    // Into the cache now (it evicts down to its budget), not beside it until
                    // the next frame.
                    let replaced = renderer.takeInPrepared()
                    if replaced || renderer.isShowingStandIns { redraw() }
                })
        }
        return tokens
    }
}
