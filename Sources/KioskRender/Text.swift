import CPangoCairo
import CardModel
import KioskSystem

/// Text drawing through pango (HarfBuzz shaping, fontconfig fallback for scripts and emoji).
///
/// Sizes are in points of the cairo context's user space (the painter draws in points with
/// the scale already on the context). Paragraph direction comes from the text itself, so an
/// Arabic or Hebrew title starts at the right edge.
package enum Text {
    /// The families tried first; fontconfig falls back per character beyond them
    /// (Noto Sans Arabic, Noto Sans CJK, Noto Color Emoji, DejaVu…).
    static let families = "Noto Sans, DejaVu Sans, sans-serif"

    package enum Weight {
        case regular, semibold, bold
    }

    package struct Style {
        package var size: Double
        package var weight: Weight = .regular
        package var color: Color
        /// At most this many lines; the last one ends in "…" when the text is longer. 0: no limit.
        package var maxLines: Int = 0
        package var alignment: PangoAlignment = PANGO_ALIGN_LEFT

        package init(
            size: Double, weight: Weight = .regular, color: Color, maxLines: Int = 0,
            alignment: PangoAlignment = PANGO_ALIGN_LEFT
        ) {
            self.size = size
            self.weight = weight
            self.color = color
            self.maxLines = maxLines
            self.alignment = alignment
        }
    }

    /// Title size of the SwiftUI designs (SwiftUI `.title`, bold).
    static let titleSize = 28.0
    /// Body size (SwiftUI `.body`).
    static let bodySize = 17.0

    /// Lays out `text` wrapped to `width` points (and clipped with an ellipsis to `maxHeight`,
    /// when given); draws it with its top-left at (x, y) unless `draw` is false.
    /// Returns the laid-out height in points.
    @discardableResult
    package static func show(
        _ text: String, cr: OpaquePointer, x: Double, y: Double, width: Double, maxHeight: Double? = nil,
        style: Style, draw: Bool = true
    ) -> Double {
        guard !text.isEmpty, width > 0 else { return 0 }
        let layout = pango_cairo_create_layout(cr)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        configure(layout, cr: cr)
        let desc = pango_font_description_from_string(families)!
        defer { pango_font_description_free(desc) }
        switch style.weight {
        case .regular: pango_font_description_set_weight(desc, PANGO_WEIGHT_NORMAL)
        case .semibold: pango_font_description_set_weight(desc, PANGO_WEIGHT_SEMIBOLD)
        case .bold: pango_font_description_set_weight(desc, PANGO_WEIGHT_BOLD)
        }
        pango_font_description_set_absolute_size(desc, style.size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, desc)
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_alignment(layout, style.alignment)
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        if style.maxLines > 0 {
            pango_layout_set_height(layout, Int32(-style.maxLines))
        } else if let maxHeight {
            pango_layout_set_height(layout, Int32(max(0, maxHeight) * Double(PANGO_SCALE)))
        } else {
            pango_layout_set_height(layout, -1_000)
        }
        pango_layout_set_text(layout, text, -1)
        var ink = PangoRectangle()
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, &ink, &logical)
        let height = Double(logical.height) / Double(PANGO_SCALE)
        if draw {
            Draw.setColor(cr, style.color)
            cairo_move_to(cr, x, y)
            pango_cairo_show_layout(cr, layout)
        }
        return height
    }

    /// Grey antialiasing (cards are rotated, so no subpixel order), no hinting of metrics so
    /// a layout wraps the same at every scale.
    private static func configure(_ layout: OpaquePointer, cr: OpaquePointer) {
        let options = cairo_font_options_create()!
        defer { cairo_font_options_destroy(options) }
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
        let context = pango_layout_get_context(layout)
        pango_cairo_context_set_font_options(context, options)
        pango_layout_context_changed(layout)
    }
}
