import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskDisplay
@testable import KioskInput
@testable import KioskSystem

@Suite struct ConfigTests {
    /// Parses with an in-memory file system.
    func parse(_ arguments: [String], files: [String: String] = [:]) -> Result<KioskConfig.Invocation, ConfigError> {
        KioskConfig.parse(arguments: arguments) { path in
            files[path].map { .text($0) } ?? .missing
        }
    }

    func config(_ arguments: [String], files: [String: String] = [:]) throws -> KioskConfig {
        guard case .run(let c) = try parse(arguments, files: files).get() else {
            throw ConfigError(source: "test", message: "not a run command")
        }
        return c
    }

    func error(_ arguments: [String], files: [String: String] = [:]) -> ConfigError? {
        if case .failure(let e) = parse(arguments, files: files) { return e }
        return nil
    }

    @Test func defaultsWithoutAFile() throws {
        let c = try config([])
        #expect(c == KioskConfig())
        #expect(c.configPath == nil)
        #expect(c.deckPath == "/etc/kioskcards/deck.json")
        #expect(c.dataDirectory == "/var/lib/kioskcards")
        #expect(c.rotation == nil)  // the panel orientation decides
        #expect(c.buttons)
        #expect(c.effectiveIdleTimeout(deck: nil) == 60)
    }

    @Test func precedenceDefaultsThenFileThenFlags() throws {
        let file = """
            # a comment
            deck = /srv/deck.json   # trailing comment
            rotation = 90
            idle-timeout = 2m
            kiosk-id = "lobby-1"
            input = /dev/input/event1
            input = /dev/input/event2
            buttons = off
            """
        let fromFile = try config([], files: [KioskConfig.defaultPath: file])
        #expect(fromFile.configPath == KioskConfig.defaultPath)
        #expect(fromFile.deckPath == "/srv/deck.json")
        #expect(fromFile.rotation == .deg90)
        #expect(fromFile.idleTimeout == 120)
        #expect(fromFile.kioskID == "lobby-1")
        #expect(fromFile.inputs == ["/dev/input/event1", "/dev/input/event2"])
        #expect(!fromFile.buttons)
        #expect(fromFile.dataDirectory == KioskConfig().dataDirectory)  // not in the file: default

        let flagged = try config(
            ["--rotation", "270", "--input=/dev/input/event7", "--buttons", "on", "--data", "/tmp/d"],
            files: [KioskConfig.defaultPath: file])
        #expect(flagged.rotation == .deg270)  // flag beats file
        #expect(flagged.inputs == ["/dev/input/event7"])  // flags replace the file's list
        #expect(flagged.buttons)
        #expect(flagged.dataDirectory == "/tmp/d")  // flag beats default
        #expect(flagged.deckPath == "/srv/deck.json")  // file value kept
        #expect(flagged.idleTimeout == 120)
    }

    @Test func explicitConfigFile() throws {
        let c = try config(
            ["--config", "/x/k.conf"], files: ["/x/k.conf": "scale = 1.5\n", KioskConfig.defaultPath: "scale = 3"])
        #expect(c.scale == 1.5)
        #expect(c.configPath == "/x/k.conf")
        #expect(error(["--config", "/missing.conf"])?.message.contains("does not exist") == true)
    }

    @Test(arguments: [
        ("--rotaton", "--rotation"), ("--idle-timout", "--idle-timeout"), ("--kioskid", "--kiosk-id"),
        ("--touchmatrix", "--touch-matrix"), ("--conector", "--connector"), ("--blank", "--blank-timeout"),
        ("--confg", "--config"), ("--dek", "--deck"),
    ])
    func misspeltFlagNamesTheClosest(flag: String, suggestion: String) {
        // The one usage-error shape of every subcommand (it was "unknown flag; did you mean …").
        let e = error([flag, "1"])
        #expect(e?.source == "run")
        #expect(
            e?.description
                == "run: unknown option '\(flag)'. Did you mean '\(suggestion)'? See 'KioskCards run --help'",
            "\(String(describing: e))")
    }

    @Test func unrelatedFlagListsTheValidOnes() {
        // Nothing close: the error points at --help, which lists them (it was "valid: --config, …").
        let e = error(["--frobnicate-everything", "1"])
        #expect(
            e?.description
                == "run: unknown option '--frobnicate-everything'. See 'KioskCards run --help'",
            "\(String(describing: e))")
    }

    @Test func strayArgumentsAndMissingValues() {
        #expect(error(["deck.json"])?.message.contains("unexpected argument") == true)
        #expect(error(["-r", "90"])?.message.contains("unknown option '-r'") == true)
        #expect(error(["--deck"])?.message.contains("needs a value") == true)
    }

    @Test func unknownFileKeyNamesLineAndClosest() {
        let e = error([], files: [KioskConfig.defaultPath: "deck = /a.json\n\nidle_timeout = 30\n"])
        #expect(e?.source == "\(KioskConfig.defaultPath):3")
        #expect(e?.message == "unknown key 'idle_timeout'; did you mean 'idle-timeout'?")
    }

    @Test func fileSyntaxErrors() {
        #expect(error([], files: [KioskConfig.defaultPath: "rotation 90"])?.message.contains("key = value") == true)
        let twice = error([], files: [KioskConfig.defaultPath: "rotation = 90\nrotation = 180"])
        #expect(twice?.source == "\(KioskConfig.defaultPath):2")
        #expect(twice?.message.contains("already set on line 1") == true)
    }

    @Test(arguments: [
        ("rotation", "45", "0, 90, 180 or 270"),
        ("touch-matrix", "1 0 0 0 1", "six numbers"),
        ("touch-matrix", "1 0 0 0 1 x", "six numbers"),
        ("touch-matrix", "1 2 0 2 4 0", "do not flatten"),
        ("mode", "800by480", "WIDTHxHEIGHT"),
        ("mode", "800x480@0", "WIDTHxHEIGHT"),
        ("idle-timeout", "2s", "5s to 24h"),
        ("idle-timeout", "soon", "5s to 24h"),
        ("blank-timeout", "-5", "or off"),
        ("scale", "20", "0.25 to 8"),
        ("buttons", "maybe", "on or off"),
        ("kiosk-id", "lobby 1", "letters, digits"),
        ("input", "event0", "absolute device path"),
        ("drm", "card0", "absolute device path"),
    ])
    func badValuesNameKeyValueAndAccepted(key: String, value: String, accepted: String) {
        let flagError = error(["--\(key)", value])
        #expect(flagError?.source == "--\(key)")
        #expect(flagError?.message.contains("bad value '\(value)' for \(key)") == true)
        #expect(flagError?.message.contains(accepted) == true, "\(String(describing: flagError))")
        let fileError = error([], files: [KioskConfig.defaultPath: "\(key) = \(value)"])
        #expect(fileError?.source == "\(KioskConfig.defaultPath):1")
        #expect(fileError?.message == flagError?.message)
    }

    @Test func valueForms() throws {
        let c = try config([
            "--mode", "1920x1080@59.94", "--touch-matrix", "0, -1, 1, 1, 0, 0", "--blank-timeout", "1h",
            "--idle-timeout", "45", "--scale", "auto", "--connector", "DSI-1", "--stats", "/run/s",
        ])
        #expect(c.mode == ModeRequest(width: 1920, height: 1080, refreshHz: 59.94))
        #expect(c.touchMatrix == TouchMatrix(a: 0, b: -1, c: 1, d: 1, e: 0, f: 0))
        #expect(c.touchMatrix?.description == "0 -1 1 1 0 0")
        #expect(c.blankTimeout == 3600)
        #expect(c.idleTimeout == 45)
        #expect(c.scale == nil)
        #expect(c.connector == "DSI-1")
        #expect(c.statsPath == "/run/s")
        #expect(try config(["--blank-timeout", "off"]).blankTimeout == nil)
        #expect(try config(["--mode", "preferred"]).mode == nil)
    }

    @Test func helpAndVersion() throws {
        #expect(try parse(["--rotation", "90", "--help"]).get() == .help)
        #expect(try parse(["--version"]).get() == .version)
        for o in KioskConfig.options {
            #expect(KioskConfig.helpText.contains("--\(o.name) "), "\(o.name) missing from --help")
        }
    }

    /// The "no DRM display device" advice offers `--fbdev /dev/fbN`: `run` takes it (flag and key).
    @Test func fbdevReachesTheDisplayOptions() throws {
        #expect(DisplayError.noDevice(searched: []).description.contains("--fbdev /dev/fbN"))
        #expect(try config(["--fbdev", "/dev/fb1"]).displayOptions.fbdevPath == "/dev/fb1")
        let fromFile = try config([], files: [KioskConfig.defaultPath: "fbdev = /dev/fb2\n"])
        #expect(fromFile.displayOptions.fbdevPath == "/dev/fb2")
        #expect(try config([]).displayOptions.fbdevPath == nil)
        #expect(error(["--fbdev", "fb0"])?.message.contains("/dev/fb0") == true)
    }

    @Test func pixelFormatReachesTheDisplayOptions() throws {
        let fromFile = try config([], files: [KioskConfig.defaultPath: "pixel-format = rgb565\n"])
        #expect(fromFile.displayOptions.pixelFormat == .rgb565)
        let flagWins = try config(
            ["--pixel-format", "xrgb8888"], files: [KioskConfig.defaultPath: "pixel-format = rgb565\n"])
        #expect(flagWins.displayOptions.pixelFormat == .xrgb8888)
        #expect(try config(["--pixel-format", "auto"]).displayOptions.pixelFormat == nil)
        #expect(try config([]).displayOptions.pixelFormat == nil)
        #expect(error(["--pixel-format", "rgb888"])?.message.contains("xrgb8888, rgb565 or auto") == true)
    }

    @Test func idleTimeoutPrecedence() throws {
        let deck = try DeckLoader.load(path: DeckFixtures.good("list-themes.json")).get()
        #expect(try config([]).effectiveIdleTimeout(deck: deck) == 90.5)
        #expect(try config(["--idle-timeout", "30"]).effectiveIdleTimeout(deck: deck) == 30)
    }

    @Test func exampleFileDocumentsEveryKeyAndParses() throws {
        let path = DeckFixtures.packageRoot + "/deploy/kiosk.conf.example"
        let bytes = try FileIO.readAll(path, limit: 16 << 20)
        let text = String(decoding: bytes, as: UTF8.self)
        for o in KioskConfig.options {
            // Each key appears as a setting line, active or commented out.
            let lines = text.split(separator: "\n")
            #expect(
                lines.contains { $0.hasPrefix("\(o.name) = ") || $0.hasPrefix("# \(o.name) = ") },
                "deploy/kiosk.conf.example does not document '\(o.name)'")
        }
        var c = KioskConfig()
        #expect(KioskConfig.apply(file: text, name: path, to: &c) == nil)
        // Uncommenting every example line must parse as well.
        let uncommented = text.split(separator: "\n").map { line -> Substring in
            KioskConfig.optionNames.contains { line.hasPrefix("# \($0) = ") } ? line.dropFirst(2) : line
        }.joined(separator: "\n")
        var all = KioskConfig()
        #expect(KioskConfig.apply(file: uncommented, name: path, to: &all) == nil)
        #expect(all.kioskID == "lobby-1")
        #expect(all.blankTimeout == 1800)
        #expect(all.inputs.count == 2)
    }
}
