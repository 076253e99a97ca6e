import CPangoCairo
import CardModel
import Glibc
import KioskSystem

/// Draws one element's own look (no transform, no shadow, no opacity) in its local
/// coordinates: points, origin at the frame's top-left, the point→pixel scale already applied
/// to the cairo context. Both pipelines share it, so they draw the same design.
package struct ElementPainter {
    /// The scene's background, for foregrounds drawn straight onto it (empty state, labels).
    var background: Color
    /// Decoded product images; nil entries draw a placeholder.
    var images: ImageCache?
    /// Fill the rows inside a card's outline without pixman's general path (`fillCard`: the
    /// same pixels; tests compare it with cairo's fill).
    var fillsRowsDirectly = true
    /// Device pixels a card's fill leaves undrawn (`ElementSurface.render`'s hole).
    var hole = PixelRect.empty

    package init(background: Color, images: ImageCache? = nil) {
        self.background = background
        self.images = images
    }

    /// Corner radius of the element's outline, which its shadow follows.
    package static func cornerRadius(_ kind: ElementKind) -> Double {
        switch kind.unmirrored {
        case .card, .stamp: 22
        case .row, .deleteArea: 5
        case .button: 22
        case .languageKey: 12
        default: 0
        }
    }

    /// The SwiftUI design's systemBlue, for plain controls.
    static let tint = ControlColors.tint
    /// The SwiftUI design's systemRed, behind a row being deleted.
    static let destructive = ControlColors.destructive

    package func paint(_ kind: ElementKind, size: Size, cr: OpaquePointer) {
        let w = size.width
        let h = size.height
        switch kind {
        case .mirrored(let inner):
            // Right to left: the element's insides swap sides. Text and photos undo the
            // mirror where they are drawn (`Text.measure`, `paintImage`), so they stay readable.
            cairo_save(cr)
            cairo_translate(cr, w, 0)
            cairo_scale(cr, -1, 1)
            paint(inner, size: size, cr: cr)
            cairo_restore(cr)
        case .languageKey(let label, let selected):
            // Filled in the tint when it is the visitor's language, outlined otherwise.
            Draw.roundedRect(cr, x: 1, y: 1, width: w - 2, height: h - 2, radius: Self.cornerRadius(kind))
            Draw.setColor(cr, selected ? Self.tint : .white)
            cairo_fill_preserve(cr)
            Draw.setColor(cr, Self.tint)
            cairo_set_line_width(cr, 2)
            cairo_stroke(cr)
            let style = Text.Style(
                size: h > 44 ? 19 : 16, weight: .semibold, color: selected ? .white : Self.tint, maxLines: 1,
                alignment: PANGO_ALIGN_CENTER)
            let th = Text.show(label, cr: cr, x: 0, y: 0, width: w - 8, style: style, draw: false)
            Text.show(label, cr: cr, x: 4, y: (h - th) / 2, width: w - 8, style: style)
        case .card(let card): paintCard(card, w: w, h: h, cr: cr)
        case .row(let card): paintRow(card, w: w, h: h, cr: cr)
        case .deleteArea:
            Draw.setColor(cr, Self.destructive)
            Draw.roundedRect(cr, x: 0, y: 0, width: w, height: h, radius: Self.cornerRadius(kind))
            cairo_fill(cr)
            let s = min(26, h * 0.5, w * 0.6)
            Icon.draw(.trash, cr: cr, cx: w / 2, cy: h / 2, size: s, color: .white)
        case .titleBar(let title):
            Draw.setColor(cr, background)
            cairo_rectangle(cr, 0, 0, w, h)
            cairo_fill(cr)
            Draw.setColor(cr, Draw.foreground(on: background), alpha: 0.15)
            cairo_rectangle(cr, 0, h - 0.5, w, 0.5)
            cairo_fill(cr)
            // The large title sits 8 pt above the bar's foot. A script whose line is taller than
            // the bar leaves (Noto Sans Arabic's at 34 pt) gets a smaller size whose whole line
            // fits, so nothing is cut at the top.
            var style = Text.Style(size: 34, weight: .bold, color: Draw.foreground(on: background), maxLines: 1)
            var textHeight = Text.show(title, cr: cr, x: 0, y: 0, width: w - 100, style: style, draw: false)
            while textHeight > h - 4 && style.size > 20 {
                style.size -= 2
                textHeight = Text.show(title, cr: cr, x: 0, y: 0, width: w - 100, style: style, draw: false)
            }
            Text.show(title, cr: cr, x: 20, y: max(2, h - textHeight - 8), width: w - 100, style: style)
        case .bottomBar:
            Draw.setColor(cr, background)
            cairo_rectangle(cr, 0, 0, w, h)
            cairo_fill(cr)
            Draw.setColor(cr, Draw.foreground(on: background), alpha: 0.15)
            cairo_rectangle(cr, 0, 0, w, 0.5)
            cairo_fill(cr)
        case .button(let role): paintButton(role, w: w, h: h, cr: cr)
        case .wordButton(let role, let label): paintWordButton(role, label: label, w: w, h: h, cr: cr)
        case .emptyState(let text):
            let fg = Draw.foreground(on: background)
            let icon = min(48, w * 0.5, h * 0.5)
            let style = Text.Style(size: 22, weight: .semibold, color: fg, maxLines: 3, alignment: PANGO_ALIGN_CENTER)
            let textHeight = Text.show(text, cr: cr, x: 0, y: 0, width: w, style: style, draw: false)
            let top = (h - icon - 16 - textHeight) / 2
            Icon.draw(.checkSeal, cr: cr, cx: w / 2, cy: top + icon / 2, size: icon, color: Color(rgb: 0x34C759))
            Text.show(text, cr: cr, x: 0, y: top + icon + 16, width: w, style: style)
        case .linkCode(let link, let side):
            paintLinkCode(
                link, side: side, centreX: w / 2, bottom: h, captionWidth: w,
                captionColor: Draw.foreground(on: background), cr: cr)
        case .detailPage(let card, let backTitle, let bar, let back):
            // The seed's detail view: the colour alone, under a navigation bar whose back
            // control reads "‹ <list title>" in the system tint.
            Draw.setColor(cr, card.color)
            cairo_rectangle(cr, 0, 0, w, h)
            cairo_fill(cr)
            Draw.setColor(cr, .white, alpha: 0.82)
            cairo_rectangle(cr, 0, 0, w, bar)
            cairo_fill(cr)
            Draw.setColor(cr, .black, alpha: 0.12)
            cairo_rectangle(cr, 0, bar - 0.5, w, 0.5)
            cairo_fill(cr)
            Icon.draw(.chevronLeft, cr: cr, cx: back.minX + 10, cy: back.center.y, size: 22, color: Self.tint)
            let style = Text.Style(size: Text.bodySize, color: Self.tint, maxLines: 1)
            let th = Text.show(backTitle, cr: cr, x: 0, y: 0, width: back.width - 28, style: style, draw: false)
            Text.show(
                backTitle, cr: cr, x: back.minX + 24, y: back.center.y - th / 2, width: back.width - 28, style: style)
        case .stamp(let text, let color, let side): paintStamp(text, color: color, side: side, w: w, h: h, cr: cr)
        case .focusRing:
            // WCAG 2.4.7 / 2.4.13 / 1.4.11: a 4 pt dark band with a 2 pt white line inside it, so
            // one of the two reaches 3:1 on any row, card or background colour.
            Draw.roundedRect(cr, x: 2, y: 2, width: w - 4, height: h - 4, radius: 9)
            Draw.setColor(cr, ControlColors.focusOuter)
            cairo_set_line_width(cr, 4)
            cairo_stroke(cr)
            Draw.roundedRect(cr, x: 5, y: 5, width: w - 10, height: h - 10, radius: 6)
            Draw.setColor(cr, ControlColors.focusInner)
            cairo_set_line_width(cr, 2)
            cairo_stroke(cr)
        case .label(let text, let color):
            let style = Text.Style(
                size: Text.bodySize, weight: .semibold, color: color, maxLines: 1, alignment: PANGO_ALIGN_CENTER)
            let th = Text.show(text, cr: cr, x: 0, y: 0, width: w, style: style, draw: false)
            Text.show(text, cr: cr, x: 0, y: (h - th) / 2, width: w, style: style)
        case .accessibilityButton(let isOpen, let anyOn):
            paintAccessibilityButton(isOpen: isOpen, anyOn: anyOn, w: w, h: h, cr: cr)
        case .accessibilitySwitch(let label, let isOn, let state):
            paintAccessibilitySwitch(label, isOn: isOn, state: state, w: w, h: h, cr: cr)
        case .countdown(let seconds, let text): paintCountdown(seconds: seconds, text: text, w: w, h: h, cr: cr)
        case .staffPanel(let lines):
            Draw.setColor(cr, Color(rgb: 0x101014), alpha: 0.94)
            cairo_rectangle(cr, 0, 0, w, h)
            cairo_fill(cr)
            let style = Text.Style(size: 20, weight: .semibold, color: .white, maxLines: 1)
            // Right to left (mirrored) each line is its own isolate (FSI … PDI): one that is all
            // Latin ("IP: 192.0.2.10 (eth0)") keeps its order and its closing parenthesis, and
            // reads from the right edge like the Arabic ones.
            let isolated = Text.isMirrored(cr)
            var y = 30.0
            for line in lines {
                let shown = isolated ? "\u{2068}" + line + "\u{2069}" : line
                y += Text.show(shown, cr: cr, x: 30, y: y, width: w / 2 + 60, style: style) + 8
            }
        case .staffKey(let label):
            Draw.setColor(cr, Color(rgb: 0x3A3A3C))
            Draw.roundedRect(cr, x: 0, y: 0, width: w, height: h, radius: 12)
            cairo_fill(cr)
            let style = Text.Style(
                size: 24, weight: .semibold, color: .white, maxLines: 1, alignment: PANGO_ALIGN_CENTER)
            let th = Text.show(label, cr: cr, x: 0, y: 0, width: w, style: style, draw: false)
            Text.show(label, cr: cr, x: 0, y: (h - th) / 2, width: w, style: style)
        case .notice(let text):
            let style = Text.Style(
                size: 34, weight: .semibold, color: Draw.foreground(on: background), maxLines: 6,
                alignment: PANGO_ALIGN_CENTER)
            let th = Text.show(text, cr: cr, x: 0, y: 0, width: w, style: style, draw: false)
            Text.show(text, cr: cr, x: 0, y: (h - th) / 2, width: w, style: style)
        }
    }

    /// The inactivity warning: the screen dimmed, a white panel in the middle with the seconds
    /// left in large digits and the "tap to continue" line under them.
    private func paintCountdown(seconds: Int, text: String, w: Double, h: Double, cr: OpaquePointer) {
        Draw.setColor(cr, .black, alpha: 0.45)
        cairo_rectangle(cr, 0, 0, w, h)
        cairo_fill(cr)
        let pw = min(w - 40, 420)
        let ph = min(h - 40, 210)
        let x = (w - pw) / 2
        let y = (h - ph) / 2
        Draw.setColor(cr, .white)
        Draw.roundedRect(cr, x: x, y: y, width: pw, height: ph, radius: 22)
        cairo_fill(cr)
        let ink = ControlColors.ink
        let number = Text.Style(size: 72, weight: .bold, color: ink, maxLines: 1, alignment: PANGO_ALIGN_CENTER)
        let line = Text.Style(size: 22, weight: .semibold, color: ink, maxLines: 2, alignment: PANGO_ALIGN_CENTER)
        let nh = Text.show(String(seconds), cr: cr, x: x, y: 0, width: pw, style: number, draw: false)
        let lh = Text.show(text, cr: cr, x: x + 16, y: 0, width: pw - 32, style: line, draw: false)
        let top = y + (ph - nh - 8 - lh) / 2
        Text.show(String(seconds), cr: cr, x: x, y: top, width: pw, style: number)
        Text.show(text, cr: cr, x: x + 16, y: top + nh + 8, width: pw - 32, style: line)
    }

    /// The stack's card (as in the SwiftUI design): rounded gradient, optional photo on top, title and subtitle top-left,
    /// the faint "</>" watermark near the bottom where the text leaves room (`CardTextFit`).
    private func paintCard(_ card: Card, w: Double, h: Double, cr: OpaquePointer) {
        let radius = Self.cornerRadius(.card(card))
        // The seed's 0.92 opacity, mixed with the backdrop rather than with the cards below:
        // their white text and photos would otherwise show through as a legible ghost (in
        // SwiftUI every card's text is black, so the ghost is nearly invisible there).
        // `Card.stackGradient`, so the contrast audit (ContrastAudit) checks what is drawn.
        let (top, bottom) = card.stackGradient
        fillCard(cr, w: w, h: h, radius: radius, top: top, bottom: bottom)

        let fit = CardTextFit.measure(card, size: Size(width: w, height: h), cr: cr)
        if let path = card.imagePath {
            paintImage(path: path, w: w, h: fit.imageHeight, radius: radius, cr: cr)
        }
        let pad = CardTextFit.padding
        Text.show(
            card.title, cr: cr, x: pad, y: fit.textTop, width: w - 2 * pad, style: CardTextFit.titleStyle(card))
        Text.show(
            card.subtitle, cr: cr, x: pad, y: fit.subtitleTop, width: w - 2 * pad, maxHeight: fit.subtitleRoom,
            style: CardTextFit.subtitleStyle(card))
        if fit.showsWatermark {
            Icon.draw(
                .codeSlash, cr: cr, cx: w / 2, cy: fit.watermarkCentreY, size: fit.watermarkSize,
                color: card.accent.withAlpha(0.08))
        }
        if let link = card.link {
            paintLinkCode(
                link, side: CardTextFit.linkCodeSide(card), centreX: w / 2, bottom: h - pad, captionWidth: w - 2 * pad,
                captionColor: card.subtitleColor, cr: cr)
        }
    }

    /// The accessibility control's button: a white disc with a dark ring and "Aa" (dark on
    /// white, 15:1), filled dark with white "Aa" while open; a check badge when a mode is on.
    private func paintAccessibilityButton(isOpen: Bool, anyOn: Bool, w: Double, h: Double, cr: OpaquePointer) {
        let s = min(w, h)
        let ink = ControlColors.ink
        cairo_arc(cr, w / 2, h / 2, s / 2 - 1.5, 0, 2 * Double.pi)
        Draw.setColor(cr, isOpen ? ink : .white)
        cairo_fill_preserve(cr)
        Draw.setColor(cr, ink)
        cairo_set_line_width(cr, 3)
        cairo_stroke(cr)
        let style = Text.Style(
            size: s * 0.38, weight: .bold, color: isOpen ? .white : ink, maxLines: 1, alignment: PANGO_ALIGN_CENTER)
        let th = Text.show("Aa", cr: cr, x: 0, y: 0, width: w, style: style, draw: false)
        Text.show("Aa", cr: cr, x: 0, y: (h - th) / 2, width: w, style: style)
        if anyOn {
            let r = s * 0.2
            cairo_arc(cr, w - r, r, r, 0, 2 * Double.pi)
            Draw.setColor(cr, ControlColors.confirm)
            cairo_fill(cr)
            Icon.draw(.checkmark, cr: cr, cx: w - r, cy: r, size: r * 1.1, color: .white)
        }
    }

    /// One switch of the accessibility control: a white rounded panel, the label in dark
    /// text, and on the right a switch whose knob sits right and filled when on, left and
    /// hollow when off, with `state` ("Ein"/"Aus") beside it (state never by colour alone).
    private func paintAccessibilitySwitch(
        _ label: String, isOn: Bool, state: String, w: Double, h: Double, cr: OpaquePointer
    ) {
        let ink = ControlColors.ink
        Draw.roundedRect(cr, x: 0, y: 0, width: w, height: h, radius: 12)
        Draw.setColor(cr, .white)
        cairo_fill_preserve(cr)
        Draw.setColor(cr, ink)
        cairo_set_line_width(cr, 2)
        cairo_stroke(cr)
        let sw = min(52, h * 0.9)
        let sh = sw * 0.58
        let sx = w - sw - 12
        let sy = (h - sh) / 2
        Draw.roundedRect(cr, x: sx, y: sy, width: sw, height: sh, radius: sh / 2)
        Draw.setColor(cr, isOn ? ControlColors.confirm : .white)
        cairo_fill_preserve(cr)
        Draw.setColor(cr, ink)
        cairo_stroke(cr)
        let kr = sh / 2 - 4
        cairo_arc(cr, isOn ? sx + sw - sh / 2 : sx + sh / 2, h / 2, kr, 0, 2 * Double.pi)
        Draw.setColor(cr, isOn ? .white : ink)
        cairo_fill(cr)
        let small = Text.Style(size: 15, weight: .semibold, color: ink, maxLines: 1)
        let stateWidth = Text.measure(state, cr: cr, width: 60, style: small).width
        let sth = Text.show(state, cr: cr, x: 0, y: 0, width: 60, style: small, draw: false)
        Text.show(state, cr: cr, x: sx - 8 - stateWidth, y: (h - sth) / 2, width: 60, style: small)
        let style = Text.Style(size: Text.bodySize, weight: .semibold, color: ink, maxLines: 2)
        let room = sx - 24 - stateWidth - 12
        let th = Text.show(label, cr: cr, x: 0, y: 0, width: room, style: style, draw: false)
        Text.show(label, cr: cr, x: 12, y: (h - th) / 2, width: room, style: style)
    }

    /// The swipe hint on a card of `w`×`h`: a tint along its edge and a stamp (a bordered,
    /// rotated label, as stack apps show it) in the lower corner away from the swipe, where
    /// the seed's layout has only the watermark.
    private func paintStamp(
        _ text: String, color: Color, side: DismissDirection, w: Double, h: Double, cr: OpaquePointer
    ) {
        let radius = Self.cornerRadius(.stamp(text: text, color: color, side: side))
        let edge = 5.0
        Draw.setColor(cr, color, alpha: 0.9)
        cairo_set_line_width(cr, edge)
        Draw.roundedRect(cr, x: edge / 2, y: edge / 2, width: w - edge, height: h - edge, radius: radius - edge / 2)
        cairo_stroke(cr)

        let style = Text.Style(
            size: 26, weight: .bold, color: color, maxLines: 1, alignment: PANGO_ALIGN_CENTER)
        let maxText = w * 0.62
        let m = Text.measure(text, cr: cr, width: maxText, style: style)
        let padX = 14.0
        let padY = 6.0
        // The stamp carries an icon (✗ left, ✓ right) besides its word and colour (WCAG 1.4.1).
        let icon = m.height * 0.7
        let iconRoom = icon + 8
        let bw = min(maxText, m.width) + 2 * padX + iconRoom
        let bh = m.height + 2 * padY
        let inset = 22.0
        let cx = side == .left ? w - inset - bw / 2 : inset + bw / 2
        let cy = h - inset - bh / 2 - 8
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_translate(cr, cx, cy)
        cairo_rotate(cr, (side == .left ? 14 : -14) * Double.pi / 180)
        Draw.roundedRect(cr, x: -bw / 2, y: -bh / 2, width: bw, height: bh, radius: 8)
        Draw.setColor(cr, .white, alpha: 0.92)
        cairo_fill_preserve(cr)
        Draw.setColor(cr, color)
        cairo_set_line_width(cr, 4)
        cairo_stroke(cr)
        Icon.draw(
            side == .left ? .xmark : .checkmark, cr: cr, cx: -bw / 2 + padX + icon / 2, cy: 0, size: icon,
            color: color)
        Text.show(
            text, cr: cr, x: -bw / 2 + padX + iconRoom, y: -m.height / 2, width: bw - 2 * padX - iconRoom,
            style: style)
    }

    /// The photo, cover-fitted into the top of the card with the card's top corners; a soft
    /// placeholder until the decoder has it.
    private func paintImage(path: String, w: Double, h: Double, radius: Double, cr: OpaquePointer) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_new_path(cr)
        cairo_move_to(cr, 0, h)
        cairo_arc(cr, radius, radius, radius, Double.pi, 3 * Double.pi / 2)
        cairo_arc(cr, w - radius, radius, radius, -Double.pi / 2, 0)
        cairo_line_to(cr, w, h)
        cairo_close_path(cr)
        cairo_clip(cr)
        guard let image = images?.image(at: path) else {
            Draw.setColor(cr, .white, alpha: 0.18)
            cairo_paint(cr)
            return
        }
        if Text.isMirrored(cr) {
            // A photo reads the same in every language (its clip is symmetric).
            cairo_translate(cr, w, 0)
            cairo_scale(cr, -1, 1)
        }
        let k = max(w / Double(image.width), h / Double(image.height))
        cairo_translate(cr, (w - Double(image.width) * k) / 2, (h - Double(image.height) * k) / 2)
        cairo_scale(cr, k, k)
        cairo_set_source_surface(cr, image.surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint(cr)
    }

    /// The list's row (as in the SwiftUI design): the theme's main colour, radius 5, headline in the accent colour.
    private func paintRow(_ card: Card, w: Double, h: Double, cr: OpaquePointer) {
        Draw.setColor(cr, card.color)
        Draw.roundedRect(cr, x: 0, y: 0, width: w, height: h, radius: Self.cornerRadius(.row(card)))
        cairo_fill(cr)
        let style = Text.Style(
            size: Text.bodySize * CardTextFit.scale(card), weight: .semibold, color: card.accent, maxLines: 1)
        let th = Text.show(card.title, cr: cr, x: 0, y: 0, width: w - 56, style: style, draw: false)
        Text.show(card.title, cr: cr, x: 16, y: (h - th) / 2, width: w - 56, style: style)
        // The disclosure chevron of a NavigationLink row.
        Icon.draw(.chevronRight, cr: cr, cx: w - 20, cy: h / 2, size: 14, color: card.accent.withAlpha(0.55))
    }

    private func paintButton(_ role: ButtonRole, w: Double, h: Double, cr: OpaquePointer) {
        let s = min(w, h)
        switch role {
        case .add:
            Icon.draw(.plus, cr: cr, cx: w / 2, cy: h / 2, size: s * 0.6, color: Self.tint)
        case .back:
            // Drawn by the detail page ("‹ Color Cards"); the element is where a tap goes back.
            break
        case .dismissLeft, .dismissRight, .undo:
            Draw.setColor(cr, .white)
            cairo_arc(cr, w / 2, h / 2, s / 2, 0, 2 * Double.pi)
            cairo_fill_preserve(cr)
            Draw.setColor(cr, .black, alpha: 0.12)
            cairo_set_line_width(cr, 1)
            cairo_stroke(cr)
            let (icon, color): (Icon, Color) =
                switch role {
                case .dismissLeft: (.xmark, Self.destructive)
                case .dismissRight: (.checkmark, ControlColors.confirm)
                default: (.undo, ControlColors.neutral)
                }
            // ✓ and ✗ read the same in every language; undo's arrow turns with the layout.
            let keep = role != .undo && Text.isMirrored(cr)
            if keep {
                cairo_save(cr)
                cairo_translate(cr, w, 0)
                cairo_scale(cr, -1, 1)
            }
            Icon.draw(icon, cr: cr, cx: w / 2, cy: h / 2, size: s * 0.45, color: color)
            if keep { cairo_restore(cr) }
        case .remove:
            // Without its words (`.wordButton` carries them): a red capsule with a trash icon.
            Draw.setColor(cr, Self.destructive)
            Draw.roundedRect(cr, x: 0, y: 0, width: w, height: h, radius: h / 2)
            cairo_fill(cr)
            Icon.draw(.trash, cr: cr, cx: w / 2, cy: h / 2, size: s * 0.5, color: .white)
        }
    }

    /// A capsule with `label` (the scene's words, in the visitor's language): red for the
    /// accessible "Remove card", the tint for any other control.
    private func paintWordButton(_ role: ButtonRole, label: String, w: Double, h: Double, cr: OpaquePointer) {
        Draw.setColor(cr, role == .remove ? ControlColors.destructiveBehindText : ControlColors.tintBehindText)
        Draw.roundedRect(cr, x: 0, y: 0, width: w, height: h, radius: h / 2)
        cairo_fill(cr)
        let style = Text.Style(
            size: Text.bodySize, weight: .semibold, color: .white, maxLines: 1, alignment: PANGO_ALIGN_CENTER)
        let th = Text.show(label, cr: cr, x: 0, y: 0, width: w - 16, style: style, draw: false)
        Text.show(label, cr: cr, x: 8, y: (h - th) / 2, width: w - 16, style: style)
    }
}
