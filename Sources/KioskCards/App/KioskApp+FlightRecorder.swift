import KioskInput
import KioskSystem

/// The input flight recorder of the running kiosk: every touch device's last minutes of raw
/// events (`InputManager` keeps them), written as evemu files into the data directory on
/// SIGUSR2 and on a fatal error.
extension KioskApp {
    /// Seconds of input kept per touch device (bounded by `FlightRecorder`'s default capacity).
    static let flightRecorderWindow = 180.0

    /// Writes the recordings (off the loop thread) and logs their paths; returns the paths.
    @discardableResult
    func saveFlightRecordings(reason: String) -> [String] {
        guard let input else {
            Log.warning("flight recorder: \(reason): input is off, nothing recorded")
            return []
        }
        return FlightRecordingDump.save(
            input.flightRecordings(), reason: reason,
            context: FlightRecordingDump.Context(
                dataDirectory: config.dataDirectory, kioskID: kioskID, panelWidth: display.panelWidth,
                panelHeight: display.panelHeight, scale: surface.scale, deckPath: deckFile.path,
                panelMM: display.physicalSizeMM))
    }
}
