import CardModel
import KioskDeckFiles
import KioskDisplay
import KioskInput
import KioskSystem

/// Parsing `kiosk.conf` and command-line flags into a `KioskConfig` (pure: the file is read
/// through a closure).
extension KioskConfig {
    /// What the command line asks for.
    enum Invocation: Hashable, Sendable {
        case run(KioskConfig)
        case help
        case version
    }

    /// The result of reading a config file.
    enum FileContents {
        case text(String)
        case missing
        /// Exists but cannot be read; the reason.
        case unreadable(String)
    }

    /// One settable key: `name = value` in the file, `--name value` on the command line
    /// (`run`'s option table is made from these).
    typealias Option = CommandOption<KioskConfig>

    /// A duration option (60, 90s, 2m, 1h) within `range` seconds; `expected` names the range
    /// and an example.
    static func duration(
        name: String, help: String, range: ClosedRange<Double>, expected: String,
        set: @escaping @Sendable (inout KioskConfig, Double) -> Void
    ) -> Option {
        Option.parsed(
            name: name, value: "TIME", help: help, expected: expected,
            { parseDuration($0).flatMap { range.contains($0) ? $0 : nil } }, set: set)
    }

    static let options: [Option] = [
        Option(name: "deck", value: "FILE", help: "the deck file (JSON), reloaded when it changes") { c, v in
            guard !v.isEmpty else { return "a path to a deck file" }
            c.deckPath = v
            return nil
        },
        Option(name: "data", value: "DIR", help: "data directory: decisions database, screenshots, recordings") {
            c, v in
            guard !v.isEmpty else { return "a directory path" }
            c.dataDirectory = v
            return nil
        },
        Option(name: "kiosk-id", value: "ID", help: "name stored with every decision (default: the host name)") {
            c, v in
            guard !v.isEmpty, v.count <= 64, v.unicodeScalars.allSatisfy(isIdentifierScalar) else {
                return "1 to 64 letters, digits, '-', '_' or '.'"
            }
            c.kioskID = v
            return nil
        },
        Option(
            name: "language", value: "TAG",
            help: "the language each visit starts in (default: the deck's); visitors pick others on screen"
        ) { c, v in
            guard DeckFile.isLanguageTag(v) else { return DeckFile.languageTagExpected }
            c.language = v
            return nil
        },
        Option(
            name: "panel", value: "NAME",
            help: "a known panel: sets rotation (picture and touch) and millimetres together; keys after it override"
        ) { c, v in
            guard let p = PanelPreset.named(v) else { return PanelPreset.unknown(v) }
            c.panel = p
            c.rotation = p.rotation
            c.panelMillimetres = p.millimetres
            return nil
        },
        Option(name: "rotation", value: "DEG", help: "panel rotation clockwise: 0, 90, 180 or 270") { c, v in
            guard let r = Rotation(optionValue: v) else { return Rotation.acceptedValues }
            c.rotation = r
            return nil
        },
        Option(
            name: "touch-matrix", value: "\"a b c d e f\"",
            help: "touch calibration, libinput's 6-value matrix (KioskCards calibrate prints one)"
        ) { c, v in
            guard let m = TouchMatrix(parsing: v) else {
                return "six numbers \"a b c d e f\" that do not flatten the plane (identity: \"1 0 0 0 1 0\")"
            }
            c.touchMatrix = m
            return nil
        },
        Option(
            name: "input", value: "DEV", help: "touch input device; repeat for several (default: every touchscreen)",
            repeatable: true
        ) { c, v in
            guard v.hasPrefix("/") else { return "an absolute device path such as /dev/input/event0" }
            c.inputs.append(v)
            return nil
        },
        Option(name: "drm", value: "DEV", help: "DRM device (default: the first with a connected display)") {
            c, v in
            guard v.hasPrefix("/") else { return "an absolute device path such as /dev/dri/card0" }
            c.drmDevice = v
            return nil
        },
        Option(
            name: "fbdev", value: "DEV",
            help: "draw on this framebuffer (/dev/fbN) instead of DRM, for a framebuffer-only panel"
        ) { c, v in
            guard v.hasPrefix("/") else { return "an absolute device path such as /dev/fb0" }
            c.fbdevDevice = v
            return nil
        },
        Option(
            name: "connector", value: "NAME",
            help: "display connector, e.g. HDMI-A-1 or DSI-1 (default: first connected)"
        ) { c, v in
            guard !v.isEmpty, !v.contains(" ") else { return "a connector name such as HDMI-A-1 or DSI-1" }
            c.connector = v
            return nil
        },
        Option(name: "mode", value: "WxH[@HZ]", help: "display mode, e.g. 800x480 or 1920x1080@60 (default: preferred)")
        {
            c, v in
            if v == "preferred" || v == "auto" {
                c.mode = nil
                return nil
            }
            guard let m = parseMode(v) else {
                return "WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (e.g. 1920x1080@60), or preferred"
            }
            c.mode = m
            return nil
        },
        Option(
            name: "pixel-format", value: "FMT",
            help: "scanout format: rgb565 halves the memory traffic, dithered (default auto: the driver's choice)"
        ) { c, v in
            if v.lowercased() == "auto" {
                c.pixelFormat = nil
                return nil
            }
            guard let f = PixelFormat(optionValue: v) else { return PixelFormat.acceptedValues }
            c.pixelFormat = f
            return nil
        },
        duration(
            name: "idle-timeout",
            help:
                "reset for the next visitor after this long without a touch: 60, 90s, 2m (default: the deck's, else 60s)",
            range: 5...86_400, expected: "a duration from 5s to 24h, e.g. 60, 90s, 2m"
        ) {
            $0.idleTimeout = $1
        },
        Option(
            name: "staff-pin-hash", value: "HASH",
            help: "the staff menu's PIN as a crypt(3) hash; write it with 'KioskCards set-pin' (default: no staff menu)"
        ) { c, v in
            guard v.hasPrefix("$"), v.count >= 20, !v.contains(where: { $0.isWhitespace }) else {
                return "a crypt(3) hash such as $y$…; make one with 'KioskCards set-pin'"
            }
            c.staffPinHash = v
            return nil
        },
        Option(
            name: "staff-corner", value: "CORNER",
            help:
                "the corner for the staff menu's hidden taps: top-left, top-right, bottom-left, bottom-right (default top-left)"
        ) { c, v in
            guard let corner = StaffEntry.Corner(rawValue: v.lowercased()) else {
                return StaffEntry.Corner.allCases.map(\.rawValue).joined(separator: ", ")
            }
            c.staffGesture.corner = corner
            return nil
        },
        Option(
            name: "staff-taps", value: "N",
            help: "taps in the corner to open the staff menu, the last one held (default 3)"
        ) { c, v in
            guard let n = Int(v), (2...6).contains(n) else {
                return "a whole number from 2 to 6 (fewer is too easy for a crowd, more too hard for staff)"
            }
            c.staffGesture.taps = n
            return nil
        },
        duration(
            name: "staff-hold", help: "how long the last corner tap is held to open the staff menu: 3s (default 3s)",
            range: 1...10, expected: "a duration from 1s to 10s, e.g. 3s"
        ) {
            $0.staffGesture.hold = $1
        },
        Option(
            name: "staff-keys", value: "KEYS",
            help: "key combination on any keyboard that opens the staff menu, or off (default ctrl+alt+s)"
        ) { c, v in
            if ["off", "none", "no"].contains(v.lowercased()) {
                c.staffKeys = nil
                return nil
            }
            switch KeyChord.parse(v) {
            case .success(let chord): c.staffKeys = chord
            case .failure(let problem): return "\(problem)"
            }
            return nil
        },
        Option(
            name: "idle-warning", value: "TIME",
            help: "show a countdown this long before the idle reset: 10s, 20s, or off (default: the deck's, else 10s)"
        ) { c, v in
            if ["off", "0"].contains(v.lowercased()) {
                c.warningSeconds = 0
                return nil
            }
            guard let s = parseDuration(v), s >= 1, s <= 600 else { return "a duration from 1s to 10m, or off" }
            c.warningSeconds = s
            return nil
        },
        Option(
            name: "blank-timeout", value: "TIME",
            help: "switch the panel off after this long without a touch: 10m, 1h, or off (default: off)"
        ) { c, v in
            if ["off", "never", "0"].contains(v.lowercased()) {
                c.blankTimeout = nil
                return nil
            }
            guard let s = parseDuration(v), s >= 10, s <= 7 * 86_400 else {
                return "a duration from 10s to 7d, e.g. 10m or 1h, or off"
            }
            c.blankTimeout = s
            return nil
        },
        Option(
            name: "scale", value: "X", help: "points-to-pixels factor, e.g. 1.5, or auto (default: from the panel size)"
        ) {
            c, v in
            if v == "auto" {
                c.scale = nil
                return nil
            }
            guard let s = Double(v), s >= 0.25, s <= 8 else { return "a number from 0.25 to 8, or auto" }
            c.scale = s
            return nil
        },
        Option.onOff(
            name: "public", help: "a kiosk the public uses: the stack's buttons cannot be switched off (default: on)"
        ) { $0.publicMode = $1 },
        Option(
            name: "speech-device", value: "PCM",
            help: "the ALSA device speech plays on, e.g. default, plughw:1,0 (default: default)"
        ) {
            c, v in
            guard !v.isEmpty else { return "an ALSA PCM name such as default or plughw:1,0" }
            c.speechDevice = v
            return nil
        },
        Option.onOff(
            name: "speech-privacy",
            help: "switch the panel off while speech plays, for private listening (default: off)"
        ) { $0.speechPrivacy = $1 },
        Option(
            name: "switch-key", value: "KEY",
            help:
                "one-switch scanning: this key steps through the choices, held selects: space, enter, f2… or off (default: off)"
        ) { c, v in
            if ["off", "none", "no"].contains(v.lowercased()) {
                c.switchKey = nil
                return nil
            }
            guard let key = SwitchKey.parse(v) else { return SwitchKey.accepted }
            c.switchKey = key
            return nil
        },
        duration(
            name: "switch-hold",
            help: "how long the switch key is held to select the highlighted choice: 0.8s (default 0.8s)",
            range: 0.3...5, expected: "a duration from 0.3s to 5s, e.g. 0.8s"
        ) {
            $0.switchHold = $1
        },
        Option.onOff(
            name: "buttons",
            help: "on-screen buttons for the accessible actions (default: on; always on with public = on)"
        ) { $0.buttons = $1 },
        Option(
            name: "stats", value: "FILE",
            help: "write the run figures (JSON: latency, frame time, flips, RSS) here on SIGUSR2 and at exit"
        ) {
            c, v in
            guard !v.isEmpty else { return "a file path" }
            c.statsPath = v
            return nil
        },
        Option(
            name: "fleet-url", value: "URL",
            help: "send decisions and heartbeats to this fleet PostgreSQL (postgresql://…; see docs/FLEET.md)"
        ) { c, v in
            guard v.hasPrefix("postgresql://") || v.hasPrefix("postgres://") || v.contains("=") else {
                return "a postgresql:// URL or key=value conninfo, as 'KioskCards fleet add-kiosk' prints"
            }
            c.fleetURL = v
            return nil
        },
        Option(
            name: "fleet-credentials", value: "FILE",
            help: "file (mode 0600) with the kiosk role's password, from 'fleet add-kiosk --credentials'"
        ) { c, v in
            guard v.hasPrefix("/") else { return "an absolute path such as /etc/kioskcards/fleet-password" }
            c.fleetCredentials = v
            return nil
        },
        duration(
            name: "fleet-heartbeat", help: "time between heartbeats to the fleet (default 60s)", range: 1...86_400,
            expected: "a duration from 1s to 24h, e.g. 60s"
        ) {
            $0.fleetHeartbeat = $1
        },
        duration(
            name: "fleet-deck-poll",
            help: "time between looks at the fleet's deck assignment (default 60s, jittered; NOTIFY is sooner)",
            range: 1...86_400, expected: "a duration from 1s to 24h, e.g. 60s"
        ) {
            $0.fleetDeckPoll = $1
        },
        Option(
            name: "fleet-tls", value: "verify|insecure",
            help: "insecure: talk to a fleet server fleet-url does not verify (warned in the log and heartbeat)"
        ) { c, v in
            guard v == "verify" || v == "insecure" else {
                return "verify (the default: fleet-url must say sslmode=verify-full) or insecure"
            }
            c.fleetTLSInsecure = v == "insecure"
            return nil
        },
        Option.onOff(
            name: "fleet-screenshot",
            help: "answer 'fleet screenshot' with a PNG of the frame (default: on; never while the staff menu is open)"
        ) { $0.fleetScreenshot = $1 },
        duration(
            name: "fleet-screenshot-interval", help: "the least time between two screenshots from afar (default 10s)",
            range: 1...86_400, expected: "a duration from 1s to 24h, e.g. 10s"
        ) {
            $0.fleetScreenshotInterval = $1
        },
    ]

    static var optionNames: [String] { options.map(\.name) }

    private static func option(named name: String) -> Option? { options.first { $0.name == name } }

    private static func isIdentifierScalar(_ u: Unicode.Scalar) -> Bool {
        (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || (u >= "0" && u <= "9") || u == "-" || u == "_"
            || u == "."
    }

    /// "60", "60s", "2m", "1.5h", "1d" as seconds.
    static func parseDuration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var body = Substring(text.lowercased())
        var scale = 1.0
        if let last = body.last, let u = units[last] {
            scale = u
            body = body.dropLast()
        }
        guard let v = Double(body), v.isFinite, v >= 0 else { return nil }
        return v * scale
    }

    /// "800x480" or "1920x1080@59.94".
    static func parseMode(_ text: String) -> ModeRequest? { ModeRequest(text) }

    // MARK: - Sources

    private static func set(
        _ config: inout KioskConfig, _ option: Option, _ value: String, source: String
    ) -> ConfigError? {
        guard let accepted = option.apply(&config, value) else { return nil }
        return ConfigError(
            source: source, message: "bad value '\(Excerpt.of(value))' for \(option.name); expected \(accepted)")
    }

    /// Applies a config file's `key = value` lines to `config`.
    static func apply(file text: String, name: String, to config: inout KioskConfig) -> ConfigError? {
        var seen: [String: Int] = [:]
        var lineNumber = 0
        // "\r\n" is one Character in Swift: split on both line endings.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let source = "\(name):\(lineNumber)"
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            // A comment starts with '#' at the line start or after whitespace ("a#b" is a value).
            if let hash = commentStart(line) { line = line[..<hash] }
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                return ConfigError(source: source, message: "expected 'key = value', found '\(Excerpt.of(trimmed))'")
            }
            let key = String(trimmed[..<eq].trimmingSpaces)
            var value = trimmed[trimmed.index(after: eq)...].trimmingSpaces
            if value.count >= 2 && value.first == "\"" && value.last == "\"" {
                value = value.dropFirst().dropLast()
            }
            guard let option = option(named: key) else {
                return ConfigError(
                    source: source,
                    message: "unknown key '\(Excerpt.of(key))'; " + ClosestMatch.hint(for: key, among: optionNames))
            }
            if !option.repeatable, let first = seen[key] {
                return ConfigError(source: source, message: "'\(key)' is already set on line \(first); keep one")
            }
            seen[key] = lineNumber
            if let error = set(&config, option, String(value), source: source) { return error }
        }
        return nil
    }

    private static func commentStart(_ line: Substring) -> Substring.Index? {
        var previous: Character = " "
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            if c == "#" && (previous == " " || previous == "\t") { return i }
            previous = c
            i = line.index(after: i)
        }
        return nil
    }

    /// `run`'s command line before the settings apply: the config file to read and the
    /// settings given as options, in order.
    struct RunArguments {
        var configPath: String?
        var settings: [(option: Option, value: String)] = []
    }

    /// `run`'s options: `--config` and every config key, recorded to apply over the file.
    static let runTable = OptionTable<RunArguments>(
        command: "run", summary: "run the kiosk on the panel", usage: ["run [--config FILE] [options]"],
        details: """
            Settings come from \(defaultPath) (or --config FILE), then the options below, which
            override the file. Each option is also a config key: 'rotation = 90' in the file.
            Exit status: 0 after SIGTERM/SIGINT, 1 the display cannot be used, 2 bad configuration or deck.
            """,
        options: [
            CommandOption(name: "config", value: "FILE", help: "config file (default \(defaultPath); absent is fine)") {
                r, v in
                r.configPath = v
                return nil
            }
        ]
            + options.map { o in
                CommandOption(name: o.name, value: o.value, help: o.help, repeatable: o.repeatable) { r, v in
                    r.settings.append((o, v))
                    return nil
                }
            })

    /// Parses the command line (the arguments after `run`): reads the config file (from
    /// `--config`, else the default path, which may be absent), then applies the flags.
    /// A usage error has `source` "run" and says where help is.
    static func parse(
        arguments: [String], readFile: (String) -> FileContents
    ) -> Result<Invocation, ConfigError> {
        let flags: RunArguments
        switch runTable.parse(arguments, from: RunArguments()) {
        case .success(let f): flags = f
        case .help: return .success(.help)
        case .version: return .success(.version)
        case .failure(let e):
            return .failure(ConfigError(source: e.command, message: "\(e.message) See 'KioskCards run --help'"))
        }

        // Defaults < file < flags.
        var config = KioskConfig()
        let configPath = flags.configPath
        let path = configPath ?? defaultPath
        switch readFile(path) {
        case .text(let text):
            config.configPath = path
            if let error = apply(file: text, name: path, to: &config) { return .failure(error) }
        case .missing:
            if configPath != nil {
                return .failure(ConfigError(source: "--config", message: "\(path) does not exist"))
            }
        case .unreadable(let reason):
            return .failure(ConfigError(source: path, message: "cannot read the config file: \(reason)"))
        }
        var clearedRepeatables: Set<String> = []
        for (option, value) in flags.settings {
            // Flags for a repeatable key replace the file's list rather than adding to it.
            if option.repeatable && !clearedRepeatables.contains(option.name) {
                clearedRepeatables.insert(option.name)
                if option.name == "input" { config.inputs = [] }
            }
            if let error = set(&config, option, value, source: "--\(option.name)") { return .failure(error) }
        }
        return .success(.run(config))
    }

    /// `KioskCards run --help`.
    static var helpText: String { runTable.helpText }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}

extension KioskConfig {
    /// Reads a config file from disk for `parse`.
    static func readConfigFile(_ path: String) -> FileContents {
        do {
            let bytes = try FileIO.readAll(path, limit: 1 << 20)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .unreadable("the file is not UTF-8 text")
            }
            return .text(text)
        } catch {
            if error.errno == .noEntry { return .missing }
            return .unreadable(error.reason)
        }
    }

    /// For the `run` command: the config, or the exit status after printing help, the
    /// version, or the error (status 2, the error names the key/flag, the value and the fix).
    static func resolve(arguments: [String]) -> Result<KioskConfig, ExitStatus> {
        switch parse(arguments: arguments, readFile: readConfigFile) {
        case .success(.run(let config)): return .success(config)
        case .success(.help):
            print(helpText)
            return .failure(ExitStatus(code: 0))
        case .success(.version):
            print("KioskCards \(kioskCardsVersion)")
            return .failure(ExitStatus(code: 0))
        case .failure(let error):
            // A usage error already starts with "run:"; a setting's names its flag or file line.
            Log.error(error.source == runTable.command ? "\(error)" : "run: \(error)")
            return .failure(ExitStatus(code: 2))
        }
    }
}

extension KioskConfig {
    /// Every config key as an option of another subcommand (calibrate, touch-test), kept as
    /// `--name value` in `runFlags` for `parse` to apply over the config file as `run` does.
    static func runFlagOptions<Values>(
        _ runFlags: WritableKeyPath<Values, [String]> & Sendable
    ) -> [CommandOption<Values>] {
        options.map { o in
            CommandOption(name: o.name, value: o.value, help: o.help, repeatable: o.repeatable) { values, v in
                values[keyPath: runFlags] += ["--\(o.name)", v]
                return nil
            }
        }
    }
}
