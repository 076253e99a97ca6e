import CardModel
import KioskSystem

@testable import KioskDisplay

/// A `Scanout` in ordinary memory for `Display`'s tests: `bufferCount` buffers of a
/// `width`×`height` panel in `format`, each row padded by `padding` pixels, every byte
/// first set from `fill` (a 4-byte pattern) so a pixel the display never wrote stands out.
/// Records what each `show` handed over.
///
/// With `vblank`, a shown buffer is pending until the test calls `completeFlip` (as with a DRM
/// page flip); without, it is on screen at once (as with a framebuffer).
final class MemoryScanout: Scanout {
    let outputName = "test"
    let driverName = "memory"
    let mode: ScanoutMode
    let hasVblank: Bool
    let bufferCount: Int
    let pixelFormat: PixelFormat
    var onFlipComplete: ((UInt64, Instant) -> Void)?
    var onHotplug: (() -> Void)?
    var panelRotation: Rotation? { nil }
    /// Pixels from one row to the next, the padding included.
    let pitch: Int
    /// Each buffer's bytes, 4 at a time (an RGB565 buffer holds two pixels in each).
    private var buffers: [[UInt32]]
    /// What each `show` that did not fail was given, in order.
    private(set) var shown: [(index: Int, damage: PixelRect, serial: UInt64)] = []
    /// While set, every `show` fails with this.
    var failure: Errno?
    private var flips: Int64 = 0

    init(
        width: Int, height: Int, format: PixelFormat = .xrgb8888, padding: Int = 0, fill: UInt32 = 0,
        bufferCount: Int = 2, vblank: Bool = false
    ) {
        mode = ScanoutMode(
            name: "\(width)x\(height)", width: width, height: height, periodNanoseconds: 16_666_667, refreshHz: 60,
            physicalSizeMM: nil)
        pixelFormat = format
        pitch = width + padding
        self.bufferCount = bufferCount
        hasVblank = vblank
        let words = (pitch * format.bytesPerPixel * height + 3) / 4
        buffers = [[UInt32]](repeating: [UInt32](repeating: fill, count: words), count: bufferCount)
    }

    func start() throws(SystemCallError) {}
    func summary(rotation: Rotation) -> String { "test" }
    func withBuffer<R>(_ index: Int, _ body: (UnsafeMutableRawPointer, Int) -> R) -> R? {
        let stride = pitch * pixelFormat.bytesPerPixel
        return buffers[index].withUnsafeMutableBytes { body($0.baseAddress!, stride) }
    }
    func show(_ index: Int, damage: PixelRect, serial: UInt64) throws(SystemCallError) -> ScanoutCommit {
        if let failure { throw SystemCallError(call: "drmModePageFlip", errno: failure, detail: "test") }
        shown.append((index, damage, serial))
        return hasVblank ? .pending : .done
    }
    func modeset(showing index: Int) throws(SystemCallError) {}
    func waitForEvents(seconds: Double) -> Bool { false }
    func setPower(on: Bool) {}
    func reprobe(wasConnected: Bool) -> ScanoutChange { .unchanged }
    func adoptReprobedMode() throws(SystemCallError) {}
    func close() {}

    /// Physical pixel (x, y) of buffer `index`, in the buffer's format; `x` may lie in the
    /// row's padding.
    func pixel(_ index: Int, x: Int, y: Int) -> UInt32 {
        buffers[index].withUnsafeBytes { b in
            switch pixelFormat {
            case .xrgb8888: b.load(fromByteOffset: (y * pitch + x) * 4, as: UInt32.self)
            case .rgb565: UInt32(b.load(fromByteOffset: (y * pitch + x) * 2, as: UInt16.self))
            }
        }
    }

    /// Completes the flip in flight, one refresh period after the previous one (on the vblank
    /// grid, so pacing stays vblank-paced).
    func completeFlip() {
        flips += 1
        let stamp = Instant(nanoseconds: MonotonicClock.now().nanoseconds + flips * mode.periodNanoseconds)
        onFlipComplete?(shown.last?.serial ?? 0, stamp)
    }
}
