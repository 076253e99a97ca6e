import Glibc
import Synchronization

/// A rectangle of whole pixels.
package struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    package static let empty = PixelRect(x: 0, y: 0, width: 0, height: 0)

    package var isEmpty: Bool { width <= 0 || height <= 0 }
    package var maxX: Int { x + width }
    package var maxY: Int { y + height }

    package func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(x, o.x)
        let y0 = min(y, o.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }

    package func intersection(_ o: PixelRect) -> PixelRect {
        let x0 = max(x, o.x)
        let y0 = max(y, o.y)
        let x1 = min(maxX, o.maxX)
        let y1 = min(maxY, o.maxY)
        guard x1 > x0, y1 > y0 else { return .empty }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// This rectangle without `hole`: the non-empty parts above it, left and right of it, and
    /// below it, in that order (itself alone when `hole` is empty).
    package func around(_ hole: PixelRect) -> [PixelRect] {
        guard !hole.isEmpty else { return [self] }
        return [
            PixelRect(x: x, y: y, width: width, height: hole.y - y),
            PixelRect(x: x, y: hole.y, width: hole.x - x, height: hole.height),
            PixelRect(x: hole.maxX, y: hole.y, width: maxX - hole.maxX, height: hole.height),
            PixelRect(x: x, y: hole.maxY, width: width, height: maxY - hole.maxY),
        ].map { $0.intersection(self) }.filter { !$0.isEmpty }
    }

    package var description: String { "\(x),\(y) \(width)x\(height)" }
}

/// An XRGB8888 image in ordinary (cached) memory: where frames are composed before the
/// damaged part is copied to a scanout buffer. 64-byte aligned rows; `stride` in bytes.
package final class PixelBuffer {
    package let width: Int
    package let height: Int
    /// Bytes from one row to the next (a multiple of 64, ≥ width·4).
    package let stride: Int
    package let pixels: UnsafeMutableRawPointer
    /// Whether `pixels` is an anonymous mapping (else an allocation).
    private let isMapped: Bool
    /// This buffer among every buffer the process made, never reused (an object's address can
    /// be: a buffer freed and a new one made may share it, which `ObjectIdentifier` cannot tell).
    package let identity = PixelBuffer.nextIdentity.add(1, ordering: .relaxed).newValue
    private static let nextIdentity = Atomic<UInt64>(0)

    /// A black buffer: an anonymous mapping, not a cleared allocation, so a 1080p frame costs
    /// no 8 MB memset before it is drawn (the kernel clears each page when it is first written).
    package init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "PixelBuffer needs a positive size")
        self.width = width
        self.height = height
        self.stride = (width * 4 + 63) / 64 * 64
        let bytes = stride * height
        if let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED {
            pixels = p
            isMapped = true
        } else {
            pixels = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            pixels.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            isMapped = false
        }
    }

    deinit {
        if isMapped { munmap(pixels, stride * height) } else { pixels.deallocate() }
    }

    package var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// Makes every page of the buffer resident, on a thread of its own, and returns at once:
    /// the first frame drawn into a new buffer otherwise takes a page fault for every 4 kB it
    /// writes on the drawing thread (2,025 of them for a 1920×1080 frame, about 4 ms on the
    /// build machine). The pages are asked for as transparent huge pages where the system
    /// allows them (fewer faults to clear the same memory) and faulted in with
    /// `madvise(MADV_POPULATE_WRITE)`, which leaves the contents alone, so the buffer may be
    /// drawn into meanwhile. For a buffer that is drawn whole (a frame): every page ends up
    /// resident anyway. Does nothing for a buffer that is not a mapping, or before Linux 5.14.
    package func populateInBackground() {
        guard isMapped else { return }
        // The thread keeps the buffer alive and only advises the kernel about its pages: the
        // owner may draw into it meanwhile. No thread: the pages fault in as they are drawn.
        let buffer = UncheckedBox(self)
        try? HelperThread.detach {
            let bytes = buffer.value.stride * buffer.value.height
            _ = madvise(buffer.value.pixels, bytes, MADV_HUGEPAGE)
            _ = madvise(buffer.value.pixels, bytes, MADV_POPULATE_WRITE)
        }
    }

    /// The pixel at (x, y) as 0xXXRRGGBB.
    func pixel(x: Int, y: Int) -> UInt32 {
        pixels.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
    }

    package func setPixel(x: Int, y: Int, _ value: UInt32) {
        pixels.storeBytes(of: value, toByteOffset: y * stride + x * 4, as: UInt32.self)
    }
}
