import CardModel
import Glibc
import KioskInput
import KioskSystem

/// `KioskCards probe --watch PATH`: the live twin of `replay`. Opens one device through the
/// app's own input path (`InputManager`: libevdev, SYN_DROPPED resync, ENODEV, hotplug) and
/// prints what the app would see, in replay's JSON lines, flushed one by one:
/// frames (ids renumbered 1, 2, … in order of appearance, as `replay` numbers them), gestures,
/// and `{"type":"key","key":"right"}` for keyboards (which it does not grab). So the live decode
/// of `evemu-play FILE` can be compared with `KioskCards replay FILE` line by line, up to "t".
enum InputWatch {
    /// Watches `path` for `seconds` (nil: until SIGINT/SIGTERM). Returns the exit status:
    /// 0 done, 1 the device cannot be used or never appeared (the reason is logged).
    static func run(path: String, seconds: Double?, options: TouchReplayOptions) -> Int32 {
        let loop = EventLoop()
        var status: Int32 = 0
        let signals: TerminationSignals
        do {
            signals = try TerminationSignals(loop: loop, signals: [SIGTERM, SIGINT]) { _ in loop.stop() }
        } catch {
            Log.error("probe: \(error)")
            return 1
        }
        var config = InputManager.Configuration(panel: options.screen ?? TouchReplayOptions.defaultScreen)
        config.explicitPaths = [path]
        config.rotation = options.rotation
        config.calibration = options.calibration
        config.touchTransform = options.touchTransform
        config.grabKeyboards = false
        var printer = WatchPrinter(options: options)
        var manager: InputManager?
        manager = InputManager(loop: loop, configuration: config) { output in
            for line in printer.lines(for: output, device: manager?.devices.first?.kind) { emit(line) }
        }
        do {
            try manager?.start()
        } catch {
            Log.error("probe: \(error)")
            return 1
        }
        let missingAtStart = manager?.devices.isEmpty == true && !FileIO.exists(path)
        if manager?.devices.isEmpty == true {
            if missingAtStart {
                // A panel may be plugged in while we watch (hotplug): wait for it, and fail at
                // the end if it never came.
                Log.info("probe: waiting for \(path) to appear")
            } else {
                status = 1  // InputManager said why
            }
        }
        if status == 0 {
            if let seconds {
                loop.schedule(at: MonotonicClock.now().advanced(bySeconds: seconds)) { loop.stop() }
            }
            loop.run()
            if missingAtStart && manager?.devices.isEmpty == true && !FileIO.exists(path) {
                Log.error(
                    "probe: \(path) never appeared — run 'KioskCards probe' to list the input devices "
                        + "and pass one of them to --watch")
                status = 1
            }
        }
        manager?.stop()
        manager = nil
        _ = signals
        return status
    }

    /// One line straight to fd 1 (not through stdio's buffer): a reader of a pipe or file sees
    /// each frame as soon as it is decoded.
    private static func emit(_ line: String) {
        // A failed write (the reader went away) has nowhere to be reported.
        try? FileIO.writeAll(fd: 1, bytes: Array((line + "\n").utf8))
    }
}

/// Turns the manager's outputs into replay-style lines (pure).
struct WatchPrinter {
    private let options: TouchReplayOptions
    private var numbering = ContactRenumbering()
    private var gestures: ReplayGestureHook?

    init(options: TouchReplayOptions) { self.options = options }

    /// The lines for one output; `device` is the watched device's kind (for the gesture judge's
    /// screen and physical size).
    mutating func lines(for output: InputManager.Output, device: DeviceKind?) -> [String] {
        switch output {
        case .key(let key, _):
            return ["{\"type\":\"key\",\"key\":\"\(key.rawValue)\"}"]
        case .switchKey(let pressed, _):
            return ["{\"type\":\"switch\",\"pressed\":\(pressed)}"]
        case .touch(let frame):
            let renumbered = numbering.apply(frame)
            var out = [replayFrameJSON(renumbered)]
            if gestures == nil, let profile = device?.touchProfile {
                let mapping = TouchMapping(
                    profile: profile, panel: options.screen ?? TouchReplayOptions.defaultScreen,
                    rotation: options.rotation)
                gestures = ReplayGestureHook(
                    screen: mapping.logicalSize, millimetres: profile.physicalSizeMillimetres)
            }
            if gestures != nil { out += gestures!.feed(renumbered) }
            return out
        }
    }
}

/// Renumbers contact ids 1, 2, 3, … in the order they first appear, as a fresh decoder (and so
/// `replay`) numbers them; the app gives each opened device its own id range instead.
struct ContactRenumbering {
    private var ids: [Int: Int] = [:]

    mutating func apply(_ frame: TouchFrame) -> TouchFrame {
        var f = frame
        for i in f.contacts.indices {
            let id = f.contacts[i].id
            if let n = ids[id] {
                f.contacts[i].id = n
            } else {
                let n = ids.count + 1
                ids[id] = n
                f.contacts[i].id = n
            }
        }
        return f
    }
}
