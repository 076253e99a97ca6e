import CPangoCairo
import CardModel
import Glibc
import KioskInput
import KioskSystem

/// `KioskCards calibrate`: four targets on the panel, one tap each, read from the raw
/// touchscreen (no calibration applied); libinput's matrix solved from them
/// (`TouchCalibration`) and written into the config as `touch-matrix` (or printed).
enum CalibrateCommand {
    struct Options: Equatable {
        var configPath = KioskConfig.defaultPath
        var explicitConfig = false
        var printOnly = false
        var timeout = 120.0
        var linger = 4.0
        /// The config keys given as options, for `KioskConfig.parse`.
        var runFlags: [String] = []
    }

    static func seconds(_ v: String) -> Double? {
        guard let s = Double(v), s >= 0, s <= maxOptionSeconds else { return nil }
        return s
    }

    static let table = OptionTable<Options>(
        command: "calibrate", summary: "tap 4 targets; write the touch-matrix into the config",
        usage: ["calibrate [--config FILE] [--print] [--timeout S] [--linger S] [run options]"],
        details: """
            Shows four targets one after another; tap the centre of each with one finger. Then
            shows how far off the taps will land with the new calibration and writes
              touch-matrix = "a b c d e f"
            into the config file (the key's line is replaced, or added; every other line stays),
            atomically. Stop the kiosk first (systemctl stop kioskcards): it holds the display.
            The run options (--rotation, --input, --drm, --connector, --mode, --scale, ...) apply as
            for 'run', so the targets appear where the kiosk would draw them.
            Exit status: 0 calibrated, 1 cancelled, timed out, or the display/config failed, 2 usage.
            """,
        options: [
            CommandOption(
                name: "config", value: "FILE",
                help: "the config to read and update (default \(KioskConfig.defaultPath))"
            ) { o, v in
                guard !v.isEmpty else { return "a file path" }
                o.configPath = v
                o.explicitConfig = true
                return nil
            },
            .flag("print", help: "print the line instead of writing the config") { $0.printOnly = true },
            CommandOption.parsed(
                name: "timeout", value: "S",
                help: "give up after S seconds (default 120); Esc on a keyboard cancels too",
                expected: "seconds, e.g. 60", { seconds($0) }
            ) { $0.timeout = $1 },
            CommandOption.parsed(
                name: "linger", value: "S", help: "show the result for S seconds before exiting (default 4)",
                expected: "seconds, e.g. 4", { seconds($0) }
            ) { $0.linger = $1 },
        ] + KioskConfig.runFlagOptions(\Options.runFlags))

    enum Parsed: Equatable {
        case options(Options)
        case help
        case failure(String)
    }

    static func parse(_ arguments: [String]) -> Parsed {
        switch table.parse(arguments, from: Options()) {
        case .success(let o): return .options(o)
        case .help, .version: return .help
        case .failure(let e): return .failure(e.description)
        }
    }

    static func run(arguments: [String]) -> Int32 {
        table.run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        // The config as the kiosk reads it (for the display and rotation), and its text to edit.
        let original: String?
        switch ConfigEdit.readForEditing(options.configPath, command: "calibrate") {
        case .success(let text): original = text
        case .failure(let status): return status.code
        }
        let config: KioskConfig
        switch KioskConfig.parse(
            arguments: options.runFlags, readFile: { _ in original.map { .text($0) } ?? .missing })
        {
        case .success(.run(var c)):
            c.configPath = original == nil ? nil : options.configPath
            config = c
        case .success(.help), .success(.version):
            print(table.helpText)
            return 0
        case .failure(let error):
            Log.error("calibrate: \(error)")
            return 2
        }
        if original == nil && !options.printOnly {
            Log.info("calibrate: \(options.configPath) does not exist yet; it will be created with the matrix")
        }

        guard let screen = DiagnosticScreen(config: config, command: "calibrate") else { return 1 }
        var page = CalibrationPage(screenSize: screen.logicalSize, timeout: options.timeout)
        var saved: Result<String, ConfigEditError>?
        screen.draw = { cr, size in page.draw(cr, size: size) }
        screen.onDeviceFrame = { [unowned screen] raw, mapping in
            let outcome = page.handle(raw, mapping: mapping)
            switch outcome {
            case .nothing: return
            case .pressed: break
            case .accepted(let i):
                Log.info("calibrate: target \(i + 1) of \(page.targets.count) tapped")
                if let next = page.sequence?.currentTarget {
                    Log.info("calibrate: target \(next + 1) at \(TouchCalibration.pointText(page.targets[next])) pt")
                }
            case .refused(let why), .restarted(let why):
                Log.warning("calibrate: \(why)")
            case .finished(let result):
                let line = "touch-matrix = \(ConfigEdit.matrixValue(result.matrix))"
                print(line)
                fflush(nil)
                Log.info(
                    "calibrate: worst error after calibration \(jsonNumber(result.worstErrorPoints, decimals: 2)) pt "
                        + "(\(jsonNumber(result.worstErrorPoints * screen.scale, decimals: 1)) px)")
                if !options.printOnly {
                    saved = ConfigEdit.saveTouchMatrix(result.matrix, original: original, path: options.configPath)
                    switch saved! {
                    case .success(let path): Log.info("calibrate: wrote \(line) to \(path)")
                    case .failure(let error): Log.error("calibrate: \(error)")
                    }
                }
                page.saved = saved.map { s in
                    switch s {
                    case .success(let path): .saved("Saved in \(path). Restart the kiosk to use it.")
                    case .failure(let e): .failed("Not saved: \(e)")
                    }
                }
                screen.loop.schedule(at: MonotonicClock.now().advanced(bySeconds: options.linger)) {
                    [unowned screen] in screen.stop(.done)
                }
            }
            screen.setNeedsDisplay()
        }
        screen.startInput(inputs: config.inputs, calibration: .identity)
        Log.info(
            "calibrate: target 1 at \(TouchCalibration.pointText(page.targets[0])) pt on a "
                + "\(TouchCalibration.pointText(Point(x: screen.logicalSize.width, y: screen.logicalSize.height))) pt screen, "
                + "\(jsonNumber(screen.scale, decimals: 3)) px/pt")
        let reason = screen.run(timeout: options.timeout)
        switch (reason, page.result) {
        case (_, .some):
            if case .failure = saved { return 1 }
            return 0
        case (.escape, nil):
            Log.info("calibrate: cancelled (Esc); nothing changed")
        case (.timeout, nil):
            Log.error(
                "calibrate: no complete set of taps within \(jsonNumber(options.timeout, decimals: 0)) s; nothing changed"
            )
        case (.signal(let s), nil):
            Log.info("calibrate: \(TerminationSignals.name(s)); nothing changed")
        case (.done, nil):
            break
        }
        return 1
    }
}

/// What the calibration screen shows: the current target, the targets done, a line of
/// instructions, and at the end the result. Holds the sequence once the first device touches.
struct CalibrationPage {
    let targets: [Point]
    let timeout: Double
    private(set) var sequence: CalibrationSequence?
    private(set) var message: String?
    /// After the result: what happened to the config, for the last line.
    enum SaveState {
        case saved(String)
        case failed(String)
    }
    var saved: SaveState?

    init(screenSize: Size, timeout: Double) {
        targets = TouchCalibration.targets(for: screenSize)
        self.timeout = timeout
    }

    var result: TouchCalibration.Result? {
        if case .finished(let r) = sequence?.phase { return r }
        return nil
    }

    /// Feeds a raw frame; the first device that touches is the one calibrated.
    mutating func handle(_ frame: DeviceTouchFrame, mapping: TouchMapping) -> CalibrationSequence.Outcome {
        if sequence == nil { sequence = CalibrationSequence(mapping: mapping) }
        guard sequence!.mapping.x == mapping.x && sequence!.mapping.y == mapping.y else { return .nothing }
        let outcome = sequence!.handle(frame)
        switch outcome {
        case .refused(let why), .restarted(let why): message = why.description
        case .accepted, .finished: message = nil
        case .pressed, .nothing: break
        }
        return outcome
    }

    func draw(_ cr: OpaquePointer, size: Size) {
        DiagnosticDrawing.clear(cr)
        if let result {
            drawResult(cr, size: size, result: result)
            return
        }
        let current = sequence?.currentTarget ?? 0
        for (i, t) in targets.enumerated() where i < current {
            DiagnosticDrawing.dot(cr, at: t, radius: 6, color: DiagnosticDrawing.good)
        }
        let pressed = sequence?.isPressed ?? false
        DiagnosticDrawing.target(
            cr, at: targets[current], color: pressed ? DiagnosticDrawing.accent : DiagnosticDrawing.foreground,
            pressed: pressed)
        var lines: [(String, Color)] = [
            (
                "Touch calibration: tap the centre of the target (\(current + 1) of \(targets.count))",
                DiagnosticDrawing.foreground
            ),
            (
                "One finger. Esc cancels; ends by itself after \(jsonNumber(timeout, decimals: 0)) s.",
                DiagnosticDrawing.dim
            ),
        ]
        if let message { lines.append((message, DiagnosticDrawing.bad)) }
        DiagnosticDrawing.lines(cr, lines, y: size.height * 0.36, width: size.width)
    }

    private func drawResult(_ cr: OpaquePointer, size: Size, result: TouchCalibration.Result) {
        // Where each target's tap lands with the new matrix: on the target when it worked.
        var calibrated = sequence!.mapping
        calibrated.calibration = result.matrix
        for (target, tap) in zip(targets, sequence!.taps) {
            DiagnosticDrawing.target(cr, at: target, color: DiagnosticDrawing.dim, pressed: false)
            let n = calibrated.touchTransform.apply(result.matrix.apply(tap))
            let onPanel = Point(x: n.x * calibrated.panel.width, y: n.y * calibrated.panel.height)
            let landed = calibrated.rotation.toLogical(onPanel, physical: calibrated.panel)
            DiagnosticDrawing.dot(cr, at: landed, radius: 6, color: DiagnosticDrawing.good)
        }
        var lines: [(String, Color)] = [
            ("Calibrated", DiagnosticDrawing.good),
            ("touch-matrix = \(ConfigEdit.matrixValue(result.matrix))", DiagnosticDrawing.foreground),
            (
                "Taps now land within \(jsonNumber(result.worstErrorPoints, decimals: 1)) pt of the targets (green dots)",
                DiagnosticDrawing.dim
            ),
        ]
        switch saved {
        case .saved(let text): lines.append((text, DiagnosticDrawing.foreground))
        case .failed(let text): lines.append((text, DiagnosticDrawing.bad))
        case nil: lines.append(("Printed on the terminal (--print); not saved.", DiagnosticDrawing.dim))
        }
        DiagnosticDrawing.lines(cr, lines, y: size.height * 0.32, width: size.width)
    }
}
