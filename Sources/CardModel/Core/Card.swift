/// One card as the operator described it in the deck file.
public struct Card: Hashable, Sendable, Identifiable {
    /// Unique within the deck; decisions refer to it.
    public var id: String
    public var title: String
    /// The body line under the title (the SwiftUI design's subtitle); may be empty.
    public var subtitle: String
    /// The card's colour: the stack's gradient base, or the list row's background.
    public var color: Color
    /// Text colour that reads on `color` (a theme's accent colour).
    public var accent: Color
    /// Path of a product image, already resolved by the app; nil for none.
    public var imagePath: String?
    /// What the image shows, in words (the deck's "alt"; WCAG 1.1.1): speech reads it after the
    /// subtitle. Empty: none.
    public var imageDescription: String = ""
    public var tags: [String]
    /// The title in every language the deck carries it in (nil: `title` only); `localized(to:)`
    /// picks the visitor's.
    public var localizedTitle: LocalizedText?
    /// The subtitle in every language the deck carries it in (nil: `subtitle` only).
    public var localizedSubtitle: LocalizedText?
    /// The image's description in every language the deck carries it in (nil: `imageDescription` only).
    public var localizedImageDescription: LocalizedText?
    /// How much larger than the design its texts are drawn (1.5 in the visit's large-text
    /// mode, `VisitAccessibility.largeTextScale`); the renderer re-lays the card out for it.
    public var textScale: Double = 1
    /// A link handed to the visitor as a QR code under the text (the deck's "link"); nil: none.
    public var link: String?
    /// The code's least side with its quiet zone in the card's own points (25 mm on the glass
    /// at the stack's scale, `LinkCode`); set by the stack's layout, 0 until then.
    public var linkCodeSide: Double = 0

    public init(
        id: String, title: String, subtitle: String = "", color: Color, accent: Color = .white,
        imagePath: String? = nil, tags: [String] = []
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.color = color
        self.accent = accent
        self.imagePath = imagePath
        self.tags = tags
    }
}
