import CardModel
import KioskInput

/// The tap sequence of `KioskCards calibrate` as a pure state machine: raw touch frames in
/// (device units, before any calibration), the target to show and the outcome out. Time is the
/// frames' own.
///
/// One target at a time (`TouchCalibration.targets`, clockwise from the top left). A press
/// counts when exactly one finger touches and lifts again; its position is the mean of what
/// the device reported while it was down (a finger rocks a little). A second finger spoils the
/// press (the sequence waits until every finger is up). A press that lands close to an earlier
/// target's tap (a double tap on the same target, a bounce) is refused so the sequence cannot
/// finish with two taps for one target. After the last target the matrix is solved; taps that
/// cannot give one (all on a line) start the sequence again.
struct CalibrationSequence {
    enum Phase: Hashable {
        /// Waiting for the tap on `targets[i]`.
        case target(Int)
        case finished(TouchCalibration.Result)
    }

    /// Why a tap did not count, in English for the log and `calibrate`'s screen (`description`)
    /// and in a language for the staff menu (`text(in:)`).
    enum Problem: Hashable, Sendable, CustomStringConvertible {
        case twoFingers
        case tooQuick
        /// The tap hit where target `earlier` (1-based) was tapped, not target `target`.
        case sameSpot(earlier: Int, target: Int)
        /// The taps do not give a matrix (e.g. all on one line).
        case noFit

        func text(in language: String?) -> String {
            switch self {
            case .twoFingers: UIStrings.text(.calibrateTwoFingers, in: language)
            case .tooQuick: UIStrings.text(.calibrateTooQuick, in: language)
            case .sameSpot(let earlier, let target):
                UIStrings.text(.calibrateSameSpot, in: language, "\(earlier)", "\(target)")
            case .noFit: UIStrings.text(.calibrateNoFit, in: language)
            }
        }

        var description: String {
            switch self {
            case .twoFingers: "two fingers: tap with one finger only"
            case .tooQuick: "too quick after the last tap: tap the new target"
            case .sameSpot(let earlier, let target): "that tap is where target \(earlier)'s was: tap target \(target)"
            case .noFit: "the taps do not give a calibration (are they on one line?): start again"
            }
        }
    }

    /// What a frame did, for the screen and the log.
    enum Outcome: Hashable {
        case nothing
        /// A finger came down on the current target (the screen marks it pressed).
        case pressed
        /// The tap for target `i` was taken; the next target shows (or the result).
        case accepted(Int)
        /// A press did not count; the problem says why. The same target stays.
        case refused(Problem)
        /// The taps could not give a matrix; the sequence starts again at the first target.
        case restarted(Problem)
        case finished(TouchCalibration.Result)
    }

    /// Targets in logical screen points.
    let targets: [Point]
    /// The mapping without calibration: its axis ranges normalise the taps, its panel and
    /// rotation say where the targets are.
    let mapping: TouchMapping
    /// Taps closer than this to an earlier target's tap (normalised device units: a fraction of
    /// the axis) are refused.
    static let minimumSeparation = 0.1
    /// Taps this soon (seconds) after the last accepted one are refused (a bounce).
    static let minimumInterval = 0.2

    private(set) var phase: Phase = .target(0)
    /// Normalised device positions of the taps taken so far, one per target.
    private(set) var taps: [Point] = []
    private var press: (id: Int, sum: Point, samples: Int)?
    private var down: Set<Int> = []
    /// A second finger spoiled the press: nothing counts until every finger is up.
    private var spoiled = false
    private var lastAccepted: Instant?

    init(mapping: TouchMapping) {
        var identity = mapping
        identity.calibration = .identity
        self.mapping = identity
        targets = TouchCalibration.targets(for: identity.logicalSize)
    }

    /// The target to show now; nil when finished.
    var currentTarget: Int? {
        if case .target(let i) = phase { return i }
        return nil
    }

    /// True while a finger is down on the current target.
    var isPressed: Bool { press != nil && !spoiled }

    mutating func handle(_ frame: DeviceTouchFrame) -> Outcome {
        guard case .target(let index) = phase else { return .nothing }
        var outcome = Outcome.nothing
        for contact in frame.contacts {
            let p = mapping.normalised(contact.position)
            switch contact.phase {
            case .began:
                down.insert(contact.id)
                if press == nil && down.count == 1 && !spoiled {
                    press = (contact.id, p, 1)
                    outcome = .pressed
                } else if !spoiled {
                    spoiled = true
                    press = nil
                    outcome = .refused(.twoFingers)
                }
            case .moved:
                if let current = press, current.id == contact.id {
                    press = (current.id, current.sum + p, current.samples + 1)
                }
            case .ended, .cancelled:
                down.remove(contact.id)
                if let current = press, current.id == contact.id {
                    press = nil
                    if contact.phase == .ended {
                        let tap = Point(
                            x: current.sum.x / Double(current.samples), y: current.sum.y / Double(current.samples))
                        outcome = take(tap, at: frame.time, index: index)
                    }
                }
                if down.isEmpty { spoiled = false }
            }
            if case .finished = phase { break }
            if case .restarted = outcome { break }
        }
        return outcome
    }

    private mutating func take(_ tap: Point, at time: Instant, index: Int) -> Outcome {
        if let lastAccepted, time.seconds(since: lastAccepted) < Self.minimumInterval {
            return .refused(.tooQuick)
        }
        if let near = taps.firstIndex(where: { ($0 - tap).length < Self.minimumSeparation }) {
            return .refused(.sameSpot(earlier: near + 1, target: index + 1))
        }
        taps.append(tap)
        lastAccepted = time
        guard taps.count == targets.count else {
            phase = .target(taps.count)
            return .accepted(index)
        }
        guard let result = TouchCalibration.solve(targets: targets, taps: taps, mapping: mapping) else {
            taps = []
            phase = .target(0)
            return .restarted(.noFit)
        }
        phase = .finished(result)
        return .finished(result)
    }
}
