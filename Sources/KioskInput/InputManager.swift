import CEvdev
import CardModel
import Glibc
import KioskSystem

/// Finds, opens and watches the input devices, and turns their events into touch frames (in
/// logical screen points) and key commands for the app.
///
/// Runs on the app's `EventLoop`: every device fd and the inotify fd on /dev/input are
/// registered there; nothing blocks. Touchscreens and absolute pointers feed touch frames;
/// keyboards are grabbed (EVIOCGRAB) and feed `KeyAction`s; other devices are ignored.
/// Devices that appear are opened (retrying for up to ~1 s while udev sets permissions), devices
/// that go away (read → ENODEV, or the node is deleted) are closed and their contacts cancelled.
package final class InputManager {
    package enum Output: Sendable {
        case touch(TouchFrame)
        case key(KeyAction, Instant)
        /// The one-switch key (`Configuration.switchKey`) went down (true) or up (false).
        case switchKey(pressed: Bool, Instant)
    }

    package struct Configuration: Sendable {
        /// `--input PATH` (repeatable): use exactly these devices instead of discovery.
        package var explicitPaths: [String] = []
        var directory = "/dev/input"
        /// The panel's native size in points and the display rotation (the display decides both).
        var panel: Size
        package var rotation: Rotation = .deg0
        /// `--touch-matrix`; nil: udev's LIBINPUT_CALIBRATION_MATRIX when present, else identity.
        package var calibration: TouchMatrix?
        /// Touch-only transform for a digitiser mounted differently from the display.
        package var touchTransform: TouchMatrix = .identity
        package var grabKeyboards = true
        /// A key combination on any keyboard that calls `onChord` instead of reaching the deck
        /// (kiosk.conf `staff-keys`); nil: none.
        package var chord: KeyChord?
        /// The one-switch scanning key (kiosk.conf `switch-key`): its presses and releases come
        /// as `.switchKey` and never as a `KeyAction`; nil: none.
        package var switchKey: SwitchKey?
        /// Seconds of every touch device's raw events kept for `flightRecordings()`; nil: none
        /// kept. At most `recorderCapacity` events per device.
        package var recorderWindow: Double?
        var recorderCapacity = 300_000

        package init(panel: Size) { self.panel = panel }
    }

    /// The recent raw input of one touch device (`FlightRecorder.replayableEvents`), with how
    /// the app mapped it.
    package struct FlightRecording: Sendable {
        var path: String
        var device: DeviceDescription
        var events: [InputEvent]
        var mapping: TouchMapping
    }

    private final class OpenDevice {
        var device: EvdevDevice
        let kind: DeviceKind
        var session: TouchSession?
        var recorder: FlightRecorder?
        /// The device's slot in `FatalSignalRecorder` (when the app installed it).
        var crashSlot: Int32?
        var token = 0
        /// SYN_DROPPED seen on this device (the reader fell behind and the kernel dropped events).
        var drops = 0
        /// Keys held down on this keyboard (for `Configuration.chord`).
        var heldKeys: Set<UInt16> = []

        init(device: consuming EvdevDevice, kind: DeviceKind) {
            self.device = device
            self.kind = kind
        }
    }

    private let loop: EventLoop
    private(set) var configuration: Configuration
    private let output: (Output) -> Void
    private var open: [String: OpenDevice] = [:]
    private var retrying: Set<String> = []
    private var reported: Set<String> = []
    private var inotifyFD: Int32 = -1
    private var inotifyToken: Int?
    private var watches: [Int32: String] = [:]
    private var nextDeviceSerial = 0
    /// Recordings of the devices closed last (a device that went away may be the problem).
    private var closedRecordings: [FlightRecording] = []
    /// Called with every touch frame in device units and the mapping of its device, just
    /// before the mapped frame goes out (the diagnostics screens show both).
    package var onDeviceFrame: ((DeviceTouchFrame, TouchMapping) -> Void)?
    /// Called when `Configuration.chord` is made on a keyboard (the key that completed it goes
    /// nowhere else).
    package var onChord: ((Instant) -> Void)?

    /// Retries for a node that appeared but cannot be opened yet, 100 ms apart (~1 s).
    static let openRetries = 10
    static let retryInterval = 0.1

    package init(loop: EventLoop, configuration: Configuration, output: @escaping (Output) -> Void) {
        self.loop = loop
        self.configuration = configuration
        self.output = output
    }

    deinit {
        stop()
    }

    /// The devices in use, for logs and `probe`.
    package var devices: [(path: String, kind: DeviceKind)] {
        open.keys.sorted().map { ($0, open[$0]!.kind) }
    }

    /// Opens the devices present now and starts watching for hotplug.
    package func start() throws(SystemCallError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemCallError(call: "inotify_init1", errno: .current) }
        inotifyFD = fd
        for dir in watchedDirectories() {
            let wd = inotify_add_watch(fd, dir, UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE))
            if wd < 0 {
                Log.warning("input: cannot watch \(dir) for new devices: \(Errno.current)")
            } else {
                watches[wd] = dir
            }
        }
        inotifyToken = loop.add(fd: fd) { [weak self] _ in self?.readInotify() }
        for path in candidatePaths() { attemptOpen(path, retriesLeft: 0) }
        if open.values.allSatisfy({ $0.session == nil }) && configuration.explicitPaths.isEmpty {
            Log.warning(
                "input: no touchscreen found yet in \(configuration.directory); waiting for one to be plugged in "
                    + "(or name it with --input /dev/input/eventN)")
        }
    }

    /// Closes every device and the hotplug watch; contacts down are cancelled.
    package func stop() {
        for path in open.keys.sorted() { closeDevice(path) }
        if let inotifyToken { loop.remove(inotifyToken) }
        inotifyToken = nil
        if inotifyFD >= 0 { Glibc.close(inotifyFD) }
        inotifyFD = -1
    }

    /// A new calibration matrix (the staff menu's calibration): every touch device maps with it
    /// from the next frame; nil: udev's, else identity.
    package func setCalibration(_ matrix: TouchMatrix?) {
        configuration.calibration = matrix
        for device in open.values where device.session != nil {
            device.session!.mapping.calibration = matrix ?? udevCalibration(device) ?? .identity
        }
    }

    /// The display changed size or rotation: remap every touch device.
    package func setDisplay(panel: Size, rotation: Rotation) {
        configuration.panel = panel
        configuration.rotation = rotation
        for device in open.values where device.session != nil {
            device.session!.mapping.panel = panel
            device.session!.mapping.rotation = rotation
        }
    }

    // MARK: Discovery

    private func watchedDirectories() -> [String] {
        if configuration.explicitPaths.isEmpty { return [configuration.directory] }
        return Array(Set(configuration.explicitPaths.map { Self.directory(of: $0) })).sorted()
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private func candidatePaths() -> [String] {
        if !configuration.explicitPaths.isEmpty { return configuration.explicitPaths }
        return Self.eventNodes(in: configuration.directory)
    }

    /// `event*` nodes in `directory`, in numeric order.
    package static func eventNodes(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("event") { names.append(name) }
        }
        return names.sorted { (Int($0.dropFirst(5)) ?? 0, $0) < (Int($1.dropFirst(5)) ?? 0, $1) }
            .map { directory + "/" + $0 }
    }

    private func isWanted(_ path: String) -> Bool {
        if configuration.explicitPaths.isEmpty {
            return Self.directory(of: path) == configuration.directory
                && path.dropFirst(configuration.directory.count + 1).hasPrefix("event")
        }
        return configuration.explicitPaths.contains(path)
    }

    private func readInotify() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                return
            }
            let records = buffer.withUnsafeBytes { InotifyEvents.parse(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            for record in records {
                guard let dir = watches[record.watch] else { continue }
                let path = (dir == "/" ? "" : dir) + "/" + record.name
                guard isWanted(path) else { continue }
                if record.mask & InotifyEvents.deleted != 0 {
                    if open[path] != nil {
                        Log.info("input: \(path) removed")
                        closeDevice(path)
                    }
                } else if open[path] == nil && !retrying.contains(path) {
                    attemptOpen(path, retriesLeft: Self.openRetries)
                }
            }
        }
    }

    // MARK: Open and close

    /// Opens `path`; a node that cannot be opened yet is tried again `retriesLeft` more times.
    /// `attempt` counts the tries so far (for the log line when a retry succeeds).
    private func attemptOpen(_ path: String, retriesLeft: Int, attempt: Int = 0) {
        retrying.remove(path)
        guard open[path] == nil else { return }
        var device: EvdevDevice
        do {
            device = try EvdevDevice(path: path)
        } catch {
            let transient = [Errno.permissionDenied, .noEntry, .noDevice, Errno(ENXIO)].contains(error.failure.errno)
            if transient && retriesLeft > 0 {
                // udev may not have set the node's group and mode yet.
                retrying.insert(path)
                let deadline = MonotonicClock.now().advanced(bySeconds: Self.retryInterval)
                loop.schedule(at: deadline) { [weak self] in
                    self?.attemptOpen(path, retriesLeft: retriesLeft - 1, attempt: attempt + 1)
                }
            } else if !configuration.explicitPaths.isEmpty || error.failure.errno == .permissionDenied {
                Log.error("input: \(error)")
            } else if reported.insert(path).inserted {
                Log.info("input: \(error)")
            }
            return
        }
        reported.remove(path)
        if attempt > 0 {
            Log.info(
                "input: \(path) opened on try \(attempt + 1) (its node was not ready at first: udev still setting it up?)"
            )
        }
        let kind = device.description.classify()
        let name = device.description.name
        if case .ignored(let why) = kind {
            if !configuration.explicitPaths.isEmpty {
                Log.error("input: \(path) ('\(name)') cannot be used: \(why)")
            }
            return  // `device` closes here
        }
        if kind == .keyboard && configuration.grabKeyboards {
            do {
                try device.grab()
            } catch {
                Log.warning("input: keyboard '\(name)' not grabbed, keys also reach the console: \(error)")
            }
        }
        let entry = OpenDevice(device: device, kind: kind)
        if let profile = kind.touchProfile {
            nextDeviceSerial += 1
            var mapping = TouchMapping(profile: profile, panel: configuration.panel, rotation: configuration.rotation)
            mapping.calibration = configuration.calibration ?? udevCalibration(entry) ?? .identity
            mapping.touchTransform = configuration.touchTransform
            var session = TouchSession(
                profile: profile, mapping: mapping, firstContactID: nextDeviceSerial * 1_000_000 + 1)
            let now = MonotonicClock.now()
            let state =
                entry.device.currentStateEvents(at: now) + [
                    InputEvent(time: now, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0)
                ]
            var seeded: TouchFrame?
            for e in state { seeded = session.handle(e) }
            if let window = configuration.recorderWindow {
                // The device's state at open comes first, so the recording knows fingers already down.
                var recorder = FlightRecorder(window: window, capacity: configuration.recorderCapacity)
                for e in state { recorder.record(e) }
                entry.recorder = recorder
                entry.crashSlot = FatalSignalRecorder.register(path: path, device: entry.device.description)
                if let slot = entry.crashSlot { for e in state { FatalSignalRecorder.record(e, slot: slot) } }
            }
            entry.session = session
            if let seeded { output(.touch(seeded)) }
            Log.info("input: \(path) '\(name)': \(kind.label); \(mapping.summary)")
            for note in profile.notes { Log.info("input: \(path): \(note)") }
        } else {
            Log.info("input: \(path) '\(name)': \(kind.label)")
        }
        entry.token = loop.add(fd: entry.device.fd) { [weak self] _ in self?.service(path) }
        open[path] = entry
    }

    private func udevCalibration(_ entry: OpenDevice) -> TouchMatrix? {
        let n = entry.device.deviceNumber
        let path = UdevDatabase.entryPath(major: n.major, minor: n.minor)
        guard FileIO.exists(path), let text = try? FileIO.readText(path, limit: 1 << 20) else { return nil }
        return UdevDatabase.calibrationMatrix(fromEntry: text)
    }

    private func closeDevice(_ path: String) {
        guard let entry = open.removeValue(forKey: path) else { return }
        loop.remove(entry.token)
        if let recording = Self.recording(of: entry, path: path) {
            closedRecordings = Array((closedRecordings + [recording]).suffix(Self.closedRecordingsKept))
        }
        if var session = entry.session, let frame = session.deviceRemoved(at: MonotonicClock.now()) {
            output(.touch(frame))
        }
    }

    // MARK: Reading

    /// SYN_DROPPED: the session applies libevdev's sync delta as one frame. Logged the 1st,
    /// 10th, 100th… time per device, so a reader that keeps falling behind shows without flooding.
    private static func resync(_ entry: OpenDevice, path: String) {
        entry.session?.beginLiveResync()
        entry.drops += 1
        var n = entry.drops
        while n % 10 == 0 { n /= 10 }
        if n == 1 {
            Log.warning(
                "input: \(path): the kernel dropped events (SYN_DROPPED, \(entry.drops) so far); "
                    + "resynchronised from the device's state")
        }
    }

    private func service(_ path: String) {
        guard let entry = open[path] else { return }
        let outcome: EvdevDevice.ReadOutcome
        do {
            outcome = try entry.device.readEvents(resync: { Self.resync(entry, path: path) }) { event in
                if entry.session != nil {
                    entry.recorder?.record(event)
                    if let slot = entry.crashSlot { FatalSignalRecorder.record(event, slot: slot) }
                    if let raw = entry.session!.handleDevice(event) {
                        onDeviceFrame?(raw, entry.session!.mapping)
                        output(.touch(entry.session!.mapping.map(raw)))
                    }
                } else if event.type == EvdevCode.evKey {
                    if let chord = configuration.chord {
                        if event.value == 0 { entry.heldKeys.remove(event.code) }
                        if event.value == 1 {
                            entry.heldKeys.insert(event.code)
                            if chord.isMade(by: entry.heldKeys) {
                                onChord?(event.time)
                                return
                            }
                        }
                    }
                    if let scan = configuration.switchKey, scan.codes.contains(event.code) {
                        if let pressed = scan.edge(keyCode: event.code, value: event.value) {
                            output(.switchKey(pressed: pressed, event.time))
                        }
                        return
                    }
                    if let action = KeyAction(keyCode: event.code, value: event.value) {
                        output(.key(action, event.time))
                    }
                }
            }
        } catch {
            Log.error("input: \(path): \(error); closing it")
            closeDevice(path)
            return
        }
        if outcome == .removed {
            Log.info("input: \(path) removed (ENODEV)")
            closeDevice(path)
        }
    }

    // MARK: Flight recorder

    /// How many recordings of closed devices are kept.
    static let closedRecordingsKept = 4

    /// The recent raw input of every touch device open now, then of those closed last (empty
    /// unless `recorderWindow` is set). Copies the events; formatting and writing them is the
    /// caller's, off the loop thread.
    package func flightRecordings() -> [FlightRecording] {
        let current = open.keys.sorted().compactMap { path in open[path].flatMap { Self.recording(of: $0, path: path) }
        }
        return current + closedRecordings
    }

    private static func recording(of entry: OpenDevice, path: String) -> FlightRecording? {
        guard let recorder = entry.recorder, let session = entry.session else { return nil }
        return FlightRecording(
            path: path, device: entry.device.description, events: recorder.replayableEvents, mapping: session.mapping)
    }
}
