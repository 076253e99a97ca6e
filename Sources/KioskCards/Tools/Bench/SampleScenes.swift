import CardModel

// Hand-built scenes in the brief's layout, for the renderer's own tests (goldens, pipeline
// equivalence) and the benchmark: they pin drawing independently of the model. `render` and
// the app draw the real CardModel decks (`RenderInputs.scene`), whose layouts are pinned by
// CardModel's tests; `render` falls back to these cards when no deck file is given.

/// Scenes for the two seed designs, laid out as the brief describes.
enum SampleScenes {
    /// The stack seed's background.
    static let stackBackground = Color(rgb: 0xF2F2F7)
    /// The list seed's background (systemGroupedBackground).
    static let listBackground = Color(rgb: 0xF2F2F7)
    static let cardSize = Size(width: 320, height: 440)

    /// The seed's five German cards.
    static let germanCards: [Card] = [
        Card(
            id: "willkommen", title: "Willkommen!",
            subtitle: "Wische nach rechts für Ja und nach links für Nein. Los geht’s!",
            color: Color(rgb: 0x5856D6)),
        Card(
            id: "broetchen", title: "Frische Brötchen",
            subtitle: "Jeden Morgen ab 6 Uhr aus dem Steinofen – knusprig und warm.", color: Color(rgb: 0x199E94)),
        Card(
            id: "oeffnungszeiten", title: "Öffnungszeiten",
            subtitle: "Montag bis Samstag 7–19 Uhr, sonn- und feiertags geschlossen.", color: Color(rgb: 0xE8672A)),
        Card(
            id: "kundenkarte", title: "Kundenkarte",
            subtitle: "Sammle Punkte bei jedem Einkauf und spare beim nächsten Mal.", color: Color(rgb: 0xA6268C)),
        Card(
            id: "gruesse", title: "Grüße aus Köln",
            subtitle: "Schön, dass du da bist – viel Spaß beim Stöbern!", color: Color(rgb: 0x00235A)),
    ]

    /// Eight list rows, one per theme, as in "Color Cards".
    static let themedCards: [Card] = [
        ("Design", Theme.yellow), ("App Dev", .orange), ("Web Dev", .poppy), ("Marketing", .bubblegum),
        ("Engineering", .indigo), ("Support", .sky), ("Vertrieb", .teal), ("Buchhaltung", .navy),
    ].enumerated().map { i, pair in
        pair.1.apply(to: Card(id: "row\(i)", title: pair.0, subtitle: "Thema \(pair.1.rawValue)", color: .black))
    }

    /// `count` cards cycling through the German ones with distinct ids (big decks).
    static func manyCards(_ count: Int) -> [Card] {
        (0..<count).map { i in
            var c = germanCards[i % germanCards.count]
            c.id = "\(c.id)-\(i)"
            if i >= germanCards.count { c.title += " \(i + 1)" }
            return c
        }
    }

    /// The stack: up to `visible` cards, the top one dragged by `drag` points.
    static func stack(
        _ cards: [Card], size: Size, drag: Point = .zero, dragging: Bool = false, visible: Int = 3,
        buttons: Bool = false, emptyText: String = "Alle Karten erledigt!"
    ) -> Scene {
        let shown = Array(cards.prefix(visible))
        let cardFrame = Rect(
            x: (size.width - cardSize.width) / 2, y: (size.height - cardSize.height) / 2 - (buttons ? 36 : 0),
            width: cardSize.width, height: cardSize.height)
        var elements: [SceneElement] = []
        if shown.isEmpty {
            elements.append(
                SceneElement(id: "empty", kind: .emptyState(text: emptyText), frame: cardFrame))
        }
        for (i, card) in shown.enumerated() {
            var t = Transform(translation: Point(x: 0, y: 8 * Double(i)), scale: 1 - 0.04 * Double(i))
            var shadow = 8.0
            if i == 0 {
                t = Transform(
                    translation: Point(x: drag.x, y: drag.y / 12), rotation: drag.x / 20 * Double.pi / 180)
                shadow = dragging ? 18 : 8
            }
            elements.append(
                SceneElement(
                    id: "card:\(card.id)", kind: .card(card), frame: cardFrame, transform: t, shadowRadius: shadow,
                    zIndex: visible - i))
        }
        if buttons {
            let y = cardFrame.maxY + 36
            for (i, role) in [ButtonRole.dismissLeft, .undo, .dismissRight].enumerated() {
                let d = i == 1 ? 48.0 : 60.0
                let cx = size.width / 2 + Double(i - 1) * 90
                elements.append(
                    SceneElement(
                        id: "button:\(role.rawValue)", kind: .button(role),
                        frame: Rect(x: cx - d / 2, y: y + (60 - d) / 2, width: d, height: d), zIndex: 100))
            }
        }
        return Scene(size: size, background: stackBackground, elements: elements, isAnimating: dragging)
    }

    static let titleBarHeight = 96.0
    static let rowHeight = 64.0

    /// The list: title bar with "+", rows scrolled up by `scroll` points, row `swipe.row`
    /// pulled left by `swipe.dx` points with the delete area behind it.
    static func list(_ cards: [Card], size: Size, scroll: Double = 0, swipe: (row: Int, dx: Double)? = nil) -> Scene {
        var elements: [SceneElement] = [
            SceneElement(
                id: "titlebar", kind: .titleBar(title: "Color Cards"),
                frame: Rect(x: 0, y: 0, width: size.width, height: titleBarHeight), zIndex: 10),
            SceneElement(
                id: "button:add", kind: .button(.add), frame: Rect(x: size.width - 60, y: 44, width: 44, height: 44),
                zIndex: 11),
        ]
        for (i, card) in cards.enumerated() {
            let top = titleBarHeight + 8 + Double(i) * rowHeight - scroll
            let frame = Rect(x: 10, y: top + 2, width: size.width - 20, height: rowHeight - 4)
            guard frame.maxY > 0, frame.minY < size.height else { continue }
            var t = Transform.identity
            if let swipe, swipe.row == i, swipe.dx < 0 {
                t.translation = Point(x: swipe.dx, y: 0)
                elements.append(
                    SceneElement(
                        id: "delete:\(card.id)", kind: .deleteArea,
                        frame: Rect(x: frame.maxX + swipe.dx, y: frame.minY, width: -swipe.dx, height: frame.height),
                        zIndex: 0))
            }
            elements.append(SceneElement(id: "row:\(card.id)", kind: .row(card), frame: frame, transform: t, zIndex: 1))
        }
        return Scene(size: size, background: listBackground, elements: elements, isAnimating: false)
    }

    /// A row's detail page with its back control.
    static func detail(_ card: Card, size: Size) -> Scene {
        Scene(
            size: size, background: listBackground,
            elements: [
                SceneElement(id: "detail:\(card.id)", kind: .detailPage(card), frame: Rect(origin: .zero, size: size)),
                SceneElement(
                    id: "button:back", kind: .button(.back), frame: Rect(x: 16, y: 36, width: 44, height: 44), zIndex: 1
                ),
            ], isAnimating: false)
    }
}
