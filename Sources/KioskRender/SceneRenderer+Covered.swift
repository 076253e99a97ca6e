import CardModel
import KioskSystem

/// Cards whose contents no one can see: on a resting stack every card below the top one lies
/// inside the card above it (8 pt lower, 4 % smaller), so only its edge and shadow reach the
/// screen. Such a card is drawn bare (its fills and shadow, no text, photo or watermark) until
/// its whole image is drawn for another reason: the same pixels on screen, and no text laid
/// out for it (a start draws one card's text instead of four).
extension SceneRenderer {
    /// Room for ink beyond a card's text box (accents, overhanging glyphs), in points.
    static let contentSlack = 4.0

    /// `kind` without what a covering card hides: the same card with no title, subtitle or
    /// photo (its fills, watermark and shadow stay). nil for anything but a card.
    static func withoutContents(_ kind: ElementKind) -> ElementKind? {
        guard case .card(let card) = kind.unmirrored else { return nil }
        return kind != kind.unmirrored ? ElementKind.card(bare(card)).mirrored : .card(bare(card))
    }

    /// `card` with no title, subtitle or photo: its fills and watermark only.
    static func bare(_ card: Card) -> Card {
        var card = card
        (card.title, card.subtitle, card.imagePath) = ("", "", nil)
        return card
    }

    /// The key of `key`'s bare image; nil when it has none or is bare already.
    static func bareKey(_ key: SurfaceCache.Key) -> SurfaceCache.Key? {
        guard let kind = withoutContents(key.kind), kind != key.kind else { return nil }
        var bare = key
        bare.kind = kind
        return bare
    }

    /// Whether the contents of `elements[i]` (a card) lie inside the opaque part of a card
    /// drawn after it, at least two pixels in from its edge. Only unturned cards of full
    /// opacity on an opaque background count as covers, and only cards whose text cannot grow
    /// past their box (text scale up to 1.5) as covered.
    static func contentsCovered(_ elements: [SceneElement], at i: Int, scale: Double, background: Color) -> Bool {
        guard background.alpha >= 1, elements.indices.contains(i) else { return false }
        let e = elements[i]
        guard case .card(let card) = e.kind.unmirrored, e.transform.rotation == 0, CardTextFit.scale(card) <= 1.5
        else { return false }
        let content = contentRect(card, size: e.frame.size)
        let corners = [
            Point(x: content.minX, y: content.minY), Point(x: content.maxX, y: content.minY),
            Point(x: content.minX, y: content.maxY), Point(x: content.maxX, y: content.maxY),
        ].map { onScreen($0, of: e) }
        let margin = 2 / scale
        for o in elements[(i + 1)...] {
            guard case .card = o.kind.unmirrored, o.opacity >= 1, o.transform.rotation == 0 else { continue }
            let s = o.transform.scale
            let centre = Point(
                x: o.frame.center.x + o.transform.translation.x, y: o.frame.center.y + o.transform.translation.y)
            let half = Size(width: o.frame.width / 2 * s - margin, height: o.frame.height / 2 * s - margin)
            let radius = max(0, ElementPainter.cornerRadius(o.kind) * s - margin)
            if corners.allSatisfy({ insideRoundedRect($0, centre: centre, half: half, radius: radius) }) { return true }
        }
        return false
    }

    /// The pixels of `elements[i]`'s image (a covered card's, placed on whole pixels) that the
    /// next card drawn after it covers opaquely: that card's outline on screen inset by two
    /// pixels (three when it is placed reduced from a larger image, for the bilinear sampler's
    /// spread) and by as much again as its corners cut off a rectangle (r·(1 − 1/√2)), in whole
    /// pixels, in the image's coordinates. Empty when that card is not an unturned, fully
    /// opaque card, or `elements[i]` is not placed on whole pixels at its own scale: then
    /// nothing is left out.
    ///
    /// Why the next card and not any: on a stack it is the card above, which stays put when the
    /// top card is dragged, so the still layer then rebuilt (the cards below the dragged one)
    /// reuses the framed image; one whose hole the cover of the moment does not hide is drawn
    /// again (`keepFramedWhereHidden`).
    func coveredHole(_ elements: [SceneElement], at i: Int) -> PixelRect {
        guard elements.indices.contains(i),
            let cover = elements[(i + 1)...].first(where: { if case .card = $0.kind.unmirrored { true } else { false } }
            ),
            cover.opacity >= 1, cover.transform.rotation == 0, let own = outline(elements[i])
        else { return .empty }
        let placedOutline = outline(cover)
        let coverOutline = placedOutline.map { (rect: $0.rect, k: $0.k) } ?? reducedOutline(cover)
        let r = ElementPainter.cornerRadius(cover.kind) * coverOutline.k
        let inset = (placedOutline == nil ? 3 : 2) + r * (1 - 0.5.squareRoot())
        let x0 = Int((coverOutline.rect.minX + inset).rounded(.up))
        let y0 = Int((coverOutline.rect.minY + inset).rounded(.up))
        let x1 = Int((coverOutline.rect.maxX - inset).rounded(.down))
        let y1 = Int((coverOutline.rect.maxY - inset).rounded(.down))
        guard x1 > x0, y1 > y0 else { return .empty }
        let hole = PixelRect(x: x0 - own.offset.x, y: y0 - own.offset.y, width: x1 - x0, height: y1 - y0)
        return hole.intersection(PixelRect(x: 0, y: 0, width: own.size.width, height: own.size.height))
    }

    /// Where `e`'s image goes when it is placed on whole pixels (unturned, at its own scale):
    /// its top-left on screen, its size, and the card's outline on screen (pixels) at `k`
    /// pixels per point. nil otherwise.
    private func outline(_ e: SceneElement) -> (offset: (x: Int, y: Int), size: PixelRect, rect: Rect, k: Double)? {
        let (key, k) = cacheKey(e)
        let l = ElementSurface.layout(for: e.frame.size, shadowRadius: Double(key.shadowRadius), pixelsPerPoint: k)
        let c = e.frame.center
        let t = e.transform
        let placement = Placement(
            anchorX: l.anchorX, anchorY: l.anchorY, centerX: (c.x + t.translation.x) * scale,
            centerY: (c.y + t.translation.y) * scale, rotation: t.rotation, scale: t.scale / Self.contentScale(t.scale))
        guard let o = placement.offset else { return nil }
        let rect = Rect(
            x: Double(o.x + l.originX), y: Double(o.y + l.originY), width: e.frame.width * k,
            height: e.frame.height * k)
        return (o, PixelRect(x: 0, y: 0, width: l.width, height: l.height), rect, k)
    }

    /// `e`'s card outline on screen (pixels) and its pixels per point there, wherever its image
    /// is placed (unturned): a card placed reduced from a larger image (the card beneath the top
    /// one, `contentScale`) lands on no whole pixel.
    private func reducedOutline(_ e: SceneElement) -> (rect: Rect, k: Double) {
        let k = scale * e.transform.scale
        let c = e.frame.center
        let t = e.transform.translation
        let rect = Rect(
            x: (c.x + t.x) * scale - e.frame.width / 2 * k, y: (c.y + t.y) * scale - e.frame.height / 2 * k,
            width: e.frame.width * k, height: e.frame.height * k)
        return (rect, k)
    }

    /// Where a card's title, subtitle, watermark and photo can draw, in points from its
    /// frame's corner: the text box (`CardTextFit.padding`) with slack; a photo spans the
    /// card's width from its top.
    static func contentRect(_ card: Card, size: Size) -> Rect {
        let inset = CardTextFit.padding - contentSlack
        let top = card.imagePath == nil ? inset : 0
        let side = card.imagePath == nil ? inset : 0
        return Rect(x: side, y: top, width: size.width - 2 * side, height: size.height - inset - top)
    }

    /// `p` (points from `e`'s frame corner) on screen, in points: scaled about the frame's
    /// centre, then moved (`e` is unturned).
    private static func onScreen(_ p: Point, of e: SceneElement) -> Point {
        let c = e.frame.center
        let s = e.transform.scale
        let local = Point(x: e.frame.minX + p.x - c.x, y: e.frame.minY + p.y - c.y)
        return Point(
            x: c.x + e.transform.translation.x + local.x * s, y: c.y + e.transform.translation.y + local.y * s)
    }

    /// Whether `p` lies inside the rounded rectangle of `half` sizes about `centre`.
    static func insideRoundedRect(_ p: Point, centre: Point, half: Size, radius: Double) -> Bool {
        let dx = abs(p.x - centre.x)
        let dy = abs(p.y - centre.y)
        guard half.width > 0, half.height > 0, dx <= half.width, dy <= half.height else { return false }
        let r = min(radius, half.width, half.height)
        let qx = dx - (half.width - r)
        let qy = dy - (half.height - r)
        return qx <= 0 || qy <= 0 || qx * qx + qy * qy <= r * r
    }
}
