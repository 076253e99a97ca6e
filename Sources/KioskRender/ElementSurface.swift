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
    /// `pixelsPerPoint`; nil when the image cannot be allocated. `masks`: where its shadow's mask
    /// is looked up and kept (tests pass their own, apart from other tests running at once).
    static func render(
        _ kind: ElementKind, size: Size, shadowRadius: Double, pixelsPerPoint k: Double, painter: ElementPainter,
        masks: ShadowMasks = .shared
    ) -> ElementImage? {
        let l = layout(for: size, shadowRadius: shadowRadius, pixelsPerPoint: k)
        guard let image = CairoImage(width: l.width, height: l.height) else { return nil }
        if shadowRadius > 0,
            let mask = shadowAlpha(kind, size: size, radius: shadowRadius, k: k, layout: l, masks: masks)
        {
            paintShadow(mask, into: image)
        }
        image.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY))
            cairo_scale(cr, k, k)
            painter.paint(kind, size: size, cr: cr)
        }
        return ElementImage(image: image, anchorX: l.anchorX, anchorY: l.anchorY)
    }

    /// The shadow's alpha over the element's image (`layout`'s size, one byte a pixel, rows
    /// `l.width` apart): the outline moved down by the shadow's offset, blurred. Cards of one
    /// size share one (`ShadowMasks`): the blur is a large part of a card's drawing time.
    static func shadowAlpha(
        _ kind: ElementKind, size: Size, radius: Double, k: Double, layout l: Layout, masks: ShadowMasks = .shared
    ) -> [UInt8]? {
        let key = ShadowMasks.Key(
            width: l.width, height: l.height, originX: l.originX, originY: l.originY, size: size, radius: radius, k: k,
            corner: ElementPainter.cornerRadius(kind))
        if let cached = masks.mask(key) { return cached }
        guard let mask = CairoImage(width: l.width, height: l.height, format: CAIRO_FORMAT_A8) else { return nil }
        // The offset goes into the outline before the blur, so the blurred mask lands on whole
        // pixels (a bilinear shift of the blurred mask, as cairo did, costs more than the blur).
        mask.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY) + shadowOffset(radius: radius) * k)
            cairo_scale(cr, k, k)
            Draw.roundedRect(
                cr, x: 0, y: 0, width: size.width, height: size.height, radius: ElementPainter.cornerRadius(kind))
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_fill(cr)
        }
        let data = mask.data.assumingMemoryBound(to: UInt8.self)
        BoxBlur.gaussian(data, width: l.width, height: l.height, stride: mask.stride, sigma: radius / 2 * k)
        var bytes = [UInt8](repeating: 0, count: l.width * l.height)
        bytes.withUnsafeMutableBufferPointer { out in
            for y in 0..<l.height {
                (out.baseAddress! + y * l.width).update(from: data + y * mask.stride, count: l.width)
            }
        }
        masks.store(key, bytes)
        return bytes
    }

    /// `shadowAlpha` as an A8 cairo image (the bench's cairo baselines composite it at 0, 0).
    package static func shadowMask(_ kind: ElementKind, size: Size, radius: Double, k: Double, layout l: Layout)
        -> CairoImage?
    {
        guard let alpha = shadowAlpha(kind, size: size, radius: radius, k: k, layout: l),
            let mask = CairoImage(width: l.width, height: l.height, format: CAIRO_FORMAT_A8)
        else { return nil }
        let data = mask.data.assumingMemoryBound(to: UInt8.self)
        alpha.withUnsafeBufferPointer { a in
            for y in 0..<l.height {
                (data + y * mask.stride).update(from: a.baseAddress! + y * l.width, count: l.width)
            }
        }
        mask.markDirty()
        return mask
    }

    /// Writes the shadow into a cleared image: black at `shadowOpacity` times the mask, as
    /// pixman composites a solid source through an A8 mask (the colour's 16-bit alpha cut to
    /// 8 bits, 84, times the mask byte, rounded: `(t + t >> 8) >> 8` with `t = a·m + 128`).
    static func paintShadow(_ alpha: [UInt8], into image: CairoImage) {
        let a8 = UInt32((shadowOpacity * 65535).rounded()) >> 8
        var pixels = [UInt32](repeating: 0, count: 256)
        for m in 0..<256 {
            let t = a8 * UInt32(m) + 128
            pixels[m] = ((t + (t >> 8)) >> 8) << 24
        }
        let (w, h, stride) = (image.width, image.height, image.stride)
        let data = image.data
        pixels.withUnsafeBufferPointer { lut in
            alpha.withUnsafeBufferPointer { a in
                for y in 0..<h {
                    let row = (data + y * stride).assumingMemoryBound(to: UInt32.self)
                    let m = a.baseAddress! + y * w
                    for x in 0..<w { row[x] = lut[Int(m[x])] }
                }
            }
        }
        image.markDirty()
    }
}

/// The last few blurred shadow masks, by everything that shapes one (image layout, element
/// size, corner radius, blur radius, scale), so the cards of a deck — one size — blur once.
/// A mask is an immutable array once stored, so the frame loop and the preparation thread may
/// read the same one. At most `capacity` masks (about 0.6 MB each for a 1080p card) are kept.
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
    private var entries: [(key: Key, bytes: [UInt8])] = []
    /// Masks blurred and masks reused, for tests.
    private(set) var blurs = 0
    private(set) var hits = 0

    init(capacity: Int) { self.capacity = capacity }

    /// The mask stored for `key`; nil when there is none.
    func mask(_ key: Key) -> [UInt8]? {
        lock.withLock {
            guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: i)
            entries.append(entry)
            hits += 1
            return entry.bytes
        }
    }

    func store(_ key: Key, _ bytes: [UInt8]) {
        lock.withLock {
            blurs += 1
            entries.removeAll { $0.key == key }
            entries.append((key, bytes))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// Forgets every mask (tests).
    func removeAll() { lock.withLock { entries.removeAll() } }

    /// Bytes held now.
    var bytes: Int { lock.withLock { entries.reduce(0) { $0 + $1.bytes.count } } }
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
        // Both measures in one pass, eight pixels a step (`RowMeasure`: the same values as
        // `RowExtent.measure` and `RowRun.measure`, at a fraction of their cost).
        let measured = RowMeasure.measure(image)
        rows = .allocate(capacity: image.height)
        rows.initialize(from: measured.extents, count: image.height)
        runs = .allocate(capacity: image.height)
        runs.initialize(from: measured.runs, count: image.height)
    }

    deinit {
        rows.deallocate()
        runs.deallocate()
    }
}
