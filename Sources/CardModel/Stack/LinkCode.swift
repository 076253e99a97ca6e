/// A link handed to the visitor as a QR code (a card's or the end state's `link`): how large
/// it is on the glass and where it sits, decided here; the renderer turns it into whole pixels.
///
/// The code with its quiet zone is at least `minimumMillimetres` wide on the glass, whatever the
/// panel's density, so a phone reads it from where the visitor stands. A link is at most
/// `maximumLength` bytes, so the code is at most version 7 at error correction level M
/// (45 modules, `maximumModules` with its quiet zone): at 25 mm a module is 0.47 mm, and the
/// plate with its caption still leaves the title room on the smallest card of every panel
/// preset (Touch Display 2 5" mounted landscape: a 38×52 mm card). `check-deck` refuses a
/// longer link, and one that would not fit (`fits`).
public enum LinkCode {
    /// The code with its quiet zone, at least this wide and high on the glass.
    public static let minimumMillimetres = 25.0
    /// The longest link (UTF-8 bytes): 122 fit version 7 at level M.
    public static let maximumLength = 120
    /// Modules per side of the largest code a link of `maximumLength` gives, with its quiet zone.
    public static let maximumModules = 45 + 8
    /// The caption under the code (the link's text for those who cannot scan), in points.
    public static let captionHeight = 20.0
    public static let captionGap = 6.0
    /// What the card keeps for its title above the code, in points (one title line).
    public static let titleRoom = 40.0
    /// Points a code may grow by when its modules round up to whole pixels (up to
    /// `maximumModules` pixels, at 0.9 pixels a point or more: every preset's scale).
    public static let roundingRoom = 60.0

    /// The height of an element that shows a code of least side `side` and its caption.
    public static func frameHeight(side: Double) -> Double {
        side + roundingRoom + captionGap + captionHeight
    }

    /// The code's least side with its quiet zone, in screen points, on a panel with
    /// `pointsPerMillimetre` (nil or unusable: 160 dpi at one pixel a point).
    public static func side(pointsPerMillimetre: Double?) -> Double {
        let perMM = pointsPerMillimetre.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 160 / 25.4
        return minimumMillimetres * perMM
    }

    /// The side a code of `modules` (quiet zone included) takes at least `side` points at
    /// `pixelsPerPoint`, once a module is a whole number of pixels (never under 2).
    public static func drawnSide(side: Double, modules: Int, pixelsPerPoint k: Double) -> Double {
        guard modules > 0, k > 0, k.isFinite else { return side }
        let module = max(2, (side * k / Double(modules)).rounded(.up))
        return module * Double(modules) / k
    }

    /// Whether a code of `modules` with its caption fits on a card of `card` points (its own
    /// points, before the stack's fit scale) that needs `side` points for 25 mm, with the
    /// card's `padding` round it and `titleRoom` above it.
    public static func fits(card: Size, side: Double, modules: Int, pixelsPerPoint k: Double, padding: Double) -> Bool {
        let drawn = drawnSide(side: side, modules: modules, pixelsPerPoint: k)
        return drawn <= card.width - 2 * padding
            && padding + titleRoom + drawn + captionGap + captionHeight + padding <= card.height
    }
}
