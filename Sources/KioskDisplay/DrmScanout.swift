import CDrm
import CardModel
import Glibc
import KioskSystem

/// The DRM/KMS back end: a CRTC fed by two dumb buffers through page flips.
///
/// Opens the device and connector `DisplayChoice` picks, becomes DRM master and allocates the
/// buffers; `start` sets the mode on the first (black) one, checks whether the CRTC counts
/// vblanks and reads flip events and hotplugs from the loop. `close` restores the CRTC found at
/// start, then frees the buffers and closes the device (drm-howto modeset-vsync's order; the
/// caller drains a pending flip first).
final class DrmScanout: Scanout {
    let outputName: String
    let driverName: String
    private(set) var mode: ScanoutMode
    private(set) var hasVblank = false
    let bufferCount = 2
    /// The buffers' format: the operator's, else the driver's preferred depth's; XRGB8888 when
    /// the driver refuses RGB565.
    private(set) var pixelFormat: PixelFormat
    var onFlipComplete: ((UInt64, Instant) -> Void)?
    var onHotplug: (() -> Void)?

    private let loop: EventLoop
    /// The device and buffers; nil once closed.
    private var output: DrmOutput?
    /// What is being driven; after a hotplug, `pending` until adopted.
    private var choice: DisplayChoice
    private var pending: DisplayChoice?
    private let modeRequest: ModeRequest?
    /// The CRTC as found at start, restored by `close`.
    private let savedCRTC: DrmCRTC?
    /// The buffer on screen (the other one is free for black while the panel is off).
    private var shown = 0
    private var fdToken: Int?
    private var hotplug: HotplugMonitor?

    /// Snapshots every card in `cardPaths` (errors only count when none can be read or
    /// `--drm` named the one), chooses with `DisplayChoice`, opens it and becomes master.
    init(cardPaths: [String], options: DisplayOptions, loop: EventLoop) throws(DisplayError) {
        var snapshots: [DrmDeviceSnapshot] = []
        var firstError: DisplayError?
        for path in cardPaths {
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
        let output = DrmOutput(device: try DrmDevice(path: choice.device.path))
        try output.device.becomeMaster()

        self.loop = loop
        self.choice = choice
        modeRequest = options.mode
        outputName = choice.connector.name
        driverName = choice.device.driver
        mode = ScanoutMode(choice)
        pixelFormat = options.pixelFormat ?? PixelFormat.preferred(depth: choice.device.preferredDepth)
        savedCRTC = choice.device.resources.crtc(choice.crtcID)
        if !choice.device.monotonicTimestamps {
            Log.warning("\(choice.device.path): flip timestamps are not CLOCK_MONOTONIC; animation may be off")
        }
        self.output = output
        do {
            try allocateBuffers(width: mode.width, height: mode.height)
        } catch {
            throw .system(error)
        }
    }

    /// Allocates the two buffers in `pixelFormat`; when the driver refuses RGB565 (no plane
    /// takes it: `drmModeAddFB2` fails with EINVAL), says so and uses XRGB8888.
    private func allocateBuffers(width: Int, height: Int) throws(SystemCallError) {
        guard let output else { return }
        do {
            output.buffers = try DumbBufferPair(
                device: output.device, width: width, height: height, format: pixelFormat)
        } catch {
            guard pixelFormat != .xrgb8888, error.errno == Errno(EINVAL) else { throw error }
            fallBackToXRGB8888(error)
            output.buffers = try DumbBufferPair(
                device: output.device, width: width, height: height, format: pixelFormat)
        }
    }

    private func fallBackToXRGB8888(_ error: SystemCallError) {
        Log.warning(
            "display: \(driverName) does not scan out \(pixelFormat) (\(error)); using XRGB8888 "
                + "(set pixel-format = xrgb8888 to say so)")
        pixelFormat = .xrgb8888
    }

    var panelRotation: Rotation? { choice.connector.panelOrientation?.rotation }

    func start() throws(SystemCallError) {
        guard let output else { return }
        do {
            try modeset(showing: 0)
        } catch {
            // A driver may take an RGB565 framebuffer for some plane but not on the primary one.
            guard pixelFormat != .xrgb8888, error.errno == Errno(EINVAL) else {
                output.buffers = nil
                throw error
            }
            fallBackToXRGB8888(error)
            do {
                try allocateBuffers(width: mode.width, height: mode.height)
                try modeset(showing: 0)
            } catch {
                output.buffers = nil
                throw error
            }
        }
        let crtcIndex = choice.device.resources.crtcIndex(choice.crtcID) ?? 0
        hasVblank = output.device.vblankWorks(crtcIndex: crtcIndex)
        fdToken = loop.add(fd: output.device.fd) { [weak self] _ in self?.readEvents() }
        hotplug = try? HotplugMonitor(loop: loop) { [weak self] in self?.onHotplug?() }
    }

    func summary(rotation: Rotation) -> String {
        "\(choice.device.path) (\(driverName)) \(outputName) \(choice.mode) \(pixelFormat) rotation \(rotation.rawValue)"
            + " crtc \(choice.crtcID), \(hasVblank ? "vblank-paced" : "timer-paced (no vblank)")"
    }

    func withBuffer<R>(_ index: Int, _ body: (UnsafeMutableRawPointer, Int) -> R) -> R? {
        output?.buffers?.with(index) { body($0.pixels, $0.stride) }
    }

    /// The framebuffer id of buffer `index`; 0 (which the kernel refuses) without buffers.
    private func framebufferID(_ index: Int) -> DrmObjectID {
        output?.buffers?.with(index) { $0.framebufferID } ?? 0
    }

    /// Queues a page flip to buffer `index` for the next vblank (the whole buffer: dumb buffers
    /// have no damage to pass on).
    func show(_ index: Int, damage: PixelRect, serial: UInt64) throws(SystemCallError) -> ScanoutCommit {
        guard let output else { return .pending }
        try output.device.pageFlip(crtc: choice.crtcID, bufferID: framebufferID(index), userData: serial)
        shown = index
        return .pending
    }

    func modeset(showing index: Int) throws(SystemCallError) {
        guard let output else { return }
        try output.device.setCRTC(
            choice.crtcID, bufferID: framebufferID(index), connector: choice.connector.id, mode: choice.mode)
        shown = index
    }

    // MARK: Events

    private func readEvents() {
        guard let output else { return }
        let events: [DrmEvent]
        do {
            events = try output.device.readEvents()
        } catch {
            Log.error("display: \(error)")
            return
        }
        for event in events {
            guard case .flipComplete(let flip) = event else { continue }
            onFlipComplete?(flip.userData, flip.instant)
        }
    }

    func waitForEvents(seconds: Double) -> Bool {
        guard let fd = output?.device.fd else { return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, Int32(seconds * 1000) + 1) > 0 { readEvents() }
        return true
    }

    // MARK: Power

    /// DPMS through the connector's property when it has one, else (and when that fails) black.
    func setPower(on: Bool) {
        guard let output else { return }
        if let dpms = choice.connector.dpmsPropertyID {
            do {
                try output.device.setConnectorProperty(
                    choice.connector.id, property: dpms, value: UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF))
            } catch {
                Log.warning("display: \(error); showing black instead")
                if !on { showBlack() }
            }
        } else if !on {
            showBlack()
        }
    }

    /// Sets the mode on the buffer not on screen, filled with black.
    private func showBlack() {
        let free = shown ^ 1
        output?.buffers?.with(free) { $0.fillBlack() }
        do {
            try modeset(showing: free)
        } catch {
            Log.error("display: \(error)")
        }
    }

    // MARK: Hotplug

    func reprobe(wasConnected: Bool) -> ScanoutChange {
        guard let output else { return .unchanged }
        let connector: DrmConnector?
        do {
            connector = try output.device.connector(choice.connector.id, probe: true)
        } catch {
            Log.error("display: re-probing \(outputName) after a hotplug: \(error)")
            return .unchanged
        }
        guard let connector, connector.connection == .connected, !connector.modes.isEmpty else {
            return .disconnected
        }
        let mode: DrmMode
        do {
            mode = try DisplayChoice.chooseMode(connector: connector, request: modeRequest)
        } catch {
            Log.error("display: \(error)")
            return .unchanged
        }
        if wasConnected && mode == choice.mode { return .unchanged }
        var updated = choice
        updated.connector = connector
        updated.mode = mode
        pending = updated
        return .connected(ScanoutMode(updated))
    }

    func adoptReprobedMode() throws(SystemCallError) {
        guard let output, let next = pending else { return }
        pending = nil
        if next.mode.width != choice.mode.width || next.mode.height != choice.mode.height {
            output.buffers = nil
            try allocateBuffers(width: next.mode.width, height: next.mode.height)
            shown = 0
        }
        choice = next
        mode = ScanoutMode(next)
    }

    // MARK: Exit

    func close() {
        guard let output else { return }
        if let fdToken { loop.remove(fdToken) }
        fdToken = nil
        hotplug = nil
        if let saved = savedCRTC {
            do {
                if saved.bufferID != 0, let mode = saved.mode {
                    try output.device.setCRTC(
                        saved.id, bufferID: saved.bufferID, x: saved.x, y: saved.y, connector: choice.connector.id,
                        mode: mode)
                } else {
                    try output.device.setCRTC(saved.id, bufferID: 0, connector: nil, mode: nil)
                }
            } catch {
                Log.warning("display: restoring the CRTC: \(error)")
            }
        }
        output.buffers = nil
        self.output = nil
    }
}

/// The open DRM device and its two scanout buffers: a class so the scanout can drop both at
/// `close` and its methods can borrow them; the ~Copyable owners inside free the resources.
final class DrmOutput {
    let device: DrmDevice
    var buffers: DumbBufferPair?

    init(device: consuming DrmDevice) { self.device = device }
}

extension ScanoutMode {
    /// The mode `choice` drives, with its connector's physical size.
    init(_ choice: DisplayChoice) {
        let c = choice.connector
        self.init(
            name: choice.mode.description, width: choice.mode.width, height: choice.mode.height,
            periodNanoseconds: choice.mode.periodNanoseconds, refreshHz: choice.mode.refreshHz,
            physicalSizeMM: c.widthMM > 0 ? Size(width: Double(c.widthMM), height: Double(c.heightMM)) : nil)
    }
}
