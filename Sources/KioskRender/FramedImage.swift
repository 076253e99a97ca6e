import KioskSystem

/// The part of a covered card that can show: its image kept without the middle that the card
/// above it hides, as the strips around that hole, each an image of its own at a whole-pixel
/// offset from the whole image's corner. On a resting stack card i lies inside card i − 1, so
/// only its shadow and edge reach the screen; its image held whole was most of its bytes for
/// pixels no frame shows.
///
/// Made two ways, the same thing either way: a card drawn in the frame (no preparation thread)
/// is drawn with the hole left out from the start (`ElementSurface.renderFramed`, the hole the
/// card above covers, `SceneRenderer.coveredHole`); a card drawn whole is framed when the app
/// is idle, the hole found in what the card above covers (`SceneRenderer.framePendingCovered`).
///
/// Drawn unturned and unscaled (`SceneRenderer`'s still layer), the strips write what the whole
/// image writes outside the hole, pixel for pixel (an unturned draw is per pixel); inside the
/// hole an opaque card drawn later in the same layer writes every pixel anyway, which each
/// rebuild of the layer checks (`SceneRenderer.keepFramedWhereHidden`). Immutable once made.
final class FramedImage: @unchecked Sendable {
    struct Piece {
        let image: ElementImage
        /// Where the strip's top-left pixel is in the whole image.
        let x: Int
        let y: Int
    }

    /// The whole image's size and the point of it that goes where the element's centre is.
    let width: Int
    let height: Int
    let anchorX: Double
    let anchorY: Double
    /// The pixels left out, in the whole image's coordinates.
    let hole: PixelRect
    let pieces: [Piece]
    /// Per row of the whole image, its drawn span and opaque run with the hole counted opaque
    /// (the card above writes it): what the framed card covers of the card beneath.
    let extents: [RowExtent]

    /// The strips of `whole` around `hole` (within it): above, left and right of it, below it.
    /// nil when one cannot be allocated.
    convenience init?(_ whole: ElementImage, hole: PixelRect) {
        self.init(whole.image, anchorX: whole.anchorX, anchorY: whole.anchorY, hole: hole)
    }

    /// The strips of `image` (its pixels outside `hole` drawn; those inside need not be) around
    /// `hole`. nil when one cannot be allocated.
    init?(_ image: CairoImage, anchorX: Double, anchorY: Double, hole: PixelRect) {
        let (w, h) = (image.width, image.height)
        let hole = hole.intersection(PixelRect(x: 0, y: 0, width: w, height: h))
        let strips = PixelRect(x: 0, y: 0, width: w, height: h).around(hole)
        let src = UnsafeRawPointer(image.data)
        var pieces: [Piece] = []
        for s in strips {
            guard let strip = CairoImage(width: s.width, height: s.height) else { return nil }
            let dst = strip.data
            for y in 0..<s.height {
                (dst + y * strip.stride).copyMemory(
                    from: src + (s.y + y) * image.stride + s.x * 4, byteCount: s.width * 4)
            }
            strip.markDirty()
            pieces.append(Piece(image: ElementImage(image: strip, anchorX: 0, anchorY: 0), x: s.x, y: s.y))
        }
        (self.width, self.height, self.anchorX, self.anchorY) = (w, h, anchorX, anchorY)
        (self.hole, self.pieces) = (hole, pieces)
        extents = Self.extents(pieces, width: w, height: h, hole: hole)
    }

    /// The whole image's row extents from its strips' (`extents`).
    private static func extents(_ pieces: [Piece], width w: Int, height h: Int, hole: PixelRect) -> [RowExtent] {
        var out = [RowExtent](repeating: .empty, count: h)
        for p in pieces where p.x == 0 && p.image.image.width == w {
            for y in 0..<p.image.image.height { out[p.y + y] = p.image.rows[y] }
        }
        guard !hole.isEmpty else { return out }
        let left = pieces.first { $0.x == 0 && $0.y == hole.y && $0.image.image.width == hole.x }
        let right = pieces.first { $0.x == hole.maxX && $0.y == hole.y }
        for y in 0..<hole.height {
            // Spans in the whole image's columns, the hole an opaque run of its own.
            let a = left.map { $0.image.rows[y] } ?? .empty
            var b = right.map { $0.image.rows[y] } ?? .empty
            let dx = Int32(hole.maxX)
            b = RowExtent(
                first: b.first + dx, end: b.end + dx, opaqueFirst: b.opaqueFirst + dx, opaqueEnd: b.opaqueEnd + dx)
            let first = a.end > a.first ? a.first : Int32(hole.x)
            let end = b.end > b.first ? b.end : Int32(hole.maxX)
            // The hole's run, joined with the opaque runs that touch it; the longest of it and
            // the runs that do not.
            var run = (Int32(hole.x), dx)
            var runs: [(Int32, Int32)] = []
            for r in [(a.opaqueFirst, a.opaqueEnd), (b.opaqueFirst, b.opaqueEnd)] where r.1 > r.0 {
                if r.1 == run.0 {
                    run.0 = r.0
                } else if r.0 == run.1 {
                    run.1 = r.1
                } else {
                    runs.append(r)
                }
            }
            runs.insert(run, at: 0)
            let best = runs.max { $0.1 - $0.0 < $1.1 - $1.0 }!
            out[hole.y + y] = RowExtent(first: first, end: end, opaqueFirst: best.0, opaqueEnd: best.1)
        }
        return out
    }

    /// Bytes of pixels held.
    var byteCount: Int { pieces.reduce(0) { $0 + $1.image.image.byteCount } }

    /// The largest hole found in `hidden` (screen columns covered opaquely by elements drawn
    /// later, one span a row) for an image of `width`×`height` whose top-left pixel is at
    /// (`x`, `y`) on screen, in the image's coordinates; empty when there is none. Looked for
    /// from every eighth row: the row's hidden span, as many rows up and down as hide all of it.
    static func hole(in hidden: Compositor.Hidden, x ox: Int, y oy: Int, width w: Int, height h: Int) -> PixelRect {
        let spans: [(lo: Int, hi: Int)] = (0..<h).map { row in
            let i = oy + row - hidden.top
            guard i >= 0, i < hidden.spans.count else { return (0, 0) }
            let s = hidden.spans[i]
            let lo = max(0, Int(s.x) - ox)
            let hi = min(w, Int(s.y) - ox)
            return hi > lo ? (lo, hi) : (0, 0)
        }
        func span(_ row: Int) -> (lo: Int, hi: Int) { spans[row] }
        var best = PixelRect.empty
        for row in stride(from: 0, to: h, by: 8) {
            let (lo, hi) = span(row)
            guard hi > lo, (hi - lo) * h > best.width * best.height else { continue }
            func hides(_ r: Int) -> Bool {
                let s = span(r)
                return s.hi > s.lo && s.lo <= lo && s.hi >= hi
            }
            var top = row
            while top > 0 && hides(top - 1) { top -= 1 }
            var bottom = row + 1
            while bottom < h && hides(bottom) { bottom += 1 }
            if (hi - lo) * (bottom - top) > best.width * best.height {
                best = PixelRect(x: lo, y: top, width: hi - lo, height: bottom - top)
            }
        }
        return best
    }

    /// Whether `hidden` hides every pixel of the hole with the image's top-left at (`x`, `y`).
    func holeIsHidden(by hidden: Compositor.Hidden, x ox: Int, y oy: Int) -> Bool {
        for row in hole.y..<hole.maxY {
            let i = oy + row - hidden.top
            guard i >= 0, i < hidden.spans.count else { return false }
            let s = hidden.spans[i]
            guard Int(s.x) <= ox + hole.x, Int(s.y) >= ox + hole.maxX else { return false }
        }
        return true
    }
}
