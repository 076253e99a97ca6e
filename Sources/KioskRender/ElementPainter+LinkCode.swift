import CPangoCairo
import CardModel
import Glibc

/// A link's QR code as the visitor sees it: the code on a white plate (its quiet zone), a
/// module a whole number of device pixels, and the link's text beneath for those who cannot
/// scan. On a card (under its text) and under the end state's words (`ElementKind.linkCode`).
extension ElementPainter {
    /// Ink of the modules: near-black on the white plate in every theme (17:1).
    static let linkCodeInk = Color(rgb: 0x1C1C1E)

    /// The caption's style: one line, ellipsised when long; drawn as text, never markup.
    static func linkCaptionStyle(_ color: Color) -> Text.Style {
        Text.Style(size: 15, color: color, maxLines: 1, alignment: PANGO_ALIGN_CENTER)
    }

    /// The device pixels per user unit of `cr` (the element's scale; mirroring aside).
    static func deviceScale(_ cr: OpaquePointer) -> Double {
        var dx = 1.0
        var dy = 0.0
        cairo_user_to_device_distance(cr, &dx, &dy)
        let k = (dx * dx + dy * dy).squareRoot()
        return k > 0 && k.isFinite ? k : 1
    }

    /// The side the code for `link` takes on `cr` (points), at least `side`; nil without a code.
    static func linkCodeSide(_ link: String, side: Double, cr: OpaquePointer) -> Double? {
        guard let code = QRCode(link) else { return nil }
        return LinkCode.drawnSide(side: side, modules: code.sideWithQuietZone, pixelsPerPoint: deviceScale(cr))
    }

    /// Paints `link`'s code, at least `side` points with its quiet zone, centred on `centreX`,
    /// its caption's foot at `bottom`. The plate's corner is snapped to the device grid and the
    /// modules are drawn in device pixels, so each is whole pixels, square and never mirrored.
    func paintLinkCode(
        _ link: String, side: Double, centreX: Double, bottom: Double, captionWidth: Double, captionColor: Color,
        cr: OpaquePointer
    ) {
        let captionTop = bottom - LinkCode.captionHeight
        Text.show(
            link, cr: cr, x: centreX - captionWidth / 2, y: captionTop + 1, width: captionWidth,
            style: Self.linkCaptionStyle(captionColor))
        guard let code = QRCode(link) else { return }
        let k = Self.deviceScale(cr)
        let n = code.sideWithQuietZone
        let module = Int(max(2, (side * k / Double(n)).rounded(.up)))
        let sidePixels = n * module
        let sidePoints = Double(sidePixels) / k
        // Both corners in device space: the top-left there is whichever is leftmost (a mirrored
        // element turns x around).
        var x0 = centreX - sidePoints / 2
        var y0 = captionTop - LinkCode.captionGap - sidePoints
        var x1 = x0 + sidePoints
        var y1 = y0 + sidePoints
        cairo_user_to_device(cr, &x0, &y0)
        cairo_user_to_device(cr, &x1, &y1)
        let left = Int(min(x0, x1).rounded())
        let top = Int(min(y0, y1).rounded())
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_identity_matrix(cr)
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE)
        Draw.setColor(cr, .white)
        cairo_rectangle(cr, Double(left), Double(top), Double(sidePixels), Double(sidePixels))
        cairo_fill(cr)
        Draw.setColor(cr, Self.linkCodeInk)
        let q = QRCode.quietZone
        for row in 0..<code.size {
            var col = 0
            while col < code.size {
                guard code.dark[row * code.size + col] else {
                    col += 1
                    continue
                }
                let start = col
                while col < code.size && code.dark[row * code.size + col] { col += 1 }
                cairo_rectangle(
                    cr, Double(left + (start + q) * module), Double(top + (row + q) * module),
                    Double((col - start) * module), Double(module))
            }
        }
        cairo_fill(cr)
    }
}
