import CPangoCairo
import CardModel
import KioskTestSupport
import Testing

@testable import KioskRender

/// Type set as Apple sets it: unhinted metrics, glyphs at fractional positions.
@Suite struct RenderTypeTests {
    static let sample = "Schön, dass du da bist. Wische nach rechts, wenn du weiter willst."

    /// Glyph origins of `text` from pango alone (no cairo context, no Text configuration):
    /// a context of the default cairo font map with hinting of metrics off and unrounded
    /// positions, at `size` points on an unscaled device.
    static func referenceOrigins(_ text: String, size: Double) -> [Double] {
        let fontMap = pango_cairo_font_map_get_default()!
        let context = pango_font_map_create_context(fontMap)!
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        let options = cairo_font_options_create()!
        defer { cairo_font_options_destroy(options) }
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        pango_cairo_context_set_font_options(context, options)
        pango_context_set_round_glyph_positions(context, 0)
        let layout = pango_layout_new(context)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let desc = pango_font_description_from_string(Text.families)!
        defer { pango_font_description_free(desc) }
        pango_font_description_set_absolute_size(desc, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, desc)
        pango_layout_set_text(layout, text, -1)
        var origins: [Double] = []
        var x = 0
        var run = pango_layout_get_line_readonly(layout, 0)?.pointee.runs
        while let node = run {
            if let item = node.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self),
                let glyphs = item.pointee.glyphs
            {
                for i in 0..<Int(glyphs.pointee.num_glyphs) {
                    origins.append(Double(x + Int(glyphs.pointee.glyphs[i].geometry.x_offset)) / Double(PANGO_SCALE))
                    x += Int(glyphs.pointee.glyphs[i].geometry.width)
                }
            }
            run = node.pointee.next
        }
        return origins
    }

    /// At the panel scales the kiosk uses, every glyph of the body text lands within 0.1
    /// device pixel of pango's unhinted layout, so spacing is even ("wenn du weiter", not
    /// "wen n du wei ter" as with hinted metrics and whole-pixel positions).
    @Test(arguments: [0.635, 0.8, 1.0, 1.333, 2.0])
    func glyphOriginsMatchPangosUnhintedLayout(scale: Double) throws {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 64, 64)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        cairo_scale(cr, scale, scale)
        let style = Text.Style(size: Text.bodySize, color: .white)
        let shown = Text.glyphOrigins(Self.sample, cr: cr, style: style)
        let reference = Self.referenceOrigins(Self.sample, size: Text.bodySize)
        try #require(shown.count == reference.count && shown.count > 40)
        var worst = 0.0
        for (a, b) in zip(shown, reference) { worst = max(worst, abs(a - b) * scale) }
        #expect(worst < 0.1, "worst glyph offset \(worst) px at \(scale) px/pt")
    }

    /// CJK and emoji have fonts (fonts-noto-cjk, fonts-noto-color-emoji): no tofu. The golden
    /// `text-cjk-emoji` shows the same line.
    @Test func cjkAndEmojiHaveFonts() {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 8, 8)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        let style = Text.Style(size: Text.bodySize, color: .white)
        #expect(Text.unknownGlyphCount(RenderFixtures.cjkEmoji.subtitle, cr: cr, style: style) == 0)
        #expect(Text.unknownGlyphCount(RenderFixtures.cjkEmoji.title, cr: cr, style: style) == 0)
        // The check can fail: a private-use character has no font.
        #expect(Text.unknownGlyphCount("\u{F0000}", cr: cr, style: style) > 0)
    }

    /// The seed's type ramp, in points.
    @Test func textStylesAreTheSeeds() {
        #expect(Text.titleSize == 22)
        #expect(Text.bodySize == 17)
        #expect(Text.largeTitleSize == 34)
        #expect(Text.titleSpacing == 16)
    }

    /// A title takes up to three lines, the subtitle the rest of the card, and the watermark
    /// is left out when the text reaches it.
    @Test func cardTextFitsTheCard() {
        let size = StackLayout.cardSize
        let quiz = Card(
            id: "q", title: "Canberra ist die Hauptstadt Australiens.", subtitle: "Richtig oder falsch?",
            color: .white)
        let short = CardTextFit.measure(quiz, size: size)
        #expect(!short.titleIsCut && !short.subtitleIsCut)
        #expect(short.showsWatermark)
        #expect(short.subtitleTop == short.textTop + short.titleHeight + Text.titleSpacing)

        let long = Card(
            id: "l", title: "Ein Titel, der über zwei Zeilen geht, aber nicht über drei",
            subtitle: String(repeating: "Ein langer Untertitel füllt die Karte. ", count: 10), color: .white)
        let fit = CardTextFit.measure(long, size: size)
        #expect(!fit.titleIsCut, "three title lines are allowed")
        #expect(fit.titleHeight > 2 * Text.titleSize)
        #expect(!fit.subtitleIsCut, "the subtitle may use the watermark's room")
        #expect(!fit.showsWatermark)

        let tooLong = Card(
            id: "t", title: String(repeating: "Überlang ", count: 20),
            subtitle: String(repeating: "Noch mehr Text. ", count: 60), color: .white)
        let cut = CardTextFit.measure(tooLong, size: size)
        #expect(cut.titleIsCut && cut.subtitleIsCut)
        #expect(cut.subtitleTop + cut.subtitleHeight <= size.height - CardTextFit.padding + 0.5)
    }
}
