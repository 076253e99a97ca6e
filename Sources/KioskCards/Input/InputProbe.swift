import CardModel
import Glibc

/// The input half of `KioskCards probe`: every input device with its kind, axes and the
/// transform the app would apply.
enum InputProbe {
    /// The report for the devices in `directory` (or `explicitPaths`), as text lines.
    static func report(
        directory: String = "/dev/input", explicitPaths: [String] = [],
        options: TouchReplayOptions = TouchReplayOptions()
    ) -> String {
        let paths = explicitPaths.isEmpty ? InputManager.eventNodes(in: directory) : explicitPaths
        var out = "Input devices (\(explicitPaths.isEmpty ? directory : "--input")):\n"
        if paths.isEmpty {
            out += "  none found in \(directory) (no input devices, or not the kiosk's machine)\n"
        }
        for path in paths {
            do {
                let device = try EvdevDevice(path: path)
                var calibration = options.calibration
                var calibrationSource = calibration == nil ? "" : " (--touch-matrix)"
                if calibration == nil {
                    let n = device.deviceNumber
                    let entry = UdevDatabase.entryPath(major: n.major, minor: n.minor)
                    if let text = try? InputFiles.readText(entry),
                        let m = UdevDatabase.calibrationMatrix(fromEntry: text)
                    {
                        calibration = m
                        calibrationSource = " (udev LIBINPUT_CALIBRATION_MATRIX)"
                    }
                }
                var o = options
                o.calibration = calibration
                out += describe(path: path, device.description, options: o, calibrationSource: calibrationSource)
            } catch {
                out += "  \(path): cannot open: \(error)\n"
            }
        }
        return out
    }

    /// One device's block (pure: works on a recording's description too).
    static func describe(
        path: String, _ d: DeviceDescription, options: TouchReplayOptions, calibrationSource: String = ""
    ) -> String {
        let kind = d.classify()
        var out = "  \(path): \"\(d.name)\" \(d.id)\n    kind: \(kind.label)\n"
        if let profile = kind.touchProfile {
            func axis(_ label: String, _ info: AbsInfo) -> String {
                let res = info.resolution > 0 ? ", \(info.resolution) units/mm" : ", resolution unknown"
                return "\(label) \(info.minimum)…\(info.maximum)\(info.fuzz > 0 ? " fuzz \(info.fuzz)" : "")\(res)"
            }
            out += "    axes: \(axis("x", profile.x)); \(axis("y", profile.y))\n"
            if case .slotted(let n) = profile.touchProtocol { out += "    slots: \(n)\n" }
            if let mm = profile.physicalSizeMillimetres {
                out += "    size: \(jsonNumber(mm.width, decimals: 1))×\(jsonNumber(mm.height, decimals: 1)) mm\n"
            }
            var mapping = TouchMapping(
                profile: profile, panel: options.screen ?? TouchReplayOptions.defaultScreen, rotation: options.rotation,
                calibration: options.calibration ?? .identity)
            mapping.touchTransform = options.touchTransform
            out += "    transform: \(mapping.summary)\(calibrationSource)\n"
            for note in profile.notes { out += "    note: \(note)\n" }
        }
        return out
    }
}

/// `KioskCards probe [--input PATH]... [--screen WxH] [--rotation R] [--touch-matrix M]`.
func runProbeCommand(arguments: [String]) -> Int32 {
    var paths: [String] = []
    var rest: [String] = []
    var i = 0
    while i < arguments.count {
        if arguments[i] == "--input" {
            guard i + 1 < arguments.count else {
                Log.error("probe: --input needs a path such as /dev/input/event3")
                return 2
            }
            paths.append(arguments[i + 1])
            i += 2
        } else {
            rest.append(arguments[i])
            i += 1
        }
    }
    // Reuse replay's option parser with a placeholder file name.
    switch parseReplayArguments(["<probe>"] + rest) {
    case .help:
        print("Usage: KioskCards probe [--input PATH]... [--screen WxH] [--rotation R] [--touch-matrix M]")
        return 0
    case .failure(let message):
        Log.error("probe: \(message)")
        return 2
    case .success(_, let options):
        var report = DisplayProbe.report()
        if !report.hasSuffix("\n") { report += "\n" }
        report += "\n" + InputProbe.report(explicitPaths: paths, options: options)
        if report.hasSuffix("\n") { report.removeLast() }
        print(report)
        return 0
    }
}
