import CardModel
import Glibc
import KioskInput
import KioskSystem

let injectUsage = """
    Usage: KioskCards inject [--screen WxH] [--settle MS] [--linger MS] COMMAND...
           KioskCards inject [--screen WxH] --script FILE
           KioskCards inject --replay RECORDING.evemu

    Creates a virtual multitouch touchscreen through /dev/uinput (protocol B, INPUT_PROP_DIRECT,
    10 slots, ABS_MT_POSITION_X/Y and ABS_X/Y 0..32767, BTN_TOUCH) and plays touches on it, so
    a KioskCards running on the same machine sees real evdev events. With --replay, clones the
    recorded device instead and plays the recording with its timing.

      --screen WxH   pixel size the coordinates refer to (default 800x480)
      --settle MS    wait after creating the device, so the app opens it (default 1000)
      --linger MS    wait before destroying it at the end (default 300)

    """ + InjectCommand.help + """

        Example: KioskCards inject "tap 400 240" "wait 300" "drag 400 240 750 250 250"
        Needs write access to /dev/uinput ('modprobe uinput'; root or its group).
        """

/// `KioskCards inject …`: 0 done, 1 the device could not be made, 2 bad arguments/script.
func runInjectCommand(arguments: [String]) -> Int32 {
    var screen = TouchReplayOptions.defaultScreen
    var settle = 1000.0
    var linger = 300.0
    var commands: [InjectCommand] = []
    var replayPath: String?
    var i = 0
    func value() -> String? {
        i += 1
        return i < arguments.count ? arguments[i] : nil
    }
    do throws(InjectScriptError) {
        while i < arguments.count {
            switch arguments[i] {
            case "--help", "-h":
                print(injectUsage)
                return 0
            case "--screen":
                guard let v = value(), let s = parseScreenSize(v) else {
                    throw InjectScriptError(line: 0, message: "--screen needs WIDTHxHEIGHT, e.g. 800x480")
                }
                screen = s
            case "--settle", "--linger":
                let name = arguments[i]
                guard let v = value(), let ms = Double(v), ms >= 0 else {
                    throw InjectScriptError(line: 0, message: "\(name) needs milliseconds")
                }
                if name == "--settle" { settle = ms } else { linger = ms }
            case "--script":
                guard let path = value() else { throw InjectScriptError(line: 0, message: "--script needs a file") }
                let text: String
                do { text = try FileIO.readText(path) } catch {
                    throw InjectScriptError(line: 0, message: "\(path): \(error)")
                }
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    do {
                        if let c = try InjectCommand(parsing: String(line), lineNumber: n + 1) { commands.append(c) }
                    } catch {
                        throw InjectScriptError(line: error.line, message: "\(path): \(error.message)")
                    }
                }
            case "--replay":
                guard let path = value() else { throw InjectScriptError(line: 0, message: "--replay needs a file") }
                replayPath = path
            default:
                if let c = try InjectCommand(parsing: arguments[i], lineNumber: commands.count + 1) {
                    commands.append(c)
                }
            }
            i += 1
        }
    } catch {
        Log.error("inject: \(error.line > 0 ? "\(error)" : error.message)\nRun 'KioskCards inject --help'.")
        return 2
    }
    if let replayPath {
        return injectRecording(replayPath, settle: settle, linger: linger)
    }
    guard !commands.isEmpty else {
        Log.error("inject: nothing to do; give commands or --script FILE (see 'KioskCards inject --help')")
        return 2
    }
    var planner = InjectPlanner(screen: screen)
    var device: UInputDevice?
    do {
        device = try makeInjectedTouchscreen(settle: settle)
        for command in commands {
            for action in planner.plan(command) {
                switch action {
                case .frame(let events):
                    switch device {
                    case .some(let d):
                        for e in events { try d.write(type: e.type, code: e.code, value: e.value) }
                    case .none:
                        Log.warning("inject: touches after 'unplug' are dropped (use 'replug')")
                    }
                case .sleep(let ms):
                    sleepMilliseconds(ms)
                case .unplug:
                    device = nil
                    Log.info("inject: unplugged")
                case .replug:
                    if device == nil { device = try makeInjectedTouchscreen(settle: settle) }
                }
            }
        }
        sleepMilliseconds(linger)
    } catch {
        Log.error("inject: \(error)")
        return 1
    }
    _ = device.take()
    return 0
}

private func makeInjectedTouchscreen(settle: Double) throws(SystemCallError) -> UInputDevice {
    let device = try UInputDevice(UInputDevice.touchscreenDescription)
    Log.info("inject: created '\(UInputDevice.touchscreenDescription.name)' at \(device.devnode ?? "(unknown node)")")
    sleepMilliseconds(settle)
    return device
}

/// Clones the recorded device through uinput and plays its events with their original spacing.
private func injectRecording(_ path: String, settle: Double, linger: Double) -> Int32 {
    let recording: EvemuRecording
    do { recording = try EvemuRecording(contentsOf: path) } catch {
        Log.error("inject: \(error)")
        return 2
    }
    do {
        let device = try UInputDevice(recording.device)
        Log.info("inject: cloned '\(recording.device.name)' at \(device.devnode ?? "(unknown node)")")
        sleepMilliseconds(settle)
        var last = recording.events.first?.time
        for e in recording.events where e.type != EvdevCode.evSyn || e.code != EvdevCode.synDropped {
            if let l = last, e.time > l { sleepMilliseconds(e.time.seconds(since: l) * 1000) }
            last = e.time
            try device.write(type: e.type, code: e.code, value: e.value)
        }
        sleepMilliseconds(linger)
    } catch {
        Log.error("inject: \(error)")
        return 1
    }
    return 0
}

extension UInputDevice {
    /// The protocol-B touchscreen the injector plays gestures on: INPUT_PROP_DIRECT, 10 slots,
    /// ABS_MT_POSITION_X/Y and ABS_X/Y over 0…`InjectPlanner.range`, tracking ids, BTN_TOUCH.
    static var touchscreenDescription: DeviceDescription {
        var d = DeviceDescription(name: "KioskCards injected touchscreen")
        d.id = DeviceID(bus: 0x06, vendor: 0x4b43, product: 0x0001, version: 1)  // BUS_VIRTUAL, "KC"
        d.properties = [EvdevCode.propDirect]
        d.enable(type: EvdevCode.evSyn, code: EvdevCode.synReport)
        d.enable(type: EvdevCode.evKey, code: EvdevCode.btnTouch)
        let axis = AbsInfo(minimum: 0, maximum: InjectPlanner.range)
        d.enable(abs: EvdevCode.absX, axis)
        d.enable(abs: EvdevCode.absY, axis)
        d.enable(abs: EvdevCode.absMTSlot, AbsInfo(minimum: 0, maximum: Int32(InjectPlanner.slots - 1)))
        d.enable(abs: EvdevCode.absMTPositionX, axis)
        d.enable(abs: EvdevCode.absMTPositionY, axis)
        d.enable(abs: EvdevCode.absMTTrackingID, AbsInfo(minimum: 0, maximum: 65535))
        return d
    }
}
