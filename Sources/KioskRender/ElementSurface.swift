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
        guard
            let (image, l) = draw(
                kind, size: size, shadowRadius: shadowRadius, pixelsPerPoint: k, painter: painter, masks: masks,
                hole: .empty)
        else { return nil }
        return ElementImage(image: image, anchorX: l.anchorX, anchorY: l.anchorY)
    }

    /// `render` for an image only ever drawn unturned under a card that covers `hole` (image
    /// pixels) opaquely: drawn with the hole left out (its shadow and card fill), and kept as
    /// the strips around it (`FramedImage`). nil when an image cannot be allocated.
    static func renderFramed(
        _ kind: ElementKind, size: Size, shadowRadius: Double, pixelsPerPoint k: Double, painter: ElementPainter,
        masks: ShadowMasks = .shared, hole: PixelRect
    ) -> FramedImage? {
        guard
            let (image, l) = draw(
                kind, size: size, shadowRadius: shadowRadius, pixelsPerPoint: k, painter: painter, masks: masks,
                hole: hole)
        else { return nil }
        return FramedImage(image, anchorX: l.anchorX, anchorY: l.anchorY, hole: hole)
    }

    /// The drawing of `render`, with `hole`'s pixels left undrawn where that saves work.
    private static func draw(
        _ kind: ElementKind, size: Size, shadowRadius: Double, pixelsPerPoint k: Double, painter: ElementPainter,
        masks: ShadowMasks, hole wanted: PixelRect
    ) -> (CairoImage, Layout)? {
        let l = layout(for: size, shadowRadius: shadowRadius, pixelsPerPoint: k)
        guard let image = CairoImage(width: l.width, height: l.height) else { return nil }
        let hole = wanted.intersection(PixelRect(x: 0, y: 0, width: l.width, height: l.height))
        if shadowRadius > 0,
            let mask = shadowAlpha(kind, size: size, radius: shadowRadius, k: k, layout: l, masks: masks)
        {
            paintShadow(mask, into: image, hole: hole)
        }
        var painter = painter
        painter.hole = hole
        image.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY))
            cairo_scale(cr, k, k)
            painter.paint(kind, size: size, cr: cr)
        }
        return (image, l)
    }

    /// The shadow's alpha over the element's image (`layout`'s size, one byte a pixel, kept
    /// as a `ShadowMask`): the outline moved down by the shadow's offset, blurred. Cards of one
    /// size share one (`ShadowMasks`): the blur is a large part of a card's drawing time.
    static func shadowAlpha(
        _ kind: ElementKind, size: Size, radius: Double, k: Double, layout l: Layout, masks: ShadowMasks = .shared
    ) -> ShadowMask? {
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
        let kept = ShadowMask(data, width: l.width, height: l.height, stride: mask.stride)
        masks.store(key, kept)
        return kept
    }

    /// `shadowAlpha` as an A8 cairo image (the bench's cairo baselines composite it at 0, 0).
    package static func shadowMask(_ kind: ElementKind, size: Size, radius: Double, k: Double, layout l: Layout)
        -> CairoImage?
    {
        guard let alpha = shadowAlpha(kind, size: size, radius: radius, k: k, layout: l),
            let mask = CairoImage(width: l.width, height: l.height, format: CAIRO_FORMAT_A8)
        else { return nil }
        let data = mask.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<l.height { alpha.expand(row: y, into: data + y * mask.stride) }
        mask.markDirty()
        return mask
    }

    /// Writes the shadow into a cleared image: black at `shadowOpacity` times the mask, as
    /// pixman composites a solid source through an A8 mask (the colour's 16-bit alpha cut to
    /// 8 bits, 84, times the mask byte, rounded: `(t + t >> 8) >> 8` with `t = a·m + 128`).
    static func paintShadow(_ alpha: ShadowMask, into image: CairoImage, hole: PixelRect = .empty) {
        let a8 = UInt32((shadowOpacity * 65535).rounded()) >> 8
        var pixels = [UInt32](repeating: 0, count: 256)
        for m in 0..<256 {
            let t = a8 * UInt32(m) + 128
            pixels[m] = ((t + (t >> 8)) >> 8) << 24
        }
        let (w, h, stride) = (alpha.width, alpha.height, image.stride)
        precondition(image.width == w && image.height == h, "shadow mask and image differ in size")
        let data = image.data
        pixels.withUnsafeBufferPointer { lut in
            alpha.bytes.withUnsafeBufferPointer { a in
                for y in 0..<h {
                    let row = (data + y * stride).assumingMemoryBound(to: UInt32.self)
                    let (s, e) = (Int(alpha.solid[y].start), Int(alpha.solid[y].end))
                    let m = a.baseAddress! + alpha.offsets[y]
                    // A row of the mask shared with the one above: that row's pixels.
                    let inHole = !hole.isEmpty && y >= hole.y && y < hole.maxY
                    let same =
                        y > 0 && alpha.offsets[y] == alpha.offsets[y - 1] && alpha.solid[y] == alpha.solid[y - 1]
                        && inHole == (!hole.isEmpty && y - 1 >= hole.y && y - 1 < hole.maxY)
                    func paint(_ from: Int, _ to: Int) {
                        guard to > from else { return }
                        if same {
                            (row + from).update(from: row - stride / 4 + from, count: to - from)
                            return
                        }
                        for x in from..<max(from, min(to, s)) { row[x] = lut[Int(m[x])] }
                        if min(to, e) > max(from, s) {
                            (row + max(from, s)).update(repeating: lut[255], count: min(to, e) - max(from, s))
                        }
                        for x in max(from, e)..<max(to, e) { row[x] = lut[Int(m[x - e + s])] }
                    }
                    if inHole {
                        paint(0, hole.x)
                        paint(hole.maxX, w)
                    } else {
                        paint(0, w)
                    }
                }
            }
        }
        image.markDirty()
    }
}

/// The last few blurred shadow masks, by everything that shapes one (image layout, element
/// size, corner radius, blur radius, scale), so the cards of a deck — one size — blur once.
/// A mask is an immutable array once stored, so the frame loop and the preparation thread may
/// read the same one. At most `capacity` masks (about 0.2 MB each for a 1080p card) are kept.
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
    private var entries: [(key: Key, mask: ShadowMask)] = []
    /// Masks blurred and masks reused, for tests.
    private(set) var blurs = 0
    private(set) var hits = 0

    init(capacity: Int) { self.capacity = capacity }

    /// The mask stored for `key`; nil when there is none.
    func mask(_ key: Key) -> ShadowMask? {
        lock.withLock {
            guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: i)
            entries.append(entry)
            hits += 1
            return entry.mask
        }
    }

    func store(_ key: Key, _ mask: ShadowMask) {
        lock.withLock {
            blurs += 1
            entries.removeAll { $0.key == key }
            entries.append((key, mask))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// Forgets every mask (tests).
    func removeAll() { lock.withLock { entries.removeAll() } }

    /// Bytes held now.
    var bytes: Int { lock.withLock { entries.reduce(0) { $0 + $1.mask.byteCount } } }
}

/// A blurred shadow mask (one byte a pixel) kept without each row's longest run of full
/// coverage, which for a card's shadow is the part under the card, and with each row equal
/// to the one above kept once (`offsets` repeat): at 1.8 px/pt a card's mask keeps a few
/// percent of its bytes. `expand` gives back every byte as blurred.
struct ShadowMask: Sendable {
    let width: Int
    let height: Int
    /// Per row, the run of 255 left out (`start == end`: none).
    let solid: [(start: Int32, end: Int32)]
    /// Per row, where its kept bytes begin in `bytes`: `[0, start)` then `[end, width)`.
    let offsets: [Int]
    let bytes: [UInt8]

    /// Copies the mask at `data` (`height` rows `stride` bytes apart, `width` used).
    init(_ data: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) {
        var solid: [(start: Int32, end: Int32)] = []
        var offsets: [Int] = []
        var bytes: [UInt8] = []
        solid.reserveCapacity(height)
        offsets.reserveCapacity(height)
        for y in 0..<height {
            let row = data + y * stride
            // A row equal to the one above (most of a card's) shares its bytes.
            if y > 0, memcmp(row, row - stride, width) == 0 {
                solid.append(solid[y - 1])
                offsets.append(offsets[y - 1])
                continue
            }
            var best = (start: 0, end: 0)
            var x = 0
            while x < width {
                guard row[x] == 255 else {
                    x += 1
                    continue
                }
                let start = x
                while x < width && row[x] == 255 { x += 1 }
                if x - start > best.end - best.start { best = (start, x) }
            }
            solid.append((Int32(best.start), Int32(best.end)))
            offsets.append(bytes.count)
            bytes.append(contentsOf: UnsafeBufferPointer(start: row, count: best.start))
            bytes.append(contentsOf: UnsafeBufferPointer(start: row + best.end, count: width - best.end))
        }
        (self.width, self.height, self.solid, self.offsets, self.bytes) = (width, height, solid, offsets, bytes)
    }

    /// Bytes held (the kept bytes and the per-row runs and offsets).
    var byteCount: Int { bytes.count + height * (MemoryLayout<(Int32, Int32)>.stride + MemoryLayout<Int>.stride) }

    /// Writes row `y`'s `width` bytes, as blurred, to `out`.
    func expand(row y: Int, into out: UnsafeMutablePointer<UInt8>) {
        let (s, e) = (Int(solid[y].start), Int(solid[y].end))
        bytes.withUnsafeBufferPointer { b in
            let kept = b.baseAddress! + offsets[y]
            out.update(from: kept, count: s)
            (out + s).update(repeating: 255, count: e - s)
            (out + e).update(from: kept + s, count: width - e)
        }
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
