import CardModel
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskDisplay
@testable import KioskRender
@testable import KioskSystem

/// The example decks (`examples/`) loaded with the real deck loader, driven through the real
/// decks by gestures the way `KioskCards render` drives them, rendered headlessly and compared
/// with reviewed images in `Fixtures/golden` (regenerate with KIOSK_WRITE_GOLDEN=1, then look
/// at every image).
@Suite struct GoldenImageTests {
    /// An 800×480 panel at 0.8 pixels per point: 1000×600 points.
    static let width = 800
    static let height = 480
    static let scale = 0.8
    static var size: Size { Size(width: Double(width) / scale, height: Double(height) / scale) }

    func check(_ scene: Scene, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let image = RenderFixtures.render(scene, width: Self.width, height: Self.height, scale: Self.scale)
        RenderFixtures.expectMatchesGolden(image, name, sourceLocation: sourceLocation)
    }

    static func example(_ name: String) throws -> DeckFile {
        try RenderInputs.deck(path: RenderDeckTests.examples + "/" + name, layout: nil)
    }

    /// `file` after `gesture` (nil: the attract screen the kiosk starts on), `atMs` later.
    func scene(_ file: DeckFile, _ gesture: String?, atMs: Double = 0, size: Size = size) throws -> Scene {
        try RenderInputs.scene(deck: file, size: size, gesture: gesture, scriptPath: nil, atMs: atMs)
    }

    /// A visitor touched the card and let go: the stack at rest, with its buttons.
    @Test func stackAtRest() throws {
        check(try scene(Self.example("onboarding.json"), "tap 500 300", atMs: 1000), "stack-rest")
    }

    /// The seed's own five cards (`seed-stack.json`) at rest.
    @Test func seedStack() throws {
        check(try scene(Self.example("seed-stack.json"), "tap 500 300", atMs: 1000), "seed-stack")
    }

    @Test func stackMidDragLeft() throws {
        check(try scene(Self.example("quiz-flashcards.json"), "drag -140 36"), "stack-drag-left")
    }

    @Test func stackMidDragRight() throws {
        check(try scene(Self.example("onboarding.json"), "drag 170 -24"), "stack-drag-right")
    }

    /// Between visitors: the attract line and the top card mid-nudge.
    @Test func attract() throws {
        let s = try scene(Self.example("onboarding.json"), nil, atMs: 1850)
        #expect(s.elements.contains { $0.id == "label:attract" })
        check(s, "attract")
    }

    /// The inactivity warning over the stack: 7 seconds left, "tap to continue".
    @Test func inactivityCountdown() throws {
        let base = try scene(Self.example("seed-stack.json"), "tap 500 300", atMs: 1000)
        let warning = VisitorSession.Warning(resetAt: .seconds(60), secondsLeft: 7, extensions: 0)
        let s = InactivityWarning.overlay(base, warning, text: InactivityWarning.defaultText)
        #expect(s.elements.last?.kind == .countdown(secondsLeft: 7, text: InactivityWarning.defaultText))
        check(s, "inactivity-countdown")
    }

    /// The staff menu over the stack: the PIN pad after two digits, and the menu page.
    @Test func staffMenu() throws {
        let base = try scene(Self.example("seed-stack.json"), "tap 500 300", atMs: 1000)
        var menu = StaffMenu(language: "de")
        menu.open(at: .seconds(0))
        for key in ["key:4", "key:7"] {
            let frame = try #require(StaffMenu.layout(menu.page, screen: base.size).first { $0.id == key }).frame
            _ = menu.tap(at: frame.center, screen: base.size, time: .seconds(1))
        }
        func overlay() -> Scene {
            Scene(
                size: base.size, background: base.background,
                elements: base.elements
                    + menu.elements(
                        info: [
                            "Kiosk: lobby-1", "IP: 192.0.2.10 (eth0)", "Deck: seed v1",
                            "Entscheidungen: 12 gespeichert, 0 ungesendet",
                        ],
                        screen: base.size),
                isAnimating: false)
        }
        check(overlay(), "staff-pin")
        let ok = try #require(StaffMenu.layout(menu.page, screen: base.size).first { $0.id == "key:OK" }).frame
        #expect(menu.tap(at: ok.center, screen: base.size, time: .seconds(2)) == .checkPIN("47"))
        #expect(menu.pinChecked(correct: true, at: .seconds(2)) == .accepted)
        check(overlay(), "staff-menu")
    }

    /// The staff menu of a kiosk configured for Arabic (`language = ar`): every word from
    /// `UIStrings`, the status lines as `staffInfo` builds them.
    @Test func staffMenuArabic() throws {
        let base = try scene(Self.example("seed-stack.json"), "tap 500 300", atMs: 1000)
        let language = "ar"
        var menu = StaffMenu(language: language)
        menu.open(at: .seconds(0))
        for key in ["key:4", "key:OK"] {
            let frame = try #require(StaffMenu.layout(menu.page, screen: base.size).first { $0.id == key }).frame
            _ = menu.tap(at: frame.center, screen: base.size, time: .seconds(1))
        }
        #expect(menu.pinChecked(correct: true, at: .seconds(2)) == .accepted)
        let info = [
            UIStrings.text(.infoKiosk, in: language, "lobby-1"),
            UIStrings.text(.infoIP, in: language, "192.0.2.10 (eth0)"),
            UIStrings.text(.infoDeck, in: language, "seed", "1"),
            UIStrings.text(.infoDecisions, in: language, "12", "0"),
            UIStrings.text(.infoFleetOff, in: language),
        ]
        let scene = Scene(
            size: base.size, background: base.background,
            elements: base.elements + menu.elements(info: info, screen: base.size), isAnimating: false)
        check(scene, "staff-menu-\(language)")
    }

    /// Every card swiped away (by the ✓ key), the departures gone: the empty state.
    @Test func emptyState() throws {
        let file = try Self.example("onboarding.json")
        let metrics = ScreenMetrics(size: Self.size, pointsPerMillimetre: RenderScale.baselinePixelsPerInch / 25.4)
        let start = Instant.seconds(1)
        var deck = Kiosk.makeDeck(file.kioskDeck(), metrics: metrics, buttons: true)
        for i in file.cards.indices { deck.perform(.dismissRight, at: start.advanced(bySeconds: 0.1 * Double(i))) }
        let s = deck.scene(at: start.advanced(bySeconds: 3))
        #expect(s.elements.contains { if case .emptyState = $0.kind { true } else { false } })
        check(s, "stack-empty")
    }

    /// The high-contrast look of the deck whose first card fails WCAG AA normally.
    @Test func stackHighContrast() throws {
        var file = try Self.example("onboarding.json")
        file.cards = HighContrast.apply(to: file.cards, backdrop: Color(rgb: 0xF2F2F7))
        check(try scene(file, "tap 500 300", atMs: 1000), "stack-high-contrast")
    }

    /// Large text (×1.5) on the stack with the visible control open, and large
    /// text with high contrast: the texts wrap and ellipsise inside the card, nothing is cut
    /// at its edge.
    @Test func stackLargeText() throws {
        let file = try Self.example("onboarding.json")
        let metrics = ScreenMetrics(size: Self.size, pointsPerMillimetre: 1000 / 154.08)
        let start = Instant.seconds(1)
        var deck = Kiosk.makeDeck(file.kioskDeck(), metrics: metrics, buttons: true)
        var control = AccessibilityControl(screen: Self.size, pointsPerMillimetre: metrics.pointsPerMillimetre)
        for (k, p) in [control.buttonFrame.center, control.frame(of: .largeText).center].enumerated() {
            let t = start.advanced(bySeconds: Double(k))
            _ = control.take(TouchFrame(time: t, contacts: [TouchContact(id: 1, position: p, phase: .began)]))
            _ = control.take(TouchFrame(time: t, contacts: [TouchContact(id: 1, position: p, phase: .ended)]))
        }
        #expect(control.modes == VisitAccessibility(largeText: true))
        deck.setAccessibility(control.modes, at: start.advanced(bySeconds: 2))
        check(control.overlay(deck.scene(at: start.advanced(bySeconds: 3))), "stack-large-text")
        control.toggle(.highContrast)
        deck.setAccessibility(control.modes, at: start.advanced(bySeconds: 4))
        deck.perform(.dismissRight, at: start.advanced(bySeconds: 4))
        check(control.overlay(deck.scene(at: start.advanced(bySeconds: 6))), "stack-large-text-high-contrast")
    }

    /// The list in large text: rows take the larger headline on one line (ellipsised).
    @Test func listLargeText() throws {
        let file = try Self.example("seed-list.json")
        let metrics = ScreenMetrics(size: Self.size, pointsPerMillimetre: 1000 / 154.08)
        var deck = Kiosk.makeDeck(file.kioskDeck(), metrics: metrics, buttons: true)
        deck.setAccessibility(VisitAccessibility(largeText: true), at: .seconds(1))
        var control = AccessibilityControl(
            screen: Self.size, pointsPerMillimetre: metrics.pointsPerMillimetre, trailing: true)
        let p = control.buttonFrame.center
        _ = control.take(TouchFrame(time: .seconds(1), contacts: [TouchContact(id: 1, position: p, phase: .began)]))
        _ = control.take(TouchFrame(time: .seconds(1), contacts: [TouchContact(id: 1, position: p, phase: .ended)]))
        control.toggle(.largeText)
        check(control.overlay(deck.scene(at: .seconds(2))), "list-large-text")
    }

    /// Keyboard focus on the list's third row (↓ three times): the focus ring.
    @Test func listFocusRing() throws {
        let file = try Self.example("seed-list.json")
        let metrics = ScreenMetrics(size: Self.size, pointsPerMillimetre: RenderScale.baselinePixelsPerInch / 25.4)
        let start = Instant.seconds(1)
        var deck = try #require(Kiosk.makeDeck(file.kioskDeck(), metrics: metrics, buttons: true) as? ListDeck)
        for i in 0..<3 { deck.perform(.focusNext, at: start.advanced(bySeconds: 0.1 * Double(i))) }
        let s = deck.scene(at: start.advanced(bySeconds: 2))
        #expect(s.elements.contains { $0.id == "focus:card-3" })
        check(s, "list-focus-ring")
    }

    /// One-switch scanning (`switch-key`) on the stack: one short press moved the ring from ✗ to ✓.
    @Test func stackSwitchScan() throws {
        let file = try Self.example("onboarding.json")
        let metrics = ScreenMetrics(size: Self.size, pointsPerMillimetre: 1000 / 154.08)
        let start = Instant.seconds(1)
        var deck = Kiosk.makeDeck(file.kioskDeck(), metrics: metrics, buttons: true)
        let choices = try #require(deck as? any AccessibleDeck).scanChoices
        var scanner = SwitchScanner()
        _ = scanner.press(at: start, choices: choices)
        _ = scanner.release(at: start.advanced(bySeconds: 0.1), choices: choices)
        #expect(scanner.highlighted(in: choices) == .action(.dismissRight))
        let t = start.advanced(bySeconds: 1)
        let accessible = try #require(deck as? any AccessibleDeck)
        let ring = try #require(accessible.scanHighlight(scanner, at: t))
        let s = deck.scene(at: t).adding([ring])
        #expect(s.elements.contains { $0.id == "scan" && $0.kind == .focusRing })
        check(s, "stack-switch-scan")
    }

    /// A visitor tapped the title bar: the list at rest.
    @Test func list() throws {
        check(try scene(Self.example("seed-list.json"), "tap 300 20", atMs: 500), "list")
    }

    /// The first row held mid-swipe to the left, the delete area behind it.
    @Test func listRowMidDelete() throws {
        check(try scene(Self.example("seed-list.json"), "drag -96 0"), "list-row-delete")
    }

    /// The first row swiped part of the way and let go: it stays open on its Delete button.
    @Test func listRowOpen() throws {
        let s = try scene(Self.example("seed-list.json"), "release -120 0", atMs: 1500)
        #expect(s.elements.contains { $0.id.hasPrefix("delete:") })
        check(s, "list-row-open")
    }

    /// A list deck without cards: the deck's empty text.
    @Test func listEmpty() throws {
        var file = try Self.example("seed-list.json")
        file.cards = []
        let s = try scene(file, nil, atMs: 500)
        #expect(s.elements.contains { $0.id == "empty" })
        check(s, "list-empty")
    }

    /// The fifth row tapped: its detail page, slid in.
    @Test func detailPage() throws {
        let file = try Self.example("seed-list.json")
        let atRest = try scene(file, "tap 300 20")
        let row = try #require(atRest.elements.first { $0.id == "row:" + file.cards[4].id })
        let s = try scene(file, "tap \(row.frame.center.x) \(row.frame.center.y)", atMs: 1500)
        #expect(s.elements.contains { $0.id == "detail:" + file.cards[4].id })
        check(s, "detail")
    }

    /// The product deck at rest: photos on the cards.
    @Test func cardWithImage() throws {
        check(try scene(Self.example("products/products.json"), "tap 500 300", atMs: 1000), "card-image")
    }

    static let texts: [(name: String, title: String, subtitle: String)] = [
        ("text-german", "Größe & Übermaß", "Äpfel, Öl und süße Grüße aus Düsseldorf – straßenfrisch."),
        ("text-arabic", "مرحبا بكم في متجرنا", "اسحب يمينًا للموافقة ويسارًا للرفض. שלום וברוכים הבאים!"),
        ("text-japanese", "ようこそ！新しいカード", "右にスワイプで「はい」、左で「いいえ」。"),
        ("text-emoji", "Party 🎉🥳 Zeit!", "Kuchen 🍰, Kaffee ☕ und Musik 🎶 für alle 👍🏽"),
        (
            "text-ellipsis",
            "Ein ausgesprochen langer Titel, der auf keine Karte passt und darum gekürzt wird",
            "Auch der Untertitel ist viel zu lang für den Platz, den eine Karte ihm lässt: "
                + String(
                    repeating: "Noch mehr Text, der umbricht und am Ende mit Auslassungspunkten endet. ", count: 8)
        ),
    ]

    @Test(arguments: texts.map(\.name))
    func text(_ name: String) throws {
        let t = try #require(Self.texts.first { $0.name == name })
        var file = try Self.example("onboarding.json")
        file.cards = [Card(id: name, title: t.title, subtitle: t.subtitle, color: Color(rgb: 0x3A3A8C))]
        check(try scene(file, "tap 500 300", atMs: 1000), name)
    }

    /// The swipe stamp and edge tint on a light, a dark and a photo card, to both sides.
    @Test(arguments: ["light", "dark", "photo"], ["left", "right"])
    func stamp(_ card: String, _ side: String) throws {
        var file = try Self.example(card == "photo" ? "products/products.json" : "onboarding.json")
        if card != "photo" {
            let light = card == "light"
            file.cards = [
                Card(
                    id: card, title: light ? "Helle Karte" : "Dunkle Karte",
                    subtitle: "Der Stempel deckt weder Titel noch Untertitel.",
                    color: Color(rgb: light ? 0xF4EFE6 : 0x1C1C1E), accent: light ? Color(rgb: 0x1C1C1E) : .white),
                Card(id: "next", title: "Darunter", subtitle: "Scheint nicht durch.", color: Color(rgb: 0x3A7BD5)),
            ]
        }
        check(try scene(file, side == "left" ? "drag -130 20" : "drag 130 -20"), "stamp-\(card)-\(side)")
    }

    /// Panels as `run` lays them out (`PanelGeometry` from pixels and EDID millimetres), the
    /// same frames `render --size WxH --panel-mm WxH` writes.
    static let panels: [(name: String, pixels: Size, mm: Size)] = [
        ("panel-7in-800x480", Size(width: 800, height: 480), Size(width: 154, height: 86)),
        ("panel-10in-1280x800", Size(width: 1280, height: 800), Size(width: 217, height: 136)),
        ("panel-15in-1920x1080", Size(width: 1920, height: 1080), Size(width: 344, height: 194)),
        ("panel-10in-portrait-800x1280", Size(width: 800, height: 1280), Size(width: 136, height: 217)),
    ]

    @Test(arguments: panels.map(\.name))
    func panel(_ name: String) throws {
        let p = try #require(Self.panels.first { $0.name == name })
        let geometry = PanelGeometry(
            pixelWidth: Int(p.pixels.width), pixelHeight: Int(p.pixels.height), millimetres: p.mm)
        let s = try RenderInputs.scene(
            deck: Self.example("onboarding.json"), size: geometry.metrics.size, gesture: "drag 60 0", scriptPath: nil,
            atMs: 0, pointsPerMillimetre: geometry.metrics.pointsPerMillimetre)
        let image = RenderFixtures.render(
            s, width: Int(p.pixels.width), height: Int(p.pixels.height), scale: geometry.scale)
        RenderFixtures.expectMatchesGolden(image, name)
    }

    @Test func textCJKAndEmoji() throws {
        var file = try Self.example("onboarding.json")
        file.cards = [
            Card(
                id: "cjk", title: RenderFixtures.cjkEmoji.title, subtitle: RenderFixtures.cjkEmoji.subtitle,
                color: Color(rgb: 0xF4EFE6),
                accent: Color(rgb: 0x1C1C1E))
        ]
        check(try scene(file, "tap 500 300", atMs: 1000), "text-cjk-emoji")
    }

    /// An 800×480 panel mounted portrait: the scene is laid out in 480×800 pixels (600×1000
    /// points) and the PNG shows the panel as it is scanned out.
    @Test func rotation90() throws {
        let rotation = Rotation.deg90
        let logical = rotation.logicalSize(physical: Size(width: 800, height: 480))
        let scene = try scene(
            Self.example("onboarding.json"), "drag 60 0",
            size: Size(width: logical.width / Self.scale, height: logical.height / Self.scale))
        let image = RenderFixtures.render(
            scene, width: Int(logical.width), height: Int(logical.height), scale: Self.scale)
        let panel = panelImage(image, rotation: rotation)
        #expect(panel.width == 800 && panel.height == 480)
        RenderFixtures.expectMatchesGolden(panel, "rotation-90")
    }

    /// The RGB565 scanout as `render --pixel-format rgb565` draws it (and `run --pixel-format
    /// rgb565` shows it): upright, and on the portrait panel. Besides its own golden, each
    /// picture must be RGB565 through and through (every channel's low bits repeat its top
    /// bits), and its golden must be the reviewed XRGB8888 golden of the same scene dithered by
    /// the test's own formula (`RGB565Oracle.expected565`), so it is a dithered picture of
    /// a reviewed one rather than whatever the code did when it was written.
    @Test func stackDragRGB565() throws {
        let image = RenderFixtures.render(
            try scene(Self.example("onboarding.json"), "drag 170 -24"), width: Self.width, height: Self.height,
            scale: Self.scale)
        checkRGB565(panelImage(image, rotation: .deg0, format: .rgb565), "stack-drag-right", rotation: .deg0)
    }

    @Test func rotation90RGB565() throws {
        let rotation = Rotation.deg90
        let logical = rotation.logicalSize(physical: Size(width: 800, height: 480))
        let scene = try scene(
            Self.example("onboarding.json"), "drag 60 0",
            size: Size(width: logical.width / Self.scale, height: logical.height / Self.scale))
        let image = RenderFixtures.render(
            scene, width: Int(logical.width), height: Int(logical.height), scale: Self.scale)
        checkRGB565(panelImage(image, rotation: rotation, format: .rgb565), "rotation-90", rotation: rotation)
    }

    func checkRGB565(
        _ panel: PixelBuffer, _ base: String, rotation: Rotation, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        RenderFixtures.expectMatchesGolden(panel, base + "-rgb565", sourceLocation: sourceLocation)
        var not565 = 0
        for y in 0..<panel.height {
            for x in 0..<panel.width
            where Self.widened(Self.narrowed(panel.pixel(x: x, y: y))) != panel.pixel(x: x, y: y) & 0xff_ffff {
                not565 += 1
            }
        }
        #expect(not565 == 0, "\(not565) pixels are not RGB565 values", sourceLocation: sourceLocation)
        guard let reviewed = try? PixelBuffer.readPNG("\(RenderFixtures.golden)/\(base).png"),
            let golden = try? PixelBuffer.readPNG("\(RenderFixtures.golden)/\(base)-rgb565.png")
        else { return }  // a missing golden was reported above
        // The reviewed picture is the panel as mounted: dither by the logical pixel each came from.
        let dithered = PixelBuffer(width: reviewed.width, height: reviewed.height)
        let logicalWidth = rotation == .deg90 || rotation == .deg270 ? reviewed.height : reviewed.width
        let logicalHeight = rotation == .deg90 || rotation == .deg270 ? reviewed.width : reviewed.height
        let physicalSize = Size(width: Double(reviewed.width), height: Double(reviewed.height))
        for y in 0..<logicalHeight {
            for x in 0..<logicalWidth {
                let p = rotation.toPhysical(Point(x: Double(x) + 0.5, y: Double(y) + 0.5), physical: physicalSize)
                let (px, py) = (Int(p.x), Int(p.y))
                let q = RGB565Oracle.expected565(reviewed.pixel(x: px, y: py), x: x, y: y)
                dithered.setPixel(x: px, y: py, Self.widened(q) | 0xff00_0000)
            }
        }
        let d = RenderFixtures.difference(dithered, golden)
        #expect(
            !d.sizeMismatch && d.pixelsOver <= golden.width * golden.height / 500 && d.mean <= 0.5,
            "\(base)-rgb565 is not the reviewed \(base) dithered: \(d.pixelsOver) pixels over 16 levels, mean \(d.mean)",
            sourceLocation: sourceLocation)
    }

    /// The top 5/6/5 bits of an XRGB8888 pixel.
    static func narrowed(_ p: UInt32) -> UInt16 {
        UInt16((p >> 19) & 31) << 11 | UInt16((p >> 10) & 63) << 5 | UInt16((p >> 3) & 31)
    }

    /// RGB565 widened by repeating each channel's top bits (pixman's way).
    static func widened(_ q: UInt16) -> UInt32 {
        let (r, g, b) = (UInt32(q >> 11), UInt32((q >> 5) & 63), UInt32(q & 31))
        return (r << 3 | r >> 2) << 16 | (g << 2 | g >> 4) << 8 | (b << 3 | b >> 2)
    }
}

/// Decks in the visitor's language (docs/LANGUAGES.md): `render --lang` draws what the kiosk
/// shows a visitor who picked that language, with the language control in the top-right corner.
@Suite struct LanguageGoldenTests {
    func scene(_ layout: DeckLayout?, _ gesture: String?, language: String, atMs: Double = 0) throws -> Scene {
        let file = try RenderInputs.deck(path: RenderDeckTests.examples + "/multilingual.json", layout: layout)
        return try RenderInputs.scene(
            deck: file, size: GoldenImageTests.size, gesture: gesture, scriptPath: nil, atMs: atMs, language: language)
    }

    func check(_ scene: Scene, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        GoldenImageTests().check(scene, name, sourceLocation: sourceLocation)
    }

    /// Arabic, right to left: the stack's text right-aligned, ✓ left of ✗, undo on the right.
    @Test func arabicStack() throws {
        let s = try scene(nil, "tap 500 300", language: "ar", atMs: 1000)
        let yes = try #require(s.elements.first { $0.kind.unmirrored == .button(.dismissRight) })
        let no = try #require(s.elements.first { $0.kind.unmirrored == .button(.dismissLeft) })
        #expect(yes.frame.center.x < no.frame.center.x)
        #expect(s.elements.contains { $0.kind == .mirrored(.languageKey(label: "العربية", selected: true)) })
        check(s, "lang-ar-stack")
    }

    /// Arabic, a finger dragging the card to the right: the "لاحقاً" (later: the left label) stamp in the card's
    /// lower right corner — the mirror of a left-to-right deck's left swipe.
    @Test func arabicStackDrag() throws {
        let s = try scene(nil, "drag 150 20", language: "ar")
        let stamp = try #require(s.elements.first { if case .stamp = $0.kind.unmirrored { true } else { false } })
        guard case .stamp(let text, _, let side) = stamp.kind.unmirrored else { return }
        #expect(text == "لاحقاً" && side == .left)
        check(s, "lang-ar-stack-drag")
    }

    /// Arabic list: title right-aligned, "+" on the left, chevrons pointing left at the rows' left ends.
    /// The tap that begins the visit lands on the title, clear of the language keys.
    @Test func arabicList() throws {
        let s = try scene(.list, "tap 900 20", language: "ar", atMs: 500)
        let add = try #require(s.elements.first { $0.kind.unmirrored == .button(.add) })
        #expect(add.frame.center.x < GoldenImageTests.size.width / 2)
        check(s, "lang-ar-list")
    }

    /// The same deck in English and in Chinese, on the attract screen (the control at its larger size).
    @Test func englishAndChinese() throws {
        let en = try scene(nil, nil, language: "en", atMs: 200)
        #expect(en.elements.contains { $0.kind == .label(text: "Tap to start", color: Color(rgb: 0x3A3A3C)) })
        check(en, "lang-en-attract")
        let zh = try scene(nil, "tap 500 300", language: "zh", atMs: 1000)
        #expect(zh.elements.contains { if case .card(let c) = $0.kind { c.title == "欢迎光临！" } else { false } })
        check(zh, "lang-zh-stack")
    }
}

/// Screens in front of the deck drawn by `render` through the kiosk's own rules (`Kiosk`), from
/// the inputs the panel would get: the countdown after a visitor walked away, the closed-hours
/// screen, the staff menu's PIN pad and its menu.
@Suite struct KioskScreenGoldenTests {
    func screen(
        _ gesture: String?, atMs: Double = 0, staff: RenderInputs.StaffPage? = nil, closed: Bool = false
    ) throws -> Scene {
        try RenderInputs.scene(
            deck: GoldenImageTests.example("seed-stack.json"), size: GoldenImageTests.size, gesture: gesture,
            scriptPath: nil, atMs: atMs, accessControl: true, staff: staff, closed: closed)
    }

    func check(_ scene: Scene, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        GoldenImageTests().check(scene, name, sourceLocation: sourceLocation)
    }

    /// 53 s after the last touch of a visit with the default 60 s idle timeout and 10 s warning:
    /// the countdown says 7.
    @Test func countdown() throws {
        let s = try screen("tap 500 300", atMs: 53_000)
        #expect(s.elements.contains { if case .countdown(7, _) = $0.kind { true } else { false } })
        check(s, "screen-countdown")
        let reset = try screen("tap 500 300", atMs: 61_000)
        #expect(!reset.elements.contains { if case .countdown = $0.kind { true } else { false } })
        #expect(reset.elements.contains { $0.id == "label:attract" }, "the idle reset brought the attract screen back")
    }

    @Test func closedHours() throws {
        let s = try screen(nil, closed: true)
        #expect(s.elements.contains { $0.id == "closed:text" })
        #expect(!s.elements.contains { $0.id.hasPrefix("card:") })
        check(s, "screen-closed")
    }

    @Test func staffPinPadAndMenu() throws {
        let pin = try screen("tap 500 300", atMs: 500, staff: .pin)
        #expect(pin.elements.contains { $0.id == "staff:key:OK" })
        check(pin, "screen-staff-pin")
        let menu = try screen("tap 500 300", atMs: 500, staff: .menu)
        #expect(menu.elements.contains { $0.id == "staff:action:reloadDeck" })
        check(menu, "screen-staff-menu")
    }
}
