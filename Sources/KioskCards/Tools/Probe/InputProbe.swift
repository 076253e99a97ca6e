import CardModel
import Glibc
import KioskInput
import KioskSystem

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
                    if let text = try? FileIO.readText(entry),
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

let probeUsage = """
    Usage: KioskCards probe [--input PATH]... [--screen WxH] [--rotation R] [--touch-matrix M]
           KioskCards probe --watch PATH [--seconds S] [--screen WxH] [--rotation R] [--touch-matrix M]
                            [--touch-transform S]

    Lists the DRM and input devices with their kind, axes and the transform the app would apply.
    With --watch, reads one device live through the app's input path and prints what it decodes
    as `replay` JSON lines (contact ids numbered from 1), plus {"type":"key","key":…} for keys,
    for S seconds or until Ctrl-C. Compare with 'KioskCards replay FILE' of what was played.
    """

/// `KioskCards probe [--input PATH]... [--watch PATH [--seconds S]] [--screen WxH] [--rotation R]
/// [--touch-matrix M]`.
func runProbeCommand(arguments: [String]) -> Int32 {
    var paths: [String] = []
    var watch: String?
    var seconds: Double?
    var rest: [String] = []
    var i = 0
    while i < arguments.count {
        if arguments[i] == "--input" || arguments[i] == "--watch" {
            guard i + 1 < arguments.count else {
                Log.error("probe: \(arguments[i]) needs a path such as /dev/input/event3")
                return 2
            }
            if arguments[i] == "--input" { paths.append(arguments[i + 1]) } else { watch = arguments[i + 1] }
            i += 2
        } else if arguments[i] == "--seconds" {
            guard i + 1 < arguments.count, let s = Double(arguments[i + 1]), s > 0, s.isFinite else {
                Log.error("probe: --seconds needs a positive number of seconds")
                return 2
            }
            seconds = s
            i += 2
        } else {
            rest.append(arguments[i])
            i += 1
        }
    }
    // Reuse replay's option parser with a placeholder file name.
    switch parseReplayArguments(["<probe>"] + rest) {
    case .help:
        print(probeUsage)
        return 0
    case .failure(let message):
        Log.error("probe: \(message)")
        return 2
    case .success(_, let options):
        if let watch {
            return InputWatch.run(path: watch, seconds: seconds, options: options)
        }
        if seconds != nil {
            Log.error("probe: --seconds goes with --watch PATH")
            return 2
        }
        var report = DisplayProbe.report()
        if !report.hasSuffix("\n") { report += "\n" }
        report += "\n" + InputProbe.report(explicitPaths: paths, options: options)
        if report.hasSuffix("\n") { report.removeLast() }
        print(report)
        return 0
    }
}
