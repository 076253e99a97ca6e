import CardModel
import Glibc
import KioskDisplay
import KioskInput
import KioskRender
import KioskSystem

/// What the running kiosk writes for its operator on request: a screenshot, the input flight
/// recorder's last minutes, the run's figures. Each is written off the loop or is a small write.
enum Diagnostics {
    /// `screen` (composed for it, not touched again here) as a PNG in `directory`, written off
    /// the loop thread; the buffer is freed once written.
    static func saveScreenshot(_ screen: PixelBuffer, directory: String) {
        let copy = screen
        let path = "\(directory)/screenshot-\(WallClock.nowMilliseconds()).png"
        BackgroundWork.run("screenshot", UncheckedBox(copy)) { box in
            do {
                try box.value.writePNG(to: path)
                Log.info("screenshot: saved \(path)")
            } catch {
                Log.error("screenshot: \(error) — is \(path) writable?")
            }
        }
    }

    /// Every touch device's last minutes of raw events as evemu files (off the loop), with what
    /// replaying them needs (the panel, the scale, the deck on screen); their paths.
    static func saveFlightRecordings(
        _ input: InputManager?, reason: String, config: KioskConfig, kioskID: String, display: Display,
        scale: Double, deckPath: String
    ) -> [String] {
        guard let input else {
            Log.warning("flight recorder: \(reason): input is off, nothing recorded")
            return []
        }
        let context = FlightRecordingDump.Context(
            dataDirectory: config.dataDirectory, kioskID: kioskID, panelWidth: display.panelWidth,
            panelHeight: display.panelHeight, scale: scale, deckPath: deckPath, panelMM: display.physicalSizeMM)
        return FlightRecordingDump.save(input.flightRecordings(), reason: reason, context: context)
    }

    /// The stats line to the log and, with `--stats FILE`, the figures as JSON to `path`
    /// (a small write into the page cache, no fsync).
    static func reportStats(_ stats: RunStats, display: Display, to path: String?) {
        let rss = RunStats.peakRSSKilobytes()
        Log.info(stats.line(peakRSSKilobytes: rss, now: MonotonicClock.now()))
        guard let path else { return }
        let json = stats.json(
            peakRSSKilobytes: rss,
            more: display.flipIntervals.jsonFields + [
                ("frame_callbacks", String(display.framesDelivered)),
                ("frame_callbacks_with_nothing_to_show", String(display.framesWithNothingToShow)),
                ("presents_refused", String(display.presentsRefused)),
            ])
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return Log.error(
                "stats: cannot write \(path): \(Errno.current) — check the directory exists and is writable")
        }
        defer { close(fd) }
        do { try FileIO.writeAll(fd: fd, bytes: Array((json + "\n").utf8), detail: path) } catch {
            Log.error("stats: \(error)")
        }
    }
}
