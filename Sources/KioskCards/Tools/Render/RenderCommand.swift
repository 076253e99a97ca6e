import CardModel
import Glibc
import KioskDeckFiles
import KioskDisplay
import KioskInput
import KioskRender
import KioskSystem

/// `KioskCards render`: draws one frame headlessly into a PNG (docs, golden tests, support).
///
///     KioskCards render [--deck FILE] --size WxH --out FILE.png [--layout stack|list]
///                       [--gesture "drag DX DY" | --script FILE] [--keys "K …"] [--at MS]
///                       [--scale S | --panel-mm WxH] [--rotation 0|90|180|270] [--touch-matrix M]
///                       [--panel NAME] [--pixel-format xrgb8888|rgb565] [--naive]
///
/// `--panel` names a `PanelPreset` (size, millimetres and rotation at once). `--size` is the panel's pixel size; with `--rotation 90`/`270` the scene is laid out
/// upright in the swapped (portrait) size and the PNG shows the panel as mounted.
/// The deck goes through the real CardModel deck the kiosk runs (built-in sample cards without
/// `--deck`), starting on the attract screen as the kiosk does until a touch begins a visit. Gestures in points: "drag DX DY" (held: mid-drag), "release DX DY", "flick DX DY",
/// "tap X Y"; `--script` plays an evemu recording (e.g. a flight-recorder file) instead.
struct RenderOptions: Equatable {
    var deckPath: String?
    var width = 800
    var height = 480
    var outPath = ""
    /// nil: the deck's own layout.
    var layout: String?
    /// `--lang`: draw as a visitor who picked this language sees it (docs/LANGUAGES.md).
    var language: String?
    var gesture: String?
    var scriptPath: String?
    /// `--keys`: keys pressed after the gesture or script, as the kiosk takes them (the
    /// accessibility control first: `accessibility` opens it, and while it is open every key is its own).
    var keys: [AccessKey] = []
    var atMs: Double = 0
    /// The latest `--at`: a day after the last touch is long past every animation.
    static let maxAtMs: Double = 86_400_000
    var scale: Double?
    /// `--panel-mm`: the panel's size in millimetres as mounted unrotated (as its EDID says).
    var panelMM: Size?
    var rotation = Rotation.deg0
    /// `--pixel-format`: the scanout format the picture is converted to, as `run` converts it.
    var pixelFormat = PixelFormat.xrgb8888
    var naive = false
    /// `--staff`: the staff menu's page over the screen (its PIN pad, or the menu).
    var staff: RenderInputs.StaffPage?
    /// `--closed`: the closed-hours screen.
    var closed = false
    /// `--touch-matrix`: the calibration a `--script` recording was made with.
    var touchMatrix: TouchMatrix?

    static let table = OptionTable<RenderOptions>(
        command: "render", summary: "draw one frame headlessly into a PNG",
        usage: ["render [--deck FILE] [--size WxH] --out FILE.png [--gesture G | --script FILE] [options]"],
        details: """
            The deck goes through the real CardModel deck the kiosk runs (built-in sample cards without
            --deck). With --rotation 90 or 270 the scene is laid out upright in the swapped (portrait) size
            and the PNG shows the panel as mounted. Exit status: 0 written, 1 failed, 2 usage or a bad deck.
            """,
        options: [
            CommandOption(name: "deck", value: "FILE", help: "the deck file (default: built-in sample cards)") { o, v in
                o.deckPath = v
                return nil
            },
            CommandOption(name: "size", value: "WxH", help: "the panel's size in pixels (default 800x480)") { o, v in
                let parts = v.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] <= 8192, parts[1] <= 8192 else {
                    return "WIDTHxHEIGHT in pixels, e.g. 800x480"
                }
                (o.width, o.height) = (parts[0], parts[1])
                return nil
            },
            CommandOption.text(
                name: "out", value: "FILE.png", help: "where to write the PNG (required)", expected: "a file path"
            ) { $0.outPath = $1 },
            CommandOption(
                name: "lang", value: "TAG",
                help: "draw as a visitor who picked this language sees it (its texts, right to left for ar)"
            ) { o, v in
                guard DeckFile.isLanguageTag(v) else { return DeckFile.languageTagExpected }
                o.language = v
                return nil
            },
            CommandOption(name: "layout", value: "stack|list", help: "override the deck's layout") { o, v in
                guard DeckLayout(rawValue: v) != nil else { return "stack or list" }
                o.layout = v
                return nil
            },
            CommandOption(
                name: "gesture", value: "G",
                help: "in points: \"drag DX DY\" (held), \"release DX DY\", \"flick DX DY\", \"tap X Y\""
            ) { o, v in
                o.gesture = v
                return nil
            },
            CommandOption(
                name: "script", value: "FILE", help: "play an evemu recording (e.g. a flight-recorder file) instead"
            ) { o, v in
                o.scriptPath = v
                return nil
            },
            CommandOption(
                name: "keys", value: "\"K …\"",
                help: "then press these keys 100 ms apart: "
                    + AccessKey.allCases.map(\.rawValue).joined(separator: ", ")
            ) { o, v in
                let words = v.split(separator: " ")
                let keys = words.compactMap { AccessKey(rawValue: String($0)) }
                guard !words.isEmpty, keys.count == words.count, keys.count <= 100 else {
                    return "1 to 100 key names separated by spaces, e.g. \"accessibility down enter\" (names: "
                        + AccessKey.allCases.map(\.rawValue).joined(separator: ", ") + ")"
                }
                o.keys = keys
                return nil
            },
            CommandOption(name: "at", value: "MS", help: "draw MS milliseconds after the last touch (default 0)") {
                o, v in
                // Bounded before any arithmetic: 1e30, inf and nan would trap converting to nanoseconds.
                guard let ms = Double(v), ms >= 0, ms <= RenderOptions.maxAtMs else {
                    return "milliseconds from 0 to \(Int(RenderOptions.maxAtMs)) (a day)"
                }
                o.atMs = ms
                return nil
            },
            CommandOption(name: "scale", value: "S", help: "pixels per point (default: from the size)") { o, v in
                guard let s = Double(v), s > 0.1, s < 10 else { return "pixels per point between 0.1 and 10" }
                o.scale = s
                return nil
            },
            CommandOption(
                name: "panel-mm", value: "WxH",
                help: "the panel's physical size in mm (as its EDID reports): draw exactly what run draws there"
            ) { o, v in
                let parts = v.split(separator: "x").compactMap { Double($0) }
                guard parts.count == 2, parts.allSatisfy({ $0.isFinite && $0 > 0 && $0 <= 10_000 }) else {
                    return "WIDTHxHEIGHT in millimetres, e.g. 154x86 (the Raspberry Pi 7\" panel)"
                }
                o.panelMM = Size(width: parts[0], height: parts[1])
                return nil
            },
            CommandOption(
                name: "panel", value: "NAME",
                help: "draw on a known panel (sets --size, --panel-mm and --rotation): "
                    + PanelPreset.all.map(\.name).joined(separator: ", ")
            ) { o, v in
                guard let p = PanelPreset.named(v) else { return PanelPreset.unknown(v) }
                (o.width, o.height) = (p.pixelWidth, p.pixelHeight)
                o.panelMM = p.millimetres
                o.rotation = p.rotation
                return nil
            },
            CommandOption.parsed(
                name: "rotation", value: "DEG", help: "panel rotation clockwise: 0, 90, 180 or 270",
                expected: Rotation.acceptedValues, { Rotation(optionValue: $0) }
            ) { $0.rotation = $1 },
            CommandOption.parsed(
                name: "pixel-format", value: "FMT",
                help: "the scanout's format: rgb565 writes what run --pixel-format rgb565 shows (dithered)",
                expected: "xrgb8888 or rgb565", { PixelFormat(optionValue: $0) }
            ) { $0.pixelFormat = $1 },
            CommandOption(
                name: "touch-matrix", value: "\"a b c d e f\"",
                help: "the calibration a --script recording was made with"
            ) { o, v in
                guard let m = TouchMatrix(parsing: v) else { return "six numbers \"a b c d e f\" (libinput's format)" }
                o.touchMatrix = m
                return nil
            },
            CommandOption.parsed(
                name: "staff", value: "pin|menu", help: "draw the staff menu's PIN pad or its menu over the screen",
                expected: "pin or menu", { RenderInputs.StaffPage(rawValue: $0) }
            ) { $0.staff = $1 },
            .flag("closed", help: "draw the closed-hours screen (the deck's closed text)") { $0.closed = true },
            .flag("naive", help: "draw with the naive full cairo redraw (the benchmark's baseline)") {
                $0.naive = true
            },
        ],
        validate: { o in
            if o.outPath.isEmpty { return "--out FILE.png is required." }
            if o.gesture != nil && o.scriptPath != nil { return "give either --gesture or --script, not both." }
            return nil
        })

    /// The options from `args` (those after `render`); help and version are usage errors here.
    static func parse(_ args: [String]) throws(RenderError) -> RenderOptions {
        switch table.parse(args, from: RenderOptions()) {
        case .success(let o): return o
        case .help, .version: throw .usage(table.helpText)
        case .failure(let e): throw .usage(e.description)
        }
    }
}

/// Where `render` gets its scene: the deck file (or built-in samples) through the real
/// CardModel deck the kiosk runs, driven by a gesture or a recorded touch script.
enum RenderInputs {
    /// The deck to draw: `path` loaded like the kiosk loads it, or `BuiltInCards`.
    /// Deck problems are usage errors (exit 2) that list every problem with its line and field.
    static func deck(path: String?, layout: DeckLayout?) throws(RenderError) -> DeckFile {
        if let path {
            switch DeckLoader.load(path: path) {
            case .success(var deck):
                if let layout { deck.layout = layout }
                return deck
            case .failure(let problems):
                throw .usage("render: the deck file \(path) cannot be used:\n\(problems)")
            }
        }
        let list = layout == .list
        return DeckFile(
            path: "", id: "sample", version: 1, title: list ? "Color Cards" : "Willkommen",
            layout: list ? .list : .stack, cards: list ? BuiltInCards.list : BuiltInCards.stack,
            leftLabel: DeckFile.defaultLeftLabel, rightLabel: DeckFile.defaultRightLabel,
            emptyText: DeckFile.defaultEmptyText, attractText: DeckFile.defaultAttractText, idleTimeoutSeconds: nil)
    }

    /// The scene of `deck` laid out in `size` points after `gesture` or the touches of the evemu
    /// recording at `scriptPath`, then `keys` 100 ms apart, `atMs` milliseconds after the last
    /// touch frame or key.
    /// As in the kiosk, the visitor session starts on the attract screen (the deck's attract
    /// line and hint) and the first touch begins a visit.
    ///
    /// Gestures, in points: `drag DX DY` (moved over 300 ms, then held still: mid-drag),
    /// `release DX DY` (the same, then lifted: no fling), `flick DX DY` (lifted while still
    /// moving, so its velocity counts), `tap X Y`. They start at the top card's centre (stack) or the
    /// first row's centre (list); a script's touches are mapped onto the screen like `replay`.
    /// `touch` maps a script's device units as the kiosk did (panel size in points, rotation,
    /// calibration); nil: onto `size` upright.
    static func scene(
        deck file: DeckFile, size: Size, gesture: String?, scriptPath: String?, atMs: Double, buttons: Bool = true,
        touch: TouchReplayOptions? = nil, pointsPerMillimetre: Double = RenderScale.baselinePixelsPerInch / 25.4,
        language: String? = nil, accessControl: Bool = false, keys: [AccessKey] = [], staff: StaffPage? = nil,
        closed: Bool = false
    ) throws(RenderError) -> Scene {
        let metrics = ScreenMetrics(size: size, pointsPerMillimetre: pointsPerMillimetre)
        let start = Instant.seconds(1)
        var deck = file.kioskDeck()
        if closed && deck.schedule == nil { deck.schedule = Schedule(windows: []) }
        // The same rules the kiosk runs (`Kiosk`), on the attract screen until a touch begins a visit.
        var kiosk = Kiosk(
            deck: deck, metrics: metrics, settings: Kiosk.Settings(showsButtons: buttons, staffEnabled: staff != nil),
            seed: 0, at: start, newSessionID: { "render" })
        var last = start
        func feed(_ input: KioskInput, at time: Instant) {
            // The scene is drawn only at the end, but the model advances with each input, as in the app.
            _ = kiosk.scene(at: time)
            let effects = kiosk.handle(input, at: time)
            last = time
            for case .checkPIN in effects { feed(.pinChecked(correct: true), at: time) }
        }
        feed(.tick, at: start)
        if let language { feed(.language(language), at: start) }
        if closed { feed(.schedule(open: false, window: nil, lookAgainAt: nil), at: start) }
        if let scriptPath {
            var options = touch ?? TouchReplayOptions()
            if touch == nil { options.screen = size }
            try feedScript(path: scriptPath, options: options, startingAt: start) { f in feed(.touch(f), at: f.time) }
        } else if let gesture {
            let origin = origin(of: kiosk.deckScene(at: start), size: size)
            for f in try gestureFrames(gesture, origin: origin, at: start) { feed(.touch(f), at: f.time) }
        }
        // Keys 100 ms apart, as the kiosk takes them.
        for key in keys { feed(.key(key), at: last.advanced(bySeconds: 0.1)) }
        if let staff { try openStaff(staff, feed: feed, kiosk: { kiosk }, at: last.advanced(bySeconds: 0.1)) }
        // Time passes as on the panel: the countdown, the idle reset, the attract screen's nudges.
        let end = last.advanced(bySeconds: atMs / 1000)
        var ticks = 0
        while let due = kiosk.nextDeadline(after: last), due <= end, due > last, ticks < 100_000 {
            feed(.tick, at: due)
            ticks += 1
        }
        guard accessControl || staff != nil || closed else {
            // The deck alone, in the visitor's direction (the goldens of the deck's own look).
            return kiosk.deckScene(at: end, languageKeys: language != nil)
        }
        return kiosk.scene(at: end, staffInfo: StaffPage.sampleInfo)
    }

    /// The staff menu's pages `render --staff` draws.
    enum StaffPage: String, CaseIterable {
        case pin, menu

        /// The menu's lines about the kiosk, as an example.
        static let sampleInfo = [
            "Kiosk: lobby-1", "IP: 192.0.2.10 (eth0)", "KioskCards \(kioskCardsVersion)", "Deck: sample v1",
            "Decisions: 42 stored, 0 pending", "Storage: OK", "Uptime: 3 h 12 min", "Fleet: off",
        ]
    }

    /// Opens the PIN pad by the staff keys; for the menu, taps a PIN that the check accepts.
    private static func openStaff(
        _ page: StaffPage, feed: (KioskInput, Instant) -> Void, kiosk: () -> Kiosk, at time: Instant
    ) throws(RenderError) {
        feed(.staffKeys, time)
        guard page == .menu else { return }
        var t = time
        let size = kiosk().metrics.size
        for id in ["key:1", "key:2", "key:3", "key:4", "key:5", "key:6", "key:OK"] {
            let keys = StaffMenu.layout(kiosk().staffMenu.page, screen: size)
            guard let frame = keys.first(where: { $0.id == id })?.frame else {
                throw .usage("render: the PIN pad has no key \(id)")
            }
            t = t.advanced(bySeconds: 0.2)
            feed(
                .touch(TouchFrame(time: t, contacts: [TouchContact(id: 90, position: frame.center, phase: .began)])), t)
            t = t.advanced(bySeconds: 0.05)
            feed(
                .touch(TouchFrame(time: t, contacts: [TouchContact(id: 90, position: frame.center, phase: .ended)])), t)
        }
    }

    /// Where a gesture starts: the top card's centre, or the first row's.
    static func origin(of scene: Scene, size: Size) -> Point {
        for e in scene.elements.reversed() {
            if case .card = e.kind { return e.frame.center }
        }
        for e in scene.elements {
            if case .row = e.kind { return e.frame.center }
        }
        return Point(x: size.width / 2, y: size.height / 2)
    }

    /// The touch frames of a gesture: 60 Hz samples over 300 ms for the moving part.
    static func gestureFrames(_ gesture: String, origin: Point, at start: Instant) throws(RenderError) -> [TouchFrame] {
        let words = gesture.split(separator: " ").map(String.init)
        guard words.count == 3, let a = Double(words[1]), let b = Double(words[2]) else {
            throw .usage("render: --gesture '\(gesture)' should be 'drag|release|flick DX DY' or 'tap X Y' (points)")
        }
        // Bounded before any arithmetic: 1e308 passes isFinite but traps converting to pixels.
        let bound = 100_000.0
        for (i, field) in [(1, words[0] == "tap" ? "X" : "DX"), (2, words[0] == "tap" ? "Y" : "DY")] {
            let value = i == 1 ? a : b
            guard value.isFinite && abs(value) <= bound else {
                throw .usage(
                    "render: --gesture: \(field) is \(Excerpt.of(words[i])); give points from"
                        + " -100000 to 100000")
            }
        }
        func frame(_ ms: Double, _ p: Point, _ phase: TouchPhase) -> TouchFrame {
            TouchFrame(
                time: start.advanced(bySeconds: ms / 1000), contacts: [TouchContact(id: 1, position: p, phase: phase)])
        }
        switch words[0] {
        case "tap":
            let p = Point(x: a, y: b)
            return [frame(0, p, .began), frame(60, p, .ended)]
        case "drag", "release", "flick":
            let steps = 18
            let end = origin + Point(x: a, y: b)
            var frames = [frame(0, origin, .began)]
            for i in 1...steps {
                let k = Double(i) / Double(steps)
                frames.append(frame(Double(i) * 300 / Double(steps), origin + Point(x: a * k, y: b * k), .moved))
            }
            switch words[0] {
            case "flick": frames.append(frame(317, end, .ended))
            case "release": frames += [frame(450, end, .moved), frame(460, end, .ended)]
            default: frames.append(frame(450, end, .moved))  // held still: the card catches up with the finger
            }
            return frames
        default:
            throw .usage("render: --gesture '\(gesture)' should be 'drag|release|flick DX DY' or 'tap X Y' (points)")
        }
    }

    /// Feeds the touch frames of an evemu recording (a flight-recorder file, or `evemu-record`
    /// output) to `body` as they are read, mapped like `replay` maps it with `options` and
    /// moved in time to begin at `start`. Streamed: memory is flat in the recording's length.
    static func feedScript(
        path: String, options: TouchReplayOptions, startingAt start: Instant, to body: (TouchFrame) -> Void
    ) throws(RenderError) {
        do {
            let replay = try TouchReplayStream(contentsOf: path, options: options)
            var first: Int64?
            while var f = try replay.next() {
                let origin = first ?? f.time.nanoseconds
                first = origin
                // Both times are at most ~292 years: their difference fits, the sum may not.
                let (t, overflow) = (f.time.nanoseconds - origin).addingReportingOverflow(start.nanoseconds)
                guard !overflow else {
                    throw RenderError.usage(
                        "render: --script \(path): the touches span more than \(Int64.max / 1_000_000_000 / 31_557_600) years; this is not a real recording"
                    )
                }
                f.time = Instant(nanoseconds: t)
                body(f)
            }
        } catch let error as RenderError {
            throw error
        } catch {
            throw .usage("render: --script \(error)")
        }
    }
}

/// Reads a whole text file (at most 1 MiB, regular files only); errors name the file.
func readTextFile(_ path: String) throws(RenderError) -> String {
    do { return try FileIO.readText(path, limit: 1 << 20) } catch {
        throw .io("cannot read '\(path)': \(error.reason)")
    }
}

/// The panel picture of a logical (upright) frame turned by `rotation` and converted to
/// `format` (headless output; the display turns and converts frames while copying them to
/// scanout). An RGB565 picture is widened back to 8 bits a channel as a screendump widens it.
func panelImage(_ logical: PixelBuffer, rotation: Rotation, format: PixelFormat = .xrgb8888) -> PixelBuffer {
    ScanoutCopy.panelPicture(logical, rotation: rotation, format: format)
}

/// Runs `render` with the arguments after the subcommand; returns the exit status.
func runRenderCommand(_ args: [String]) -> Int32 {
    RenderOptions.table.run(args, from: RenderOptions(), runRender)
}

func runRender(_ o: RenderOptions) -> Int32 {
    // The first frame's helper threads (fonts, covered cards) allocate in the main arena.
    ProcessMemory.setUpForKiosk()
    do {
        let logical = o.rotation.logicalSize(physical: Size(width: Double(o.width), height: Double(o.height)))
        let pw = Int(logical.width)
        let ph = Int(logical.height)
        // The kiosk's own geometry for this panel (KioskSurface): scale, size, slop.
        let mm = o.panelMM.map {
            o.rotation == .deg90 || o.rotation == .deg270 ? Size(width: $0.height, height: $0.width) : $0
        }
        let panel = PanelGeometry(pixelWidth: pw, pixelHeight: ph, millimetres: mm, scale: o.scale)
        let scale = panel.scale
        // Fonts load on a thread of their own while the deck is read and the covered cards drawn.
        FontWarmUp.start(pixelsPerPoint: scale)
        let deck = try RenderInputs.deck(path: o.deckPath, layout: o.layout.flatMap(DeckLayout.init(rawValue:)))
        // A script is mapped as the kiosk mapped it: onto the panel in points, turned, calibrated.
        var touch = TouchReplayOptions()
        touch.screen = Size(width: Double(o.width) / scale, height: Double(o.height) / scale)
        touch.rotation = o.rotation
        touch.calibration = o.touchMatrix
        let scene = try RenderInputs.scene(
            deck: deck, size: panel.metrics.size, gesture: o.gesture, scriptPath: o.scriptPath, atMs: o.atMs,
            touch: touch, pointsPerMillimetre: panel.metrics.pointsPerMillimetre, language: o.language,
            accessControl: true, keys: o.keys, staff: o.staff, closed: o.closed)
        let images = ImageCache()
        let buffer = PixelBuffer(width: pw, height: ph)
        buffer.populateInBackground()
        // Headless: wait for photos instead of drawing placeholders.
        let renderer = SceneRenderer(pixelWidth: pw, pixelHeight: ph, scale: scale, images: images)
        // The covered cards on a second thread while this one draws the top card.
        renderer.drawImagesAhead(of: scene)
        renderer.render(scene, into: buffer)
        images.waitUntilIdle()
        if o.naive {
            NaiveRenderer(scale: scale, images: images).render(scene, into: buffer)
        } else {
            renderer.invalidate()
            renderer.render(scene, into: buffer)
        }
        try panelImage(buffer, rotation: o.rotation, format: o.pixelFormat).writePNG(to: o.outPath)
        return 0
    } catch .usage(let message) {
        Log.error(message)
        return 2
    } catch {
        Log.error("render: \(error)")
        return 1
    }
}
