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
                    if let text = try? FileIO.readText(entry, limit: 1 << 20),
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
            switch profile.touchProtocol {
            case .slotted(let n): out += "    slots: \(n)\n    palm: \(profile.palm.summary)\n"
            case .anonymous: out += "    palm: \(profile.palm.summary)\n"
            case .single: break
            }
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

/// `KioskCards probe [--input PATH]... [--watch PATH [--seconds S]] [--screen WxH] [--rotation R]
/// [--touch-matrix M]`.
func runProbeCommand(arguments: [String]) -> Int32 {
    ProbeOptions.table.run(arguments, from: ProbeOptions(), runProbe)
}

func runProbe(_ o: ProbeOptions) -> Int32 {
    if let watch = o.watch {
        return InputWatch.run(path: watch, seconds: o.seconds, options: o.touch)
    }
    var report = DisplayProbe.report()
    if !report.hasSuffix("\n") { report += "\n" }
    report += "\n" + InputProbe.report(explicitPaths: o.paths, options: o.touch)
    if report.hasSuffix("\n") { report.removeLast() }
    print(report)
    return 0
}

/// `probe`'s command line.
struct ProbeOptions {
    var paths: [String] = []
    var watch: String?
    var seconds: Double?
    var touch = TouchReplayOptions()

    static let table = OptionTable<ProbeOptions>(
        command: "probe", summary: "list input and DRM devices, their kind, axes, modes and transforms",
        usage: [
            "probe [--input DEV]... [--screen WxH] [--rotation R] [--touch-matrix M]",
            "probe --watch DEV [--seconds S] [--screen WxH] [--rotation R] [--touch-matrix M] [--touch-transform S]",
        ],
        details: """
            Lists the DRM and input devices with their kind, axes and the transform the app would apply.
            With --watch, reads one device live through the app's input path and prints what it decodes
            as `replay` JSON lines (contact ids numbered from 1), plus {"type":"key","key":…} for keys,
            for S seconds or until Ctrl-C. Compare with 'KioskCards replay FILE' of what was played.
            """,
        options: [
            CommandOption(
                name: "input", value: "DEV", help: "also describe this input device; repeat for several",
                repeatable: true
            ) { o, v in
                guard !v.isEmpty else { return "a path such as /dev/input/event3" }
                o.paths.append(v)
                return nil
            },
            CommandOption.text(
                name: "watch", value: "DEV", help: "print this device's touch frames as they happen",
                expected: "a path such as /dev/input/event3"
            ) { $0.watch = $1 },
            CommandOption(name: "seconds", value: "N", help: "with --watch: stop after N seconds") { o, v in
                guard let s = Double(v), s > 0, s <= maxOptionSeconds else {
                    return "a positive number of seconds (at most 2592000, 30 days)"
                }
                o.seconds = s
                return nil
            },
        ] + ReplayOptions.touchOptions.map { $0.lifted(\ProbeOptions.touch) },
        validate: { o in o.seconds != nil && o.watch == nil ? "--seconds goes with --watch DEV." : nil })
}
