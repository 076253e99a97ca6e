import CardModel
import Glibc
import KioskInput
import KioskSystem

/// `inject`'s command line: steps given as arguments and `--script` files, in order.
struct InjectOptions {
    enum Item: Equatable {
        case step(String)
        case script(String)
    }

    var screen = TouchReplayOptions.defaultScreen
    var settle = 1000.0
    var linger = 300.0
    var items: [Item] = []
    var replayPath: String?
    /// `--times`: where to write when each touch frame was written (CLOCK_MONOTONIC nanoseconds).
    var timesPath: String?

    static func milliseconds(_ v: String) -> Double? {
        guard let ms = Double(v), ms >= 0, ms <= InjectPlanner.maxMilliseconds else { return nil }
        return ms
    }

    static let table = OptionTable<InjectOptions>(
        command: "inject", summary: "play touches on a virtual uinput touchscreen",
        usage: [
            "inject [--screen WxH] [--settle MS] [--linger MS] COMMAND...",
            "inject [--screen WxH] --script FILE",
            "inject --replay RECORDING.evemu",
        ],
        details: """
            Creates a virtual multitouch touchscreen through /dev/uinput (protocol B, INPUT_PROP_DIRECT,
            10 slots, ABS_MT_POSITION_X/Y and ABS_X/Y 0..32767, BTN_TOUCH) and plays touches on it, so
            a KioskCards running on the same machine sees real evdev events. With --replay, clones the
            recorded device instead and plays the recording with its timing.
            """,
        options: [
            CommandOption.parsed(
                name: "screen", value: "WxH", help: "pixel size the coordinates refer to (default 800x480)",
                expected: "WIDTHxHEIGHT, e.g. 800x480", { parseScreenSize($0) }
            ) { $0.screen = $1 },
            CommandOption.parsed(
                name: "settle", value: "MS", help: "wait after creating the device, so the app opens it (default 1000)",
                expected: "milliseconds, e.g. 1000", { milliseconds($0) }
            ) { $0.settle = $1 },
            CommandOption.parsed(
                name: "linger", value: "MS", help: "wait before destroying it at the end (default 300)",
                expected: "milliseconds, e.g. 300", { milliseconds($0) }
            ) { $0.linger = $1 },
            CommandOption(
                name: "script", value: "FILE", help: "play the commands in FILE, one a line", repeatable: true
            ) { o, v in
                guard !v.isEmpty else { return "a file of commands, one a line" }
                o.items.append(.script(v))
                return nil
            },
            CommandOption.text(
                name: "replay", value: "RECORDING", help: "clone the recorded device, play the recording",
                expected: "an evemu recording"
            ) { $0.replayPath = $1 },
            CommandOption.text(
                name: "times", value: "FILE",
                help: "write when each touch frame's SYN_REPORT was written, CLOCK_MONOTONIC nanoseconds, one a line",
                expected: "a file to write"
            ) { $0.timesPath = $1 },
        ],
        positional: CommandPositional(name: "COMMAND", help: "a touch command, see below", count: .zeroOrMore) {
            o, v in
            o.items.append(.step(v))
            return nil
        },
        footer: InjectStep.help + """

            Example: KioskCards inject "tap 400 240" "wait 300" "drag 400 240 750 250 250"
            Needs write access to /dev/uinput ('modprobe uinput'; root: the package keeps it 0600).
            """)

    /// The steps in order, the scripts read; the error names the file and line.
    func commands() throws(InjectScriptError) -> [InjectStep] {
        var commands: [InjectStep] = []
        for item in items {
            switch item {
            case .step(let text):
                if let c = try InjectStep(parsing: text, lineNumber: commands.count + 1) { commands.append(c) }
            case .script(let path):
                let text: String
                do { text = try FileIO.readText(path, limit: 1 << 20) } catch {
                    throw InjectScriptError(line: 0, message: "cannot read the script \(path): \(error.reason)")
                }
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    do {
                        if let c = try InjectStep(parsing: String(line), lineNumber: n + 1) { commands.append(c) }
                    } catch {
                        throw InjectScriptError(line: error.line, message: "\(path): \(error.message)")
                    }
                }
            }
        }
        return commands
    }
}

/// `KioskCards inject …`: 0 done, 1 the device could not be made, 2 bad arguments/script.
func runInjectCommand(arguments: [String]) -> Int32 {
    InjectOptions.table.run(arguments, from: InjectOptions(), runInject)
}

func runInject(_ options: InjectOptions) -> Int32 {
    let (settle, linger) = (options.settle, options.linger)
    if let replayPath = options.replayPath {
        return injectRecording(replayPath, settle: settle, linger: linger)
    }
    let commands: [InjectStep]
    do throws(InjectScriptError) {
        commands = try options.commands()
    } catch {
        Log.error("inject: \(error.line > 0 ? "\(error)" : error.message)\nRun 'KioskCards inject --help'.")
        return 2
    }
    guard !commands.isEmpty else {
        Log.error("inject: nothing to do; give commands or --script FILE. See 'KioskCards inject --help'")
        return 2
    }
    let screen = options.screen
    var planner = InjectPlanner(screen: screen)
    var device: UInputDevice?
    var times: [Instant] = []
    do {
        device = try makeInjectedTouchscreen(settle: settle)
        for command in commands {
            for action in planner.plan(command) {
                switch action {
                case .frame(let events):
                    switch device {
                    case .some(let d):
                        for e in events { try d.write(type: e.type, code: e.code, value: e.value) }
                        // Read once the frame's last write returned: no earlier than the kernel's
                        // own timestamp of the frame, the clock a flip event's time is on.
                        if options.timesPath != nil { times.append(MonotonicClock.now()) }
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
        if let path = options.timesPath {
            let lines = times.map { "\($0.nanoseconds)\n" }.joined()
            try FileIO.replaceAtomically(path: path, contents: Array(lines.utf8))
        }
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
    // Streamed: events are played as their lines are read, so memory is flat in the length.
    let recording: EvemuReader
    do { recording = try EvemuReader(contentsOf: path) } catch {
        Log.error("inject: \(error)")
        return 2
    }
    do {
        let device = try UInputDevice(recording.device)
        Log.info("inject: cloned '\(recording.device.name)' at \(device.devnode ?? "(unknown node)")")
        sleepMilliseconds(settle)
        var last: Instant?
        while let e = try nextInjectedEvent(recording) {
            if last == nil { last = e.time }  // spacing counts from the first event, as recorded
            if e.type == EvdevCode.evSyn && e.code == EvdevCode.synDropped { continue }
            if let l = last, e.time > l { sleepMilliseconds(e.time.seconds(since: l) * 1000) }
            last = e.time
            try device.write(type: e.type, code: e.code, value: e.value)
        }
        sleepMilliseconds(linger)
    } catch let error as InjectReplayError {
        Log.error("inject: \(error)")
        return 2
    } catch {
        Log.error("inject: \(error)")
        return 1
    }
    return 0
}

/// The recording's next event; a bad line ends `inject` with exit 2 (a usage error, as when
/// the whole file was read first), so it is thrown apart from the device's errors.
private func nextInjectedEvent(_ recording: EvemuReader) throws(InjectReplayError) -> InputEvent? {
    do { return try recording.next() } catch { throw InjectReplayError(error: error) }
}

private struct InjectReplayError: Error, CustomStringConvertible {
    var error: EvemuError
    var description: String { error.description }
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
