/// The "Color Cards" list's geometry on a screen of any size.
///
/// Rows have a fixed height as in the seed: a 22 pt `.headline` line with 25 pt padding above
/// and below (72 pt), inside list-row insets of 2 pt top and bottom and 10 pt left and right,
/// so a row takes a 76 pt slot. The title bar holds the seed's 44 pt controls in a 56 pt bar
/// where 44 pt are at least `StackLayout.minimumTargetMillimetres` on the glass; on a denser
/// panel the controls grow to 9 mm and the bar with them.
public struct ListLayout: Hashable, Sendable {
    /// The seed's bar: what a panel whose 44 pt are 9 mm or more gets.
    public static let minimumTitleBarHeight = 56.0
    /// The seed's bar controls ("+", "‹ Color Cards", Delete): 44 pt high.
    public static let minimumControlSide = 44.0
    public static let rowContentHeight = 22.0
    public static let rowPadding = 25.0
    public static let insetVertical = 2.0
    public static let insetHorizontal = 10.0
    public static var rowHeight: Double { rowContentHeight + 2 * rowPadding }
    public static var slotHeight: Double { rowHeight + 2 * insetVertical }

    public let screen: Size
    /// A band along the bottom kept clear of rows (the accessibility control's "Aa" sits in it):
    /// the rows scroll above it, and the last one can scroll fully clear of it.
    public let bottomInset: Double
    /// The bar controls' height: 44 pt, or 9 mm on the glass where that is more.
    public let controlSide: Double
    /// The title bar's height: the controls and 6 pt above and below them, at least 56 pt.
    public let titleBarHeight: Double
    /// A band under the title bar for the language keys when they do not fit in the bar beside
    /// the title (0: none); rows scroll below it.
    public let languageBand: Double
    /// How far the bar's controls keep from its left and right ends (the staff entry's corner,
    /// in the scene's left-to-right coordinates): 0 for none.
    public let reservedLeft: Double
    public let reservedRight: Double

    /// The layout on `screen`; `pointsPerMillimetre` (the panel's) sizes the bar's controls to
    /// at least 9 mm, nil: the seed's 44 pt. `reservedLeft`/`reservedRight` keep the bar's
    /// controls clear of a corner square that wide at that end (at most the bar's height).
    public init(
        screen: Size, bottomInset: Double = 0, pointsPerMillimetre: Double? = nil, languageBand: Double = 0,
        reservedLeft: Double = 0, reservedRight: Double = 0
    ) {
        self.screen = screen
        let side = max(Self.minimumControlSide, StackLayout.targetSide(pointsPerMillimetre: pointsPerMillimetre))
        controlSide = side
        let bar = max(Self.minimumTitleBarHeight, side + 12)
        titleBarHeight = bar
        let band = max(0, min(languageBand, screen.height - bar))
        self.languageBand = band
        self.bottomInset = max(0, min(bottomInset, screen.height - bar - band))
        self.reservedLeft = max(0, min(reservedLeft, bar))
        self.reservedRight = max(0, min(reservedRight, bar))
    }

    /// The same layout with a language band `height` points high under the title bar.
    public func withLanguageBand(_ height: Double) -> ListLayout {
        ListLayout(
            screen: screen, bottomInset: bottomInset, controlSide: controlSide, languageBand: height,
            reservedLeft: reservedLeft, reservedRight: reservedRight)
    }

    private init(
        screen: Size, bottomInset: Double, controlSide: Double, languageBand: Double, reservedLeft: Double,
        reservedRight: Double
    ) {
        self.screen = screen
        self.controlSide = controlSide
        titleBarHeight = max(Self.minimumTitleBarHeight, controlSide + 12)
        self.languageBand = max(0, min(languageBand, screen.height - titleBarHeight))
        self.bottomInset = max(0, min(bottomInset, screen.height - titleBarHeight - self.languageBand))
        self.reservedLeft = reservedLeft
        self.reservedRight = reservedRight
    }

    /// Where rows scroll: below the title bar (and the language band), above the bottom band.
    public var viewport: Rect {
        let top = titleBarHeight + languageBand
        return Rect(x: 0, y: top, width: screen.width, height: max(0, screen.height - top - bottomInset))
    }

    /// The bottom band (nil without one), drawn over rows that scroll into it.
    public var bottomBar: Rect? {
        bottomInset > 0 ? Rect(x: 0, y: screen.height - bottomInset, width: screen.width, height: bottomInset) : nil
    }

    /// The language band (nil without one), drawn over rows that scroll into it.
    public var languageBar: Rect? {
        languageBand > 0 ? Rect(x: 0, y: titleBarHeight, width: screen.width, height: languageBand) : nil
    }

    public var titleBar: Rect { Rect(x: 0, y: 0, width: screen.width, height: titleBarHeight) }
    /// The top of the bar's controls (6 pt in the seed's bar).
    private var controlTop: Double { (titleBarHeight - controlSide) / 2 }
    /// The bar's controls end this far from the right edge (12 pt, or clear of a corner).
    private var rightMargin: Double { max(12, reservedRight > 0 ? reservedRight + 8 : 0) }
    public var addButton: Rect {
        Rect(x: screen.width - rightMargin - controlSide, y: controlTop, width: controlSide, height: controlSide)
    }
    /// The detail page's "‹ Color Cards" (the list's title), as a navigation bar shows it.
    public var backButton: Rect {
        let x = max(8, reservedLeft > 0 ? reservedLeft + 8 : 0)
        return Rect(x: x, y: controlTop, width: min(220, max(88, screen.width - 16)), height: controlSide)
    }
    public var rowWidth: Double { max(0, screen.width - 2 * Self.insetHorizontal) }
    /// The detail page's Delete, at the right of its navigation bar: deleting a card with one tap
    /// and no drag (WCAG 2.5.7; the list's own Delete needs a swipe first).
    public var detailDeleteButton: Rect {
        let w = min(150, max(100, screen.width * 0.25))
        return Rect(x: screen.width - rightMargin - w, y: controlTop, width: w, height: controlSide)
    }

    /// What a row of language keys in the bar keeps free at its right end: the "+" and, on a
    /// detail page (the keys stay in front of it), its Delete.
    public var languageRowInset: Double { screen.width - min(addButton.minX, detailDeleteButton.minX) }

    /// What a row of language keys in the bar keeps free at its left end: the title's room,
    /// and the detail page's back control.
    public var languageRowLead: Double { max(220, backButton.maxX + 8) }

    /// Where the language keys go: a row in the bar left of its "+", or lines in the band.
    public var languagePlacement: LanguageChoice.Placement {
        languageBand > 0
            ? .band(top: titleBarHeight) : .row(trailingInset: languageRowInset, leadingRoom: languageRowLead)
    }

    /// The Delete button a partial swipe uncovers (iOS: about 80 pt).
    public static let deleteButtonWidth = 80.0

    /// A left swipe released beyond this (or flicked beyond it) deletes the row at once, as a
    /// full swipe does on iOS: half the row, at least well past the Delete button.
    public var deleteThreshold: Double { max(rowWidth / 2, Self.deleteButtonWidth + 80) }

    /// A left swipe released beyond this (short of `deleteThreshold`) leaves the row open with
    /// its Delete button showing.
    public static let revealThreshold = 40.0

    /// The frame of a row whose slot starts `contentY` points into the content, scrolled by
    /// `offset`.
    public func rowFrame(contentY: Double, offset: Double) -> Rect {
        Rect(
            x: Self.insetHorizontal, y: viewport.minY + contentY + Self.insetVertical - offset, width: rowWidth,
            height: Self.rowHeight)
    }

    public func contentHeight(rows: Int) -> Double { Double(rows) * Self.slotHeight }

    /// The largest scroll offset: 0 when everything fits.
    public func maxOffset(rows: Int) -> Double { max(0, contentHeight(rows: rows) - viewport.height) }

    /// The offset that shows the last row at the bottom of the viewport.
    public func offsetShowingLast(rows: Int) -> Double { maxOffset(rows: rows) }
}
