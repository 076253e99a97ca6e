import CardModel
import Glibc
import KioskDisplay
import KioskRender
import KioskSystem

/// What the app does with a frame, without a display: the scene taken in, the region a
/// double-buffered scanout needs (the damage ∪ the previous frame's) composed band by band,
/// each band copied as `Display.present` copies it (XRGB8888, upright) into a destination in
/// ordinary memory: one of the panel's size (`bench`), or of one band's (`bench --probe`,
/// whose memory should hold what the kiosk holds: no frame and no stand-in for a scanout).
///
/// With `KIOSK_BENCH_FRAME_PATH=1` it draws the way the app did before bands instead, for
/// comparison: `render` into a whole frame, the same region copied from it.
final class BenchShow {
    let renderer: SceneRenderer
    /// The scanout's stand-in; `capacity` bytes.
    private var destination: UnsafeMutableRawPointer
    private var capacity: Int
    private let bandSized: Bool
    /// The previous frame's damage: what the back buffer of two missed.
    private var recent = PixelRect.empty
    /// The whole frame of the comparison path (nil: bands).
    private let frame: PixelBuffer?

    static let framePath = getenv("KIOSK_BENCH_FRAME_PATH").map { String(cString: $0) == "1" } ?? false

    init(renderer: SceneRenderer, bandSized: Bool) {
        self.renderer = renderer
        self.bandSized = bandSized
        let (w, h) = (renderer.screen.width, renderer.screen.height)
        frame = Self.framePath ? PixelBuffer(width: w, height: h) : nil
        capacity = bandSized ? 4 * w * 16 : 4 * w * h
        destination = .allocate(byteCount: capacity, alignment: 64)
    }

    deinit { destination.deallocate() }

    /// Bytes of the scanout's stand-in.
    var destinationBytes: Int { capacity }

    /// Takes `scene` in and copies what changed (∪ the previous frame's damage) to the
    /// destination. Returns the damage.
    @discardableResult
    func show(_ scene: Scene) -> PixelRect {
        let screen = renderer.screen
        let damage: PixelRect
        if let frame {
            damage = renderer.render(scene, into: frame)
        } else {
            damage = renderer.takeIn(scene)
        }
        guard !damage.isEmpty else { return damage }
        let region = damage.union(recent).intersection(screen)
        recent = damage
        if let frame {
            copy(region, from: UnsafeRawPointer(frame.pixels), stride: frame.stride)
        } else {
            renderer.compose(region) { band, origin, stride in copy(band, from: origin, stride: stride) }
        }
        return damage
    }

    private func copy(_ rect: PixelRect, from origin: UnsafeRawPointer, stride: Int) {
        let (w, h) = (renderer.screen.width, renderer.screen.height)
        guard bandSized else {
            ScanoutCopy.copy(
                from: origin, sourceStride: stride, logicalWidth: w, logicalHeight: h, damage: rect, rotation: .deg0,
                to: destination, destinationStride: 4 * w)
            return
        }
        let needed = 4 * rect.width * rect.height
        if needed > capacity {
            destination.deallocate()
            destination = .allocate(byteCount: needed, alignment: 64)
            capacity = needed
        }
        ScanoutCopy.copy(
            band: rect, from: origin, sourceStride: stride, logicalWidth: w, logicalHeight: h, rotation: .deg0,
            format: .xrgb8888, to: destination)
    }
}
