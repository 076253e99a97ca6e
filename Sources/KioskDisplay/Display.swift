import CardModel
import Glibc
import KioskSystem

/// The panel, driven through a `Scanout` back end (DRM page flips in `DrmScanout.swift`, or a
/// framebuffer device in `FbdevScanout.swift`), with what every back end shares: pacing by
/// `FramePacer`, damage ∪ the damage the back buffer missed, a watchdog for a flip that never
/// completes, flip statistics, rotation and the VT's graphics mode.
///
/// Use from the app loop:
/// 1. `let display = try Display(options: opts, loop: loop)` — takes the screen: becomes DRM
///    master, switches the VT to graphics, sets the mode, shows black.
/// 2. Lay the scene out in `logicalSize` (pixels; rotation already applied), take it in
///    (`pixelWidth`×`pixelHeight`): what changed is the damage.
/// 3. `display.present(damage:compose:)` works out the region the back buffer needs (the damage
///    ∪ what the back buffer missed, or all of it), asks `compose` for it band by band and copies
///    each band in, turned by `rotation`, then flips. No whole frame is kept anywhere. It returns
///    false when it cannot flip now (a flip is in flight, or pacing says wait): then `onFrame`
///    fires when it can; render again there.
/// 4. While something moves, call `requestFrame()` after each present (or present from
///    `onFrame`); when nothing moves, do nothing: no flips, no timers, the loop sleeps.
/// 5. `display.shutdown()` on exit (idempotent; also run by deinit): waits for a pending flip,
///    restores the CRTC found at start, frees the buffers, gives the VT back its text mode.
package final class Display {
    let loop: EventLoop
    private let scanout: any Scanout
    package private(set) var rotation: Rotation
    /// The mode's refresh rate in Hz (the fbdev fallback assumes 60).
    package var refreshHz: Double { scanout.mode.refreshHz }
    /// The panel's pixel size (the scanout buffers' size).
    package var panelWidth: Int { scanout.mode.width }
    package var panelHeight: Int { scanout.mode.height }
    /// The panel's physical size in millimetres: the configured one, else the connector's when it reports it.
    package var physicalSizeMM: Size? { configuredSizeMM ?? scanout.mode.physicalSizeMM }
    /// The operator's millimetres for the panel (config `panel`), over the connector's.
    private var configuredSizeMM: Size?
    /// The connector's name (`HDMI-A-1`) or the fbdev path.
    package var outputName: String { scanout.outputName }
    /// The DRM driver (`virtio_gpu`) or `fbdev`.
    package var driverName: String { scanout.driverName }
    /// The scanout buffers' format (the frame is converted to it while copied).
    package var pixelFormat: PixelFormat { scanout.pixelFormat }
    /// Bytes `present` has written into scanout buffers (the damage copies) since the start.
    package private(set) var bytesWritten = 0

    /// The frame's size in pixels, upright (the panel size turned by `rotation`).
    package var pixelWidth: Int { rotation == .deg90 || rotation == .deg270 ? panelHeight : panelWidth }
    package var pixelHeight: Int { rotation == .deg90 || rotation == .deg270 ? panelWidth : panelHeight }
    /// The layout size: points are pixels here; the renderer scales by the physical size.
    var logicalSize: Size { Size(width: Double(pixelWidth), height: Double(pixelHeight)) }
    /// The physical size turned like the picture (width along the logical x axis).
    package var logicalSizeMM: Size? {
        guard let mm = physicalSizeMM else { return nil }
        return rotation == .deg90 || rotation == .deg270 ? Size(width: mm.height, height: mm.width) : mm
    }

    /// Called when it is time to render the next frame (after `requestFrame()` or a refused
    /// `present`), with the instant the model should advance to: the latest flip's timestamp
    /// on drivers with vblank, the paced deadline on those without, else now. CLOCK_MONOTONIC.
    package var onFrame: ((Instant) -> Void)?
    /// Called for every completed flip with its timestamp (for statistics and tests).
    package var onFlip: ((Instant) -> Void)?
    /// Called when the panel's pixel size changes after a hotplug (lay the scene out anew).
    package var onResize: ((Size) -> Void)?
    /// Called when the connector is unplugged (false) or back (true).
    package var onConnection: ((Bool) -> Void)?

    /// `onFrame` calls. Each one presents a frame that flips, or calls `present` and is
    /// refused (pacing or a flip in flight: another call follows), or presents nothing.
    package private(set) var framesDelivered = 0
    /// `onFrame` calls in which the app called no `present`: it had nothing new to show (input
    /// that changed no pixel, an animation's last sub-pixel steps). A spinning app shows here
    /// and in its CPU time, not in its flips.
    package private(set) var framesWithNothingToShow = 0
    /// `present` calls refused because pacing said wait or the kernel still had a flip queued.
    package private(set) var presentsRefused = 0
    /// Times the pacing policy was asked whether (or when) a frame may go: once per frame
    /// (`scheduleFrameIfDue`); a `present` inside the frame it cleared does not ask again.
    package private(set) var pacingQuestions = 0
    /// Completed flips, flips given up by the watchdog, and presents that copied pixels.
    package private(set) var flipCount = 0
    package private(set) var lostFlipCount = 0
    /// True while the connector has a display and the panel is powered on.
    var isShowing: Bool { isConnected && isPoweredOn }
    private(set) var isConnected = true
    private(set) var isPoweredOn = true
    /// Whether the driver counts vblanks (flip events then pace frames).
    package var hasVblank: Bool { scanout.hasVblank }
    /// The pacing policy's current view of the driver.
    package var pacingKind: FramePacer.Kind { pacer.kind }
    /// How often the pacing policy changed its view of the driver since the start (each change
    /// is logged: "display: … now timer-paced" / "… now vblank-paced").
    package private(set) var pacingChanges = 0
    /// Intervals between back-to-back flips (logged at shutdown, in `--stats`).
    package private(set) var flipIntervals: FlipIntervals

    private var terminal: VirtualTerminal?

    // Frame state.
    var pacer: FramePacer
    /// The buffer the next present writes; the scanout shows them round robin.
    private var back: Int
    /// Buffers whose contents are unknown (fresh, or a present failed): copied whole next time.
    private var staleBuffers: Set<Int>
    /// The damage of the last `bufferCount - 1` presents, oldest first: what the back buffer missed.
    private var recentDamage: [PixelRect] = []
    /// Damage handed to `present` that no flip has shown yet (the present was refused).
    package private(set) var unshownDamage = PixelRect.empty

    /// Everything on screen must be copied again at the next present (a redraw from scratch).
    package func damageAll() { unshownDamage = PixelRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight) }
    /// Composes `region` (logical pixels) of the picture to show and hands it over band by band:
    /// each band's rectangle (inside `region`, together covering it), the address the band's
    /// pixel (0, 0) would have (XRGB8888, read only inside the band) and the bytes from one row
    /// to the next. The band's pixels need stay valid only during that call.
    package typealias Compose = (_ region: PixelRect, _ band: (PixelRect, UnsafeRawPointer, Int) -> Void) -> Void
    /// The last picture presented, to fill a buffer whole after a re-modeset.
    private var lastCompose: Compose?
    private var frameRequested = false
    private var frameTimer: Int?
    /// When the `onFrame` call in progress began (its cost, up to the flip, paces latching).
    private var frameStartedAt: Instant?
    /// Whether the `onFrame` call in progress called `present`.
    private var presentedThisFrame = false
    private var watchdogTimer: Int?
    private var flipSerial: UInt64 = 0
    /// `flipSerial` when pacing cleared the frame now scheduled or being delivered.
    private var pacedAtSerial: UInt64?
    private var isShutDown = false

    /// Opens the display `options` describe (or the first with a connected display), takes it
    /// over and shows black. Throws a `DisplayError` that says the fix; `.noConnectedConnector`
    /// means: wait for a hotplug and try again (`Display.waitingForConnection` does).
    package convenience init(options: DisplayOptions, loop: EventLoop) throws(DisplayError) {
        let backEnd = try ScanoutBackEnd.choose(
            options: options, cardPaths: DrmDevice.cardPaths(), fileExists: { access($0, F_OK) == 0 })
        try self.init(scanout: backEnd.open(options: options, loop: loop), rotation: options.rotation, loop: loop)
        configuredSizeMM = options.physicalSizeMM
    }

    /// Drives `scanout` (not yet started): switches the VT to graphics when `takeTerminal` and
    /// stdin is one, starts the scanout and logs what it drives. `rotation` nil: the panel's
    /// mounting, else upright.
    init(scanout: any Scanout, rotation: Rotation?, loop: EventLoop, takeTerminal: Bool = true) throws(DisplayError) {
        self.loop = loop
        self.scanout = scanout
        self.rotation = rotation ?? scanout.panelRotation ?? .deg0
        let period = scanout.mode.periodNanoseconds
        pacer = FramePacer(periodNanoseconds: period, kind: .immediate)
        flipIntervals = FlipIntervals(periodNanoseconds: period)
        back = 1 % scanout.bufferCount
        staleBuffers = Set(0..<scanout.bufferCount)
        terminal = takeTerminal ? VirtualTerminal() : nil
        scanout.onFlipComplete = { [weak self] serial, stamp in self?.flipCompleted(serial: serial, at: stamp) }
        scanout.onHotplug = { [weak self] in self?.hotplugged() }
        do {
            try scanout.start()
        } catch {
            isShutDown = true  // nothing to give back; deinit must not restore the CRTC
            terminal = nil
            throw .system(error)
        }
        pacer = FramePacer(
            periodNanoseconds: period, kind: hasVblank ? .vblank : .immediate, mayHaveVblank: hasVblank)
        Log.info("display: \(scanout.summary(rotation: self.rotation))")
    }

    deinit { shutdown() }

    // MARK: Frames

    /// Asks for an `onFrame` call as soon as a frame may be presented. Repeated calls before it
    /// fires are one request. Does nothing while the panel is off or unplugged.
    package func requestFrame() {
        frameRequested = true
        scheduleFrameIfDue()
    }

    /// Presents a whole frame kept by the caller (tools that draw one): `present(damage:compose:)`
    /// with bands read from `frame`, which must be `pixelWidth`×`pixelHeight`.
    @discardableResult
    package func present(_ frame: PixelBuffer, damage newDamage: PixelRect) -> Bool {
        guard frame.width == pixelWidth, frame.height == pixelHeight else {
            unshownDamage = unshownDamage.union(newDamage)
            Log.error(
                "display: frame is \(frame.width)x\(frame.height) but the display needs \(pixelWidth)x\(pixelHeight)")
            return false
        }
        return present(damage: newDamage) { region, band in band(region, UnsafeRawPointer(frame.pixels), frame.stride) }
    }

    /// Shows the picture `compose` draws: `damage` (logical pixels) is what changed since the
    /// last present. The back buffer gets that damage ∪ what it missed (the previous frames'
    /// damage, any refused present's), or everything when it is stale; `compose` is asked for
    /// that region and each band it hands over is copied in, turned by `rotation` and converted
    /// to the scanout's format; then the display flips to it. `compose` is kept and asked for
    /// the whole picture after a re-modeset, so it must draw the current picture when called.
    ///
    /// Returns false without composing when a flip is in flight or pacing says wait (an
    /// `onFrame` follows; present the then-current picture with the damage since, which is
    /// added to this one's), or when the panel is off or unplugged (an `onFrame` follows when
    /// it is back).
    @discardableResult
    package func present(damage newDamage: PixelRect, compose: @escaping Compose) -> Bool {
        guard !isShutDown else { return false }
        // The output owns what it has not shown yet: damage of a refused present waits here.
        let damage = unshownDamage.union(newDamage)
        unshownDamage = damage
        lastCompose = compose
        presentedThisFrame = true
        guard isShowing else { return false }
        let now = MonotonicClock.now()
        // Pacing cleared the frame being delivered when it scheduled it; it is asked again only
        // for a present outside that frame or after another flip was issued since.
        let cleared = frameStartedAt != nil && pacedAtSerial == flipSerial
        pacedAtSerial = nil
        guard cleared || askPacing(now: now, frame: false) == .now else {
            presentsRefused += 1
            requestFrame()
            return false
        }
        let full = PixelRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight)
        let region =
            staleBuffers.contains(back)
            ? full : recentDamage.reduce(damage) { $0.union($1) }.intersection(full)
        _ = scanout.withBuffer(back) { pixels, stride in copy(region, of: compose, to: pixels, stride: stride) }
        bytesWritten &+= ScanoutCopy.bytesWritten(damage: region, format: scanout.pixelFormat)
        let physical = ScanoutCopy.physicalRect(
            region, rotation: rotation, logicalWidth: pixelWidth, logicalHeight: pixelHeight)
        flipSerial &+= 1
        let commit: ScanoutCommit
        do throws(SystemCallError) {
            commit = try scanout.show(back, damage: physical, serial: flipSerial)
        } catch {
            if error.errno == .busy {
                // The kernel still has a flip queued (one the watchdog gave up): wait for it.
                presentsRefused += 1
                pacer.flipIssued(at: now)
                armWatchdog()
            } else {
                Log.error("display: \(error)")
            }
            staleBuffers.insert(back)
            return false
        }
        pacer.flipIssued(at: MonotonicClock.now(), frameStarted: frameStartedAt)
        frameStartedAt = nil
        staleBuffers.remove(back)
        unshownDamage = .empty
        recentDamage = Array((recentDamage + [damage.intersection(full)]).suffix(scanout.bufferCount - 1))
        back = (back + 1) % scanout.bufferCount
        switch commit {
        case .pending:
            armWatchdog()
        case .done:
            // On screen already: no flip event will come.
            pacer.flipCompleted(timestamp: now)
            flipCount += 1
            onFlip?(now)
        }
        return true
    }

    /// Asks `compose` for `region` and copies each band into the scanout buffer at `pixels`.
    private func copy(_ region: PixelRect, of compose: Compose, to pixels: UnsafeMutableRawPointer, stride: Int) {
        let (width, height, rotation, format) = (pixelWidth, pixelHeight, rotation, scanout.pixelFormat)
        compose(region) { band, origin, sourceStride in
            ScanoutCopy.copy(
                from: origin, sourceStride: sourceStride, logicalWidth: width, logicalHeight: height,
                damage: band.intersection(region), rotation: rotation, format: format, to: pixels,
                destinationStride: stride)
        }
    }

    private func scheduleFrameIfDue() {
        // With a flip in flight its event (or the watchdog) comes back here: nothing to ask yet.
        guard frameRequested, frameTimer == nil, isShowing, !isShutDown, !pacer.isFlipPending else { return }
        let now = MonotonicClock.now()
        let at: Instant
        switch askPacing(now: now, frame: true) {
        case .waitForFlip: return
        case .now: at = now
        case .at(let deadline): at = deadline
        }
        pacedAtSerial = flipSerial
        // Delivered from the loop, never from inside present/requestFrame (no re-entrancy).
        frameTimer = loop.schedule(at: at) { [weak self] in
            guard let self else { return }
            self.frameTimer = nil
            self.deliverFrame(at: at)
        }
    }

    /// The pacing policy's answer for a frame to draw (`frame`) or a flip to issue at `now`.
    private func askPacing(now: Instant, frame: Bool) -> FramePacer.Decision {
        pacingQuestions += 1
        return frame ? pacer.frameDecision(now: now) : pacer.decision(now: now)
    }

    private func deliverFrame(at instant: Instant) {
        guard frameRequested, isShowing, !isShutDown else { return }
        frameRequested = false
        let now = MonotonicClock.now()
        let stamp = pacer.kind == .vblank ? (pacer.lastFlip.map { max($0, instant) } ?? instant) : instant
        framesDelivered += 1
        frameStartedAt = now
        presentedThisFrame = false
        onFrame?(stamp)
        if !presentedThisFrame { framesWithNothingToShow += 1 }
        frameStartedAt = nil
    }

    // MARK: Flip events

    /// A flip `present` queued completed (delivered by the scanout).
    private func flipCompleted(serial: UInt64, at stamp: Instant) {
        guard pacer.isFlipPending, serial == flipSerial || serial == 0 else {
            Log.warning("display: a late flip event (\(serial)) arrived after the watchdog gave it up")
            return
        }
        if let watchdogTimer { loop.cancelTimer(watchdogTimer) }
        watchdogTimer = nil
        let kindBefore = pacer.kind
        pacer.flipCompleted(timestamp: stamp)
        flipIntervals.flipCompleted(at: stamp, nextFrameWanted: frameRequested)
        if pacer.kind != kindBefore { pacingChanged() }
        flipCount += 1
        onFlip?(stamp)
        // Not drawn from here: the frame's timer runs after the other descriptors poll() found
        // ready in this iteration, so touches that arrived with the flip event are in it; with
        // latching, it runs just in time for the next vblank.
        scheduleFrameIfDue()
    }

    private func pacingChanged() {
        pacingChanges += 1
        if pacer.kind == .immediate {
            Log.warning(
                "display: page flips on \(outputName) (\(driverName)) complete without waiting for vblank; "
                    + "now timer-paced at \(String(format2: refreshHz)) Hz")
        } else {
            Log.info("display: page flips on \(outputName) (\(driverName)) wait for vblank again; now vblank-paced")
        }
    }

    private func armWatchdog() {
        if let watchdogTimer { loop.cancelTimer(watchdogTimer) }
        guard let deadline = pacer.watchdogDeadline else { return }
        watchdogTimer = loop.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            self.watchdogTimer = nil
            let ms = self.pacer.watchdogNanoseconds / 1_000_000
            Log.error(
                "display: page flip on \(self.outputName) (\(self.driverName)) did not complete within \(ms) ms; "
                    + "giving it up and going on")
            self.lostFlipCount += 1
            self.pacer.flipLost(now: MonotonicClock.now())
            self.flipIntervals.breakSequence()
            self.scheduleFrameIfDue()
        }
    }

    /// Waits (at most `timeout` seconds, outside the loop) for the flip in flight.
    private func drainPendingFlip(timeout: Double = 1) {
        guard pacer.isFlipPending else { return }
        let end = MonotonicClock.now().advanced(bySeconds: timeout)
        while pacer.isFlipPending {
            let left = end.seconds(since: MonotonicClock.now())
            if left <= 0 {
                Log.warning("display: a page flip was still pending at exit")
                return
            }
            guard scanout.waitForEvents(seconds: left) else { return }
        }
    }

    // MARK: Power

    /// Turns the panel off (DPMS "Off" when the connector has the property, else a black
    /// frame) or on again (the last frame is shown again, the next one copied whole). Off: no
    /// flips, no `onFrame`.
    package func setPower(on: Bool) {
        guard on != isPoweredOn, !isShutDown else { return }
        drainPendingFlip()
        scanout.setPower(on: on)
        isPoweredOn = on
        staleBuffers = Set(0..<scanout.bufferCount)
        flipIntervals.breakSequence()
        if on {
            // DPMS on does not always restore the mode after a long off; a modeset does.
            remodeset()
            requestFrame()
        }
    }

    // MARK: Hotplug

    private func hotplugged() {
        guard !isShutDown else { return }
        switch scanout.reprobe(wasConnected: isConnected) {
        case .unchanged:
            return
        case .disconnected:
            guard isConnected else { return }
            drainPendingFlip()
            isConnected = false
            Log.warning("display: \(outputName) was disconnected; waiting for it to come back")
            onConnection?(false)
        case .connected(let mode):
            let wasConnected = isConnected
            drainPendingFlip()
            let resized = mode.width != panelWidth || mode.height != panelHeight
            do {
                try scanout.adoptReprobedMode()
            } catch {
                Log.error("display: \(error)")
                return
            }
            if resized {
                back = 1 % scanout.bufferCount
                lastCompose = nil
            }
            pacer = FramePacer(periodNanoseconds: mode.periodNanoseconds, kind: pacer.kind, mayHaveVblank: hasVblank)
            if mode.periodNanoseconds != flipIntervals.periodNanoseconds {
                Log.info("display: \(flipIntervals.summary) (at the previous mode)")
                flipIntervals = FlipIntervals(periodNanoseconds: mode.periodNanoseconds)
            }
            flipIntervals.breakSequence()
            isConnected = true
            staleBuffers = Set(0..<scanout.bufferCount)
            Log.info("display: \(outputName) is back: \(mode.name)")
            remodeset()
            if !wasConnected { onConnection?(true) }
            if lastCompose == nil { onResize?(logicalSize) }
            requestFrame()
        }
    }

    /// Sets the mode again on the front buffer, filled whole with the last picture when there is
    /// one (then that buffer is current; else it stays stale and the next present into it is whole).
    private func remodeset() {
        let front = (back + scanout.bufferCount - 1) % scanout.bufferCount
        let copied =
            scanout.withBuffer(front) { pixels, stride -> Bool in
                guard let compose = lastCompose else { return false }
                copy(
                    PixelRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight), of: compose, to: pixels,
                    stride: stride)
                return true
            } ?? false
        do {
            try scanout.modeset(showing: front)
            if copied { staleBuffers.remove(front) }
            recentDamage = []
        } catch {
            Log.error("display: re-modeset of \(outputName) failed: \(error)")
        }
    }

    // MARK: Exit

    /// Gives the screen back: waits for a pending flip, lets the scanout restore what it found
    /// at start (the CRTC, in drm-howto modeset-vsync's order) and free its buffers, restores
    /// the VT. Idempotent.
    package func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        if let frameTimer { loop.cancelTimer(frameTimer) }
        if let watchdogTimer { loop.cancelTimer(watchdogTimer) }
        frameTimer = nil
        watchdogTimer = nil
        scanout.onHotplug = nil
        drainPendingFlip()
        if flipIntervals.count > 0 {
            Log.info(
                "display: \(flipIntervals.summary); \(pacer.kind == .vblank ? "vblank-paced" : "timer-paced"); "
                    + "\(framesDelivered) frame callbacks for \(flipCount) flips, "
                    + "\(framesWithNothingToShow) with nothing new to show, \(presentsRefused) presents refused")
        }
        scanout.close()
        terminal = nil
    }
}
