import CPangoCairo
import CardModel

/// Where a stack card's title, subtitle and watermark go, and whether any text is cut.
///
/// The seed's card is a `VStack(spacing: 16)` of a `.title2` bold title and a `.body`
/// subtitle over a faint `.largeTitle` "</>". Here the title may take up to three lines, the
/// subtitle everything below it down to the card's padding, and the watermark is drawn only
/// where no text reaches. `check-deck` asks the same question, so what it warns about is what
/// a visitor would see cut.
package struct CardTextFit: Hashable, Sendable {
    /// Inner padding of the card's text, in points.
    package static let padding = 24.0
    /// The photo covers this share of the card's height.
    package static let imageShare = 0.45
    /// At most this many title lines.
    package static let titleLines = 3
    /// The watermark's centre sits this far above the bottom edge plus half its size.
    static let watermarkInset = 24.0

    package var textTop: Double
    package var titleHeight: Double
    package var subtitleTop: Double
    /// The room the subtitle has.
    package var subtitleRoom: Double
    package var subtitleHeight: Double
    package var titleIsCut: Bool
    package var subtitleIsCut: Bool
    /// False when the text reaches down to where the watermark would be.
    package var showsWatermark: Bool
    /// The photo's height (0 without one).
    package var imageHeight: Double

    package var watermarkSize: Double { Text.largeTitleSize }
    package var watermarkCentreY: Double = 0

    static func titleStyle(_ card: Card) -> Text.Style {
        Text.Style(size: Text.titleSize * scale(card), weight: .bold, color: card.accent, maxLines: titleLines)
    }

    static func subtitleStyle(_ card: Card) -> Text.Style {
        Text.Style(size: Text.bodySize * scale(card), color: card.subtitleColor)
    }

    /// The least side of the card's code: the stack's, else 25 mm at 160 dpi.
    static func linkCodeSide(_ card: Card) -> Double {
        card.linkCodeSide > 0 ? card.linkCodeSide : LinkCode.side(pointsPerMillimetre: nil)
    }

    /// The card's text scale (large text: 1.5), kept to a sane range.
    static func scale(_ card: Card) -> Double {
        card.textScale.isFinite ? min(max(card.textScale, 0.5), 3) : 1
    }

    /// Measures `card` on a card of `size` points with `cr`'s font setup (any context will do:
    /// metrics are unhinted, so the result does not depend on its scale).
    package static func measure(_ card: Card, size: Size, cr: OpaquePointer) -> CardTextFit {
        let pad = padding
        let w = size.width
        let h = size.height
        let imageHeight = card.imagePath == nil ? 0 : (h * imageShare).rounded()
        let textTop = card.imagePath == nil ? pad : imageHeight + 20
        let title = Text.measure(card.title, cr: cr, width: w - 2 * pad, style: titleStyle(card))
        let subtitleTop = textTop + title.height + (card.subtitle.isEmpty ? 0 : Text.titleSpacing * scale(card))
        // A link's code and caption sit at the foot; the subtitle ends above them.
        let codeRoom =
            card.link.flatMap { ElementPainter.linkCodeSide($0, side: linkCodeSide(card), cr: cr) }
            .map { $0 + LinkCode.captionGap + LinkCode.captionHeight + 12 } ?? 0
        let room = max(0, h - subtitleTop - pad - codeRoom)
        let subtitle = Text.measure(
            card.subtitle, cr: cr, width: w - 2 * pad, maxHeight: room, style: subtitleStyle(card))
        let bottom = subtitleTop + subtitle.height
        let wm = Text.largeTitleSize
        let wmTop = h - watermarkInset - wm
        var fit = CardTextFit(
            textTop: textTop, titleHeight: title.height, subtitleTop: subtitleTop, subtitleRoom: room,
            subtitleHeight: subtitle.height, titleIsCut: title.isCut, subtitleIsCut: subtitle.isCut,
            showsWatermark: card.link == nil && bottom <= wmTop - 8, imageHeight: imageHeight)
        fit.watermarkCentreY = h - watermarkInset - wm / 2
        return fit
    }

    /// `measure` on a scratch surface, for callers without a cairo context (check-deck).
    package static func measure(_ card: Card, size: Size) -> CardTextFit {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        return measure(card, size: size, cr: cr)
    }
}
