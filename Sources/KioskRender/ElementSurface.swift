import CPangoCairo
import CardModel
import Glibc
import KioskSystem

/// One element drawn once, untransformed, with its drop shadow already blurred, into an
/// ARGB32 image that frames then only place (translate, rotate, fade).
///
/// A transparent margin around the content holds the shadow, plus one transparent pixel on
/// every side so bilinear sampling fades the edges to nothing
/// (no seams, no hard edges when a card turns).
package enum ElementSurface {
    /// SwiftUI's default shadow colour: black at 33 %.
    package static let shadowOpacity = 0.33

    /// Vertical offset of the shadow in points, a little light from above.
    package static func shadowOffset(radius: Double) -> Double { min(2, radius / 4) }

    /// Pixel layout of an element's image: its size and where the content's top-left sits
    /// (whole pixels, so content drawn unturned lands on the pixel grid like a direct draw).
    package struct Layout {
        package var width: Int
        package var height: Int
        package var originX: Int
        package var originY: Int
        /// Image point of the element's centre.
        package var anchorX: Double
        package var anchorY: Double
    }

    package static func layout(for size: Size, shadowRadius: Double, pixelsPerPoint k: Double) -> Layout {
        // Exactly as far as the blur reaches (the sum of its box radii) plus the offset, so
        // frames sample no empty margin; within the scene's `shadowMargin` by construction.
        let reach = shadowRadius > 0 ? BoxBlur.radii(sigma: shadowRadius / 2 * k).reduce(0, +) : 0
        let ox = reach + Int((shadowOffset(radius: shadowRadius) * k).rounded(.up)) + 1
        let oy = ox
        return Layout(
            width: 2 * ox + Int((size.width * k).rounded(.up)), height: 2 * oy + Int((size.height * k).rounded(.up)),
            originX: ox, originY: oy, anchorX: Double(ox) + size.width * k / 2,
            anchorY: Double(oy) + size.height * k / 2)
    }

    /// Draws `kind` (frame `size` in points) with a shadow of `shadowRadius` points at
    /// `pixelsPerPoint`; nil when the image cannot be allocated.
    static func render(
        _ kind: ElementKind, size: Size, shadowRadius: Double, pixelsPerPoint k: Double, painter: ElementPainter
    ) -> ElementImage? {
        let l = layout(for: size, shadowRadius: shadowRadius, pixelsPerPoint: k)
        guard let image = CairoImage(width: l.width, height: l.height) else { return nil }
        if shadowRadius > 0, let mask = shadowMask(kind, size: size, radius: shadowRadius, k: k, layout: l) {
            image.draw { cr in
                cairo_set_source_rgba(cr, 0, 0, 0, shadowOpacity)
                cairo_mask_surface(cr, mask.surface, 0, shadowOffset(radius: shadowRadius) * k)
            }
        }
        image.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY))
            cairo_scale(cr, k, k)
            painter.paint(kind, size: size, cr: cr)
        }
        return ElementImage(image: image, anchorX: l.anchorX, anchorY: l.anchorY)
    }

    /// The element's outline as alpha, blurred, aligned with the element's image. Cards of
    /// one size share one mask (`ShadowMasks`): the blur is most of a card's drawing time.
    package static func shadowMask(_ kind: ElementKind, size: Size, radius: Double, k: Double, layout l: Layout)
        -> CairoImage?
    {
        let key = ShadowMasks.Key(
            width: l.width, height: l.height, originX: l.originX, originY: l.originY, size: size, radius: radius, k: k,
            corner: ElementPainter.cornerRadius(kind))
        if let cached = ShadowMasks.shared.copy(key) { return cached }
        guard let mask = CairoImage(width: l.width, height: l.height, format: CAIRO_FORMAT_A8) else { return nil }
        mask.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY))
            cairo_scale(cr, k, k)
            Draw.roundedRect(
                cr, x: 0, y: 0, width: size.width, height: size.height, radius: ElementPainter.cornerRadius(kind))
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_fill(cr)
        }
        let data = mask.data.assumingMemoryBound(to: UInt8.self)
        BoxBlur.gaussian(data, width: l.width, height: l.height, stride: mask.stride, sigma: radius / 2 * k)
        mask.markDirty()
        ShadowMasks.shared.store(key, mask)
        return mask
    }
}

/// The last few blurred shadow masks, by everything that shapes one (image layout, element
/// size, corner radius, blur radius, scale), so the cards of a deck — one size — blur once.
/// Each caller gets its own copy of the bytes (a memcpy, far cheaper than the blur), so no
/// cairo surface is shared between the frame loop and the preparation thread. At most
/// `capacity` masks (A8, about 0.7 MB each for a 1080p card) are kept.
final class ShadowMasks: @unchecked Sendable {
    struct Key: Equatable {
        var width: Int, height: Int, originX: Int, originY: Int
        var size: Size
        var radius: Double, k: Double, corner: Double
    }

    static let shared = ShadowMasks(capacity: 4)

    let capacity: Int
    private let lock = Condition()
    /// Most recently used last; `lock` guards it.
    private var entries: [(key: Key, stride: Int, bytes: [UInt8])] = []
    /// Masks blurred and masks copied, for tests.
    private(set) var blurs = 0
    private(set) var hits = 0

    init(capacity: Int) { self.capacity = capacity }

    /// A fresh A8 image holding the mask stored for `key`; nil when there is none.
    func copy(_ key: Key) -> CairoImage? {
        let found: (stride: Int, bytes: [UInt8])? = lock.withLock {
            guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: i)
            entries.append(entry)
            hits += 1
            return (entry.stride, entry.bytes)
        }
        guard let found, let image = CairoImage(width: key.width, height: key.height, format: CAIRO_FORMAT_A8),
            image.stride == found.stride
        else { return nil }
        found.bytes.withUnsafeBytes { image.data.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        image.markDirty()
        return image
    }

    func store(_ key: Key, _ mask: CairoImage) {
        let bytes = [UInt8](UnsafeRawBufferPointer(start: mask.data, count: mask.byteCount))
        let stride = mask.stride
        lock.withLock {
            blurs += 1
            entries.removeAll { $0.key == key }
            entries.append((key, stride, bytes))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// Forgets every mask (tests).
    func removeAll() { lock.withLock { entries.removeAll() } }

    /// Bytes held now.
    var bytes: Int { lock.withLock { entries.reduce(0) { $0 + $1.bytes.count } } }
}

/// A Gaussian blur approximated by three box blurs per axis (W. Jarosz, "Fast image
/// convolutions"), linear in the pixel count whatever the radius; edges read as transparent.
enum BoxBlur {
    /// Box radii whose three passes approximate a Gaussian of `sigma` pixels.
    static func radii(sigma: Double) -> [Int] {
        guard sigma > 0.5 else { return [] }
        let n = 3.0
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var wl = Int(ideal.rounded(.down))
        if wl % 2 == 0 { wl -= 1 }
        let wu = wl + 2
        let mIdeal = (12 * sigma * sigma - n * Double(wl * wl) - 4 * n * Double(wl) - 3 * n) / (-4 * Double(wl) - 4)
        let m = Int(mIdeal.rounded())
        return (0..<3).map { i in ((i < m ? wl : wu) - 1) / 2 }
    }

    /// Blurs an 8-bit alpha image in place.
    static func gaussian(_ data: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, sigma: Double) {
        let rs = radii(sigma: sigma)
        guard !rs.isEmpty else { return }
        let n = max(width, height)
        let line = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
        defer {
            line.deallocate()
            out.deallocate()
        }
        for y in 0..<height {
            let row = data + y * stride
            for r in rs { boxPass(row, step: 1, count: width, radius: r, line: line, out: out) }
        }
        for x in 0..<width {
            for r in rs { boxPass(data + x, step: stride, count: height, radius: r, line: line, out: out) }
        }
    }

    /// One box pass along a line of `count` samples `step` bytes apart.
    private static func boxPass(
        _ p: UnsafeMutablePointer<UInt8>, step: Int, count: Int, radius r: Int,
        line: UnsafeMutablePointer<UInt8>, out: UnsafeMutablePointer<UInt8>
    ) {
        guard r > 0 else { return }
        for i in 0..<count { line[i] = p[i * step] }
        let width = 2 * r + 1
        var sum = 0
        for i in 0...min(r, count - 1) { sum += Int(line[i]) }
        for i in 0..<count {
            out[i] = UInt8((sum + width / 2) / width)
            let add = i + r + 1
            if add < count { sum += Int(line[add]) }
            let sub = i - r
            if sub >= 0 { sum -= Int(line[sub]) }
        }
        for i in 0..<count { p[i * step] = out[i] }
    }
}

/// An element's cached image, the image point that goes where the element's centre is, and
/// per row where it has anything to draw (raw memory, read in pixel loops without ARC).
/// Immutable once made, so the preparation thread may hand it to the frame thread.
final class ElementImage: @unchecked Sendable {
    let image: CairoImage
    let anchorX: Double
    let anchorY: Double
    /// `image.height` entries (see `RowExtent`).
    let rows: UnsafeMutablePointer<RowExtent>
    /// `image.height` entries (see `RowRun`).
    let runs: UnsafeMutablePointer<RowRun>

    init(image: CairoImage, anchorX: Double, anchorY: Double) {
        self.image = image
        self.anchorX = anchorX
        self.anchorY = anchorY
        rows = .allocate(capacity: image.height)
        rows.initialize(from: RowExtent.measure(image), count: image.height)
        runs = .allocate(capacity: image.height)
        runs.initialize(from: RowRun.measure(image), count: image.height)
    }

    deinit {
        rows.deallocate()
        runs.deallocate()
    }
}
