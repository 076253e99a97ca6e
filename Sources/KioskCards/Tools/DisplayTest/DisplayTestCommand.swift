import CardModel
import Glibc
import KioskDisplay
import KioskSystem

/// `KioskCards display-test [--drm PATH] [--connector NAME] [--mode WxH[@Hz]] [--rotation R]
/// [--seconds N] [--idle N] [--frame-cost MS]`: sets the mode, animates a moving coloured rectangle with paced
/// flips for N seconds, optionally stays idle for a while (and reports the CPU time that cost),
/// then restores the CRTC and exits. Proves the DRM path end to end before the app loop exists.
enum DisplayTestCommand {
    struct Options: Equatable {
        var drm: String?
        var connector: String?
        var mode: ModeRequest?
        var rotation: Rotation?
        var fbdev: String?
        var seconds = 5.0
        var idle = 0.0
        var blank = 0.0
        var frameCost = 0.0

        var display: DisplayOptions {
            DisplayOptions(drmPath: drm, connector: connector, mode: mode, rotation: rotation, fbdevPath: fbdev)
        }
    }

    private static func number(
        _ name: String, _ help: String, unit: String, _ field: WritableKeyPath<Options, Double> & Sendable
    ) -> CommandOption<Options> {
        CommandOption(name: name, value: unit == "seconds" ? "N" : "MS", help: help) { o, v in
            let limit = unit == "seconds" ? maxOptionSeconds : maxOptionSeconds * 1000
            guard let n = Double(v), n >= 0, n <= limit else {
                return "a number of \(unit), e.g. 5 (at most \(Int(limit)))"
            }
            o[keyPath: field] = n
            return nil
        }
    }

    static let table = OptionTable<Options>(
        command: "display-test", summary: "animate a test pattern on the display, report flips/s, restore",
        options: [
            CommandOption(name: "drm", value: "PATH", help: "DRM device (default: the first with a connected display)")
            {
                o, v in
                o.drm = v
                return nil
            },
            CommandOption(
                name: "connector", value: "NAME", help: "connector, e.g. HDMI-A-1, DSI-1 (default: the first connected)"
            ) { o, v in
                o.connector = v
                return nil
            },
            CommandOption.parsed(
                name: "mode", value: "WxH[@Hz]", help: "display mode (default: the connector's preferred mode)",
                expected: "WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 1920x1080@60", { ModeRequest($0) }
            ) { $0.mode = $1 },
            CommandOption.parsed(
                name: "rotation", value: "DEG", help: "0, 90, 180 or 270 clockwise (default: the panel orientation)",
                expected: Rotation.acceptedValues, { Rotation(optionValue: $0) }
            ) { $0.rotation = $1 },
            CommandOption(
                name: "fbdev", value: "PATH",
                help: "draw on this framebuffer device instead of DRM (default without DRM: /dev/fb0)"
            ) { o, v in
                o.fbdev = v
                return nil
            },
            number("seconds", "how long to animate (default 5)", unit: "seconds", \.seconds),
            number(
                "idle", "then stay idle N seconds and report the CPU time used (default 0)", unit: "seconds", \.idle),
            number(
                "blank", "halfway, turn the panel off for N seconds (DPMS or black), then on", unit: "seconds",
                \.blank),
            number(
                "frame-cost", "spend MS of CPU on each frame before presenting it, like a slow renderer (default 0)",
                unit: "milliseconds", \.frameCost),
        ])

    static func run(arguments: [String]) -> Int32 {
        table.run(arguments, from: Options(), run(_:))
    }

    static func run(_ parsed: Options) -> Int32 {
        let options = parsed.display
        let (seconds, idleSeconds, blankSeconds, frameCost) = (
            parsed.seconds, parsed.idle, parsed.blank, parsed.frameCost
        )

        let loop = EventLoop()
        var stopSignal: Int32?
        let signals: TerminationSignals
        do {
            signals = try TerminationSignals(loop: loop) { signal in
                stopSignal = signal
                loop.stop()
            }
        } catch {
            Log.error("display-test: \(error)")
            return 1
        }
        defer { withExtendedLifetime(signals) {} }

        let display: Display
        do {
            guard
                let d = try Display.waitingForConnection(
                    options: options, loop: loop, keepWaiting: { stopSignal == nil })
            else { return 0 }
            display = d
        } catch {
            Log.error("display-test: \(error)")
            return 1
        }
        let animation = MovingRectangle(width: display.pixelWidth, height: display.pixelHeight)
        var flips: [Instant] = []
        var maxTimestampLag = 0.0
        var minTimestampLag = Double.infinity
        display.onFlip = { stamp in
            flips.append(stamp)
            let lag = MonotonicClock.now().seconds(since: stamp)
            maxTimestampLag = max(maxTimestampLag, lag)
            minTimestampLag = min(minTimestampLag, lag)
        }
        let start = MonotonicClock.now()
        let end = start.advanced(bySeconds: seconds)
        var animating = true
        display.onFrame = { [unowned display] instant in
            guard animating else { return }
            let damage = animation.draw(at: instant.seconds(since: start))
            if frameCost > 0 {
                // Busy on purpose: a renderer that needs this much CPU per frame.
                let done = MonotonicClock.now().advanced(bySeconds: frameCost / 1000)
                while MonotonicClock.now() < done {}
            }
            if !display.present(animation.frame, damage: damage) { return }
            display.requestFrame()
        }
        let stopTimer = loop.schedule(at: end) {
            animating = false
            loop.stop()
        }
        print(
            "display-test: \(display.driverName) \(display.outputName) \(display.panelWidth)x\(display.panelHeight)"
                + "@\(String(format2: display.refreshHz)) Hz, rotation \(display.rotation.rawValue), "
                + "vblank \(display.hasVblank ? "yes" : "no"), animating \(String(format2: seconds)) s"
                + (frameCost > 0 ? ", \(String(format2: frameCost)) ms per frame" : ""))
        if blankSeconds > 0 {
            let off = start.advanced(bySeconds: seconds / 2)
            loop.schedule(at: off) {
                print("display-test: panel off for \(String(format2: blankSeconds)) s")
                display.setPower(on: false)
                loop.schedule(at: off.advanced(bySeconds: blankSeconds)) {
                    display.setPower(on: true)
                    print("display-test: panel on")
                }
            }
        }
        var connectionChanges = 0
        display.onConnection = { [unowned display] connected in
            connectionChanges += 1
            print("display-test: \(display.outputName) \(connected ? "connected again" : "disconnected")")
        }
        let cpuStart = cpuSeconds()
        display.present(animation.frame, damage: animation.frame.bounds)
        display.requestFrame()
        loop.run()
        let cpuAnimating = cpuSeconds() - cpuStart
        loop.cancelTimer(stopTimer)

        // Flip rate over the animation (first to last flip).
        let animated = flips
        if animated.count >= 2, let first = animated.first, let last = animated.last {
            let span = last.seconds(since: first)
            let intervals = zip(animated.dropFirst(), animated).map { $0.seconds(since: $1) * 1000 }
            let sorted = intervals.sorted()
            let pacing = display.pacingKind == .vblank ? "flip events (vblank)" : "timer (flips complete at once)"
            print(
                "display-test: \(animated.count) flips in \(String(format2: span)) s = "
                    + "\(String(format2: Double(animated.count - 1) / max(span, 1e-9))) flips/s; interval ms "
                    + "min \(String(format2: sorted.first!)) median \(String(format2: percentile(50, of: sorted)!)) "
                    + "max \(String(format2: sorted.last!)); lost \(display.lostFlipCount); "
                    + "pacing \(pacing); "
                    + "CPU \(String(format2: cpuAnimating * 1000 / Double(animated.count))) ms/frame")
            print(
                "display-test: \(display.flipIntervals.summary); pacing changed \(display.pacingChanges) times")
            print(
                "display-test: flip timestamps CLOCK_MONOTONIC, lag behind now \(String(format2: minTimestampLag * 1000))"
                    + "..\(String(format2: maxTimestampLag * 1000)) ms")
        } else {
            print("display-test: only \(animated.count) flips completed; lost \(display.lostFlipCount)")
        }

        if idleSeconds > 0, stopSignal == nil {
            let flipsBefore = display.flipCount
            let cpuBefore = cpuSeconds()
            let idleEnd = MonotonicClock.now().advanced(bySeconds: idleSeconds)
            loop.schedule(at: idleEnd) { loop.stop() }
            loop.run()
            let cpu = cpuSeconds() - cpuBefore
            print(
                "display-test: idle \(String(format2: idleSeconds)) s: \(display.flipCount - flipsBefore) flips, "
                    + "CPU \(String(format2: cpu * 1000)) ms")
        }
        if let stopSignal { print("display-test: \(TerminationSignals.name(stopSignal)), exiting") }
        display.shutdown()
        print("display-test: display restored (CRTC and VT as found), exit")
        return display.flipCount > 0 ? 0 : 1
    }

    /// User + system CPU time of this process.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// A coloured rectangle bouncing over a gradient: each frame's damage is its old and new place.
final class MovingRectangle {
    let frame: PixelBuffer
    private var current = PixelRect.empty
    let box: Int

    init(width: Int, height: Int) {
        frame = PixelBuffer(width: width, height: height)
        box = max(8, min(width, height) / 4)
        for y in 0..<height {
            for x in 0..<width { frame.setPixel(x: x, y: y, Self.background(x: x, y: y, width: width, height: height)) }
        }
        // An arrow-like marker in the top-left corner shows which way is up after rotation.
        for y in 0..<min(height, 24) {
            for x in 0..<min(width, 24 - y) { frame.setPixel(x: x, y: y, 0x00FF_FFFF) }
        }
    }

    static func background(x: Int, y: Int, width: Int, height: Int) -> UInt32 {
        UInt32(40 + 80 * y / max(1, height)) | UInt32(20 + 60 * x / max(1, width)) << 8 | 0x10 << 16
    }

    /// Draws the rectangle for time `t` (seconds) and returns the damage.
    func draw(at t: Double) -> PixelRect {
        let w = frame.width
        let h = frame.height
        let travelX = Double(max(1, w - box))
        let travelY = Double(max(1, h - box))
        func bounce(_ v: Double, _ range: Double) -> Int {
            let p = (v.truncatingRemainder(dividingBy: 2 * range) + 2 * range).truncatingRemainder(
                dividingBy: 2 * range)
            return Int(p <= range ? p : 2 * range - p)
        }
        let next = PixelRect(x: bounce(t * 300, travelX), y: bounce(t * 170, travelY), width: box, height: box)
        let hue = t.truncatingRemainder(dividingBy: 3) / 3
        let color = Self.rainbow(hue)
        for y in current.y..<current.maxY where !current.isEmpty {
            for x in current.x..<current.maxX {
                let marker = y < 24 && x < 24 - y
                frame.setPixel(x: x, y: y, marker ? 0x00FF_FFFF : Self.background(x: x, y: y, width: w, height: h))
            }
        }
        for y in next.y..<next.maxY {
            for x in next.x..<next.maxX { frame.setPixel(x: x, y: y, color) }
        }
        let damage = current.union(next)
        current = next
        return damage
    }

    static func rainbow(_ h: Double) -> UInt32 {
        func c(_ o: Double) -> UInt32 {
            let v = max(0, min(1, abs((h + o).truncatingRemainder(dividingBy: 1) * 6 - 3) - 1))
            return UInt32(v * 255)
        }
        return c(0) << 16 | c(2.0 / 3) << 8 | c(1.0 / 3)
    }
}
