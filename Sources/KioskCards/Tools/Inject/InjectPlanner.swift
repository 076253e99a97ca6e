import CardModel
import KioskInput

/// One gesture step of `KioskCards inject`. Coordinates are screen pixels of the `--screen`
/// size (the app maps the injector's full range onto its screen); times in milliseconds.
enum InjectStep: Hashable, Sendable {
    case tap(Point)
    case drag(from: Point, to: Point, ms: Double)
    case twoFinger(first: Point, second: Point, by: Point, ms: Double)
    case down(finger: Int, at: Point)
    case move(finger: Int, to: Point, ms: Double)
    case up(finger: Int)
    case wait(ms: Double)
    case unplug
    case replug

    static let help = """
        Commands (one per argument, or one per line in --script FILE; '#' starts a comment):
          tap X Y                         touch and lift after 40 ms
          drag X0 Y0 X1 Y1 MS             one finger from (X0,Y0) to (X1,Y1) over MS, then lift
          flick X0 Y0 X1 Y1 [MS]          a fast drag (default 80 ms)
          two-finger X0 Y0 X1 Y1 DX DY MS two fingers at (X0,Y0) and (X1,Y1) move by (DX,DY), lift
          down F X Y | move F X Y [MS] | up F   finger F (0-9) by hand, for gestures cut short
          wait MS                         pause
          unplug                          destroy the device now (fingers still down: mid-gesture)
          replug                          create the device again (new /dev/input/eventN)
        Coordinates are pixels of --screen (default 800x480), mapped onto the device's 0..32767.
        """

    /// Parses one command; nil for a blank or comment line.
    init?(parsing line: String, lineNumber: Int) throws(InjectScriptError) {
        let body = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let words = body.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let verb = words.first else { return nil }
        let numbers = words.dropFirst().map { Double($0) }
        func fail(_ usage: String) -> InjectScriptError {
            InjectScriptError(line: lineNumber, message: "'\(body)': expected '\(usage)'")
        }
        func args(_ count: ClosedRange<Int>, _ usage: String) throws(InjectScriptError) -> [Double] {
            guard count.contains(numbers.count), numbers.allSatisfy({ $0 != nil && $0!.isFinite }) else {
                throw fail(usage)
            }
            return numbers.map { $0! }
        }
        // A duration is bounded before it is divided into frames (1e300 ms would trap).
        func ms(_ v: Double, _ usage: String) throws(InjectScriptError) -> Double {
            guard v <= InjectPlanner.maxMilliseconds else {
                throw InjectScriptError(
                    line: lineNumber,
                    message: "\(usage): MS is at most \(Int(InjectPlanner.maxMilliseconds)) (a day), got \(v)")
            }
            return max(0, v)
        }
        func finger(_ v: Double, _ usage: String) throws(InjectScriptError) -> Int {
            guard v >= 0, v < Double(InjectPlanner.slots), v == v.rounded() else { throw fail(usage) }
            return Int(v)
        }
        switch verb {
        case "tap":
            let a = try args(2...2, "tap X Y")
            self = .tap(Point(x: a[0], y: a[1]))
        case "drag":
            let a = try args(5...5, "drag X0 Y0 X1 Y1 MS")
            self = .drag(
                from: Point(x: a[0], y: a[1]), to: Point(x: a[2], y: a[3]), ms: try ms(a[4], "drag X0 Y0 X1 Y1 MS"))
        case "flick":
            let a = try args(4...5, "flick X0 Y0 X1 Y1 [MS]")
            self = .drag(
                from: Point(x: a[0], y: a[1]), to: Point(x: a[2], y: a[3]),
                ms: a.count == 5 ? try ms(a[4], "flick X0 Y0 X1 Y1 [MS]") : 80)
        case "two-finger":
            let a = try args(7...7, "two-finger X0 Y0 X1 Y1 DX DY MS")
            self = .twoFinger(
                first: Point(x: a[0], y: a[1]), second: Point(x: a[2], y: a[3]), by: Point(x: a[4], y: a[5]),
                ms: try ms(a[6], "two-finger X0 Y0 X1 Y1 DX DY MS"))
        case "down":
            let a = try args(3...3, "down F X Y")
            self = .down(finger: try finger(a[0], "down F X Y"), at: Point(x: a[1], y: a[2]))
        case "move":
            let a = try args(3...4, "move F X Y [MS]")
            self = .move(
                finger: try finger(a[0], "move F X Y [MS]"), to: Point(x: a[1], y: a[2]),
                ms: a.count == 4 ? try ms(a[3], "move F X Y [MS]") : 0)
        case "up":
            let a = try args(1...1, "up F")
            self = .up(finger: try finger(a[0], "up F"))
        case "wait":
            let a = try args(1...1, "wait MS")
            self = .wait(ms: try ms(a[0], "wait MS"))
        case "unplug":
            _ = try args(0...0, "unplug")
            self = .unplug
        case "replug":
            _ = try args(0...0, "replug")
            self = .replug
        default:
            throw InjectScriptError(
                line: lineNumber, message: "unknown command '\(verb)' (see 'KioskCards inject --help')")
        }
    }
}

struct InjectScriptError: Error, CustomStringConvertible {
    var line: Int
    var message: String
    var description: String { "line \(line): \(message)" }
}

/// What the injector does next: write a frame (events ending in SYN_REPORT), sleep, or
/// unplug/replug the device.
enum InjectAction: Hashable, Sendable {
    case frame([InjectEvent])
    case sleep(ms: Double)
    case unplug
    case replug
}

struct InjectEvent: Hashable, Sendable {
    var type: UInt16
    var code: UInt16
    var value: Int32
}

/// Turns gesture commands into protocol-B frames for the injected touchscreen: pure, so the
/// exact event stream is tested without /dev/uinput.
struct InjectPlanner {
    static let range: Int32 = 32767
    static let slots = 10
    /// The longest duration a script step or `--settle` may give, in milliseconds (a day).
    static let maxMilliseconds = 86_400_000.0
    /// Milliseconds between motion frames (100 Hz, like most capacitive panels).
    static let frameInterval = 10.0

    var screen: Size
    private var fingers: [Int: (trackingID: Int32, position: Point)] = [:]
    private var nextTrackingID: Int32 = 1

    init(screen: Size) { self.screen = screen }

    var fingersDown: Int { fingers.count }

    /// Device units for screen pixel `p` (clamped to the device range).
    func deviceUnits(_ p: Point) -> (x: Int32, y: Int32) {
        func axis(_ v: Double, _ size: Double) -> Int32 {
            let units = (v / size * Double(Self.range + 1) - 0.5).rounded()
            return Int32(min(max(units, 0), Double(Self.range)))
        }
        return (axis(p.x, screen.width), axis(p.y, screen.height))
    }

    mutating func plan(_ command: InjectStep) -> [InjectAction] {
        switch command {
        case .tap(let p):
            let f = freeFinger()
            return [frame(down: [(f, p)]), .sleep(ms: 40), frame(up: [f])]
        case .drag(let a, let b, let ms):
            let f = freeFinger()
            var actions = [frame(down: [(f, a)])]
            actions += motion([(f, a, b)], ms: ms)
            actions.append(frame(up: [f]))
            return actions
        case .twoFinger(let a, let b, let d, let ms):
            let f0 = freeFinger()
            fingers[f0] = (0, a)  // reserve so the second finger gets another slot
            let f1 = freeFinger()
            fingers[f0] = nil
            var actions = [frame(down: [(f0, a), (f1, b)])]
            actions += motion([(f0, a, a + d), (f1, b, b + d)], ms: ms)
            actions.append(frame(up: [f0, f1]))
            return actions
        case .down(let f, let p):
            if fingers[f] != nil { return [frame(moves: [(f, p)])] }
            return [frame(down: [(f, p)])]
        case .move(let f, let p, let ms):
            guard let from = fingers[f]?.position else { return [] }
            return motion([(f, from, p)], ms: ms)
        case .up(let f):
            return fingers[f] == nil ? [] : [frame(up: [f])]
        case .wait(let ms):
            return [.sleep(ms: ms)]
        case .unplug:
            // The kernel forgets the device's state; so do we.
            fingers = [:]
            return [.unplug]
        case .replug:
            return [.replug]
        }
    }

    private func freeFinger() -> Int {
        (0..<Self.slots).first { fingers[$0] == nil } ?? 0
    }

    private mutating func motion(_ paths: [(Int, Point, Point)], ms: Double) -> [InjectAction] {
        let steps = max(1, Int((ms / Self.frameInterval).rounded()))
        var actions: [InjectAction] = []
        for i in 1...steps {
            let t = Double(i) / Double(steps)
            actions.append(.sleep(ms: ms / Double(steps)))
            actions.append(frame(moves: paths.map { ($0.0, $0.1 + ($0.2 - $0.1) * t) }))
        }
        return actions
    }

    private mutating func frame(down: [(Int, Point)] = [], moves: [(Int, Point)] = [], up: [Int] = []) -> InjectAction {
        let wasDown = !fingers.isEmpty
        var events: [InjectEvent] = []
        func abs(_ code: UInt16, _ value: Int32) {
            events.append(InjectEvent(type: EvdevCode.evAbs, code: code, value: value))
        }
        for (f, p) in down {
            fingers[f] = (nextTrackingID, p)
            abs(EvdevCode.absMTSlot, Int32(f))
            abs(EvdevCode.absMTTrackingID, nextTrackingID)
            nextTrackingID = nextTrackingID % 65535 + 1
            let u = deviceUnits(p)
            abs(EvdevCode.absMTPositionX, u.x)
            abs(EvdevCode.absMTPositionY, u.y)
        }
        for (f, p) in moves where fingers[f] != nil {
            fingers[f]!.position = p
            let u = deviceUnits(p)
            abs(EvdevCode.absMTSlot, Int32(f))
            abs(EvdevCode.absMTPositionX, u.x)
            abs(EvdevCode.absMTPositionY, u.y)
        }
        for f in up where fingers[f] != nil {
            fingers[f] = nil
            abs(EvdevCode.absMTSlot, Int32(f))
            abs(EvdevCode.absMTTrackingID, -1)
        }
        let isDown = !fingers.isEmpty
        if isDown != wasDown {
            events.append(InjectEvent(type: EvdevCode.evKey, code: EvdevCode.btnTouch, value: isDown ? 1 : 0))
        }
        // Single-touch emulation follows the lowest slot that is down, as the kernel's does.
        if let first = fingers.keys.min(), let p = fingers[first]?.position {
            let u = deviceUnits(p)
            abs(EvdevCode.absX, u.x)
            abs(EvdevCode.absY, u.y)
        }
        events.append(InjectEvent(type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0))
        return .frame(events)
    }
}
