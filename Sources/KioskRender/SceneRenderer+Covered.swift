import CardModel

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
