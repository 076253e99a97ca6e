import CardModel
import KioskSystem

/// The swipe stamps ("Später"/"Verstanden" over a dragged card): card-sized images without a
/// shadow, 1.75 MB each at 1920×1080. Only the one of the direction a drag goes is held: it is
/// drawn on the preparation thread when a drag first shows it, and the other direction's is
/// dropped when the card is released or swiped.
struct StampMemory {
    /// The stamps asked of the preparation thread since the last release.
    var asked: Set<SurfaceCache.Key> = []
    /// The stamp the last scene showed; nil when it showed none.
    var shown: SurfaceCache.Key?
}

extension SceneRenderer {
    /// Below this opacity a stamp the preparation thread has not drawn yet is left out of the
    /// frame; from it on it is drawn in the frame. A stamp fades in over the first 120 pt of a
    /// drag (0.08 at a 10 pt slop), so while it is faint a frame without it only shows it a
    /// little later, whereas drawing it here lays out its text on the frame path (the card stops
    /// following the finger for that frame). Three quarters gives the thread 80 pt of drag after
    /// the slop: 7 frames at the 12 pt a frame of `bench --scene stack-visit`, and a flick as
    /// fast as `stack-drag` (75 pt a frame, 0.63 in its first moving frame) still waits one
    /// frame for it. Near full opacity the stamp says that a release dismisses: then it shows,
    /// whatever that costs.
    static let stampLeftOutBelow = 0.75

    /// Whether `element` is a stamp to leave out of this frame: not cached, faint, and asked of
    /// the preparation thread (first in its queue). Counted as a stand-in frame; the frame
    /// after the image arrives shows it. Without a preparation thread (`render`, `simulate`,
    /// tests) a stamp is drawn where it is needed, as any image.
    func leavesOutStamp(_ element: SceneElement, key: SurfaceCache.Key, pixelsPerPoint k: Double) -> Bool {
        guard case .stamp = element.kind.unmirrored, let preparer, element.opacity < Self.stampLeftOutBelow,
            preparer.request(key, pixelsPerPoint: k, images: images, urgent: true)
        else { return false }
        stamps.asked.insert(key)
        standInsShown.insert(key)
        frameUsedStandIn = true
        lastFrame.insert(.stampLeftOut)
        return true
    }

    /// Notes which stamp `scene` shows. When a scene shows none after one that did (the card
    /// was released or swiped, or the finger is back where it began), every other stamp leaves
    /// the cache (or the thread's queue): the one shown last stays, so the next drag the same
    /// way draws nothing new, and at rest one stamp is held, not both.
    func noteStamps(in scene: Scene) {
        if let stamp = scene.elements.last(where: { if case .stamp = $0.kind.unmirrored { true } else { false } }) {
            stamps.shown = cacheKey(stamp).0
            return
        }
        stampedCard = nil
        guard let kept = stamps.shown else { return }
        stamps.shown = nil
        let cached = surfaces.entries.keys.filter { key in
            if case .stamp = key.kind.unmirrored { key != kept } else { false }
        }
        for key in cached { _ = surfaces.remove(key) }
        for key in stamps.asked where key != kept && !cached.contains(key) {
            guard let preparer, preparer.isPending(key) else { continue }
            if !preparer.cancel(key) { discardedInFlight.insert(key) }
            standInsShown.remove(key)
        }
        stamps.asked = []
    }
}

/// A swipe stamp blended into a copy of its card's image, so a drag frame samples one turned
/// image instead of two (`SceneRenderer.fuseStamps`). Kept while the same card and stamp show;
/// when the stamp's opacity changes (its fade over the first 120 pt) only the pixels the stamp
/// draws are written again.
final class StampedCard {
    let card: ElementImage
    let stamp: ElementImage
    /// Where the stamp's image lies in the card's (whole pixels).
    let dx: Int
    let dy: Int
    /// The stamp's weight as `Compositor.draw` rounds an opacity (0…256).
    private(set) var weight: Int
    let image: ElementImage

    /// The card's image with `stamp` at (dx, dy) blended in at `weight`; nil when no image can
    /// be allocated. Its measures come from the two images' (no pass over the pixels): the
    /// card's extents, and each band of the card's cut to where the stamp is clear.
    init?(card: ElementImage, stamp: ElementImage, dx: Int, dy: Int, weight: Int, kernel: Compositor.Kernel) {
        guard let buffer = CairoImage(width: card.image.width, height: card.image.height) else { return nil }
        buffer.data.copyMemory(from: card.image.data, byteCount: card.image.byteCount)
        (self.card, self.stamp, self.dx, self.dy, self.weight) = (card, stamp, dx, dy, weight)
        image = ElementImage(
            image: buffer, anchorX: card.anchorX, anchorY: card.anchorY, extents: Self.extents(card, stamp, dx, dy),
            runs: Self.bands(card, stamp, dx, dy))
        blend(kernel: kernel)
    }

    /// Draws the stamp again at `weight` over the card's own pixels.
    func reweigh(_ weight: Int, kernel: Compositor.Kernel) {
        guard weight != self.weight else { return }
        self.weight = weight
        blend(kernel: kernel)
    }

    /// The stamp's drawn columns of each of its rows (its extent, less the clear run inside
    /// it), restored from the card and blended over.
    private func blend(kernel: Compositor.Kernel) {
        let out = image.image.data.assumingMemoryBound(to: UInt32.self)
        let cw = image.image.stride / 4
        let cardPixels = UnsafePointer(card.image.data.assumingMemoryBound(to: UInt32.self))
        let stampPixels = UnsafePointer(stamp.image.data.assumingMemoryBound(to: UInt32.self))
        let sw = stamp.image.stride / 4
        let op = UInt64(weight)
        for j in 0..<stamp.image.height {
            let e = stamp.rows[j]
            guard e.end > e.first else { continue }
            let y = j + dy
            let dst = out + y * cw
            let from = cardPixels + y * cw
            // Indexed by the card's columns.
            let src = stampPixels + j * sw - dx
            let (a, b) = (Int(e.first) + dx, Int(e.end) + dx)
            var spans = [(a, b)]
            let clear = stamp.runs[j].down
            if clear.color == 0 {
                let (p, q) = (max(a, Int(clear.first) + dx), min(b, Int(clear.last) + dx))
                if q > p { spans = [(a, p), (q, b)] }
            }
            for (p, q) in spans where q > p {
                (dst + p).update(from: from + p, count: q - p)
                Compositor.blendInPlace(src, dst: dst, from: p, to: q, opacity: op, kernel: kernel)
            }
        }
        image.image.markDirty()
    }

    /// The card's row extents, widened to the stamp's where it reaches further; the card's
    /// opaque runs (a stamp over an opaque pixel leaves it opaque).
    static func extents(_ card: ElementImage, _ stamp: ElementImage, _ dx: Int, _ dy: Int) -> [RowExtent] {
        (0..<card.image.height).map { y in
            var e = card.rows[y]
            let j = y - dy
            guard j >= 0, j < stamp.image.height else { return e }
            let s = stamp.rows[j]
            guard s.end > s.first else { return e }
            if e.end <= e.first { (e.first, e.end) = (s.first + Int32(dx), s.end + Int32(dx)) }
            e.first = min(e.first, s.first + Int32(dx))
            e.end = max(e.end, s.end + Int32(dx))
            return e
        }
    }

    /// The card's bands, each cut to the stamp's clear band from the same row (its rows and
    /// columns): there the pixels are the card's. A row where the stamp has no clear band has
    /// none.
    static func bands(_ card: ElementImage, _ stamp: ElementImage, _ dx: Int, _ dy: Int) -> [RowRun] {
        let hs = stamp.image.height
        let none = { (y: Int) in RowRun.Band(color: 0, first: 0, last: 0, end: Int32(y)) }
        return (0..<card.image.height).map { y in
            var run = card.runs[y]
            let j = y - dy
            if j < 0 {
                // Above the stamp: down to its first row at most.
                run.down.end = min(run.down.end, Int32(dy - 1))
                return run
            }
            if j >= hs {
                run.up.end = max(run.up.end, Int32(dy + hs))
                return run
            }
            let s = stamp.runs[j]
            func cut(_ band: RowRun.Band, _ clear: RowRun.Band, down: Bool) -> RowRun.Band {
                guard clear.color == 0 else { return none(y) }
                let first = max(band.first, clear.first + Int32(dx))
                let last = min(band.last, clear.last + Int32(dx))
                guard last > first else { return none(y) }
                let end = down ? min(band.end, clear.end + Int32(dy)) : max(band.end, clear.end + Int32(dy))
                return RowRun.Band(color: band.color, first: first, last: last, end: end)
            }
            return RowRun(down: cut(run.down, s.down, down: true), up: cut(run.up, s.up, down: false))
        }
    }
}

extension SceneRenderer {
    /// Replaces each placed stamp and the placed card under it (the element just before it,
    /// with its frame and transform) by one layer: the card's image with the stamp blended in
    /// (`StampedCard`), at the card's placement.
    ///
    /// Both images share the card's placement up to whole pixels (the stamp's image is the
    /// card's without the shadow's margin), so every stamp pixel lands on one card pixel. A
    /// drag frame then turns and samples one image: before, the card-sized stamp was sampled
    /// over the whole card a second time, most of it clear (docs/PERFORMANCE.md, the turned
    /// card, has the figures). The pixels are those of a card whose overlay turns with it (as
    /// SwiftUI draws a view with an overlay under `rotationEffect`), and differ from the two
    /// sampled apart by rounding at the stamp's own pixels (`RenderStampTests`).
    ///
    /// Only elements already placed at `takeIn` are fused; a pair a compose places later is
    /// drawn as two layers.
    func fuseStamps() {
        guard fusesStamps else {
            stampedCard = nil
            return
        }
        for i in moving.indices.dropFirst() {
            guard case .placed(let stampElement, let stampLayers) = moving[i],
                case .stamp = stampElement.kind.unmirrored,
                case .placed(let cardElement, let cardLayers) = moving[i - 1],
                cardElement.frame == stampElement.frame, cardElement.transform == stampElement.transform,
                cardElement.opacity >= 1, cardLayers.count == 1, stampLayers.count == 1,
                let card = cardLayers[0].image, let stamp = stampLayers[0].image,
                let fused = stamped(
                    card, stamp, cardAt: cardLayers[0].placement, stampAt: stampLayers[0].placement,
                    opacity: stampLayers[0].opacity)
            else { continue }
            var layer = cardLayers[0]
            layer.image = fused
            layer.box = layer.box.union(stampLayers[0].box)
            moving[i - 1] = .placed(cardElement, [layer])
            moving[i] = .none
        }
    }

    /// `card` with `stamp` blended in at `opacity`: the kept one, drawn again at a new opacity,
    /// or a new one. nil when the two placements are not one map up to a whole-pixel shift that
    /// puts the stamp inside the card's image, or no image can be allocated.
    private func stamped(
        _ card: ElementImage, _ stamp: ElementImage, cardAt c: Placement, stampAt s: Placement, opacity: Double
    ) -> ElementImage? {
        let dx = card.anchorX - stamp.anchorX
        let dy = card.anchorY - stamp.anchorY
        guard c.offset == nil, s.offset == nil, c.a == s.a, c.b == s.b, c.d == s.d, c.e == s.e,
            dx == dx.rounded(), dy == dy.rounded(), dx >= 0, dy >= 0,
            Int(dx) + stamp.image.width <= card.image.width, Int(dy) + stamp.image.height <= card.image.height
        else { return nil }
        let weight = Int(max(0, min(256, (opacity * 256).rounded())))
        if let kept = stampedCard, kept.card === card, kept.stamp === stamp {
            kept.reweigh(weight, kernel: kernel)
            return kept.image
        }
        stampedCard = StampedCard(card: card, stamp: stamp, dx: Int(dx), dy: Int(dy), weight: weight, kernel: kernel)
        return stampedCard?.image
    }
}
