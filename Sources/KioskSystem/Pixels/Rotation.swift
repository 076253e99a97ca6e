import CardModel

/// How the picture is turned on the physical panel, clockwise: the one setting that turns
/// both the picture (display) and the touch (input) so they stay matched.
///
/// The app lays out its scene in the *logical* (upright) size; the display turns it while
/// copying to the scanout buffer, and the input turns physical touch positions back into
/// logical points. For 90 and 270 the logical size is the panel's size with width and height
/// swapped.
package enum Rotation: Int, CaseIterable, Sendable {
    case deg0 = 0
    case deg90 = 90
    case deg180 = 180
    case deg270 = 270

    /// Any whole number of quarter turns (degrees clockwise, taken modulo 360); nil otherwise.
    package init?(degrees: Int) {
        self.init(rawValue: ((degrees % 360) + 360) % 360)
    }

    /// From an option or config value: exactly "0", "90", "180" or "270"; nil otherwise.
    package init?(optionValue text: String) {
        guard let degrees = Int(text), [0, 90, 180, 270].contains(degrees) else { return nil }
        self.init(rawValue: degrees)
    }

    /// What `init(optionValue:)` accepts, for error messages.
    package static let acceptedValues = "0, 90, 180 or 270"

    /// The upright size for a panel of `physical` size.
    package func logicalSize(physical: Size) -> Size {
        switch self {
        case .deg0, .deg180: physical
        case .deg90, .deg270: Size(width: physical.height, height: physical.width)
        }
    }

    /// Where logical point `p` lands on a panel of `physical` size (continuous coordinates).
    package func toPhysical(_ p: Point, physical: Size) -> Point {
        switch self {
        case .deg0: p
        case .deg90: Point(x: physical.width - p.y, y: p.x)
        case .deg180: Point(x: physical.width - p.x, y: physical.height - p.y)
        case .deg270: Point(x: p.y, y: physical.height - p.x)
        }
    }

    /// The logical point shown at physical position `p` (the inverse of `toPhysical`).
    package func toLogical(_ p: Point, physical: Size) -> Point {
        switch self {
        case .deg0: p
        case .deg90: Point(x: p.y, y: physical.width - p.x)
        case .deg180: Point(x: physical.width - p.x, y: physical.height - p.y)
        case .deg270: Point(x: physical.height - p.y, y: p.x)
        }
    }

    /// This rotation followed by `other`.
    func then(_ other: Rotation) -> Rotation {
        Rotation(degrees: rawValue + other.rawValue)!
    }
}
