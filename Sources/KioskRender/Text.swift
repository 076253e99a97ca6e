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
    static let families = "Noto Sans, Noto Sans Arabic, DejaVu Sans, sans-serif"

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

    /// The seed's text styles at Apple's default (Large) Dynamic Type sizes, in points.
    /// `.title2` bold: a card's title.
    static let titleSize = 22.0
    /// `.body`: a card's subtitle, a row's headline.
    static let bodySize = 17.0
    /// `.largeTitle`: the list's navigation title and the card's "</>" watermark.
    static let largeTitleSize = 34.0
    /// The seed's `VStack(spacing: 16)` between a card's title and subtitle.
    static let titleSpacing = 16.0

    /// How a text came out: its laid-out height in points and whether pango had to cut it
    /// (an ellipsis at the line or height limit).
    package struct Measure: Hashable, Sendable {
        package var height: Double
        /// The widest line's logical width.
        package var width: Double = 0
        package var isCut: Bool
    }

    /// Lays out `text` wrapped to `width` points (and clipped with an ellipsis to `maxHeight`,
    /// when given); draws it with its top-left at (x, y) unless `draw` is false.
    /// Returns the laid-out height in points.
    @discardableResult
    package static func show(
        _ text: String, cr: OpaquePointer, x: Double, y: Double, width: Double, maxHeight: Double? = nil,
        style: Style, draw: Bool = true
    ) -> Double {
        measure(text, cr: cr, x: x, y: y, width: width, maxHeight: maxHeight, style: style, draw: draw).height
    }

    /// `show`, also telling whether the text was cut.
    @discardableResult
    package static func measure(
        _ text: String, cr: OpaquePointer, x: Double = 0, y: Double = 0, width: Double, maxHeight: Double? = nil,
        style: Style, draw: Bool = false, adoptingWarmUp: Bool = true
    ) -> Measure {
        guard !text.isEmpty, width > 0 else { return Measure(height: 0, width: 0, isCut: false) }
        return inDevicePixels(cr) { k in
            let layout = makeLayout(
                text, cr: cr, width: width * k, maxHeight: maxHeight.map { $0 * k }, style: style, scale: k,
                adoptingWarmUp: adoptingWarmUp)
            defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
            var ink = PangoRectangle()
            var logical = PangoRectangle()
            pango_layout_get_extents(layout, &ink, &logical)
            if draw {
                Draw.setColor(cr, style.color)
                if isMirrored(cr) {
                    // Inside a mirrored (right-to-left) element: flip back within the text's own
                    // box, so the glyphs read normally and the box stays where the mirror put it.
                    cairo_save(cr)
                    cairo_translate(cr, (x + width) * k, y * k)
                    cairo_scale(cr, -1, 1)
                    cairo_move_to(cr, 0, 0)
                    pango_cairo_update_layout(cr, layout)
                    pango_cairo_show_layout(cr, layout)
                    cairo_restore(cr)
                } else {
                    cairo_move_to(cr, x * k, y * k)
                    pango_cairo_show_layout(cr, layout)
                }
            }
            let units = Double(PANGO_SCALE) * k
            return Measure(
                height: Double(logical.height) / units, width: Double(logical.width) / units,
                isCut: pango_layout_is_ellipsized(layout) != 0)
        }
    }

    /// Runs `body` with `cr`'s user space scaled to device pixels (its rotation and mirror
    /// kept), passing the pixels per point it took away, and gives `cr` back as it was (its
    /// source colour too). Text is laid out at its size in pixels on an unscaled space: pango
    /// measures a font's metrics by laying out a sample in the font's pixel size on a context of
    /// its own, and on a scaled space it would scale that size again, opening a second, larger
    /// font for every size.
    private static func inDevicePixels<R>(_ cr: OpaquePointer, _ body: (Double) -> R) -> R {
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        let scale = abs(m.xx * m.yy - m.xy * m.yx).squareRoot()
        let k = scale.isFinite && scale > 0 ? scale : 1
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_scale(cr, 1 / k, 1 / k)
        return body(k)
    }

    /// The x of every glyph's origin on the first line, in points from the layout's left edge,
    /// as the painter would place them on `cr` (for the glyph-spacing test).
    package static func glyphOrigins(_ text: String, cr: OpaquePointer, style: Style) -> [Double] {
        inDevicePixels(cr) { k in
            let layout = makeLayout(text, cr: cr, width: 100_000 * k, maxHeight: nil, style: style, scale: k)
            defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
            guard let line = pango_layout_get_line_readonly(layout, 0) else { return [] }
            var origins: [Double] = []
            var x = 0
            var run = line.pointee.runs
            while let node = run {
                if let item = node.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self),
                    let glyphs = item.pointee.glyphs
                {
                    for i in 0..<Int(glyphs.pointee.num_glyphs) {
                        let g = glyphs.pointee.glyphs[i]
                        origins.append(Double(x + Int(g.geometry.x_offset)) / (Double(PANGO_SCALE) * k))
                        x += Int(g.geometry.width)
                    }
                }
                run = node.pointee.next
            }
            return origins
        }
    }

    /// How many characters of `text` no installed font has (drawn as boxes, "tofu").
    package static func unknownGlyphCount(_ text: String, cr: OpaquePointer, style: Style) -> Int {
        inDevicePixels(cr) { k in
            let layout = makeLayout(text, cr: cr, width: 100_000 * k, maxHeight: nil, style: style, scale: k)
            defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
            return Int(pango_layout_get_unknown_glyphs_count(layout))
        }
    }

    /// Whether `cr` draws mirrored (a right-to-left element, `ElementKind.mirrored`): its
    /// user space has a negative determinant.
    package static func isMirrored(_ cr: OpaquePointer) -> Bool {
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        return m.xx * m.yy - m.xy * m.yx < 0
    }

    /// A layout of `text` on `cr`'s font map: this thread's default, which is the one
    /// `FontWarmUp` prepared when this is the first thread to lay out text after its start
    /// (`adoptingWarmUp`: false on the warm-up's own thread). `cr` draws in device pixels
    /// (`inDevicePixels`): `width` and `maxHeight` are pixels, `k` the pixels per point of `style`.
    private static func makeLayout(
        _ text: String, cr: OpaquePointer, width: Double, maxHeight: Double?, style: Style, scale k: Double,
        adoptingWarmUp: Bool = true
    ) -> OpaquePointer {
        if adoptingWarmUp { FontWarmUp.process.adopt() }
        let layout = pango_cairo_create_layout(cr)!
        configure(layout, cr: cr)
        let desc = pango_font_description_from_string(families)!
        defer { pango_font_description_free(desc) }
        switch style.weight {
        case .regular: pango_font_description_set_weight(desc, PANGO_WEIGHT_NORMAL)
        case .semibold: pango_font_description_set_weight(desc, PANGO_WEIGHT_SEMIBOLD)
        case .bold: pango_font_description_set_weight(desc, PANGO_WEIGHT_BOLD)
        }
        pango_font_description_set_absolute_size(desc, style.size * k * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, desc)
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        // Mirrored (right to left): "left" means the start of the line, the right edge.
        let mirrored = isMirrored(cr)
        let alignment =
            !mirrored
            ? style.alignment
            : style.alignment == PANGO_ALIGN_LEFT
                ? PANGO_ALIGN_RIGHT
                : style.alignment == PANGO_ALIGN_RIGHT ? PANGO_ALIGN_LEFT : style.alignment
        pango_layout_set_alignment(layout, alignment)
        if mirrored {
            // The whole element is right to left: the paragraph's base direction is RTL for
            // every text in it (a Latin product name too), so "left" alignment is the right
            // edge and neutral characters (punctuation, digits) order as in Arabic.
            pango_context_set_base_dir(pango_layout_get_context(layout), PANGO_DIRECTION_RTL)
            pango_layout_set_auto_dir(layout, 0)
            pango_layout_context_changed(layout)
        }
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        if style.maxLines > 0 {
            pango_layout_set_height(layout, Int32(-style.maxLines))
        } else if let maxHeight {
            pango_layout_set_height(layout, Int32(max(0, maxHeight) * Double(PANGO_SCALE)))
        } else {
            pango_layout_set_height(layout, -1_000)
        }
        pango_layout_set_text(layout, text, -1)
        return layout
    }

    /// Type as Apple sets it: grey antialiasing (cards are rotated, so no subpixel order),
    /// unhinted metrics and glyphs placed at fractional positions (no rounding to whole device
    /// pixels, which made "wen n du wei ter"), only slight outline hinting. A layout therefore
    /// wraps and spaces the same at every scale.
    private static func configure(_ layout: OpaquePointer, cr: OpaquePointer) {
        let options = cairo_font_options_create()!
        defer { cairo_font_options_destroy(options) }
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
        let context = pango_layout_get_context(layout)
        pango_cairo_context_set_font_options(context, options)
        pango_context_set_round_glyph_positions(context, 0)
        // The language pango gives Latin text anyway; left unset it would be the C locale's,
        // whose font set pango matches and sorts once more for the same font (other scripts
        // still get their own language: "en" covers only Latin).
        pango_context_set_language(context, pango_language_from_string("en"))
        pango_layout_context_changed(layout)
    }
}
