import CPangoCairo
import CardModel
import Glibc
import KioskInput
import KioskRender
import KioskSystem

/// `KioskCards touch-test`: every contact drawn where the kiosk would put it, labelled with
/// its raw device coordinates and its mapped screen coordinates, with a trail — for checking
/// rotation, touch transform and calibration after installing a panel.
enum TouchTestCommand {
    struct Options: Equatable {
        var seconds: Double?
        /// The config keys given as options, and `--config`, for `KioskConfig.parse`.
        var runFlags: [String] = []
    }

    static let table = OptionTable<Options>(
        command: "touch-test", summary: "draw every touch with raw and mapped coordinates",
        usage: ["touch-test [--config FILE] [--seconds N] [run options]"],
        details: """
            Draws every finger as a dot with a trail, labelled "raw X,Y → X,Y pt": the device's own
            units and where the kiosk maps them (rotation, touch-matrix from the config). A finger
            should see its dot right under it. Each touch is also printed on stdout. The run options
            (--rotation, --touch-matrix, --input, --drm, --connector, --mode, --scale, ...) apply as for 'run'.
            Exit status: 0 done, 1 the display could not be used, 2 usage.
            """,
        options: [
            CommandOption(
                name: "config", value: "FILE",
                help: "the config whose rotation and touch-matrix apply (default \(KioskConfig.defaultPath))"
            ) { o, v in
                o.runFlags += ["--config", v]
                return nil
            },
            CommandOption(name: "seconds", value: "N", help: "exit after N seconds (default: run until Esc or Ctrl-C)")
            {
                o, v in
                guard let s = Double(v), s > 0, s <= maxOptionSeconds else {
                    return "a number of seconds, e.g. 30 (at most 2592000)"
                }
                o.seconds = s
                return nil
            },
        ] + KioskConfig.runFlagOptions(\Options.runFlags))

    static func run(arguments: [String]) -> Int32 {
        table.run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        let seconds = options.seconds
        let config: KioskConfig
        switch KioskConfig.parse(arguments: options.runFlags, readFile: KioskConfig.readConfigFile) {
        case .success(.run(let c)): config = c
        case .success(.help), .success(.version):
            print(table.helpText)
            return 0
        case .failure(let error):
            Log.error("touch-test: \(error)")
            return 2
        }
        guard let screen = DiagnosticScreen(config: config, command: "touch-test") else { return 1 }
        var state = TouchTestState()
        screen.draw = { cr, size in state.draw(cr, size: size) }
        screen.onDeviceFrame = { [unowned screen] raw, mapping in
            for line in state.handle(raw, mapping: mapping) {
                print(line)
                fflush(nil)  // line by line, also into a pipe or a file
            }
            screen.setNeedsDisplay()
        }
        screen.startInput(inputs: config.inputs, calibration: config.touchMatrix)
        Log.info(
            "touch-test: \(screen.display.pixelWidth)x\(screen.display.pixelHeight) px, "
                + "\(jsonNumber(screen.scale, decimals: 3)) px/pt, rotation \(screen.display.rotation.rawValue); touch the screen"
        )
        let reason = screen.run(timeout: seconds)
        print(
            "touch-test: \(state.touches) touch(es); \(reason == .escape ? "Esc" : reason == .timeout ? "time is up" : "stopped")"
        )
        return 0
    }
}

/// The contacts the touch test shows: for each, the raw and mapped position and a trail.
/// Contacts that lifted stay (dimmer) until the next touch begins. Pure.
struct TouchTestState {
    struct Contact {
        var id: Int
        var raw: DevicePoint
        var mapped: Point
        var trail: [Point]
        var isDown: Bool
        /// A colour per contact, so two fingers are told apart.
        var colorIndex: Int
    }

    /// At most this many trail points per contact.
    static let trailLength = 256
    static let palette: [Color] = [
        Color(rgb: 0xFF9F0A), Color(rgb: 0x0A84FF), Color(rgb: 0x30D158), Color(rgb: 0xBF5AF2), Color(rgb: 0xFF375F),
    ]

    private(set) var contacts: [Contact] = []
    private(set) var touches = 0
    /// The mapping of the device touched last, for the header.
    private(set) var mappingSummary: String?

    /// Applies a frame; returns a line per contact that began or ended (for stdout).
    mutating func handle(_ frame: DeviceTouchFrame, mapping: TouchMapping) -> [String] {
        var lines: [String] = []
        mappingSummary = mapping.summary
        for c in frame.contacts {
            let mapped = mapping.map(c.position)
            if c.phase == .began {
                if !contacts.contains(where: \.isDown) { contacts.removeAll() }
                touches += 1
                contacts.append(
                    Contact(
                        id: c.id, raw: c.position, mapped: mapped, trail: [mapped], isDown: true,
                        colorIndex: (touches - 1) % Self.palette.count))
            }
            guard let i = contacts.firstIndex(where: { $0.id == c.id && $0.isDown }) else { continue }
            contacts[i].raw = c.position
            contacts[i].mapped = mapped
            if c.phase == .moved {
                contacts[i].trail.append(mapped)
                if contacts[i].trail.count > Self.trailLength { contacts[i].trail.removeFirst() }
            }
            if c.phase == .ended || c.phase == .cancelled { contacts[i].isDown = false }
            if c.phase != .moved {
                lines.append("touch-test: contact \(c.id) \(c.phase.rawValue) " + Self.label(contacts[i]))
            }
        }
        return lines
    }

    /// "raw 16384,16384 → 400.0,240.0 pt".
    static func label(_ c: Contact) -> String {
        "raw \(Int(c.raw.x)),\(Int(c.raw.y)) → \(jsonNumber(c.mapped.x, decimals: 1)),\(jsonNumber(c.mapped.y, decimals: 1)) pt"
    }

    func draw(_ cr: OpaquePointer, size: Size) {
        DiagnosticDrawing.clear(cr)
        // A faint 50 pt grid, so straight lines and edges can be judged.
        Draw.setColor(cr, Color(rgb: 0x2C2C2E))
        cairo_set_line_width(cr, 1)
        for x in stride(from: 50.0, to: size.width, by: 50) {
            cairo_move_to(cr, x, 0)
            cairo_line_to(cr, x, size.height)
        }
        for y in stride(from: 50.0, to: size.height, by: 50) {
            cairo_move_to(cr, 0, y)
            cairo_line_to(cr, size.width, y)
        }
        cairo_stroke(cr)
        var header: [(String, Color)] = [
            ("Touch test: raw device units → screen points. Esc ends.", DiagnosticDrawing.dim)
        ]
        if let mappingSummary { header.append((mappingSummary, DiagnosticDrawing.dim)) }
        DiagnosticDrawing.lines(cr, header, y: 8, width: size.width, size: 13)
        for c in contacts {
            let color = Self.palette[c.colorIndex]
            if c.trail.count > 1 {
                Draw.setColor(cr, color, alpha: 0.6)
                cairo_set_line_width(cr, 3)
                cairo_move_to(cr, c.trail[0].x, c.trail[0].y)
                for p in c.trail.dropFirst() { cairo_line_to(cr, p.x, p.y) }
                cairo_stroke(cr)
            }
            DiagnosticDrawing.dot(cr, at: c.mapped, radius: c.isDown ? 14 : 6, color: color)
            if c.isDown { DiagnosticDrawing.ring(cr, at: c.mapped, radius: 24, color: color) }
            // The label beside the dot, kept on screen.
            let labelWidth = 340.0
            let x = c.mapped.x + 30 + labelWidth > size.width ? c.mapped.x - 30 - labelWidth : c.mapped.x + 30
            let y = min(max(c.mapped.y - 10, 0), size.height - 20)
            Text.show(
                "#\(c.id) " + Self.label(c), cr: cr, x: x, y: y, width: labelWidth,
                style: Text.Style(
                    size: 13, color: c.isDown ? DiagnosticDrawing.foreground : DiagnosticDrawing.dim, maxLines: 1,
                    alignment: x < c.mapped.x ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT))
        }
    }
}
