/// The "Color Cards" list's geometry on a screen of any size.
///
/// Rows have a fixed height as in the seed: a 22 pt `.headline` line with 25 pt padding above
/// and below (72 pt), inside list-row insets of 2 pt top and bottom and 10 pt left and right,
/// so a row takes a 76 pt slot.
public struct ListLayout: Hashable, Sendable {
    public static let titleBarHeight = 56.0
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

    public init(screen: Size, bottomInset: Double = 0) {
        self.screen = screen
        self.bottomInset = max(0, min(bottomInset, screen.height - Self.titleBarHeight))
    }

    /// Where rows scroll: below the title bar, above the bottom band.
    public var viewport: Rect {
        Rect(
            x: 0, y: Self.titleBarHeight, width: screen.width,
            height: max(0, screen.height - Self.titleBarHeight - bottomInset))
    }

    /// The bottom band (nil without one), drawn over rows that scroll into it.
    public var bottomBar: Rect? {
        bottomInset > 0 ? Rect(x: 0, y: screen.height - bottomInset, width: screen.width, height: bottomInset) : nil
    }

    public var titleBar: Rect { Rect(x: 0, y: 0, width: screen.width, height: Self.titleBarHeight) }
    public var addButton: Rect { Rect(x: screen.width - 56, y: 6, width: 44, height: 44) }
    /// The detail page's "‹ Color Cards" (the list's title), as a navigation bar shows it.
    public var backButton: Rect { Rect(x: 8, y: 6, width: min(220, max(88, screen.width - 16)), height: 44) }
    public var rowWidth: Double { max(0, screen.width - 2 * Self.insetHorizontal) }
    /// The detail page's Delete, at the right of its navigation bar: deleting a card with one tap
    /// and no drag (WCAG 2.5.7; the list's own Delete needs a swipe first).
    public var detailDeleteButton: Rect {
        let w = min(150, max(100, screen.width * 0.25))
        return Rect(x: screen.width - 12 - w, y: 6, width: w, height: 44)
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
