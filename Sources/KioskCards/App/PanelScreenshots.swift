import KioskDisplay
import KioskSystem

/// The fleet's screenshots from afar (`RemoteScreenshots`): the fleet worker asks the kiosk's
/// loop for the frame it composed last. (SIGUSR1 and the staff menu save one locally:
/// `Diagnostics.saveScreenshot`.)
enum PanelScreenshots {
    /// Lets `app`'s fleet worker ask its loop for the frame.
    static func attach(_ app: KioskApp) {
        app.fleet?.screenshots?.desk.attach(to: app.loop) { [unowned app] in answer(for: app) }
    }

    /// The loop has ended: a request waiting for its frame, and any after it, is refused now
    /// (the operator reads why), so the exit never waits out the worker's 5 s for a frame.
    static func detach(_ app: KioskApp) {
        app.fleet?.screenshots?.desk.close(reason: RemoteScreenshots.shutdownReason)
    }

    /// A copy of the frame composed last (a memcpy on the loop; turning and encoding happen on
    /// the fleet worker's thread). Refused while the staff menu is open: a screenshot never
    /// shows its PIN pad or its facts, and a frame drawn without the menu would not be what the
    /// panel shows.
    static func answer(for app: KioskApp) -> FrameDesk.Answer {
        if app.kiosk.staffMenu.isOpen {
            return .refused(
                "the staff menu is open on the kiosk (someone is servicing it) and a screenshot never shows it;"
                    + " ask again once it is closed")
        }
        let frame = app.surface.frame
        let copy = PixelBuffer(width: frame.width, height: frame.height)
        copy.pixels.copyMemory(from: frame.pixels, byteCount: min(copy.stride, frame.stride) * copy.height)
        return .frame(
            UncheckedBox(copy), rotation: app.display.rotation, format: app.display.pixelFormat,
            wallMs: WallClock.nowMilliseconds())
    }
}
