import KioskDisplay
import KioskSystem

extension KioskApp {
    /// SIGUSR1 and the staff menu: the current frame as a PNG in the data directory.
    func saveScreenshot() { Diagnostics.saveScreenshot(surface.frame, directory: config.dataDirectory) }

    /// Lets the fleet worker's screenshots from afar (`RemoteScreenshots`) ask this loop for
    /// its frame.
    func attachFleetScreenshots() {
        fleet?.screenshots?.desk.attach(to: loop) { [unowned self] in self.frameForFleet() }
    }

    /// A copy of the frame composed last (a memcpy on the loop; turning and encoding happen on
    /// the fleet worker's thread). Refused while the staff menu is open: a screenshot never
    /// shows its PIN pad or its facts, and a frame drawn without the menu would not be what the
    /// panel shows.
    func frameForFleet() -> FrameDesk.Answer {
        if kiosk.staffMenu.isOpen {
            return .refused(
                "the staff menu is open on the kiosk (someone is servicing it) and a screenshot never shows it;"
                    + " ask again once it is closed")
        }
        let frame = surface.frame
        let copy = PixelBuffer(width: frame.width, height: frame.height)
        copy.pixels.copyMemory(from: frame.pixels, byteCount: min(copy.stride, frame.stride) * copy.height)
        return .frame(
            UncheckedBox(copy), rotation: display.rotation, format: display.pixelFormat,
            wallMs: WallClock.nowMilliseconds())
    }
}
