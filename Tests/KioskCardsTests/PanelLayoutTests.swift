import CardModel
import KioskDeckFiles
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender

/// Every control of every layout on every panel preset, mounted both ways, with one language
/// and with six: no two touch targets overlap, none is under 9 mm on the glass, none leaves
/// the screen. The targets are taken from the scene the kiosk draws (`Kiosk.scene`), the
/// millimetres from the preset's datasheet size, not from the layout code's own numbers.
@Suite struct PanelLayoutTests {
    /// A preset and one of its two mountings.
    struct Mounting: CustomTestStringConvertible, Sendable {
        var preset: PanelPreset
        var testDescription: String { preset.name + " at \(preset.rotation.rawValue)°" }
    }

    static let mountings: [Mounting] = PanelPreset.all.flatMap { p in
        [Mounting(preset: p), Mounting(preset: p.otherOrientation)]
    }

    /// The screens a visitor meets: the stack's attract screen and its visit, the list and a
    /// row's detail page; `stackSwitched`: a stack visit begun in the start language whose
    /// visitor then picks the test's language from the keys; `stackAccess`, `listAccess`: a
    /// visit with the accessibility control ("Aa") opened, its switches on screen.
    enum Screen: String, CaseIterable {
        case stackAttract, stackVisit, stackSwitched, stackAccess, list, listAccess, detail
    }

    /// The touch targets of `scene`: the deck's buttons, the language keys, "Aa", the list's
    /// rows (the part of each shown between its bars) and the staff corner.
    static func targets(_ scene: Scene, staffCorner: Rect?, rowArea: Rect?) -> [(String, Rect)] {
        var out: [(String, Rect)] = []
        // A detail page covers the list under it: only what is in front of it can be touched.
        let page = scene.elements.first {
            var kind = $0.kind
            if case .mirrored(let inner) = kind { kind = inner }  // right to left
            if case .detailPage = kind { return true } else { return false }
        }
        // An opened "Aa" takes every touch but the staff corner's until it closes: only its own
        // button and switches can be touched then.
        let accessOpen = scene.elements.contains { isAccessSwitch($0.kind) }
        for e in scene.elements {
            if let page, e.zIndex <= page.zIndex { continue }
            var kind = e.kind
            if case .mirrored(let inner) = kind { kind = inner }
            switch kind {
            case .accessibilityButton, .accessibilitySwitch:
                out.append((e.id, e.frame))
            case _ where accessOpen: break
            case .button, .wordButton, .languageKey:
                out.append((e.id, e.frame))
            case .row:
                let shown = rowArea.map { e.frame.intersection($0) } ?? e.frame
                if shown.height >= 1 { out.append((e.id, shown)) }
            default: break
            }
        }
        if let staffCorner { out.append(("staff-corner", staffCorner)) }
        return out
    }

    /// The problems of `targets` on a screen of `size` points at `perMM` points per millimetre.
    static func problems(_ targets: [(String, Rect)], size: Size, perMM: Double) -> [String] {
        var found: [String] = []
        let screen = Rect(origin: .zero, size: size)
        for (i, (name, frame)) in targets.enumerated() {
            let w = frame.width / perMM
            let h = frame.height / perMM
            // Rows scrolled partly out of view are judged by their full height elsewhere.
            if !name.hasPrefix("row:") && (w < 9 - 1e-9 || h < 9 - 1e-9) {
                found.append("\(name) is \(fmt(w))×\(fmt(h)) mm, under 9 mm")
            }
            let e = 1e-6
            if frame.minX < screen.minX - e || frame.minY < screen.minY - e || frame.maxX > screen.maxX + e
                || frame.maxY > screen.maxY + e
            {
                found.append("\(name) leaves the screen")
            }
            for (other, o) in targets[(i + 1)...] {
                let overlap = frame.intersection(o)
                if !overlap.isEmpty && overlap.width > 0.5 && overlap.height > 0.5 {
                    let share = overlap.width * overlap.height / min(frame.width * frame.height, o.width * o.height)
                    found.append("\(name) overlaps \(other) (\(Int((share * 100).rounded())) % of the smaller)")
                }
            }
        }
        return found
    }

    /// One decimal: "7.4".
    static func fmt(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// The scene of `screen` for `file` on `metrics`, as `run` draws it, with the staff entry
    /// in `corner`.
    static func scene(
        _ screen: Screen, file: DeckFile, metrics: ScreenMetrics, corner: StaffEntry.Corner = .topLeft,
        language: String? = nil
    ) -> (Scene, Kiosk) {
        var deckFile = file
        deckFile.layout = [.list, .listAccess, .detail].contains(screen) ? .list : .stack
        let start = Instant.seconds(1)
        var kiosk = Kiosk(
            deck: deckFile.kioskDeck(), metrics: metrics,
            settings: Kiosk.Settings(
                showsButtons: true, staffEnabled: true, staffGesture: StaffEntry.Rule(corner: corner),
                configuredLanguage: screen == .stackSwitched ? nil : language),
            seed: 0, at: start,
            newSessionID: { "layout" })
        var t = start
        func feed(_ input: KioskInput) {
            _ = kiosk.scene(at: t)
            _ = kiosk.handle(input, at: t)
        }
        feed(.tick)
        func tap(_ p: Point) {
            t = t.advanced(bySeconds: 0.5)
            feed(.touch(TouchFrame(time: t, contacts: [TouchContact(id: 7, position: p, phase: .began)])))
            t = t.advanced(bySeconds: 0.06)
            feed(.touch(TouchFrame(time: t, contacts: [TouchContact(id: 7, position: p, phase: .ended)])))
        }
        if [.stackVisit, .stackSwitched, .stackAccess].contains(screen) {
            // The first touch begins a visit (on the card).
            tap(Point(x: metrics.size.width / 2, y: metrics.size.height / 2))
        }
        if screen == .stackSwitched, let language {
            t = t.advanced(bySeconds: 0.5)
            feed(.language(language))
        }
        if screen == .detail {
            let deckScene = kiosk.deckScene(at: t)
            if let row = deckScene.elements.first(where: { if case .row = $0.kind { true } else { false } }) {
                tap(row.frame.center)
            }
        }
        if screen == .stackAccess || screen == .listAccess {
            let control = kiosk.scene(at: t).elements.first {
                var kind = $0.kind
                if case .mirrored(let inner) = kind { kind = inner }
                if case .accessibilityButton = kind { return true } else { return false }
            }
            if let control { tap(control.frame.center) }
        }
        t = t.advanced(bySeconds: 2)
        return (kiosk.scene(at: t), kiosk)
    }

    static func isAccessSwitch(_ kind: ElementKind) -> Bool {
        var kind = kind
        if case .mirrored(let inner) = kind { kind = inner }
        if case .accessibilitySwitch = kind { return true } else { return false }
    }

    static func decks() throws -> [(String, DeckFile)] {
        let root = DeckFixtures.packageRoot + "/examples/"
        return [
            ("one language", try DeckLoader.load(path: root + "onboarding.json").get()),
            ("six languages", try DeckLoader.load(path: root + "multilingual.json").get()),
        ]
    }

    /// The problems on `screens` of both decks on `mounting`, the staff entry in `corner`
    /// (`language`: the visits' language where the deck offers it).
    static func problems(
        _ mounting: Mounting, screens: [Screen], corner: StaffEntry.Corner = .topLeft, language: String? = nil
    ) throws -> [String] {
        let p = mounting.preset
        let pixels = p.logicalPixels
        let g = PanelGeometry(pixelWidth: pixels.width, pixelHeight: pixels.height, millimetres: p.logicalMillimetres)
        let perMM = g.metrics.pointsPerMillimetre
        var all: [String] = []
        for (deckName, file) in try Self.decks() {
            for screen in screens {
                let (scene, kiosk) = Self.scene(
                    screen, file: file, metrics: g.metrics, corner: corner, language: language)
                let corner = kiosk.staffEntry.cornerRect
                let rowArea = (kiosk.deck as? ListDeck)?.layout.viewport
                if screen == .stackAccess || screen == .listAccess,
                    !scene.elements.contains(where: { Self.isAccessSwitch($0.kind) })
                {
                    all.append("\(deckName), \(screen.rawValue): the accessibility control did not open")
                }
                let found = Self.problems(
                    Self.targets(
                        scene, staffCorner: corner, rowArea: [.list, .listAccess].contains(screen) ? rowArea : nil),
                    size: g.metrics.size, perMM: perMM)
                all += found.map { "\(deckName), \(screen.rawValue): \($0)" }
            }
        }
        return all
    }

    @Test(arguments: mountings)
    func theStackHasNoOverlapAndNoTargetUnderNineMillimetres(mounting: Mounting) throws {
        let all = try Self.problems(mounting, screens: [.stackAttract, .stackVisit, .stackAccess])
        #expect(all.isEmpty, "\(mounting.testDescription): \(all.count) problems:\n\(all.joined(separator: "\n"))")
    }

    /// `panel =` sets rotation and millimetres together; a key after it wins; a misspelt name
    /// gets the closest one.
    @Test func thePanelKeySetsRotationAndMillimetres() throws {
        func parse(_ text: String) -> Result<KioskConfig.Invocation, ConfigError> {
            KioskConfig.parse(arguments: []) { $0 == KioskConfig.defaultPath ? .text(text) : .missing }
        }
        guard case .run(let c) = try parse("panel = touch-display-2-7-landscape\n").get() else {
            Issue.record("no run")
            return
        }
        #expect(c.rotation == .deg90)
        #expect(c.panelMillimetres == Size(width: 88, height: 155))
        guard case .run(let turned) = try parse("panel = touch-display-2-7-landscape\nrotation = 270\n").get() else {
            Issue.record("no run")
            return
        }
        #expect(turned.rotation == .deg270)
        guard case .failure(let e) = parse("panel = touch-display-2-7-landscap\n") else {
            Issue.record("a misspelt panel was accepted")
            return
        }
        #expect(e.description.contains("did you mean 'touch-display-2-7-landscape'"), "\(e)")
    }

    /// The list's title bar controls, its language keys (in the bar or in a band under it),
    /// its rows, the detail page's back and Delete and the staff corner.
    @Test(arguments: mountings)
    func theListAndItsDetailPage(mounting: Mounting) throws {
        let all = try Self.problems(mounting, screens: [.list, .listAccess, .detail])
        #expect(all.isEmpty, "\(mounting.testDescription): \(all.count) problems:\n\(all.joined(separator: "\n"))")
    }

    /// The list, its "+" bar, its "Aa" opened and its detail page keep clear of the staff corner
    /// wherever it is configured, on every preset mounted both ways, in both decks, and with the
    /// six-language deck read in Arabic (the scene mirrored): no row, control or key under the
    /// corner square.
    @Test(arguments: StaffEntry.Corner.allCases)
    func theListKeepsClearOfTheStaffCorner(corner: StaffEntry.Corner) throws {
        var all: [String] = []
        for mounting in Self.mountings {
            for language in [nil, "ar"] {
                all += try Self.problems(
                    mounting, screens: [.list, .listAccess, .detail], corner: corner, language: language
                ).map {
                    "\(mounting.testDescription)\(language.map { ", in \($0)" } ?? ""): \($0)"
                }
            }
        }
        #expect(all.isEmpty, "\(corner.rawValue): \(all.count) problems:\n\(all.joined(separator: "\n"))")
    }

    /// The stack's ✗, undo and ✓, its "Aa" (closed and opened) and its language keys keep clear
    /// of the staff corner wherever it is configured, on every preset mounted both ways, in both
    /// decks, left to right and read in Arabic (the scene mirrored: from the start, and switched
    /// to mid-visit).
    @Test(arguments: StaffEntry.Corner.allCases)
    func theStackKeepsClearOfTheStaffCorner(corner: StaffEntry.Corner) throws {
        var all: [String] = []
        for mounting in Self.mountings {
            for language in [nil, "ar"] {
                var screens: [Screen] = [.stackAttract, .stackVisit, .stackAccess]
                if language != nil { screens.append(.stackSwitched) }
                all += try Self.problems(mounting, screens: screens, corner: corner, language: language).map {
                    "\(mounting.testDescription)\(language.map { ", in \($0)" } ?? ""): \($0)"
                }
            }
        }
        #expect(all.isEmpty, "\(corner.rawValue): \(all.count) problems:\n\(all.joined(separator: "\n"))")
    }
}
