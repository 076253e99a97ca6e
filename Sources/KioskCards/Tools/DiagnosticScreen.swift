import CPangoCairo
import CardModel
import Glibc
import KioskDisplay
import KioskInput
import KioskRender
import KioskSystem

/// A full-screen page for installers (`calibrate`, `touch-test`) on the real display: one
/// `EventLoop`, the `Display`, the input devices with their raw frames, and ways out (Esc on a
/// keyboard, SIGTERM/SIGINT/SIGHUP, a time limit).
///
/// The page draws itself with cairo, in logical points (the scale is on the context), whenever
/// it calls `setNeedsDisplay()`; the whole frame is redrawn and presented (a diagnostics page
/// changes rarely and is small next to the deck's renderer).
final class DiagnosticScreen {
    enum StopReason: Hashable {
        case escape
        case signal(Int32)
        case timeout
        case done
    }

    let loop: EventLoop
    let display: Display
    /// Pixels per point, as the kiosk computes it (or `--scale`).
    let scale: Double
    private let frame: PixelBuffer
    private let surface: OpaquePointer
    private var input: InputManager?
    private var signals: TerminationSignals?
    private var needsRender = true
    private var needsPresent = false
    private(set) var stopReason: StopReason?

    /// Draws the page; `Size` is the logical screen in points.
    var draw: ((OpaquePointer, Size) -> Void)?
    /// Every touch frame in device units, with the mapping of its device.
    var onDeviceFrame: ((DeviceTouchFrame, TouchMapping) -> Void)?

    /// Takes the display `config` names (as `run` would). Errors are logged; nil then.
    init?(config: KioskConfig, command: String) {
        loop = EventLoop()
        do {
            display = try Display(options: config.displayOptions, loop: loop)
        } catch {
            Log.error("\(command): display: \(error)")
            return nil
        }
        let mm = display.logicalSizeMM
        scale =
            config.scale
            ?? RenderScale.pixelsPerPoint(
                pixelWidth: display.pixelWidth, pixelHeight: display.pixelHeight, widthMM: mm?.width,
                heightMM: mm?.height)
        frame = PixelBuffer(width: display.pixelWidth, height: display.pixelHeight)
        // XRGB8888 is cairo's RGB24; the buffer's 64-byte aligned stride is a valid cairo stride.
        surface = cairo_image_surface_create_for_data(
            frame.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24, Int32(frame.width),
            Int32(frame.height), Int32(frame.stride))!
        do {
            signals = try TerminationSignals(loop: loop) { [unowned self] signal in self.stop(.signal(signal)) }
        } catch {
            Log.error("\(command): \(error)")
            return nil
        }
        display.onFrame = { [unowned self] _ in self.frameDue() }
        display.onConnection = { [unowned self] connected in
            if connected { self.setNeedsDisplay() }
        }
        display.onResize = { [unowned self] _ in
            Log.warning("display: the mode changed; restart to lay the page out for it")
            self.setNeedsDisplay()
        }
    }

    deinit {
        cairo_surface_destroy(surface)
    }

    /// The upright screen in points.
    var logicalSize: Size {
        Size(width: Double(display.pixelWidth) / scale, height: Double(display.pixelHeight) / scale)
    }

    /// The panel's native size in points (what input maps device units onto).
    var panelPoints: Size {
        Size(width: Double(display.panelWidth) / scale, height: Double(display.panelHeight) / scale)
    }

    /// Opens the touch devices (`inputs`, else every touchscreen; hotplug included) mapped
    /// with `calibration` (identity for calibrating), and grabs keyboards for Esc.
    func startInput(inputs: [String], calibration: TouchMatrix?) {
        var configuration = InputManager.Configuration(panel: panelPoints)
        configuration.explicitPaths = inputs
        configuration.rotation = display.rotation
        configuration.calibration = calibration
        let manager = InputManager(loop: loop, configuration: configuration) { [unowned self] output in
            if case .key(.escape, _) = output { self.stop(.escape) }
        }
        manager.onDeviceFrame = { [unowned self] raw, mapping in self.onDeviceFrame?(raw, mapping) }
        do {
            try manager.start()
            input = manager
        } catch {
            Log.error("input: \(error)")
        }
    }

    func setNeedsDisplay() {
        needsRender = true
        display.requestFrame()
    }

    func stop(_ reason: StopReason) {
        if stopReason == nil { stopReason = reason }
        loop.stop()
    }

    /// Shows the page and runs until `stop`, Esc, a signal, or `timeout` seconds; then gives
    /// the display back (CRTC and console as found).
    func run(timeout: Double?) -> StopReason {
        if let timeout {
            loop.schedule(at: MonotonicClock.now().advanced(bySeconds: timeout)) { [unowned self] in self.stop(.timeout)
            }
        }
        setNeedsDisplay()
        if stopReason == nil { loop.run() }
        input?.stop()
        display.shutdown()
        return stopReason ?? .done
    }

    private func frameDue() {
        if needsRender {
            render()
            needsRender = false
            needsPresent = true
        }
        if needsPresent && display.present(frame, damage: frame.bounds) { needsPresent = false }
        if needsPresent || needsRender { display.requestFrame() }
    }

    private func render() {
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        cairo_scale(cr, scale, scale)
        draw?(cr, logicalSize)
        cairo_surface_flush(surface)
    }
}

/// Drawing helpers of the diagnostics pages (points; the scale is on the context).
enum DiagnosticDrawing {
    static let background = Color(rgb: 0x1C1C1E)
    static let foreground = Color(rgb: 0xF2F2F7)
    static let dim = Color(rgb: 0x8E8E93)
    static let accent = Color(rgb: 0xFF9F0A)
    static let good = Color(rgb: 0x30D158)
    static let bad = Color(rgb: 0xFF453A)

    static func clear(_ cr: OpaquePointer, _ color: Color = background) {
        Draw.setColor(cr, color)
        cairo_paint(cr)
    }

    /// Lines of text from `y` down, centred on the screen width; returns the y below them.
    @discardableResult
    static func lines(_ cr: OpaquePointer, _ texts: [(String, Color)], y: Double, width: Double, size: Double = 17)
        -> Double
    {
        var y = y
        for (text, color) in texts {
            y +=
                Text.show(
                    text, cr: cr, x: 16, y: y, width: width - 32,
                    style: Text.Style(size: size, color: color, alignment: PANGO_ALIGN_CENTER)) + 4
        }
        return y
    }

    /// A crosshair with a ring: what a calibration target looks like.
    static func target(_ cr: OpaquePointer, at p: Point, color: Color, pressed: Bool) {
        Draw.setColor(cr, color)
        cairo_set_line_width(cr, 2)
        cairo_move_to(cr, p.x - 28, p.y)
        cairo_line_to(cr, p.x + 28, p.y)
        cairo_move_to(cr, p.x, p.y - 28)
        cairo_line_to(cr, p.x, p.y + 28)
        cairo_stroke(cr)
        cairo_set_line_width(cr, pressed ? 5 : 3)
        cairo_arc(cr, p.x, p.y, 16, 0, 2 * Double.pi)
        cairo_stroke(cr)
        dot(cr, at: p, radius: 3, color: color)
    }

    static func dot(_ cr: OpaquePointer, at p: Point, radius: Double, color: Color) {
        Draw.setColor(cr, color)
        cairo_new_sub_path(cr)
        cairo_arc(cr, p.x, p.y, radius, 0, 2 * Double.pi)
        cairo_fill(cr)
    }

    static func ring(_ cr: OpaquePointer, at p: Point, radius: Double, color: Color, width: Double = 2) {
        Draw.setColor(cr, color)
        cairo_set_line_width(cr, width)
        cairo_new_sub_path(cr)
        cairo_arc(cr, p.x, p.y, radius, 0, 2 * Double.pi)
        cairo_stroke(cr)
    }
}
