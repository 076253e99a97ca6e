import CardModel
import KioskSystem

/// Covered cards kept framed (`FramedImage`). A covered card drawn in the frame is drawn framed
/// (`coveredHole`); one drawn whole (on the preparation thread) is framed when the app is next
/// idle, once the still layer holds it and the card above it is not the scene's top card
/// (which a drag turns away): its bare image keeps only the strips around what the card above
/// covers opaquely. A later rebuild of the layer draws the strips; should the card above no
/// longer hide the hole, the card is drawn whole again. In a swipe's close-up, where each card
/// moves up a level under the card above it, the strips stand in for the card until its
/// image at the new level is prepared.
extension SceneRenderer {
    /// An element's image as a frame places it: whole, or framed (strips around a hole).
    struct Shown {
        var image: ElementImage?
        var framed: FramedImage?
        /// Where the whole image goes.
        var placement: Placement

        /// What to draw: the image, or each strip at its place in the whole image.
        var layers: [(image: ElementImage, placement: Placement)] {
            if let image { return [(image, placement)] }
            guard let framed else { return [] }
            return framed.pieces.map { piece in
                var p = placement
                p.c -= Double(piece.x)
                p.f -= Double(piece.y)
                if let o = placement.offset { p.offset = (o.x + piece.x, o.y + piece.y) }
                return (piece.image, p)
            }
        }

        /// The pixels the whole image may write.
        var footprint: PixelRect {
            if let image { return Compositor.footprint(image, at: placement) }
            guard let framed else { return .empty }
            if let o = placement.offset { return PixelRect(x: o.x, y: o.y, width: framed.width, height: framed.height) }
            return layers.reduce(PixelRect.empty) { $0.union(Compositor.footprint($1.image, at: $1.placement)) }
        }
    }

    /// One still element of the layer and its image.
    struct StillPart {
        var element: SceneElement
        var shown: Shown
        /// The key of the bare image a covered card shows; nil when not covered.
        var bareKey: SurfaceCache.Key?
    }

    /// The key of the bare image a covered `element` shows (its whole image is not cached).
    func coveredKey(_ element: SceneElement) -> SurfaceCache.Key? {
        let whole = cacheKey(element).0
        guard !surfaces.contains(whole) else { return nil }
        return Self.bareKey(whole)
    }

    /// A covered element's framed image where its whole image would go; nil when it has none,
    /// or when it would not land on whole pixels.
    func framedPart(_ element: SceneElement) -> StillPart? {
        guard keepsCoveredFramed, let key = coveredKey(element), let framed = surfaces.lookupFramed(key) else {
            return nil
        }
        let c = element.frame.center
        let t = element.transform
        let placement = Placement(
            anchorX: framed.anchorX, anchorY: framed.anchorY, centerX: (c.x + t.translation.x) * scale,
            centerY: (c.y + t.translation.y) * scale, rotation: t.rotation,
            scale: t.scale / Self.contentScale(t.scale))
        guard placement.offset != nil else { return nil }
        return StillPart(element: element, shown: Shown(image: nil, framed: framed, placement: placement), bareKey: key)
    }

    /// The columns of each row of `box` that `part` writes opaque, a framed image counted as
    /// whole (its hole is hidden in turn by the part above it); nil unless it is unturned and
    /// unfaded (a whole image may be placed reduced: the card beneath the top one; a framed one
    /// only on whole pixels).
    func coverSpans(_ part: StillPart, box: PixelRect) -> Compositor.Hidden? {
        guard part.element.opacity >= 1 else { return nil }
        let screen = PixelRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight)
        if let image = part.shown.image {
            return Compositor.opaqueSpans(image, at: part.shown.placement, opacity: 1, clip: box, bounds: screen)
        }
        guard let framed = part.shown.framed, let o = part.shown.placement.offset else { return nil }
        let clip = box.intersection(screen)
        guard !clip.isEmpty else { return nil }
        var hidden = Compositor.Hidden(rows: clip.y..<clip.maxY)
        for (row, e) in framed.extents.enumerated() where o.y + row >= clip.y && o.y + row < clip.maxY {
            hidden.insert(o.y + row, max(clip.x, o.x + Int(e.opaqueFirst)), min(clip.maxX, o.x + Int(e.opaqueEnd)))
        }
        return hidden
    }

    /// `parts` with every framed image whose hole the part above no longer hides drawn whole
    /// again (as a missing image is: here, or on the preparation thread behind a stand-in).
    /// From the top down, so that each hole is checked against the part above as it will be
    /// drawn (a framed part above counts its own hole opaque: the part above it hides that).
    func keepFramedWhereHidden(_ parts: [StillPart], box: PixelRect, frameStart: Int) -> [StillPart] {
        var kept: [StillPart] = []
        for part in parts.reversed() {
            guard let key = part.bareKey, let framed = part.shown.framed, let o = part.shown.placement.offset else {
                kept.append(part)
                continue
            }
            if let above = kept.last, let cover = coverSpans(above, box: box),
                framed.holeIsHidden(by: cover, x: o.x, y: o.y)
            {
                kept.append(part)
                continue
            }
            _ = surfaces.remove(key)
            guard let shown = placed(part.element, frameStart: frameStart, contentsCovered: true) else { continue }
            kept.append(StillPart(element: part.element, shown: shown, bareKey: part.bareKey))
        }
        return kept.reversed()
    }

    /// How far inside what the card above covers a hole stays, in pixels: a framed image
    /// standing in for its card one level up (4 % larger) still has its hole covered.
    static let holeMargin = 3

    /// Notes the bare images of covered cards to keep framed (`framePendingCovered`) with what
    /// the part drawn next covers opaquely; not under `top`, the scene's top card, which a drag
    /// turns away from the card under it.
    func frameCoveredImages(_ parts: [StillPart], box: PixelRect, under top: SceneElement?) {
        // What an earlier rebuild found and no idle moment framed is found again if still covered.
        pendingFrames.removeAll()
        guard keepsCoveredFramed, parts.count > 1 else { return }
        for k in 0..<(parts.count - 1) {
            let part = parts[k]
            guard let image = part.shown.image, let key = part.bareKey, let o = part.shown.placement.offset,
                parts[k + 1].element != top, surfaces.entries[key]?.image === image,
                let cover = coverSpans(parts[k + 1], box: box)
            else { continue }
            pendingFrames.append((key, image, (o.x, o.y), cover))
        }
    }

    /// Keeps framed the covered cards' images the last rebuild of the layer found, where the
    /// cache still holds them, without the middle the card above covers (when that is at least
    /// half the image): the search for the hole, the copy of the strips and their row measures
    /// run when the app is idle, not in a frame.
    func framePendingCovered() {
        guard !pendingFrames.isEmpty else { return }
        for (key, image, o, cover) in pendingFrames where surfaces.entries[key]?.image === image {
            let (w, h) = (image.image.width, image.image.height)
            let found = FramedImage.hole(in: cover, x: o.x, y: o.y, width: w, height: h)
            let m = Self.holeMargin
            let hole = PixelRect(
                x: found.x + m, y: found.y + m, width: found.width - 2 * m, height: found.height - 2 * m)
            guard !hole.isEmpty, 2 * hole.width * hole.height >= w * h else { continue }
            if let framed = FramedImage(image, hole: hole) { surfaces.frame(key, as: framed) }
        }
        pendingFrames.removeAll()
    }
}
