import CardModel
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskRender
@testable import KioskStore

/// A card's (and the end state's) `link` as a QR code: drawn by the real `render` path on the
/// panel presets and read back by zbar (`zbarimg`, not the encoder), measured on the glass from
/// the rendered pixels, refused by `check-deck` when it is not https or too long, and recorded
/// as a `qr_shown` event when a visitor has it in front of them.
@Suite struct LinkCodeTests {
    static let deck = RenderDeckTests.examples + "/take-it-with-you.json"
    static let cardLink = "https://example.org/lageplan?haus=a"
    static let longLink =
        "https://example.org/gutschein/2f9c1e7a-5b3d-4c8e-9a61-0d7e4b2c8f13?quelle=kiosk-lobby&kampagne=willkommen"
    static let endLink = "https://example.org/rundgang"

    /// What each state shows: the second card (one swipe), the third (the longest link) and the end state.
    static let states: [(name: String, args: [String], link: String)] = [
        ("card", ["--gesture", "release 300 0", "--at", "2000"], cardLink),
        ("long", ["--keys", "right right", "--at", "3000"], longLink),
        ("end", ["--keys", "right right right", "--at", "3000"], endLink),
    ]

    /// 800×480 (the original 7") and 720×1280 (Touch Display 2, 7"), and the smallest card.
    @Test(
        TestRequirement.zbarimg.trait,
        arguments: ["pi-7inch", "touch-display-2-7", "touch-display-2-5-landscape"], [0, 1, 2])
    func theRenderedCodeDecodesToItsLink(panel: String, state: Int) throws {
        let s = Self.states[state]
        let dir = DeckFixtures.temporaryDirectory("link-code")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/\(panel)-\(s.name).png"
        let status = runRenderCommand(["--deck", Self.deck, "--panel", panel, "--out", path] + s.args)
        try #require(status == 0)
        let (zbar, out) = try TestProcess.run("/usr/bin/zbarimg", ["--raw", "-q", path])
        #expect(zbar == 0, "\(panel) \(s.name): zbarimg: \(out)")
        // zbarimg may add a line about D-Bus on stderr (merged here); the decoded text is a line.
        #expect(out.split(separator: "\n").contains { $0 == s.link }, "\(panel) \(s.name): \(out)")
    }

    /// In a right-to-left card the card is mirrored but its code is not (a mirrored code does
    /// not scan).
    @Test(TestRequirement.zbarimg.trait)
    func aRightToLeftCardsCodeIsNotMirrored() throws {
        let dir = DeckFixtures.temporaryDirectory("link-rtl")
        defer { DeckFixtures.removeTree(dir) }
        let link = "https://example.org/ar/plan"
        DeckFixtures.write(
            """
            {"id": "r", "version": 1, "title": "T", "layout": "stack", "language": "ar",
             "cards": [{"id": "plan", "title": "الخريطة", "color": "#336699", "link": "\(link)"}]}
            """, to: dir + "/d.json")
        try #require(
            runRenderCommand([
                "--deck", dir + "/d.json", "--panel", "pi-7inch", "--lang", "ar", "--out", dir + "/ar.png",
            ]) == 0)
        let (zbar, out) = try TestProcess.run("/usr/bin/zbarimg", ["--raw", "-q", dir + "/ar.png"])
        #expect(zbar == 0 && out.split(separator: "\n").contains { $0 == link }, "\(out)")
    }

    /// Measured in the frame's pixels: the finder pattern's top row is 7 modules of ink, the
    /// code's ink spans the code, and with its 4-module quiet zone on each side it is at least
    /// 25 mm wide on the glass; each module is a whole number of pixels.
    @Test(arguments: ["pi-7inch", "touch-display-2-7", "touch-display-2-5-landscape", "hdmi-15inch"], [0, 1, 2])
    func theCodeIsAtLeastTwentyFiveMillimetresInWholePixels(panel: String, state: Int) throws {
        let preset = try #require(PanelPreset.named(panel))
        let px = preset.logicalPixels
        let geometry = PanelGeometry(
            pixelWidth: px.width, pixelHeight: px.height, millimetres: preset.logicalMillimetres)
        let file = try RenderInputs.deck(path: Self.deck, layout: nil)
        let s = Self.states[state]
        let keys =
            s.args.first == "--keys"
            ? s.args[1].split(separator: " ").compactMap { AccessKey(rawValue: String($0)) } : []
        let gesture = s.args.first == "--gesture" ? s.args[1] : nil
        let scene = try RenderInputs.scene(
            deck: file, size: geometry.metrics.size, gesture: gesture, scriptPath: nil,
            atMs: keys.isEmpty ? 2000 : 3000,
            pointsPerMillimetre: geometry.metrics.pointsPerMillimetre, accessControl: true, keys: keys)
        let image = RenderFixtures.render(scene, width: px.width, height: px.height, scale: geometry.scale)
        // Where the code can be: the top card, or the end state's code element, above the caption
        // (other text may share the ink's colour).
        let holder = try #require(
            scene.elements.last {
                if case .card(let c) = $0.kind { return c.link != nil }
                return $0.id == "empty-link"
            })
        let k = holder.transform.scale
        let c = holder.frame.center
        let foot = (LinkCode.captionHeight + LinkCode.captionGap + (holder.id == "empty-link" ? 0 : 24)) * k
        let area = (
            x0: Int((c.x - holder.frame.width * k / 2) * geometry.scale),
            y0: Int((c.y - holder.frame.height * k / 2) * geometry.scale),
            x1: Int((c.x + holder.frame.width * k / 2) * geometry.scale),
            y1: Int((c.y + holder.frame.height * k / 2 - foot) * geometry.scale)
        )
        let ink: UInt32 = 0xFF1C_1C1E
        var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
        for y in max(0, area.y0)..<min(image.height, area.y1) {
            let line = (image.pixels + y * image.stride).assumingMemoryBound(to: UInt32.self)
            for x in max(0, area.x0)..<min(image.width, area.x1) where line[x] | 0xFF00_0000 == ink {
                (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
            }
        }
        try #require(maxX >= 0, "\(panel) \(s.name): no code drawn")
        let top = (image.pixels + minY * image.stride).assumingMemoryBound(to: UInt32.self)
        var run = 0
        while top[minX + run] | 0xFF00_0000 == ink { run += 1 }
        #expect(run % 7 == 0, "\(panel) \(s.name): finder row \(run) px is not 7 whole modules")
        let module = run / 7
        let width = maxX - minX + 1
        #expect(width == maxY - minY + 1 && width % module == 0, "\(panel) \(s.name): \(width) px, module \(module)")
        let perMM = Double(px.width) / preset.logicalMillimetres.width
        let mm = Double(width + 8 * module) / perMM
        print(
            "link code \(panel) \(s.name): \(module) px a module, \(jsonNumber(mm, decimals: 1)) mm with its quiet zone"
        )
        #expect(mm >= 25, "\(panel) \(s.name): \(mm) mm with its quiet zone")
        #expect(mm <= 40, "\(panel) \(s.name): \(mm) mm, larger than it needs")
    }

    /// A change detector for the card with a code and the end state with one on the original 7"
    /// (the decoding and the size above are the proof).
    @Test(arguments: [0, 2])
    func linkCodeMatchesItsGolden(state: Int) throws {
        let preset = try #require(PanelPreset.named("pi-7inch"))
        let geometry = PanelGeometry(pixelWidth: 800, pixelHeight: 480, millimetres: preset.logicalMillimetres)
        let s = Self.states[state]
        let keys = s.args.first == "--keys" ? [AccessKey.right, .right, .right] : []
        let scene = try RenderInputs.scene(
            deck: RenderInputs.deck(path: Self.deck, layout: nil), size: geometry.metrics.size,
            gesture: keys.isEmpty ? "release 300 0" : nil, scriptPath: nil, atMs: keys.isEmpty ? 2000 : 3000,
            pointsPerMillimetre: geometry.metrics.pointsPerMillimetre, accessControl: true, keys: keys)
        let image = RenderFixtures.render(scene, width: 800, height: 480, scale: geometry.scale)
        RenderFixtures.expectMatchesGolden(image, "link-code-\(s.name)")
    }

    func checkDeck(link: String) -> CheckDeckCommand.Outcome {
        let dir = DeckFixtures.temporaryDirectory("link-check")
        defer { DeckFixtures.removeTree(dir) }
        DeckFixtures.write(
            """
            {"id": "d", "version": 1, "title": "T", "layout": "stack",
             "cards": [{"id": "plan", "title": "Plan", "color": "#336699", "link": "\(link)"}]}
            """, to: dir + "/d.json")
        return CheckDeckCommand.evaluate(arguments: [dir + "/d.json"])
    }

    @Test func checkDeckRefusesAnHttpLinkNamingTheCardAndTheFix() {
        let outcome = checkDeck(link: "http://example.org/plan")
        #expect(outcome.status == 2)
        #expect(
            outcome.problems.contains {
                $0.contains("cards[0].link") && $0.contains("card \"plan\"") && $0.contains("write \"https://")
            }, "\(outcome.problems)")
    }

    @Test func checkDeckRefusesATooLongLinkWithTheLimit() {
        let outcome = checkDeck(link: "https://example.org/" + String(repeating: "a", count: 101))
        #expect(outcome.status == 2)
        #expect(
            outcome.problems.contains { $0.contains("121 characters") && $0.contains("120") && $0.contains("shorten") },
            "\(outcome.problems)")
        // 120 is accepted, and fits on every preset.
        let longest = checkDeck(link: "https://example.org/" + String(repeating: "a", count: 100))
        #expect(longest.status == 0, "\(longest.problems)")
    }

    @Test func checkDeckRefusesSpacesAndAddressesWithoutAHost() {
        for bad in ["https://example.org/a b", "https:///plan", "ftp://example.org/", "https://exämple.org/"] {
            let outcome = checkDeck(link: bad)
            #expect(outcome.status == 2, "\(bad) was accepted")
        }
    }

    @Test func aListDeckWarnsThatItShowsNoCode() {
        let dir = DeckFixtures.temporaryDirectory("link-list")
        defer { DeckFixtures.removeTree(dir) }
        DeckFixtures.write(
            """
            {"id": "d", "version": 1, "title": "T", "layout": "list", "emptyLink": "https://example.org/e",
             "cards": [{"id": "plan", "title": "Plan", "color": "#336699", "link": "https://example.org/p"}]}
            """, to: dir + "/d.json")
        let outcome = CheckDeckCommand.evaluate(arguments: [dir + "/d.json"])
        #expect(outcome.status == 0)
        #expect(outcome.warnings.filter { $0.contains("shows no QR code") }.count == 2, "\(outcome.warnings)")
    }

    /// The largest code the limit allows is version 7 (45 modules), the size `LinkCode` plans for;
    /// on a card too small for it (a tiny panel) `fits` says no.
    @Test func theLimitGivesAtMostVersionSevenAndFitsCheck() throws {
        let code = try #require(QRCode("https://example.org/" + String(repeating: "a", count: 100)))
        #expect(code.sideWithQuietZone == LinkCode.maximumModules)
        #expect(!LinkCode.fits(card: StackLayout.cardSize, side: 400, modules: 53, pixelsPerPoint: 1, padding: 24))
        #expect(LinkCode.fits(card: StackLayout.cardSize, side: 142, modules: 53, pixelsPerPoint: 0.916, padding: 24))
    }

    /// Showing a code during a visit records one `qr_shown` event per code and visit, into the
    /// real store as a kiosk event with its visit and which code (the fleet sync sends kiosk
    /// events as they are).
    @Test func showingACodeRecordsTheEvent() throws {
        let file = try RenderInputs.deck(path: Self.deck, layout: nil)
        let metrics = ScreenMetrics(size: Size(width: 873, height: 524), pointsPerMillimetre: 873 / 154.08)
        var n = 0
        var kiosk = Kiosk(
            deck: file.kioskDeck(), metrics: metrics, settings: .init(), seed: 1, at: .seconds(10),
            newSessionID: {
                n += 1
                return "visit-\(n)"
            })
        var effects: [KioskEffect] = []
        var t = Instant.seconds(10)
        func feed(_ input: KioskInput) {
            t = t.advanced(bySeconds: 1)
            _ = kiosk.scene(at: t)
            effects += kiosk.handle(input, at: t)
        }
        feed(.tick)
        for _ in 0..<3 {
            feed(.key(.right))
            feed(.tick)
        }
        let shown = effects.compactMap { e -> String? in
            if case .visit(.linkShown(let session, let card, _)) = e { return "\(session):\(card ?? "end")" }
            return nil
        }
        #expect(shown == ["visit-1:lageplan", "visit-1:gutschein", "visit-1:end"])

        var recorder = VisitRecorder(kioskID: "k1", deckID: file.id, deckVersion: 1, deckCardCount: 3)
        var items: [StoreItem] = []
        for case .visit(let v) in effects {
            items += recorder.record(v, wallMs: { 1_800_000_000_000 + $0.nanoseconds / 1_000_000 })
        }
        let dir = DeckFixtures.temporaryDirectory("link-event")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        for case .event(let e) in items { store.enqueue(event: e) }
        #expect(store.flush(stalledFor: 60))
        store.close()
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir), readOnly: true, create: false)
        // Which code, as stored: the card's id, or the end state's code (no card id).
        let rows = try db.prepare(
            "SELECT session_id, code_of, COALESCE(card_id, '-') FROM kiosk_events WHERE kind = 'qr_shown' ORDER BY id")
        var stored: [String] = []
        while try rows.step() { stored.append("\(rows.text(0)) \(rows.text(1)) \(rows.text(2))") }
        #expect(stored == ["visit-1 card lageplan", "visit-1 card gutschein", "visit-1 end -"])
    }
}
