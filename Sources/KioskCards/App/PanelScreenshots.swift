import KioskDisplay
import KioskSystem

/// The fleet's screenshots from afar (`RemoteScreenshots`): the fleet worker asks the kiosk's
/// loop for the screen as it composes it now. (SIGUSR1 and the staff menu save one locally:
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

    /// The current scene composed whole into a buffer of its own (on the loop, when asked;
    /// turning and encoding happen on the fleet worker's thread). Refused while the staff menu is open: a screenshot never
    /// shows its PIN pad or its facts, and a frame drawn without the menu would not be what the
    /// panel shows.
    static func answer(for app: KioskApp) -> FrameDesk.Answer {
        if app.kiosk.staffMenu.isOpen {
            return .refused(
                "the staff menu is open on the kiosk (someone is servicing it) and a screenshot never shows it;"
                    + " ask again once it is closed")
        }
        let copy = app.surface.renderer.composedScreen()
        return .frame(
            UncheckedBox(copy), rotation: app.display.rotation, format: app.display.pixelFormat,
            wallMs: WallClock.nowMilliseconds())
    }
}
