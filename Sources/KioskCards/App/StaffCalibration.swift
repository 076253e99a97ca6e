import CardModel
import KioskInput
import KioskSystem

/// The staff menu's touch calibration: `CalibrationSequence` (as `KioskCards calibrate` runs it)
/// on the input's raw device frames. Each step goes to `progress` as the rules' input; the result
/// maps touches at once and is written to kiosk.conf's `touch-matrix` off the loop.
final class StaffCalibration {
    private let input: InputManager
    private let screen: Size
    private let configPath: String?
    /// The staff menu's language (its notes about a refused tap).
    private let language: String?
    private let progress: (KioskInput, Instant) -> Void
    private var sequence: CalibrationSequence?

    init(
        input: InputManager, screen: Size, configPath: String?, language: String?,
        progress: @escaping (KioskInput, Instant) -> Void
    ) {
        self.input = input
        self.language = language
        self.screen = screen
        self.configPath = configPath
        self.progress = progress
    }

    func start(at time: Instant) {
        let targets = TouchCalibration.targets(for: screen)
        progress(.calibration(target: targets.first, step: 0, of: targets.count, note: nil), time)
        Log.info("staff: calibration started, target 1 at \(TouchCalibration.pointText(targets[0])) pt")
        input.onDeviceFrame = { [unowned self] raw, mapping in self.frame(raw, mapping: mapping) }
    }

    func stop() {
        input.onDeviceFrame = nil
        sequence = nil
    }

    private func frame(_ raw: DeviceTouchFrame, mapping: TouchMapping) {
        var sequence = self.sequence ?? CalibrationSequence(mapping: mapping)
        let outcome = sequence.handle(raw)
        self.sequence = sequence
        let n = sequence.targets.count
        let target = sequence.currentTarget.map { sequence.targets[$0] }
        switch outcome {
        case .nothing, .pressed: break
        case .accepted(let i):
            Log.info("staff: calibration target \(i + 1) of \(n) tapped")
            progress(.calibration(target: target, step: sequence.currentTarget, of: n, note: nil), raw.time)
        case .refused(let why), .restarted(let why):
            Log.warning("staff: calibration: \(why)")
            progress(
                .calibration(target: target, step: sequence.currentTarget, of: n, note: why.text(in: language)),
                raw.time)
        case .finished(let result):
            Log.info(
                "staff: calibrated, touch-matrix = \(ConfigEdit.matrixValue(result.matrix)), worst error "
                    + "\(jsonNumber(result.worstErrorPoints, decimals: 2)) pt; touches use it now")
            input.setCalibration(result.matrix)
            stop()
            progress(.calibration(target: nil, step: nil, of: n, note: nil), raw.time)
            save(result.matrix)
        }
    }

    /// Writes `touch-matrix` into the config file in the background (the file may be on a slow card).
    private func save(_ matrix: TouchMatrix) {
        guard let path = configPath else {
            return Log.warning("staff: no config file was read; the calibration lasts until restart")
        }
        BackgroundWork.run("calibration-save") {
            let original = try? FileIO.readText(path, limit: 1 << 20)
            switch ConfigEdit.saveTouchMatrix(matrix, original: original, path: path) {
            case .success(let p): Log.info("staff: calibration written to \(p)")
            case .failure(let e): Log.error("staff: calibration not saved: \(e)")
            }
        }
    }
}
