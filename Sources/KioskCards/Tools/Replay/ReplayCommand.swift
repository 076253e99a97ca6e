import CardModel
import KioskInput
import KioskSystem

/// `KioskCards replay FILE [--screen WxH] [--rotation R] [--touch-matrix "a b c d e f"]
/// [--touch-transform SPEC]`: decodes an evemu recording exactly as the app decodes a live
/// device and prints one JSON object per line (see `ReplayOptions.table`). Returns the exit
/// status: 0 done, 2 bad arguments or a bad file (message names the line).
func runReplayCommand(arguments: [String]) -> Int32 {
    ReplayOptions.table.run(arguments, from: ReplayOptions(), runReplay)
}

func runReplay(_ parsed: ReplayOptions) -> Int32 {
    // Read as a stream: each frame is printed as its SYN_REPORT is parsed, so memory stays
    // flat however long the recording is (a bad line later on still ends with exit 2).
    let replay: TouchReplayStream
    do {
        replay = try TouchReplayStream(contentsOf: parsed.path, options: parsed.touch)
    } catch let error as EvemuError {
        Log.error("replay: \(error)")
        return 2
    } catch {
        Log.error("replay: \(parsed.path): \(error)")
        return 2
    }
    var gestures = ReplayGestureHook(
        screen: replay.decoder.mapping.logicalSize, millimetres: replay.decoder.profile.physicalSizeMillimetres)
    do {
        while let frame = try replay.next() {
            print(replayFrameJSON(frame))
            for line in gestures.feed(frame) { print(line) }
        }
    } catch {
        Log.error("replay: \(error)")
        return 2
    }
    if replay.cancelledAtEnd > 0 {
        Log.warning("replay: \(replay.cancelledAtEnd) contact(s) still down at the end of the recording were cancelled")
    }
    return 0
}

/// `replay`'s command line: the recording and how its touches map onto the screen.
struct ReplayOptions {
    var path = ""
    var touch = TouchReplayOptions()

    /// How device touches map onto the screen; `probe --watch` takes the same options.
    static let touchOptions: [CommandOption<TouchReplayOptions>] = [
        CommandOption.parsed(
            name: "screen", value: "WxH", help: "the panel's native size in points (default 800x480)",
            expected: "WIDTHxHEIGHT in points, e.g. 800x480", { parseScreenSize($0) }
        ) { $0.screen = $1 },
        CommandOption.parsed(
            name: "rotation", value: "DEG", help: "display rotation, clockwise (turns picture and touch together)",
            expected: Rotation.acceptedValues, { Rotation(optionValue: $0) }
        ) { $0.rotation = $1 },
        CommandOption(
            name: "touch-matrix", value: "\"a b c d e f\"",
            help: "libinput calibration matrix, six numbers (normalised space)"
        ) { o, v in
            guard let m = TouchMatrix(parsing: v) else {
                return "six numbers \"a b c d e f\" (libinput's calibration matrix, not singular)"
            }
            o.calibration = m
            return nil
        },
        CommandOption(
            name: "touch-transform", value: "SPEC",
            help:
                "touch-only transform after the matrix: rotate-90|rotate-180|rotate-270|flip-x|flip-y|swap-xy, comma-separated"
        ) { o, v in
            guard let m = TouchMatrix(transformSpec: v) else {
                return "rotate-90, rotate-180, rotate-270, flip-x, flip-y or swap-xy (comma-separated)"
            }
            o.touchTransform = m
            return nil
        },
    ]

    static let table = OptionTable<ReplayOptions>(
        command: "replay", summary: "decode an evemu touch recording, print JSON frames and gestures",
        details: """
            Decodes an evemu recording (evemu-record output) like a live touchscreen and prints one JSON
            object per line:
              {"type":"frame","t":<s>,"contacts":[{"id":N,"x":<pt>,"y":<pt>,"phase":"began|moved|ended|cancelled"}]}
            for every SYN_REPORT that changed something, and
              {"type":"gesture","kind":"tap|drag|hold|cancelled","translation":[dx,dy],"velocity":[vx,vy],"dismiss":"left|right|none"}
            for every primary-contact gesture that ends, judged as the card stack would judge it: a hold
            stayed within the slop past 0.8 s; cancelled means it ended without a lift (a palm, more than
            five contacts at once, an unplug, a SYN_DROPPED). Neither acts.
            """,
        options: touchOptions.map { $0.lifted(\ReplayOptions.touch) },
        positional: CommandPositional(name: "FILE", help: "the evemu recording", count: .one) { o, v in
            o.path = v
            return nil
        })
}

enum ReplayArguments {
    case success(path: String, options: TouchReplayOptions)
    case failure(String)
    case help
}

/// `replay`'s arguments through its table, for tests and the flight recorder's header check.
func parseReplayArguments(_ arguments: [String]) -> ReplayArguments {
    switch ReplayOptions.table.parse(arguments, from: ReplayOptions()) {
    case .success(let o): return .success(path: o.path, options: o.touch)
    case .help, .version: return .help
    case .failure(let e): return .failure(e.description)
    }
}

/// "800x480" → 800×480 points.
func parseScreenSize(_ text: String) -> Size? {
    let parts = text.split(separator: "x")
    guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w >= 1, h >= 1, w.isFinite, h.isFinite
    else { return nil }
    return Size(width: w, height: h)
}

/// One `{"type":"frame",…}` line.
func replayFrameJSON(_ frame: TouchFrame) -> String {
    let contacts = frame.contacts.map { c in
        "{\"id\":\(c.id),\"x\":\(jsonNumber(c.position.x, decimals: 2)),\"y\":\(jsonNumber(c.position.y, decimals: 2)),\"phase\":\"\(c.phase.rawValue)\"}"
    }
    return
        "{\"type\":\"frame\",\"t\":\(jsonNumber(frame.time.seconds, decimals: 6)),\"contacts\":[\(contacts.joined(separator: ","))]}"
}

// MARK: - Gesture lines

/// Turns replayed frames into one line per ended primary-contact gesture, judged as
/// the stack layout would judge it (CardModel's `PrimaryGestureTracker`).
struct ReplayGestureHook {
    private var tracker: PrimaryGestureTracker

    /// `screen` is the logical screen the frames are in; `millimetres` its physical size when
    /// the device reports axis resolutions. Without it the screen is taken as a 7" panel's
    /// density (800 pt over 154 mm), the common kiosk case.
    init(screen: Size, millimetres: (width: Double, height: Double)?) {
        let perMM = millimetres.map { screen.width / $0.width } ?? ReplayGestureHook.defaultPointsPerMillimetre
        tracker = PrimaryGestureTracker(metrics: ScreenMetrics(size: screen, pointsPerMillimetre: perMM))
    }

    /// 800 points across the 154.2 mm of a 7" 15:9 panel.
    static let defaultPointsPerMillimetre = 800.0 / 154.2

    mutating func feed(_ frame: TouchFrame) -> [String] {
        guard let g = tracker.handle(frame) else { return [] }
        let t = "[\(jsonNumber(g.translation.x, decimals: 2)),\(jsonNumber(g.translation.y, decimals: 2))]"
        let v = "[\(jsonNumber(g.velocity.x, decimals: 2)),\(jsonNumber(g.velocity.y, decimals: 2))]"
        let dismiss = g.dismiss?.rawValue ?? "none"
        return [
            "{\"type\":\"gesture\",\"kind\":\"\(g.kind.rawValue)\",\"translation\":\(t),\"velocity\":\(v),\"dismiss\":\"\(dismiss)\"}"
        ]
    }
}
