import CardModel
import KioskSystem

/// libinput's calibration matrix: a 2×3 affine transform in normalised device space, where
/// (0, 0) is the device's top-left corner and (1, 1) its bottom-right. Written as libinput
/// prints it, "a b c d e f": x' = a·x + b·y + c, y' = d·x + e·y + f. The same six numbers as
/// udev's `LIBINPUT_CALIBRATION_MATRIX` and `--touch-matrix`, so operators can reuse values
/// they already know (libinput `evdev_device_calibrate`).
package struct TouchMatrix: Hashable, Sendable, CustomStringConvertible {
    package var a, b, c, d, e, f: Double

    package static let identity = TouchMatrix(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0)

    package init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    /// Six numbers separated by spaces (or commas); nil for anything else, or a matrix that
    /// collapses the plane (determinant 0: every touch would land on one line).
    package init?(parsing text: some StringProtocol) {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map { Double($0) }
        guard numbers.count == 6, numbers.allSatisfy({ $0 != nil && $0!.isFinite }) else { return nil }
        let n = numbers.map { $0! }
        self.init(a: n[0], b: n[1], c: n[2], d: n[3], e: n[4], f: n[5])
        guard abs(a * e - b * d) > 1e-9 else { return nil }
    }

    /// libinput's documented matrices for a digitiser turned clockwise by `rotation`.
    init(rotation: Rotation) {
        switch rotation {
        case .deg0: self = .identity
        case .deg90: self.init(a: 0, b: -1, c: 1, d: 1, e: 0, f: 0)
        case .deg180: self.init(a: -1, b: 0, c: 1, d: 0, e: -1, f: 1)
        case .deg270: self.init(a: 0, b: 1, c: 0, d: -1, e: 0, f: 1)
        }
    }

    package static let flipX = TouchMatrix(a: -1, b: 0, c: 1, d: 0, e: 1, f: 0)
    static let flipY = TouchMatrix(a: 1, b: 0, c: 0, d: 0, e: -1, f: 1)
    static let swapXY = TouchMatrix(a: 0, b: 1, c: 0, d: 1, e: 0, f: 0)

    /// A touch-only transform from words joined by commas, applied left to right:
    /// `rotate-90`, `rotate-180`, `rotate-270`, `flip-x`, `flip-y`, `swap-xy`, `none`.
    package init?(transformSpec spec: String) {
        var m = TouchMatrix.identity
        for word in spec.split(separator: ",") {
            switch word.filter({ $0 != " " }) {
            case "none", "identity": break
            case "rotate-90": m = m.then(TouchMatrix(rotation: .deg90))
            case "rotate-180": m = m.then(TouchMatrix(rotation: .deg180))
            case "rotate-270": m = m.then(TouchMatrix(rotation: .deg270))
            case "flip-x": m = m.then(.flipX)
            case "flip-y": m = m.then(.flipY)
            case "swap-xy": m = m.then(.swapXY)
            default: return nil
            }
        }
        self = m
    }

    package func apply(_ p: Point) -> Point {
        Point(x: a * p.x + b * p.y + c, y: d * p.x + e * p.y + f)
    }

    /// `self` first, then `next`.
    func then(_ next: TouchMatrix) -> TouchMatrix {
        TouchMatrix(
            a: next.a * a + next.b * d, b: next.a * b + next.b * e, c: next.a * c + next.b * f + next.c,
            d: next.d * a + next.e * d, e: next.d * b + next.e * e, f: next.d * c + next.e * f + next.f)
    }

    var isIdentity: Bool { self == .identity }

    package var description: String {
        [a, b, c, d, e, f].map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: " ")
    }
}

/// Maps device units to logical screen points, in this order:
///
/// 1. **Axis range** (`absinfo`): value v on an axis min…max lands at the centre of cell
///    (v − min) of max − min + 1 cells, normalised to 0…1 — libinput counts the range the same
///    way. Panels that report max = width (the QUANTA 0…1920) and those that report
///    max = width − 1 (the Atmel 0…799) both stay inside the screen.
/// 2. **Calibration** (`calibration`): libinput's matrix in normalised space, from
///    `--touch-matrix` or udev's `LIBINPUT_CALIBRATION_MATRIX`.
/// 3. **Touch-only transform** (`touchTransform`): for a digitiser mounted differently from
///    the display (same normalised space, applied after the calibration).
/// 4. **Panel**: scaled to the panel's native (unrotated) size in points.
/// 5. **Display rotation**: `rotation.toLogical`, the one setting that also turns the picture.
///
/// The result is clamped to the logical screen (a calibrated edge may point slightly outside).
package struct TouchMapping: Hashable, Sendable {
    package var x: AbsInfo
    package var y: AbsInfo
    package var calibration: TouchMatrix = .identity
    package var touchTransform: TouchMatrix = .identity
    /// The panel's native size in points, before rotation.
    package var panel: Size
    package var rotation: Rotation = .deg0

    init(
        x: AbsInfo, y: AbsInfo, panel: Size, rotation: Rotation = .deg0, calibration: TouchMatrix = .identity,
        touchTransform: TouchMatrix = .identity
    ) {
        self.x = x
        self.y = y
        self.panel = panel
        self.rotation = rotation
        self.calibration = calibration
        self.touchTransform = touchTransform
    }

    package init(profile: TouchProfile, panel: Size, rotation: Rotation = .deg0, calibration: TouchMatrix = .identity) {
        self.init(x: profile.x, y: profile.y, panel: panel, rotation: rotation, calibration: calibration)
    }

    /// The upright screen the points are in.
    package var logicalSize: Size { rotation.logicalSize(physical: panel) }

    /// Step 1: normalised 0…1 device position.
    package func normalised(_ p: DevicePoint) -> Point {
        func axis(_ v: Double, _ info: AbsInfo) -> Double {
            (v - Double(info.minimum) + 0.5) / (Double(info.maximum) - Double(info.minimum) + 1)
        }
        return Point(x: axis(p.x, x), y: axis(p.y, y))
    }

    /// All steps: device units → logical screen points.
    package func map(_ p: DevicePoint) -> Point {
        let n = touchTransform.apply(calibration.apply(normalised(p)))
        let onPanel = Point(x: n.x * panel.width, y: n.y * panel.height)
        let logical = rotation.toLogical(onPanel, physical: panel)
        let size = logicalSize
        return Point(x: min(max(logical.x, 0), size.width), y: min(max(logical.y, 0), size.height))
    }

    func map(_ frame: DeviceTouchFrame) -> TouchFrame {
        TouchFrame(
            time: frame.time,
            contacts: frame.contacts.map { TouchContact(id: $0.id, position: map($0.position), phase: $0.phase) })
    }

    /// One line for `probe` and logs.
    package var summary: String {
        var parts = [
            "x \(x.minimum)…\(x.maximum), y \(y.minimum)…\(y.maximum) → panel \(Int(panel.width))×\(Int(panel.height)) pt"
        ]
        parts.append(calibration.isIdentity ? "no calibration" : "calibration \(calibration)")
        if !touchTransform.isIdentity { parts.append("touch transform \(touchTransform)") }
        parts.append("rotation \(rotation.rawValue)°")
        return parts.joined(separator: ", ")
    }
}

/// udev's database entry for a device (`/run/udev/data/c<major>:<minor>`): its `E:` lines are
/// the device's properties.
package enum UdevDatabase {
    /// The `E:KEY=VALUE` properties of a database entry.
    static func properties(fromEntry text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("E:") {
            let kv = line.dropFirst(2)
            guard let eq = kv.firstIndex(of: "=") else { continue }
            result[String(kv[..<eq])] = String(kv[kv.index(after: eq)...])
        }
        return result
    }

    /// The path of the entry for character device `major:minor` (evdev nodes are major 13).
    package static func entryPath(major: UInt32, minor: UInt32) -> String { "/run/udev/data/c\(major):\(minor)" }

    /// `LIBINPUT_CALIBRATION_MATRIX` from an entry's text, when present and valid.
    package static func calibrationMatrix(fromEntry text: String) -> TouchMatrix? {
        properties(fromEntry: text)["LIBINPUT_CALIBRATION_MATRIX"].flatMap { TouchMatrix(parsing: $0) }
    }
}

extension TouchMatrix {
    /// The six numbers as the config and the command line write them, at most 6 decimals:
    /// "1.025 0 -0.0125 0 0.98 0.01".
    package var configText: String {
        [a, b, c, d, e, f].map { v in
            let s = jsonNumber(v, decimals: 6)
            return s == "-0" ? "0" : s
        }.joined(separator: " ")
    }
}
