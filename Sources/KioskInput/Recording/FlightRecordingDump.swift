import CardModel
import Glibc
import KioskSystem
import Synchronization

/// Writes the input flight recorder's contents as evemu files into the data directory: on
/// SIGUSR2 and on a fatal error (`KioskApp`). The loop thread only copies the events
/// (`InputManager.flightRecordings()`); formatting and the atomic write run on a background
/// thread, so a five-minute recording never holds up a frame.
///
/// Each file's header says how the app mapped the device, so the recording replays to the
/// gestures the app saw (`KioskCards replay FILE --screen … --rotation …`) and draws the frames
/// the panel showed (`KioskCards render --script FILE --size … --scale …`).
package enum FlightRecordingDump {
    /// What a dump needs to know about the app besides the recordings.
    package struct Context: Sendable {
        var dataDirectory: String
        var kioskID: String
        /// The panel's pixel size (unturned, as `render --size` takes it) and the points-to-pixels
        /// factor, for `render`.
        var panelWidth: Int
        var panelHeight: Int
        var scale: Double
        var deckPath: String
        /// The panel's millimetres (unturned, as its EDID says), when known: `render --panel-mm`.
        var panelMM: Size?

        package init(
            dataDirectory: String, kioskID: String, panelWidth: Int, panelHeight: Int, scale: Double, deckPath: String,
            panelMM: Size? = nil
        ) {
            self.dataDirectory = dataDirectory
            self.kioskID = kioskID
            self.panelWidth = panelWidth
            self.panelHeight = panelHeight
            self.scale = scale
            self.deckPath = deckPath
            self.panelMM = panelMM
        }
    }

    /// Writes one file per recording with events; returns their paths (the writes finish in
    /// the background; each logs its outcome). `reason` goes into the log and the file header.
    @discardableResult
    package static func save(
        _ recordings: [InputManager.FlightRecording], reason: String, context: Context,
        wallMilliseconds: Int64 = WallClock.nowMilliseconds()
    ) -> [String] {
        let withEvents = recordings.filter { !$0.events.isEmpty }
        guard !withEvents.isEmpty else {
            Log.info("flight recorder: \(reason): no touch input recorded yet, nothing written")
            return []
        }
        var paths: [String] = []
        for (index, recording) in withEvents.enumerated() {
            let path =
                context.dataDirectory + "/" + fileName(for: recording, index: index, wallMilliseconds: wallMilliseconds)
            let note = header(for: recording, reason: reason, context: context, wallMilliseconds: wallMilliseconds)
            let span = recording.events.last!.time.seconds(since: recording.events.first!.time)
            Log.info(
                "flight recorder: \(reason): writing \(recording.events.count) events (\(jsonNumber(span, decimals: 1)) s) "
                    + "of \(recording.path) to \(path)")
            paths.append(path)
            Writes.shared.begin()
            BackgroundWork.run("flight-recording", UncheckedBox((recording, note, path))) { box in
                let (recording, note, path) = box.value
                let text = FlightRecorder.evemuText(device: recording.device, events: recording.events, note: note)
                FlightRecorder.write(text, to: path)
                Writes.shared.end()
            }
        }
        return paths
    }

    /// Waits up to `timeout` seconds for writes still running (at exit, so a SIGUSR2 right
    /// before SIGTERM still leaves its file). Returns whether all finished.
    @discardableResult
    package static func waitForWrites(timeout: Double) -> Bool {
        let deadline = MonotonicClock.now().advanced(bySeconds: timeout)
        while Writes.shared.running > 0 {
            if MonotonicClock.now() >= deadline { return false }
            sleepMilliseconds(10)
        }
        return true
    }

    /// `input-20261130T123456Z-event3.evemu`; a closed device's older recording gets its index.
    static func fileName(for recording: InputManager.FlightRecording, index: Int, wallMilliseconds: Int64) -> String {
        let stamp =
            WallClock.iso8601(milliseconds: wallMilliseconds)
            .filter { $0 != "-" && $0 != ":" }
            .split(separator: ".").first.map(String.init) ?? "0"
        let device = recording.path.split(separator: "/").last.map(String.init) ?? "input"
        return "input-\(stamp)Z-\(device)" + (index > 0 ? "-\(index)" : "") + ".evemu"
    }

    /// The note of the file header: why, when, and the command lines that reproduce it.
    static func header(
        for recording: InputManager.FlightRecording, reason: String, context: Context, wallMilliseconds: Int64
    ) -> String {
        let mapping = recording.mapping
        let mm = context.panelMM.map {
            " --panel-mm \(jsonNumber($0.width, decimals: 1))x\(jsonNumber($0.height, decimals: 1))"
        }
        let rotation = mapping.rotation == .deg0 ? "" : " --rotation \(mapping.rotation.rawValue)"
        let matrix = mapping.calibration.isIdentity ? "" : " --touch-matrix \"\(mapping.calibration.configText)\""
        let replay = "KioskCards replay FILE " + replayArguments(mapping).joined(separator: " ")
        let render =
            "KioskCards render --deck \(context.deckPath) --script FILE "
            + "--size \(context.panelWidth)x\(context.panelHeight) --scale \(jsonNumber(context.scale, decimals: 6))"
            + (mm ?? "") + rotation + matrix + " --at 2000 --out frame.png"
        return "\(reason) at \(WallClock.iso8601(milliseconds: wallMilliseconds)), kiosk '\(context.kioskID)', "
            + "device \(recording.path)\n# Replay as the app mapped it: \(replay)"
            + "\n# Frames as the panel showed them: \(render)"
    }

    /// `replay` flags that map the device as `mapping` does.
    static func replayArguments(_ mapping: TouchMapping) -> [String] {
        var args = [
            "--screen",
            "\(jsonNumber(mapping.panel.width, decimals: 6))x\(jsonNumber(mapping.panel.height, decimals: 6))",
        ]
        if mapping.rotation != .deg0 { args += ["--rotation", "\(mapping.rotation.rawValue)"] }
        if !mapping.calibration.isIdentity {
            args += ["--touch-matrix", "\"\(mapping.calibration.configText)\""]
        }
        return args
    }

    /// Background writes in flight.
    private final class Writes: Sendable {
        static let shared = Writes()
        private let count = Mutex(0)
        var running: Int { count.withLock { $0 } }
        func begin() { count.withLock { $0 += 1 } }
        func end() { count.withLock { $0 -= 1 } }
    }
}
