/// The "Color Cards" list's geometry on a screen of any size.
///
/// Rows have a fixed content height: the headline's 44 pt plus 8 pt padding above and below
/// (60 pt), inside list-row insets of 2 pt top and bottom and 10 pt left and right, so a row
/// takes a 64 pt slot.
public struct ListLayout: Hashable, Sendable {
    public static let titleBarHeight = 56.0
    public static let rowContentHeight = 44.0
    public static let rowPadding = 8.0
    public static let insetVertical = 2.0
    public static let insetHorizontal = 10.0
    public static var rowHeight: Double { rowContentHeight + 2 * rowPadding }
    public static var slotHeight: Double { rowHeight + 2 * insetVertical }

    public let screen: Size

    public init(screen: Size) { self.screen = screen }

    /// Where rows scroll: below the title bar.
    public var viewport: Rect {
        Rect(x: 0, y: Self.titleBarHeight, width: screen.width, height: max(0, screen.height - Self.titleBarHeight))
    }

    public var titleBar: Rect { Rect(x: 0, y: 0, width: screen.width, height: Self.titleBarHeight) }
    public var addButton: Rect { Rect(x: screen.width - 56, y: 6, width: 44, height: 44) }
    public var backButton: Rect { Rect(x: 8, y: 6, width: 88, height: 44) }
    public var rowWidth: Double { max(0, screen.width - 2 * Self.insetHorizontal) }

    /// A left swipe beyond this (or flicked beyond it) deletes the row.
    public var deleteThreshold: Double { min(rowWidth / 2, 160) }

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
