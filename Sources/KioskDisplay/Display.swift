import CDrm
import CLinux
import CardModel
import Glibc
import KioskSystem

/// The panel: a DRM/KMS CRTC fed by two dumb buffers through paced page flips (or, where there
/// is no DRM device, a framebuffer device; see `Display+Fbdev.swift`).
///
/// Use from the app loop:
/// 1. `let display = try Display(options: opts, loop: loop)` — takes the screen: becomes DRM
///    master, switches the VT to graphics, sets the mode, shows black.
/// 2. Lay the scene out in `logicalSize` (pixels; rotation already applied), render into a
///    `PixelBuffer` of `pixelWidth`×`pixelHeight`.
/// 3. `display.present(frame, damage:)` copies the damage (∪ the previous frame's) into the back
///    buffer, turned by `rotation`, and flips. It returns false when it cannot flip now (a flip is
///    in flight, or pacing says wait): then `onFrame` fires when it can; render again there.
/// 4. While something moves, call `requestFrame()` after each present (or present from
///    `onFrame`); when nothing moves, do nothing: no flips, no timers, the loop sleeps.
/// 5. `display.shutdown()` on exit (idempotent; also run by deinit): waits for a pending flip,
///    restores the CRTC found at start, frees the buffers, gives the VT back its text mode.
package final class Display {
    let loop: EventLoop
    package private(set) var rotation: Rotation
    /// The mode's refresh rate in Hz (the fbdev fallback assumes 60).
    package private(set) var refreshHz: Double
    /// The panel's pixel size (the scanout buffers' size).
    package private(set) var panelWidth: Int
    package private(set) var panelHeight: Int
    /// The panel's physical size in millimetres, when the connector reports it.
    private(set) var physicalSizeMM: Size?
    /// The connector's name (`HDMI-A-1`) or the fbdev path.
    package let outputName: String
    /// The DRM driver (`virtio_gpu`) or `fbdev`.
    package let driverName: String

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

    /// `onFrame` calls: more than flips means frames that presented nothing.
    private(set) var framesDelivered = 0
    /// Completed flips, flips given up by the watchdog, and presents that copied pixels.
    package private(set) var flipCount = 0
    package private(set) var lostFlipCount = 0
    /// True while the connector has a display and the panel is powered on.
    var isShowing: Bool { isConnected && isPoweredOn }
    private(set) var isConnected = true
    private(set) var isPoweredOn = true
    /// Whether the driver counts vblanks (flip events then pace frames).
    package private(set) var hasVblank = false
    /// The pacing policy's current view of the driver.
    package var pacingKind: FramePacer.Kind { pacer.kind }
    /// How often the pacing policy changed its view of the driver since the start (each change
    /// is logged: "display: … now timer-paced" / "… now vblank-paced").
    package private(set) var pacingChanges = 0
    /// Intervals between back-to-back flips (logged at shutdown, in `--stats`).
    package private(set) var flipIntervals: FlipIntervals

    // DRM state.
    private var drm: DrmOutput?
    private var choice: DisplayChoice?
    private var savedCRTC: DrmCRTC?
    private var terminal: VirtualTerminal?
    private var hotplug: HotplugMonitor?
    private var fdToken: Int?
    // fbdev fallback state (used by Display+Fbdev.swift).
    var fbdev: FramebufferDevice?
    var isFbdev: Bool { outputName.hasPrefix("/dev/fb") }
    var fbdevStaging: PixelBuffer?
    var fullDamagePending = true

    // Frame state.
    var pacer: FramePacer
    private var back = 1
    private var staleBuffers: Set<Int> = [0, 1]
    private var previousDamage = PixelRect.empty
    private weak var lastFrame: PixelBuffer?
    private var frameRequested = false
    private var frameTimer: Int?
    private var watchdogTimer: Int?
    private var flipSerial: UInt64 = 0
    private var isShutDown = false
    private let options: DisplayOptions

    /// Opens the display `options` describe (or the first with a connected display), takes it
    /// over and shows black. Throws a `DisplayError` that says the fix; `.noConnectedConnector`
    /// means: wait for a hotplug and try again (`Display.waitingForConnection` does).
    package init(options: DisplayOptions, loop: EventLoop) throws(DisplayError) {
        self.loop = loop
        self.options = options
        let paths = options.drmPath.map { [$0] } ?? DrmDevice.cardPaths()
        if paths.isEmpty || (options.fbdevPath != nil && options.drmPath == nil) {
            let fbPath = options.fbdevPath ?? "/dev/fb0"
            if options.fbdevPath != nil || access(fbPath, F_OK) == 0 {
                let fb = try FramebufferDevice(path: fbPath)
                outputName = fbPath
                driverName = "fbdev (\(fb.identifier))"
                panelWidth = fb.width
                panelHeight = fb.height
                physicalSizeMM = fb.widthMM > 0 ? Size(width: Double(fb.widthMM), height: Double(fb.heightMM)) : nil
                refreshHz = 60
                rotation = options.rotation ?? .deg0
                pacer = FramePacer(periodNanoseconds: 16_666_667, kind: .immediate)
                flipIntervals = FlipIntervals(periodNanoseconds: 16_666_667)
                Log.info("display: \(fbPath) \(fb.width)x\(fb.height) \(fb.format), rotation \(rotation.rawValue)")
                fbdev = consume fb
                terminal = VirtualTerminal()
                return
            }
            throw .noDevice(searched: ["/dev/dri/card*", fbPath])
        }
        var snapshots: [DrmDeviceSnapshot] = []
        var firstError: DisplayError?
        for path in paths {
            do throws(DisplayError) {
                let d = try DrmDevice(path: path)
                snapshots.append(try d.snapshot(probe: true))
            } catch {
                if options.drmPath != nil { throw error }
                firstError = firstError ?? error
            }
        }
        if snapshots.isEmpty, let firstError { throw firstError }
        let choice = try DisplayChoice.choose(devices: snapshots, options: options)
        let drm = DrmOutput(device: try DrmDevice(path: choice.device.path))
        try drm.device.becomeMaster()

        self.choice = choice
        outputName = choice.connector.name
        driverName = choice.device.driver
        panelWidth = choice.mode.width
        panelHeight = choice.mode.height
        physicalSizeMM =
            choice.connector.widthMM > 0
            ? Size(width: Double(choice.connector.widthMM), height: Double(choice.connector.heightMM)) : nil
        refreshHz = choice.mode.refreshHz
        rotation = choice.rotation(options: options)
        savedCRTC = choice.device.resources.crtc(choice.crtcID)
        pacer = FramePacer(periodNanoseconds: choice.mode.periodNanoseconds, kind: .vblank)
        flipIntervals = FlipIntervals(periodNanoseconds: choice.mode.periodNanoseconds)
        if !choice.device.monotonicTimestamps {
            Log.warning("\(choice.device.path): flip timestamps are not CLOCK_MONOTONIC; animation may be off")
        }
        do {
            drm.buffers = try DumbBufferPair(device: drm.device, width: panelWidth, height: panelHeight)
        } catch {
            throw .system(error)
        }
        terminal = VirtualTerminal()
        do {
            try drm.device.setCRTC(
                choice.crtcID, bufferID: drm.buffers?.with(0) { $0.framebufferID } ?? 0, connector: choice.connector.id,
                mode: choice.mode)
        } catch {
            drm.buffers = nil
            terminal = nil
            throw .system(error)
        }
        let crtcIndex = choice.device.resources.crtcIndex(choice.crtcID) ?? 0
        hasVblank = drm.device.vblankWorks(crtcIndex: crtcIndex)
        pacer = FramePacer(
            periodNanoseconds: choice.mode.periodNanoseconds, kind: hasVblank ? .vblank : .immediate,
            mayHaveVblank: hasVblank)
        let fd = drm.device.fd
        self.drm = drm
        fdToken = loop.add(fd: fd) { [weak self] _ in self?.readDrmEvents() }
        hotplug = try? HotplugMonitor(loop: loop) { [weak self] in self?.hotplugged() }
        Log.info(
            "display: \(choice.device.path) (\(driverName)) \(outputName) \(choice.mode) rotation \(rotation.rawValue)"
                + " crtc \(choice.crtcID), \(hasVblank ? "vblank-paced" : "timer-paced (no vblank)")")
    }

    deinit { shutdown() }

    // MARK: Frames

    /// Asks for an `onFrame` call as soon as a frame may be presented. Repeated calls before it
    /// fires are one request. Does nothing while the panel is off or unplugged.
    package func requestFrame() {
        frameRequested = true
        scheduleFrameIfDue()
    }

    /// Copies `damage` (logical pixels) of `frame` into the back buffer, together with the
    /// previous frame's damage, turned by `rotation`, and flips to it. `frame` must be
    /// `pixelWidth`×`pixelHeight`; keep it current: after a re-modeset the display copies it whole.
    ///
    /// Returns false without copying when a flip is in flight or pacing says wait (an `onFrame`
    /// follows; present the then-current frame with the damage accumulated since the last
    /// successful present), or when the panel is off or unplugged (an `onFrame` follows when it
    /// is back).
    @discardableResult
    package func present(_ frame: PixelBuffer, damage: PixelRect) -> Bool {
        guard !isShutDown else { return false }
        guard frame.width == pixelWidth, frame.height == pixelHeight else {
            Log.error(
                "display: frame is \(frame.width)x\(frame.height) but the display needs \(pixelWidth)x\(pixelHeight)")
            return false
        }
        lastFrame = frame
        guard isShowing else { return false }
        if isFbdev { return presentFbdev(frame, damage: damage) }
        let now = MonotonicClock.now()
        guard pacer.decision(now: now) == .now else {
            requestFrame()
            return false
        }
        let full = frame.bounds
        let region = staleBuffers.contains(back) ? full : damage.union(previousDamage).intersection(full)
        guard let drm, let choice else { return false }
        let fb =
            drm.buffers?.with(back) { b -> DrmObjectID in
                ScanoutCopy.copy(frame, damage: region, rotation: rotation, to: b.pixels, destinationStride: b.stride)
                return b.framebufferID
            } ?? 0
        flipSerial &+= 1
        do throws(SystemCallError) {
            try drm.device.pageFlip(crtc: choice.crtcID, bufferID: fb, userData: flipSerial)
        } catch {
            if error.errno == .busy {
                // The kernel still has a flip queued (one the watchdog gave up): wait for it.
                pacer.flipIssued(at: now)
                armWatchdog()
            } else {
                Log.error("display: \(error)")
            }
            staleBuffers.insert(back)
            return false
        }
        pacer.flipIssued(at: now)
        armWatchdog()
        staleBuffers.remove(back)
        previousDamage = damage.intersection(full)
        back ^= 1
        return true
    }

    private func scheduleFrameIfDue() {
        guard frameRequested, frameTimer == nil, isShowing, !isShutDown else { return }
        let now = MonotonicClock.now()
        let at: Instant
        switch pacer.decision(now: now) {
        case .waitForFlip: return
        case .now: at = now
        case .at(let deadline): at = deadline
        }
        // Delivered from the loop, never from inside present/requestFrame (no re-entrancy).
        frameTimer = loop.schedule(at: at) { [weak self] in
            guard let self else { return }
            self.frameTimer = nil
            self.deliverFrame(at: at)
        }
    }

    private func deliverFrame(at instant: Instant) {
        guard frameRequested, isShowing, !isShutDown else { return }
        frameRequested = false
        let stamp = pacer.kind == .vblank ? (pacer.lastFlip.map { max($0, instant) } ?? instant) : instant
        framesDelivered += 1
        onFrame?(stamp)
    }

    // MARK: Flip events

    private func readDrmEvents() {
        guard let drm else { return }
        let events: [DrmEvent]
        do {
            events = try drm.device.readEvents()
        } catch {
            Log.error("display: \(error)")
            return
        }
        for event in events {
            guard case .flipComplete(let flip) = event else { continue }
            guard pacer.isFlipPending, flip.userData == flipSerial || flip.userData == 0 else {
                Log.warning("display: a late flip event (\(flip.userData)) arrived after the watchdog gave it up")
                continue
            }
            if let watchdogTimer { loop.cancelTimer(watchdogTimer) }
            watchdogTimer = nil
            let stamp = flip.instant
            let kindBefore = pacer.kind
            pacer.flipCompleted(timestamp: stamp)
            flipIntervals.flipCompleted(at: stamp, nextFrameWanted: frameRequested)
            if pacer.kind != kindBefore { pacingChanged() }
            flipCount += 1
            onFlip?(stamp)
            if pacer.kind == .vblank, frameRequested, frameTimer == nil {
                frameRequested = false
                framesDelivered += 1
                onFrame?(stamp)
            } else {
                scheduleFrameIfDue()
            }
        }
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
        guard let fd = drm?.device.fd, pacer.isFlipPending else { return }
        let end = MonotonicClock.now().advanced(bySeconds: timeout)
        while pacer.isFlipPending {
            let left = end.seconds(since: MonotonicClock.now())
            if left <= 0 {
                Log.warning("display: a page flip was still pending at exit")
                return
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, Int32(left * 1000) + 1) > 0 { readDrmEvents() }
        }
    }

    // MARK: Power

    /// Turns the panel off (DPMS "Off" when the connector has the property, else a black
    /// frame) or on again (the next frame is copied whole). Off: no flips, no `onFrame`.
    package func setPower(on: Bool) {
        guard on != isPoweredOn, !isShutDown else { return }
        if isFbdev {
            if !on { fbdev?.fill(0) }
            isPoweredOn = on
            fullDamagePending = true
            if on {
                redrawLastFrame()
                requestFrame()
            }
            return
        }
        guard let drm, let choice else { return }
        drainPendingFlip()
        if let dpms = choice.connector.dpmsPropertyID {
            do {
                try drm.device.setConnectorProperty(
                    choice.connector.id, property: dpms, value: UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF))
            } catch {
                Log.warning("display: \(error); showing black instead")
                if !on { showBlack() }
            }
        } else if !on {
            showBlack()
        }
        isPoweredOn = on
        staleBuffers = [0, 1]
        flipIntervals.breakSequence()
        if on {
            // DPMS on does not always restore the mode after a long off; a modeset does.
            remodeset()
            requestFrame()
        }
    }

    private func showBlack() {
        guard let drm, let choice else { return }
        let fb =
            drm.buffers?.with(back) { b -> DrmObjectID in
                b.fill(0)
                return b.framebufferID
            } ?? 0
        do {
            try drm.device.setCRTC(choice.crtcID, bufferID: fb, connector: choice.connector.id, mode: choice.mode)
            back ^= 1
        } catch {
            Log.error("display: \(error)")
        }
    }

    // MARK: Hotplug

    private func hotplugged() {
        guard let drm, let old = choice, !isShutDown else { return }
        let connector: DrmConnector?
        do {
            connector = try drm.device.connector(old.connector.id, probe: true)
        } catch {
            Log.error("display: re-probing \(outputName) after a hotplug: \(error)")
            return
        }
        let nowConnected = connector?.connection == .connected && !(connector?.modes.isEmpty ?? true)
        if !nowConnected {
            if isConnected {
                drainPendingFlip()
                isConnected = false
                Log.warning("display: \(outputName) was disconnected; waiting for it to come back")
                onConnection?(false)
            }
            return
        }
        guard let connector else { return }
        let mode: DrmMode
        do {
            mode = try DisplayChoice.chooseMode(connector: connector, request: options.mode)
        } catch {
            Log.error("display: \(error)")
            return
        }
        let wasConnected = isConnected
        if wasConnected && mode == old.mode { return }
        drainPendingFlip()
        var updated = old
        updated.connector = connector
        updated.mode = mode
        choice = updated
        if mode.width != panelWidth || mode.height != panelHeight {
            drm.buffers = nil
            do {
                drm.buffers = try DumbBufferPair(device: drm.device, width: mode.width, height: mode.height)
            } catch {
                Log.error("display: \(error)")
                return
            }
            panelWidth = mode.width
            panelHeight = mode.height
            back = 1
            lastFrame = nil
        }
        refreshHz = mode.refreshHz
        pacer = FramePacer(periodNanoseconds: mode.periodNanoseconds, kind: pacer.kind, mayHaveVblank: hasVblank)
        if mode.periodNanoseconds != flipIntervals.periodNanoseconds {
            Log.info("display: \(flipIntervals.summary) (at the previous mode)")
            flipIntervals = FlipIntervals(periodNanoseconds: mode.periodNanoseconds)
        }
        flipIntervals.breakSequence()
        physicalSizeMM =
            connector.widthMM > 0 ? Size(width: Double(connector.widthMM), height: Double(connector.heightMM)) : nil
        isConnected = true
        staleBuffers = [0, 1]
        Log.info("display: \(outputName) is back: \(mode)")
        remodeset()
        if !wasConnected { onConnection?(true) }
        if lastFrame == nil { onResize?(logicalSize) }
        requestFrame()
    }

    /// Sets the mode again on the front buffer, filled from the last frame when there is one.
    private func remodeset() {
        guard let drm, let choice else { return }
        let front = back ^ 1
        let fb =
            drm.buffers?.with(front) { b -> DrmObjectID in
                if let frame = lastFrame, frame.width == pixelWidth, frame.height == pixelHeight {
                    ScanoutCopy.copy(
                        frame, damage: frame.bounds, rotation: rotation, to: b.pixels, destinationStride: b.stride)
                }
                return b.framebufferID
            } ?? 0
        do {
            try drm.device.setCRTC(choice.crtcID, bufferID: fb, connector: choice.connector.id, mode: choice.mode)
            staleBuffers.remove(front)
            previousDamage = .empty
        } catch {
            Log.error("display: re-modeset of \(outputName) failed: \(error)")
        }
    }

    private func redrawLastFrame() {
        if let frame = lastFrame { _ = present(frame, damage: frame.bounds) }
    }

    // MARK: Exit

    /// Gives the screen back: waits for a pending flip, restores the CRTC as found at start
    /// (drm-howto modeset-vsync's order), frees the buffers, closes the device, restores the VT.
    /// Idempotent.
    package func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        if let frameTimer { loop.cancelTimer(frameTimer) }
        if let watchdogTimer { loop.cancelTimer(watchdogTimer) }
        frameTimer = nil
        watchdogTimer = nil
        hotplug = nil
        drainPendingFlip()
        if let fdToken { loop.remove(fdToken) }
        fdToken = nil
        if flipIntervals.count > 0 {
            Log.info(
                "display: \(flipIntervals.summary); \(pacer.kind == .vblank ? "vblank-paced" : "timer-paced"); "
                    + "\(framesDelivered) frame callbacks for \(flipCount) flips")
        }
        if let drm, let choice, let saved = savedCRTC {
            do {
                if saved.bufferID != 0, let mode = saved.mode {
                    try drm.device.setCRTC(
                        saved.id, bufferID: saved.bufferID, x: saved.x, y: saved.y, connector: choice.connector.id,
                        mode: mode)
                } else {
                    try drm.device.setCRTC(saved.id, bufferID: 0, connector: nil, mode: nil)
                }
            } catch {
                Log.warning("display: restoring the CRTC: \(error)")
            }
        }
        drm?.buffers = nil
        drm = nil
        fbdev = nil
        terminal = nil
    }
}

/// The open DRM device and its two scanout buffers: a class so Display's methods and the loop's
/// closures can share it; the ~Copyable owners inside free the resources.
final class DrmOutput {
    let device: DrmDevice
    var buffers: DumbBufferPair?

    init(device: consuming DrmDevice) { self.device = device }
}

extension Display {
    /// The fbdev path: turn the damage into a staging image in ordinary memory, then convert
    /// that rectangle into the framebuffer's format. One buffer, so only this frame's damage is
    /// copied (tearing is possible; fbdev has no flip event). Paced to 60 Hz by the same policy.
    func presentFbdev(_ frame: PixelBuffer, damage: PixelRect) -> Bool {
        let now = MonotonicClock.now()
        guard pacer.decision(now: now) == .now else {
            requestFrame()
            return false
        }
        let staging = fbdevStaging ?? PixelBuffer(width: panelWidth, height: panelHeight)
        fbdevStaging = staging
        let full = fullDamagePending ? frame.bounds : damage.intersection(frame.bounds)
        fullDamagePending = false
        ScanoutCopy.copy(frame, damage: full, rotation: rotation, to: staging.pixels, destinationStride: staging.stride)
        let physical = ScanoutCopy.physicalRect(
            full, rotation: rotation, logicalWidth: frame.width, logicalHeight: frame.height)
        fbdev?.convert(from: staging, rect: physical)
        pacer.flipIssued(at: now)
        pacer.flipCompleted(timestamp: now)
        flipCount += 1
        onFlip?(now)
        return true
    }
}

extension FramebufferDevice {
    func convert(from staging: PixelBuffer, rect: PixelRect) {
        format.convert(
            from: staging.pixels, sourceStride: staging.stride, rect: rect, to: pixels, destinationStride: stride)
    }
}
