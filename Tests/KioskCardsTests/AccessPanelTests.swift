import CardModel
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskStore
@testable import KioskSystem

/// Accessibility on real panels and in the real store: 9 mm targets at 7", 10" and 15.6" (the
/// geometry `run` lays out with), public mode keeping the buttons, and the accessibility flag
/// of each decision in SQLite (migration index 5, user_version 6).
@Suite struct AccessPanelTests {
    struct Panel: CustomStringConvertible, Sendable {
        var name: String
        var pixels: (Int, Int)
        var millimetres: Size
        var description: String { name }
    }

    /// The supported panel sizes, landscape and portrait: the official 7" Pi display, a 10.1"
    /// 1280×800 and a 15.6" 1080p monitor (their active areas from the data sheets).
    static let panels: [Panel] = [
        Panel(name: "7in", pixels: (800, 480), millimetres: Size(width: 154.08, height: 85.92)),
        Panel(name: "7in-portrait", pixels: (480, 800), millimetres: Size(width: 85.92, height: 154.08)),
        Panel(name: "10in", pixels: (1280, 800), millimetres: Size(width: 216.96, height: 135.6)),
        Panel(name: "10in-portrait", pixels: (800, 1280), millimetres: Size(width: 135.6, height: 216.96)),
        Panel(name: "15in", pixels: (1920, 1080), millimetres: Size(width: 344.16, height: 193.59)),
        Panel(name: "15in-portrait", pixels: (1080, 1920), millimetres: Size(width: 193.59, height: 344.16)),
    ]

    @Test(arguments: panels)
    func everyTargetIsAtLeastNineMillimetres(panel: Panel) {
        let g = PanelGeometry(pixelWidth: panel.pixels.0, pixelHeight: panel.pixels.1, millimetres: panel.millimetres)
        let perMM = g.metrics.pointsPerMillimetre
        let screen = Rect(origin: .zero, size: g.metrics.size)
        let deck = StackDeck(cards: [], metrics: g.metrics, options: StackOptions(showButtons: true))
        let control = AccessibilityControl(screen: g.metrics.size, pointsPerMillimetre: perMM)
        let targets =
            deck.layout.buttons.map { ($0.role.rawValue, $0.frame) }
            + [("a11y", control.buttonFrame)]
            + AccessibilityControl.Item.allCases.map { ($0.rawValue, control.frame(of: $0)) }
        #expect(targets.count == 7)
        for (name, frame) in targets {
            let w = frame.width / perMM
            let h = frame.height / perMM
            #expect(w >= 9 && h >= 9, "\(panel) \(name): \(w)×\(h) mm")
            #expect(screen.intersection(frame) == frame, "\(panel) \(name) leaves the screen")
        }
        for b in deck.layout.buttons {
            #expect(b.frame.intersection(control.buttonFrame).isEmpty, "\(panel) \(b.role) under the control")
        }
    }

    /// Where a panel is dense (a 7" at 2 px/pt), 64 pt would be under 9 mm: the buttons grow.
    @Test func buttonsGrowWhereSixtyFourPointsAreUnderNineMillimetres() {
        let g = PanelGeometry(
            pixelWidth: 800, pixelHeight: 480, millimetres: Size(width: 154.08, height: 85.92), scale: 0.5)
        let side = StackLayout.buttonSide(pointsPerMillimetre: g.metrics.pointsPerMillimetre)
        #expect(side > StackLayout.buttonSize)
        #expect(side / g.metrics.pointsPerMillimetre >= 9)
    }

    @Test func publicModeKeepsTheButtonsWhateverTheConfigSays() throws {
        func parse(_ text: String) throws -> KioskConfig {
            let result = KioskConfig.parse(arguments: []) { path in
                path == KioskConfig.defaultPath ? .text(text) : .missing
            }
            guard case .run(let c) = try result.get() else { throw ConfigError(source: "test", message: "no run") }
            return c
        }
        let off = try parse("buttons = off\n")
        #expect(off.publicMode && !off.buttons && off.showsButtons)
        let staff = try parse("buttons = off\npublic = off\n")
        #expect(!staff.publicMode && !staff.showsButtons)
        let publicOff = try parse("public = off\n")
        #expect(publicOff.showsButtons)
        let bad = KioskConfig.parse(arguments: ["--public", "maybe"]) { _ in .missing }
        guard case .failure(let e) = bad else {
            Issue.record("--public maybe was accepted")
            return
        }
        #expect(e.description.contains("on or off"))
    }

    @Test func decisionsStoreTheAccessibilityFlagAtSchemaSix() throws {
        #expect(DecisionDatabase.schemaVersion >= 6)
        let dir = DeckFixtures.temporaryDirectory("store-a11y")
        defer { DeckFixtures.removeTree(dir) }
        do {
            // A schema-5 file with one old row: it migrates and the row reads NULL.
            let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir))
            for m in DecisionDatabase.migrations.prefix(5) { try db.execute(m) }
            try db.execute("PRAGMA user_version = 5")
            try db.execute(
                """
                INSERT INTO decisions (uid, kiosk_id, session_id, deck_id, deck_version, card_id, action,
                    wall_time, wall_ms, monotonic_ns, dwell_ms)
                VALUES ('old', 'k', 's0', 'd', 1, 'c', 'swipedLeft', '', 1, 0, 10)
                """)
        }
        let store = DecisionStore(dataDirectory: dir)
        var on = StoreTestSupport.record(1)
        on.inputMethod = .key
        on.accessibilityMode = true
        var off = StoreTestSupport.record(2)
        off.inputMethod = .switchAccess
        off.accessibilityMode = false
        var button = StoreTestSupport.record(3)
        button.inputMethod = .button
        store.enqueue(on)
        store.enqueue(off)
        store.enqueue(button)
        #expect(store.flush(stalledFor: 60))
        store.close()
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), create: false)
        let version = try db.scalarInt("PRAGMA user_version")
        let unknown = try db.scalarInt("SELECT count(*) FROM decisions WHERE accessibility_mode IS NULL")
        let flag = try db.scalarInt("SELECT accessibility_mode FROM decisions WHERE input_method = 'key'")
        let switched = try db.scalarInt("SELECT accessibility_mode FROM decisions WHERE input_method = 'switch'")
        let buttons = try db.scalarInt("SELECT count(*) FROM decisions WHERE input_method = 'button'")
        let old = try db.scalarInt("SELECT count(*) FROM decisions WHERE uid = 'old'")
        #expect(version == Int64(DecisionDatabase.schemaVersion))
        #expect(unknown == 2)
        #expect(flag == 1)
        #expect(switched == 0)
        #expect(buttons == 1)
        #expect(old == 1)
    }
}
