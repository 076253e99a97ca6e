import CardModel
import KioskSystem

/// A back end that puts pixels on the panel: a DRM/KMS CRTC (`DrmScanout`) or a framebuffer
/// device (`FbdevScanout`). `Display` drives it and keeps what every back end shares (pacing,
/// damage, the flip watchdog, rotation, the VT); it never asks which one it has.
///
/// Modelled on wlroots' backend and output interfaces (`include/wlr/backend/interface.h`): a
/// start, a commit of one buffer, events for flips and hotplugs, and a way to give the screen
/// back. The scanout owns `bufferCount` buffers of the panel's size in `pixelFormat` that
/// `Display` writes (never reads) and then shows one at a time, round robin.
protocol Scanout: AnyObject {
    /// The connector's name (`HDMI-A-1`) or the framebuffer's path.
    var outputName: String { get }
    /// The DRM driver (`virtio_gpu`) or `fbdev (id)`.
    var driverName: String { get }
    /// What is being driven now (changes after a hotplug that `adopt`s a new mode).
    var mode: ScanoutMode { get }
    /// Whether flips wait for vblank (known after `start`); false: pace by the clock.
    var hasVblank: Bool { get }
    /// How the panel is mounted, when it says so (DRM's "panel orientation" property).
    var panelRotation: Rotation? { get }
    /// How many buffers `Display` writes in turn: 2 for page flips, 1 for a framebuffer.
    var bufferCount: Int { get }
    /// The format of the buffers `withBuffer` hands out (known after `start`).
    var pixelFormat: PixelFormat { get }

    /// Called with the serial `show` was given and the flip's CLOCK_MONOTONIC timestamp when a
    /// flip that `show` reported `.pending` completes (from the event loop, or `waitForEvents`).
    var onFlipComplete: ((UInt64, Instant) -> Void)? { get set }
    /// Called when the outputs may have changed (a DRM hotplug): `reprobe` says how.
    var onHotplug: (() -> Void)? { get set }

    /// Shows the first picture (black) and begins delivering events. Called once, after the VT
    /// is in graphics mode.
    func start() throws(SystemCallError)
    /// The one-line startup log entry (without the "display: " prefix).
    func summary(rotation: Rotation) -> String

    /// Runs `body` with buffer `index` (pixels, bytes per row); nil when there are no buffers.
    func withBuffer<R>(_ index: Int, _ body: (UnsafeMutableRawPointer, Int) -> R) -> R?
    /// Puts buffer `index` on screen. `damage` (panel pixels) is what changed in it since it was
    /// last shown. Throws EBUSY while an earlier flip is still queued in the kernel.
    func show(_ index: Int, damage: PixelRect, serial: UInt64) throws(SystemCallError) -> ScanoutCommit
    /// Shows buffer `index` whole, at once, setting the mode again (after power-on or a hotplug).
    func modeset(showing index: Int) throws(SystemCallError)
    /// Waits at most `seconds` for events and delivers them; false when there is nothing to wait for.
    func waitForEvents(seconds: Double) -> Bool

    /// Turns the panel off (black where it cannot be powered down) or on; `Display` then shows
    /// its last frame with `modeset`.
    func setPower(on: Bool)
    /// After `onHotplug`: whether the output went away, came back or changed mode, given
    /// whether `Display` last saw it connected.
    func reprobe(wasConnected: Bool) -> ScanoutChange
    /// Drives the mode the last `reprobe` reported as `.connected` from now on, reallocating the
    /// buffers when its size differs (call with no flip in flight).
    func adoptReprobedMode() throws(SystemCallError)

    /// Gives the screen back as it was found and frees the buffers. Idempotent; the scanout
    /// does nothing after it.
    func close()
}

extension Scanout {
    /// XRGB8888 unless the back end says otherwise.
    var pixelFormat: PixelFormat { .xrgb8888 }
}

/// The part of a mode `Display` needs: the panel's size, its refresh and physical size.
struct ScanoutMode: Hashable, Sendable {
    /// How the log names it (`800x480@75.00`).
    var name: String
    var width: Int
    var height: Int
    /// One refresh period, in nanoseconds.
    var periodNanoseconds: Int64
    var refreshHz: Double
    /// In millimetres, when the panel reports it.
    var physicalSizeMM: Size?
}

/// What `Scanout.show` did with the buffer.
enum ScanoutCommit: Hashable, Sendable {
    /// Queued: `onFlipComplete` follows (or the watchdog gives it up).
    case pending
    /// On screen already (a framebuffer has no flip to wait for).
    case done
}

/// What a hotplug did to the output (`Scanout.reprobe`).
enum ScanoutChange: Hashable, Sendable {
    /// Nothing `Display` must act on.
    case unchanged
    /// The output lost its display.
    case disconnected
    /// The output has a display again, or a new mode: `adoptReprobedMode` drives it.
    case connected(ScanoutMode)
}
