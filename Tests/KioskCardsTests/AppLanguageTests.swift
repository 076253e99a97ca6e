import CardModel
import KioskDeckFiles
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDisplay
@testable import KioskInput
@testable import KioskSystem

/// The running kiosk's language handling (`KioskApp`, its real input path), on a display in
/// memory: a switch mid-visit keeps the stack's undo history, and after the idle reset the
/// next visitor starts in the configured language with every mode off.
@Suite(.serialized) struct AppLanguageTests {
    /// An 800×480 panel in memory whose flips never complete (nothing here draws).
    final class MemoryScanout: Scanout {
        let outputName = "memory"
        let driverName = "memory"
        let mode = ScanoutMode(
            name: "800x480", width: 800, height: 480, periodNanoseconds: 16_666_667, refreshHz: 60,
            physicalSizeMM: nil)
        let hasVblank = true
        let bufferCount = 2
        var onFlipComplete: ((UInt64, Instant) -> Void)?
        var onHotplug: (() -> Void)?
        var panelRotation: Rotation? { nil }
        let buffers = [PixelBuffer(width: 800, height: 480), PixelBuffer(width: 800, height: 480)]

        func start() throws(SystemCallError) {}
        func summary(rotation: Rotation) -> String { "memory" }
        func withBuffer<R>(_ index: Int, _ body: (UnsafeMutableRawPointer, Int) -> R) -> R? {
            body(buffers[index].pixels, buffers[index].stride)
        }
        func show(_ index: Int, damage: PixelRect, serial: UInt64) throws(SystemCallError) -> ScanoutCommit {
            .pending
        }
        func modeset(showing index: Int) throws(SystemCallError) {}
        func waitForEvents(seconds: Double) -> Bool { false }
        func setPower(on: Bool) {}
        func reprobe(wasConnected: Bool) -> ScanoutChange { .unchanged }
        func adoptReprobedMode() throws(SystemCallError) {}
        func close() {}
    }

    /// The kiosk on `examples/multilingual.json` (de, en, fr, tr, ar, zh) with `language = de`
    /// (or on `deck` with `language`).
    func makeApp(_ data: String, deck: String = "multilingual.json", language: String = "de") throws -> (
        KioskApp, DeckFile
    ) {
        var config = KioskConfig()
        config.dataDirectory = data
        config.language = language
        config.kioskID = "test"
        let file = try DeckLoader.load(path: DeckFixtures.packageRoot + "/examples/" + deck).get()
        let loop = EventLoop()
        let display = try Display(scanout: MemoryScanout(), rotation: nil, loop: loop, takeTerminal: false)
        let app = KioskApp(config: config, deck: file, display: display, loop: loop, processStart: .seconds(0))
        return (app, file)
    }

    func tap(_ app: KioskApp, _ p: Point, at t: Instant, id: Int = 1) {
        app.handleInput(.touch(TouchFrame(time: t, contacts: [TouchContact(id: id, position: p, phase: .began)])))
        app.handleInput(
            .touch(
                TouchFrame(
                    time: t.advanced(bySeconds: 0.05), contacts: [TouchContact(id: id, position: p, phase: .ended)])
            ))
    }

    /// Taps `language`'s key where the control draws it (mirrored in a right-to-left language).
    func pick(_ language: String, _ app: KioskApp, at t: Instant) throws {
        let screen = app.surface.metrics.size
        let keys = app.kiosk.languageKeys
        let key = try #require(keys.first { $0.id == "language:" + language })
        let c = key.frame.center
        tap(app, app.kiosk.languages.direction == .rightToLeft ? Point(x: screen.width - c.x, y: c.y) : c, at: t)
    }

    func stack(_ app: KioskApp) throws -> StackDeck { try #require(app.kiosk.deck as? StackDeck) }

    /// `language = ar` with the one-language German example: the running kiosk shows German left
    /// to right (nothing mirrored), and Arabic stays the kiosk's own language (the staff menu's).
    @Test func aConfiguredLanguageTheDeckDoesNotOfferShowsTheDeckLeftToRight() throws {
        let data = DeckFixtures.temporaryDirectory("app-language-missing")
        defer { DeckFixtures.removeTree(data) }
        let (app, _) = try makeApp(data, deck: "onboarding.json", language: "ar")
        defer { app.store.close() }
        #expect(app.kiosk.languages.current == "de" && app.kiosk.languages.direction == .leftToRight)
        #expect(app.kiosk.languages.configuredNotOffered == "ar")
        var kiosk = app.kiosk
        let scene = kiosk.scene(at: .seconds(1))
        #expect(!scene.elements.contains { if case .mirrored = $0.kind { true } else { false } })
        #expect(kiosk.languages.kioskLanguage == "ar")
    }

    @Test func aSwitchMidVisitKeepsTheUndoHistoryAndTheNextVisitorStartsInTheConfiguredLanguage() throws {
        let data = DeckFixtures.temporaryDirectory("app-language")
        defer { DeckFixtures.removeTree(data) }
        let (app, file) = try makeApp(data)
        defer { app.store.close() }
        let t0 = MonotonicClock.now()
        #expect(app.kiosk.languages.current == "de")
        let order = try stack(app).remainingCards.map(\.id)
        let german = Dictionary(uniqueKeysWithValues: file.cards.map { ($0.id, $0.localized(to: "de").title) })
        let english = Dictionary(uniqueKeysWithValues: file.cards.map { ($0.id, $0.localized(to: "en").title) })
        let first = try stack(app)
        #expect(first.remainingCards.first?.title == german[order[0]])

        // Large text on from the visible control, then two decisions by key.
        tap(app, app.kiosk.accessControl.buttonFrame.center, at: t0.advanced(bySeconds: 0.5))
        tap(app, app.kiosk.accessControl.frame(of: .largeText).center, at: t0.advanced(bySeconds: 0.7))
        #expect(app.kiosk.accessControl.modes.largeText)
        // Closed again ("Aa"): while the control is open every key is its own.
        tap(app, app.kiosk.accessControl.buttonFrame.center, at: t0.advanced(bySeconds: 0.9))
        #expect(!app.kiosk.accessControl.isOpen)
        app.handleInput(.key(.right, t0.advanced(bySeconds: 1)))
        app.handleInput(.key(.left, t0.advanced(bySeconds: 2)))
        let decided = try stack(app)
        #expect(decided.remainingCards.count == order.count - 2)
        #expect(decided.canUndo)

        // The visitor switches to English: the stack, its history and the modes stay.
        try pick("en", app, at: t0.advanced(bySeconds: 3))
        #expect(app.kiosk.languages.current == "en")
        let switched = try stack(app)
        #expect(switched.remainingCards.map(\.id) == Array(order.dropFirst(2)))
        #expect(switched.remainingCards.first?.title == english[order[2]])
        #expect(switched.canUndo, "the switch lost the undo history")
        #expect(switched.accessibility.largeText)
        #expect(app.kiosk.accessControl.labels.largeText == "Large text")
        #expect(switched.options.leftLabel == app.kiosk.texts.leftLabel)

        // Both decisions undo, and the cards come back in English.
        app.handleInput(.key(.backspace, t0.advanced(bySeconds: 4)))
        app.handleInput(.key(.backspace, t0.advanced(bySeconds: 5)))
        let back = try stack(app)
        #expect(back.remainingCards.map(\.id) == order)
        #expect(back.remainingCards.prefix(2).map(\.title) == [english[order[0]], english[order[1]]])
        #expect(!back.canUndo)

        // In Arabic the layout mirrors; one more decision, then the visitor walks away.
        try pick("ar", app, at: t0.advanced(bySeconds: 6))
        #expect(app.kiosk.languages.current == "ar" && app.kiosk.languages.direction == .rightToLeft)
        app.handleInput(.key(.right, t0.advanced(bySeconds: 7)))
        let arabic = try stack(app)
        #expect(arabic.canUndo)
        #expect(app.advanceToIdleReset(from: t0.advanced(bySeconds: 7)).resets == 1, "no idle reset")

        // The next visitor: German, left to right, every mode off, a full stack without history.
        #expect(app.kiosk.languages.current == "de" && app.kiosk.languages.direction == .leftToRight)
        #expect(app.kiosk.texts.title == file.localized(to: "de").title)
        #expect(app.kiosk.accessControl.modes == VisitAccessibility())
        #expect(app.kiosk.accessControl.labels.largeText == "Große Schrift")
        let next = try stack(app)
        #expect(next.accessibility == VisitAccessibility())
        #expect(next.remainingCards.count == file.cards.count && !next.canUndo)
        #expect(next.remainingCards.allSatisfy { german[$0.id] == $0.title })
        #expect(next.options.leftLabel == file.localized(to: "de").leftLabel)
    }
}

extension KioskApp {
    /// Advances the session deadline by deadline (up to six) until one idle reset ran; returns
    /// how many resets ran and the time reached. Test support for the visit-reset tests.
    func advanceToIdleReset(from start: Instant) -> (resets: Int, time: Instant) {
        var t = start
        var resets = 0
        for _ in 0..<6 where resets == 0 {
            guard let deadline = kiosk.session.nextDeadline else { break }
            t = deadline.advanced(bySeconds: 0.001)
            let before = kiosk.session.sessionID
            feed(.tick, at: t)
            if kiosk.session.sessionID != before && kiosk.session.phase == .attract { resets += 1 }
        }
        return (resets, t)
    }
}
