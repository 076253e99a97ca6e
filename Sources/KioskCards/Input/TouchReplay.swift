import CardModel

/// How a recording (or a device) is mapped onto the screen for `replay`.
struct TouchReplayOptions: Sendable {
    /// The panel's native size in points; nil: 800×480.
    var screen: Size?
    var rotation: Rotation = .deg0
    /// `--touch-matrix`; nil: identity.
    var calibration: TouchMatrix?
    var touchTransform: TouchMatrix = .identity

    static let defaultScreen = Size(width: 800, height: 480)
}

/// A recording decoded into screen-space frames: the pure core of `KioskCards replay` and of
/// the recording tests.
struct TouchReplay {
    var kind: DeviceKind
    var profile: TouchProfile
    var mapping: TouchMapping
    /// One frame per SYN_REPORT that changed something.
    var frames: [TouchFrame]
    /// Contacts still down at the end of the recording, cancelled by a final frame (appended to
    /// `frames`); 0 for every well-formed recording.
    var cancelledAtEnd: Int

    /// Decodes `recording`; throws when the device is not a touch device.
    init(_ recording: EvemuRecording, options: TouchReplayOptions = TouchReplayOptions()) throws(TouchReplayError) {
        kind = recording.device.classify()
        guard let profile = kind.touchProfile else {
            throw TouchReplayError(
                message: "'\(recording.device.name)' is not a touch device: \(kind.label)")
        }
        self.profile = profile
        mapping = TouchMapping(
            profile: profile, panel: options.screen ?? TouchReplayOptions.defaultScreen, rotation: options.rotation,
            calibration: options.calibration ?? .identity)
        mapping.touchTransform = options.touchTransform
        var decoder = TouchDecoder(profile: profile)
        frames = []
        for event in recording.events {
            if let f = decoder.process(event) { frames.append(mapping.map(f)) }
        }
        cancelledAtEnd = decoder.activeContactCount
        if let last = recording.events.last, let f = decoder.cancelAll(at: last.time) {
            frames.append(mapping.map(f))
        }
    }
}

struct TouchReplayError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
