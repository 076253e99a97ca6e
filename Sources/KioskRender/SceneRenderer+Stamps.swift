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
        dropStampedCard()
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

/// A swipe stamp blended into its card's own image, so a drag frame samples one turned image
/// instead of two (`SceneRenderer.fuseStamps`). The card's pixels under the stamp's drawn ones and
/// its measures are kept aside and put back (`restore`) before the image is used without the
/// stamp: a copy would be a second card-sized image (2.32 MB at 1920×1080; the probe's peak 33.5
/// MB against 31). When the stamp's opacity changes (its fade over the first 120 pt) only the
/// stamp's drawn pixels are written again.
final class StampedCard {
    let card: ElementImage
    let stamp: ElementImage
    /// Where the stamp's image lies in the card's (whole pixels).
    let dx: Int
    let dy: Int
    /// The stamp's weight as `Compositor.draw` rounds an opacity (0…256), while applied.
    private(set) var weight = -1
    /// Whether the card's image holds the stamp now.
    private(set) var applied = false
    /// The card's columns of each row where the stamp draws (its extent less its clear run).
    private let spans: [(y: Int, from: Int, to: Int)]
    /// The card's own pixels there, span after span.
    private let saved: UnsafeMutablePointer<UInt32>
    private let savedCount: Int
    private let own: (extents: [RowExtent], runs: [RowRun])
    private let stamped: (extents: [RowExtent], runs: [RowRun])

    /// The card's image with `stamp` at (dx, dy) (not applied yet).
    init(card: ElementImage, stamp: ElementImage, dx: Int, dy: Int) {
        (self.card, self.stamp, self.dx, self.dy) = (card, stamp, dx, dy)
        var spans: [(y: Int, from: Int, to: Int)] = []
        for j in 0..<stamp.image.height {
            let e = stamp.rows[j]
            guard e.end > e.first else { continue }
            let (a, b) = (Int(e.first), Int(e.end))
            // The wider of the row's clear bands (the inside of the stamp's outline): its measures,
            // no pass over its pixels.
            let r = stamp.runs[j]
            let upWider = r.up.last - r.up.first > r.down.last - r.down.first
            let clear = r.down.color != 0 || (r.up.color == 0 && upWider) ? r.up : r.down
            if clear.color == 0, clear.last > clear.first {
                spans.append((j + dy, a + dx, max(a, Int(clear.first)) + dx))
                spans.append((j + dy, min(b, Int(clear.last)) + dx, b + dx))
            } else {
                spans.append((j + dy, a + dx, b + dx))
            }
        }
        self.spans = spans.filter { $0.to > $0.from }
        savedCount = self.spans.reduce(0) { $0 + $1.to - $1.from }
        saved = .allocate(capacity: max(1, savedCount))
        let h = card.image.height
        let ownExtents = Array(UnsafeBufferPointer(start: card.rows, count: h))
        own = (ownExtents, Array(UnsafeBufferPointer(start: card.runs, count: h)))
        stamped = (Self.extents(card, stamp, dx, dy), Self.bands(card, stamp, dx, dy))
        // The card's own pixels, kept before any blend.
        forEachSpan { dst, _, kept, from, to in kept.update(from: dst + from, count: to - from) }
    }

    deinit {
        restore()
        saved.deallocate()
    }

    /// Calls `body` with each span's row of the card's image and of the stamp's (both indexed by
    /// the card's columns), its part of `saved`, and its columns.
    private func forEachSpan(
        _ body: (UnsafeMutablePointer<UInt32>, UnsafePointer<UInt32>, UnsafeMutablePointer<UInt32>, Int, Int) -> Void
    ) {
        let pixels = card.image.data.assumingMemoryBound(to: UInt32.self)
        let cw = card.image.stride / 4
        let stampPixels = UnsafePointer(stamp.image.data.assumingMemoryBound(to: UInt32.self))
        let sw = stamp.image.stride / 4
        var kept = saved
        for s in spans {
            body(pixels + s.y * cw, stampPixels + (s.y - dy) * sw - dx, kept, s.from, s.to)
            kept += s.to - s.from
        }
    }

    /// Blends the stamp into the card's image at `weight` (over the card's own pixels) and gives
    /// it the measures of the two together.
    func apply(weight: Int, kernel: Compositor.Kernel) {
        if applied && weight == self.weight { return }
        let op = UInt64(weight)
        forEachSpan { dst, src, kept, from, to in
            if applied { (dst + from).update(from: kept, count: to - from) }
            Compositor.blendInPlace(src, dst: dst, from: from, to: to, opacity: op, kernel: kernel)
        }
        if !applied {
            card.rows.update(from: stamped.extents, count: stamped.extents.count)
            card.runs.update(from: stamped.runs, count: stamped.runs.count)
        }
        card.image.markDirty()
        (applied, self.weight) = (true, weight)
    }

    /// Puts the card's own pixels and measures back.
    func restore() {
        guard applied else { return }
        forEachSpan { dst, _, kept, from, to in (dst + from).update(from: kept, count: to - from) }
        card.rows.update(from: own.extents, count: own.extents.count)
        card.runs.update(from: own.runs, count: own.runs.count)
        card.image.markDirty()
        applied = false
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
    /// drawn as two layers, the card's image as it is without the stamp.
    func fuseStamps() {
        var fused = false
        for i in moving.indices.dropFirst() where fusesStamps {
            guard case .placed(let stampElement, let stampLayers) = moving[i],
                case .stamp = stampElement.kind.unmirrored,
                case .placed(let cardElement, let cardLayers) = moving[i - 1],
                cardElement.frame == stampElement.frame, cardElement.transform == stampElement.transform,
                cardElement.opacity >= 1, cardLayers.count == 1, stampLayers.count == 1,
                let card = cardLayers[0].image, let stamp = stampLayers[0].image,
                stamped(
                    card, stamp, cardAt: cardLayers[0].placement, stampAt: stampLayers[0].placement,
                    opacity: stampLayers[0].opacity)
            else { continue }
            var layer = cardLayers[0]
            layer.box = layer.box.union(stampLayers[0].box)
            moving[i - 1] = .placed(cardElement, [layer])
            moving[i] = .none
            fused = true
            break
        }
        if !fused { stampedCard?.restore() }
    }

    /// Puts a stamped card's own pixels back and forgets it.
    func dropStampedCard() {
        stampedCard?.restore()
        stampedCard = nil
    }

    /// Blends `stamp` into `card`'s image at `opacity` (`StampedCard`); false when the two
    /// placements are not one map up to a whole-pixel shift that puts the stamp inside the card's
    /// image.
    private func stamped(
        _ card: ElementImage, _ stamp: ElementImage, cardAt c: Placement, stampAt s: Placement, opacity: Double
    ) -> Bool {
        let dx = card.anchorX - stamp.anchorX
        let dy = card.anchorY - stamp.anchorY
        guard c.offset == nil, s.offset == nil, c.a == s.a, c.b == s.b, c.d == s.d, c.e == s.e,
            dx == dx.rounded(), dy == dy.rounded(), dx >= 0, dy >= 0,
            Int(dx) + stamp.image.width <= card.image.width, Int(dy) + stamp.image.height <= card.image.height
        else { return false }
        let weight = Int(max(0, min(256, (opacity * 256).rounded())))
        if let kept = stampedCard, kept.card !== card || kept.stamp !== stamp { dropStampedCard() }
        let kept = stampedCard ?? StampedCard(card: card, stamp: stamp, dx: Int(dx), dy: Int(dy))
        stampedCard = kept
        kept.apply(weight: weight, kernel: kernel)
        return true
    }
}
