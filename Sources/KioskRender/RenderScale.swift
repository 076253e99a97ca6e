import KioskSystem

/// Points to pixels for a panel, so a card has the same physical size on a 7" and a 15" panel.
///
/// One point is 1/160 inch, Android's density-independent pixel; the panel's density comes
/// from its pixel size and the millimetres its connector reports (EDID).
package enum RenderScale {
    /// The density at which one point is one pixel.
    package static let baselinePixelsPerInch = 160.0
    /// The layout needs this many points on the shorter side (a 440 pt card and its room).
    static let minimumShortSidePoints = 520.0

    /// Pixels per point for a panel of `pixelWidth`×`pixelHeight` pixels and
    /// `widthMM`×`heightMM` millimetres (0 or nil when unknown, as many connectors report).
    ///
    /// Unknown or implausible sizes (below 50 or above 800 pixels per inch) fall back to
    /// filling 600 points on the shorter side. Either way the scale never leaves fewer than
    /// `minimumShortSidePoints` points on the shorter side, so the stack always fits.
    package static func pixelsPerPoint(pixelWidth: Int, pixelHeight: Int, widthMM: Double?, heightMM: Double?) -> Double
    {
        let shortSide = Double(min(pixelWidth, pixelHeight))
        guard shortSide > 0 else { return 1 }
        let fit = shortSide / minimumShortSidePoints
        var dpi: Double?
        if let w = widthMM, let h = heightMM, w > 0, h > 0 {
            let dx = Double(pixelWidth) / (w / 25.4)
            let dy = Double(pixelHeight) / (h / 25.4)
            let d = (dx + dy) / 2
            if d >= 50 && d <= 800 { dpi = d }
        }
        guard let dpi else { return shortSide / 600 }
        return min(dpi / baselinePixelsPerInch, fit)
    }
}
