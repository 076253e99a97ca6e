import CardModel
import KioskSystem

/// Points to pixels for a panel: the layout fills the panel as the seed's SwiftUI frame fills
/// a phone, with a physical floor so text stays readable at arm's length.
///
/// The seed lays its stack out in a frame of at most 400×600 points; a kiosk is that frame
/// grown to the panel, so by default the shorter side is `layoutShortSidePoints` (600) points —
/// on a 15.6" 1920×1080 panel a point is 1.8 px and the card about 11 cm wide, not a phone-sized
/// card in the middle of a large screen. Where the connector reports millimetres (EDID), a
/// point is never smaller than `minimumPointMillimetres`, as far as the stack still fits
/// (`minimumShortSidePoints`).
package enum RenderScale {
    /// The density at which one point is one pixel (the old rule: a point is 1/160 inch). Still
    /// the touch slop's fallback when a panel reports no millimetres.
    package static let baselinePixelsPerInch = 160.0
    /// The layout needs this many points on the shorter side (a 440 pt card and its room).
    static let minimumShortSidePoints = 520.0
    /// The seed's frame height: the layout's shorter side by default.
    package static let layoutShortSidePoints = 600.0
    /// The physical floor: a 17 pt body line is at least 2.9 mm (em) on the glass, the largest a
    /// 7" 800×480 panel (154×86 mm) can give while its 480 px still hold the 440 pt card
    /// (0.8 px/pt → 0.92 px/pt there). An iPhone's point is 0.156 mm, read at 30 cm; a kiosk
    /// is read from 50–60 cm.
    package static let minimumPointMillimetres = 0.17

    /// Pixels per point for a panel of `pixelWidth`×`pixelHeight` pixels and
    /// `widthMM`×`heightMM` millimetres (0 or nil when unknown, as many connectors report).
    ///
    /// Unknown or implausible sizes (below 50 or above 800 pixels per inch) give the 600-point
    /// layout alone. The scale never leaves fewer than `minimumShortSidePoints` points on the
    /// shorter side, so the stack always fits.
    package static func pixelsPerPoint(pixelWidth: Int, pixelHeight: Int, widthMM: Double?, heightMM: Double?) -> Double
    {
        let shortSide = Double(min(pixelWidth, pixelHeight))
        guard shortSide > 0 else { return 1 }
        let fill = shortSide / layoutShortSidePoints
        let fit = shortSide / minimumShortSidePoints
        guard
            let dpi = pixelsPerInch(
                pixelWidth: pixelWidth, pixelHeight: pixelHeight, widthMM: widthMM, heightMM: heightMM)
        else { return fill }
        let floor = minimumPointMillimetres * dpi / 25.4
        return min(max(fill, floor), fit)
    }

    /// The panel's density, or nil when its millimetres are unknown or implausible.
    static func pixelsPerInch(pixelWidth: Int, pixelHeight: Int, widthMM: Double?, heightMM: Double?) -> Double? {
        guard let w = widthMM, let h = heightMM, w > 0, h > 0, pixelWidth > 0, pixelHeight > 0 else { return nil }
        let dx = Double(pixelWidth) / (w / 25.4)
        let dy = Double(pixelHeight) / (h / 25.4)
        let d = (dx + dy) / 2
        return d >= 50 && d <= 800 ? d : nil
    }
}

/// What the kiosk lays out on one panel: pixels per point, the logical size in points and
/// points per millimetre for the touch slop. `run` and `render --panel-mm` both build it here,
/// so a headless frame is the frame the panel shows.
package struct PanelGeometry: Hashable, Sendable {
    package var scale: Double
    package var metrics: ScreenMetrics

    /// A panel of `pixelWidth`×`pixelHeight` logical (already rotated) pixels and, when
    /// known, `millimetres` in the same orientation; `scale` overrides the computed scale
    /// (the config's `scale`, `render --scale`). The slop stays physical either way: points
    /// per millimetre come from the millimetres, else from the 160 ppi baseline.
    package init(pixelWidth: Int, pixelHeight: Int, millimetres: Size?, scale override: Double? = nil) {
        let s =
            override
            ?? RenderScale.pixelsPerPoint(
                pixelWidth: pixelWidth, pixelHeight: pixelHeight, widthMM: millimetres?.width,
                heightMM: millimetres?.height)
        let size = Size(width: Double(pixelWidth) / s, height: Double(pixelHeight) / s)
        let perMM: Double
        if let mm = millimetres, mm.width > 0 {
            perMM = size.width / mm.width
        } else {
            perMM = RenderScale.baselinePixelsPerInch / 25.4 / s
        }
        scale = s
        metrics = ScreenMetrics(size: size, pointsPerMillimetre: perMM)
    }
}
