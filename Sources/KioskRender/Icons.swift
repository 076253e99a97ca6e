import CPangoCairo
import CardModel
import Glibc
import KioskSystem

/// Vector icons in the spirit of the SwiftUI designs' SF Symbols, drawn with cairo paths into a square
/// box of `size` points centred at (cx, cy), in the current source colour.
enum Icon {
    case checkSeal, xmark, checkmark, undo, plus, chevronLeft, chevronRight, trash, codeSlash

    /// Fills or strokes the icon with `color`; `cutout` is the colour of details knocked out of
    /// filled shapes (the check inside the seal).
    static func draw(
        _ icon: Icon, cr: OpaquePointer, cx: Double, cy: Double, size s: Double, color: Color, cutout: Color = .white
    ) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        Draw.setColor(cr, color)
        let h = s / 2
        switch icon {
        case .checkSeal:
            // A scalloped seal: a circle whose radius swells in 12 lobes, then a check.
            let lobes = 12.0
            let steps = 144
            for i in 0...steps {
                let a = Double(i) / Double(steps) * 2 * Double.pi
                let r = h * (0.9 + 0.08 * cos(a * lobes))
                let px = cx + r * cos(a)
                let py = cy + r * sin(a)
                if i == 0 { cairo_move_to(cr, px, py) } else { cairo_line_to(cr, px, py) }
            }
            cairo_close_path(cr)
            cairo_fill(cr)
            Draw.setColor(cr, cutout)
            cairo_set_line_width(cr, s * 0.09)
            cairo_move_to(cr, cx - h * 0.38, cy + h * 0.02)
            cairo_line_to(cr, cx - h * 0.1, cy + h * 0.3)
            cairo_line_to(cr, cx + h * 0.42, cy - h * 0.3)
            cairo_stroke(cr)
        case .xmark:
            cairo_set_line_width(cr, s * 0.12)
            cairo_move_to(cr, cx - h * 0.6, cy - h * 0.6)
            cairo_line_to(cr, cx + h * 0.6, cy + h * 0.6)
            cairo_move_to(cr, cx + h * 0.6, cy - h * 0.6)
            cairo_line_to(cr, cx - h * 0.6, cy + h * 0.6)
            cairo_stroke(cr)
        case .checkmark:
            cairo_set_line_width(cr, s * 0.12)
            cairo_move_to(cr, cx - h * 0.65, cy + h * 0.02)
            cairo_line_to(cr, cx - h * 0.2, cy + h * 0.5)
            cairo_line_to(cr, cx + h * 0.7, cy - h * 0.55)
            cairo_stroke(cr)
        case .undo:
            // arrow.uturn.backward: a hook from the right back to an arrow head on the left.
            cairo_set_line_width(cr, s * 0.1)
            cairo_move_to(cr, cx - h * 0.55, cy - h * 0.2)
            cairo_line_to(cr, cx + h * 0.15, cy - h * 0.2)
            cairo_arc(cr, cx + h * 0.15, cy + h * 0.2, h * 0.4, -Double.pi / 2, Double.pi / 2)
            cairo_line_to(cr, cx - h * 0.3, cy + h * 0.6)
            cairo_stroke(cr)
            cairo_move_to(cr, cx - h * 0.25, cy - h * 0.5)
            cairo_line_to(cr, cx - h * 0.58, cy - h * 0.2)
            cairo_line_to(cr, cx - h * 0.25, cy + h * 0.1)
            cairo_stroke(cr)
        case .plus:
            cairo_set_line_width(cr, s * 0.11)
            cairo_move_to(cr, cx - h * 0.65, cy)
            cairo_line_to(cr, cx + h * 0.65, cy)
            cairo_move_to(cr, cx, cy - h * 0.65)
            cairo_line_to(cr, cx, cy + h * 0.65)
            cairo_stroke(cr)
        case .chevronLeft:
            cairo_set_line_width(cr, s * 0.12)
            cairo_move_to(cr, cx + h * 0.2, cy - h * 0.6)
            cairo_line_to(cr, cx - h * 0.35, cy)
            cairo_line_to(cr, cx + h * 0.2, cy + h * 0.6)
            cairo_stroke(cr)
        case .chevronRight:
            cairo_set_line_width(cr, s * 0.12)
            cairo_move_to(cr, cx - h * 0.2, cy - h * 0.6)
            cairo_line_to(cr, cx + h * 0.35, cy)
            cairo_line_to(cr, cx - h * 0.2, cy + h * 0.6)
            cairo_stroke(cr)
        case .trash:
            cairo_set_line_width(cr, s * 0.08)
            // Lid and handle.
            cairo_move_to(cr, cx - h * 0.7, cy - h * 0.5)
            cairo_line_to(cr, cx + h * 0.7, cy - h * 0.5)
            cairo_move_to(cr, cx - h * 0.22, cy - h * 0.5)
            cairo_line_to(cr, cx - h * 0.18, cy - h * 0.75)
            cairo_line_to(cr, cx + h * 0.18, cy - h * 0.75)
            cairo_line_to(cr, cx + h * 0.22, cy - h * 0.5)
            cairo_stroke(cr)
            // Can, slightly narrower at the bottom, with three ribs.
            cairo_move_to(cr, cx - h * 0.55, cy - h * 0.35)
            cairo_line_to(cr, cx - h * 0.45, cy + h * 0.8)
            cairo_line_to(cr, cx + h * 0.45, cy + h * 0.8)
            cairo_line_to(cr, cx + h * 0.55, cy - h * 0.35)
            cairo_stroke(cr)
            for dx in [-0.2, 0, 0.2] {
                cairo_move_to(cr, cx + h * dx, cy - h * 0.15)
                cairo_line_to(cr, cx + h * dx * 0.9, cy + h * 0.6)
            }
            cairo_stroke(cr)
        case .codeSlash:
            // chevron.left.forwardslash.chevron.right: "</>".
            cairo_set_line_width(cr, s * 0.07)
            cairo_move_to(cr, cx - h * 0.45, cy - h * 0.4)
            cairo_line_to(cr, cx - h * 0.9, cy)
            cairo_line_to(cr, cx - h * 0.45, cy + h * 0.4)
            cairo_move_to(cr, cx + h * 0.45, cy - h * 0.4)
            cairo_line_to(cr, cx + h * 0.9, cy)
            cairo_line_to(cr, cx + h * 0.45, cy + h * 0.4)
            cairo_move_to(cr, cx + h * 0.18, cy - h * 0.6)
            cairo_line_to(cr, cx - h * 0.18, cy + h * 0.6)
            cairo_stroke(cr)
        }
    }
}
