import CardModel
import Glibc
import KioskSystem

/// The framebuffer back end (`/dev/fbN`): the fallback for panels without a DRM driver.
///
/// One buffer: `Display` composes the turned picture into a staging image in ordinary memory,
/// and `show` converts the damaged rectangle of it into the framebuffer's pixel format. There is
/// no flip to wait for (tearing is possible), no vblank and no hotplug; `Display` paces it by
/// the clock at 60 Hz.
final class FbdevScanout: Scanout {
    let outputName: String
    let driverName: String
    let mode: ScanoutMode
    let hasVblank = false
    let bufferCount = 1
    var onFlipComplete: ((UInt64, Instant) -> Void)?
    var onHotplug: (() -> Void)?

    /// The framebuffer's pixel layout. `Display` writes the XRGB8888 staging image (the
    /// protocol's default `pixelFormat`); `show` converts it to this.
    let format: FbPixelFormat
    /// The picture as `Display` wrote it, in XRGB8888 at the panel's size.
    let staging: PixelBuffer
    /// Where the framebuffer's rows are (the device's mapping, or `memory`), `stride` bytes apart.
    private let pixels: UnsafeMutableRawPointer
    private let stride: Int
    /// The mapped device; nil once closed, and for a memory target.
    private var device: FramebufferDevice?
    /// The target this scanout allocated itself (tests), freed at deinit.
    private let memory: UnsafeMutableRawPointer?
    private var isClosed = false

    /// Drives the mapped framebuffer `device`.
    init(device: consuming FramebufferDevice) {
        outputName = device.path
        driverName = "fbdev (\(device.identifier))"
        mode = Self.mode(width: device.width, height: device.height, widthMM: device.widthMM, heightMM: device.heightMM)
        format = device.format
        staging = PixelBuffer(width: device.width, height: device.height)
        pixels = device.pixels
        stride = device.stride
        memory = nil
        self.device = consume device
    }

    /// Drives a framebuffer in ordinary memory, zeroed, of `width`×`height` in `format` with rows
    /// `stride` bytes apart: the real conversion and damage copy, without a device (tests).
    init(memoryWidth width: Int, height: Int, stride: Int, format: FbPixelFormat, name: String = "memory") {
        outputName = name
        driverName = "fbdev (memory)"
        mode = Self.mode(width: width, height: height, widthMM: 0, heightMM: 0)
        self.format = format
        staging = PixelBuffer(width: width, height: height)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * height, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: stride * height)
        pixels = memory
        self.stride = stride
        self.memory = memory
        device = nil
    }

    deinit { memory?.deallocate() }

    /// fbdev reports no refresh rate; 60 Hz is what such panels run at.
    private static func mode(width: Int, height: Int, widthMM: Int, heightMM: Int) -> ScanoutMode {
        ScanoutMode(
            name: "\(width)x\(height)", width: width, height: height, periodNanoseconds: 16_666_667, refreshHz: 60,
            physicalSizeMM: widthMM > 0 ? Size(width: Double(widthMM), height: Double(heightMM)) : nil)
    }

    /// The framebuffer's bytes, `stride` per row (for tests that read a memory target back).
    func withTarget<R>(_ body: (UnsafeRawBufferPointer, Int) -> R) -> R {
        body(UnsafeRawBufferPointer(start: pixels, count: stride * mode.height), stride)
    }

    var panelRotation: Rotation? { nil }

    func start() throws(SystemCallError) {}

    func summary(rotation: Rotation) -> String {
        "\(outputName) \(mode.width)x\(mode.height) \(format), rotation \(rotation.rawValue)"
    }

    func withBuffer<R>(_ index: Int, _ body: (UnsafeMutableRawPointer, Int) -> R) -> R? {
        body(staging.pixels, staging.stride)
    }

    /// Converts `damage` of the staging image into the framebuffer: on screen at once.
    func show(_ index: Int, damage: PixelRect, serial: UInt64) throws(SystemCallError) -> ScanoutCommit {
        guard !isClosed else { return .done }
        format.convert(
            from: staging.pixels, sourceStride: staging.stride,
            rect: damage.intersection(PixelRect(x: 0, y: 0, width: mode.width, height: mode.height)),
            to: pixels, destinationStride: stride)
        return .done
    }

    func modeset(showing index: Int) throws(SystemCallError) {
        _ = try show(index, damage: PixelRect(x: 0, y: 0, width: mode.width, height: mode.height), serial: 0)
    }

    func waitForEvents(seconds: Double) -> Bool { false }

    /// Off: black (fbdev has no power control here). On: `Display` shows its last frame.
    func setPower(on: Bool) {
        guard !on, !isClosed else { return }
        for y in 0..<mode.height { memset(pixels + y * stride, 0, mode.width * format.bytesPerPixel) }
    }

    func reprobe(wasConnected: Bool) -> ScanoutChange { .unchanged }

    func adoptReprobedMode() throws(SystemCallError) {}

    /// Unmaps and closes the device; the picture stays on the framebuffer.
    func close() {
        isClosed = true
        device = nil
    }
}
